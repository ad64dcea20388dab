/* The streams of an exchange: what one rank sends another, and how the
 * receiver reads it back.
 *
 * A stream is a sequence of segments of uint64_t words, each the tuples of
 * one outbox slot, in one of two forms:
 *     raw     [slot] [n] then n * arity words, the tuples as they are;
 *     packed  [slot | SEGMENT_PACKED] [n] [nbytes] then the heads of the
 *             ceil(n / PACKED_BLOCK) blocks (arity words each) and nbytes
 *             bytes in ceil(nbytes / 8) words: the outbox's packed_tuples
 *             as packed.c holds them (a block's first tuple whole, the
 *             others varint-encoded against the one before).
 * Candidates for another rank cannot be checked against full before they
 * travel, so they are the bulk of a dense closure's memory: TC of
 * wiki-Vote at 2 ranks held 236 MB of them per rank at its peak, 16 bytes
 * each (valgrind massif).  Sorted and without repeats they pack into a few
 * bytes each, so the outbox keeps them packed (exchange.c,
 * push_compacting) and they travel that way: a segment is sent packed
 * whenever that is the shorter form, and unpacked once, by the receiver.
 * A buffer whose candidates became bits of their box (exchange.c,
 * start_box) has them written out, sorted, when it is sealed for good. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <stdlib.h>
#include <string.h>

/* Marks a packed segment in its first word (slots are far fewer). */
#define SEGMENT_PACKED ((uint64_t)1 << 63)

static uint64_t raw_words(size_t n, unsigned arity)
{
    return 2 + (uint64_t)n * arity;
}

static uint64_t packed_words(const packed_tuples *p, unsigned arity)
{
    return 3 + (uint64_t)p->nblocks * arity + (p->nbytes + 7) / 8;
}

int exchange_seal_outbox(ravel_engine *e, size_t slot, int dest, int keep)
{
    tuple_buf *b = outbox_at(e, slot, dest);
    packed_tuples *p = outbox_packed_at(e, slot, dest);
    unsigned arity = e->rels[slot / 2].arity;
    tuple_box **x = outbox_box_at(e, slot, dest);
    /* The box's tuples join the buffer's and the packed part, drained
     * packed: flat, a box for the other rank of TC of wiki-Vote at 2 ranks
     * made its peak. */
    packed_tuples drained;
    memset(&drained, 0, sizeof drained);
    if (*x && !keep) {
        int err = tuple_box_drain_packed(*x, NULL, 0, NULL, &drained);
        outbox_box_free(x);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (b->n == 0 && drained.n == 0) {
        if (!keep) /* the room a fill left behind */
            tuple_buf_free(b);
        packed_free(&drained);
        return MPI_SUCCESS;
    }
    b->n = tuples_sort_unique(b->data, b->n, arity);
    /* A grouped join (join_grouped.c) fills the buffer in order: what it
     * holds then comes after the packed part, and is appended to it in
     * place instead of merged, which wrote the packed part again. */
    int appended = 0;
    int err = drained.n == 0 ? packed_extend(p, b->data, b->n, arity,
                                             &appended)
                             : MPI_SUCCESS;
    if (err == MPI_SUCCESS && !appended) {
        tuple_source two[2] = {{{b->data, b->n}, NULL},
                               {{NULL, 0}, &drained}};
        packed_tuples merged;
        err = packed_merge_sources(&merged, p, two, 2, arity);
        if (err == MPI_SUCCESS) {
            packed_free(p);
            *p = merged;
        }
    }
    packed_free(&drained);
    if (err != MPI_SUCCESS)
        return err;
    if (keep)
        b->n = 0;
    else
        tuple_buf_free(b);
    return MPI_SUCCESS;
}

/* The words of slot's segment to dest (0 when it has no tuples). */
static uint64_t segment_words(const ravel_engine *e, size_t slot, int dest)
{
    const tuple_buf *b = outbox_at(e, slot, dest);
    const packed_tuples *p = outbox_packed_at(e, slot, dest);
    unsigned arity = e->rels[slot / 2].arity;
    if (p->n == 0)
        return b->n ? raw_words(b->n, arity) : 0;
    /* exchange_seal_outbox left b empty */
    uint64_t packed = packed_words(p, arity), raw = raw_words(p->n, arity);
    return packed < raw ? packed : raw;
}

uint64_t exchange_stream_words(const ravel_engine *e, int dest)
{
    uint64_t w = 0;
    for (size_t s = 0; s < e->outbox_slots; s++)
        w += segment_words(e, s, dest);
    return w;
}

/* Writes slot's segment to dest at out and frees the outbox buffer;
 * returns the end of what it wrote. */
static uint64_t *write_segment(ravel_engine *e, size_t slot, int dest,
                               uint64_t *out)
{
    tuple_buf *b = outbox_at(e, slot, dest);
    packed_tuples *p = outbox_packed_at(e, slot, dest);
    unsigned arity = e->rels[slot / 2].arity;
    uint64_t words = segment_words(e, slot, dest);
    if (words == 0)
        return out;
    if (p->n == 0) {
        size_t n = b->n * (size_t)arity;
        *out++ = slot;
        *out++ = b->n;
        memcpy(out, b->data, n * sizeof *out);
        ravel_comm_charge_copy(n * sizeof *out);
        tuple_buf_free(b);
        return out + n;
    }
    if (words < raw_words(p->n, arity)) {
        size_t heads = p->nblocks * (size_t)arity;
        *out++ = slot | SEGMENT_PACKED;
        *out++ = p->n;
        *out++ = p->nbytes;
        memcpy(out, p->heads, heads * sizeof *out);
        out += heads;
        size_t tail = (p->nbytes + 7) / 8;
        if (tail) {
            out[tail - 1] = 0; /* the last word's unused bytes */
            packed_copy_bytes(p, (unsigned char *)out);
        }
        ravel_comm_charge_copy(heads * sizeof *out + p->nbytes);
        out += tail;
    } else {
        *out++ = slot;
        *out++ = p->n;
        packed_cursor c;
        for (packed_cursor_seek(&c, p, arity, 0); !c.at_end;
             packed_cursor_next(&c), out += arity)
            memcpy(out, c.cur, arity * sizeof *out);
        ravel_comm_charge_copy(p->n * (size_t)arity * sizeof *out);
    }
    packed_free(p);
    return out;
}

void exchange_write_stream(ravel_engine *e, int dest, uint64_t *out)
{
    for (size_t s = 0; s < e->outbox_slots; s++)
        out = write_segment(e, s, dest, out);
}

/* Reads the segment at in (before end) into *sg; -1 when it is malformed. */
static int read_segment(const ravel_engine *e, const uint64_t *in,
                        const uint64_t *end, stream_segment *sg)
{
    if (end - in < 2)
        return -1;
    sg->packed = (in[0] & SEGMENT_PACKED) != 0;
    sg->slot = in[0] & ~SEGMENT_PACKED;
    if (sg->slot >= e->outbox_slots)
        return -1;
    sg->n = in[1];
    unsigned arity = e->rels[sg->slot / 2].arity;
    uint64_t room = (uint64_t)(end - in);
    if (!sg->packed) {
        if ((room - 2) / arity < sg->n)
            return -1;
        sg->words = raw_words(sg->n, arity);
        sg->data = in + 2;
        return 0;
    }
    if (room < 3 || sg->n == 0)
        return -1;
    sg->nbytes = in[2];
    uint64_t blocks = (sg->n + PACKED_BLOCK - 1) / PACKED_BLOCK;
    if (sg->nbytes / 8 >= room || blocks > room / arity)
        return -1;
    sg->words = 3 + blocks * arity + (sg->nbytes + 7) / 8;
    if (sg->words > room)
        return -1;
    sg->data = in + 3;
    return 0;
}

int exchange_next_segment(const ravel_engine *e, int source,
                          const uint64_t **in, const uint64_t *end,
                          stream_segment *sg)
{
    if (read_segment(e, *in, end, sg) != 0)
        return ravel_error_set(MPI_ERR_INTERN, "malformed stream from rank "
                               "%d: a segment overruns it or names no "
                               "relation", source);
    *in += sg->words;
    return MPI_SUCCESS;
}

/* A packed segment is decoded this many tuples at a time, each chunk
 * stripped of what full holds before the next: candidates for this rank
 * that it already holds (most, in a dense closure) are never held flat,
 * where unpacking the whole segment first held them all at 16 bytes a
 * tuple beside the rank's own (wiki-Vote's peak, bench/results/peers). */
#define UNPACK_CHUNK 4096

/* Decodes packed segment sg into out, UNPACK_CHUNK tuples at a time,
 * each chunk stripped of what full holds.  Without put, the chunks stay
 * one after another at out (which has room for all of sg); with it, each
 * chunk's survivors go to put and the next chunk reuses out (room for
 * UNPACK_CHUNK).  *kept: the survivors, in all. */
static int decode_packed(const relation *r, const stream_segment *sg,
                         uint64_t *out,
                         int (*put)(void *arg, const uint64_t *t, size_t n),
                         void *arg, uint64_t *kept)
{
    unsigned arity = r->arity;
    size_t tuple = arity * sizeof *out;
    uint64_t blocks = (sg->n + PACKED_BLOCK - 1) / PACKED_BLOCK;
    const uint64_t *heads = sg->data;
    const unsigned char *p = (const unsigned char *)(heads + blocks * arity);
    const unsigned char *end = p + sg->nbytes;
    uint64_t cur[RAVEL_MAX_ARITY];
    uint64_t w = 0, chunk = 0; /* written; where the chunk being read starts */
    *kept = 0;
    for (uint64_t i = 0; i < sg->n; i++) {
        if (i % PACKED_BLOCK == 0)
            memcpy(cur, heads + i / PACKED_BLOCK * arity, tuple);
        else if (!(p = tuple_decode(p, end, cur, arity)))
            return ravel_error_set(MPI_ERR_INTERN, "malformed packed "
                                   "segment: its bytes end before tuple "
                                   "%llu of %llu", (unsigned long long)i,
                                   (unsigned long long)sg->n);
        memcpy(out + w++ * arity, cur, tuple);
        if (w - chunk == UNPACK_CHUNK || i + 1 == sg->n) {
            w = chunk + storage_drop_held(r, out + chunk * arity, w - chunk);
            if (put) {
                int err = put(arg, out, (size_t)w);
                if (err != MPI_SUCCESS)
                    return err;
                *kept += w;
                w = 0;
            }
            chunk = w;
        }
    }
    ravel_comm_charge_copy(sg->n * tuple);
    if (!put)
        *kept = w;
    return MPI_SUCCESS;
}

int exchange_unpack_segment(const ravel_engine *e, const stream_segment *sg,
                            uint64_t *out, uint64_t *kept)
{
    const relation *r = &e->rels[sg->slot / 2];
    size_t tuple = r->arity * sizeof *out;
    *kept = 0;
    if (!sg->packed) {
        memmove(out, sg->data, sg->n * tuple);
        ravel_comm_charge_copy(sg->n * tuple);
        *kept = sg->n;
        return MPI_SUCCESS;
    }
    return decode_packed(r, sg, out, NULL, NULL, kept);
}

int exchange_land_packed(const ravel_engine *e, const stream_segment *sg,
                         packed_tuples *out)
{
    const relation *r = &e->rels[sg->slot / 2];
    packed_writer w;
    packed_writer_init(&w, out, r->arity);
    uint64_t *chunk = malloc((size_t)UNPACK_CHUNK * r->arity * sizeof *chunk);
    if (!chunk)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d "
                               "tuples of a packed segment", UNPACK_CHUNK);
    uint64_t kept;
    int err = decode_packed(r, sg, chunk, packed_append_tuples, &w, &kept);
    free(chunk);
    if (err == MPI_SUCCESS)
        packed_writer_finish(&w);
    else
        packed_free(out);
    return err;
}

int exchange_land_stream(ravel_engine *e, int source, const uint64_t *in,
                         const uint64_t *end, size_t big, tuple_buf *got)
{
    unsigned arity = e->rels[big / 2].arity;
    while (in < end) {
        stream_segment sg;
        int err = exchange_next_segment(e, source, &in, end, &sg);
        if (err == MPI_SUCCESS && sg.slot == big && !sg.packed) {
            uint64_t kept = 0;
            err = exchange_unpack_segment(e, &sg, got->data + got->n * arity,
                                          &kept);
            got->n += kept;
        } else if (err == MPI_SUCCESS) {
            err = exchange_deliver(e, &sg);
        }
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int exchange_scan_streams(const ravel_engine *e,
                          const uint64_t *const *view, const uint64_t *len,
                          uint64_t *count, int *any_packed)
{
    *any_packed = 0;
    for (int source = 0; source < e->size; source++) {
        if (len[source] == 0)
            continue; /* its view may be NULL, and NULL + 0 is undefined */
        const uint64_t *in = view[source], *end = in + len[source];
        while (in < end) {
            stream_segment sg;
            int err = exchange_next_segment(e, source, &in, end, &sg);
            if (err != MPI_SUCCESS)
                return err;
            /* packed ones land apart (exchange_deliver) */
            count[sg.packed ? e->outbox_slots + sg.slot : sg.slot] += sg.n;
            *any_packed |= sg.packed;
        }
    }
    return MPI_SUCCESS;
}
