/* The rules of the Matrix Market and edge-list formats, one line at a time,
 * and the messages that say which rule a line breaks. */
#include "line_parsers.h"

#include <mpi.h>
#include <string.h>
#include <strings.h>

/* Entries carry at most 4 fields; one more tells "too many" apart. */
#define MAX_FIELDS 5

typedef struct {
    const char *s;
    size_t n;
} field;

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* Splits text at blanks; returns the number of fields (all of them, even
 * beyond MAX_FIELDS, of which the first MAX_FIELDS are stored). */
static size_t split(const char *text, field out[MAX_FIELDS])
{
    size_t count = 0;
    const char *p = text;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (*p == '\0')
            return count;
        const char *start = p;
        while (*p && !is_blank(*p))
            p++;
        if (count < MAX_FIELDS)
            out[count] = (field){start, (size_t)(p - start)};
        count++;
    }
}

/* 0 when f is all decimal digits fitting uint64_t; -1 otherwise. */
static int to_u64(field f, uint64_t *out)
{
    uint64_t v = 0;
    if (f.n == 0)
        return -1;
    for (size_t i = 0; i < f.n; i++) {
        unsigned d = (unsigned)(f.s[i] - '0');
        if (d > 9 || v > (UINT64_MAX - d) / 10)
            return -1;
        v = 10 * v + d;
    }
    *out = v;
    return 0;
}

static size_t digits(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i;
}

static int is_integer(field f)
{
    size_t i = (f.n > 0 && (f.s[0] == '+' || f.s[0] == '-')) ? 1 : 0;
    return i < f.n && digits(f.s + i, f.n - i) == f.n - i;
}

/* A decimal floating-point number as C's strtod reads it (no hex), or
 * inf/infinity/nan with an optional sign. */
static int is_real(field f)
{
    size_t i = (f.n > 0 && (f.s[0] == '+' || f.s[0] == '-')) ? 1 : 0;
    const char *s = f.s + i;
    size_t n = f.n - i;
    if ((n == 3 && (!strncasecmp(s, "inf", 3) || !strncasecmp(s, "nan", 3))) ||
        (n == 8 && !strncasecmp(s, "infinity", 8)))
        return 1;
    size_t whole = digits(s, n), at = whole, frac = 0;
    if (at < n && s[at] == '.') {
        frac = digits(s + at + 1, n - at - 1);
        at += 1 + frac;
    }
    if (whole + frac == 0)
        return 0;
    if (at < n && (s[at] == 'e' || s[at] == 'E')) {
        at++;
        if (at < n && (s[at] == '+' || s[at] == '-'))
            at++;
        size_t exp = digits(s + at, n - at);
        if (exp == 0)
            return 0;
        at += exp;
    }
    return at == n;
}

static int word_is(field f, const char *word)
{
    return f.n == strlen(word) && strncasecmp(f.s, word, f.n) == 0;
}

/* Inside format strings, hence the doubled '%'. */
#define BANNER "'%%%%MatrixMarket matrix coordinate FIELD SYMMETRY'"

int ravel_tc_parse_banner(const char *text, uint64_t line,
                          ravel_tc_input_error *err, ravel_tc_mm_header *h)
{
    char q[RAVEL_TC_QUOTE_ROOM];
    field f[MAX_FIELDS];
    if (!text) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the Matrix Market banner " BANNER
                                ", found end of file (the file is empty)");
        return -1;
    }
    size_t n = split(text, f);
    if (n == 0 || !word_is(f[0], "%%MatrixMarket")) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the Matrix Market banner " BANNER
                                ", found %s",
                                ravel_tc_quote(text, strlen(text), q, sizeof q));
        return -1;
    }
    if (n != 5) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected 5 words in the banner " BANNER
                                ", found %zu",
                                n);
        return -1;
    }
    if (!word_is(f[1], "matrix")) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the object 'matrix' in the banner, "
                                "found %s",
                                ravel_tc_quote(f[1].s, f[1].n, q, sizeof q));
        return -1;
    }
    if (!word_is(f[2], "coordinate")) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the format 'coordinate' in the "
                                "banner (a graph is a sparse matrix; 'array' "
                                "is dense), found %s",
                                ravel_tc_quote(f[2].s, f[2].n, q, sizeof q));
        return -1;
    }
    static const char *const fields[] = {"pattern", "integer", "real",
                                         "complex"};
    static const char *const symmetries[] = {"general", "symmetric",
                                             "skew-symmetric", "hermitian"};
    h->field = RAVEL_TC_FIELD_NONE;
    for (size_t i = 0; i < 4; i++)
        if (word_is(f[3], fields[i]))
            h->field = (ravel_tc_field)(RAVEL_TC_FIELD_PATTERN + i);
    if (h->field == RAVEL_TC_FIELD_NONE) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the field pattern, integer, real or "
                                "complex in the banner, found %s",
                                ravel_tc_quote(f[3].s, f[3].n, q, sizeof q));
        return -1;
    }
    int found = 0;
    for (size_t i = 0; i < 4; i++)
        if (word_is(f[4], symmetries[i])) {
            h->symmetry = (ravel_tc_symmetry)(RAVEL_TC_SYMMETRY_GENERAL + i);
            found = 1;
        }
    if (!found) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the symmetry general, symmetric, "
                                "skew-symmetric or hermitian in the banner, "
                                "found %s",
                                ravel_tc_quote(f[4].s, f[4].n, q, sizeof q));
        return -1;
    }
    return 1;
}

static int is_comment(const char *text, const char *marks)
{
    while (is_blank(*text))
        text++;
    return *text == '\0' || strchr(marks, *text) != NULL;
}

int ravel_tc_parse_size_line(const char *text, uint64_t line,
                             ravel_tc_input_error *err, ravel_tc_mm_header *h)
{
    char q[RAVEL_TC_QUOTE_ROOM];
    field f[MAX_FIELDS];
    if (!text) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the size line 'rows columns "
                                "entries', found end of file");
        return -1;
    }
    if (is_comment(text, "%"))
        return 0;
    size_t n = split(text, f);
    if (n != 3 || to_u64(f[0], &h->rows) || to_u64(f[1], &h->columns) ||
        to_u64(f[2], &h->entries)) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected the size line 'rows columns "
                                "entries' (three non-negative integers), "
                                "found %s",
                                ravel_tc_quote(text, strlen(text), q, sizeof q));
        return -1;
    }
    h->size_line = line;
    return 1;
}

/* Parses an index of the row or column dimension `limit`. */
static int parse_index(field f, const char *what, uint64_t limit,
                       ravel_tc_index_mode indices, uint64_t line,
                       ravel_tc_input_error *err, uint64_t *id)
{
    char q[RAVEL_TC_QUOTE_ROOM];
    uint64_t v = 0;
    uint64_t lowest = indices == RAVEL_TC_INDICES_ZERO_TOLERANT ? 0 : 1;
    int is_number = to_u64(f, &v) == 0;
    if (!is_number || v < lowest || v > limit) {
        const char *hint = "";
        if (is_number && v == 0)
            hint = " (Matrix Market indices start at 1; --indices="
                   "zero-tolerant reads files written from 0)";
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected a %s index in %llu..%llu, found "
                                "%s%s",
                                what, (unsigned long long)lowest,
                                (unsigned long long)limit,
                                ravel_tc_quote(f.s, f.n, q, sizeof q), hint);
        return -1;
    }
    *id = lowest == 1 ? v - 1 : v;
    return 0;
}

int ravel_tc_parse_mm_entry(char *text, uint64_t line,
                            const ravel_tc_mm_header *h,
                            ravel_tc_index_mode indices,
                            ravel_tc_input_error *err, uint64_t *src,
                            uint64_t *dst)
{
    static const size_t wanted[] = {0, 2, 3, 3, 4};
    static const char *const layout[] = {
        "", "row column", "row column value", "row column value",
        "row column real imaginary"};
    char q[RAVEL_TC_QUOTE_ROOM];
    field f[MAX_FIELDS];
    if (is_comment(text, "%"))
        return 0;
    size_t n = split(text, f), want = wanted[h->field];
    if (n != want) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected %zu fields '%s' for a %s matrix, "
                                "found %zu: %s",
                                want, layout[h->field],
                                ravel_tc_field_name(h->field), n,
                                ravel_tc_quote(text, strlen(text), q, sizeof q));
        return -1;
    }
    if (parse_index(f[0], "row", h->rows, indices, line, err, src) ||
        parse_index(f[1], "column", h->columns, indices, line, err, dst))
        return -1;
    for (size_t i = 2; i < n; i++) {
        int ok = h->field == RAVEL_TC_FIELD_INTEGER ? is_integer(f[i])
                                                   : is_real(f[i]);
        if (!ok) {
            ravel_tc_input_error_at(
                err, MPI_ERR_OTHER, line,
                "expected %s value in field %zu, found %s",
                h->field == RAVEL_TC_FIELD_INTEGER ? "an integer" : "a real",
                i + 1, ravel_tc_quote(f[i].s, f[i].n, q, sizeof q));
            return -1;
        }
    }
    return 1;
}

int ravel_tc_parse_edge_line(char *text, uint64_t line,
                             ravel_tc_input_error *err, uint64_t *src,
                             uint64_t *dst)
{
    char q[RAVEL_TC_QUOTE_ROOM];
    field f[MAX_FIELDS];
    if (is_comment(text, "#%"))
        return 0;
    size_t n = split(text, f);
    if (n != 2) {
        ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                "expected two vertex ids 'source target', "
                                "found %zu field%s: %s",
                                n, n == 1 ? "" : "s",
                                ravel_tc_quote(text, strlen(text), q, sizeof q));
        return -1;
    }
    for (size_t i = 0; i < 2; i++) {
        uint64_t v;
        if (to_u64(f[i], &v) || v >= RAVEL_TC_MAX_VERTEX_ID) {
            ravel_tc_input_error_at(err, MPI_ERR_OTHER, line,
                                    "expected a vertex id (an integer in "
                                    "0..%llu), found %s",
                                    (unsigned long long)(RAVEL_TC_MAX_VERTEX_ID - 1),
                                    ravel_tc_quote(f[i].s, f[i].n, q,
                                                   sizeof q));
            return -1;
        }
        *(i == 0 ? src : dst) = v;
    }
    return 1;
}
