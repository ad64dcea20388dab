/* Writes the worst-case family's text with loops, then parses it. */
#include "kcfa_generate.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kcfa_parse.h"
#include "ravel/error.h"

/* Bounds N so that the text's size (about 200 bytes per level) cannot
 * overflow and the parsed node ids stay far below 2^63. */
#define GENERATE_MAX_N ((uint64_t)1 << 40)

typedef struct {
    char *buf;
    size_t len, cap;
    int failed;
} text_buffer;

static void appendf(text_buffer *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void appendf(text_buffer *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap * 2;
        char *grown = cap > t->cap ? realloc(t->buf, cap) : NULL;
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
}

static void write_program(text_buffer *t, uint64_t n)
{
    appendf(t, "(program (app (lam x k ");
    for (uint64_t i = 1; i <= n; i++) /* the opening half of W_i */
        appendf(t,
                "(app (lam f_%" PRIu64 " k (app (ref f_%" PRIu64 ") "
                "(lam x k (app (ref k) (ref x) (ref x))) "
                "(lam na0 na1 (app (ref f_%" PRIu64 ") "
                "(lam y k (app (ref k) (ref y) (ref y))) (ref k))))) "
                "(lam z_%" PRIu64 " k ",
                i, i, i, i);
    appendf(t, "(app (ref k) (lam w k (app (ref w) (ref z_%" PRIu64 ") ", n);
    for (uint64_t j = n - 1; j >= 1; j--) /* the opening half of V_j */
        appendf(t, "(lam w na (app (ref w) (ref z_%" PRIu64 ") ", j);
    appendf(t, "(lam v na (app (ref k) (ref v) (ref v)))");
    for (uint64_t j = n - 1; j >= 1; j--)
        appendf(t, "))");
    appendf(t, ")) (ref k))"); /* closes W_{N+1} */
    for (uint64_t i = n; i >= 1; i--)
        appendf(t, ") (ref k))"); /* closes W_i */
    appendf(t, ") (lam u k (app (ref u) (ref u) (ref k))) "
               "(lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k))) "
               "(lam u1 k (app (ref u1) (ref u1) (ref k))) "
               "(lam u2 k (app (ref u2) (ref u2) (ref k)))))))\n");
}

int ravel_kcfa_generate_text(uint64_t n, char **text, size_t *len)
{
    if (n == 0 || n > GENERATE_MAX_N)
        return ravel_error_set(MPI_ERR_ARG,
                               "--generate=%" PRIu64
                               ": N must be between 1 and %" PRIu64,
                               n, GENERATE_MAX_N);
    text_buffer t = {malloc(4096), 0, 4096, 0};
    if (!t.buf)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "--generate=%" PRIu64 ": out of memory", n);
    write_program(&t, n);
    if (t.failed) {
        free(t.buf);
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "--generate=%" PRIu64
                               ": out of memory for the program text",
                               n);
    }
    *text = t.buf;
    *len = t.len;
    return MPI_SUCCESS;
}

int ravel_kcfa_generate(uint64_t n, ravel_kcfa_program *out)
{
    char *text = NULL, file[64];
    size_t len = 0;
    memset(out, 0, sizeof *out);
    int rc = ravel_kcfa_generate_text(n, &text, &len);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(file, sizeof file, "generated(%" PRIu64 ")", n);
    rc = ravel_kcfa_parse_text(text, len, file, out, NULL);
    free(text);
    return rc;
}
