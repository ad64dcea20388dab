/* Packed tuples: a sorted duplicate-free set in a few bytes per tuple.
 *
 * Tuples come in blocks of PACKED_BLOCK.  A block's first tuple is kept
 * whole in heads[], so a search can jump to the right block without decoding
 * the ones before it.  Every other tuple is written against the one before
 * it: the index c of the first column in which they differ, the increase of
 * column c (positive, the set being sorted and duplicate-free) and the
 * columns after c as they are, all as LEB128 varints.  Sorted relations of
 * graph-sized identifiers differ from their predecessor in the last column
 * by a small amount, so a 2-column tuple takes 2 to 4 bytes instead of 16. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes one encoded tuple may take: c, the increase, and arity - 1 columns,
 * each at most 10 bytes. */
#define MAX_TUPLE_BYTES(arity) (10 * ((size_t)(arity) + 1))

static unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static const unsigned char *get_varint(const unsigned char *p, uint64_t *v)
{
    uint64_t x = 0;
    unsigned shift = 0;
    while (*p & 0x80) {
        x |= (uint64_t)(*p++ & 0x7f) << shift;
        shift += 7;
    }
    *v = x | (uint64_t)*p++ << shift;
    return p;
}

unsigned char *tuple_encode(unsigned char *p, const uint64_t *prev,
                            const uint64_t *t, unsigned arity)
{
    unsigned c = 0;
    while (c < arity && t[c] == prev[c])
        c++;
    if (c == arity)
        c = 0; /* a repeat (or zeros first): an increase of 0 */
    p = put_varint(p, c);
    p = put_varint(p, t[c] - prev[c]);
    for (unsigned j = c + 1; j < arity; j++)
        p = put_varint(p, t[j]);
    return p;
}

/* get_varint, refusing to read past end or beyond 10 bytes. */
static const unsigned char *get_varint_bounded(const unsigned char *p,
                                               const unsigned char *end,
                                               uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; p < end && shift < 70; shift += 7) {
        unsigned char b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return p;
        }
    }
    return NULL;
}

const unsigned char *tuple_decode(const unsigned char *p,
                                  const unsigned char *end, uint64_t *cur,
                                  unsigned arity)
{
    uint64_t c, step;
    if (!(p = get_varint_bounded(p, end, &c)) || c >= arity ||
        !(p = get_varint_bounded(p, end, &step)))
        return NULL;
    cur[c] += step;
    for (unsigned j = (unsigned)c + 1; j < arity && p; j++)
        p = get_varint_bounded(p, end, &cur[j]);
    return p;
}

/* Grows one of a packed set's arrays, through the memory budget. */
static int grow_array(void **data, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;
    if (need <= old)
        return MPI_SUCCESS;
    size_t bytes = ravel_grown_bytes(old, need, elem);
    int err = budget_check(old * elem, bytes);
    if (err != MPI_SUCCESS)
        return err;
    if (ravel_grow(data, cap, need, elem) != 0) {
        char want[32];
        ravel_format_bytes(want, sizeof want, bytes);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %s of a "
                               "packed relation", want);
    }
    budget_note(old * elem, *cap * elem);
    return MPI_SUCCESS;
}

/* Bytes the arrays of p take, as the memory budget knows them. */
static size_t packed_bytes(const packed_tuples *p)
{
    return p->capbytes + p->capheads * sizeof *p->heads +
           p->capoffsets * sizeof *p->offsets;
}

void packed_free(packed_tuples *p)
{
    budget_note(packed_bytes(p), 0);
    free(p->bytes);
    free(p->heads);
    free(p->offsets);
    memset(p, 0, sizeof *p);
}

void packed_writer_init(packed_writer *w, packed_tuples *p, unsigned arity)
{
    memset(p, 0, sizeof *p);
    w->p = p;
    w->arity = arity;
}

int packed_append(packed_writer *w, const uint64_t *t)
{
    packed_tuples *p = w->p;
    unsigned arity = w->arity;
    size_t bytes = arity * sizeof *t;
    unsigned c = 0;
    while (p->n > 0 && c < arity && t[c] == w->prev[c])
        c++;
    if (p->n > 0 && c == arity)
        return MPI_SUCCESS; /* a repeat: the set has it already */
    if (p->n % PACKED_BLOCK == 0) {
        size_t b = p->nblocks;
        int err = grow_array((void **)&p->heads, &p->capheads,
                             (b + 1) * arity, sizeof *p->heads);
        if (err == MPI_SUCCESS)
            err = grow_array((void **)&p->offsets, &p->capoffsets, b + 1,
                             sizeof *p->offsets);
        if (err != MPI_SUCCESS)
            return err;
        memcpy(p->heads + b * arity, t, bytes);
        p->offsets[b] = p->nbytes;
        p->nblocks++;
    } else {
        /* Checked here, not in grow_array: this runs for every tuple a
         * merge writes, and a call per tuple showed at 4% of a profile. */
        size_t need = p->nbytes + MAX_TUPLE_BYTES(arity);
        int err = need <= p->capbytes
                      ? MPI_SUCCESS
                      : grow_array((void **)&p->bytes, &p->capbytes, need, 1);
        if (err != MPI_SUCCESS)
            return err;
        unsigned char *q = p->bytes + p->nbytes;
        q = put_varint(q, c);
        q = put_varint(q, t[c] - w->prev[c]);
        for (unsigned j = c + 1; j < arity; j++)
            q = put_varint(q, t[j]);
        p->nbytes = (size_t)(q - p->bytes);
    }
    memcpy(w->prev, t, bytes);
    p->n++;
    return MPI_SUCCESS;
}

/* Releases the spare capacity of a finished packed set. */
static void packed_shrink(packed_tuples *p, unsigned arity)
{
    size_t before = packed_bytes(p);
    void *d;
    if (p->capbytes > p->nbytes && (d = realloc(p->bytes, p->nbytes + 1))) {
        p->bytes = d;
        p->capbytes = p->nbytes;
    }
    size_t heads = p->nblocks * arity;
    if (p->capheads > heads &&
        (d = realloc(p->heads, (heads + 1) * sizeof *p->heads))) {
        p->heads = d;
        p->capheads = heads;
    }
    budget_note(before, packed_bytes(p));
}

void packed_cursor_seek(packed_cursor *c, const packed_tuples *p,
                        unsigned arity, size_t block)
{
    c->p = p;
    c->arity = arity;
    c->index = block * PACKED_BLOCK;
    c->at_end = c->index >= p->n;
    if (c->at_end)
        return;
    memcpy(c->cur, p->heads + block * arity, arity * sizeof *c->cur);
    /* A relation whose blocks hold one tuple each has no delta bytes, and
     * NULL + 0 is undefined. */
    c->pos = p->bytes ? p->bytes + p->offsets[block] : NULL;
}

int packed_cursor_next(packed_cursor *c)
{
    const packed_tuples *p = c->p;
    if (c->at_end || ++c->index >= p->n) {
        c->at_end = 1;
        return 0;
    }
    if (c->index % PACKED_BLOCK == 0) {
        packed_cursor_seek(c, p, c->arity, c->index / PACKED_BLOCK);
        return 1;
    }
    uint64_t col, step;
    c->pos = get_varint(c->pos, &col);
    c->pos = get_varint(c->pos, &step);
    c->cur[col] += step;
    for (unsigned j = (unsigned)col + 1; j < c->arity; j++)
        c->pos = get_varint(c->pos, &c->cur[j]);
    return 1;
}

/* The last block in [lo, hi) whose head is <= t, given that heads[lo] is
 * (or lo is 0) and heads[hi] is not (or hi is the end). */
static size_t bisect_heads(const packed_tuples *p, unsigned arity,
                           const uint64_t *t, size_t lo, size_t hi)
{
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tuples_compare(p->heads + mid * arity, t, arity) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

size_t packed_block_at(const packed_tuples *p, unsigned arity,
                       const uint64_t *t)
{
    return bisect_heads(p, arity, t, 0, p->nblocks);
}

/* Through the heads (galloping) when t lies beyond the next block, then
 * tuple by tuple. */
void packed_cursor_advance_to(packed_cursor *c, const uint64_t *t)
{
    const packed_tuples *p = c->p;
    unsigned arity = c->arity;
    size_t b = c->index / PACKED_BLOCK;
    if (b + 1 < p->nblocks &&
        tuples_compare(p->heads + (b + 1) * arity, t, arity) <= 0) {
        /* heads[lo] <= t; gallop to a hi with heads[hi] > t (or the end),
         * then bisect for the last head <= t. */
        size_t lo = b + 1, hi = p->nblocks, step = 1;
        while (lo + step < p->nblocks) {
            if (tuples_compare(p->heads + (lo + step) * arity, t, arity) > 0) {
                hi = lo + step;
                break;
            }
            lo += step;
            step *= 2;
        }
        packed_cursor_seek(c, p, arity, bisect_heads(p, arity, t, lo, hi));
    }
    while (!c->at_end && tuples_compare(c->cur, t, arity) < 0)
        packed_cursor_next(c);
}

int packed_merge(packed_tuples *out, const packed_tuples *base,
                 const uint64_t *add, size_t m, unsigned arity)
{
    packed_writer w;
    packed_writer_init(&w, out, arity);
    packed_cursor c;
    packed_cursor_seek(&c, base, arity, 0);
    size_t j = 0;
    int err = MPI_SUCCESS;
    while (err == MPI_SUCCESS && (!c.at_end || j < m)) {
        if (j == m ||
            (!c.at_end && tuples_compare(c.cur, add + j * arity, arity) < 0)) {
            err = packed_append(&w, c.cur);
            packed_cursor_next(&c);
        } else {
            err = packed_append(&w, add + j++ * arity);
        }
    }
    if (err != MPI_SUCCESS) {
        packed_free(out);
        return err;
    }
    packed_shrink(out, arity);
    return MPI_SUCCESS;
}

int packed_unpack(const packed_tuples *p, unsigned arity, tuple_buf *out,
                  size_t extra)
{
    memset(out, 0, sizeof *out);
    int err = tuple_buf_reserve(out, arity, p->n + extra);
    if (err != MPI_SUCCESS)
        return err;
    packed_cursor c;
    packed_cursor_seek(&c, p, arity, 0);
    for (; !c.at_end; packed_cursor_next(&c))
        memcpy(out->data + out->n++ * arity, c.cur, arity * sizeof *c.cur);
    return MPI_SUCCESS;
}
