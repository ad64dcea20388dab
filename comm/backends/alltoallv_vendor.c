/* vendor: the MPI library's own MPI_Alltoallv.
 *
 * The baseline every other backend is checked and measured against.  MPICH
 * picks among several algorithms inside (by default the throttled
 * "scattered" exchange for large communicators: P-1 messages per rank,
 * latency (P-1)*alpha, bandwidth the data itself).  When the communicator
 * waits by yielding, the call becomes MPI_Ialltoallv plus a Test/yield loop,
 * so an oversubscribed node is not stalled by busy-polling ranks.  It runs on
 * ravel's duplicate of the communicator, like every backend. */
#include "comm_internal.h"

#include "ravel/error.h"

/* Statistics: the vendor's messages are not visible, so it is counted as
 * the logical exchange: one message per non-empty block to another rank. */
static int count_logical_messages(const int sendcounts[], MPI_Datatype type,
                                  const comm_context *ctx)
{
    int size;
    int err = MPI_Type_size(type, &size);
    if (err != MPI_SUCCESS)
        return err;
    for (int i = 0; i < ctx->size; i++)
        if (i != ctx->rank && sendcounts[i] > 0)
            comm_stats_add(1, (uint64_t)sendcounts[i] * (uint64_t)size);
    return MPI_SUCCESS;
}

int ravel_alltoallv_vendor(const void *sendbuf, const int sendcounts[],
                           const int sdispls[], MPI_Datatype sendtype,
                           void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype,
                           MPI_Comm comm)
{
    ravel_error_clear();
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, "vendor", err);
    comm_charge_flush(); /* the engine's packing, say */
    if (ctx->wait == RAVEL_WAIT_BLOCK) {
        err = MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                            recvcounts, rdispls, recvtype, ctx->comm);
    } else {
        MPI_Request request;
        err = MPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                             recvcounts, rdispls, recvtype, ctx->comm,
                             &request);
        if (err == MPI_SUCCESS)
            err = comm_waitall(ctx, 1, &request);
    }
    if (err == MPI_SUCCESS) {
        if (sendbuf == MPI_IN_PLACE)
            err = count_logical_messages(recvcounts, recvtype, ctx);
        else
            err = count_logical_messages(sendcounts, sendtype, ctx);
    }
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, "vendor", err);
    return MPI_SUCCESS;
}
