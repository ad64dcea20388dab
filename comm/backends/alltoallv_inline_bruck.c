/* inline-bruck: two-phase Bruck with the sizes in front of the data, one
 * message per step instead of two.
 *
 * The schedule and the bookkeeping are two-phase Bruck's (bruck_transit.h):
 * ceil(log2 P) steps, at step k the blocks whose distance has bit k set go
 * to rank + 2^k, at their real sizes, with no rotation phases.  What
 * changes is how a receiver learns what arrives.  Each step's message is a
 * header of n_k sizes (8 bytes each) followed by the n_k blocks.  The
 * receiver posts its receive before the data leaves, bounded by the header
 * plus EAGER bytes of blocks (INLINE_BRUCK_EAGER, the same on every rank):
 * a step whose blocks fit is one message; a larger one sends the rest as a
 * second message, whose size the receiver reads in the header of the
 * first.  So every step that latency dominates (small blocks, where Bruck
 * is chosen at all) costs one message, half of two-phase Bruck's, and only
 * steps that carry more than EAGER bytes of blocks, whose transfer time
 * dwarfs a latency, cost two.
 *
 * Why a bound and not MPI_Probe/MPI_Get_count: a probed message cannot
 * have its receive posted before it arrives, so every one would land in
 * the MPI library's unexpected queue (one more copy for small messages, a
 * rendezvous handshake after the probe for large ones); and SimGrid's SMPI
 * simulates a probe by polling with injected sleeps (smpi/iprobe, 100 us
 * by default), which would make simulated times meaningless.  Why not the
 * size agreed one step ahead: the message of step k holds blocks that
 * arrive at step k-1, so its size is not known before then.
 *
 * Cost: ceil(log2 P) messages per rank (plus one per step over EAGER
 * bytes), carrying exactly two-phase Bruck's bytes (the sizes and the
 * forwarded blocks); the same copies (every block packed and unpacked once
 * per hop).  It wins where two-phase Bruck wins, by up to half of its
 * latency: small, non-uniform blocks at large P. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "bruck_transit.h"
#include "ravel/error.h"

#include <string.h>

enum { TAG_FIRST = 150, TAG_REST = 190 }; /* + step */

/* A step's message starts at the start of its staging buffer: the header
 * of n sizes, then the blocks.  The first `room` bytes (the largest
 * header) stay private when SMPI shares payload pages.  The message must
 * start at the buffer's first byte: SimGrid 3.32 drops the private part of
 * a message that starts inside a private range (shift_and_frame_private_
 * blocks subtracts the offset in size_t), so the header would arrive as
 * shared garbage whenever a step's header is shorter than the room. */
typedef struct {
    bruck_state b;
    size_t room;         /* private bytes: the largest header */
    char *rest;          /* the second message of a step, when there is one */
    size_t rest_size;
} inline_state;

/* Sends this step's message (or two), posted before the wait for the
 * peer's first message. */
static int post_sends(const comm_exchange *x, inline_state *s, int k,
                      size_t first, size_t rest,
                      MPI_Request sends[2], int *nsends)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int to = (me + (1 << k)) % P;
    char *message = s->b.outgoing;
    int err = comm_isend(message, first, to, TAG_FIRST + k, x->ctx,
                         &sends[0], 0);
    if (err != MPI_SUCCESS)
        return err;
    *nsends = 1;
    if (rest == 0)
        return MPI_SUCCESS;
    err = comm_isend(message + first, rest, to, TAG_REST + k, x->ctx,
                     &sends[1], 0);
    if (err == MPI_SUCCESS)
        *nsends = 2;
    return err;
}

/* Reads the header of step k's first message: auto's carried agreement
 * (when the call carries one), then the sizes into sizes_in; *data gets
 * the blocks' total. */
static void read_header(const comm_exchange *x, inline_state *s, int k,
                        int n, size_t *data)
{
    size_t sizes = (size_t)n * sizeof(uint64_t);
    size_t pre = bruck_carry_bytes(x);
    if (x->carry) {
        comm_carry_receive(x->carry, k, 1, s->b.incoming);
        comm_carry_round_end(x->carry, k);
    }
    memcpy(s->b.sizes_in, s->b.incoming + pre, sizes);
    *data = 0;
    for (int i = 0; i < n; i++)
        *data += (size_t)s->b.sizes_in[i];
}

static int inline_step(const comm_exchange *x, inline_state *s, int k)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int from = ((me - (1 << k)) % P + P) % P;
    size_t out_data;
    int n = bruck_step_sizes(x, &s->b, k, &out_data);
    size_t header = bruck_header_bytes(x, n);
    size_t pre = bruck_carry_bytes(x);
    size_t bound = header + INLINE_BRUCK_EAGER;
    size_t out = header + out_data;
    size_t first = out < bound ? out : bound;

    /* A second message over INT_MAX bytes is refused before a byte of the
     * step is copied; the first still goes, so that its header makes the
     * peer refuse it too. */
    int count, too_big = comm_int_count(out - first, "an inline Bruck "
                                        "step's second message", &count);
    if (too_big != MPI_SUCCESS)
        out = first = header;
    int err = bruck_staging_grow(&s->b.outgoing, &s->b.outgoing_size,
                                 out, s->room,
                                 "send staging");
    if (err == MPI_SUCCESS)
        err = bruck_staging_grow(&s->b.incoming, &s->b.incoming_size,
                                 s->room + INLINE_BRUCK_EAGER, s->room,
                                 "receive staging");
    if (err != MPI_SUCCESS)
        return err;
    if (x->carry)
        comm_carry_pack(x->carry, s->b.outgoing);
    memcpy(s->b.outgoing + pre, s->b.sizes_out, header - pre);
    if (too_big == MPI_SUCCESS)
        bruck_pack_blocks(x, &s->b, k, n, s->b.positions,
                          s->b.outgoing + header);
    comm_stats_header(header);

    MPI_Request first_in, pending[3]; /* the sends, then the second receive */
    int npending = 0;
    err = comm_irecv(s->b.incoming, bound, from,
                     TAG_FIRST + k, x->ctx, &first_in);
    if (err != MPI_SUCCESS)
        return err;
    err = post_sends(x, s, k, first, out - first, pending,
                     &npending);
    if (err != MPI_SUCCESS && npending == 0) {
        MPI_Cancel(&first_in);
        MPI_Request_free(&first_in);
        return err;
    }
    int wait_err = comm_waitall(x->ctx, 1, &first_in);
    if (err == MPI_SUCCESS)
        err = wait_err;

    size_t in_data = 0, rest_in = 0;
    if (err == MPI_SUCCESS) {
        read_header(x, s, k, n, &in_data);
        rest_in = in_data > INLINE_BRUCK_EAGER ? in_data - INLINE_BRUCK_EAGER
                                               : 0;
        err = comm_int_count(rest_in, "an inline Bruck step's second "
                             "message", &count);
    }
    if (err == MPI_SUCCESS && rest_in)
        err = bruck_staging_grow(&s->rest, &s->rest_size, rest_in, 0,
                                 "receive staging");
    if (err == MPI_SUCCESS && rest_in) {
        err = comm_irecv(s->rest, rest_in, from, TAG_REST + k, x->ctx,
                         &pending[npending]);
        if (err == MPI_SUCCESS)
            npending++;
    }
    wait_err = comm_waitall(x->ctx, npending, pending);
    if (err == MPI_SUCCESS)
        err = wait_err;
    if (err == MPI_SUCCESS)
        err = too_big;
    if (err == MPI_SUCCESS) {
        size_t in_first = in_data - rest_in;
        bruck_arrival a = {{s->b.incoming + header, s->rest},
                           {in_first, rest_in}};
        err = bruck_unpack_blocks(x, &s->b, k, n, s->b.positions,
                                  s->b.sizes_in, &a);
    }
    return err;
}

int comm_inline_bruck_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size;
    int err = comm_copy_self(x);
    if (x->carry)
        comm_carry_begin(x->carry, x, 2);
    if (err != MPI_SUCCESS || P == 1)
        return err;
    inline_state s = {0};
    s.room = bruck_header_bytes(x, ravel_bruck_max_step_positions(P));
    err = bruck_state_allocate(&s.b, P, 2, "inline Bruck");
    for (int k = 0; err == MPI_SUCCESS && k < ravel_bruck_steps(P); k++)
        err = inline_step(x, &s, k);
    bruck_state_release(&s.b);
    comm_payload_free(s.rest);
    return err;
}

int ravel_alltoallv_inline_bruck(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
    return comm_run_kernel(comm_inline_bruck_kernel, "inline-bruck", sendbuf,
                           sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
}
