/* kcfa_lexer.h (internal): the tokens of a program's text.
 *
 * Tokens are '(', ')', symbols and double-quoted strings; white space and
 * ';' comments separate them.  Each token carries the line and column of its
 * first byte so that every parse error can name its position.  A string's
 * escapes (\" and \\) are decoded into a buffer the lexer owns. */
#ifndef RAVEL_KCFA_LEXER_H
#define RAVEL_KCFA_LEXER_H

#include <stddef.h>

typedef enum {
    KCFA_TOKEN_END,    /* end of input */
    KCFA_TOKEN_OPEN,   /* ( */
    KCFA_TOKEN_CLOSE,  /* ) */
    KCFA_TOKEN_SYMBOL, /* text/len point into the input */
    KCFA_TOKEN_STRING  /* text/len point at the decoded bytes */
} kcfa_token_kind;

typedef struct {
    kcfa_token_kind kind;
    const char *text; /* for symbols and strings; not NUL-terminated */
    size_t len;
    size_t line, column;
} kcfa_token;

typedef struct {
    const char *input;
    size_t len, pos;
    size_t line, column; /* of input[pos] */
    char *decoded;       /* the last string's bytes, without escapes */
    size_t decoded_cap;
} kcfa_lexer;

void kcfa_lexer_init(kcfa_lexer *lx, const char *input, size_t len);
void kcfa_lexer_free(kcfa_lexer *lx);

/* Reads the next token.  Returns 0, or -1 with *bad_line, *bad_column and
 * why[0..whylen) describing a lexical error (an unterminated string, a bad
 * escape, a NUL byte) or -2 when memory ran out. */
int kcfa_lexer_next(kcfa_lexer *lx, kcfa_token *tok, size_t *bad_line,
                    size_t *bad_column, char *why, size_t whylen);

#endif
