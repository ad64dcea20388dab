/* Column values: how a number, an unsigned or a symbol is held in the
 * engine's 64-bit columns (ravel/datalog.h, "Values"). */
#include "dl_internal.h"

#include <xxhash.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *dl_type_name(dl_type t)
{
    switch (t) {
    case DL_NUMBER: return "number";
    case DL_UNSIGNED: return "unsigned";
    case DL_SYMBOL: return "symbol";
    }
    return "?";
}

/* Flipping the sign bit maps INT64_MIN..INT64_MAX onto 0..UINT64_MAX in
 * order, so the engine's unsigned comparisons compare numbers correctly. */
uint64_t dl_encode_number(int64_t v) { return (uint64_t)v ^ DL_SIGN_BIT; }

int64_t dl_as_signed(uint64_t bits)
{
    /* Two's complement without implementation-defined conversion. */
    return bits <= (uint64_t)INT64_MAX ? (int64_t)bits
                                       : -(int64_t)(~bits) - 1;
}

int64_t dl_decode_number(uint64_t stored)
{
    return dl_as_signed(stored ^ DL_SIGN_BIT);
}

/* RAVEL_TEST_SYMBOL_BITS=b (1..63) keeps only b bits of each id, for the
 * tests only: it makes the collisions that 64-bit ids never show in
 * practice, so that their detection can be tested. */
static uint64_t symbol_mask(void)
{
    static uint64_t mask;
    if (!mask) {
        const char *env = getenv("RAVEL_TEST_SYMBOL_BITS");
        int bits = env ? atoi(env) : 64;
        mask = bits >= 1 && bits < 64 ? (UINT64_C(1) << bits) - 1
                                      : UINT64_MAX;
    }
    return mask;
}

uint64_t dl_symbol_hash(const char *s, size_t len)
{
    return XXH3_64bits(s, len) & symbol_mask();
}

int dl_compare_text(const char *a, size_t la, const char *b, size_t lb)
{
    size_t n = la < lb ? la : lb;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
}

int dl_encode_term(const char *file, const dl_term *t, dl_type type,
                   uint64_t *out)
{
    if (t->kind == DL_TERM_STRING) {
        if (type != DL_SYMBOL)
            return dl_error_at(file, t->pos,
                               "the string \"%.*s\" in a %s column",
                               (int)(t->len > 40 ? 40 : t->len), t->name,
                               dl_type_name(type));
        *out = dl_symbol_hash(t->name, t->len);
        return 0;
    }
    if (type == DL_SYMBOL)
        return dl_error_at(file, t->pos, "a number in a symbol column");
    if (type == DL_UNSIGNED) {
        if (t->negative && t->magnitude != 0)
            return dl_error_at(file, t->pos,
                               "-%" PRIu64 " in an unsigned column",
                               t->magnitude);
        *out = t->magnitude;
        return 0;
    }
    if (t->negative) {
        if (t->magnitude > (uint64_t)INT64_MAX + 1)
            return dl_error_at(file, t->pos,
                               "-%" PRIu64 " is below the smallest number, "
                               "-9223372036854775808", t->magnitude);
        *out = (DL_SIGN_BIT - t->magnitude); /* (-m) ^ DL_SIGN_BIT */
        return 0;
    }
    if (t->magnitude > (uint64_t)INT64_MAX)
        return dl_error_at(file, t->pos,
                           "%" PRIu64 " is above the largest number, "
                           "9223372036854775807", t->magnitude);
    *out = dl_encode_number((int64_t)t->magnitude);
    return 0;
}

/* The digits s[0..n) in base 2, 10 or 16: 0, -1 when there are none or
 * one is not a digit of the base, -2 when the value exceeds 64 bits. */
static int parse_digits(const char *s, size_t n, unsigned base, uint64_t *out)
{
    if (n == 0)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned d = 99;
        char c = s[i];
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        if (d >= base)
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -2;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

int dl_parse_number_text(const char *s, size_t n, uint64_t *magnitude,
                         int *negative)
{
    size_t i = 0;
    unsigned base = 10;
    *negative = 0;
    if (n > 0 && s[0] == '-')
        *negative = 1, i = 1;
    if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
        base = 16, i += 2;
    else if (n - i > 2 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'B'))
        base = 2, i += 2;
    return parse_digits(s + i, n - i, base, magnitude);
}

/* Soufflé's ReadStreamCSV reads a number field with std::stoll in base 10
 * and an unsigned one with std::stoull, in base 2 or 16 after a "0b" or
 * "0x" prefix, else in base 10, refusing a leading '-'; either must use
 * the whole field.  So a decimal field may start with C's white space and
 * a '+' (" 7" and "+7" are 7), and 0x10 is no number (ravel read it as 16,
 * as in program text, where Soufflé's parser does take it). */
static int is_c_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

int dl_parse_fact_number(const char *s, size_t n, dl_type t,
                         uint64_t *magnitude, int *negative)
{
    *negative = 0;
    if (t == DL_UNSIGNED && n > 2 && s[0] == '0' &&
        (s[1] == 'x' || s[1] == 'b'))
        return parse_digits(s + 2, n - 2, s[1] == 'x' ? 16 : 2, magnitude);
    if (t == DL_UNSIGNED && n > 0 && s[0] == '-')
        return -1;
    size_t i = 0;
    while (i < n && is_c_space(s[i]))
        i++;
    if (i < n && (s[i] == '+' || (t == DL_NUMBER && s[i] == '-')))
        *negative = s[i++] == '-';
    return parse_digits(s + i, n - i, 10, magnitude);
}
