/* The global statistics of an alltoallv call (ravel_call_stats), agreed on
 * in one of two ways:
 *  - before the call, by one allreduce of 9 words: 6 maxima and 2 sums,
 *    plus a flag with which a rank that failed before the call tells the
 *    others, so that no rank waits for one that will never come (auto
 *    while a pattern is new, and ravel-a2a for its predictions);
 *  - during the call, carried along its own messages (comm_carry, below):
 *    what auto uses to choose the next call's backend without a collective
 *    of its own. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "ravel/error.h"

#include <string.h>

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

/* The reduction of the fields: maxima, then sums (created once). */
static int stats_op(MPI_Op *out)
{
    static MPI_Op op = MPI_OP_NULL;
    int err = MPI_SUCCESS;
    if (op == MPI_OP_NULL)
        err = MPI_Op_create(stats_reduce, 1, &op);
    *out = op;
    return err;
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

/* Adds the block this rank sends rank i (`out` bytes) and the one it
 * receives from i (`in`) to its share of the statistics. */
static void add_pair(uint64_t f[NFIELDS], int self, uint64_t out,
                     uint64_t in)
{
    if (self) {
        f[F_SELF] = out;
        return;
    }
    f[F_BLOCK] = out > f[F_BLOCK] ? out : f[F_BLOCK];
    f[F_SEND] += out;
    f[F_RECV] += in;
    f[F_NS] += out > 0;
    f[F_NR] += in > 0;
    f[F_TOTAL] += out;
    f[F_NONEMPTY] += out > 0;
}

/* This rank's share of the statistics of an exchange seen as bytes. */
static void exchange_fields(const comm_exchange *x, uint64_t f[NFIELDS])
{
    for (int i = 0; i < x->ctx->size; i++)
        add_pair(f, i == x->ctx->rank, x->send_bytes[i], x->recv_bytes[i]);
}

static ravel_call_stats stats_of_fields(int P, const uint64_t f[NFIELDS])
{
    return (ravel_call_stats){P,        f[F_BLOCK], f[F_SEND],
                              f[F_RECV], f[F_TOTAL], f[F_NONEMPTY],
                              f[F_NS],   f[F_NR],    f[F_SELF]};
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
        add_pair(f, i == ctx->rank,
                 (uint64_t)sendcounts[i] * (uint64_t)ssize,
                 (uint64_t)recvcounts[i] * (uint64_t)rsize);
    }
    return MPI_SUCCESS;
}

/* The global statistics, by one allreduce that also tells every rank
 * whether any failed before it (`failed`: this rank's error code). */
int comm_agree_on_stats(const int sendcounts[], MPI_Datatype sendtype,
                          const int recvcounts[], MPI_Datatype recvtype,
                          int failed, comm_context *ctx, ravel_call_stats *s)
{
    uint64_t mine[NFIELDS] = {0}, all[NFIELDS];
    MPI_Op op;
    int err = stats_op(&op);
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
    *s = stats_of_fields(ctx->size, all);
    return MPI_SUCCESS;
}

/* ---- the agreement carried by an exchange ------------------------------
 *
 * Dissemination along the exchange's own messages.  In round k of a radix
 * r exchange every rank y hears from y - d r^k for each digit d that has
 * positions.  Write W_k(y) for the fields of the r^k ranks ending at y and
 * A_k(y) for the sums over the t_k = P mod r^k ranks ending at y (A_0 = 0).
 * A rank sends W_k and A_k of itself in round k, and then
 *     W_{k+1}(y) = W_k(y) + sum_{d=1}^{r-1} W_k(y - d r^k)
 *     A_{k+1}(y) = sum_{d=0}^{c_k-1} W_k(y - d r^k) + A_k(y - c_k r^k)
 * where c_k is digit k of P (in the last round K, c_K = P div r^K, which
 * may be r), since t_{k+1} = c_k r^k + t_k, and the last round's A is the
 * sum over exactly P ranks: all of them, once each.  The messages needed
 * exist: in rounds before the last every digit has positions, and in the
 * last the digits up to c_K - 1 do, and c_K whenever t_K > 0 (where
 * t_K = 0, A_K = 0 and nothing is missed).  Maxima tolerate a rank counted
 * twice, so they take the W of every message. */

enum { W_MAX = 0, W_SUM = CARRY_MAX_FIELDS, A_SUM = CARRY_FIELDS };

/* The fields of the carry, in the allreduce's order. */
static const int carry_field[CARRY_FIELDS] = {F_BLOCK, F_SEND, F_RECV,
                                              F_NS,    F_NR,   F_SELF,
                                              F_TOTAL, F_NONEMPTY};

/* c_k of the comment above. */
static int carry_digit(const comm_carry *c, int k)
{
    int stride = ravel_radix_stride(c->radix, k);
    return k == c->rounds - 1 ? c->P / stride : (c->P / stride) % c->radix;
}

/* Round k begins with this rank's own terms (d = 0). */
static void carry_round_start(comm_carry *c, int k)
{
    int digit = carry_digit(c, k);
    memcpy(c->next_window, c->window, sizeof c->window);
    for (int i = 0; i < CARRY_SUM_FIELDS; i++)
        c->next_partial[i] = digit == 0 ? c->partial[i]
                                        : c->window[CARRY_MAX_FIELDS + i];
}

static void carry_finish(comm_carry *c)
{
    uint64_t f[NFIELDS] = {0};
    for (int i = 0; i < CARRY_MAX_FIELDS; i++)
        f[carry_field[i]] = c->window[i];
    for (int i = 0; i < CARRY_SUM_FIELDS; i++)
        f[carry_field[CARRY_MAX_FIELDS + i]] =
            c->rounds ? c->partial[i] : c->window[CARRY_MAX_FIELDS + i];
    c->agreed = stats_of_fields(c->P, f);
    c->done = 1;
}

void comm_carry_begin(comm_carry *c, const comm_exchange *x, int radix)
{
    const int P = x->ctx->size;
    uint64_t f[NFIELDS] = {0};
    exchange_fields(x, f);
    memset(c, 0, sizeof *c);
    c->P = P;
    c->radix = radix < P ? radix : P;
    c->rounds = P > 1 ? ravel_radix_rounds(P, c->radix) : 0;
    for (int i = 0; i < CARRY_FIELDS; i++)
        c->window[i] = f[carry_field[i]];
    if (c->rounds == 0)
        carry_finish(c);
    else
        carry_round_start(c, 0);
}

void comm_carry_pack(const comm_carry *c, void *to)
{
    uint64_t words[CARRY_WORDS];
    memcpy(words, c->window, sizeof c->window);
    memcpy(words + A_SUM, c->partial, sizeof c->partial);
    memcpy(to, words, sizeof words);
}

void comm_carry_receive(comm_carry *c, int k, int d, const void *from)
{
    uint64_t w[CARRY_WORDS];
    memcpy(w, from, sizeof w); /* a header need not be aligned */
    for (int i = W_MAX; i < W_SUM; i++)
        c->next_window[i] = w[i] > c->next_window[i] ? w[i]
                                                     : c->next_window[i];
    int digit = carry_digit(c, k);
    for (int i = 0; i < CARRY_SUM_FIELDS; i++) {
        c->next_window[W_SUM + i] += w[W_SUM + i];
        if (d < digit)
            c->next_partial[i] += w[W_SUM + i];
        else if (d == digit) /* A_k = 0 where t_k = 0 */
            c->next_partial[i] += w[A_SUM + i];
    }
}

void comm_carry_round_end(comm_carry *c, int k)
{
    memcpy(c->window, c->next_window, sizeof c->window);
    memcpy(c->partial, c->next_partial, sizeof c->partial);
    if (k == c->rounds - 1)
        carry_finish(c);
    else
        carry_round_start(c, k + 1);
}

int comm_carry_allreduce(comm_carry *c, const comm_exchange *x,
                         size_t *max_block)
{
    uint64_t mine[NFIELDS] = {0}, all[NFIELDS];
    exchange_fields(x, mine);
    MPI_Op op;
    int err = stats_op(&op);
    if (err == MPI_SUCCESS)
        err = ravel_comm_allreduce(mine, all, NFIELDS, MPI_UINT64_T, op,
                                   x->ctx->comm);
    if (err != MPI_SUCCESS)
        return err;
    c->agreed = stats_of_fields(x->ctx->size, all);
    c->done = 1;
    *max_block = (size_t)(all[F_BLOCK] > all[F_SELF] ? all[F_BLOCK]
                                                     : all[F_SELF]);
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
