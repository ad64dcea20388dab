/* Running strata to their fixed points, semi-naively.
 *
 * At a stratum's start every relation's delta is its whole content, so rules
 * reading deltas see everything once.  An iteration performs its one
 * exchange, promotes what arrived (new = arrived minus full; full += new),
 * then already evaluates the next iteration's rules and packs what they
 * emit, so that its one allreduce carries both this iteration's record
 * (errors, the log's figures, the global new-tuple count, each relation's
 * size) and the agreement the next exchange needs (its largest block and
 * totals: the round count, and auto's statistics).  One exchange and one
 * allreduce per iteration, nothing else: a stratum adds one allreduce at
 * its start, and an iteration after which the load balancer splits a
 * bucket evaluates again (its exchange was routed by the old layout) and
 * adds the balancer's collectives and one allreduce.  The stratum ends when
 * the new-tuple count is zero; the next iteration's evaluation is then
 * dropped.
 *
 * The deltas an evaluation reads are kept until the allreduce only when a
 * snapshot after the iteration or the balancer may need them (see
 * run_stratum); else they are freed before the packing, whose send array
 * would otherwise come on top of them. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields of the iteration's allreduce: the first MAX_FIELDS take the maximum
 * (times as the bits of non-negative doubles, which order like integers),
 * the rest are summed; after NFIELDS, one size per relation, then each
 * relation's PACK_VOTE_WORDS votes on packing (storage_pack_votes; all
 * summed).
 * F_ERROR: this iteration failed; F_NEXT_ERROR: the next one's evaluation
 * did.  F_AGREE and F_AGREE_SUMS hold the next exchange's agreement
 * (exchange_plan.agree: its maxima, then its sums). */
enum { F_BLOCK, F_COMPUTE, F_COMM, F_ERROR, F_NEXT_ERROR, F_BACKEND,
       F_PREDICTED, F_BACKEND_TIME, F_SNAPSHOT_DUE, F_AGREE,
       MAX_FIELDS = F_AGREE + AGREE_MAXIMA,
       F_BYTES = MAX_FIELDS, F_NEW, F_TOTAL, F_AGREE_SUMS,
       NFIELDS = F_AGREE_SUMS + AGREE_WORDS - AGREE_MAXIMA };

/* The record travels as one element of a contiguous type (record_type),
 * so MPI never splits it between calls of the operation. */
static void record_reduce(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int bytes = 0;
    MPI_Type_size(*dt, &bytes);
    size_t words = (size_t)bytes / sizeof(uint64_t);
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (size_t i = 0; i < (size_t)*len * words; i++) {
        size_t f = i % words;
        if (f < MAX_FIELDS)
            b[i] = a[i] > b[i] ? a[i] : b[i];
        else
            b[i] += a[i];
    }
}

/* One record: NFIELDS words, the relations' sizes and their votes. */
static size_t record_words(const ravel_engine *e)
{
    return NFIELDS + e->nrels * (1 + PACK_VOTE_WORDS);
}

/* Relation i's votes on packing in a record. */
static uint64_t *pack_votes_at(const ravel_engine *e, uint64_t *f, size_t i)
{
    return f + NFIELDS + e->nrels + i * PACK_VOTE_WORDS;
}

static int record_allreduce(ravel_engine *e, MPI_Datatype type,
                            const uint64_t *mine, uint64_t *all)
{
    return ravel_comm_allreduce(mine, all, 1, type, e->record_op, e->comm);
}

static void put_agreement(uint64_t *f, const exchange_plan *plan)
{
    memcpy(f + F_AGREE, plan->agree, AGREE_MAXIMA * sizeof *f);
    memcpy(f + F_AGREE_SUMS, plan->agree + AGREE_MAXIMA,
           (AGREE_WORDS - AGREE_MAXIMA) * sizeof *f);
}

static void get_agreement(const uint64_t *f, uint64_t *agreed)
{
    memcpy(agreed, f + F_AGREE, AGREE_MAXIMA * sizeof *f);
    memcpy(agreed + AGREE_MAXIMA, f + F_AGREE_SUMS,
           (AGREE_WORDS - AGREE_MAXIMA) * sizeof *f);
}

static uint64_t double_bits(double x)
{
    uint64_t u;
    if (!(x > 0.0))
        x = 0.0;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

int ravel_flush(ravel_engine *e)
{
    /* Facts must reach every target active after this flush. */
    balance_activate_replicas(e);
    int err = outbox_ensure(e);
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        relation *r = &e->rels[i];
        for (size_t t = 0; t < r->pending.n && err == MPI_SUCCESS; t++)
            err = emit_tuple(e, (int)i, r->pending.data + t * r->arity);
        tuple_buf_free(&r->pending);
    }
    uint64_t bytes = 0;
    return balance_fill_derived(e, err, 1, &bytes);
}

/* Marks the relations whose full some rule of the stratum reads (their
 * flat part is kept as runs: storage.c) and those the stratum writes.  A
 * full that some rule reads, as full or as a stratum's first delta, is
 * packed again if it was held as bits (only the reduction reads bits).
 * Call after every rules_bind_sources, which may switch a join to a
 * replica. */
static int prepare_reads(ravel_engine *e, const stratum *s)
{
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < e->nrels; i++) {
        e->rels[i].pack_ok = 1;
        e->rels[i].written = 0;
    }
    for (size_t i = 0; i < s->nrules; i++)
        for (size_t j = 0; j < e->nrels; j++)
            e->rels[j].written |= e->rels[j].base == s->rules[i].head;
    for (size_t i = 0; i < s->nrules; i++) {
        const rule *ru = &s->rules[i];
        for (int b = 0; b < ru->nbody; b++) {
            relation *r = &e->rels[ru->source[b]];
            if (ru->body[b].version == RAVEL_FULL)
                r->pack_ok = 0;
            if (ru->body[b].version == RAVEL_FULL || r->delta_is_full)
                err = err == MPI_SUCCESS ? storage_unbits(r) : err;
        }
    }
    return err;
}

/* err, its message prefixed with where in the run it happened. */
static int iteration_error(uint32_t stratum, uint32_t it, int err)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", ravel_error_message());
    return ravel_error_set(err, "stratum %u iteration %u: %s", stratum, it,
                           copy);
}

/* Once an allreduce said some rank failed: every rank reports the first
 * failing rank's own error (local, which happened in iteration local_at),
 * or says that another rank failed in iteration `it`. */
static int agree_error(ravel_engine *e, uint32_t stratum, uint32_t it,
                       int local, uint32_t local_at)
{
    int own = e->echoed_error ? MPI_SUCCESS : local;
    if (own != MPI_SUCCESS)
        own = iteration_error(stratum, local_at, own);
    int err = ravel_comm_first_error(e->comm, own);
    if (err == MPI_SUCCESS)
        err = ravel_error_set(MPI_ERR_OTHER, "another rank failed in "
                              "stratum %u iteration %u", stratum, it);
    return err;
}

static void free_deltas(ravel_engine *e)
{
    for (size_t i = 0; i < e->nrels; i++)
        if (!e->rels[i].delta_is_full)
            storage_free_delta(&e->rels[i]);
}

/* The next iteration's local work (iteration `it`) up to its exchange:
 * its rules, then the packing of what they emitted.  With local_error set
 * it only empties the outbox and returns the error.  drop_deltas: nothing
 * needs the deltas the rules read any more, so they go before the
 * packing. */
static int evaluate_next(ravel_engine *e, stratum *s, uint32_t it,
                         int local_error, int drop_deltas,
                         exchange_plan *plan, double *seconds)
{
    double t0 = ravel_now();
    int err = local_error;
    if (err == MPI_SUCCESS) {
        rules_bind_sources(e, s);
        err = prepare_reads(e, s);
    }
    if (err == MPI_SUCCESS)
        err = rules_evaluate(e, s, it);
    /* The send array is taken with the outbox still full: the deltas
     * would be a third copy of an iteration's tuples at the peak. */
    if (drop_deltas)
        free_deltas(e);
    err = exchange_pack(e, err, plan);
    *seconds = ravel_now() - t0;
    return err;
}

/* Iteration `it`'s rules and the agreement on its exchange, in an allreduce
 * of their own: at a stratum's start, and after the balancer discarded a
 * packed exchange.  mine, all: the stratum's record buffers. */
static int agree_on_next(ravel_engine *e, stratum *s, MPI_Datatype type,
                         uint32_t index, uint32_t it, uint64_t *mine,
                         uint64_t *all, exchange_plan *plan, double *seconds,
                         uint64_t agreed[AGREE_WORDS])
{
    memset(mine, 0, record_words(e) * sizeof *mine);
    e->echoed_error = 0;
    int local = evaluate_next(e, s, it, MPI_SUCCESS, 0, plan, seconds);
    mine[F_NEXT_ERROR] = local != MPI_SUCCESS;
    put_agreement(mine, plan);
    int err = record_allreduce(e, type, mine, all);
    if (err == MPI_SUCCESS && all[F_NEXT_ERROR])
        err = agree_error(e, index, it, local, it);
    if (err == MPI_SUCCESS)
        get_agreement(all, agreed);
    else
        exchange_plan_discard(e, plan);
    return err;
}

/* Whether the balancer looks again: some relation it may split reached
 * balance_min_tuples and grew by an eighth since it last looked (sizes:
 * global, per relation; seen: at the last look).  Buckets only grow, so
 * between looks a bucket's share of its relation changes little; looking
 * every iteration would cost an allreduce of every bucket's count each. */
static int balance_due(const ravel_engine *e, const uint64_t *sizes,
                       uint64_t *seen)
{
    if (!e->opt.load_balance || e->size == 1)
        return 0;
    int due = 0;
    for (size_t i = 0; i < e->nrels && !due; i++)
        due = e->rels[i].kind != REL_REPLICA && sizes[i] > seen[i] &&
              sizes[i] >= e->opt.balance_min_tuples &&
              sizes[i] - seen[i] >= seen[i] / 8;
    if (due)
        memcpy(seen, sizes, e->nrels * sizeof *seen);
    return due;
}

/* This rank's share of iteration `it`'s record, as far as the iteration
 * itself decides it. */
static void fill_record(ravel_engine *e, uint64_t *f, const exchange_stats *st,
                        uint64_t fresh, double compute, double comm)
{
    f[F_BLOCK] = st->max_block_bytes;
    f[F_COMPUTE] = double_bits(compute);
    f[F_COMM] = double_bits(comm);
    f[F_BACKEND] = (uint64_t)(st->backend + 1); /* the same on every rank */
    f[F_PREDICTED] = double_bits(st->predicted_seconds);
    f[F_BACKEND_TIME] = double_bits(st->backend_seconds);
    f[F_BYTES] = st->total_bytes;
    /* Any rank may call for a snapshot, the maximum decides: when its
     * clock says so, or when this iteration came within a quarter of its
     * memory limit, so that if the next one does not fit, the snapshot
     * the stop names is this iteration's, not one from minutes ago. */
    f[F_SNAPSHOT_DUE] = e->checkpoint_dir &&
                        (ravel_now() - e->last_snapshot >=
                             e->opt.checkpoint_every ||
                         budget_window_near_limit());
    uint64_t total = 0;
    for (size_t i = 0; i < e->nrels; i++) {
        f[NFIELDS + i] = storage_full_count(&e->rels[i]);
        if (e->rels[i].kind == REL_DECLARED)
            total += f[NFIELDS + i];
        storage_pack_votes(e, &e->rels[i], pack_votes_at(e, f, i));
    }
    f[F_NEW] = fresh;
    f[F_TOTAL] = total;
}

static void log_iteration(ravel_engine *e, uint32_t index, uint32_t it,
                          const uint64_t *all, ravel_iteration_record *rec)
{
    rec->stratum = index;
    rec->iteration = it;
    rec->max_block_bytes = all[F_BLOCK];
    rec->total_bytes = all[F_BYTES];
    rec->comm_seconds = bits_double(all[F_COMM]);
    rec->compute_seconds = bits_double(all[F_COMPUTE]);
    rec->backend = (int)all[F_BACKEND] - 1;
    rec->predicted_seconds = bits_double(all[F_PREDICTED]);
    rec->backend_seconds = bits_double(all[F_BACKEND_TIME]);
    rec->new_tuples = all[F_NEW];
    rec->total_tuples = all[F_TOTAL];
    e->iterations++;
    e->productive += all[F_NEW] > 0;
}

/* Runs stratum s from its start (done = 0) or, resumed from a snapshot,
 * after its iteration `done`, with the deltas the snapshot held. */
static int run_stratum(ravel_engine *e, stratum *s, uint32_t index,
                       uint32_t done)
{
    for (size_t i = 0; i < e->nrels && done == 0; i++) {
        storage_free_delta(&e->rels[i]);
        e->rels[i].delta_is_full = 1;
    }
    for (size_t i = 0; i < e->nrels; i++)
        e->rels[i].pack_agreed = -1; /* each rank alone until the first
                                        allreduce (promotion runs only
                                        here: this is where it starts) */
    uint64_t moved = 0;
    int err = balance_fill_derived(e, 0, 0, &moved);
    if (err != MPI_SUCCESS)
        return err;
    size_t words = record_words(e);
    MPI_Datatype type = MPI_DATATYPE_NULL;
    uint64_t *mine = calloc(3 * words, sizeof *mine);
    if (!mine)
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for an "
                              "iteration record");
    /* Every rank fails alike here or not at all (same sizes), or MPI
     * aborts: nothing below may run on some ranks only. */
    if (err == MPI_SUCCESS)
        err = MPI_Type_contiguous((int)words, MPI_UINT64_T, &type);
    if (err == MPI_SUCCESS)
        err = MPI_Type_commit(&type);
    uint64_t *all = mine + words, *seen = mine + 2 * words;
    exchange_plan plan = {0};
    uint64_t agreed[AGREE_WORDS];
    double evaluated = 0.0; /* seconds of the next iteration's rules */
    int split_pending = 0; /* the balancer would have split, deltas gone */
    uint32_t it = done + 1;
    if (err == MPI_SUCCESS)
        err = agree_on_next(e, s, type, index, it, mine, all, &plan,
                            &evaluated, agreed);
    for (; err == MPI_SUCCESS; it++) {
        memset(mine, 0, words * sizeof *mine);
        e->echoed_error = 0;
        budget_window_start();
        /* The deltas are consumed: promotion replaces them. */
        free_deltas(e);
        exchange_stats st;
        int local = exchange_send_planned(e, &plan, agreed, &st);
        double t1 = ravel_now();
        uint64_t fresh = 0;
        for (size_t i = 0; i < e->nrels && local == MPI_SUCCESS; i++) {
            uint64_t n = 0;
            local = storage_promote(e, &e->rels[i], &n);
            if (e->rels[i].kind == REL_DECLARED)
                fresh += n;
        }
        double t2 = ravel_now();
        uint32_t local_at = local != MPI_SUCCESS ? it : it + 1;
        double next = 0.0;
        /* After the allreduce the deltas promotion just made are needed
         * only by a snapshot (possible when checkpointing) or by a split
         * of the balancer (its moves keep delta membership, and it
         * evaluates the rules again).  Whether they are kept must be
         * decided now, alike on every rank: a split the balancer wants
         * with the deltas gone waits for the next iteration, which keeps
         * them (split_pending).  Else they are freed before the packing,
         * as before the engine packed ahead of its allreduce. */
        int keep_deltas = e->checkpoint_dir != NULL || split_pending;
        int next_err = evaluate_next(e, s, it + 1, local, !keep_deltas,
                                     &plan, &next);
        if (local == MPI_SUCCESS)
            local = next_err;
        double self = st.self_seconds; /* local work inside the exchange */
        fill_record(e, mine, &st, fresh, evaluated + (t2 - t1) + self,
                    st.exchange_seconds);
        evaluated = next;
        mine[F_ERROR] = local != MPI_SUCCESS && local_at == it;
        mine[F_NEXT_ERROR] = local != MPI_SUCCESS && local_at > it;
        put_agreement(mine, &plan);
        err = record_allreduce(e, type, mine, all);
        if (err == MPI_SUCCESS && all[F_ERROR])
            err = agree_error(e, index, it, local, local_at);
        if (err != MPI_SUCCESS)
            break;
        ravel_iteration_record rec = {0};
        int replan = 0, deferred = 0;
        /* A deferred split is made even when the stratum ends here: the
         * layout is what the next strata and the caller see. */
        if (!all[F_NEXT_ERROR] &&
            (split_pending ||
             (all[F_NEW] > 0 && balance_due(e, all + NFIELDS, seen))))
            err = balance_check(e, &plan, keep_deltas, &rec.balance_bytes,
                                &replan, &deferred);
        split_pending = deferred;
        for (size_t i = 0; i < e->nrels && e->size > 1; i++)
            storage_agree_pack(&e->rels[i], pack_votes_at(e, all, i));
        log_iteration(e, index, it, all, &rec);
        int lerr = log_record(e, &rec);
        if (err == MPI_SUCCESS)
            err = lerr;
        if (e->hook)
            e->hook(&rec, e->hook_arg);
        if (all[F_NEW] == 0)
            break;
        if (err == MPI_SUCCESS && all[F_SNAPSHOT_DUE])
            err = snapshot_write(e, index, it);
        if (err == MPI_SUCCESS && all[F_NEXT_ERROR])
            err = agree_error(e, index, it + 1, local, local_at);
        if (err == MPI_SUCCESS && replan)
            err = agree_on_next(e, s, type, index, it + 1, mine, all,
                                &plan, &evaluated, agreed);
        else if (err == MPI_SUCCESS)
            get_agreement(all, agreed);
    }
    exchange_plan_discard(e, &plan);
    for (size_t i = 0; i < e->nrels; i++)
        storage_free_delta(&e->rels[i]);
    /* The stratum's static relations may be written by the next. */
    for (size_t i = 0; i < s->nrules; i++)
        join_grouped_free(&s->rules[i].grouped);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    free(mine);
    return err;
}

/* A run that stops after a snapshot was written says where to resume. */
static int mention_snapshot(const ravel_engine *e, int err)
{
    if (err == MPI_SUCCESS || !e->checkpoint_dir || !e->snapshot_written)
        return err;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", ravel_error_message());
    return ravel_error_set(err, "%s (%s/snapshot-%06u, taken after stratum "
                           "%u iteration %u, resumes the run: --resume=%s)",
                           copy, e->checkpoint_dir, e->snapshot_seq,
                           e->snapshot_at[0], e->snapshot_at[1],
                           e->checkpoint_dir);
}

int ravel_run(ravel_engine *e)
{
    int err = MPI_SUCCESS;
    uint32_t from = 0, done = 0; /* resumed: stratum, iterations done */
    if (e->record_op == MPI_OP_NULL)
        err = MPI_Op_create(record_reduce, 1, &e->record_op);
    if (err == MPI_SUCCESS)
        err = snapshot_start(e);
    if (err == MPI_SUCCESS && e->resume_dir) {
        err = snapshot_resume(e, &from, &done);
        free(e->resume_dir); /* once: a later run continues from here */
        e->resume_dir = NULL;
    } else if (err == MPI_SUCCESS) {
        err = ravel_flush(e);
    }
    for (size_t i = 0; i < e->nstrata && err == MPI_SUCCESS; i++) {
        if (e->strata[i].done)
            continue;
        err = run_stratum(e, &e->strata[i], (uint32_t)i,
                          i == from ? done : 0);
        e->strata[i].done = 1;
        if (err == MPI_SUCCESS && e->checkpoint_dir)
            err = snapshot_write(e, (uint32_t)i + 1, 0);
    }
    return mention_snapshot(e, err);
}
