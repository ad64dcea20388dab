/* auto: the backend the cost model predicts to be fastest for this call.
 *
 * No rank knows the whole call (each knows its own send and receive
 * counts), so every rank must choose from statistics all ranks share
 * (largest block, largest per-rank send and receive, totals:
 * ravel_call_stats); then every rank evaluates the model (cost_model.c) on
 * the same numbers in the same order and calls the same backend: the ranks
 * cannot diverge, and ties go to the earlier backend in the registry.  The
 * model's ranks per node is the communicator's real layout.  Where the
 * statistics come from:
 *
 *  - handed over with ravel_comm_hint_stats, as the relalg engine does
 *    from the counts it exchanges anyway: nothing to agree on;
 *  - else, while the exchange pattern is new or changing, agreed by one
 *    allreduce of 9 words before the call, which costs L (alpha + 2 o),
 *    as much as a whole Bruck exchange of small blocks;
 *  - else, once two agreed calls in a row chose the same backend (the
 *    pattern holds), from the last call's statistics, which that call
 *    agreed on along its own messages: the Bruck family carries them in
 *    10 words in front of each header (comm_carry, exact sums and maxima
 *    by dissemination), the padded backends in the allreduce they make
 *    anyway.  So an iterated exchange of small blocks pays no collective
 *    of its own after its first two calls.  A backend that carries
 *    nothing (spread-out, pairwise, vendor, two-level) leaves its call's
 *    statistics unknown: the calls after it choose from the last agreed
 *    ones until their predicted time adds up to 50 allreduces
 *    (AUTO_AGREEMENT_SHARE) or they number 64, then one agrees, so a
 *    pattern that holds on a
 *    direct exchange (large blocks, where an exchange takes many
 *    allreduces' time) spends about 2% of its time agreeing.  The choice
 *    lags the statistics: a call
 *    unlike the last may run the last call's backend (on a direct
 *    exchange, the last agreed call's, for up to that budget); its own
 *    statistics, once known, end the carrying if their choice differs, so
 *    a changing pattern falls back to agreeing at every call.
 *
 * `auto:agree` agrees by allreduce at every call (for comparison).  A
 * model that cannot be loaded on any rank fails the call on every rank in
 * an agreeing call; a carrying call uses the model of the calls before
 * it, which cannot fail.  A rank with bad arguments in a carrying call
 * fails as with a fixed backend (MPI_Alltoallv's own rule: the program is
 * erroneous), where an agreeing call makes every rank fail.  After a call
 * that failed on some ranks only, their memories of the pattern differ,
 * so the next call may agree on some and carry on others: as after any
 * failed collective, the communicator is not to be used for auto again.
 *
 * Cost: the chosen backend's, plus an allreduce in an agreeing call, plus
 * 80 bytes a message in a carrying one.  Inside ravel_exchange_run the
 * choice also counts the count exchange that call makes before a backend
 * that cannot discover its receive counts (ravel_cost_choose_exchange);
 * that path always agrees (or is told).  On one node, a call for which
 * shm's window would have to grow weighs that growth by the rent-or-buy
 * rule (ravel_cost_choose_renting): another backend until the time lost
 * against shm adds up to the growth's price, then shm; the fresh bytes
 * (comm_shm_fresh_bytes) and the rent are the same on every rank, since
 * the window and the choices are.  A call whose statistics and model
 * equal the previous choice's (and weighed no growth) reuses it without
 * evaluating the model again. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <string.h>

/* The most of its exchange time auto spends agreeing on statistics where
 * its backend carries none: after calls run on the last agreed statistics
 * whose predicted time adds up to 1 / AUTO_AGREEMENT_SHARE allreduces, it
 * agrees again.  2%, not the 5% of issue 12's margin for auto against the
 * fastest fixed backend: auto's own bookkeeping takes part of that margin
 * where calls are short (0.01 to 0.02 us of a 0.2 to 0.3 us call at 2
 * ranks on this project's machine, bench/results/auto/README.md).  A
 * constant, the same on every rank. */
#define AUTO_AGREEMENT_SHARE 0.02
/* ... and after at most this many such calls whatever their predicted
 * time (an all-zero pattern is predicted to take nothing): a change of
 * pattern goes unseen for at most 64 calls, whose predicted time is that
 * of 50 agreements at most when the pattern was not all zero. */
#define AUTO_BLIND_CALLS_MAX 64

static int same_stats(const ravel_call_stats *a, const ravel_call_stats *b)
{
    return a->P == b->P && a->max_block == b->max_block &&
           a->max_send == b->max_send && a->max_recv == b->max_recv &&
           a->total == b->total && a->nonempty == b->nonempty &&
           a->max_nonempty_send == b->max_nonempty_send &&
           a->max_nonempty_recv == b->max_nonempty_recv &&
           a->max_self == b->max_self;
}

static int same_model(const ravel_cost_params *a, const ravel_cost_params *b)
{
    return a->alpha == b->alpha && a->beta == b->beta &&
           a->gamma == b->gamma && a->o == b->o && a->fresh == b->fresh &&
           a->ranks_per_node == b->ranks_per_node;
}

/* Whether the last choice on this communicator was made for these
 * statistics and this model, and weighed no growth of shm's window (a
 * choice that did changes with the rent): the same on every rank, since
 * all three are. */
static int same_choice(const comm_context *ctx, const ravel_call_stats *s,
                       const ravel_cost_params *m, int in_exchange)
{
    return ctx->last_choice >= 0 && ctx->chosen_in_exchange == in_exchange &&
           ctx->chosen_fresh == 0 && same_stats(&ctx->chosen_for, s) &&
           same_model(&ctx->chosen_with, m);
}

/* The fresh bytes shm's window would take for a call of *s (0 where shm
 * cannot run: it is not weighed there).  In ravel_exchange_run a rank's
 * own block goes into its half too. */
static uint64_t shm_fresh(const comm_context *ctx, const ravel_call_stats *s,
                          int in_exchange)
{
    if (ctx->node_ranks < ctx->size || ctx->size < 2)
        return 0;
    uint64_t stream = s->max_send + (in_exchange ? s->max_self : 0);
    return comm_shm_fresh_bytes(ctx, stream);
}

/* The registry index of the model's choice for *s, shm's growth of
 * `fresh` bytes weighed against *rent (which it updates). */
static int model_choice(const ravel_call_stats *s, const ravel_cost_params *m,
                        int in_exchange, uint64_t fresh, double *rent,
                        double *predicted)
{
    double after = *rent;
    const char *name = ravel_cost_choose_renting(m, s, in_exchange, 1, fresh,
                                                 &after, predicted);
    /* A radix outside the fixed rows joins the table when first looked
     * up, on every rank alike (they choose alike); a table already full
     * of other radices leaves the fixed rows. */
    if (name && !ravel_alltoallv_lookup(name)) {
        ravel_error_clear();
        after = *rent;
        name = ravel_cost_choose_renting(m, s, in_exchange, 0, fresh, &after,
                                         predicted);
    }
    *rent = after;
    if (!name) /* no finite prediction: cannot happen with a valid model */
        name = ravel_alltoallv_name(0);
    /* The model names its choices from fixed tables: the last few names
     * seen, by address, spare the search down the registry (strcmp on
     * every row, at every choice, was a tenth of a 0.5 us engine call). */
    enum { SEEN = 8 };
    static const char *seen_name[SEEN];
    static int seen_choice[SEEN], next;
    for (int k = 0; k < SEEN; k++)
        if (seen_name[k] == name)
            return seen_choice[k];
    int choice = 0;
    for (size_t i = 0; i < ravel_alltoallv_count(); i++)
        if (strcmp(ravel_alltoallv_name(i), name) == 0)
            choice = (int)i;
    seen_name[next] = name;
    seen_choice[next] = choice;
    next = (next + 1) % SEEN;
    return choice;
}

static void choose(comm_context *ctx, const ravel_call_stats *s,
                   const ravel_cost_params *m, int in_exchange)
{
    double predicted;
    int before = ctx->last_choice;
    uint64_t fresh = shm_fresh(ctx, s, in_exchange);
    ctx->last_choice = model_choice(s, m, in_exchange, fresh, &ctx->shm_rent,
                                    &predicted);
    ctx->last_predicted = predicted;
    ctx->chosen_fresh = fresh;
    int same_backend = before == ctx->last_choice && ctx->chosen_fn &&
                       same_model(&ctx->chosen_with, m);
    ctx->chosen_for = *s;
    ctx->chosen_with = *m;
    ctx->chosen_in_exchange = in_exchange;
    if (!same_backend) { /* else its function, kernel and agreement time */
        ctx->chosen_name = ravel_alltoallv_name((size_t)ctx->last_choice);
        ctx->chosen_fn = ravel_alltoallv_lookup(ctx->chosen_name);
        ctx->chosen_kernel =
            comm_backend_kernel(ctx->chosen_name, &ctx->chosen_param);
        ctx->chosen_agreement = ravel_cost_agreement(m, ctx->size);
    }
    ctx->chosen_generation = comm_model_generation();
    ctx->chosen_is_known = 0;
}

/* The model of this process, with this communicator's layout. */
static ravel_cost_params layout_model(const comm_context *ctx,
                                      const ravel_cost_params *model)
{
    ravel_cost_params m = *model;
    m.ranks_per_node = ctx->node_ranks;
    return m;
}

/* The same, once an earlier call has loaded the model: it cannot fail. */
static ravel_cost_params loaded_model(const comm_context *ctx)
{
    const ravel_cost_params *model = NULL;
    ravel_comm_model(&model, NULL);
    return layout_model(ctx, model);
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
    ravel_cost_params m = layout_model(ctx, model);
    if (!same_choice(ctx, &s, &m, in_exchange))
        choose(ctx, &s, &m, in_exchange);
    return MPI_SUCCESS;
}

/* A carrying call: the choice for the last call's statistics, which every
 * rank knows.  In a pattern that holds, that is the last choice, made with
 * the model in use: said by two fields, since at 2 ranks a call of small
 * blocks takes some 0.25 us and comparing the statistics and the model at
 * every call cost a tenth of that. */
static void decide_carried(comm_context *ctx)
{
    if (ctx->chosen_is_known && ctx->chosen_fresh == 0 &&
        ctx->chosen_generation == comm_model_generation())
        return;
    ravel_cost_params m = loaded_model(ctx);
    if (!same_choice(ctx, &ctx->known_stats, &m, 0))
        choose(ctx, &ctx->known_stats, &m, 0);
    ctx->chosen_is_known = 1;
}

/* After a call whose statistics *s every rank knows: the model's choice
 * for them, and whether it repeats the last known call's. */
static void remember(comm_context *ctx, const ravel_call_stats *s)
{
    int choice = ctx->last_choice; /* the choice made for *s, if it was */
    int chosen_for_s = same_stats(&ctx->chosen_for, s);
    if (!chosen_for_s) {
        ravel_cost_params m = loaded_model(ctx);
        double predicted, rent = ctx->shm_rent; /* a look, not a choice */
        choice = model_choice(s, &m, 0, shm_fresh(ctx, s, 0), &rent,
                              &predicted);
    }
    ctx->repeats = ctx->known && choice == ctx->known_choice
                       ? ctx->repeats + 1
                       : 0;
    ctx->chosen_is_known = chosen_for_s && !ctx->chosen_in_exchange;
    ctx->known = 1;
    ctx->known_stats = *s;
    ctx->known_choice = choice;
    ctx->blind_calls = 0;
    ctx->blind_seconds = 0.0;
}

/* Whether this call may choose from what every rank knows of the calls
 * before it: a pattern that held for two agreed calls, and, after calls
 * whose statistics no rank learnt, not so many of them that agreeing
 * again would cost more than AUTO_AGREEMENT_SHARE of their predicted time
 * (the same sum on every rank: predictions of agreed statistics, weighed
 * against the agreement time of the model the last choice was made with,
 * kept with it since this test runs on every such call), nor more than
 * AUTO_BLIND_CALLS_MAX. */
static int may_choose_carried(const comm_context *ctx)
{
    if (!ctx->known || ctx->repeats < 1)
        return 0;
    if (ctx->blind_calls == 0)
        return 1;
    if (ctx->blind_calls >= AUTO_BLIND_CALLS_MAX)
        return 0;
    return AUTO_AGREEMENT_SHARE * ctx->blind_seconds < ctx->chosen_agreement;
}

static int run_auto(const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm, int may_carry, const char *name)
{
    ravel_error_clear();
    comm_context *ctx;
    int err = comm_context_get(comm, &ctx);
    if (err != MPI_SUCCESS)
        return comm_report_error(comm, name, err);
    int carrying = may_carry && !ctx->hinted && may_choose_carried(ctx);
    if (carrying) {
        decide_carried(ctx);
    } else {
        int in_place = sendbuf == MPI_IN_PLACE;
        err = comm_auto_decide(ctx, in_place ? recvcounts : sendcounts,
                               in_place ? recvtype : sendtype, recvcounts,
                               recvtype, 0);
    }
    if (err != MPI_SUCCESS) {
        ctx->known = 0;
        return comm_report_error(comm, name, err);
    }
    ctx->last_carried = carrying;
    ctx->carry_wanted = carrying;
    ctx->carry.done = 0; /* vendor never starts one */
    /* The kernel on the context in hand: through chosen_fn, finding the
     * context again and the frames around it were some 0.015 us of a
     * 0.2 us call at 2 ranks (bench/results/auto/README.md). */
    if (ctx->chosen_kernel)
        err = comm_run_kernel_in(ctx, ctx->chosen_kernel, ctx->chosen_name,
                                 ctx->chosen_param, sendbuf, sendcounts,
                                 sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm);
    else
        err = ctx->chosen_fn(sendbuf, sendcounts, sdispls, sendtype,
                             recvbuf, recvcounts, rdispls, recvtype, comm);
    ctx->carry_wanted = 0;
    if (err != MPI_SUCCESS) {
        ctx->known = 0;
    } else if (!carrying) { /* the statistics it agreed on */
        remember(ctx, &ctx->chosen_for);
    } else if (ctx->carry.done) {
        remember(ctx, &ctx->carry.agreed);
    } else { /* a direct exchange: this call's statistics stay unknown */
        ctx->blind_calls++;
        ctx->blind_seconds += ctx->last_predicted;
    }
    return err;
}

int ravel_alltoallv_auto(const void *sendbuf, const int sendcounts[],
                         const int sdispls[], MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype,
                         MPI_Comm comm)
{
    return run_auto(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                    recvcounts, rdispls, recvtype, comm, 1, "auto");
}

int comm_alltoallv_auto_agree(const void *sendbuf, const int sendcounts[],
                              const int sdispls[], MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return run_auto(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                    recvcounts, rdispls, recvtype, comm, 0, "auto:agree");
}
