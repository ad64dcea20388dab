/* Growable tuple buffers and the set operations on sorted tuple arrays:
 * galloping search, and merging a sorted batch into a sorted
 * relation in place (from the back, so full never needs a second copy). */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

static int grow_to(tuple_buf *b, unsigned arity, size_t cap)
{
    size_t bytes, tuple = (size_t)arity * sizeof(uint64_t);
    if (ravel_mul_size(cap, tuple, &bytes) != 0)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "%zu tuples of arity %u overflow size_t",
                               cap, arity);
    if (tuple > 0) {
        bytes = ravel_memory_huge_block_bytes(bytes);
        cap = bytes / tuple;
    }
    size_t old = b->bytes;
    int err = budget_check(old, bytes);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t *d = realloc(b->data, bytes ? bytes : 1);
    if (!d) {
        char want[32];
        ravel_format_bytes(want, sizeof want, bytes);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %s of "
                               "tuples (%zu of arity %u)", want, cap, arity);
    }
    budget_note(old, bytes);
    ravel_memory_prefer_huge_pages(d, bytes);
    b->data = d;
    b->cap = cap;
    b->bytes = bytes;
    return MPI_SUCCESS;
}

int tuple_buf_reserve(tuple_buf *b, unsigned arity, size_t more)
{
    size_t need;
    if (ravel_add_size(b->n, more, &need) != 0)
        return ravel_error_set(MPI_ERR_NO_MEM, "tuple count overflow");
    if (need <= b->cap)
        return MPI_SUCCESS;
    return grow_to(b, arity, ravel_grown_capacity(b->cap, need));
}

int tuple_buf_append(tuple_buf *b, unsigned arity, const uint64_t *t,
                     size_t n)
{
    /* A rank may insert nothing (a graph with fewer edges than ranks): then
     * b->data and t may both be NULL, and memcpy(NULL, NULL, 0) is
     * undefined behaviour. */
    if (n == 0)
        return MPI_SUCCESS;
    int err = tuple_buf_reserve(b, arity, n);
    if (err != MPI_SUCCESS)
        return err;
    memcpy(b->data + b->n * arity, t, n * arity * sizeof *t);
    b->n += n;
    return MPI_SUCCESS;
}

void tuple_buf_free(tuple_buf *b)
{
    budget_note(b->bytes, 0);
    free(b->data);
    b->data = NULL;
    b->n = b->cap = b->bytes = 0;
}

void tuple_buf_shrink(tuple_buf *b, unsigned arity)
{
    if (b->n == 0) {
        tuple_buf_free(b);
        return;
    }
    if (b->cap > b->n)
        (void)grow_to(b, arity, b->n); /* on failure the old block stays */
}

/* Whether t comes before key on the first `words` columns.  `pairs`:
 * both have two columns, compared by both with two comparisons and no
 * loop. */
static inline int comes_before(const uint64_t *t, const uint64_t *key,
                               unsigned words, int pairs)
{
    if (pairs)
        return t[0] < key[0] || (t[0] == key[0] && t[1] < key[1]);
    return tuples_compare(t, key, words) < 0;
}

/* Gallop: probe lo, lo+1, lo+3, lo+7, ... then binary search.  Inlined
 * twice below, `pairs` a constant in each. */
static inline size_t gallop_lower_bound(const uint64_t *t, size_t lo,
                                        size_t n, unsigned arity,
                                        const uint64_t *key, unsigned words,
                                        int pairs)
{
    size_t step = 1, hi = lo;
    while (hi < n && comes_before(t + hi * arity, key, words, pairs)) {
        lo = hi + 1;
        hi = lo + step;
        step *= 2;
    }
    if (hi > n)
        hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (comes_before(t + mid * arity, key, words, pairs))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t tuples_lower_bound(const uint64_t *t, size_t lo, size_t n,
                          unsigned arity, const uint64_t *key, unsigned words)
{
    /* Tuples of two columns searched by both (TC's path: every
     * candidate's search in full's flat runs) skip tuples_compare's loop
     * over a width known only at run time: cal.cedge's TC at 1 rank took
     * 690 million instructions instead of 722 (callgrind), and
     * luxembourg_osm's and cti's at 2 ranks 0.96 of the time
     * (relalg/README.md, "Two-column searches"). */
    if (arity == 2 && words == 2)
        return gallop_lower_bound(t, lo, n, 2, key, 2, 1);
    return gallop_lower_bound(t, lo, n, arity, key, words, 0);
}

int tuple_runs_hold(const tuple_run *runs, unsigned nruns, size_t *j,
                    unsigned arity, const uint64_t *key, unsigned words)
{
    for (unsigned r = 0; r < nruns; r++) {
        const tuple_run *run = &runs[r];
        j[r] = tuples_lower_bound(run->t, j[r], run->n, arity, key, words);
        if (j[r] < run->n &&
            tuples_compare(run->t + j[r] * arity, key, words) == 0)
            return 1;
    }
    return 0;
}

/* Merges sorted add[0..m) into sorted d[0..n), which has room for n + m,
 * from the back: asks whether a tuple comes after another as
 * comes_before with the two swapped.  Inlined twice below, `pairs` a
 * constant in each. */
static inline void merge_back(uint64_t *d, size_t n, const uint64_t *add,
                              size_t m, unsigned arity, int pairs)
{
    size_t i = n, j = m, k = n + m;
    size_t bytes = arity * sizeof *d;
    while (j > 0) {
        /* Whole runs of full larger than the next added tuple move at once. */
        const uint64_t *x = add + (j - 1) * arity;
        /* Gallop down from i to bracket the last full tuple <= x. */
        size_t lo = i, hi = i, step = 1;
        while (lo > 0 && comes_before(x, d + (lo - 1) * arity, arity, pairs)) {
            hi = lo - 1;
            lo = lo > step ? lo - step : 0;
            step *= 2;
        }
        /* Now full[lo..hi) holds the boundary: full[hi..i) are > x, and
         * full[lo - 1] (when lo > 0) is <= x. */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (comes_before(x, d + mid * arity, arity, pairs))
                hi = mid;
            else
                lo = mid + 1;
        }
        size_t run = i - lo;
        if (run > 0) {
            memmove(d + (k - run) * arity, d + lo * arity, run * bytes);
            k -= run;
            i = lo;
        }
        /* Then the added tuples above full's new top. */
        size_t first = j - 1;
        if (i > 0) {
            const uint64_t *top = d + (i - 1) * arity;
            while (first > 0 &&
                   comes_before(top, add + (first - 1) * arity, arity, pairs))
                first--;
        } else {
            first = 0;
        }
        size_t cnt = j - first;
        memcpy(d + (k - cnt) * arity, add + first * arity, cnt * bytes);
        k -= cnt;
        j = first;
    }
}

int tuples_merge_into(tuple_buf *full, unsigned arity, const uint64_t *add,
                      size_t m)
{
    if (m == 0)
        return MPI_SUCCESS;
    size_t n = full->n, total;
    if (ravel_add_size(n, m, &total) != 0)
        return ravel_error_set(MPI_ERR_NO_MEM, "tuple count overflow");
    /* Grow to exactly what is needed: large blocks are mremap'ed, and a
     * relation's memory is its tuples and nothing more. */
    if (total > full->cap) {
        int err = grow_to(full, arity, total);
        if (err != MPI_SUCCESS)
            return err;
    }
    /* Two columns (TC's path, the most merged relation) compare with two
     * comparisons and no loop, as in tuples_lower_bound: cal.cedge's TC
     * at 1 rank, 673 million instructions instead of 689 (callgrind). */
    if (arity == 2)
        merge_back(full->data, n, add, m, 2, 1);
    else
        merge_back(full->data, n, add, m, arity, 0);
    full->n = total;
    return MPI_SUCCESS;
}
