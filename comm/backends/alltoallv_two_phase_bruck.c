/* two-phase-bruck: Bruck's log-step all-to-all on blocks of their real size
 * (Fan, Gilray, Kumar et al., "Optimizing the Bruck Algorithm for
 * Non-uniform All-to-all Communication", HPDC'22, Algorithm 1).
 *
 * The schedule is padded Bruck's (see alltoallv_padded_bruck.c): ceil(log2 P)
 * steps, at step k the blocks whose distance has bit k set go to rank + 2^k.
 * Blocks are not padded, so a receiver cannot know how much arrives: each
 * step is two exchanges, first the sizes of the blocks about to move
 * (metadata, 8 bytes per block), then the blocks themselves, back to back.
 * No rotation phases: unmoved blocks are read from the caller's send buffer,
 * blocks on their last hop go straight to the receive buffer, and blocks
 * still in transit live in a working buffer of chunks that never move (one
 * slot per position, reused when the next block that lands there fits:
 * bruck_transit.h, shared with inline-bruck).
 *
 * Cost: 2 ceil(log2 P) messages per rank (latency 2 log P * alpha), carrying
 * the real bytes of every forwarded block (bandwidth ~ (log2 P / 2) times the
 * data, with no padding) plus 8 bytes of metadata per forwarded block.  It
 * wins where padded Bruck loses to skew and spread-out to message counts:
 * small-to-medium, non-uniform blocks at large P. */
#include "bruck_schedule.h"
#include "bruck_transit.h"
#include "ravel/error.h"

enum { TAG_META = 70, TAG_DATA = 110 }; /* + step */

static int two_phase_step(const comm_exchange *x, bruck_state *s, int k)
{
    size_t out_bytes, in_bytes = 0;
    int n = bruck_step_sizes(x, s, k, &out_bytes);
    /* auto's carried agreement, when asked for, rides in front of the
     * sizes (meta_out holds its room right before sizes_out). */
    size_t meta = bruck_header_bytes(x, n), pre = bruck_carry_bytes(x);
    if (x->carry)
        comm_carry_pack(x->carry, s->meta_out);
    int err = comm_step_exchange(x, k, (char *)s->sizes_out - pre, meta,
                                 (char *)s->sizes_in - pre, meta,
                                 TAG_META + k, 1);
    if (err != MPI_SUCCESS)
        return err;
    if (x->carry) {
        comm_carry_receive(x->carry, k, 1, s->meta_in);
        comm_carry_round_end(x->carry, k);
    }
    for (int i = 0; i < n; i++)
        in_bytes += (size_t)s->sizes_in[i];
    /* A data message over INT_MAX bytes is refused before a byte of it is
     * copied; the sizes went out first, so the peer refuses it too. */
    int count;
    err = comm_int_count(out_bytes, "a two-phase Bruck step's data", &count);
    if (err == MPI_SUCCESS)
        err = comm_int_count(in_bytes, "a two-phase Bruck step's data",
                             &count);
    if (err == MPI_SUCCESS)
        err = bruck_staging_grow(&s->outgoing, &s->outgoing_size, out_bytes,
                                 0, "send staging");
    if (err == MPI_SUCCESS) {
        bruck_pack_blocks(x, s, k, n, s->positions, s->outgoing);
        err = bruck_staging_grow(&s->incoming, &s->incoming_size, in_bytes,
                                 0, "receive staging");
    }
    if (err == MPI_SUCCESS)
        err = comm_step_exchange(x, k, s->outgoing, out_bytes, s->incoming,
                                 in_bytes, TAG_DATA + k, 0);
    if (err == MPI_SUCCESS) {
        bruck_arrival a = {{s->incoming, NULL}, {in_bytes, 0}};
        err = bruck_unpack_blocks(x, s, k, n, s->positions, s->sizes_in, &a);
    }
    return err;
}

int comm_two_phase_bruck_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size;
    int err = comm_copy_self(x);
    if (x->carry)
        comm_carry_begin(x->carry, x, 2);
    if (err != MPI_SUCCESS || P == 1)
        return err;
    bruck_state s = {0};
    err = bruck_state_allocate(&s, P, 2, "two-phase Bruck");
    for (int k = 0; err == MPI_SUCCESS && k < ravel_bruck_steps(P); k++)
        err = two_phase_step(x, &s, k);
    bruck_state_release(&s);
    return err;
}

int ravel_alltoallv_two_phase_bruck(const void *sendbuf,
                                    const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[],
                                    const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel(comm_two_phase_bruck_kernel, "two-phase-bruck",
                           sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, comm);
}
