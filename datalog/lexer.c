/* The lexer: a program's text as tokens with their line and column.
 * Comments (// and / * * /) and blanks are skipped; a line that starts with
 * '#' is refused, since ravel-datalog does not run the C preprocessor that
 * Soufflé runs first, and silently skipping an #include would evaluate a
 * different program. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <string.h>

/* Soufflé's directives; any of them is a DIRECTIVE token, so the parser can
 * name the ones it refuses.  A '.' followed by another word ends a clause. */
static const char *const directives[] = {
    "decl", "type", "input", "output", "printsize", "comp", "init",
    "functor", "pragma", "plan", "limitsize", "override", "lattice",
    "number_type", "symbol_type", "include", "once"};

void dl_lexer_init(dl_lexer *lx, dl_arena *arena, const char *file,
                   const char *src, size_t len)
{
    lx->arena = arena;
    lx->file = file;
    lx->src = src;
    lx->len = len;
    lx->at = 0;
    lx->pos.line = 1;
    lx->pos.col = 1;
}

int dl_token_is(const dl_token *t, const char *text)
{
    size_t n = strlen(text);
    return t->len == n && memcmp(t->text, text, n) == 0 &&
           t->kind != DL_TOK_STRING;
}

static int peek(const dl_lexer *lx, size_t ahead)
{
    return lx->at + ahead < lx->len ? (unsigned char)lx->src[lx->at + ahead]
                                    : -1;
}

static void advance(dl_lexer *lx)
{
    if (lx->src[lx->at] == '\n') {
        lx->pos.line++;
        lx->pos.col = 1;
    } else if (((unsigned char)lx->src[lx->at] & 0xC0) != 0x80) {
        lx->pos.col++; /* columns count characters, not UTF-8 bytes */
    }
    lx->at++;
}

static int is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           c == '?';
}

static int is_ident_byte(int c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

static int at_line_start(const dl_lexer *lx)
{
    for (size_t i = lx->at; i > 0; i--) {
        char c = lx->src[i - 1];
        if (c == '\n')
            return 1;
        if (c != ' ' && c != '\t' && c != '\r')
            return 0;
    }
    return 1;
}

static int skip_blanks(dl_lexer *lx)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v') {
            advance(lx);
        } else if (c == '/' && peek(lx, 1) == '/') {
            while (peek(lx, 0) != -1 && peek(lx, 0) != '\n')
                advance(lx);
        } else if (c == '/' && peek(lx, 1) == '*') {
            dl_pos start = lx->pos;
            advance(lx);
            advance(lx);
            while (!(peek(lx, 0) == '*' && peek(lx, 1) == '/')) {
                if (peek(lx, 0) == -1)
                    return dl_error_at(lx->file, start,
                                       "a comment /* is never closed");
                advance(lx);
            }
            advance(lx);
            advance(lx);
        } else if (c == '#' && at_line_start(lx)) {
            return dl_error_at(lx->file, lx->pos,
                               "a C-preprocessor line (#...): ravel-datalog "
                               "does not run the preprocessor; expand the "
                               "program first (cpp -P) or remove the line");
        } else {
            return 0;
        }
    }
}

/* Soufflé's escapes: \" \' \\ \a \b \f \n \r \t \v. */
static int escape_value(int c)
{
    switch (c) {
    case '"': return '"';
    case '\'': return '\'';
    case '\\': return '\\';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'v': return '\v';
    }
    return -1;
}

static int lex_string(dl_lexer *lx, dl_token *tok)
{
    advance(lx); /* the opening quote */
    const char *start = lx->src + lx->at;
    size_t escapes = 0;
    while (peek(lx, 0) != '"') {
        int c = peek(lx, 0);
        if (c == -1 || c == '\n')
            return dl_error_at(lx->file, tok->pos,
                               "a string is not closed on its line");
        if (c == '\\') {
            if (escape_value(peek(lx, 1)) < 0)
                return dl_error_at(lx->file, lx->pos,
                                   "unknown escape sequence \\%c",
                                   peek(lx, 1) > 32 ? peek(lx, 1) : '?');
            escapes++;
            advance(lx);
        }
        advance(lx);
    }
    size_t raw = (size_t)(lx->src + lx->at - start);
    advance(lx);
    tok->kind = DL_TOK_STRING;
    tok->text = start;
    tok->len = raw;
    if (!escapes)
        return 0;
    char *decoded = dl_alloc(lx->arena, raw + 1);
    if (!decoded)
        return ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < raw; i++)
        decoded[n++] = start[i] == '\\' ? (char)escape_value(start[++i])
                                         : start[i];
    tok->text = decoded;
    tok->len = n;
    return 0;
}

static int lex_number(dl_lexer *lx, dl_token *tok)
{
    tok->text = lx->src + lx->at;
    while (is_ident_byte(peek(lx, 0)))
        advance(lx);
    if (peek(lx, 0) == '.' && peek(lx, 1) >= '0' && peek(lx, 1) <= '9')
        return dl_error_at(lx->file, tok->pos,
                           "float constants are not supported");
    tok->len = (size_t)(lx->src + lx->at - tok->text);
    tok->kind = DL_TOK_NUMBER;
    return 0;
}

static int lex_punct(dl_lexer *lx, dl_token *tok)
{
    static const char *const two[] = {":-", "!=", "<=", ">=", "<:"};
    tok->text = lx->src + lx->at;
    tok->len = 1;
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (peek(lx, 0) == two[i][0] && peek(lx, 1) == two[i][1])
            tok->len = 2;
    for (size_t i = 0; i < tok->len; i++)
        advance(lx);
    tok->kind = DL_TOK_PUNCT;
    return 0;
}

int dl_lex(dl_lexer *lx, dl_token *tok)
{
    int rc = skip_blanks(lx);
    if (rc)
        return rc;
    tok->pos = lx->pos;
    tok->len = 0;
    tok->text = lx->src + lx->at;
    int c = peek(lx, 0);
    if (c == -1) {
        tok->kind = DL_TOK_EOF;
        return 0;
    }
    if (c == '"')
        return lex_string(lx, tok);
    if (c >= '0' && c <= '9')
        return lex_number(lx, tok);
    if (is_ident_start(c)) {
        while (is_ident_byte(peek(lx, 0)))
            advance(lx);
        tok->len = (size_t)(lx->src + lx->at - tok->text);
        tok->kind = tok->len == 1 && c == '_' ? DL_TOK_PUNCT : DL_TOK_IDENT;
        return 0;
    }
    if (c == '.' && is_ident_start(peek(lx, 1))) {
        size_t n = 1;
        while (is_ident_byte(peek(lx, n)))
            n++;
        for (size_t i = 0; i < sizeof directives / sizeof directives[0]; i++)
            if (strlen(directives[i]) == n - 1 &&
                memcmp(directives[i], lx->src + lx->at + 1, n - 1) == 0) {
                tok->kind = DL_TOK_DIRECTIVE;
                tok->text = lx->src + lx->at + 1;
                tok->len = n - 1;
                for (size_t k = 0; k < n; k++)
                    advance(lx);
                return 0;
            }
    }
    return lex_punct(lx, tok);
}
