/* The context ravel caches on a caller's communicator: a private duplicate
 * (so internal messages never match the caller's) and the waiting mode.
 *
 * The context hangs on the caller's communicator as an MPI attribute, the
 * way MPI libraries cache their own collective state: it is found again in
 * O(1) on every call, and freed by the attribute's delete callback when the
 * caller frees the communicator (or at MPI_Finalize for the predefined ones). */
#include "comm_internal.h"

#include "ravel/error.h"
#include "ravel/options.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int context_keyval = MPI_KEYVAL_INVALID;

/* The last communicator looked up and its context.  MPI_Comm_get_attr
 * costs some 0.01 to 0.02 us, and at 2 ranks a call of small blocks takes
 * 0.2 us; an iterated exchange asks for the same communicator's context
 * at every call (twice under auto).  The delete callback forgets it, so a
 * freed communicator's handle, reused by MPI for a new one, finds nothing
 * here. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static comm_context *last_ctx;

static int free_context(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    comm_context *ctx = attr;
    if (ctx == last_ctx) {
        last_comm = MPI_COMM_NULL;
        last_ctx = NULL;
    }
    comm_shm_free(ctx); /* its window lives on ctx->comm */
    comm_two_level_free(ctx);
    int err = ctx->owns_comm ? MPI_Comm_free(&ctx->comm) : MPI_SUCCESS;
    free(ctx);
    return err;
}

/* The waiting mode: RAVEL_WAIT's, or by default yield when any node runs
 * more of this communicator's ranks than it has cores (`crowded`, agreed
 * by every rank: a rank waiting in a blocking collective and another in
 * its nonblocking form, as the two modes would do, never match). */
static int choose_wait_mode(comm_context *ctx, int crowded)
{
    const char *env = getenv("RAVEL_WAIT");
    if (env && strcmp(env, "yield") == 0) {
        ctx->wait = RAVEL_WAIT_YIELD;
        return MPI_SUCCESS;
    }
    if (env && strcmp(env, "block") == 0) {
        ctx->wait = RAVEL_WAIT_BLOCK;
        return MPI_SUCCESS;
    }
    if (env && *env && strcmp(env, "auto") != 0)
        return ravel_error_set(MPI_ERR_ARG,
                               "RAVEL_WAIT='%s' is not one of auto, yield, "
                               "block",
                               env);
    ctx->wait = crowded ? RAVEL_WAIT_YIELD : RAVEL_WAIT_BLOCK;
    return MPI_SUCCESS;
}

/* RAVEL_NODE_SIZE=k, for tests only: every node is split into fake nodes
 * of k consecutive ranks (of MPI_COMM_WORLD), so that node-aware code meets several nodes on
 * one machine.  0 when unset. */
static int fake_node_size(int *k)
{
    const char *env = getenv("RAVEL_NODE_SIZE");
    *k = 0;
    if (!env || !*env)
        return MPI_SUCCESS;
    uint64_t v = 0;
    if (ravel_parse_u64(env, &v) != 0 || v < 1 || v > 1000000000u)
        return ravel_error_set(MPI_ERR_ARG, "RAVEL_NODE_SIZE='%s' is not a "
                               "whole number of ranks >= 1 (it splits every "
                               "node into fake nodes of that many "
                               "consecutive ranks, for tests)", env);
    *k = (int)v;
    return MPI_SUCCESS;
}

/* Cuts *node (the ranks of one real node, in comm's order) into
 * RAVEL_NODE_SIZE's fake nodes: by MPI_COMM_WORLD rank, so that every
 * communicator, sub-communicators included, sees the same fake nodes. */
static int cut_fake(MPI_Comm *node, int fake)
{
    int world, rank;
    MPI_Comm part;
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(*node, &rank);
    int err = MPI_Comm_split(*node, world / fake, rank, &part);
    MPI_Comm_free(node);
    if (err == MPI_SUCCESS)
        *node = part;
    return err;
}

int comm_node_comm(MPI_Comm comm, MPI_Comm *node)
{
    int fake;
    int err = fake_node_size(&fake);
    if (err != MPI_SUCCESS)
        return err;
    err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                              node);
    if (err != MPI_SUCCESS || fake == 0)
        return err;
    return cut_fake(node, fake);
}

/* The most ranks of ctx's communicator on one (fake) node, and whether
 * some node has more of them than cores (*crowded): the same on every
 * rank. */
static int count_node_ranks(comm_context *ctx, int *crowded)
{
    int fake;
    int err = fake_node_size(&fake);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm node;
    err = MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0,
                              MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        return err;
    int here;
    MPI_Comm_size(node, &here);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int mine[2] = {here, cores > 0 && here > cores}, most[2];
    if (fake > 0)
        err = cut_fake(&node, fake);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Comm_size(node, &mine[0]);
    MPI_Comm_free(&node);
    err = MPI_Allreduce(mine, most, 2, MPI_INT, MPI_MAX, ctx->comm);
    ctx->node_ranks = most[0];
    *crowded = most[1];
    return err;
}

int comm_context_get(MPI_Comm user, comm_context **out)
{
    int err, found = 0;
    if (user == MPI_COMM_NULL)
        return ravel_error_set(MPI_ERR_COMM, "the communicator is MPI_COMM_NULL");
    if (user == last_comm) {
        *out = last_ctx;
        return MPI_SUCCESS;
    }
    if (context_keyval == MPI_KEYVAL_INVALID) {
        err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_context,
                                     &context_keyval, NULL);
        if (err != MPI_SUCCESS)
            return err;
    }
    comm_context *ctx = NULL;
    err = MPI_Comm_get_attr(user, context_keyval, &ctx, &found);
    if (err != MPI_SUCCESS)
        return err;
    if (found) {
        last_comm = user;
        last_ctx = ctx;
        *out = ctx;
        return MPI_SUCCESS;
    }
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for a context");
#ifdef RAVEL_COMM_NO_DUP
    /* The SimGrid build: SMPI's communicator creation costs the host far
     * more than O(P^2) (8 s at 512 simulated ranks, over 20 minutes at
     * 4096), and ravel-a2a, the only program built there, sends nothing
     * else on its communicator. */
    ctx->comm = user;
#else
    err = MPI_Comm_dup(user, &ctx->comm);
    if (err != MPI_SUCCESS) {
        free(ctx);
        return err;
    }
    ctx->owns_comm = 1;
#endif
    MPI_Comm_rank(ctx->comm, &ctx->rank);
    MPI_Comm_size(ctx->comm, &ctx->size);
    ctx->last_choice = -1;
    int crowded = 0;
    err = count_node_ranks(ctx, &crowded);
    if (err == MPI_SUCCESS)
        err = choose_wait_mode(ctx, crowded);
    if (err != MPI_SUCCESS)
        goto fn_fail_dup;
    err = MPI_Comm_set_attr(user, context_keyval, ctx);
    if (err != MPI_SUCCESS)
        goto fn_fail_dup;
    *out = ctx;
    return MPI_SUCCESS;
fn_fail_dup:
    if (ctx->owns_comm)
        MPI_Comm_free(&ctx->comm);
    free(ctx);
    return err;
}

/* MPICH's headers annotate MPI_Waitall/MPI_Testall with access sizes that
 * make GCC 12 mistake MPI_STATUSES_IGNORE (a sentinel, not an array) for a
 * zero-sized buffer. */
#if defined(__GNUC__) && !defined(__clang__) /* clang has no such warning */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int comm_waitall(const comm_context *ctx, int n, MPI_Request requests[])
{
    comm_charge_flush();
    if (ctx->wait == RAVEL_WAIT_BLOCK)
        return MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    for (;;) {
        int done = 0;
        int err = MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
        if (err != MPI_SUCCESS || done)
            return err;
        sched_yield();
    }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

int ravel_comm_wait_mode(MPI_Comm comm, ravel_wait_mode *mode)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err == MPI_SUCCESS)
        *mode = ctx->wait;
    return err;
}

int ravel_comm_waitall(MPI_Comm comm, int n, MPI_Request requests[])
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    return comm_waitall(ctx, n, requests);
}

int comm_allreduce(const comm_context *ctx, const void *sendbuf,
                   void *recvbuf, int count, MPI_Datatype type, MPI_Op op)
{
    comm_charge_flush();
    if (ctx->wait == RAVEL_WAIT_BLOCK)
        return MPI_Allreduce(sendbuf, recvbuf, count, type, op, ctx->comm);
    MPI_Request request;
    int err = MPI_Iallreduce(sendbuf, recvbuf, count, type, op, ctx->comm,
                             &request);
    if (err != MPI_SUCCESS)
        return err;
    return comm_waitall(ctx, 1, &request);
}

int ravel_comm_allreduce(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    return comm_allreduce(ctx, sendbuf, recvbuf, count, type, op);
}

int comm_barrier(const comm_context *ctx)
{
    comm_charge_flush();
    if (ctx->wait == RAVEL_WAIT_BLOCK)
        return MPI_Barrier(ctx->comm);
    MPI_Request request;
    int err = MPI_Ibarrier(ctx->comm, &request);
    if (err != MPI_SUCCESS)
        return err;
    return comm_waitall(ctx, 1, &request);
}

int ravel_comm_barrier(MPI_Comm comm)
{
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return err;
    return comm_barrier(ctx);
}
