/* Writes the worst-case family's text with loops, then parses it. */
#include "kcfa_generate.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcfa_parse.h"
#include "ravel/error.h"

/* Bounds N so that the text's size (about 200 bytes per level) cannot
 * overflow and the parsed node ids stay far below 2^63.  The memory of the
 * machine bounds it further (generate_fits). */
#define GENERATE_MAX_N ((uint64_t)1 << 40)

/* The repeated pieces of the text, each with its numbers as %PRIu64: the
 * writer prints them, and generated_text_bytes counts them. */
#define HEAD "(program (app (lam x k "
#define W_OPEN                                                                \
    "(app (lam f_%" PRIu64 " k (app (ref f_%" PRIu64 ") "                     \
    "(lam x k (app (ref k) (ref x) (ref x))) "                                \
    "(lam na0 na1 (app (ref f_%" PRIu64 ") "                                  \
    "(lam y k (app (ref k) (ref y) (ref y))) (ref k))))) "                    \
    "(lam z_%" PRIu64 " k "
#define W_LAST "(app (ref k) (lam w k (app (ref w) (ref z_%" PRIu64 ") "
#define V_OPEN "(lam w na (app (ref w) (ref z_%" PRIu64 ") "
#define V_0 "(lam v na (app (ref k) (ref v) (ref v)))"
#define V_CLOSE "))"
#define W_LAST_CLOSE ")) (ref k))"
#define W_CLOSE ") (ref k))"
#define TAIL                                                                  \
    ") (lam u k (app (ref u) (ref u) (ref k))) "                              \
    "(lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k))) "           \
    "(lam u1 k (app (ref u1) (ref u1) (ref k))) "                             \
    "(lam u2 k (app (ref u2) (ref u2) (ref k)))))))\n"

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

/* Writes the text; stops at the first failed allocation (t->failed) rather
 * than looping on through the remaining levels. */
static void write_program(text_buffer *t, uint64_t n)
{
    appendf(t, HEAD);
    for (uint64_t i = 1; i <= n && !t->failed; i++) /* opening half of W_i */
        appendf(t, W_OPEN, i, i, i, i);
    appendf(t, W_LAST, n);
    for (uint64_t j = n - 1; j >= 1 && !t->failed; j--) /* opening half of V_j */
        appendf(t, V_OPEN, j);
    appendf(t, V_0);
    for (uint64_t j = n - 1; j >= 1 && !t->failed; j--)
        appendf(t, V_CLOSE);
    appendf(t, W_LAST_CLOSE); /* closes W_{N+1} */
    for (uint64_t i = n; i >= 1 && !t->failed; i--)
        appendf(t, W_CLOSE); /* closes W_i */
    appendf(t, TAIL);
}

/* Decimal digits of n. */
static uint64_t digits_of(uint64_t n)
{
    uint64_t d = 1;
    for (; n >= 10; n /= 10)
        d++;
    return d;
}

/* Digits of the decimal numbers 1..n, summed. */
static uint64_t digits_up_to(uint64_t n)
{
    uint64_t sum = 0;
    for (uint64_t low = 1, d = 1; low <= n; low *= 10, d++) {
        uint64_t high = low > UINT64_MAX / 10 ? UINT64_MAX : low * 10 - 1;
        sum += ((n < high ? n : high) - low + 1) * d;
    }
    return sum;
}

/* Bytes of a piece without its numbers (each printed as "0", one digit). */
static uint64_t bare(int printed, int numbers)
{
    return (uint64_t)printed - (uint64_t)numbers;
}

uint64_t ravel_kcfa_generate_text_bytes(uint64_t n)
{
    if (n == 0 || n > GENERATE_MAX_N)
        return 0;
    uint64_t z = 0, fixed = strlen(HEAD) + strlen(V_0) +
                            strlen(W_LAST_CLOSE) + strlen(TAIL) +
                            bare(snprintf(NULL, 0, W_LAST, z), 1);
    uint64_t w = bare(snprintf(NULL, 0, W_OPEN, z, z, z, z), 4);
    uint64_t v = bare(snprintf(NULL, 0, V_OPEN, z), 1);
    return fixed + digits_of(n) /* z_N in W_LAST */ +
           n * (w + strlen(W_CLOSE)) + 4 * digits_up_to(n) +
           (n - 1) * (v + strlen(V_CLOSE)) + digits_up_to(n - 1);
}

/* The machine's memory in bytes, or UINT64_MAX when unknown. */
static uint64_t physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return UINT64_MAX;
    return (uint64_t)pages * (uint64_t)page;
}

/* The largest N whose text takes at most `bytes` (the text grows with N). */
static uint64_t largest_n_within(uint64_t bytes)
{
    uint64_t lo = 0, hi = GENERATE_MAX_N;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (ravel_kcfa_generate_text_bytes(mid) <= bytes)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* MPI_SUCCESS when N is in range and its text fits in memory; otherwise
 * an error that says which limit and what it is. */
static int generate_fits(uint64_t n)
{
    if (n == 0 || n > GENERATE_MAX_N)
        return ravel_error_set(MPI_ERR_ARG,
                               "--generate=%" PRIu64
                               ": N must be between 1 and %" PRIu64,
                               n, GENERATE_MAX_N);
    uint64_t need = ravel_kcfa_generate_text_bytes(n);
    uint64_t have = physical_memory();
    if (need > have)
        return ravel_error_set(MPI_ERR_ARG,
                               "--generate=%" PRIu64 ": the program's text "
                               "alone would take %" PRIu64 " bytes, more "
                               "than this machine's %" PRIu64 " bytes of "
                               "memory; the largest N whose text fits is "
                               "%" PRIu64,
                               n, need, have, largest_n_within(have));
    return MPI_SUCCESS;
}

int ravel_kcfa_generate_text(uint64_t n, char **text, size_t *len)
{
    int rc = generate_fits(n);
    if (rc != MPI_SUCCESS)
        return rc;
    text_buffer t = {malloc(4096), 0, 4096, 0};
    if (!t.buf)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "--generate=%" PRIu64 ": out of memory", n);
    write_program(&t, n);
    if (t.failed) {
        free(t.buf);
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "--generate=%" PRIu64 ": out of memory for "
                               "the program text (%" PRIu64 " bytes) after "
                               "%zu bytes",
                               n, ravel_kcfa_generate_text_bytes(n), t.len);
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
