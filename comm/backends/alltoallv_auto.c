/* auto: the backend the cost model predicts to be fastest for this call.
 *
 * No rank knows the whole call (each knows its own send and receive
 * counts), so auto first agrees on its global statistics (largest block,
 * largest per-rank send and receive, totals: ravel_call_stats) with one
 * allreduce of 9 words, unless the caller handed them over beforehand
 * with ravel_comm_hint_stats, as the relalg engine does from the counts it
 * exchanges anyway.  Then every rank evaluates the model (cost_model.c) on
 * the same numbers in the same order and calls the same backend: the ranks
 * cannot diverge, and ties go to the earlier backend in the registry.  The
 * model's ranks per node is the communicator's real layout.  A model that
 * cannot be loaded on any rank fails the call on every rank.
 *
 * Cost: the chosen backend's, plus (without a hint) an allreduce,
 * L (alpha + 2 o).  Inside ravel_exchange_run the choice also counts the
 * count exchange that call makes before a backend that cannot discover
 * its receive counts (ravel_cost_choose_exchange).  A call whose statistics and model equal the previous
 * call's on the communicator reuses its choice without evaluating the model
 * again: a program repeating one exchange pattern pays the model once. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <string.h>

static int same_stats(const ravel_call_stats *a, const ravel_call_stats *b)
{
    return a->P == b->P && a->max_block == b->max_block &&
           a->max_send == b->max_send && a->max_recv == b->max_recv &&
           a->total == b->total && a->nonempty == b->nonempty &&
           a->max_nonempty_send == b->max_nonempty_send &&
           a->max_nonempty_recv == b->max_nonempty_recv &&
           a->max_self == b->max_self;
}

/* Whether the last choice on this communicator was made for these
 * statistics and this model: the same on every rank, since both are. */
static int same_choice(const comm_context *ctx, const ravel_call_stats *s,
                       const ravel_cost_params *m, int in_exchange)
{
    const ravel_cost_params *w = &ctx->chosen_with;
    return ctx->last_choice >= 0 && ctx->chosen_in_exchange == in_exchange &&
           same_stats(&ctx->chosen_for, s) &&
           w->alpha == m->alpha && w->beta == m->beta &&
           w->gamma == m->gamma && w->o == m->o &&
           w->ranks_per_node == m->ranks_per_node;
}

static void choose(comm_context *ctx, const ravel_call_stats *s,
                   const ravel_cost_params *m, int in_exchange)
{
    double predicted;
    const char *name = in_exchange
                           ? ravel_cost_choose_exchange(m, s, &predicted)
                           : ravel_cost_choose(m, s, &predicted);
    /* A radix outside the fixed rows joins the table when first looked
     * up, on every rank alike (they choose alike); a table already full
     * of other radices leaves the fixed rows. */
    if (name && !ravel_alltoallv_lookup(name)) {
        ravel_error_clear();
        name = ravel_cost_choose_fixed(m, s, in_exchange, &predicted);
    }
    if (!name) /* no finite prediction: cannot happen with a valid model */
        name = ravel_alltoallv_name(0);
    ctx->last_choice = 0;
    for (size_t i = 0; i < ravel_alltoallv_count(); i++)
        if (strcmp(ravel_alltoallv_name(i), name) == 0)
            ctx->last_choice = (int)i;
    ctx->last_predicted = predicted;
    ctx->chosen_for = *s;
    ctx->chosen_with = *m;
    ctx->chosen_in_exchange = in_exchange;
    ctx->chosen_fn = ravel_alltoallv_lookup(ravel_alltoallv_name(
        (size_t)ctx->last_choice));
}

int comm_auto_decide(comm_context *ctx, const int counts[],
                     MPI_Datatype type, const int recvcounts[],
                     MPI_Datatype recvtype, int in_exchange)
{
    const ravel_cost_params *model = NULL;
    int model_err = ravel_comm_model(&model, NULL), err;
    if (model_err == MPI_SUCCESS)
        comm_model_announce_default();
    ravel_call_stats s;
    if (ctx->hinted) {
        s = ctx->hint;
        s.P = ctx->size;
        ctx->hinted = 0;
        err = model_err;
    } else {
        err = comm_agree_on_stats(counts, type, recvcounts, recvtype,
                                  model_err, ctx, &s);
    }
    if (err != MPI_SUCCESS)
        return err;
    ravel_cost_params m = *model; /* with this communicator's layout */
    m.ranks_per_node = ctx->node_ranks;
    if (!same_choice(ctx, &s, &m, in_exchange))
        choose(ctx, &s, &m, in_exchange);
    return MPI_SUCCESS;
}

int ravel_alltoallv_auto(const void *sendbuf, const int sendcounts[],
                         const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    ravel_error_clear();
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err == MPI_SUCCESS) {
        int in_place = sendbuf == MPI_IN_PLACE;
        err = comm_auto_decide(ctx, in_place ? recvcounts : sendcounts,
                               in_place ? recvtype : sendtype, recvcounts,
                               recvtype, 0);
    }
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, "auto", err);
    return ctx->chosen_fn(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                          recvcounts, rdispls, recvtype, comm);
}
