/* The global statistics of an alltoallv call (ravel_call_stats), agreed on
 * by one allreduce of 9 words: 6 maxima and 2 sums, plus a flag with which
 * a rank that failed before the call tells the others, so that no rank
 * waits for one that will never come.  Used by auto and, for its
 * predictions, by ravel-a2a. */
#include "comm_internal.h"

#include "ravel/error.h"

enum { F_BLOCK, F_SEND, F_RECV, F_NS, F_NR, F_SELF, F_FAILED, NMAX,
       F_TOTAL = NMAX, F_NONEMPTY, NFIELDS };

static void stats_reduce(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i < *len; i++) {
        if (i % NFIELDS < NMAX)
            b[i] = a[i] > b[i] ? a[i] : b[i];
        else
            b[i] += a[i];
    }
}

/* The size of one element of `type`, checked as the backends check it. */
static int element_size(MPI_Datatype type, const char *side, int *size)
{
    if (type == MPI_DATATYPE_NULL)
        return ravel_error_set(MPI_ERR_TYPE, "the %s datatype is "
                               "MPI_DATATYPE_NULL", side);
    int err = MPI_Type_size(type, size);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "the %s datatype is not valid "
                               "(not committed?)", side);
    return MPI_SUCCESS;
}

/* This rank's share of the statistics, in bytes. */
static int local_fields(const int sendcounts[], MPI_Datatype sendtype,
                        const int recvcounts[], MPI_Datatype recvtype,
                        const comm_context *ctx, uint64_t f[NFIELDS])
{
    int ssize, rsize;
    int err = element_size(sendtype, "send", &ssize);
    if (err == MPI_SUCCESS)
        err = element_size(recvtype, "receive", &rsize);
    if (err != MPI_SUCCESS)
        return err;
    for (int i = 0; i < ctx->size; i++) {
        if (sendcounts[i] < 0)
            return ravel_error_set(MPI_ERR_COUNT, "sendcounts[%d] = %d is "
                                   "negative", i, sendcounts[i]);
        if (recvcounts[i] < 0)
            return ravel_error_set(MPI_ERR_COUNT, "recvcounts[%d] = %d is "
                                   "negative", i, recvcounts[i]);
        uint64_t out = (uint64_t)sendcounts[i] * (uint64_t)ssize;
        uint64_t in = (uint64_t)recvcounts[i] * (uint64_t)rsize;
        if (i == ctx->rank) {
            f[F_SELF] = out;
            continue;
        }
        f[F_BLOCK] = out > f[F_BLOCK] ? out : f[F_BLOCK];
        f[F_SEND] += out;
        f[F_RECV] += in;
        f[F_NS] += out > 0;
        f[F_NR] += in > 0;
    }
    f[F_TOTAL] = f[F_SEND];
    f[F_NONEMPTY] = f[F_NS];
    return MPI_SUCCESS;
}

/* The global statistics, by one allreduce that also tells every rank
 * whether any failed before it (`failed`: this rank's error code). */
int comm_agree_on_stats(const int sendcounts[], MPI_Datatype sendtype,
                          const int recvcounts[], MPI_Datatype recvtype,
                          int failed, comm_context *ctx, ravel_call_stats *s)
{
    static MPI_Op op = MPI_OP_NULL;
    uint64_t mine[NFIELDS] = {0}, all[NFIELDS];
    int err = MPI_SUCCESS;
    if (op == MPI_OP_NULL)
        err = MPI_Op_create(stats_reduce, 1, &op);
    if (err != MPI_SUCCESS)
        return err;
    if (failed == MPI_SUCCESS)
        failed = local_fields(sendcounts, sendtype, recvcounts, recvtype, ctx,
                              mine);
    mine[F_FAILED] = (uint64_t)(failed != MPI_SUCCESS);
    err = ravel_comm_allreduce(mine, all, NFIELDS, MPI_UINT64_T, op,
                               ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    if (all[F_FAILED])
        return failed != MPI_SUCCESS
                   ? failed
                   : ravel_error_set(MPI_ERR_OTHER, "auto: another rank "
                                        "failed before the exchange");
    *s = (ravel_call_stats){ctx->size,   all[F_BLOCK], all[F_SEND],
                            all[F_RECV], all[F_TOTAL], all[F_NONEMPTY],
                            all[F_NS],   all[F_NR],    all[F_SELF]};
    return MPI_SUCCESS;
}


int ravel_comm_call_stats(const void *sendbuf, const int sendcounts[],
                          MPI_Datatype sendtype, const int recvcounts[],
                          MPI_Datatype recvtype, MPI_Comm comm,
                          ravel_call_stats *s)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    if (sendbuf == MPI_IN_PLACE)
        return comm_agree_on_stats(recvcounts, recvtype, recvcounts,
                                   recvtype, MPI_SUCCESS, ctx, s);
    return comm_agree_on_stats(sendcounts, sendtype, recvcounts, recvtype,
                               MPI_SUCCESS, ctx, s);
}
