/* The iteration's exchange through ravel_exchange (ravel/comm.h), which
 * discovers receive sizes: the engine's second path, chosen by the
 * discover_counts option, against the count exchange of exchange.c.
 *
 * exchange.c first sends every rank META words per pair (MPI_Ialltoall):
 * the block's length for the receiver to size its buffer, and the sender's
 * largest block, error flag, total and non-empty blocks for the agreement
 * and the cost model.  Here only the agreement remains, as one allreduce of
 * six words (log P messages instead of P - 1); the lengths travel with the
 * data in the Bruck family, or in a count exchange inside the backend's
 * own call for the others.  Arrivals are views into the exchange's inbox,
 * copied once into their relations (where exchange.c adopts its receive
 * array for the largest slot and moves its tuples down inside it: the same
 * one copy of every tuple). */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/timer.h"

#include <stdlib.h>
#include <string.h>

/* The agreement's words: maxima, then sums. */
enum { A_MAX, A_ERR, A_MAX_TOTAL, A_MAX_NONEMPTY, A_TOTAL, A_NONEMPTY,
       A_WORDS };

static void agree_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i + A_WORDS <= *len; i += A_WORDS) {
        for (int f = A_MAX; f <= A_MAX_NONEMPTY; f++)
            b[i + f] = a[i + f] > b[i + f] ? a[i + f] : b[i + f];
        b[i + A_TOTAL] += a[i + A_TOTAL];
        b[i + A_NONEMPTY] += a[i + A_NONEMPTY];
    }
}

/* Every rank's largest block and error, and the call's statistics (in the
 * words the engine counts; the model gets bytes). */
static int agree(ravel_engine *e, const uint64_t mine[A_WORDS],
                 uint64_t all[A_WORDS])
{
    static MPI_Op op = MPI_OP_NULL;
    int err = MPI_SUCCESS;
    if (op == MPI_OP_NULL)
        err = MPI_Op_create(agree_reduce, 1, &op);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(mine, all, A_WORDS, MPI_UINT64_T, op,
                                   e->comm);
    if (err != MPI_SUCCESS)
        return err;
    ravel_call_stats *s = &e->call_stats;
    memset(s, 0, sizeof *s);
    s->P = e->size;
    s->max_block = all[A_MAX] * sizeof(uint64_t);
    s->max_send = all[A_MAX_TOTAL] * sizeof(uint64_t);
    s->max_recv = s->max_send; /* unknown: placement by hash evens them */
    s->total = all[A_TOTAL] * sizeof(uint64_t);
    s->nonempty = all[A_NONEMPTY];
    s->max_nonempty_send = all[A_MAX_NONEMPTY];
    s->max_nonempty_recv = s->max_nonempty_send;
    return MPI_SUCCESS;
}

/* The tuples of the views' streams to their relations.  The largest slot
 * gets one buffer of exactly its tuples; the others are appended. */
static int unpack_views(ravel_engine *e, const uint64_t *const *view,
                        const uint64_t *len)
{
    uint64_t *count = calloc(e->outbox_slots, sizeof *count);
    if (!count)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                               "received-tuple counts", e->outbox_slots);
    int err = exchange_scan_streams(e, view, len, count);
    size_t big = exchange_largest_slot(e, count);
    unsigned arity = e->rels[big / 2].arity;
    tuple_buf got = {0};
    if (err == MPI_SUCCESS && count[big])
        err = relation_error(&e->rels[big / 2],
                             tuple_buf_reserve(&got, arity, count[big]));
    for (int source = 0; source < e->size && err == MPI_SUCCESS; source++) {
        if (len[source] == 0)
            continue; /* its view may be NULL */
        const uint64_t *in = view[source], *end = in + len[source];
        while (in < end && err == MPI_SUCCESS) {
            size_t slot = in[0], n = in[1];
            if (slot == big) {
                memcpy(got.data + got.n * arity, in + 2,
                       n * arity * sizeof *in);
                ravel_comm_charge_copy(n * arity * sizeof *in);
                got.n += n;
            } else {
                err = exchange_deliver(e, slot, in + 2, n);
            }
            in += 2 + n * e->rels[slot / 2].arity;
        }
    }
    if (err == MPI_SUCCESS && got.n)
        err = relation_error(&e->rels[big / 2],
                             exchange_hand_over(exchange_slot_incoming(e, big),
                                                &got, arity));
    tuple_buf_free(&got);
    free(count);
    return err;
}

/* One round: every block's words [from, from + cap) through the exchange;
 * with several rounds the arrivals are gathered per source in acc[]. */
static int run_round(ravel_engine *e, const uint64_t *send,
                     const uint64_t *slen, const uint64_t *soff,
                     uint64_t from, uint64_t cap, size_t *bytes,
                     size_t *offsets)
{
    for (int i = 0; i < e->size; i++) {
        uint64_t n = i == e->rank || slen[i] <= from ? 0 : slen[i] - from;
        n = n < cap ? n : cap;
        bytes[i] = (size_t)n * sizeof *send;
        offsets[i] = (size_t)(soff[i] + from) * sizeof *send;
    }
    int err = ravel_exchange_send(e->exchange, send, bytes, offsets);
    if (err == MPI_SUCCESS && e->backend_is_auto)
        err = ravel_comm_hint_stats(e->comm, &e->call_stats);
    if (err == MPI_SUCCESS)
        err = ravel_exchange_run(e->exchange);
    return err;
}

int exchange_discover(ravel_engine *e, const uint64_t *send,
                      const uint64_t *slen, const uint64_t *soff,
                      int local_error, exchange_stats *st)
{
    const int P = e->size;
    uint64_t mine[A_WORDS] = {0}, all[A_WORDS];
    for (int i = 0; i < P; i++) {
        if (i == e->rank)
            continue;
        mine[A_MAX] = slen[i] > mine[A_MAX] ? slen[i] : mine[A_MAX];
        mine[A_TOTAL] += slen[i];
        mine[A_NONEMPTY] += slen[i] > 0;
    }
    mine[A_ERR] = local_error != MPI_SUCCESS;
    mine[A_MAX_TOTAL] = mine[A_TOTAL];
    mine[A_MAX_NONEMPTY] = mine[A_NONEMPTY];
    int err = agree(e, mine, all);
    if (err != MPI_SUCCESS)
        return err;
    e->echoed_error = all[A_ERR] && !local_error;
    if (all[A_ERR])
        return local_error ? local_error
                           : ravel_error_set(MPI_ERR_OTHER, "another rank "
                                             "failed");
    st->max_block_bytes = mine[A_MAX] * sizeof(uint64_t);
    st->total_bytes = mine[A_TOTAL] * sizeof(uint64_t);
    if (all[A_MAX] == 0)
        return MPI_SUCCESS;
    uint64_t cap = e->opt.max_block_elements;
    uint64_t rounds = (all[A_MAX] + cap - 1) / cap;
    size_t *sizes = malloc(2 * (size_t)P * sizeof *sizes);
    const uint64_t **view = malloc((size_t)P * sizeof *view);
    uint64_t *len = calloc((size_t)P, sizeof *len);
    tuple_buf *acc = rounds > 1 ? calloc((size_t)P, sizeof *acc) : NULL;
    if (!sizes || !view || !len || (rounds > 1 && !acc))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                              "exchange's views on %d ranks", P);
    /* A failure past the agreement is this rank's alone, as in exchange.c:
     * its peers are in the rounds already, so it takes part in all. */
    double t0 = ravel_now();
    for (uint64_t r = 0; r < rounds; r++) {
        int round_err = run_round(e, send, slen, soff, r * cap, cap, sizes,
                                  sizes + P);
        if (err == MPI_SUCCESS)
            err = round_err;
        for (int i = 0; i < P && err == MPI_SUCCESS; i++) {
            size_t bytes;
            const void *p = ravel_exchange_inbox(e->exchange, i, &bytes);
            if (acc) /* words, as a tuple buffer of arity 1 */
                err = bytes ? tuple_buf_append(&acc[i], 1, p,
                                               bytes / sizeof **view)
                            : MPI_SUCCESS;
            else {
                view[i] = p;
                len[i] = bytes / sizeof **view;
            }
        }
    }
    st->backend_seconds = ravel_now() - t0;
    exchange_note_backend(e, rounds, st);
    for (int i = 0; acc && i < P; i++) {
        view[i] = acc[i].data;
        len[i] = acc[i].n;
    }
    if (err == MPI_SUCCESS)
        err = unpack_views(e, view, len);
    /* The arrivals are in their relations now: the inbox's memory goes
     * back before the iteration's local work, not at the next exchange. */
    ravel_exchange_release(e->exchange);
    for (int i = 0; acc && i < P; i++)
        tuple_buf_free(&acc[i]);
    free(acc);
    free(sizes);
    free(view);
    free(len);
    return err;
}
