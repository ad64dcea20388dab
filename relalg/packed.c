/* Packed tuples: a sorted duplicate-free set in a few bytes per tuple.
 *
 * Tuples come in blocks of PACKED_BLOCK.  A block's first tuple is kept
 * whole in heads[], so a search can jump to the right block without decoding
 * the ones before it.  Every other tuple is written against the one before
 * it: the index c of the first column in which they differ, the increase of
 * column c (positive, the set being sorted and duplicate-free) and the
 * columns after c (their high halves against the tuple before's:
 * tuple_against_high), all as LEB128 varints.  Sorted relations of
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

/* t after prev at p, given c, the first column where they differ (or
 * any, when they do not): the bytes of tuple_encode and packed_append. */
static inline unsigned char *encode_from(unsigned char *p,
                                         const uint64_t *prev,
                                         const uint64_t *t, unsigned arity,
                                         unsigned c)
{
    p = put_varint(p, c);
    p = put_varint(p, t[c] - prev[c]);
    for (unsigned j = c + 1; j < arity; j++)
        p = put_varint(p, tuple_against_high(t[j], prev[j]));
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
    return encode_from(p, prev, t, arity, c);
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
    for (unsigned j = (unsigned)c + 1; j < arity && p; j++) {
        uint64_t v;
        if ((p = get_varint_bounded(p, end, &v)))
            cur[j] = tuple_against_high(v, cur[j]);
    }
    return p;
}

static int out_of_memory(size_t bytes)
{
    char want[32];
    ravel_format_bytes(want, sizeof want, bytes);
    return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %s of a "
                           "packed relation", want);
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
    if (ravel_grow(data, cap, need, elem) != 0)
        return out_of_memory(bytes);
    budget_note(old * elem, *cap * elem);
    return MPI_SUCCESS;
}

/* ---- chunks ---------------------------------------------------------------
 *
 * A full chunk is one huge page (ravel_memory_huge_alloc: faulted in as
 * one, where a 2 MiB malloc block faulted 512 times).  A set's first chunk
 * grows by realloc up to that size, so a small set stays small.  Full
 * chunks given back are kept, a few, for the next to be taken: a merge
 * gives back the chunks of the set it reads while it writes the new one,
 * which therefore lands in pages already faulted in.  Repacking TC of
 * fe_body at 1 rank took 4.5% of the run in the kernel zeroing fresh huge
 * pages for each new set, and held the old and the new set at once
 * (relalg/README.md, "Packed sets in chunks"). */
#define CHUNK_DEFAULT ((size_t)2 << 20)
#define CHUNK_SHIFT 32
#define CHUNK_WITHIN ((((uint64_t)1) << CHUNK_SHIFT) - 1)
/* Room for one block of the widest tuples: a block never spans chunks. */
#define CHUNK_MIN (PACKED_BLOCK * MAX_TUPLE_BYTES(RAVEL_MAX_ARITY))
enum { SPARE_MAX = 4 };

static size_t chunk_bytes = CHUNK_DEFAULT;
static unsigned char *spare[SPARE_MAX];
static size_t nspare;

size_t packed_chunk_bytes(void) { return chunk_bytes; }

void packed_set_chunk_bytes(size_t bytes)
{
    packed_release_spare_chunks();
    chunk_bytes = bytes == 0 ? CHUNK_DEFAULT
                  : bytes < CHUNK_MIN ? CHUNK_MIN : bytes;
}

void packed_release_spare_chunks(void)
{
    while (nspare > 0)
        free(spare[--nspare]);
}

/* Gives back a chunk of cap bytes: kept for reuse when full, else freed. */
static void chunk_give(unsigned char *chunk, size_t cap)
{
    if (!chunk)
        return;
    budget_note(cap, 0);
    if (cap == chunk_bytes && nspare < SPARE_MAX)
        spare[nspare++] = chunk;
    else
        free(chunk);
}

/* Appends a chunk to p's list: the first one sized to `need` (it grows)
 * unless `full`, later ones full. */
static int chunk_add(packed_tuples *p, size_t need, int full)
{
    if (p->nchunks == p->capchunks) {
        size_t cap = p->capchunks ? 2 * p->capchunks : 4;
        unsigned char **c = realloc(p->chunks, cap * sizeof *c);
        if (c)
            p->chunks = c;
        size_t *u = c ? realloc(p->used, cap * sizeof *u) : NULL;
        if (!u)
            return out_of_memory(cap * sizeof *c);
        p->used = u;
        p->capchunks = cap;
    }
    size_t cap = p->nchunks == 0 && !full ? ravel_grown_capacity(0, need)
                                          : chunk_bytes;
    cap = cap > chunk_bytes ? chunk_bytes : cap;
    int err = budget_check(0, cap);
    if (err != MPI_SUCCESS)
        return err;
    unsigned char *chunk = NULL;
    if (cap == chunk_bytes && nspare > 0) {
        chunk = spare[--nspare];
    } else {
        chunk = ravel_memory_huge_alloc(cap);
        if (!chunk)
            return out_of_memory(cap);
    }
    budget_note(0, cap);
    p->chunks[p->nchunks] = chunk;
    p->used[p->nchunks++] = 0;
    p->lastcap = cap;
    return MPI_SUCCESS;
}

/* Room for `need` more bytes of the block being written, in the last
 * chunk: grown while it is short of a full chunk, else a new chunk, to
 * which the block's bytes written so far move. */
static int chunk_room(packed_tuples *p, size_t need)
{
    if (p->nchunks == 0)
        return chunk_add(p, need, 0);
    size_t last = p->nchunks - 1, used = p->used[last];
    if (used + need <= p->lastcap)
        return MPI_SUCCESS;
    if (p->lastcap < chunk_bytes) {
        size_t cap = ravel_grown_capacity(p->lastcap, used + need);
        cap = cap > chunk_bytes ? chunk_bytes : cap;
        int err = budget_check(p->lastcap, cap);
        if (err != MPI_SUCCESS)
            return err;
        unsigned char *c = realloc(p->chunks[last], cap);
        if (!c)
            return out_of_memory(cap);
        ravel_memory_prefer_huge_pages(c, cap);
        budget_note(p->lastcap, cap);
        p->chunks[last] = c;
        p->lastcap = cap;
        if (used + need <= cap)
            return MPI_SUCCESS;
    }
    uint64_t block = p->offsets[p->nblocks - 1];
    size_t from = (size_t)(block & CHUNK_WITHIN);
    int err = chunk_add(p, need, 1);
    if (err != MPI_SUCCESS)
        return err;
    /* the block being written moves whole to the new chunk */
    memcpy(p->chunks[last + 1], p->chunks[last] + from, used - from);
    p->used[last] = from;
    p->used[last + 1] = used - from;
    p->offsets[p->nblocks - 1] = (uint64_t)(last + 1) << CHUNK_SHIFT;
    return MPI_SUCCESS;
}

/* Bytes of p's arrays beside its chunks, as the memory budget knows them
 * (each chunk is noted on its own). */
static size_t index_bytes(const packed_tuples *p)
{
    return p->capheads * sizeof *p->heads +
           p->capoffsets * sizeof *p->offsets;
}

/* Gives back p's chunks before `upto` (a merge has read them). */
static void give_chunks_before(packed_tuples *p, size_t upto)
{
    for (size_t k = 0; k < upto && k < p->nchunks; k++) {
        chunk_give(p->chunks[k],
                   k + 1 == p->nchunks ? p->lastcap : chunk_bytes);
        p->chunks[k] = NULL;
    }
}

void packed_free(packed_tuples *p)
{
    give_chunks_before(p, p->nchunks);
    budget_note(index_bytes(p), 0);
    free(p->chunks);
    free(p->used);
    free(p->heads);
    free(p->offsets);
    memset(p, 0, sizeof *p);
}

void packed_copy_bytes(const packed_tuples *p, unsigned char *out)
{
    for (size_t k = 0; k < p->nchunks; k++) {
        memcpy(out, p->chunks[k], p->used[k]);
        out += p->used[k];
    }
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
        p->offsets[b] = p->nchunks == 0
                            ? 0
                            : (uint64_t)(p->nchunks - 1) << CHUNK_SHIFT |
                                  p->used[p->nchunks - 1];
        p->nblocks++;
    } else {
        /* Checked here, not in chunk_room: this runs for every tuple a
         * merge writes, and a call per tuple showed at 4% of a profile. */
        size_t need = MAX_TUPLE_BYTES(arity);
        int err = p->nchunks > 0 &&
                          p->used[p->nchunks - 1] + need <= p->lastcap
                      ? MPI_SUCCESS
                      : chunk_room(p, need);
        if (err != MPI_SUCCESS)
            return err;
        size_t last = p->nchunks - 1;
        unsigned char *start = p->chunks[last] + p->used[last];
        unsigned char *q = encode_from(start, w->prev, t, arity, c);
        p->used[last] += (size_t)(q - start);
        p->nbytes += (size_t)(q - start);
    }
    memcpy(w->prev, t, bytes);
    p->n++;
    return MPI_SUCCESS;
}

int packed_append_tuples(void *writer, const uint64_t *t, size_t n)
{
    packed_writer *w = writer;
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < n && err == MPI_SUCCESS; i++)
        err = packed_append(w, t + i * w->arity);
    return err;
}

/* Releases the spare room of a finished packed set: its last chunk's and
 * its heads'. */
static void packed_shrink(packed_tuples *p, unsigned arity)
{
    size_t before = index_bytes(p);
    void *d;
    size_t last = p->nchunks - 1;
    if (p->nchunks > 0 && p->lastcap > p->used[last] &&
        (d = realloc(p->chunks[last], p->used[last] + 1))) {
        budget_note(p->lastcap, p->used[last] + 1);
        p->chunks[last] = d;
        p->lastcap = p->used[last] + 1;
    }
    size_t heads = p->nblocks * arity;
    if (p->capheads > heads + 1 &&
        (d = realloc(p->heads, (heads + 1) * sizeof *p->heads))) {
        p->heads = d;
        p->capheads = heads + 1;
    }
    if (p->capoffsets > p->nblocks + 1 &&
        (d = realloc(p->offsets, (p->nblocks + 1) * sizeof *p->offsets))) {
        p->offsets = d;
        p->capoffsets = p->nblocks + 1;
    }
    budget_note(before, index_bytes(p));
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
    /* A set of one tuple has no delta bytes, and NULL + 0 is undefined. */
    uint64_t at = p->offsets[block];
    c->pos = p->nchunks > 0 ? p->chunks[at >> CHUNK_SHIFT] + (at & CHUNK_WITHIN)
                            : NULL;
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
    for (unsigned j = (unsigned)col + 1; j < c->arity; j++) {
        uint64_t v;
        c->pos = get_varint(c->pos, &v);
        c->cur[j] = tuple_against_high(v, c->cur[j]);
    }
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

int packed_merge(packed_tuples *out, packed_tuples *base,
                 const uint64_t *add, size_t m, unsigned arity)
{
    tuple_source a = {{add, m}, NULL};
    return packed_merge_sources(out, base, &a, 1, arity);
}

/* A source being read: its next tuple, NULL once it is read whole. */
typedef struct {
    const tuple_source *s;
    size_t i;            /* flat: the next tuple's index */
    packed_cursor c;     /* packed */
} source_reader;

static const uint64_t *source_peek(const source_reader *r, unsigned arity)
{
    if (r->s->packed)
        return r->c.at_end ? NULL : r->c.cur;
    return r->i < r->s->flat.n ? r->s->flat.t + r->i * arity : NULL;
}

static void source_next(source_reader *r)
{
    if (r->s->packed)
        packed_cursor_next(&r->c);
    else
        r->i++;
}

int packed_merge_sources(packed_tuples *out, packed_tuples *base,
                         const tuple_source *src, unsigned nsrc,
                         unsigned arity)
{
    source_reader rd[PACKED_MERGE_SOURCES_MAX];
    size_t m = 0;
    for (unsigned k = 0; k < nsrc; k++) {
        rd[k].s = &src[k];
        rd[k].i = 0;
        if (src[k].packed)
            packed_cursor_seek(&rd[k].c, src[k].packed, arity, 0);
        m += tuple_source_count(&src[k]);
    }
    packed_writer w;
    packed_writer_init(&w, out, arity);
    packed_cursor c;
    packed_cursor_seek(&c, base, arity, 0);
    /* Sized once for the most the result can hold, not grown from nothing
     * as a small set's are: each growth is a copy into fresh pages. */
    size_t blocks = (base->n + m + PACKED_BLOCK - 1) / PACKED_BLOCK;
    int err = grow_array((void **)&out->heads, &out->capheads,
                         blocks * arity, sizeof *out->heads);
    if (err == MPI_SUCCESS)
        err = grow_array((void **)&out->offsets, &out->capoffsets, blocks,
                         sizeof *out->offsets);
    /* every tuple but a head takes 2 bytes or more */
    if (err == MPI_SUCCESS && base->nbytes + 2 * m >= chunk_bytes)
        err = chunk_add(out, 0, 1);
    while (err == MPI_SUCCESS) {
        /* the least of the sources' next tuples, if any */
        const uint64_t *s = NULL;
        unsigned from = 0;
        for (unsigned k = 0; k < nsrc; k++) {
            const uint64_t *t = source_peek(&rd[k], arity);
            if (t && (!s || tuples_compare(t, s, arity) < 0)) {
                s = t;
                from = k;
            }
        }
        if (!s && c.at_end)
            break;
        if (!s || (!c.at_end && tuples_compare(c.cur, s, arity) < 0)) {
            err = packed_append(&w, c.cur);
            packed_cursor_next(&c);
            /* On a block's head: the chunks before the block's are read. */
            if (c.index % PACKED_BLOCK == 0 && !c.at_end)
                give_chunks_before(base, (size_t)(base->offsets[c.index /
                                                  PACKED_BLOCK] >>
                                                  CHUNK_SHIFT));
        } else {
            err = packed_append(&w, s);
            source_next(&rd[from]);
        }
    }
    packed_free(base);
    if (err != MPI_SUCCESS) {
        packed_free(out);
        return err;
    }
    packed_shrink(out, arity);
    return MPI_SUCCESS;
}

void packed_writer_finish(packed_writer *w)
{
    packed_shrink(w->p, w->arity);
}

/* p's last tuple (p not empty) into t: decoded from its block's head. */
static void packed_last(const packed_tuples *p, unsigned arity, uint64_t *t)
{
    packed_cursor c;
    packed_cursor_seek(&c, p, arity, p->nblocks - 1);
    while (c.index + 1 < p->n)
        packed_cursor_next(&c);
    memcpy(t, c.cur, arity * sizeof *t);
}

int packed_extend(packed_tuples *p, const uint64_t *t, size_t n,
                  unsigned arity, int *done)
{
    *done = 0;
    if (p->n == 0 || n == 0)
        return MPI_SUCCESS;
    packed_writer w = {.p = p, .arity = arity};
    packed_last(p, arity, w.prev);
    if (tuples_compare(w.prev, t, arity) >= 0)
        return MPI_SUCCESS;
    *done = 1;
    int err = packed_append_tuples(&w, t, n);
    packed_shrink(p, arity);
    return err;
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
