/* Splits a program's text into tokens, tracking line and column. */
#include "kcfa_lexer.h"

#include <stdio.h>
#include <stdlib.h>

void kcfa_lexer_init(kcfa_lexer *lx, const char *input, size_t len)
{
    lx->input = input;
    lx->len = len;
    lx->pos = 0;
    lx->line = 1;
    lx->column = 1;
    lx->decoded = NULL;
    lx->decoded_cap = 0;
}

void kcfa_lexer_free(kcfa_lexer *lx)
{
    free(lx->decoded);
    lx->decoded = NULL;
    lx->decoded_cap = 0;
}

static void advance(kcfa_lexer *lx)
{
    if (lx->input[lx->pos] == '\n') {
        lx->line++;
        lx->column = 1;
    } else {
        lx->column++;
    }
    lx->pos++;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
           c == '\v';
}

/* A symbol byte: anything that does not end a symbol or start a string. */
static int is_symbol_byte(char c)
{
    return c != '\0' && !is_space(c) && c != '(' && c != ')' && c != '"' &&
           c != ';';
}

static void skip_blanks_and_comments(kcfa_lexer *lx)
{
    while (lx->pos < lx->len) {
        char c = lx->input[lx->pos];
        if (is_space(c)) {
            advance(lx);
        } else if (c == ';') {
            while (lx->pos < lx->len && lx->input[lx->pos] != '\n')
                advance(lx);
        } else {
            return;
        }
    }
}

static int append_decoded(kcfa_lexer *lx, size_t *n, char c)
{
    if (*n == lx->decoded_cap) {
        size_t cap = lx->decoded_cap ? 2 * lx->decoded_cap : 64;
        char *grown = realloc(lx->decoded, cap);
        if (!grown)
            return -1;
        lx->decoded = grown;
        lx->decoded_cap = cap;
    }
    lx->decoded[(*n)++] = c;
    return 0;
}

/* Reads a string whose opening quote is at lx->pos. */
static int read_string(kcfa_lexer *lx, kcfa_token *tok, size_t *bad_line,
                       size_t *bad_column, char *why, size_t whylen)
{
    size_t n = 0;
    advance(lx); /* the opening quote */
    for (;;) {
        if (lx->pos == lx->len) {
            *bad_line = tok->line;
            *bad_column = tok->column;
            snprintf(why, whylen, "unterminated string");
            return -1;
        }
        char c = lx->input[lx->pos];
        if (c == '"') {
            advance(lx);
            break;
        }
        if (c == '\0') {
            *bad_line = lx->line;
            *bad_column = lx->column;
            snprintf(why, whylen, "a NUL byte inside a string");
            return -1;
        }
        if (c == '\\') {
            char next = lx->pos + 1 < lx->len ? lx->input[lx->pos + 1] : '\0';
            if (next != '"' && next != '\\') {
                *bad_line = lx->line;
                *bad_column = lx->column;
                snprintf(why, whylen,
                         "bad escape in a string: only \\\" and \\\\ are "
                         "allowed");
                return -1;
            }
            advance(lx);
            c = next;
        }
        if (append_decoded(lx, &n, c) != 0)
            return -2;
        advance(lx);
    }
    tok->kind = KCFA_TOKEN_STRING;
    tok->text = lx->decoded;
    tok->len = n;
    return 0;
}

int kcfa_lexer_next(kcfa_lexer *lx, kcfa_token *tok, size_t *bad_line,
                    size_t *bad_column, char *why, size_t whylen)
{
    skip_blanks_and_comments(lx);
    tok->line = lx->line;
    tok->column = lx->column;
    tok->text = NULL;
    tok->len = 0;
    if (lx->pos == lx->len) {
        tok->kind = KCFA_TOKEN_END;
        return 0;
    }
    char c = lx->input[lx->pos];
    if (c == '(' || c == ')') {
        tok->kind = c == '(' ? KCFA_TOKEN_OPEN : KCFA_TOKEN_CLOSE;
        advance(lx);
        return 0;
    }
    if (c == '"')
        return read_string(lx, tok, bad_line, bad_column, why, whylen);
    if (c == '\0') {
        *bad_line = lx->line;
        *bad_column = lx->column;
        snprintf(why, whylen, "unexpected NUL byte");
        return -1;
    }
    size_t start = lx->pos;
    while (lx->pos < lx->len && is_symbol_byte(lx->input[lx->pos]))
        advance(lx);
    tok->kind = KCFA_TOKEN_SYMBOL;
    tok->text = lx->input + start;
    tok->len = lx->pos - start;
    return 0;
}
