/* padded-alltoall: turn the irregular exchange into a regular one.
 *
 * An MPI_Allreduce finds the largest block M any rank sends; every block is
 * copied into a slot of M bytes, MPI_Alltoall moves the P*M bytes, and the
 * real data is cut out of each slot by the receive counts.
 *
 * Cost: one allreduce (log P latency) plus the vendor alltoall on M-byte
 * blocks, i.e. P*M bytes per rank whatever the real sizes.  It wins when
 * blocks are small and nearly uniform, where the regular alltoall's
 * algorithms (Bruck for small M) beat a per-peer exchange; it loses in
 * proportion to the skew max/mean. */
#include "comm_internal.h"

#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

int comm_padded_alltoall_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    size_t M;
    int err = comm_global_max_block(x, &M);
    if (err != MPI_SUCCESS)
        return err;
    if (M == 0)
        return MPI_SUCCESS; /* nothing anywhere to move */
    int slot;
    size_t total;
    err = comm_int_count(M, "a padded block", &slot);
    if (err != MPI_SUCCESS)
        return err;
    if (ravel_mul_size(M, (size_t)P, &total))
        return ravel_error_set(MPI_ERR_COUNT, "%d padded blocks of %zu bytes "
                               "overflow size_t", P, M);
    /* calloc: padding is sent, and should be defined bytes. */
    char *staged = comm_payload_alloc(total, 1);
    char *arrived = comm_payload_alloc(total, 0);
    if (!staged || !arrived) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for 2 x %zu "
                              "bytes of padded blocks", total);
        goto fn_exit;
    }
    for (int i = 0; i < P; i++)
        if (x->send_bytes[i]) /* else sendbuf may be NULL */
            comm_copy(staged + (size_t)i * M, x->sendbuf + x->send_offset[i],
                      x->send_bytes[i]);
    comm_charge_flush();
    if (x->ctx->wait == RAVEL_WAIT_BLOCK) {
        err = MPI_Alltoall(staged, slot, MPI_BYTE, arrived, slot, MPI_BYTE,
                           x->ctx->comm);
    } else {
        MPI_Request request;
        err = MPI_Ialltoall(staged, slot, MPI_BYTE, arrived, slot, MPI_BYTE,
                            x->ctx->comm, &request);
        if (err == MPI_SUCCESS)
            err = comm_waitall(x->ctx, 1, &request);
    }
    if (err != MPI_SUCCESS)
        goto fn_exit;
    comm_stats_add((uint64_t)(P - 1), (uint64_t)(P - 1) * M);
    for (int i = 0; i < P; i++) {
        if (x->recv_bytes[i] > M) {
            err = ravel_error_set(MPI_ERR_TRUNCATE, "rank %d expects %zu bytes "
                                  "from rank %d, more than any rank sent",
                                  me, x->recv_bytes[i], i);
            goto fn_exit;
        }
        if (x->recv_bytes[i]) /* else recvbuf may be NULL */
            comm_copy(x->recvbuf + x->recv_offset[i], arrived + (size_t)i * M,
                      x->recv_bytes[i]);
    }
fn_exit:
    comm_payload_free(staged);
    comm_payload_free(arrived);
    return err;
}

int ravel_alltoallv_padded_alltoall(const void *sendbuf,
                                    const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[],
                                    const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel(comm_padded_alltoall_kernel, "padded-alltoall",
                           sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                           recvcounts, rdispls, recvtype, comm);
}
