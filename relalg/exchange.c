/* Emission of tuples to their ranks, and the one exchange per iteration.
 *
 * Rules queue each output tuple in an outbox slot per (target relation,
 * destination rank).  The exchange then sends, to every other rank, one
 * stream of uint64_t words made of a segment per slot, its tuples raw or
 * packed (exchange_streams.c), with a single call of the chosen alltoallv
 * backend.  The streams are
 * packed first, locally (exchange_pack), and the ranks agree on the call's
 * global statistics (largest block, totals, non-empty blocks) in a
 * collective the caller makes anyway: run.c's iteration allreduce, which
 * carries the next iteration's agreement.  Every rank thus knows the
 * largest block anywhere (a block longer than the round limit is sent in
 * several rounds, all ranks taking the same number) and what the cost
 * model needs: auto is handed the statistics and agrees on nothing more.
 * The receive sizes are then discovered by the exchange
 * (exchange_discover.c, the default) or sent ahead in an MPI_Ialltoall of
 * one word per pair for an MPI_Alltoallv-style backend call (the
 * count-then-alltoallv path, kept for comparison).  Tuples for this rank
 * never enter the backend; they are handed over in place.  Every copy of
 * tuples here is reported to ravel_comm_charge_copy, which counts it and,
 * under SimGrid SMPI, charges it to the simulated clock like the backends'
 * own. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/log.h"
#include "ravel/memory.h"
#include "ravel/timer.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An outbox buffer is compacted once it holds 2^20 tuples and a quarter of
 * the target's local size.  That trades time for memory: TC of
 * p2p-Gnutella04 on one rank peaks at 19.8 bytes per path in 24 s; from half
 * the target's size, 23.5 B in 23 s; from its size, 27.4 B in 22 s; without
 * compaction, 28.5 B in 19 s. */
#define OUTBOX_COMPACT_MIN ((size_t)1 << 20)
/* A buffer for another rank is first sealed into its packed set at this
 * many tuples (later ones once it holds as many as the set): a quarter of
 * the floor above, since sealing, unlike reducing, reads no full.  TC of
 * ego-Facebook at 2 ranks held its remote candidates at 16 bytes each
 * until 2^20 of them: 121 MiB at its peak, 98 from 2^18, in 0.85 and 0.88
 * of the time (two paired sets); the other closures' memory and time stay
 * within the machine's spread, while reducing this rank's own from 2^18
 * too cost wiki-Vote and Gnutella09 10 and 13% (bench/results/peers/
 * README.md, "Sealing candidates for other ranks from 2^18"). */
#define REMOTE_SEAL_MIN ((size_t)1 << 18)
/* A buffer tries a box of bits once it fills at this many tuples or more
 * (each time it fills, so at sizes growing by half), and only when it is
 * an eighth or more of the tuple memory this rank holds: boxes for small
 * buffers beside a large full saved nothing and made TC of fe_sphere and
 * cti 9 and 10% slower (relalg/README.md, "Candidates as bits of their
 * box"). */
#define BOX_MIN ((size_t)1 << 16)

int outbox_ensure(ravel_engine *e)
{
    size_t slots = 2 * e->nrels;
    if (slots > e->outbox_slots) {
        size_t n = slots * (size_t)e->size;
        size_t old = e->outbox_slots * (size_t)e->size;
        tuple_buf *o = realloc(e->outbox, n * sizeof *o);
        if (o) {
            memset(o + old, 0, (n - old) * sizeof *o);
            e->outbox = o;
        }
        packed_tuples *p =
            o ? realloc(e->outbox_packed, n * sizeof *p) : NULL;
        if (!p)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                                   "outbox buffers", n);
        memset(p + old, 0, (n - old) * sizeof *p);
        e->outbox_packed = p;
        tuple_box **x = realloc(e->outbox_box, n * sizeof *x);
        if (!x)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                                   "outbox buffers", n);
        memset(x + old, 0, (n - old) * sizeof *x);
        e->outbox_box = x;
        e->outbox_slots = slots;
    }
    for (size_t i = 0; i < e->nrels; i++) {
        relation *r = &e->rels[i];
        if (r->kind != REL_DECLARED)
            continue;
        free(r->targets);
        r->ntargets = 0;
        r->targets = malloc(e->nrels * sizeof *r->targets);
        if (!r->targets)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                                   "index list of relation %s", r->name);
        for (size_t j = 0; j < e->nrels; j++)
            if (e->rels[j].base == (int)i && e->rels[j].active)
                r->targets[r->ntargets++] = (int)j;
    }
    return MPI_SUCCESS;
}

void outbox_box_free(tuple_box **x)
{
    if (*x)
        tuple_box_free(*x);
    free(*x);
    *x = NULL;
}

/* Candidates (not moves) whose box has a bitmap of at most `most` bytes
 * (and no more than the candidates' own: tuple_box_start) are kept as its
 * bits from the moment their buffer fills: TC of ego-Facebook held 43 MB
 * of its own a rank, reduced, in a box of 2 MB, and wiki-Vote up to 109
 * MB for the other rank in a box of 8.6 MB (relalg/README.md, "Candidates
 * as bits of their box").  Then b's room goes, and t is pushed.  Returns
 * 0 when b stays as it was. */
static int start_box(ravel_engine *e, size_t slot, int rank, tuple_buf *b,
                     size_t most, const uint64_t *t, int *err)
{
    const relation *r = &e->rels[slot / 2];
    tuple_box **x = outbox_box_at(e, slot, rank);
    if (*x || (slot & 1) || !(*x = calloc(1, sizeof **x)))
        return 0;
    if (!tuple_box_start(*x, b->data, b->n, r->arity, most)) {
        outbox_box_free(x);
        return 0;
    }
    tuple_buf_free(b);
    *err = tuple_box_add(*x, t) ? MPI_SUCCESS
                                : tuple_buf_push(b, r->arity, t);
    return 1;
}

/* A buffer that fills beside its box (candidates that fell outside it)
 * is poured into the box when the box, widened to hold them, stays within
 * `most` bytes, a limit that rises with the buffer: the limit set when a
 * box starts is a quarter of the buffer it replaced, and TC of
 * ego-Facebook, its box started on the first 2^16 candidates of an
 * iteration, then grew the buffer beside it to 25 MB a rank, where the
 * box of all its candidates takes 2 MB.  What the box took leaves b (and
 * b's room goes when it took all), and t is pushed.  Returns 0 when b
 * stays as it was. */
static int absorb_into_box(tuple_box *x, tuple_buf *b, unsigned arity,
                           size_t most, const uint64_t *t, int *err)
{
    size_t left = tuple_box_absorb(x, b->data, b->n, most);
    if (left == b->n)
        return 0;
    b->n = left;
    if (left == 0)
        tuple_buf_free(b);
    *err = tuple_box_add(x, t) ? MPI_SUCCESS : tuple_buf_push(b, arity, t);
    return 1;
}

/* A quarter of the buffer a box replaces, or for this rank's own
 * candidates of full at 8 bytes a column, whichever is more (a box that
 * covers a closure is worth the closure's candidates). */
static size_t box_most(const relation *r, const tuple_buf *b, int own)
{
    uint64_t full = own ? storage_full_count(r) * r->arity * sizeof(uint64_t)
                        : 0;
    uint64_t most = full > b->bytes ? full : b->bytes;
    return (size_t)(most / 4);
}

/* A full outbox buffer for this rank is first reduced in place
 * (deduplicated and stripped of what the target already holds:
 * tuples_reduce), which bounds the memory of an iteration's candidates by
 * about twice the distinct new ones.  It grows when that freed less than
 * half of it, so that the next compaction comes after at least as many new
 * candidates as survived this one: a candidate is reduced at most about
 * twice, not once per compaction.
 * A buffer for another rank cannot be checked against full, so what it
 * holds is every distinct candidate: it is sorted, deduplicated and merged
 * into the slot's packed part (a few bytes a tuple; exchange_streams.c),
 * and the buffer starts again in the same room.  It grows until it holds
 * as many tuples as the packed part, so that a merge, which rewrites the
 * packed part, comes after that many candidates: a packed tuple is
 * rewritten a few times per iteration, not once per buffer of 2^18.
 * Before either, a buffer of candidates whose box is small becomes a box
 * of bits (start_box), and what then falls in it never reaches a buffer. */
static int push_compacting(ravel_engine *e, size_t slot, int rank,
                           const uint64_t *t)
{
    const relation *r = &e->rels[slot / 2];
    tuple_buf *b = outbox_at(e, slot, rank);
    tuple_box *x = *outbox_box_at(e, slot, rank);
    if (x && tuple_box_add(x, t))
        return MPI_SUCCESS;
    int err = MPI_SUCCESS;
    if (b->n == b->cap && b->n >= BOX_MIN && b->bytes >= budget_held() / 8) {
        size_t most = box_most(r, b, rank == e->rank);
        if (x ? absorb_into_box(x, b, r->arity, most, t, &err)
              : start_box(e, slot, rank, b, most, t, &err))
            return err;
    }
    if (rank != e->rank && b->n == b->cap && b->n >= REMOTE_SEAL_MIN &&
        b->n >= outbox_packed_at(e, slot, rank)->n &&
        (err = exchange_seal_outbox(e, slot, rank, 1)) != MPI_SUCCESS)
        return err;
    /* Compacting against a much larger full would probe it at random; from
     * a quarter of its size on, the difference is a near-sequential merge. */
    if (rank == e->rank && b->n == b->cap && b->n >= OUTBOX_COMPACT_MIN &&
        b->n >= storage_full_count(r) / 4) {
        b->n = storage_reduce(r, b->data, b->n);
        if (b->n > b->cap / 2 &&
            (err = tuple_buf_reserve(b, r->arity, b->n)) != MPI_SUCCESS)
            return err;
    }
    return tuple_buf_push(b, r->arity, t);
}

/* push_compacting of the n tuples t for one rank, a buffer's room at a
 * time while no box takes them (a box, or a full buffer, sees each tuple
 * through push_compacting). */
static int push_run(ravel_engine *e, size_t slot, int rank,
                    const uint64_t *t, size_t n)
{
    unsigned a = e->rels[slot / 2].arity;
    tuple_buf *b = outbox_at(e, slot, rank);
    while (n > 0) {
        size_t room = b->cap - b->n;
        if (room == 0 || *outbox_box_at(e, slot, rank)) {
            int err = push_compacting(e, slot, rank, t);
            if (err != MPI_SUCCESS)
                return err;
            t += a;
            n--;
            continue;
        }
        size_t m = room < n ? room : n;
        memcpy(b->data + b->n * a, t, m * a * sizeof *t);
        b->n += m;
        t += m * a;
        n -= m;
    }
    return MPI_SUCCESS;
}

/* Whether the tuples of base with t's first column go to one rank
 * together, and which (*rank): base is its only target, keyed on that
 * column and not split there. */
static int one_rank(const ravel_engine *e, const relation *r, int base,
                    const uint64_t *t, int *rank)
{
    *rank = 0;
    if (r->ntargets != 1 || r->targets[0] != base ||
        r->kind != REL_DECLARED || r->key != 1)
        return 0;
    if (e->size == 1)
        return 1;
    uint64_t b = placement_bucket(e, r, t);
    *rank = (int)(b % (uint64_t)e->size);
    return r->subs[b] == 1;
}

uint64_t *emit_room(ravel_engine *e, int base, const uint64_t *t, size_t n,
                    tuple_buf **into)
{
    const relation *r = &e->rels[base];
    size_t slot = outbox_slot_index(base, 0);
    int rank;
    if (!one_rank(e, r, base, t, &rank) || *outbox_box_at(e, slot, rank))
        return NULL;
    tuple_buf *b = outbox_at(e, slot, rank);
    if (b->cap - b->n < n)
        return NULL;
    *into = b;
    return b->data + b->n * r->arity;
}

int emit_run(ravel_engine *e, int base, const uint64_t *t, size_t n)
{
    const relation *r = &e->rels[base];
    if (n == 0)
        return MPI_SUCCESS;
    int rank;
    if (one_rank(e, r, base, t, &rank))
        return relation_error(r, push_run(e, outbox_slot_index(base, 0),
                                          rank, t, n));
    for (size_t i = 0; i < n; i++) {
        int err = emit_tuple(e, base, t + i * r->arity);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int emit_to_target(ravel_engine *e, int target, const uint64_t *t,
                   int in_delta)
{
    const relation *r = &e->rels[target];
    size_t at = outbox_slot_index(target, in_delta);
    if (e->size == 1)
        return push_compacting(e, at, 0, t);
    if (r->kind != REL_REPLICA)
        return push_compacting(e, at, placement_rank(e, r, t), t);
    /* A replica goes to every rank holding a sub-bucket of its bucket in the
     * layout relation. */
    tuple_buf *slot = outbox_at(e, at, 0);
    uint64_t b = placement_bucket(e, r, t);
    uint32_t s = e->rels[r->layout].subs[b];
    for (uint32_t j = 0; j < s; j++) {
        int err = tuple_buf_push(&slot[(b + j) % (uint64_t)e->size],
                                 r->arity, t);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

int emit_tuple(ravel_engine *e, int base, const uint64_t *t)
{
    const relation *r = &e->rels[base];
    uint64_t permuted[RAVEL_MAX_ARITY];
    for (size_t i = 0; i < r->ntargets; i++) {
        const relation *x = &e->rels[r->targets[i]];
        const uint64_t *u = t;
        if (x->kind != REL_DECLARED) {
            for (unsigned c = 0; c < x->arity; c++)
                permuted[c] = t[x->perm[c]];
            u = permuted;
        }
        int err = emit_to_target(e, r->targets[i], u, 0);
        if (err != MPI_SUCCESS)
            return relation_error(x, err);
    }
    return MPI_SUCCESS;
}

/* Hands tuples over to slot's relation: candidates, or moved tuples. */
tuple_buf *exchange_slot_incoming(ravel_engine *e, size_t slot)
{
    relation *r = &e->rels[slot / 2];
    return (slot & 1) ? &r->incoming_delta : &r->incoming;
}

int exchange_deliver(ravel_engine *e, const stream_segment *sg)
{
    relation *r = &e->rels[sg->slot / 2];
    if (sg->packed && !(sg->slot & 1) && r->arrivals_packed) {
        packed_tuples landed;
        int err = exchange_land_packed(e, sg, &landed);
        if (err == MPI_SUCCESS)
            err = storage_add_incoming_packed(r, &landed);
        return relation_error(r, err);
    }
    /* A packed segment unpacks without what full holds (and sorted). */
    tuple_buf *into = sg->packed && !(sg->slot & 1)
                          ? &r->incoming_checked
                          : exchange_slot_incoming(e, sg->slot);
    int err = tuple_buf_reserve(into, r->arity, sg->n);
    uint64_t kept = 0;
    if (err == MPI_SUCCESS)
        err = exchange_unpack_segment(e, sg, into->data + into->n * r->arity,
                                      &kept);
    if (err == MPI_SUCCESS)
        into->n += kept;
    return relation_error(r, err);
}

int exchange_reserve_checked(ravel_engine *e, const uint64_t *count)
{
    for (size_t s = 0; s < e->outbox_slots; s += 2) { /* candidates' slots */
        relation *r = &e->rels[s / 2];
        uint64_t packed = count[e->outbox_slots + s];
        /* Landed flat, the candidates this rank does not hold yet take 16
         * bytes a tuple, beside its own box's: the peak of TC of
         * ego-Facebook at 2 ranks (relalg/README.md, "Arrivals landed
         * packed"). */
        r->arrivals_packed = packed > 0 && storage_packs_delta(e, r, packed);
        if (r->arrivals_packed)
            continue;
        int err = tuple_buf_reserve(&r->incoming_checked, r->arity, packed);
        if (err != MPI_SUCCESS)
            return relation_error(r, err);
    }
    return MPI_SUCCESS;
}

/* Moves the tuples of *from into *into without copying the larger of the
 * two buffers (their order does not matter: promotion sorts); *from is left
 * empty, and freed even on failure. */
int exchange_hand_over(tuple_buf *into, tuple_buf *from, unsigned arity)
{
    if (from->n > into->n) {
        tuple_buf x = *into;
        *into = *from;
        *from = x;
    }
    ravel_comm_charge_copy(from->n * arity * sizeof *from->data);
    int err = from->n ? tuple_buf_append(into, arity, from->data, from->n)
                      : MPI_SUCCESS;
    tuple_buf_free(from);
    return err;
}

size_t exchange_largest_slot(const ravel_engine *e, const uint64_t *count)
{
    size_t big = 0;
    for (size_t s = 1; s < e->outbox_slots; s++)
        if (count[s] * e->rels[s / 2].arity >
            count[big] * e->rels[big / 2].arity)
            big = s;
    return big;
}

/* Hands the received tuples over to their relations.  The slot with the most
 * tuples (in TC, the only one) does not copy them when every segment is
 * raw: its segments are moved down to the front of recv, which then
 * becomes that slot's buffer, so the arrivals are never held twice.  With
 * packed segments (which unpack longer than they are) its raw ones get a
 * buffer of their own.  The others, and packed segments, are appended
 * (exchange_deliver).  *recv is NULL when it was adopted. */
static int unpack_streams(ravel_engine *e, uint64_t **recv,
                          const uint64_t *rlen, const uint64_t *roff)
{
    uint64_t *count = calloc(2 * e->outbox_slots, sizeof *count);
    if (!count)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                               "received-tuple counts", e->outbox_slots);
    const uint64_t **view = malloc((size_t)e->size * sizeof *view);
    if (!view) {
        free(count);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d "
                               "stream pointers", e->size);
    }
    for (int i = 0; i < e->size; i++)
        view[i] = *recv + roff[i];
    int any_packed = 0;
    int err = exchange_scan_streams(e, view, rlen, count, &any_packed);
    free(view);
    if (err == MPI_SUCCESS)
        err = exchange_reserve_checked(e, count);
    size_t big = exchange_largest_slot(e, count);
    unsigned arity = e->rels[big / 2].arity;
    const uint64_t *base = *recv;
    tuple_buf got = {0};
    if (err == MPI_SUCCESS && count[big] > 0) {
        if (any_packed) {
            err = relation_error(&e->rels[big / 2],
                                 tuple_buf_reserve(&got, arity, count[big]));
        } else {
            /* The ledger knows recv by its allocation, rtot words and one. */
            size_t words = 1;
            for (int i = 0; i < e->size; i++)
                words += rlen[i];
            got = (tuple_buf){*recv, 0, count[big], words * sizeof **recv};
            *recv = NULL; /* got owns it now; the segments lie above */
        }
    }
    for (int source = 0; source < e->size && err == MPI_SUCCESS; source++)
        err = exchange_land_stream(e, source, base + roff[source],
                                   base + roff[source] + rlen[source], big,
                                   &got);
    if (err == MPI_SUCCESS && got.n > 0)
        err = relation_error(&e->rels[big / 2],
                             exchange_hand_over(exchange_slot_incoming(e, big),
                                                &got, arity));
    tuple_buf_free(&got);
    free(count);
    return err;
}

/* Tuples for this rank change hands without a copy when possible. */
static int deliver_self(ravel_engine *e)
{
    for (size_t s = 0; s < e->outbox_slots; s++) {
        tuple_buf *b = outbox_at(e, s, e->rank);
        tuple_box **x = outbox_box_at(e, s, e->rank);
        if (*x) {
            /* The drain strips full's tuples: candidates go apart, packed
             * when there are enough of them to make a packed delta. */
            relation *r = &e->rels[s / 2];
            int packed = !(s & 1) &&
                         storage_packs_delta(e, r, tuple_box_count(*x));
            int err = packed ? storage_drain_box_packed(r, *x)
                             : storage_drain_box(r, *x,
                                                 s & 1 ? b
                                                       : &r->incoming_checked);
            outbox_box_free(x);
            if (err != MPI_SUCCESS)
                return relation_error(&e->rels[s / 2], err);
        }
        if (!b->n)
            continue;
        int err = exchange_hand_over(exchange_slot_incoming(e, s), b,
                                     e->rels[s / 2].arity);
        if (err != MPI_SUCCESS)
            return relation_error(&e->rels[s / 2], err);
    }
    return MPI_SUCCESS;
}

static void outbox_clear(ravel_engine *e)
{
    for (size_t i = 0; i < e->outbox_slots * (size_t)e->size; i++)
        outbox_box_free(&e->outbox_box[i]);
    for (size_t i = 0; i < e->outbox_slots * (size_t)e->size; i++) {
        tuple_buf_free(&e->outbox[i]);
        packed_free(&e->outbox_packed[i]);
    }
}

/* Which backend moved the tuples and what the model predicted for it (for
 * several rounds: the prediction of one round times their number).
 * `in_exchange`: the rounds went through ravel_exchange_run, whose call
 * makes a count exchange before a backend that needs every receive count
 * (auto's own prediction there counts it too). */
void exchange_note_backend(ravel_engine *e, uint64_t rounds, int in_exchange,
                           exchange_stats *st)
{
    st->backend = e->backend_index;
    if (e->backend_is_auto) {
        double predicted = 0.0;
        if (ravel_comm_last_choice(e->comm, &st->backend, &predicted) ==
            MPI_SUCCESS)
            st->predicted_seconds = predicted * (double)rounds;
        return;
    }
    double predicted = 0.0;
    int err = in_exchange
                  ? ravel_comm_predict_exchange(e->comm, e->backend_name,
                                                &e->call_stats, &predicted)
                  : ravel_comm_predict(e->comm, e->backend_name,
                                       &e->call_stats, &predicted);
    if (err == MPI_SUCCESS)
        st->predicted_seconds = predicted * (double)rounds;
}

/* The backend call(s) moving send[] (streams at soff, lengths slen) into
 * recv[] (at roff, lengths rlen), in `rounds` rounds of at most `cap` words
 * per block. */
static int move_words(ravel_engine *e, const uint64_t *send,
                      const uint64_t *slen, const uint64_t *soff,
                      uint64_t *recv, const uint64_t *rlen,
                      const uint64_t *roff, uint64_t rounds, uint64_t cap)
{
    int P = e->size, err = MPI_SUCCESS;
    int *ic = malloc(4 * (size_t)P * sizeof *ic);
    uint64_t *stage_s = NULL, *stage_r = NULL;
    if (!ic)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                               "exchange's counts on %d ranks", P);
    int *sc = ic, *sd = ic + P, *rc = ic + 2 * P, *rd = ic + 3 * P;
    uint64_t tot_s = 0, tot_r = 0;
    for (int i = 0; i < P; i++) {
        tot_s += slen[i];
        tot_r += rlen[i];
    }
    if (rounds == 1 && tot_s <= INT_MAX && tot_r <= INT_MAX) {
        for (int i = 0; i < P; i++) {
            sc[i] = (int)slen[i];
            sd[i] = (int)soff[i];
            rc[i] = (int)rlen[i];
            rd[i] = (int)roff[i];
        }
        if (e->backend_is_auto)
            err = ravel_comm_hint_stats(e->comm, &e->call_stats);
        if (err == MPI_SUCCESS)
            err = e->alltoallv(send, sc, sd, MPI_UINT64_T, recv, rc, rd,
                               MPI_UINT64_T, e->comm);
        free(ic);
        return err;
    }
    /* Staged rounds: each round's blocks are contiguous, at most cap words
     * each, so every count and displacement fits an int. */
    stage_s = malloc((size_t)(cap * (uint64_t)P) * sizeof *stage_s + 1);
    stage_r = malloc((size_t)(cap * (uint64_t)P) * sizeof *stage_r + 1);
    if (!stage_s || !stage_r) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                              "exchange staging");
        goto fn_exit;
    }
    for (uint64_t round = 0; round < rounds && err == MPI_SUCCESS; round++) {
        uint64_t from = round * cap, ps = 0, pr = 0;
        for (int i = 0; i < P; i++) {
            uint64_t s = slen[i] > from ? slen[i] - from : 0;
            uint64_t r = rlen[i] > from ? rlen[i] - from : 0;
            s = s < cap ? s : cap;
            r = r < cap ? r : cap;
            memcpy(stage_s + ps, send + soff[i] + from, s * sizeof *send);
            ravel_comm_charge_copy(s * sizeof *send);
            sc[i] = (int)s;
            sd[i] = (int)ps;
            rc[i] = (int)r;
            rd[i] = (int)pr;
            ps += s;
            pr += r;
        }
        err = e->alltoallv(stage_s, sc, sd, MPI_UINT64_T, stage_r, rc, rd,
                           MPI_UINT64_T, e->comm);
        for (int i = 0; i < P && err == MPI_SUCCESS; i++) {
            memcpy(recv + roff[i] + from, stage_r + rd[i],
                   (size_t)rc[i] * sizeof *recv);
            ravel_comm_charge_copy((size_t)rc[i] * sizeof *recv);
        }
    }
fn_exit:
    free(stage_s);
    free(stage_r);
    free(ic);
    return err;
}

/* The backend call's global statistics from the agreement (words), in
 * bytes.  The largest receive total is not known without another
 * collective: the model is given the largest send total for it (placement
 * by hash makes them alike). */
static void call_stats_from_agreed(ravel_engine *e, const uint64_t *a)
{
    ravel_call_stats *s = &e->call_stats;
    memset(s, 0, sizeof *s);
    s->P = e->size;
    s->max_block = a[AGREE_MAX_BLOCK] * sizeof(uint64_t);
    s->max_send = a[AGREE_MAX_TOTAL] * sizeof(uint64_t);
    s->max_recv = s->max_send;
    s->total = a[AGREE_TOTAL] * sizeof(uint64_t);
    s->nonempty = a[AGREE_NONEMPTY];
    s->max_nonempty_send = a[AGREE_MAX_NONEMPTY];
    s->max_nonempty_recv = s->max_nonempty_send;
}

/* The exchange's send and receive arrays, through the memory budget. */
static int staging_alloc(uint64_t **out, size_t bytes, const char *what)
{
    if (budget_check(0, bytes) != MPI_SUCCESS && strcmp(what, "send") == 0) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", ravel_error_message());
        return ravel_error_set(MPI_ERR_NO_MEM, "the exchange's send buffer "
                               "(every tuple this rank sends): %s", copy);
    }
    *out = malloc(bytes);
    if (!*out) {
        char want[32];
        ravel_format_bytes(want, sizeof want, bytes);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                               "exchange's %s buffer of %s", what, want);
    }
    budget_note(0, bytes);
    ravel_memory_prefer_huge_pages(*out, bytes);
    return MPI_SUCCESS;
}

static void staging_free(uint64_t **p, size_t bytes)
{
    if (!*p)
        return;
    budget_note(bytes, 0);
    free(*p);
    *p = NULL;
}

void exchange_plan_free_send(exchange_plan *plan)
{
    if (plan->in_outboxes) { /* the run has sent them: the handle's again */
        budget_note(plan->send_bytes, 0);
        plan->in_outboxes = 0;
        return;
    }
    staging_free(&plan->send, plan->send_bytes);
}

void exchange_plan_discard(ravel_engine *e, exchange_plan *plan)
{
    if (plan->in_outboxes)
        ravel_exchange_discard(e->exchange); /* not to be sent */
    exchange_plan_free_send(plan);
    free(plan->len);
    free(plan->sizes);
    plan->len = plan->off = NULL;
    plan->sizes = NULL;
    outbox_clear(e);
}

/* Whether the streams go straight into the exchange's outboxes: only
 * where those are written in place (backend shm), which saves the send
 * array and the backend's copy out of it, and only while they fit the
 * shared window as it is.  Outboxes that do not fit would make the window
 * grow for them, up to halves of 16 MiB a rank (ravel_comm_shm_outboxes),
 * shared memory that every rank touching a peer's segment counts: TC of
 * p2p-Gnutella04 at 2 ranks took 333 MiB instead of 283, and 1.06 of the
 * time, its large iterations' outboxes going through the handle's memory
 * anyway (bench/results/shm/README.md, "The engine's streams in the
 * outboxes").  Also never when a stream needs rounds (exchange_discover
 * sends a slice of each stream a round; a rank whose streams all fit one
 * round sends them in the first and nothing after, whatever the others
 * need; a stream that fits the window is far below the round limit). */
static int pack_into_outboxes(const ravel_engine *e,
                              const exchange_plan *plan)
{
    if (!e->opt.discover_counts || !e->opt.pack_into_outboxes ||
        !e->exchange || plan->agree[AGREE_MAX_BLOCK] >
                            e->opt.max_block_elements)
        return 0;
    size_t *bytes = plan->sizes; /* scratch until the exchange */
    for (int i = 0; i < e->size; i++)
        bytes[i] = (size_t)plan->len[i] * sizeof *plan->send;
    return ravel_exchange_outboxes_fit(e->exchange, bytes);
}

/* Each stream to other ranks written into its outbox, accounted to the
 * memory budget as the send array would be (the outboxes that find no
 * room in the shared window are memory of the handle's own). */
static int write_outboxes(ravel_engine *e, exchange_plan *plan)
{
    if (budget_check(0, plan->send_bytes) != MPI_SUCCESS) {
        char copy[1024];
        snprintf(copy, sizeof copy, "%s", ravel_error_message());
        return ravel_error_set(MPI_ERR_NO_MEM, "the exchange's outboxes "
                               "(every tuple this rank sends): %s", copy);
    }
    budget_note(0, plan->send_bytes);
    plan->in_outboxes = 1;
    for (int i = 0; i < e->size; i++) {
        if (i == e->rank || plan->len[i] == 0)
            continue;
        uint64_t *out = ravel_exchange_outbox(
            e->exchange, i, (size_t)plan->len[i] * sizeof *out);
        if (!out) {
            char copy[1024];
            snprintf(copy, sizeof copy, "%s", ravel_error_message());
            return ravel_error_set(MPI_ERR_NO_MEM, "the exchange's outbox "
                                   "for rank %d: %s", i, copy);
        }
        exchange_write_stream(e, i, out);
    }
    return MPI_SUCCESS;
}

int exchange_pack(ravel_engine *e, int local_error, exchange_plan *plan)
{
    int P = e->size;
    memset(plan, 0, sizeof *plan);
    /* len, off, and room for the count exchange's receive lengths and
     * offsets, taken now: past the agreement no rank may stop. */
    plan->len = local_error ? NULL : calloc(4 * (size_t)P, sizeof *plan->len);
    if (!local_error && !plan->len)
        local_error = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                      "the exchange's stream lengths on %d "
                                      "ranks", P);
    plan->sizes = plan->len ? malloc(2 * (size_t)P * sizeof *plan->sizes)
                            : NULL;
    if (!local_error && !plan->sizes)
        local_error = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                      "the exchange's stream lengths on %d "
                                      "ranks", P);
    if (plan->len)
        plan->off = plan->len + P;
    /* Duplicates are dropped before they travel (the receiver deduplicates
     * anyway, and a sorted block costs the same to sort again), and every
     * buffer for another rank is packed: its segment goes in the shorter
     * of the two forms (exchange_streams.c). */
    for (size_t s = 0; s < e->outbox_slots && !local_error; s++)
        for (int i = 0; i < P && !local_error; i++)
            if (i != e->rank)
                local_error = relation_error(&e->rels[s / 2],
                                             exchange_seal_outbox(e, s, i, 0));
    uint64_t *a = plan->agree, total = 0;
    for (int i = 0; i < P && !local_error; i++) {
        uint64_t w = i == e->rank ? 0 : exchange_stream_words(e, i);
        plan->len[i] = w;
        plan->off[i] = total;
        a[AGREE_MAX_BLOCK] = w > a[AGREE_MAX_BLOCK] ? w : a[AGREE_MAX_BLOCK];
        total += w;
        a[AGREE_NONEMPTY] += w > 0;
    }
    a[AGREE_TOTAL] = a[AGREE_MAX_TOTAL] = total;
    a[AGREE_MAX_NONEMPTY] = a[AGREE_NONEMPTY];
    /* The send array is taken and filled before the agreement: a rank
     * without the memory for it says so there and every rank stops
     * cleanly, and packing frees the outbox buffer by buffer, so the
     * receive array taken next does not come on top of the outbox too. */
    plan->send_bytes = (size_t)total * sizeof *plan->send + 1;
    if (!local_error && total && pack_into_outboxes(e, plan)) {
        local_error = write_outboxes(e, plan);
    } else {
        if (!local_error)
            local_error = staging_alloc(&plan->send, plan->send_bytes,
                                        "send");
        for (int i = 0; i < P && !local_error; i++)
            if (i != e->rank)
                exchange_write_stream(e, i, plan->send + plan->off[i]);
    }
    if (local_error) {
        exchange_plan_discard(e, plan);
        memset(plan->agree, 0, sizeof plan->agree);
    }
    return local_error;
}

/* The count-then-alltoallv path: an MPI_Ialltoall of one word per pair
 * (each stream's length) sizes the receive array, then the backend moves
 * the streams. */
static int send_counted(ravel_engine *e, exchange_plan *plan,
                        uint64_t max_block, exchange_stats *st)
{
    int P = e->size;
    uint64_t *rlen = plan->len + 2 * (size_t)P, *roff = rlen + P;
    MPI_Request req;
    int err = MPI_Ialltoall(plan->len, 1, MPI_UINT64_T, rlen, 1,
                            MPI_UINT64_T, e->comm, &req);
    if (err == MPI_SUCCESS)
        err = ravel_comm_waitall(e->comm, 1, &req);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t rtot = 0;
    for (int i = 0; i < P; i++) {
        roff[i] = rtot;
        rtot += rlen[i];
    }
    /* The peers are committed to the backend call now: a rank that stopped
     * here would hang them.  So the receive array is taken even beyond the
     * memory limit, which the iteration then reports once the call is
     * over; only a failed allocation ends the job. */
    size_t recv_bytes = (size_t)rtot * sizeof(uint64_t) + 1;
    int recv_over = budget_check(0, recv_bytes) != MPI_SUCCESS;
    uint64_t *recv = NULL;
    if (staging_alloc(&recv, recv_bytes, "receive") != MPI_SUCCESS) {
        ravel_log(RAVEL_LOG_ERROR, "%s", ravel_error_message());
        MPI_Abort(e->comm, MPI_ERR_NO_MEM);
    }
    uint64_t cap = e->opt.max_block_elements;
    uint64_t rounds = (max_block + cap - 1) / cap;
    double t0 = ravel_now();
    err = move_words(e, plan->send, plan->len, plan->off, recv, rlen, roff,
                     rounds, cap);
    st->backend_seconds = ravel_now() - t0;
    exchange_note_backend(e, rounds, 0, st);
    exchange_plan_free_send(plan);
    if (err == MPI_SUCCESS)
        err = unpack_streams(e, &recv, rlen, roff);
    staging_free(&recv, recv_bytes);
    if (err == MPI_SUCCESS && recv_over) {
        char want[32], limit[32];
        ravel_format_bytes(want, sizeof want, recv_bytes);
        ravel_format_bytes(limit, sizeof limit, budget_limit());
        err = ravel_error_set(MPI_ERR_NO_MEM, "the exchange needed a "
                              "receive buffer of %s (%llu bytes), beyond "
                              "the memory limit of %s (raise --max-memory, "
                              "or run on more ranks)", want,
                              (unsigned long long)recv_bytes, limit);
    }
    return err;
}

int exchange_send_planned(ravel_engine *e, exchange_plan *plan,
                          const uint64_t agreed[AGREE_WORDS],
                          exchange_stats *st)
{
    double start = ravel_now();
    memset(st, 0, sizeof *st);
    st->backend = -1;
    e->echoed_error = 0;
    test_kill_point("exchange");
    call_stats_from_agreed(e, agreed);
    st->max_block_bytes = plan->agree[AGREE_MAX_BLOCK] * sizeof(uint64_t);
    st->total_bytes = plan->agree[AGREE_TOTAL] * sizeof(uint64_t);
    int err = MPI_SUCCESS;
    if (agreed[AGREE_MAX_BLOCK] > 0)
        err = e->opt.discover_counts
                  ? exchange_discover(e, plan, agreed[AGREE_MAX_BLOCK], st)
                  : send_counted(e, plan, agreed[AGREE_MAX_BLOCK], st);
    /* This rank's own tuples are local work, not the exchange's: a box of
     * them is written out without what full holds here. */
    double t0 = ravel_now();
    if (err == MPI_SUCCESS)
        err = deliver_self(e);
    st->self_seconds = ravel_now() - t0;
    exchange_plan_discard(e, plan);
    st->exchange_seconds = ravel_now() - start - st->self_seconds;
    return err;
}

/* Reduces agreements of AGREE_WORDS + 1 words (the last an error flag):
 * maxima first, then sums.  An agreement travels as one element of a
 * contiguous type (agree_type), so MPI never splits one between calls. */
static void agree_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i < *len * (AGREE_WORDS + 1); i++) {
        int f = i % (AGREE_WORDS + 1);
        if (f < AGREE_MAXIMA)
            b[i] = a[i] > b[i] ? a[i] : b[i];
        else
            b[i] += a[i];
    }
}

/* The agreement's operation, made on first use and kept for the process
 * (MPI frees operations at finalize); its type is made per call and freed,
 * since MPI does not free a derived type left at finalize. */
static int agree_allreduce(ravel_engine *e, const uint64_t *mine,
                           uint64_t *all)
{
    static MPI_Op op = MPI_OP_NULL;
    int err = op == MPI_OP_NULL ? MPI_Op_create(agree_reduce, 1, &op)
                                : MPI_SUCCESS;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    if (err == MPI_SUCCESS)
        err = MPI_Type_contiguous(AGREE_WORDS + 1, MPI_UINT64_T, &type);
    if (err == MPI_SUCCESS)
        err = MPI_Type_commit(&type);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(mine, all, 1, type, op, e->comm);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    return err;
}

int exchange_run(ravel_engine *e, int local_error, exchange_stats *st)
{
    memset(st, 0, sizeof *st);
    st->backend = -1;
    e->echoed_error = 0;
    exchange_plan plan;
    int err = exchange_pack(e, local_error, &plan);
    uint64_t mine[AGREE_WORDS + 1], all[AGREE_WORDS + 1];
    memcpy(mine, plan.agree, sizeof plan.agree);
    mine[AGREE_WORDS] = err != MPI_SUCCESS;
    int e2 = agree_allreduce(e, mine, all);
    if (e2 == MPI_SUCCESS && !all[AGREE_WORDS])
        return exchange_send_planned(e, &plan, all, st);
    exchange_plan_discard(e, &plan);
    if (e2 != MPI_SUCCESS)
        return err != MPI_SUCCESS ? err : e2;
    e->echoed_error = err == MPI_SUCCESS;
    return err != MPI_SUCCESS ? err
                              : ravel_error_set(MPI_ERR_OTHER, "another rank "
                                                "failed");
}
