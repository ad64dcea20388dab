/* Strata: the strongly connected components of the dependency graph
 * (a clause's head depends on each relation of its body), in an order
 * where every component comes after those it depends on (Tarjan's
 * algorithm over the edges head -> body emits a component only after every
 * component it reaches).  Each component that some clause derives is one
 * stratum; relations no clause derives hold facts only and belong to none.
 * A negated relation must lie in a lower component than the head that
 * negates it (else the program is not stratifiable, and the error names
 * the cycle).  Any order consistent with the dependencies gives the same
 * result; this one keeps recursion local. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    ravel_dl_program *p;
    size_t n;
    char *dep;         /* n x n: dep[h * n + b] = 1 when h depends on b */
    int *index, *low, *stack, *on_stack, *component;
    int counter, depth, ncomponents;
} tarjan;

static void visit(tarjan *t, int v)
{
    t->index[v] = t->low[v] = t->counter++;
    t->stack[t->depth++] = v;
    t->on_stack[v] = 1;
    for (size_t w = 0; w < t->n; w++) {
        if (!t->dep[(size_t)v * t->n + w])
            continue;
        if (t->index[w] < 0) {
            visit(t, (int)w);
            if (t->low[w] < t->low[v])
                t->low[v] = t->low[w];
        } else if (t->on_stack[w] && t->index[w] < t->low[v]) {
            t->low[v] = t->index[w];
        }
    }
    if (t->low[v] == t->index[v]) {
        int w;
        do {
            w = t->stack[--t->depth];
            t->on_stack[w] = 0;
            t->component[w] = t->ncomponents;
        } while (w != v);
        t->ncomponents++;
    }
}

/* "r is negated inside its own recursion: a -> b -> a", naming the
 * relations of the component; neg NULL: aggregate clause c's body is. */
static int negation_cycle(ravel_dl_program *p, const tarjan *t,
                          const dl_clause *c, const dl_atom *neg)
{
    char cycle[512];
    size_t len = 0;
    int comp = t->component[c->head.rel];
    cycle[0] = '\0';
    /* Not the front end's own relations (@bN, dl_share_bodies; @aN and
     * @gN, aggregate.c): the user wrote none. */
    for (size_t v = 0; v < t->n && len + 70 < sizeof cycle; v++)
        if (t->component[v] == comp && DL_REL(p, v)->name[0] != '@')
            len += (size_t)snprintf(cycle + len, sizeof cycle - len, "%s%s",
                                    len ? ", " : "", DL_REL(p, v)->name);
    if (!neg && c->of_negation)
        return dl_error_at(p->file, c->pos,
                           "'%s' is negated in the recursion that derives it "
                           "(the relations %s depend on each other): the "
                           "program is not stratifiable", c->of_negation,
                           cycle);
    if (!neg)
        return dl_error_at(p->file, c->pos,
                           "the aggregate is in the recursion that derives "
                           "what it reads (the relations %s depend on each "
                           "other): the program is not stratifiable", cycle);
    return dl_error_at(p->file, neg->pos,
                       "'%s' is negated in the recursion that derives it "
                       "(the relations %s depend on each other): the "
                       "program is not stratifiable", neg->rel_name, cycle);
}

int dl_stratify(ravel_dl_program *p)
{
    size_t n = p->relations.n;
    tarjan t = {.p = p, .n = n};
    int rc = MPI_SUCCESS;
    t.dep = calloc(n * n + 1, 1);
    t.index = malloc((n + 1) * sizeof(int));
    t.low = malloc((n + 1) * sizeof(int));
    t.stack = malloc((n + 1) * sizeof(int));
    t.on_stack = calloc(n + 1, sizeof(int));
    t.component = malloc((n + 1) * sizeof(int));
    int *stratum_of = malloc((n + 1) * sizeof(int));
    if (!t.dep || !t.index || !t.low || !t.stack || !t.on_stack ||
        !t.component || !stratum_of) {
        rc = ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory");
        goto fn_exit;
    }
    for (size_t i = 0; i < p->clauses.n; i++) {
        const dl_clause *c = p->clauses.items[i];
        for (size_t a = 0; a < c->natoms; a++)
            t.dep[(size_t)c->head.rel * n + (size_t)c->atoms[a].rel] = 1;
        for (size_t a = 0; a < c->nnegs; a++)
            t.dep[(size_t)c->head.rel * n + (size_t)c->negs[a].rel] = 1;
    }
    for (size_t v = 0; v < n; v++)
        t.index[v] = -1;
    /* Recursion depth is bounded by the number of relations. */
    for (size_t v = 0; v < n; v++)
        if (t.index[v] < 0)
            visit(&t, (int)v);
    /* Components are numbered in evaluation order; give strata numbers
     * to the derived ones only, in that order. */
    for (int c = 0; c < t.ncomponents; c++)
        stratum_of[c] = -1;
    for (size_t i = 0; i < p->clauses.n; i++) {
        const dl_clause *c = p->clauses.items[i];
        stratum_of[t.component[c->head.rel]] = -2; /* derived */
    }
    p->nstrata = 0;
    for (int c = 0; c < t.ncomponents; c++)
        if (stratum_of[c] == -2)
            stratum_of[c] = p->nstrata++;
    for (size_t v = 0; v < n; v++)
        DL_REL(p, v)->stratum = stratum_of[t.component[v]];
    /* A negated relation must be complete before it is read: in a lower
     * stratum, never in the head's own recursion. */
    for (size_t i = 0; i < p->clauses.n && !rc; i++) {
        const dl_clause *c = p->clauses.items[i];
        for (size_t a = 0; a < c->nnegs && !rc; a++)
            if (t.component[c->negs[a].rel] == t.component[c->head.rel])
                rc = negation_cycle(p, &t, c, &c->negs[a]);
        /* So must an aggregate's body (aggregate.c's @aN). */
        if (!rc && c->is_aggregate &&
            t.component[c->atoms[0].rel] == t.component[c->head.rel])
            rc = negation_cycle(p, &t, c, NULL);
    }

fn_exit:
    free(t.dep);
    free(t.index);
    free(t.low);
    free(t.stack);
    free(t.on_stack);
    free(t.component);
    free(stratum_of);
    return rc;
}
