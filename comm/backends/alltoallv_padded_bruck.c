/* padded-bruck: Bruck's log-step all-to-all on blocks padded to one size.
 *
 * An MPI_Allreduce finds the largest block M; then ceil(log2 P) steps follow.
 * At step k a rank packs every block whose distance j (dst - rank mod P) has
 * bit k set, M bytes each, sends them in one message to rank + 2^k and
 * receives as many from rank - 2^k.  There are no rotation phases (the
 * zero-rotation variant of Fan et al., HPDC'22): a block that has not moved
 * yet is read straight from the caller's send buffer, a block on its last hop
 * goes straight to the receive buffer (cut to its receive count), and only
 * blocks still in transit are kept, in a working buffer of P slots of M.
 *
 * Cost: ceil(log2 P) messages per rank (latency log P * alpha) carrying in
 * all sum_{b=1}^{P-1} popcount(b) ~ (P/2) log2 P padded blocks (bandwidth
 * M * (P/2) log2 P).  It wins for small blocks (up to some tens to hundreds
 * of bytes) at large P, where P-1 message latencies cost more than moving
 * each block log P times. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_PADDED_BRUCK = 40 }; /* + step */

typedef struct {
    size_t M;         /* the padded block size */
    int *positions;   /* the positions that move at the current step */
    char *outgoing;   /* one step's packed blocks */
    char *incoming;   /* one step's received blocks */
    char *in_transit; /* P slots of M bytes, slot j for position j */
} padded_bruck_buffers;

static int allocate(padded_bruck_buffers *b, int P)
{
    size_t most = (size_t)ravel_bruck_max_step_positions(P);
    /* Zeroed: gcc, inlining the size check, loses sight of its error
     * return before they are read. */
    size_t step_bytes = 0, transit_bytes = 0;
    int err = comm_padded_bruck_sizes(P, b->M, &step_bytes, &transit_bytes);
    if (err != MPI_SUCCESS)
        return err;
    b->positions = malloc(most * sizeof *b->positions);
    /* padding is sent: define it */
    b->outgoing = comm_payload_alloc(step_bytes, 1);
    b->incoming = comm_payload_alloc(step_bytes, 0);
    b->in_transit = comm_payload_alloc(transit_bytes, 0);
    if (!b->positions || !b->outgoing || !b->incoming || !b->in_transit)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for padded "
                               "Bruck buffers (%zu bytes per step, %zu in "
                               "transit)", step_bytes, transit_bytes);
    return MPI_SUCCESS;
}

int comm_padded_bruck_sizes(int P, size_t M, size_t *step_bytes,
                            size_t *all_bytes)
{
    size_t most = (size_t)ravel_bruck_max_step_positions(P);
    if (ravel_mul_size(most, M, step_bytes) ||
        ravel_mul_size((size_t)P, M, all_bytes))
        return ravel_error_set(MPI_ERR_COUNT, "%d padded blocks of %zu bytes "
                               "overflow size_t", P, M);
    int count;
    return comm_int_count(*step_bytes, "a padded Bruck step", &count);
}

static void pack_step(const comm_exchange *x, const padded_bruck_buffers *b,
                      int k, int n)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    for (int i = 0; i < n; i++) {
        int j = b->positions[i];
        char *slot = b->outgoing + (size_t)i * b->M;
        if (ravel_bruck_is_original(j, k)) {
            int dst = (me + j) % P;
            if (x->send_bytes[dst]) /* else sendbuf may be NULL */
                comm_copy(slot, x->sendbuf + x->send_offset[dst],
                          x->send_bytes[dst]);
        } else {
            comm_copy(slot, b->in_transit + (size_t)j * b->M, b->M);
        }
    }
}

static int unpack_step(const comm_exchange *x, const padded_bruck_buffers *b,
                       int k, int n)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    for (int i = 0; i < n; i++) {
        int j = b->positions[i];
        const char *slot = b->incoming + (size_t)i * b->M;
        if (ravel_bruck_last_step(j) == k) {
            int src = ((me - j) % P + P) % P;
            if (x->recv_bytes[src] > b->M)
                return ravel_error_set(MPI_ERR_TRUNCATE, "rank %d expects %zu "
                                       "bytes from rank %d, more than any "
                                       "rank sent", me, x->recv_bytes[src],
                                       src);
            if (x->recv_bytes[src]) /* else recvbuf may be NULL */
                comm_copy(x->recvbuf + x->recv_offset[src], slot,
                          x->recv_bytes[src]);
        } else {
            comm_copy(b->in_transit + (size_t)j * b->M, slot, b->M);
        }
    }
    return MPI_SUCCESS;
}

int comm_padded_bruck_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size;
    padded_bruck_buffers b = {0};
    int err = comm_copy_self(x);
    if (err == MPI_SUCCESS && P > 1)
        err = comm_global_max_block(x, &b.M);
    if (err != MPI_SUCCESS || P == 1 || b.M == 0)
        return err;
    err = allocate(&b, P);
    for (int k = 0; err == MPI_SUCCESS && k < ravel_bruck_steps(P); k++) {
        int n = ravel_bruck_step_positions(P, k, b.positions);
        size_t bytes = (size_t)n * b.M;
        pack_step(x, &b, k, n);
        err = comm_step_exchange(x, k, b.outgoing, bytes, b.incoming, bytes,
                                 TAG_PADDED_BRUCK + k, 0);
        if (err == MPI_SUCCESS)
            err = unpack_step(x, &b, k, n);
    }
    free(b.positions);
    comm_payload_free(b.outgoing);
    comm_payload_free(b.incoming);
    comm_payload_free(b.in_transit);
    return err;
}

int ravel_alltoallv_padded_bruck(const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
    return comm_run_kernel(comm_padded_bruck_kernel, "padded-bruck", sendbuf,
                           sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
}
