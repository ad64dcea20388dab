/* Reading one sorted run of tuples key group by key group, whether it lies
 * flat or packed: the rules' joins, anti-joins and copies read full's
 * packed part this way instead of unpacking it (storage.c says why).
 *
 * A flat run's group is a slice of the run; a packed run's is decoded into
 * the reader's buffer, which keeps the largest group read.  Seeking a
 * packed run jumps by the blocks' heads and decodes the rest of the way:
 * half a block on average, which is why storage.c packs a full that rules
 * read in small blocks. */
#include "relalg_internal.h"

#include <string.h>

size_t tuples_group_end(const uint64_t *t, size_t lo, size_t n,
                        unsigned arity, unsigned k)
{
    const uint64_t *key = t + lo * arity;
    size_t step = 1, hi = lo + 1;
    size_t last_in = lo;
    while (hi < n && tuples_compare(t + hi * arity, key, k) == 0) {
        last_in = hi;
        hi += step;
        step *= 2;
    }
    if (hi > n)
        hi = n;
    size_t a = last_in + 1, b = hi; /* the end lies in [a, b] */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (tuples_compare(t + mid * arity, key, k) == 0)
            a = mid + 1;
        else
            b = mid;
    }
    return a;
}

void tuple_reader_flat(tuple_reader *r, tuple_run run, unsigned arity)
{
    memset(r, 0, sizeof *r);
    r->t = run.t;
    r->n = run.n;
    r->arity = arity;
}

void tuple_reader_packed(tuple_reader *r, const packed_tuples *p,
                         unsigned arity)
{
    memset(r, 0, sizeof *r);
    r->arity = arity;
    packed_cursor_seek(&r->c, p, arity, 0);
}

void tuple_reader_free(tuple_reader *r)
{
    tuple_buf_free(&r->group);
}

void tuple_reader_seek(tuple_reader *r, const uint64_t *key, unsigned k)
{
    if (!r->c.p) {
        r->i = tuples_lower_bound(r->t, r->i, r->n, r->arity, key, k);
        return;
    }
    if (r->c.at_end || tuples_compare(r->c.cur, key, k) >= 0)
        return;
    /* The least tuple with key's first k columns: the columns after are
     * unsigned, so zeros (only those are cleared: this runs per seek). */
    uint64_t least[RAVEL_MAX_ARITY];
    memcpy(least, key, k * sizeof *key);
    memset(least + k, 0, (r->arity - k) * sizeof *least);
    packed_cursor_advance_to(&r->c, least);
}

int tuple_reader_group(tuple_reader *r, unsigned k, const uint64_t **t,
                       size_t *n)
{
    if (!r->c.p) {
        size_t end = tuples_group_end(r->t, r->i, r->n, r->arity, k);
        *t = r->t + r->i * r->arity;
        *n = end - r->i;
        r->i = end;
        return MPI_SUCCESS;
    }
    r->group.n = 0;
    do {
        int err = tuple_buf_push(&r->group, r->arity, r->c.cur);
        if (err != MPI_SUCCESS)
            return err;
    } while (packed_cursor_next(&r->c) &&
             tuples_compare(r->c.cur, r->group.data, k) == 0);
    *t = r->group.data;
    *n = r->group.n;
    return MPI_SUCCESS;
}
