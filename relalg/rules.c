/* Declaring strata and rules, with every column reference checked, and the
 * hidden replica a join (or anti-join) may need for its right side. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ravel_stratum_begin(ravel_engine *e)
{
    if (e->nstrata == e->capstrata) {
        size_t cap = e->capstrata ? 2 * e->capstrata : 4;
        stratum *s = realloc(e->strata, cap * sizeof *s);
        if (!s)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                                   "strata", cap);
        e->strata = s;
        e->capstrata = cap;
    }
    memset(&e->strata[e->nstrata++], 0, sizeof(stratum));
    return MPI_SUCCESS;
}

static int valid_rel(const ravel_engine *e, ravel_rel r)
{
    return r >= 0 && (size_t)r < e->nrels && e->rels[r].kind != REL_REPLICA;
}

/* t is a constant, a column of one of nbody body atoms, or one of the
 * first nexprs expressions. */
static int check_term(const ravel_engine *e, const ravel_body *body, int nbody,
                      size_t nexprs, ravel_term t, const char *what, size_t i)
{
    if (t.side == RAVEL_SIDE_CONSTANT)
        return MPI_SUCCESS;
    if (t.side == RAVEL_SIDE_EXPR)
        return t.column < nexprs
                   ? MPI_SUCCESS
                   : ravel_error_set(MPI_ERR_ARG, "%s %zu: expression %u "
                                     "(%zu defined before it)", what, i,
                                     t.column, nexprs);
    if (t.side < 0 || t.side >= nbody)
        return ravel_error_set(MPI_ERR_ARG, "%s %zu: side %d (this rule "
                               "has %d body atoms)", what,
                               i, t.side, nbody);
    unsigned arity = e->rels[body[t.side].rel].arity;
    if (t.column >= arity)
        return ravel_error_set(MPI_ERR_ARG, "%s %zu: column %u of %s, "
                               "which has arity %u", what,
                               i, t.column, e->rels[body[t.side].rel].name,
                               arity);
    return MPI_SUCCESS;
}

/* The replica of `right` that follows the layout of `left`, made on first
 * need; returns its id or -1. */
static int replica_for(ravel_engine *e, ravel_rel left, ravel_rel right)
{
    for (size_t i = 0; i < e->nrels; i++) {
        const relation *r = &e->rels[i];
        if (r->kind == REL_REPLICA && r->layout == left &&
            r->copy_of == right)
            return (int)i;
    }
    /* Replicas are named "#<right>" (cut to fit), hidden from lookups by the
     * '#', which declared names may not start with. */
    relation *r = relation_slot(e); /* may move e->rels: index after it */
    if (!r)
        return -1;
    const relation *src = &e->rels[right];
    r->name[0] = '#';
    size_t len = strlen(src->name);
    if (len > sizeof r->name - 2)
        len = sizeof r->name - 2;
    memcpy(r->name + 1, src->name, len);
    r->name[len + 1] = '\0';
    r->kind = REL_REPLICA;
    r->arity = src->arity;
    r->key = src->key;
    r->base = src->base;
    memcpy(r->perm, src->perm, sizeof r->perm);
    r->layout = left;
    r->copy_of = right;
    r->active = 0;
    r->populated = 0;
    if (placement_alloc_layout(e, r) != MPI_SUCCESS) {
        free(r->subs);
        free(r->bucket_count);
        return -1;
    }
    return (int)e->nrels++;
}

static int add_rule(ravel_engine *e, ravel_rel head, const ravel_body *body,
                    int nbody, int negated, const ravel_term *terms,
                    size_t nfilters, const ravel_filter *filters,
                    size_t nexprs, const ravel_expr *exprs)
{
    /* An anti-join's terms see its left side only: no right tuple is
     * there when it produces. */
    int term_sides = negated ? 1 : nbody;
    if (!valid_rel(e, head) || e->rels[head].kind != REL_DECLARED)
        return ravel_error_set(MPI_ERR_ARG, "rule head %d is not a "
                               "declared relation (indexes are read-only)",
                               head);
    for (int i = 0; i < nbody; i++) {
        if (!valid_rel(e, body[i].rel) ||
            (body[i].version != RAVEL_DELTA && body[i].version != RAVEL_FULL))
            return ravel_error_set(MPI_ERR_ARG, "rule for %s: body %d "
                                   "names relation %d, version %d",
                                   e->rels[head].name, i,
                                   body[i].rel, (int)body[i].version);
    }
    if (nbody == 2 && e->rels[body[0].rel].key != e->rels[body[1].rel].key)
        return ravel_error_set(MPI_ERR_ARG, "join for %s: %s has key "
                               "width %u, %s has %u", e->rels[head].name,
                               e->rels[body[0].rel].name,
                               e->rels[body[0].rel].key,
                               e->rels[body[1].rel].name,
                               e->rels[body[1].rel].key);
    unsigned arity = e->rels[head].arity;
    int err = MPI_SUCCESS;
    if (nexprs > RAVEL_MAX_EXPRS)
        err = ravel_error_set(MPI_ERR_ARG, "rule for %s: %zu expressions, "
                              "more than %d", e->rels[head].name, nexprs,
                              RAVEL_MAX_EXPRS);
    for (size_t i = 0; i < nexprs && err == MPI_SUCCESS; i++) {
        err = check_term(e, body, term_sides, i, exprs[i].left,
                         "expression", i);
        if (err == MPI_SUCCESS)
            err = check_term(e, body, term_sides, i, exprs[i].right,
                             "expression", i);
        if (err == MPI_SUCCESS && (exprs[i].op < RAVEL_ADD ||
                                   exprs[i].op > RAVEL_XOR))
            err = ravel_error_set(MPI_ERR_ARG, "expression %zu: operator "
                                  "%d", i, (int)exprs[i].op);
    }
    for (unsigned i = 0; i < arity && err == MPI_SUCCESS; i++)
        err = check_term(e, body, term_sides, nexprs, terms[i], "head term",
                         i);
    for (size_t i = 0; i < nfilters && err == MPI_SUCCESS; i++) {
        err = check_term(e, body, term_sides, nexprs, filters[i].left,
                         "filter", i);
        if (err == MPI_SUCCESS)
            err = check_term(e, body, term_sides, nexprs, filters[i].right,
                             "filter", i);
        if (err == MPI_SUCCESS && (filters[i].op < RAVEL_EQ ||
                                   filters[i].op > RAVEL_ORD_GE))
            err = ravel_error_set(MPI_ERR_ARG, "filter %zu: operator "
                                  "%d", i,
                                  (int)filters[i].op);
    }
    if (err != MPI_SUCCESS)
        return err;
    if (e->nstrata == 0 && (err = ravel_stratum_begin(e)) != MPI_SUCCESS)
        return err;
    stratum *s = &e->strata[e->nstrata - 1];
    if (s->done)
        return ravel_error_set(MPI_ERR_ARG, "the current stratum has "
                               "run; call ravel_stratum_begin first");
    rule *rs = realloc(s->rules, (s->nrules + 1) * sizeof *rs);
    if (!rs)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                               "rules of a stratum", s->nrules + 1);
    s->rules = rs;
    rule *r = &rs[s->nrules];
    memset(r, 0, sizeof *r);
    r->terms = malloc(arity * sizeof *r->terms);
    r->filters = malloc((nfilters ? nfilters : 1) * sizeof *r->filters);
    r->exprs = malloc((nexprs ? nexprs : 1) * sizeof *r->exprs);
    r->replica = -1;
    if (nbody == 2 && (r->replica = replica_for(e, body[0].rel,
                                                body[1].rel)) < 0)
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the "
                              "join replica of a rule for %s",
                              e->rels[head].name);
    if (!r->terms || !r->filters || !r->exprs || err != MPI_SUCCESS) {
        free(r->terms);
        free(r->filters);
        free(r->exprs);
        return err != MPI_SUCCESS ? err
                                  : ravel_error_set(MPI_ERR_NO_MEM,
                                                    "out of memory for the "
                                                    "terms of a rule for %s",
                                                    e->rels[head].name);
    }
    memcpy(r->terms, terms, arity * sizeof *terms);
    if (nfilters)
        memcpy(r->filters, filters, nfilters * sizeof *filters);
    r->nfilters = nfilters;
    if (nexprs)
        memcpy(r->exprs, exprs, nexprs * sizeof *exprs);
    r->nexprs = nexprs;
    r->head = head;
    r->nbody = nbody;
    r->negated = negated;
    memcpy(r->body, body, (size_t)nbody * sizeof *body);
    s->nrules++;
    return MPI_SUCCESS;
}

int ravel_rule_copy_ex(ravel_engine *e, ravel_rel head, ravel_body body,
                       const ravel_term *head_terms, size_t nfilters,
                       const ravel_filter *filters, size_t nexprs,
                       const ravel_expr *exprs)
{
    return add_rule(e, head, &body, 1, 0, head_terms, nfilters, filters,
                    nexprs, exprs);
}

int ravel_rule_join_ex(ravel_engine *e, ravel_rel head, ravel_body left,
                       ravel_body right, const ravel_term *head_terms,
                       size_t nfilters, const ravel_filter *filters,
                       size_t nexprs, const ravel_expr *exprs)
{
    ravel_body body[2] = {left, right};
    return add_rule(e, head, body, 2, 0, head_terms, nfilters, filters,
                    nexprs, exprs);
}

int ravel_rule_antijoin_ex(ravel_engine *e, ravel_rel head, ravel_body left,
                           ravel_rel right, const ravel_term *head_terms,
                           size_t nfilters, const ravel_filter *filters,
                           size_t nexprs, const ravel_expr *exprs)
{
    ravel_body body[2] = {left, {right, RAVEL_FULL}};
    return add_rule(e, head, body, 2, 1, head_terms, nfilters, filters,
                    nexprs, exprs);
}

int ravel_rule_copy(ravel_engine *e, ravel_rel head, ravel_body body,
                    const ravel_term *head_terms, size_t nfilters,
                    const ravel_filter *filters)
{
    return ravel_rule_copy_ex(e, head, body, head_terms, nfilters, filters,
                              0, NULL);
}

int ravel_rule_join(ravel_engine *e, ravel_rel head, ravel_body left,
                    ravel_body right, const ravel_term *head_terms,
                    size_t nfilters, const ravel_filter *filters)
{
    return ravel_rule_join_ex(e, head, left, right, head_terms, nfilters,
                              filters, 0, NULL);
}

int ravel_rule_antijoin(ravel_engine *e, ravel_rel head, ravel_body left,
                        ravel_rel right, const ravel_term *head_terms,
                        size_t nfilters, const ravel_filter *filters)
{
    return ravel_rule_antijoin_ex(e, head, left, right, head_terms, nfilters,
                                  filters, 0, NULL);
}

void rules_bind_sources(ravel_engine *e, stratum *s)
{
    for (size_t i = 0; i < s->nrules; i++) {
        rule *r = &s->rules[i];
        r->source[0] = r->body[0].rel;
        if (r->nbody < 2)
            continue;
        /* The right side's own placement serves while neither side is split
         * (bucket b of both is then whole on rank b % P); the replica is
         * activated by balance.c when either is. */
        r->source[1] = e->rels[r->replica].active ? r->replica
                                                   : r->body[1].rel;
    }
}

/* The last rule added to the current stratum (add_rule just made it). */
static rule *last_rule(ravel_engine *e)
{
    stratum *s = &e->strata[e->nstrata - 1];
    return &s->rules[s->nrules - 1];
}

int ravel_rule_aggregate(ravel_engine *e, ravel_rel head, ravel_rel body,
                         ravel_agg op, ravel_term value, size_t nexprs,
                         const ravel_expr *exprs, uint64_t result_xor)
{
    if (!valid_rel(e, head) || e->rels[head].kind != REL_DECLARED)
        return ravel_error_set(MPI_ERR_ARG, "aggregate head %d is not a "
                               "declared relation", head);
    if (!valid_rel(e, body))
        return ravel_error_set(MPI_ERR_ARG, "aggregate for %s: body %d is "
                               "not a relation", e->rels[head].name, body);
    if (op < RAVEL_AGG_COUNT || op > RAVEL_AGG_MAX)
        return ravel_error_set(MPI_ERR_ARG, "aggregate for %s: operator %d",
                               e->rels[head].name, (int)op);
    unsigned k = e->rels[head].arity - 1;
    if (k > e->rels[body].arity)
        return ravel_error_set(MPI_ERR_ARG, "aggregate for %s: its groups "
                               "have %u columns, more than %s's %u",
                               e->rels[head].name, k, e->rels[body].name,
                               e->rels[body].arity);
    ravel_body in = {body, RAVEL_DELTA};
    int err = op == RAVEL_AGG_COUNT
                  ? MPI_SUCCESS
                  : check_term(e, &in, 1, nexprs, value, "aggregate value", 0);
    if (err != MPI_SUCCESS)
        return err;
    /* The partials (group, rank, partial): keyed and placed on the group
     * (a constant 0 when there is none), never split. */
    unsigned kk = k ? k : 1;
    char name[64];
    snprintf(name, sizeof name, "a%zu.%.40s", e->nrels, e->rels[head].name);
    int partial = relation_add_hidden(e, name, kk + 2, kk);
    if (partial < 0)
        return MPI_ERR_ARG;
    relation *pr = &e->rels[partial];
    pr->never_split = 1;
    for (uint64_t b = 0; b < e->buckets; b++)
        pr->subs[b] = 1;
    pr->split = 0;
    ravel_term terms[RAVEL_MAX_ARITY];
    for (unsigned c = 0; c < kk + 2; c++)
        terms[c] = c < k ? ravel_col(0, c) : ravel_const(0);
    if ((err = add_rule(e, partial, &in, 1, 0, terms, 0, NULL, nexprs,
                        exprs)) != MPI_SUCCESS)
        return err;
    rule *r = last_rule(e);
    r->agg_stage = 1;
    r->agg_op = op;
    r->agg_groups = k;
    r->agg_value = op == RAVEL_AGG_COUNT ? ravel_const(1) : value;
    ravel_body partials = {partial, RAVEL_DELTA};
    if ((err = add_rule(e, head, &partials, 1, 0, terms, 0, NULL, 0,
                        NULL)) != MPI_SUCCESS)
        return err;
    r = last_rule(e);
    r->agg_stage = 2;
    r->agg_op = op;
    r->agg_groups = k;
    r->agg_value = ravel_col(0, kk + 1);
    r->agg_xor = result_xor;
    return MPI_SUCCESS;
}

void ravel_engine_set_order(ravel_engine *e, ravel_order_fn fn, void *arg)
{
    e->order = fn;
    e->order_arg = arg;
}
