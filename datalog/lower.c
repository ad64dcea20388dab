/* Lowering: the plan as engine declarations.  Declared relations first (in
 * their order), then the hidden and index relations in the order the
 * planner made them (an index always after its base), then one stratum
 * per plan stratum with its rules.  Nothing here looks at the syntax. */
#include "dl_run.h"

#include <ravel/error.h>

#include <mpi.h>
#include <string.h>

static ravel_term engine_term(const dl_plan_term *t)
{
    return t->side == -2  ? ravel_expr_ref(t->col)
           : t->side < 0 ? ravel_const(t->value)
                         : ravel_col(t->side, t->col);
}

static int declare_relations(dl_run *r)
{
    const ravel_dl_program *p = r->p;
    for (size_t i = 0; i < p->plan_rels.n; i++) {
        const dl_plan_rel *pr = DL_PREL(p, i);
        int rc;
        if (pr->base >= 0) {
            /* The key in the base's stored columns. */
            unsigned cols[RAVEL_MAX_ARITY];
            for (size_t k = 0; k < pr->key; k++)
                cols[k] = dl_stored_column(p, pr->base, pr->key_cols[k]);
            rc = ravel_relation_index(r->e, r->rels[pr->base], pr->name,
                                      (unsigned)pr->key, cols, &r->rels[i]);
        }
        else
            rc = ravel_relation_declare(r->e, pr->name, (unsigned)pr->arity,
                                        (unsigned)pr->key, &r->rels[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static int declare_rule(dl_run *r, const dl_plan_rule *pr)
{
    const dl_plan_rel *head = DL_PREL(r->p, pr->head);
    ravel_term terms[RAVEL_MAX_ARITY];
    ravel_filter filters[4 * RAVEL_MAX_ARITY];
    if (pr->nfilters > sizeof filters / sizeof filters[0])
        return dl_error_at(r->p->file, pr->pos,
                           "the rule needs %zu filters in one step, more "
                           "than %zu", pr->nfilters,
                           sizeof filters / sizeof filters[0]);
    for (size_t j = 0; j < head->arity; j++)
        terms[j] = engine_term(&pr->head_terms[j]);
    for (size_t k = 0; k < pr->nfilters; k++) {
        filters[k].left = engine_term(&pr->filters[k].left);
        filters[k].op = (ravel_cmp)pr->filters[k].op;
        if (pr->filters[k].by_text)
            filters[k].op = (ravel_cmp)(RAVEL_ORD_LT +
                                        (pr->filters[k].op - DL_LT));
        filters[k].right = engine_term(&pr->filters[k].right);
    }
    ravel_expr exprs[RAVEL_MAX_EXPRS];
    for (size_t x = 0; x < pr->nexprs; x++) {
        exprs[x].op = pr->exprs[x].op;
        exprs[x].left = engine_term(&pr->exprs[x].left);
        exprs[x].right = engine_term(&pr->exprs[x].right);
    }
    if (pr->aggregate)
        return ravel_rule_aggregate(r->e, r->rels[pr->head],
                                    r->rels[pr->body[0]],
                                    (ravel_agg)(pr->aggregate - 1),
                                    engine_term(&pr->agg_value),
                                    pr->nexprs, exprs, pr->agg_xor);
    ravel_body body[2];
    for (int s = 0; s < pr->nbody; s++) {
        body[s].rel = r->rels[pr->body[s]];
        body[s].version = pr->delta[s] ? RAVEL_DELTA : RAVEL_FULL;
    }
    if (pr->nbody == 1)
        return ravel_rule_copy_ex(r->e, r->rels[pr->head], body[0], terms,
                                  pr->nfilters, filters, pr->nexprs, exprs);
    if (pr->negated)
        return ravel_rule_antijoin_ex(r->e, r->rels[pr->head], body[0],
                                      body[1].rel, terms, pr->nfilters,
                                      filters, pr->nexprs, exprs);
    return ravel_rule_join_ex(r->e, r->rels[pr->head], body[0], body[1],
                              terms, pr->nfilters, filters, pr->nexprs,
                              exprs);
}

int dl_lower(dl_run *r)
{
    /* The filter ops are the engine's, in the same order. */
    _Static_assert((int)DL_EQ == (int)RAVEL_EQ && (int)DL_GE == (int)RAVEL_GE,
                   "dl_cmp_op and ravel_cmp agree");
    _Static_assert((int)DL_AGG_COUNT == (int)RAVEL_AGG_COUNT &&
                       (int)DL_AGG_MAX == (int)RAVEL_AGG_MAX,
                   "dl_agg_op and ravel_agg agree");
    int rc = declare_relations(r);
    const ravel_dl_program *p = r->p;
    int stratum = -1;
    for (size_t i = 0; i < p->plan_rules.n && !rc; i++) {
        const dl_plan_rule *pr = p->plan_rules.items[i];
        if (pr->stratum != stratum) {
            stratum = pr->stratum;
            if ((rc = ravel_stratum_begin(r->e)))
                break;
        }
        rc = declare_rule(r, pr);
    }
    return rc;
}
