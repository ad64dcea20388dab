/* The iteration's exchange through ravel_exchange (ravel/comm.h), which
 * discovers receive sizes: the engine's default path (option
 * discover_counts), against the count exchange of exchange.c.
 *
 * The agreement on the call's statistics was made before (exchange.c), so
 * only the streams move here: the lengths travel with the data in the
 * Bruck family, or in a count exchange inside the backend's own call for
 * the others.  Arrivals are views into the exchange's inbox, copied once
 * into their relations (where exchange.c adopts its receive array for the
 * largest slot and moves its tuples down inside it: the same one copy of
 * every tuple).  With backend shm the streams were packed straight into
 * the exchange's outboxes, in this rank's segment of the node's shared
 * window (exchange.c, pack_into_outboxes): the receivers read them where
 * the packing wrote them, and no send array is taken. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/timer.h"

#include <stdlib.h>
#include <string.h>

/* A view, for visiting views in address order. */
typedef struct {
    const uint64_t *at;
    uint64_t len;
    int source;
} placed_view;

static int by_address(const void *a, const void *b)
{
    const placed_view *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The tuples of the views' streams to their relations.  The largest slot
 * gets one buffer of exactly its tuples; the others are appended.  When
 * the exchange handed over the block the views point into (block, of
 * block_bytes) and every segment is raw, that block becomes the largest
 * slot's buffer: its segments are moved down to the block's front,
 * visiting views in address order so that nothing is overwritten before
 * it is read, as exchange.c does with its receive array.  Else (packed
 * segments unpack longer than they are) they are copied into a buffer of
 * their own. */
static int unpack_views(ravel_engine *e, const uint64_t *const *view,
                        const uint64_t *len, void *block, size_t block_bytes)
{
    uint64_t *count = calloc(2 * e->outbox_slots, sizeof *count);
    placed_view *order = malloc((size_t)e->size * sizeof *order);
    if (!count || !order) {
        free(count);
        free(order);
        free(block);
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                               "received-tuple counts", e->outbox_slots);
    }
    int any_packed = 0;
    int err = exchange_scan_streams(e, view, len, count, &any_packed);
    if (err == MPI_SUCCESS)
        err = exchange_reserve_checked(e, count);
    size_t big = exchange_largest_slot(e, count);
    unsigned arity = e->rels[big / 2].arity;
    size_t nviews = 0;
    for (int source = 0; source < e->size; source++)
        if (len[source] > 0) /* else its view may be NULL */
            order[nviews++] =
                (placed_view){view[source], len[source], source};
    tuple_buf got = {0};
    if (block && count[big] && !any_packed) {
        qsort(order, nviews, sizeof *order, by_address);
        got = (tuple_buf){block, 0, count[big], block_bytes};
        budget_note(0, block_bytes); /* the engine's memory from now on */
        block = NULL;
    } else {
        if (err == MPI_SUCCESS && count[big])
            err = relation_error(&e->rels[big / 2],
                                 tuple_buf_reserve(&got, arity, count[big]));
    }
    for (size_t v = 0; v < nviews && err == MPI_SUCCESS; v++)
        err = exchange_land_stream(e, order[v].source, order[v].at,
                                   order[v].at + order[v].len, big, &got);
    if (err == MPI_SUCCESS && got.n)
        err = relation_error(&e->rels[big / 2],
                             exchange_hand_over(exchange_slot_incoming(e, big),
                                                &got, arity));
    tuple_buf_free(&got);
    free(block); /* when not adopted: the views pointed into it */
    free(order);
    free(count);
    return err;
}

/* One round: every block's words [from, from + cap) through the exchange;
 * with several rounds the arrivals are gathered per source in acc[].
 * Streams in the outboxes (send NULL) fit one round: the first sends them,
 * the others, with the outboxes empty, nothing. */
static int run_round(ravel_engine *e, const uint64_t *send,
                     const uint64_t *slen, const uint64_t *soff,
                     uint64_t from, uint64_t cap, size_t *bytes,
                     size_t *offsets)
{
    for (int i = 0; send && i < e->size; i++) {
        uint64_t n = i == e->rank || slen[i] <= from ? 0 : slen[i] - from;
        n = n < cap ? n : cap;
        bytes[i] = (size_t)n * sizeof *send;
        offsets[i] = (size_t)(soff[i] + from) * sizeof *send;
    }
    int err = send ? ravel_exchange_send(e->exchange, send, bytes, offsets)
                   : MPI_SUCCESS;
    if (err == MPI_SUCCESS && e->backend_is_auto)
        err = ravel_comm_hint_stats(e->comm, &e->call_stats);
    if (err == MPI_SUCCESS)
        err = ravel_exchange_run(e->exchange);
    return err;
}

int exchange_discover(ravel_engine *e, exchange_plan *plan,
                      uint64_t max_block, exchange_stats *st)
{
    const int P = e->size;
    const uint64_t *send = plan->send, *slen = plan->len, *soff = plan->off;
    int err = MPI_SUCCESS;
    uint64_t cap = e->opt.max_block_elements;
    uint64_t rounds = (max_block + cap - 1) / cap;
    size_t *sizes = plan->sizes;
    const uint64_t **view = malloc((size_t)P * sizeof *view);
    uint64_t *len = calloc((size_t)P, sizeof *len);
    tuple_buf *acc = rounds > 1 ? calloc((size_t)P, sizeof *acc) : NULL;
    if (!view || !len || (rounds > 1 && !acc))
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
    exchange_note_backend(e, rounds, 1, st);
    /* The streams are sent: the send array goes now, not at the plan's
     * discard after the arrivals are unpacked and this rank's own tuples
     * handed over (send array, arrivals and own tuples at once). */
    exchange_plan_free_send(plan);
    for (int i = 0; acc && i < P; i++) {
        view[i] = acc[i].data;
        len[i] = acc[i].n;
    }
    size_t block_bytes = 0;
    void *block = acc ? NULL
                      : ravel_exchange_take_inbox(e->exchange, &block_bytes);
    if (err == MPI_SUCCESS)
        err = unpack_views(e, view, len, block, block_bytes);
    else
        free(block);
    /* The arrivals are in their relations now: the inbox's memory goes
     * back before the iteration's local work, not at the next exchange. */
    ravel_exchange_release(e->exchange);
    for (int i = 0; acc && i < P; i++)
        tuple_buf_free(&acc[i]);
    free(acc);
    free(view);
    free(len);
    return err;
}
