/* pairwise: P-1 steps, one exchange in flight (Thakur, Rabenseifner and
 * Gropp, "Optimization of Collective Communication Operations in MPICH",
 * IJHPCA 2005: MPICH's long-message alltoall).
 *
 * At step i (1 <= i < P) a rank sends to one peer and receives from one
 * peer, then waits for both before the next step.  When P is a power of two
 * the peer is rank XOR i, the same one both ways, so every step is P/2
 * disjoint pairs; otherwise the rank sends to rank + i and receives from
 * rank - i, which gives every rank exactly one sender and one receiver per
 * step.  Empty blocks are skipped on both sides (both know the size); the
 * own block is copied while the first step is on the wire.
 *
 * Against spread-out (the same messages, 16 rounds per batch): one message
 * pair at a time never floods a receiver or the network, so nothing waits
 * in an unexpected-message queue, at the price of one latency per step:
 * (P-1) alpha in all.  It is for long blocks, where that latency is lost
 * in the transfer time. */
#include "comm_internal.h"

enum { TAG_PAIRWISE = 15 };

static int is_power_of_two(int P) { return (P & (P - 1)) == 0; }

int comm_pairwise_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    if (P == 1)
        return comm_copy_self(x);
    const int xor_pairs = is_power_of_two(P);
    int err = MPI_SUCCESS;
    for (int i = 1; i < P && err == MPI_SUCCESS; i++) {
        int to = xor_pairs ? me ^ i : (me + i) % P;
        int from = xor_pairs ? me ^ i : (me - i + P) % P;
        MPI_Request requests[2];
        int n = 0;
        if (x->recv_bytes[from] > 0) {
            err = comm_irecv(x->recvbuf + x->recv_offset[from],
                             x->recv_bytes[from], from, TAG_PAIRWISE, x->ctx,
                             &requests[n]);
            if (err == MPI_SUCCESS)
                n++;
        }
        if (err == MPI_SUCCESS && x->send_bytes[to] > 0) {
            err = comm_isend(x->sendbuf + x->send_offset[to],
                             x->send_bytes[to], to, TAG_PAIRWISE, x->ctx,
                             &requests[n], 0);
            if (err == MPI_SUCCESS)
                n++;
        }
        if (i == 1 && err == MPI_SUCCESS)
            err = comm_copy_self(x);
        int wait_err = comm_waitall(x->ctx, n, requests);
        if (err == MPI_SUCCESS)
            err = wait_err;
    }
    return err;
}

int ravel_alltoallv_pairwise(const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return comm_run_kernel(comm_pairwise_kernel, "pairwise", sendbuf,
                           sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
}
