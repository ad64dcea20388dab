/* Local evaluation of a stratum's rules on this rank's tuples.
 *
 * A copy rule scans one version of its body.  A join is a merge join of two
 * sorted arrays on their first k columns: both are sorted lexicographically,
 * hence on the key, and the side behind skips ahead by galloping search, so
 * a small delta against a large full costs O(|delta| log |full|), not
 * O(|full|).  An anti-join walks its left side the same way and keeps the
 * runs whose key the right side lacks.  Every surviving tuple or pair
 * builds the head tuple and is queued for its owners (emit_tuple). */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <string.h>

/* A term's value: a column of side 0 or 1, a constant, or an expression
 * already computed into vals. */
static inline uint64_t term_value(const ravel_term *t,
                                  const uint64_t *const side[2],
                                  const uint64_t *vals)
{
    return t->side == RAVEL_SIDE_CONSTANT ? t->value
           : t->side == RAVEL_SIDE_EXPR   ? vals[t->column]
                                          : side[t->side][t->column];
}

/* 64 bits as a two's-complement integer, without implementation-defined
 * conversions. */
static inline int64_t as_signed(uint64_t bits)
{
    return bits <= (uint64_t)INT64_MAX ? (int64_t)bits
                                       : -(int64_t)(~bits) - 1;
}

/* exprs[0..n) in order into vals; MPI_ERR_OTHER on a division by zero. */
static int compute(const ravel_engine *e, const rule *ru,
                   const uint64_t *const side[2], uint64_t *vals)
{
    for (size_t i = 0; i < ru->nexprs; i++) {
        const ravel_expr *x = &ru->exprs[i];
        uint64_t a = term_value(&x->left, side, vals);
        uint64_t b = term_value(&x->right, side, vals);
        int64_t sa = as_signed(a), sb = as_signed(b);
        if (b == 0 && x->op >= RAVEL_SDIV && x->op <= RAVEL_UREM)
            return ravel_error_set(MPI_ERR_OTHER, "a division by zero in a "
                                   "rule for %s", e->rels[ru->head].name);
        switch (x->op) {
        case RAVEL_ADD: vals[i] = a + b; break;
        case RAVEL_SUB: vals[i] = a - b; break;
        case RAVEL_MUL: vals[i] = a * b; break;
        case RAVEL_SDIV:
            vals[i] = sa == INT64_MIN && sb == -1 ? a : (uint64_t)(sa / sb);
            break;
        case RAVEL_SREM:
            vals[i] = sb == -1 ? 0 : (uint64_t)(sa % sb);
            break;
        case RAVEL_UDIV: vals[i] = a / b; break;
        case RAVEL_UREM: vals[i] = a % b; break;
        default: vals[i] = a ^ b; break;
        }
    }
    return MPI_SUCCESS;
}

static int filters_pass(const ravel_engine *e, const rule *ru,
                        const uint64_t *const side[2], const uint64_t *vals)
{
    for (size_t i = 0; i < ru->nfilters; i++) {
        const ravel_filter *f = &ru->filters[i];
        uint64_t a = term_value(&f->left, side, vals);
        uint64_t b = term_value(&f->right, side, vals);
        int ok;
        switch (f->op) {
        case RAVEL_EQ: ok = a == b; break;
        case RAVEL_NE: ok = a != b; break;
        case RAVEL_LT: ok = a < b; break;
        case RAVEL_LE: ok = a <= b; break;
        case RAVEL_GT: ok = a > b; break;
        case RAVEL_GE: ok = a >= b; break;
        default: { /* RAVEL_ORD_*: rules_evaluate checked e->order */
            int c = a == b ? 0 : e->order(a, b, e->order_arg);
            ok = f->op == RAVEL_ORD_LT   ? c < 0
                 : f->op == RAVEL_ORD_LE ? c <= 0
                 : f->op == RAVEL_ORD_GT ? c > 0
                                         : c >= 0;
        }
        }
        if (!ok)
            return 0;
    }
    return 1;
}

/* A rule with RAVEL_ORD_* filters needs the engine's order function. */
static int check_order(const ravel_engine *e, const rule *ru)
{
    for (size_t i = 0; i < ru->nfilters && !e->order; i++)
        if (ru->filters[i].op >= RAVEL_ORD_LT)
            return ravel_error_set(MPI_ERR_ARG, "a rule for %s orders "
                                   "values by the engine's order function, "
                                   "and none was set "
                                   "(ravel_engine_set_order)",
                                   e->rels[ru->head].name);
    return MPI_SUCCESS;
}

static int produce(ravel_engine *e, const rule *ru, unsigned head_arity,
                   const uint64_t *const side[2])
{
    uint64_t vals[RAVEL_MAX_EXPRS];
    if (ru->nexprs) {
        int err = compute(e, ru, side, vals);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (ru->nfilters && !filters_pass(e, ru, side, vals))
        return MPI_SUCCESS;
    uint64_t out[RAVEL_MAX_ARITY];
    for (unsigned h = 0; h < head_arity; h++)
        out[h] = term_value(&ru->terms[h], side, vals);
    return emit_tuple(e, ru->head, out);
}

/* Readers of every run of version v of relation r: its flat runs, then
 * its packed part; returns their count. */
static unsigned open_readers(const relation *r, ravel_version v,
                             tuple_reader out[FULL_RUNS_MAX + 1])
{
    tuple_run runs[FULL_RUNS_MAX];
    unsigned n = storage_runs(r, v, runs);
    for (unsigned i = 0; i < n; i++)
        tuple_reader_flat(&out[i], runs[i], r->arity);
    const packed_tuples *p = storage_packed_part(r, v);
    if (p)
        tuple_reader_packed(&out[n++], p, r->arity);
    return n;
}

static void close_readers(tuple_reader *r, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        tuple_reader_free(&r[i]);
}

static int eval_copy(ravel_engine *e, const rule *ru)
{
    const relation *a = &e->rels[ru->source[0]];
    tuple_run runs[FULL_RUNS_MAX];
    unsigned nruns = storage_runs(a, ru->body[0].version, runs);
    unsigned head_arity = e->rels[ru->head].arity;
    const uint64_t *side[2] = {NULL, NULL};
    for (unsigned r = 0; r < nruns; r++)
        for (size_t i = 0; i < runs[r].n; i++) {
            side[0] = runs[r].t + i * a->arity;
            int err = produce(e, ru, head_arity, side);
            if (err != MPI_SUCCESS)
                return err;
        }
    const packed_tuples *p = storage_packed_part(a, ru->body[0].version);
    if (!p)
        return MPI_SUCCESS;
    packed_cursor c;
    for (packed_cursor_seek(&c, p, a->arity, 0); !c.at_end;
         packed_cursor_next(&c)) {
        side[0] = c.cur;
        int err = produce(e, ru, head_arity, side);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* The join of one run of each side: the side behind seeks the other's key
 * (galloping on a flat run, by block heads on a packed one). */
static int join_runs(ravel_engine *e, const rule *ru, tuple_reader *a,
                     tuple_reader *b)
{
    unsigned aa = a->arity, ab = b->arity, k = e->rels[ru->source[0]].key;
    unsigned head_arity = e->rels[ru->head].arity;
    const uint64_t *side[2];
    while (!tuple_reader_done(a) && !tuple_reader_done(b)) {
        int c = tuples_compare(tuple_reader_cur(a), tuple_reader_cur(b), k);
        if (c < 0) {
            tuple_reader_seek(a, tuple_reader_cur(b), k);
            continue;
        }
        if (c > 0) {
            tuple_reader_seek(b, tuple_reader_cur(a), k);
            continue;
        }
        const uint64_t *A, *B;
        size_t na, nb;
        int err = tuple_reader_group(a, k, &A, &na);
        if (err == MPI_SUCCESS)
            err = tuple_reader_group(b, k, &B, &nb);
        for (size_t x = 0; x < na && err == MPI_SUCCESS; x++) {
            side[0] = A + x * aa;
            for (size_t y = 0; y < nb && err == MPI_SUCCESS; y++) {
                side[1] = B + y * ab;
                err = produce(e, ru, head_arity, side);
            }
        }
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

/* Each side is one run (delta) or a few (full): the join is the union of
 * the joins of every pair, runs being disjoint.  Each pair reads copies of
 * the readers as opened (at their start, with no group buffer yet), and
 * frees the buffers the copies grew. */
static int eval_join(ravel_engine *e, rule *ru)
{
    int done;
    int err = join_grouped(e, ru, &done);
    if (err != MPI_SUCCESS || done)
        return err;
    tuple_reader a[FULL_RUNS_MAX + 1], b[FULL_RUNS_MAX + 1];
    unsigned na = open_readers(&e->rels[ru->source[0]], ru->body[0].version,
                               a);
    unsigned nb = open_readers(&e->rels[ru->source[1]], ru->body[1].version,
                               b);
    for (unsigned x = 0; x < na && err == MPI_SUCCESS; x++)
        for (unsigned y = 0; y < nb && err == MPI_SUCCESS; y++) {
            tuple_reader ax = a[x], by = b[y];
            err = join_runs(e, ru, &ax, &by);
            tuple_reader_free(&ax);
            tuple_reader_free(&by);
        }
    return err;
}

/* Whether some run of right holds a tuple whose first k columns are key's;
 * keys come in increasing order, so each run is only moved forward. */
static int readers_hold(tuple_reader *right, unsigned n, const uint64_t *key,
                        unsigned k)
{
    for (unsigned r = 0; r < n; r++) {
        tuple_reader_seek(&right[r], key, k);
        if (!tuple_reader_done(&right[r]) &&
            tuples_compare(tuple_reader_cur(&right[r]), key, k) == 0)
            return 1;
    }
    return 0;
}

/* The anti-join: each group of left tuples sharing a key is produced whole
 * when right holds no tuple with that key, and skipped otherwise; right's
 * runs are each found by seeking from where the last key left them. */
static int eval_antijoin(ravel_engine *e, const rule *ru)
{
    const relation *ra = &e->rels[ru->source[0]];
    const relation *rb = &e->rels[ru->source[1]];
    tuple_reader a[FULL_RUNS_MAX + 1], b[FULL_RUNS_MAX + 1];
    unsigned nra = open_readers(ra, ru->body[0].version, a);
    unsigned nrb = open_readers(rb, RAVEL_FULL, b);
    unsigned aa = ra->arity, k = ra->key;
    unsigned head_arity = e->rels[ru->head].arity;
    const uint64_t *side[2] = {NULL, NULL};
    int err = MPI_SUCCESS;
    for (unsigned r = 0; r < nra && err == MPI_SUCCESS; r++) {
        tuple_reader right[FULL_RUNS_MAX + 1]; /* from the start, per run;
                                                 seeks grow no buffer */
        memcpy(right, b, nrb * sizeof *b);
        while (!tuple_reader_done(&a[r]) && err == MPI_SUCCESS) {
            const uint64_t *A;
            size_t na;
            err = tuple_reader_group(&a[r], k, &A, &na);
            if (err != MPI_SUCCESS || readers_hold(right, nrb, A, k))
                continue;
            for (size_t x = 0; x < na && err == MPI_SUCCESS; x++) {
                side[0] = A + x * aa;
                err = produce(e, ru, head_arity, side);
            }
        }
    }
    close_readers(a, nra);
    return err;
}

/* An aggregate reads its body as one sorted array (a group's tuples
 * adjacent): full's runs are merged first. */
static int one_run(ravel_engine *e, const rule *ru, const uint64_t **t,
                   size_t *n)
{
    relation *a = &e->rels[ru->source[0]];
    int err = ru->body[0].version == RAVEL_FULL || a->delta_is_full
                  ? storage_unpack(a)
                  : storage_unpack_delta(a);
    if (err != MPI_SUCCESS)
        return err;
    tuple_run runs[FULL_RUNS_MAX];
    storage_runs(a, ru->body[0].version, runs);
    *t = runs[0].t;
    *n = runs[0].n;
    return MPI_SUCCESS;
}

/* ---- aggregates (ravel_rule_aggregate) -------------------------------- */

static uint64_t agg_step(ravel_agg op, uint64_t acc, uint64_t v)
{
    switch (op) {
    case RAVEL_AGG_MIN: return v < acc ? v : acc;
    case RAVEL_AGG_MAX: return v > acc ? v : acc;
    default: return acc + v; /* COUNT adds ones, and partial counts */
    }
}

/* Stage 1: this rank's tuples of the body, group by group (they are sorted,
 * so a group's are adjacent), each reduced to one partial result, emitted
 * as (group, rank, partial) to the group's one rank. */
static int eval_agg_partial(ravel_engine *e, const rule *ru)
{
    const relation *a = &e->rels[ru->source[0]];
    size_t n;
    const uint64_t *t;
    int got = one_run(e, ru, &t, &n);
    if (got != MPI_SUCCESS)
        return got;
    unsigned k = ru->agg_groups, kk = k ? k : 1;
    uint64_t out[RAVEL_MAX_ARITY] = {0}, vals[RAVEL_MAX_EXPRS];
    const uint64_t *side[2] = {NULL, NULL};
    if (n == 0 && k == 0 && (ru->agg_op == RAVEL_AGG_COUNT ||
                             ru->agg_op == RAVEL_AGG_SUM)) {
        /* Every rank says 0, so that an empty body still has a result. */
        out[kk] = (uint64_t)e->rank;
        return emit_tuple(e, ru->head, out);
    }
    for (size_t i = 0; i < n;) {
        size_t end = k ? tuples_group_end(t, i, n, a->arity, k) : n;
        uint64_t acc = 0;
        for (size_t x = i; x < end; x++) {
            side[0] = t + x * a->arity;
            if (ru->nexprs) {
                int err = compute(e, ru, side, vals);
                if (err != MPI_SUCCESS)
                    return err;
            }
            uint64_t v = term_value(&ru->agg_value, side, vals);
            acc = x == i ? v : agg_step(ru->agg_op, acc, v);
        }
        for (unsigned c = 0; c < k; c++)
            out[c] = t[i * a->arity + c];
        out[kk] = (uint64_t)e->rank;
        out[kk + 1] = acc;
        int err = emit_tuple(e, ru->head, out);
        if (err != MPI_SUCCESS)
            return err;
        i = end;
    }
    return MPI_SUCCESS;
}

/* Stage 2: the partials that arrived, (group, rank, partial) sorted, each
 * group's combined into the head's (group, result). */
static int eval_agg_reduce(ravel_engine *e, const rule *ru)
{
    const relation *a = &e->rels[ru->source[0]];
    size_t n;
    const uint64_t *t;
    int got = one_run(e, ru, &t, &n);
    if (got != MPI_SUCCESS)
        return got;
    unsigned k = ru->agg_groups, kk = k ? k : 1;
    ravel_agg combine = ru->agg_op == RAVEL_AGG_COUNT ? RAVEL_AGG_SUM
                                                      : ru->agg_op;
    uint64_t out[RAVEL_MAX_ARITY];
    for (size_t i = 0; i < n;) {
        size_t end = tuples_group_end(t, i, n, a->arity, kk);
        uint64_t acc = t[i * a->arity + kk + 1];
        for (size_t x = i + 1; x < end; x++)
            acc = agg_step(combine, acc, t[x * a->arity + kk + 1]);
        for (unsigned c = 0; c < k; c++)
            out[c] = t[i * a->arity + c];
        out[k] = acc ^ ru->agg_xor;
        int err = emit_tuple(e, ru->head, out);
        if (err != MPI_SUCCESS)
            return err;
        i = end;
    }
    return MPI_SUCCESS;
}

int rules_evaluate(ravel_engine *e, stratum *s, uint32_t it)
{
    for (size_t i = 0; i < s->nrules; i++) {
        rule *ru = &s->rules[i];
        int err = check_order(e, ru);
        if (err != MPI_SUCCESS)
            return err;
        /* An aggregate's body is complete: it is reduced once, at the
         * first iteration (later ones would see an empty delta, but an
         * empty body with no group still says 0). */
        if (ru->agg_stage == 1)
            err = it == 1 ? eval_agg_partial(e, ru) : MPI_SUCCESS;
        else if (ru->agg_stage == 2)
            err = eval_agg_reduce(e, ru);
        else
            err = ru->nbody == 1 ? eval_copy(e, ru)
                  : ru->negated  ? eval_antijoin(e, ru)
                                 : eval_join(e, ru);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}
