/* Sorting flat arrays of fixed-width tuples on their first k columns, in
 * place (deduplication, on top of it: tuple_reduce.c).
 *
 * Tuples are `arity` uint64_t words, ordered lexicographically.  Bulk
 * deduplication by sorting is the engine's main local cost, so the sort is
 * an MSD radix sort on bytes that skips every byte position in which all
 * tuples agree: graph identifiers rarely use more than 2 or 3 of the 8 bytes
 * of a column, so a 2-column tuple is sorted on 4 to 6 byte positions.  When
 * too many byte positions vary (wide tuples of large values) a quicksort is
 * cheaper.  Memory beyond the tuples is a fixed 1 MiB scratch buffer, and
 * sorting cannot fail: without the buffer it is only slower. */
#include "relalg_internal.h"

#include <stdlib.h>
#include <string.h>

/* Radix passes beyond which the quicksort wins (each pass moves every
 * tuple; quicksort costs about log2(n) comparisons per tuple). */
#define RADIX_MAX_PASSES 12
/* Ranges of at most this many words are finished by an LSD radix sort
 * through a scratch buffer of that size (1 MiB: about L2). */
#define SCRATCH_WORDS ((size_t)1 << 17)
/* Below this many tuples, insertion sort. */
#define SMALL_SORT 24

ALWAYS_INLINE void swap_tuples(uint64_t *a, uint64_t *b, unsigned arity)
{
    for (unsigned i = 0; i < arity; i++) {
        uint64_t x = a[i];
        a[i] = b[i];
        b[i] = x;
    }
}

/* The sorts order tuples on their first k columns (k <= arity). */
static void insertion_sort(uint64_t *t, size_t n, unsigned arity, unsigned k)
{
    uint64_t tmp[RAVEL_MAX_ARITY];
    for (size_t i = 1; i < n; i++) {
        if (tuples_compare(t + (i - 1) * arity, t + i * arity, k) <= 0)
            continue;
        memcpy(tmp, t + i * arity, arity * sizeof *tmp);
        size_t j = i;
        while (j > 0 && tuples_compare(t + (j - 1) * arity, tmp, k) > 0) {
            memcpy(t + j * arity, t + (j - 1) * arity, arity * sizeof *tmp);
            j--;
        }
        memcpy(t + j * arity, tmp, arity * sizeof *tmp);
    }
}

/* Quicksort with median-of-three pivot; recursion on the smaller part keeps
 * the stack logarithmic. */
static void quick_sort(uint64_t *t, size_t n, unsigned arity, unsigned k)
{
    uint64_t pivot[RAVEL_MAX_ARITY];
    while (n > SMALL_SORT) {
        uint64_t *a = t, *m = t + (n / 2) * arity, *z = t + (n - 1) * arity;
        if (tuples_compare(m, a, k) < 0)
            swap_tuples(m, a, arity);
        if (tuples_compare(z, m, k) < 0) {
            swap_tuples(z, m, arity);
            if (tuples_compare(m, a, k) < 0)
                swap_tuples(m, a, arity);
        }
        memcpy(pivot, m, arity * sizeof *pivot);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (tuples_compare(t + i * arity, pivot, k) < 0)
                i++;
            while (tuples_compare(t + j * arity, pivot, k) > 0)
                j--;
            if (i >= j)
                break;
            swap_tuples(t + i * arity, t + j * arity, arity);
            i++;
            j--;
        }
        size_t left = j + 1, right = n - left;
        if (left < right) {
            quick_sort(t, left, arity, k);
            t += left * arity;
            n = right;
        } else {
            quick_sort(t + left * arity, right, arity, k);
            n = left;
        }
    }
    insertion_sort(t, n, arity, k);
}

ALWAYS_INLINE unsigned tuple_digit(const uint64_t *s, unsigned pos)
{
    return (unsigned)((s[pos / 8] >> ((pos % 8) * 8)) & 0xff);
}

/* LSD radix sort of a range that fits the scratch buffer, on the byte
 * positions pass[0..npass) (most significant first), ping-ponging between t
 * and scratch.  A bounded scratch keeps the range in cache and costs a fixed
 * amount of memory, not a copy of the tuples. */
ALWAYS_INLINE void lsd_sort_body(uint64_t *t, size_t n, unsigned arity,
                                 const unsigned *pass, unsigned npass,
                                 uint64_t *scratch)
{
    uint64_t *src = t, *dst = scratch;
    for (unsigned p = npass; p-- > 0;) {
        size_t offset[256] = {0}, sum = 0;
        for (size_t i = 0; i < n; i++)
            offset[tuple_digit(src + i * arity, pass[p])]++;
        for (unsigned d = 0; d < 256; d++) {
            size_t c = offset[d];
            offset[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            const uint64_t *s = src + i * arity;
            memcpy(dst + offset[tuple_digit(s, pass[p])]++ * arity, s,
                   arity * sizeof *s);
        }
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != t)
        memcpy(t, src, n * arity * sizeof *t);
}

static void lsd_sort(uint64_t *t, size_t n, unsigned arity,
                     const unsigned *pass, unsigned npass, uint64_t *scratch)
{
    WITH_CONSTANT_WIDTH(arity, w, lsd_sort_body(t, n, w, pass, npass, scratch))
}

/* One level of flag_sort: counts the tuples of each digit at byte
 * position `pos` and moves every tuple into its digit's range by following
 * cycles; count[d] and end[d] then bound each range. */
ALWAYS_INLINE void flag_level_body(uint64_t *t, size_t n, unsigned arity,
                                   unsigned pos, size_t count[256],
                                   size_t end[256])
{
    size_t next[256], sum = 0;
    memset(count, 0, 256 * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[tuple_digit(t + i * arity, pos)]++;
    for (unsigned d = 0; d < 256; d++) {
        next[d] = sum;
        sum += count[d];
        end[d] = sum;
    }
    uint64_t carry[RAVEL_MAX_ARITY];
    size_t bytes = arity * sizeof *t;
    for (unsigned d = 0; d < 256; d++) {
        while (next[d] < end[d]) {
            /* Carry the tuple at next[d] to its range, picking up the one
             * it displaces, until a tuple of digit d comes back. */
            uint64_t *home = t + next[d] * arity;
            unsigned x = tuple_digit(home, pos);
            if (x != d) {
                memcpy(carry, home, bytes);
                do {
                    uint64_t *slot = t + next[x]++ * arity;
                    unsigned y = tuple_digit(slot, pos);
                    swap_tuples(carry, slot, arity);
                    x = y;
                } while (x != d);
                memcpy(home, carry, bytes);
            }
            next[d]++;
        }
    }
}

static void flag_level(uint64_t *t, size_t n, unsigned arity, unsigned pos,
                       size_t count[256], size_t end[256])
{
    WITH_CONSTANT_WIDTH(arity, w, flag_level_body(t, n, w, pos, count, end))
}

/* In-place MSD radix sort ("American flag sort") on the byte positions
 * pass[0..npass) (most significant first): one counting pass, then every
 * tuple is moved straight into its digit's range by following cycles, then
 * each range is sorted on the next position -- by lsd_sort once it fits the
 * scratch buffer (of scratch_tuples tuples; none when 0).  No second buffer
 * the size of the input: an iteration's candidates are the engine's largest
 * transient, and a copy of them was half of its peak memory.  Recursion
 * depth is at most npass. */
static void flag_sort(uint64_t *t, size_t n, unsigned arity, unsigned k,
                      const unsigned *pass, unsigned npass, uint64_t *scratch,
                      size_t scratch_tuples)
{
    if (npass == 0 || n < 2)
        return;
    if (n <= SMALL_SORT) {
        insertion_sort(t, n, arity, k);
        return;
    }
    if (n <= scratch_tuples) {
        lsd_sort(t, n, arity, pass, npass, scratch);
        return;
    }
    size_t count[256], end[256];
    flag_level(t, n, arity, pass[0], count, end);
    for (unsigned d = 0; d < 256; d++)
        if (count[d] > 1)
            flag_sort(t + (end[d] - count[d]) * arity, count[d], arity, k,
                      pass + 1, npass - 1, scratch, scratch_tuples);
}

void tuples_sort_prefix(uint64_t *t, size_t n, unsigned arity, unsigned k)
{
    if (k == 0)
        return;
    if (n <= SMALL_SORT) {
        insertion_sort(t, n, arity, k);
        return;
    }
    /* Already in order (a grouped join's outbox: join_grouped.c)?  On
     * tuples in no order the scan stops at once. */
    size_t in_order = 1;
    while (in_order < n && tuples_compare(t + (in_order - 1) * arity,
                                          t + in_order * arity, k) <= 0)
        in_order++;
    if (in_order == n)
        return;
    /* The bits in which some tuple differs from the first, per column. */
    uint64_t varies[RAVEL_MAX_ARITY] = {0};
    for (size_t i = 1; i < n; i++) {
        const uint64_t *s = t + i * arity;
        for (unsigned c = 0; c < k; c++)
            varies[c] |= s[c] ^ t[c];
    }
    unsigned pass[8 * RAVEL_MAX_ARITY], npass = 0;
    for (unsigned c = 0; c < k; c++)
        for (unsigned b = 8; b-- > 0;)
            if ((varies[c] >> (8 * b)) & 0xff)
                pass[npass++] = c * 8 + b;
    if (npass <= RADIX_MAX_PASSES) {
        /* Without the scratch buffer the sort is slower, not wrong. */
        size_t scratch_tuples = SCRATCH_WORDS / arity;
        if (scratch_tuples > n)
            scratch_tuples = n;
        uint64_t *scratch = malloc(scratch_tuples * arity * sizeof *scratch);
        flag_sort(t, n, arity, k, pass, npass, scratch,
                  scratch ? scratch_tuples : 0);
        free(scratch);
    } else {
        quick_sort(t, n, arity, k);
    }
}
