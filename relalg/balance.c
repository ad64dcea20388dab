/* Spatial load balancing (Kumar & Gilray, ISC'20) and the filling of derived
 * relations, both of which move stored tuples between iterations.
 *
 * After an iteration, the per-bucket tuple counts of every relation are
 * summed over the ranks.  A bucket whose sub-buckets each hold more than
 * balance_factor times the mean bucket is split into ceil(count / mean)
 * sub-buckets (at most P); since sub-bucket j of bucket b lives on rank
 * (b + j) % P, this spreads the bucket over more ranks.  The tuples whose
 * sub-bucket changed move to their new rank, keeping their membership of
 * delta, in one exchange that also extends the replicas that follow the
 * split relation's layout and fills replicas that a split makes necessary.
 * Splits only ever grow, so the layouts settle. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Whether full[i] is also in delta, scanning delta alongside (di). */
static int in_delta(const relation *r, const uint64_t *t, size_t *di)
{
    if (r->delta_is_full)
        return 0; /* every receiver is also at a stratum's start */
    while (*di < r->delta.n &&
           tuples_compare(r->delta.data + *di * r->arity, t, r->arity) < 0)
        (*di)++;
    return *di < r->delta.n &&
           tuples_compare(r->delta.data + *di * r->arity, t, r->arity) == 0;
}

/* Sends this rank's share of derived relation d's base to d's owners. */
static int emit_population(ravel_engine *e, int d)
{
    const relation *x = &e->rels[d];
    relation *b = &e->rels[x->base];
    uint64_t u[RAVEL_MAX_ARITY];
    size_t di = 0;
    int unpacked = storage_unpack(b);
    if (unpacked != MPI_SUCCESS)
        return unpacked;
    for (size_t i = 0; i < b->full.n; i++) {
        const uint64_t *t = b->full.data + i * b->arity;
        int flag = in_delta(b, t, &di);
        for (unsigned c = 0; c < x->arity; c++)
            u[c] = t[x->perm[c]];
        int err = emit_to_target(e, d, u, flag);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* Queues the tuples of x whose rank changed with the new layout, and drops
 * them here. */
static int emit_moves(ravel_engine *e, int xi, const uint32_t *old_subs)
{
    relation *x = &e->rels[xi];
    size_t di = 0, w = 0, wd = 0, dj = 0;
    if (memcmp(old_subs, x->subs, e->buckets * sizeof *old_subs) == 0)
        return MPI_SUCCESS; /* nothing of x moves (nor needs unpacking) */
    x->moves++;
    int err = storage_unpack(x);
    if (err != MPI_SUCCESS)
        return err;
    for (size_t i = 0; i < x->full.n; i++) {
        const uint64_t *t = x->full.data + i * x->arity;
        int flag = in_delta(x, t, &di);
        uint64_t b = placement_bucket(e, x, t);
        int rank = old_subs[b] == x->subs[b] ? e->rank
                                             : placement_rank(e, x, t);
        if (rank == e->rank) {
            memmove(x->full.data + w++ * x->arity, t, x->arity * sizeof *t);
            continue;
        }
        if (err == MPI_SUCCESS)
            err = tuple_buf_push(outbox_slot(e, xi, flag, rank), x->arity, t);
        if (e->opt.load_balance)
            x->bucket_count[b]--;
    }
    x->full.n = w;
    err = relation_error(x, err);
    /* delta keeps what full keeps. */
    for (size_t i = 0; i < x->delta.n && !x->delta_is_full; i++) {
        const uint64_t *t = x->delta.data + i * x->arity;
        dj = tuples_lower_bound(x->full.data, dj, x->full.n, x->arity, t,
                                x->arity);
        if (dj < x->full.n &&
            tuples_compare(x->full.data + dj * x->arity, t, x->arity) == 0)
            memmove(x->delta.data + wd++ * x->arity, t, x->arity * sizeof *t);
    }
    if (!x->delta_is_full)
        x->delta.n = wd;
    return err;
}

/* The holder of bucket b's whole replica (rank b % P) sends the bucket to
 * the ranks of the layout's new sub-buckets. */
static int emit_replica_growth(ravel_engine *e, int ri, const uint32_t *old)
{
    relation *r = &e->rels[ri];
    const uint32_t *now = e->rels[r->layout].subs;
    size_t di = 0;
    if (memcmp(old, now, e->buckets * sizeof *old) == 0)
        return MPI_SUCCESS;
    int unpacked = storage_unpack(r);
    if (unpacked != MPI_SUCCESS)
        return unpacked;
    for (size_t i = 0; i < r->full.n; i++) {
        const uint64_t *t = r->full.data + i * r->arity;
        int flag = in_delta(r, t, &di);
        uint64_t b = placement_bucket(e, r, t);
        if (old[b] == now[b] || (int)(b % (uint64_t)e->size) != e->rank)
            continue;
        for (uint32_t j = old[b]; j < now[b]; j++) {
            int err = tuple_buf_push(
                outbox_slot(e, ri, flag, (int)((b + j) % (uint64_t)e->size)),
                r->arity, t);
            if (err != MPI_SUCCESS)
                return relation_error(r, err);
        }
    }
    return MPI_SUCCESS;
}

int balance_finish_moves(ravel_engine *e, int local_error, uint64_t *bytes)
{
    exchange_stats st;
    int err = exchange_run(e, local_error, &st);
    e->move_seconds += st.exchange_seconds;
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        err = storage_install(e, &e->rels[i], 0);
        if (err == MPI_SUCCESS)
            err = storage_install(e, &e->rels[i], 1);
    }
    /* Errors are agreed on, and the bytes moved summed, in one call. */
    uint64_t mine[2] = {err != MPI_SUCCESS, st.total_bytes}, all[2] = {0, 0};
    int e2 = ravel_comm_allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM,
                                  e->comm);
    if (err == MPI_SUCCESS && e2 != MPI_SUCCESS)
        err = e2;
    if (e2 == MPI_SUCCESS && all[0]) {
        int own = e->echoed_error ? MPI_SUCCESS : err;
        err = ravel_comm_first_error(e->comm, own);
        if (err == MPI_SUCCESS)
            err = ravel_error_set(MPI_ERR_OTHER, "another rank failed "
                                  "moving tuples");
    }
    *bytes += all[1];
    return err;
}

void balance_activate_replicas(ravel_engine *e)
{
    for (size_t i = 0; i < e->nrels; i++) {
        relation *r = &e->rels[i];
        if (r->kind == REL_REPLICA && !r->active &&
            (e->rels[r->layout].split || e->rels[r->copy_of].split)) {
            r->active = 1;
            r->populated = 0;
        }
    }
}

int balance_fill_derived(ravel_engine *e, int local_error, int force,
                         uint64_t *bytes)
{
    balance_activate_replicas(e);
    int err = outbox_ensure(e), any = force;
    for (size_t i = 0; i < e->nrels; i++)
        any |= e->rels[i].active && !e->rels[i].populated;
    if (!any)
        return err; /* the same answer on every rank: nothing to do */
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        if (e->rels[i].active && !e->rels[i].populated)
            err = emit_population(e, (int)i);
    }
    for (size_t i = 0; i < e->nrels; i++)
        e->rels[i].populated = 1;
    if (local_error && err == MPI_SUCCESS)
        err = local_error;
    return balance_finish_moves(e, err, bytes);
}

/* New sub-bucket counts from global bucket counts; returns whether any
 * bucket of r changed. */
static int resize_buckets(ravel_engine *e, relation *r, const uint64_t *g)
{
    if (r->never_split)
        return 0;
    uint64_t total = 0;
    for (uint64_t b = 0; b < e->buckets; b++)
        total += g[b];
    if (total == 0 || total < e->opt.balance_min_tuples)
        return 0;
    double mean = (double)total / (double)e->buckets;
    int changed = 0;
    for (uint64_t b = 0; b < e->buckets; b++) {
        uint32_t s = r->subs[b];
        if (s >= (uint32_t)e->size ||
            (double)g[b] <= e->opt.balance_factor * mean * s)
            continue;
        double want = (double)g[b] / mean + 0.999999;
        uint32_t ns = want >= (double)e->size ? (uint32_t)e->size
                                              : (uint32_t)want;
        if (ns > s) {
            r->subs[b] = ns;
            r->split = 1;
            changed = 1;
        }
    }
    return changed;
}

int balance_check(ravel_engine *e, exchange_plan *pending, int can_split,
                  uint64_t *bytes, int *discarded, int *deferred)
{
    *discarded = *deferred = 0;
    if (!e->opt.load_balance || e->size == 1)
        return MPI_SUCCESS;
    size_t nb = e->buckets * e->nrels;
    if (nb > INT_MAX)
        return ravel_error_set(MPI_ERR_ARG, "%zu bucket counts exceed "
                               "an MPI count", nb);
    /* Room made with the relations: no rank can fail here alone. */
    uint64_t *local = e->balance_scratch, *global = local + nb;
    uint32_t *old = (uint32_t *)(global + nb);
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < e->nrels; i++) {
        memcpy(local + i * e->buckets, e->rels[i].bucket_count,
               e->buckets * sizeof *local);
        memcpy(old + i * e->buckets, e->rels[i].subs,
               e->buckets * sizeof *old);
    }
    err = ravel_comm_allreduce(local, global, (int)nb, MPI_UINT64_T, MPI_SUM,
                               e->comm);
    int changed = 0;
    for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
        if (e->rels[i].kind != REL_REPLICA)
            changed |= resize_buckets(e, &e->rels[i],
                                      global + i * e->buckets);
    }
    if (err == MPI_SUCCESS && changed && !can_split) {
        /* The moves read delta and the evaluation a split makes again
         * reads it, but the caller freed it to keep it out of the
         * iteration's peak: the layout stays (every rank decides alike,
         * from the global counts) until the caller comes back with it. */
        for (size_t i = 0; i < e->nrels; i++) {
            relation *r = &e->rels[i];
            if (r->kind == REL_REPLICA)
                continue;
            memcpy(r->subs, old + i * e->buckets, e->buckets * sizeof *old);
            r->split = 0;
            for (uint64_t b = 0; b < e->buckets && !r->split; b++)
                r->split = r->subs[b] > 1;
        }
        changed = 0;
        *deferred = 1;
    }
    if (err == MPI_SUCCESS && changed) {
        /* The moves go through the outbox, which must hold nothing else. */
        if (pending) {
            exchange_plan_discard(e, pending);
            *discarded = 1;
        }
        /* Fill new replicas first: it reads the bases before any move. */
        balance_activate_replicas(e);
        err = outbox_ensure(e);
        for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
            relation *r = &e->rels[i];
            if (r->active && !r->populated)
                err = emit_population(e, (int)i);
            else if (r->kind == REL_REPLICA && r->active)
                err = emit_replica_growth(e, (int)i, old + r->layout *
                                                        e->buckets);
        }
        for (size_t i = 0; i < e->nrels && err == MPI_SUCCESS; i++) {
            if (e->rels[i].kind != REL_REPLICA)
                err = emit_moves(e, (int)i, old + i * e->buckets);
        }
        for (size_t i = 0; i < e->nrels; i++)
            e->rels[i].populated = 1;
        err = balance_finish_moves(e, err, bytes);
    }
    return err;
}
