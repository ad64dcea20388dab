/* Running strata to their fixed points, semi-naively.
 *
 * At a stratum's start every relation's delta is its whole content, so rules
 * reading deltas see everything once.  Each iteration evaluates all the
 * stratum's rules locally, performs one exchange, promotes what arrived
 * (new = arrived minus full; full += new), then agrees in one allreduce on
 * errors, the log record and the global new-tuple count.  The stratum ends
 * when that count is zero. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fields of the iteration's allreduce: the first MAX_FIELDS take the maximum
 * (times as the bits of non-negative doubles, which order like integers),
 * the rest are summed. */
enum { F_BLOCK, F_COMPUTE, F_COMM, F_ERROR, F_BACKEND, F_PREDICTED,
       F_BACKEND_TIME, F_SNAPSHOT_DUE, MAX_FIELDS,
       F_BYTES = MAX_FIELDS, F_NEW, F_TOTAL, NFIELDS };

static void record_reduce(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i < *len; i++) {
        int f = i % NFIELDS;
        if (f < MAX_FIELDS)
            b[i] = a[i] > b[i] ? a[i] : b[i];
        else
            b[i] += a[i];
    }
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

/* Rules read full (a FULL body, or any body while delta is full) only flat:
 * unpacks what they read that way, and lets promotion pack only the
 * relations whose full no rule of the stratum reads.  Call after every
 * rules_bind_sources, which may switch a join to a replica. */
static int prepare_reads(ravel_engine *e, const stratum *s)
{
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < e->nrels; i++)
        e->rels[i].pack_ok = 1;
    for (size_t i = 0; i < s->nrules; i++) {
        const rule *ru = &s->rules[i];
        for (int b = 0; b < ru->nbody; b++) {
            relation *r = &e->rels[ru->source[b]];
            if (ru->body[b].version == RAVEL_FULL)
                r->pack_ok = 0;
            if (err == MPI_SUCCESS &&
                (ru->body[b].version == RAVEL_FULL || r->delta_is_full))
                err = storage_unpack(r);
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

/* One iteration's local work and exchange; fills the local record fields.
 * With local_error set, it only takes part in the exchange, which tells
 * every rank. */
static int iterate(ravel_engine *e, const stratum *s, int local_error,
                   uint64_t *f)
{
    double t0 = ravel_now();
    budget_window_start();
    int err = local_error != MPI_SUCCESS ? local_error : rules_evaluate(e, s);
    /* The deltas are consumed: promotion replaces them.  Freed now, they
     * are not held together with the exchange's buffers and the sort. */
    for (size_t i = 0; i < e->nrels; i++)
        if (!e->rels[i].delta_is_full)
            tuple_buf_free(&e->rels[i].delta);
    double t1 = ravel_now();
    exchange_stats st;
    err = exchange_run(e, err, &st);
    double t2 = ravel_now();
    uint64_t fresh = 0, total = 0;
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        relation *r = &e->rels[i];
        uint64_t n = 0;
        err = storage_promote(e, r, &n);
        if (r->kind == REL_DECLARED) {
            fresh += n;
            total += storage_full_count(r);
        }
    }
    double t3 = ravel_now();
    f[F_BLOCK] = st.max_block_bytes;
    f[F_COMPUTE] = double_bits((t1 - t0) + (t3 - t2));
    f[F_COMM] = double_bits(t2 - t1);
    f[F_ERROR] = err != MPI_SUCCESS;
    f[F_BACKEND] = (uint64_t)(st.backend + 1); /* the same on every rank */
    f[F_PREDICTED] = double_bits(st.predicted_seconds);
    f[F_BACKEND_TIME] = double_bits(st.backend_seconds);
    f[F_BYTES] = st.total_bytes;
    f[F_NEW] = fresh;
    f[F_TOTAL] = total;
    /* Any rank may call for a snapshot, the maximum decides: when its
     * clock says so, or when this iteration came within a quarter of its
     * memory limit, so that if the next one does not fit, the snapshot
     * the stop names is this iteration's, not one from minutes ago. */
    f[F_SNAPSHOT_DUE] = e->checkpoint_dir &&
                        (ravel_now() - e->last_snapshot >=
                             e->opt.checkpoint_every ||
                         budget_window_near_limit());
    return err;
}

/* Runs stratum s from its start (done = 0) or, resumed from a snapshot,
 * after its iteration `done`, with the deltas the snapshot held. */
static int run_stratum(ravel_engine *e, stratum *s, uint32_t index,
                       uint32_t done)
{
    for (size_t i = 0; i < e->nrels && done == 0; i++) {
        tuple_buf_free(&e->rels[i].delta);
        e->rels[i].delta_is_full = 1;
    }
    uint64_t moved = 0;
    int err = balance_fill_derived(e, 0, 0, &moved);
    rules_bind_sources(e, s);
    int unpacked = prepare_reads(e, s);
    for (uint32_t it = done + 1; err == MPI_SUCCESS; it++) {
        uint64_t mine[NFIELDS], all[NFIELDS];
        e->echoed_error = 0;
        int local = iterate(e, s, unpacked, mine);
        err = ravel_comm_allreduce(mine, all, NFIELDS, MPI_UINT64_T,
                                   e->record_op, e->comm);
        if (err == MPI_SUCCESS && all[F_ERROR]) {
            /* Every rank reports the first failing rank's own error. */
            int own = e->echoed_error ? MPI_SUCCESS : local;
            if (own != MPI_SUCCESS)
                own = iteration_error(index, it, own);
            err = ravel_comm_first_error(e->comm, own);
            if (err == MPI_SUCCESS)
                err = ravel_error_set(MPI_ERR_OTHER, "another rank failed "
                                      "in stratum %u iteration %u", index,
                                      it);
        }
        if (err != MPI_SUCCESS)
            break;
        ravel_iteration_record rec = {0};
        if (all[F_NEW] > 0) {
            err = balance_check(e, &rec.balance_bytes);
            rules_bind_sources(e, s);
            unpacked = prepare_reads(e, s);
        }
        rec.stratum = index;
        rec.iteration = it;
        rec.max_block_bytes = all[F_BLOCK];
        rec.total_bytes = all[F_BYTES];
        rec.comm_seconds = bits_double(all[F_COMM]);
        rec.compute_seconds = bits_double(all[F_COMPUTE]);
        rec.backend = (int)all[F_BACKEND] - 1;
        rec.predicted_seconds = bits_double(all[F_PREDICTED]);
        rec.backend_seconds = bits_double(all[F_BACKEND_TIME]);
        rec.new_tuples = all[F_NEW];
        rec.total_tuples = all[F_TOTAL];
        e->iterations++;
        e->productive += all[F_NEW] > 0;
        int lerr = log_record(e, &rec);
        if (err == MPI_SUCCESS)
            err = lerr;
        if (e->hook)
            e->hook(&rec, e->hook_arg);
        if (all[F_NEW] == 0)
            break;
        if (err == MPI_SUCCESS && all[F_SNAPSHOT_DUE])
            err = snapshot_write(e, index, it);
    }
    for (size_t i = 0; i < e->nrels; i++)
        tuple_buf_free(&e->rels[i].delta);
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
