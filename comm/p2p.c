/* Point-to-point helpers of the backends (counted in accounting.c). */
#include "comm_internal.h"

#include "ravel/error.h"

#include <limits.h>
#include <string.h>

int comm_int_count(size_t n, const char *what, int *out)
{
    if (n > (size_t)INT_MAX)
        return ravel_error_set(MPI_ERR_COUNT,
                               "%s of %zu bytes is more than one MPI message "
                               "can carry (INT_MAX = %d)",
                               what, n, INT_MAX);
    *out = (int)n;
    return MPI_SUCCESS;
}

int comm_isend(const void *buf, size_t bytes, int peer, int tag,
               const comm_context *ctx, MPI_Request *request, int metadata)
{
    int count = 0; /* set by comm_int_count; GCC cannot always tell */
    int err = comm_int_count(bytes, "a message", &count);
    if (err != MPI_SUCCESS)
        return err;
    comm_stats_send(bytes, metadata);
    comm_charge_flush();
    return MPI_Isend(buf, count, MPI_BYTE, peer, tag, ctx->comm, request);
}

int comm_irecv(void *buf, size_t bytes, int peer, int tag,
               const comm_context *ctx, MPI_Request *request)
{
    int count = 0; /* set by comm_int_count; GCC cannot always tell */
    int err = comm_int_count(bytes, "a message", &count);
    if (err != MPI_SUCCESS)
        return err;
    comm_stats_receive();
    comm_charge_flush();
    return MPI_Irecv(buf, count, MPI_BYTE, peer, tag, ctx->comm, request);
}

void comm_copy(void *to, const void *from, size_t bytes)
{
    if (bytes == 0)
        return; /* either side may be a null or one-past-the-end pointer */
    memcpy(to, from, bytes);
    ravel_comm_charge_copy(bytes);
}

int comm_step_exchange(const comm_exchange *x, int k, const void *out,
                       size_t out_bytes, void *in, size_t in_bytes, int tag,
                       int metadata)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int to = (me + (1 << k)) % P, from = ((me - (1 << k)) % P + P) % P;
    MPI_Request requests[2];
    int err = comm_irecv(in, in_bytes, from, tag, x->ctx, &requests[0]);
    if (err != MPI_SUCCESS)
        return err;
    err = comm_isend(out, out_bytes, to, tag, x->ctx, &requests[1], metadata);
    if (err != MPI_SUCCESS) {
        MPI_Cancel(&requests[0]);
        MPI_Request_free(&requests[0]);
        return err;
    }
    return comm_waitall(x->ctx, 2, requests);
}

int comm_recv_block(const comm_exchange *x, int src, size_t len, char **to)
{
    int err = MPI_SUCCESS;
    if (x->inbox) {
        *to = comm_inbox_place(x->inbox, src, len, &err);
        return err;
    }
    if (len != x->recv_bytes[src])
        return ravel_error_set(MPI_ERR_TRUNCATE, "rank %d expects %zu bytes "
                               "from rank %d, which sent %zu", x->ctx->rank,
                               x->recv_bytes[src], src, len);
    /* An empty block may sit at a NULL buffer (legal with zero counts),
     * and NULL + 0 is undefined. */
    *to = len ? x->recvbuf + x->recv_offset[src] : NULL;
    return MPI_SUCCESS;
}

int comm_copy_self(const comm_exchange *x)
{
    int me = x->ctx->rank;
    if (!x->inbox && x->send_bytes[me] != x->recv_bytes[me])
        return ravel_error_set(MPI_ERR_TRUNCATE,
                               "rank %d sends itself %zu bytes but expects %zu",
                               me, x->send_bytes[me], x->recv_bytes[me]);
    char *to;
    int err = comm_recv_block(x, me, x->send_bytes[me], &to);
    if (err == MPI_SUCCESS && to)
        comm_copy(to, comm_send_block(x, me), x->send_bytes[me]);
    return err;
}

int comm_global_max_block(const comm_exchange *x, size_t *max_bytes)
{
    if (x->carry) /* auto's agreement rides in the same allreduce */
        return comm_carry_allreduce(x->carry, x, max_bytes);
    uint64_t local = 0, global = 0;
    for (int i = 0; i < x->ctx->size; i++)
        if (x->send_bytes[i] > local)
            local = x->send_bytes[i];
    /* Block sizes stay far below 2^63: MPICH 4.0's MPI_MAX on MPI_UINT64_T
     * compares as signed. */
    int err;
    comm_charge_flush();
    if (x->ctx->wait == RAVEL_WAIT_BLOCK) {
        /* The blocking collective: MPI libraries (and SimGrid, which runs
         * non-blocking collectives linearly) pick their best algorithm. */
        err = MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_MAX,
                            x->ctx->comm);
    } else {
        MPI_Request request;
        err = MPI_Iallreduce(&local, &global, 1, MPI_UINT64_T, MPI_MAX,
                             x->ctx->comm, &request);
        if (err == MPI_SUCCESS)
            err = comm_waitall(x->ctx, 1, &request);
    }
    if (err == MPI_SUCCESS)
        *max_bytes = (size_t)global;
    return err;
}
