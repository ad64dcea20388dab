/* Sorting and deduplicating flat arrays of fixed-width tuples.
 *
 * Tuples are `arity` uint64_t words, ordered lexicographically.  Bulk
 * deduplication by sorting is the engine's main local cost, so the sort is
 * an LSD radix sort on bytes that skips every byte position in which all
 * tuples agree: graph identifiers rarely use more than 2 or 3 of the 8 bytes
 * of a column, so a 2-column tuple is sorted in 4 to 6 passes.  When too many
 * byte positions vary (wide tuples of large values) an in-place quicksort is
 * cheaper and needs no second buffer. */
#include "relalg_internal.h"

#include <stdlib.h>
#include <string.h>

/* Radix passes beyond which the quicksort wins (each pass moves every
 * tuple; quicksort costs about log2(n) comparisons per tuple). */
#define RADIX_MAX_PASSES 12
/* Below this many tuples, insertion sort. */
#define SMALL_SORT 24

static void swap_tuples(uint64_t *a, uint64_t *b, unsigned arity)
{
    for (unsigned i = 0; i < arity; i++) {
        uint64_t x = a[i];
        a[i] = b[i];
        b[i] = x;
    }
}

static void insertion_sort(uint64_t *t, size_t n, unsigned arity)
{
    uint64_t tmp[RAVEL_MAX_ARITY];
    for (size_t i = 1; i < n; i++) {
        if (tuples_compare(t + (i - 1) * arity, t + i * arity, arity) <= 0)
            continue;
        memcpy(tmp, t + i * arity, arity * sizeof *tmp);
        size_t j = i;
        while (j > 0 && tuples_compare(t + (j - 1) * arity, tmp, arity) > 0) {
            memcpy(t + j * arity, t + (j - 1) * arity, arity * sizeof *tmp);
            j--;
        }
        memcpy(t + j * arity, tmp, arity * sizeof *tmp);
    }
}

/* Quicksort with median-of-three pivot; recursion on the smaller part keeps
 * the stack logarithmic. */
static void quick_sort(uint64_t *t, size_t n, unsigned arity)
{
    uint64_t pivot[RAVEL_MAX_ARITY];
    while (n > SMALL_SORT) {
        uint64_t *a = t, *m = t + (n / 2) * arity, *z = t + (n - 1) * arity;
        if (tuples_compare(m, a, arity) < 0)
            swap_tuples(m, a, arity);
        if (tuples_compare(z, m, arity) < 0) {
            swap_tuples(z, m, arity);
            if (tuples_compare(m, a, arity) < 0)
                swap_tuples(m, a, arity);
        }
        memcpy(pivot, m, arity * sizeof *pivot);
        size_t i = 0, j = n - 1;
        for (;;) {
            while (tuples_compare(t + i * arity, pivot, arity) < 0)
                i++;
            while (tuples_compare(t + j * arity, pivot, arity) > 0)
                j--;
            if (i >= j)
                break;
            swap_tuples(t + i * arity, t + j * arity, arity);
            i++;
            j--;
        }
        size_t left = j + 1, right = n - left;
        if (left < right) {
            quick_sort(t, left, arity);
            t += left * arity;
            n = right;
        } else {
            quick_sort(t + left * arity, right, arity);
            n = left;
        }
    }
    insertion_sort(t, n, arity);
}

/* LSD radix sort on the byte positions listed in pass[] (least significant
 * first), ping-ponging between t and tmp.  Returns 0, or -1 without memory. */
static int radix_sort(uint64_t *t, size_t n, unsigned arity,
                      const unsigned *pass, unsigned npass, size_t (*hist)[256])
{
    uint64_t *tmp = malloc(n * arity * sizeof *tmp);
    if (!tmp)
        return -1;
    uint64_t *src = t, *dst = tmp;
    for (unsigned p = 0; p < npass; p++) {
        unsigned col = pass[p] / 8, shift = (pass[p] % 8) * 8;
        size_t offset[256], sum = 0;
        for (unsigned d = 0; d < 256; d++) {
            offset[d] = sum;
            sum += hist[pass[p]][d];
        }
        if (arity == 2) {
            for (size_t i = 0; i < n; i++) {
                uint64_t a = src[2 * i], b = src[2 * i + 1];
                unsigned d = (unsigned)(((col ? b : a) >> shift) & 0xff);
                size_t o = offset[d]++;
                dst[2 * o] = a;
                dst[2 * o + 1] = b;
            }
        } else {
            for (size_t i = 0; i < n; i++) {
                const uint64_t *s = src + i * arity;
                unsigned d = (unsigned)((s[col] >> shift) & 0xff);
                memcpy(dst + offset[d]++ * arity, s, arity * sizeof *s);
            }
        }
        uint64_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != t)
        memcpy(t, src, n * arity * sizeof *t);
    free(tmp);
    return 0;
}

/* Sorts; returns 0, or -1 when out of memory (t unchanged or permuted). */
static int tuples_sort(uint64_t *t, size_t n, unsigned arity)
{
    if (n <= SMALL_SORT) {
        insertion_sort(t, n, arity);
        return 0;
    }
    size_t (*hist)[256] = calloc((size_t)arity * 8, sizeof *hist);
    if (!hist)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const uint64_t *s = t + i * arity;
        for (unsigned c = 0; c < arity; c++)
            for (unsigned b = 0; b < 8; b++)
                hist[c * 8 + b][(s[c] >> (8 * b)) & 0xff]++;
    }
    unsigned pass[8 * RAVEL_MAX_ARITY], npass = 0;
    for (unsigned c = arity; c-- > 0;) {
        for (unsigned b = 0; b < 8; b++) {
            unsigned pos = c * 8 + b;
            uint64_t digit = (t[c] >> (8 * b)) & 0xff;
            if (hist[pos][digit] != n) /* not all tuples share this byte */
                pass[npass++] = pos;
        }
    }
    int rc = 0;
    if (npass <= RADIX_MAX_PASSES)
        rc = radix_sort(t, n, arity, pass, npass, hist);
    if (npass > RADIX_MAX_PASSES || rc != 0)
        quick_sort(t, n, arity); /* also the fallback without memory */
    free(hist);
    return 0;
}

size_t tuples_sort_unique(uint64_t *t, size_t n, unsigned arity)
{
    if (n == 0)
        return 0;
    if (tuples_sort(t, n, arity) != 0)
        return (size_t)-1;
    size_t w = 1;
    for (size_t i = 1; i < n; i++) {
        const uint64_t *s = t + i * arity;
        if (tuples_compare(t + (w - 1) * arity, s, arity) != 0) {
            if (w != i)
                memcpy(t + w * arity, s, arity * sizeof *s);
            w++;
        }
    }
    return w;
}
