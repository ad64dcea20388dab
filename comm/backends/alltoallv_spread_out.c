/* spread-out: a direct exchange with every peer, throttled.
 *
 * At round i (1 <= i < P) a rank receives from rank - i and sends to
 * rank + i, so at every round each rank has exactly one sender and one
 * receiver and no rank is a hot spot.  Rounds are posted in batches of
 * throttle/2 (a receive and a send each), and a batch completes before the
 * next is posted: at most `throttle` requests are in flight.  Empty blocks
 * are skipped on both sides (both know the size), the own block is a memcpy.
 * This is MPICH's default "scattered" alltoallv.
 *
 * Cost: P-1 messages per rank in the worst case, latency (P-1)*alpha,
 * bandwidth exactly the data (no forwarding, no padding).  It wins for large
 * or very uneven blocks and for small P; for many small blocks at large P the
 * per-message cost dominates and Bruck-style exchanges win. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <stdlib.h>

enum { TAG_SPREAD_OUT = 11, SMALL_BATCH = 32 };

int comm_spread_out_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    if (P == 1)
        return comm_copy_self(x);
    int err = MPI_SUCCESS;
    int batch = ravel_comm_spread_out_throttle() / 2;
    if (batch > P - 1)
        batch = P - 1;
    /* The default throttle's requests on the stack: a malloc and free
     * were some 0.015 us of a 0.3 us call of small blocks at 2 ranks. */
    MPI_Request requests_here[2 * SMALL_BATCH];
    MPI_Request *requests =
        batch <= SMALL_BATCH ? requests_here
                             : malloc(2 * (size_t)batch * sizeof *requests);
    if (!requests)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %d requests",
                               2 * batch);
    for (int first = 1; first < P && err == MPI_SUCCESS; first += batch) {
        int n = 0;
        for (int i = first; i < first + batch && i < P; i++) {
            int from = (me - i + P) % P, to = (me + i) % P;
            if (x->recv_bytes[from] > 0) {
                err = comm_irecv(x->recvbuf + x->recv_offset[from],
                                 x->recv_bytes[from], from, TAG_SPREAD_OUT,
                                 x->ctx, &requests[n]);
                if (err != MPI_SUCCESS)
                    break;
                n++;
            }
            if (x->send_bytes[to] > 0) {
                err = comm_isend(x->sendbuf + x->send_offset[to],
                                 x->send_bytes[to], to, TAG_SPREAD_OUT,
                                 x->ctx, &requests[n], 0);
                if (err != MPI_SUCCESS)
                    break;
                n++;
            }
        }
        /* The own block is copied while the first batch is on the wire:
         * the peers can move their data meanwhile. */
        if (first == 1 && err == MPI_SUCCESS)
            err = comm_copy_self(x);
        int wait_err = comm_waitall(x->ctx, n, requests);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    if (requests != requests_here)
        free(requests);
    return err;
}

int ravel_alltoallv_spread_out(const void *sendbuf, const int sendcounts[],
                               const int sdispls[], MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    return comm_run_kernel(comm_spread_out_kernel, "spread-out", sendbuf,
                           sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
}
