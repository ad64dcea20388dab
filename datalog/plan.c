/* The planner: each conjunctive clause becomes engine rules of one or two
 * body atoms, and each of those one rule per semi-naive version.
 *
 * Join order (the heuristic, in order of precedence):
 *  1. the clause's first atom of its own stratum goes first (it is the
 *     recursive, growing relation: the engine wants it on the left of the
 *     join, spread over sub-buckets), else its first atom;
 *  2. then, repeatedly, the earliest remaining atom in the text that shares
 *     a variable with those bound so far (none does: the earliest, a
 *     cartesian product).
 * The text's order, as Soufflé evaluates it, so a program ordered for
 * Soufflé is ordered here, and its author decides.  Before, step 2 took
 * the atom sharing the *most* bound variables: in k-CFA's call rule that
 * joined ReachesCfg(a, t) with AEval(f, t, ...) on the context t alone
 * (every value of f for a context) before App(a, f, ...) bound f, an
 * intermediate 300 times the size (examples/datalog/kcfa_k2.dl).
 * A clause of atoms a0..an-1 becomes the chain
 *     T1(...) :- a0, a1.   T2(...) :- T1, a2.   ...   head :- Tn-2, an-1.
 * through hidden relations T, each holding only the variables still needed
 * (by the head, a later atom or a comparison not yet applied), with the
 * next join's variables first as its key.  The chain is a plain rewriting
 * of the program (each T is a new derived relation of the head's stratum),
 * so semi-naive evaluation of the rewritten rules is that of the clause.
 *
 * Keys.  A join pairs tuples equal on all the variables its two sides
 * share.  A declared relation is stored with the key its joins read most
 * (a first plan counts them: in TC, path keyed on its second column, as
 * ravel-tc stores it); a side that needs other key columns reads a
 * secondary index of it (the engine keeps it in step), one per distinct
 * (relation, key columns), shared by every rule that needs it.  Constants in atoms, repeated variables and
 * comparisons become the engine rule's filters, each at the first step
 * where its variables are bound.  An atom sharing no variable with those
 * before it (a cartesian product) is joined on a constant: both sides are
 * copied into hidden relations whose first column is 0 (all on one rank's
 * bucket: correct, not parallel).
 *
 * Versions.  A copy rule reads its body's delta: at a stratum's start the
 * engine makes every relation's delta its whole content, so the first
 * iteration sees every tuple and later ones the new tuples only.  A join
 * rule gets one version per body atom of its own stratum, that atom's
 * delta against the other's full relation; with none, one version (left
 * delta, right full), which finds everything in the stratum's first
 * iteration and nothing after, since lower strata no longer change. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

/* ---- plan relations ------------------------------------------------------------ */

static int add_plan_rel(ravel_dl_program *p, dl_plan_rel **out)
{
    dl_plan_rel *r = dl_alloc(&p->arena, sizeof *r);
    if (!r || dl_vec_push(&p->arena, &p->plan_rels, r))
        return NOMEM();
    r->base = -1;
    r->declared = -1;
    r->stratum = -1;
    *out = r;
    return 0;
}

/* The plan relation reading declared relation `base` keyed on its columns
 * cols[0..nkey): base itself when it is stored so, else an index. */
static int index_of(ravel_dl_program *p, int base, size_t nkey,
                    const unsigned *cols, int *out)
{
    const dl_plan_rel *b = DL_PREL(p, base);
    if (b->key == nkey && !memcmp(b->perm, cols, nkey * sizeof *cols)) {
        *out = base;
        return 0;
    }
    for (size_t i = 0; i < p->plan_rels.n; i++) {
        const dl_plan_rel *r = DL_PREL(p, i);
        if (r->base == base && r->key == nkey &&
            !memcmp(r->key_cols, cols, nkey * sizeof *cols)) {
            *out = (int)i;
            return 0;
        }
    }
    dl_plan_rel *r;
    int rc = add_plan_rel(p, &r);
    if (rc)
        return rc;
    b = DL_PREL(p, base);
    r->arity = b->arity;
    r->key = nkey;
    r->base = base;
    r->stratum = b->stratum;
    memcpy(r->key_cols, cols, nkey * sizeof *cols);
    int len = snprintf(r->name, sizeof r->name, "@i%zu.%s",
                       p->plan_rels.n - 1, b->name);
    for (size_t k = 0; k < nkey && len < (int)sizeof r->name; k++)
        len += snprintf(r->name + len, sizeof r->name - (size_t)len, ".%u",
                        cols[k]);
    *out = (int)p->plan_rels.n - 1;
    return 0;
}

unsigned dl_stored_column(const ravel_dl_program *p, int rel, unsigned col)
{
    const dl_plan_rel *r = DL_PREL(p, rel);
    if (r->declared >= 0) {
        for (unsigned i = 0; i < r->arity; i++)
            if (r->perm[i] == col)
                return i;
        return col;
    }
    if (r->base < 0)
        return col; /* hidden: the planner's own order */
    /* An index: its base's stored key columns first, then the rest of the
     * base's stored columns in order. */
    unsigned at = dl_stored_column(p, r->base, col), before = 0;
    for (size_t k = 0; k < r->key; k++) {
        unsigned kc = dl_stored_column(p, r->base, r->key_cols[k]);
        if (kc == at)
            return (unsigned)k;
        if (kc < at)
            before++;
    }
    return (unsigned)r->key + at - before;
}

/* ---- variables ------------------------------------------------------------------- */

typedef struct {
    const char **names;
    size_t n;
} var_list;

static int var_index(const var_list *v, const char *name)
{
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->names[i], name))
            return (int)i;
    return -1;
}

static int var_push(var_list *v, size_t cap, const char *name)
{
    if (var_index(v, name) >= 0)
        return 0;
    if (v->n == cap)
        return -1;
    v->names[v->n++] = name;
    return 0;
}

/* One side of an engine rule: a plan relation and, for each variable it
 * binds, its column there. */
typedef struct {
    int rel;
    var_list vars;
    unsigned *cols;
} side;

typedef struct {
    ravel_dl_program *p;
    const dl_clause *c;
    int stratum;
    size_t maxvars;  /* every variable of the clause */
    int *applied;    /* per comparison */
    dl_plan_filter *filters;
    size_t nfilters;
    dl_plan_expr exprs[RAVEL_MAX_EXPRS]; /* of the rule being built */
    size_t nexprs;
} clause_plan;

static int side_alloc(clause_plan *cp, side *s)
{
    s->vars.names = dl_alloc(&cp->p->arena, cp->maxvars * sizeof(char *));
    s->cols = dl_alloc(&cp->p->arena, cp->maxvars * sizeof(unsigned));
    s->vars.n = 0;
    return s->vars.names && s->cols ? 0 : NOMEM();
}

static int add_filter(clause_plan *cp, dl_plan_term l, dl_cmp_op op,
                      dl_plan_term r)
{
    size_t cap = 2 * cp->maxvars + cp->c->ncmps + 2 * RAVEL_MAX_ARITY;
    if (cp->nfilters == cap)
        return ravel_error_set(MPI_ERR_INTERN, "datalog: too many filters");
    dl_plan_filter *f = &cp->filters[cp->nfilters++];
    f->left = l;
    f->op = op;
    f->right = r;
    f->by_text = 0;
    return 0;
}

static dl_plan_term col_term(int s, unsigned col)
{
    dl_plan_term t = {s, col, 0};
    return t;
}

static dl_plan_term const_term(uint64_t v)
{
    dl_plan_term t = {-1, 0, v};
    return t;
}

/* An atom as side `which` read through plan relation rel: its variables'
 * columns, and filters for its constants and repeated variables. */
static int bind_atom(clause_plan *cp, const dl_atom *a, int rel, int which,
                     side *s)
{
    int rc = side_alloc(cp, s);
    if (rc)
        return rc;
    s->rel = rel;
    const dl_relation *r = DL_REL(cp->p, a->rel);
    for (size_t j = 0; j < a->arity; j++) {
        const dl_term *t = &a->args[j];
        unsigned col = dl_stored_column(cp->p, rel, (unsigned)j);
        if (t->kind == DL_TERM_WILD)
            continue;
        if (t->kind != DL_TERM_VAR) {
            uint64_t v;
            if ((rc = dl_encode_term(cp->p->file, t, r->col_types[j], &v)) ||
                (rc = add_filter(cp, col_term(which, col), DL_EQ,
                                 const_term(v))))
                return rc;
            continue;
        }
        int seen = var_index(&s->vars, t->name);
        if (seen >= 0) {
            if ((rc = add_filter(cp, col_term(which, s->cols[seen]), DL_EQ,
                                 col_term(which, col))))
                return rc;
            continue;
        }
        s->cols[s->vars.n] = col;
        s->vars.names[s->vars.n++] = t->name;
    }
    return 0;
}

static int term_value(clause_plan *cp, const side *sides, int nsides,
                      const dl_term *t, dl_type type, dl_plan_term *out);

static int add_expr(clause_plan *cp, ravel_op op, dl_plan_term l,
                    dl_plan_term r, dl_plan_term *out)
{
    if (cp->nexprs == RAVEL_MAX_EXPRS)
        return dl_error_at(cp->p->file, cp->c->pos,
                           "the rule computes more than %d values in one "
                           "step", RAVEL_MAX_EXPRS);
    cp->exprs[cp->nexprs] = (dl_plan_expr){op, l, r};
    *out = (dl_plan_term){-2, (unsigned)cp->nexprs++, 0};
    return 0;
}

/* t's value as plain 64-bit arithmetic sees it: a number decoded from its
 * stored form (sign bit flipped back), an unsigned as stored. */
static int raw_value(clause_plan *cp, const side *sides, int nsides,
                     const dl_term *t, dl_type type, dl_plan_term *out)
{
    int rc;
    if (t->kind != DL_TERM_ARITH) {
        dl_plan_term v;
        if ((rc = term_value(cp, sides, nsides, t, type, &v)))
            return rc;
        if (type != DL_NUMBER)
            *out = v;
        else if (v.side == -1)
            *out = const_term(v.value ^ DL_SIGN_BIT);
        else
            rc = add_expr(cp, RAVEL_XOR, v, const_term(DL_SIGN_BIT),
                          out);
        return rc;
    }
    dl_plan_term l, r = const_term(0);
    if ((rc = raw_value(cp, sides, nsides, t->lhs, type, &l)) ||
        (t->rhs && (rc = raw_value(cp, sides, nsides, t->rhs, type, &r))))
        return rc;
    int sign = type == DL_NUMBER;
    switch (t->op) {
    case '+': return add_expr(cp, RAVEL_ADD, l, r, out);
    case '-': return add_expr(cp, RAVEL_SUB, l, r, out);
    case '*': return add_expr(cp, RAVEL_MUL, l, r, out);
    case '/': return add_expr(cp, sign ? RAVEL_SDIV : RAVEL_UDIV, l, r, out);
    case '%': return add_expr(cp, sign ? RAVEL_SREM : RAVEL_UREM, l, r, out);
    default: /* 'n' */
        return add_expr(cp, RAVEL_SUB, const_term(0), l, out);
    }
}

/* The value of term t in a rule whose sides are sides[0..nsides): a column
 * of the first side binding it, a constant of type `type`, or, for
 * arithmetic, an expression computed in the rule (numbers decoded, the
 * operations, the result encoded again). */
static int term_value(clause_plan *cp, const side *sides, int nsides,
                      const dl_term *t, dl_type type, dl_plan_term *out)
{
    if (t->kind == DL_TERM_ARITH) {
        dl_plan_term raw;
        int rc = raw_value(cp, sides, nsides, t, type, &raw);
        if (rc || type != DL_NUMBER) {
            *out = raw;
            return rc;
        }
        return add_expr(cp, RAVEL_XOR, raw, const_term(DL_SIGN_BIT),
                        out);
    }
    if (t->kind != DL_TERM_VAR) {
        uint64_t v;
        int rc = dl_encode_term(cp->p->file, t, type, &v);
        *out = const_term(v);
        return rc;
    }
    for (int s = 0; s < nsides; s++) {
        int i = var_index(&sides[s].vars, t->name);
        if (i >= 0) {
            *out = col_term(s, sides[s].cols[i]);
            return 0;
        }
    }
    return ravel_error_set(MPI_ERR_INTERN, "datalog: %s unbound in plan",
                           t->name);
}

static dl_type var_type(const clause_plan *cp, const char *name)
{
    return dl_clause_var_type(cp->p, cp->c, name);
}

/* The type a comparison compares in: its variables' (the checker made
 * them agree), a string's, or number for constants alone. */
static dl_type comparison_type(const clause_plan *cp, const dl_cmp *cmp)
{
    const char *v = dl_term_first_var(&cmp->left);
    if (!v)
        v = dl_term_first_var(&cmp->right);
    if (v)
        return var_type(cp, v);
    return cmp->left.kind == DL_TERM_STRING ? DL_SYMBOL : DL_NUMBER;
}

static int bound_by(const side *sides, int nsides, const dl_term *t)
{
    if (t->kind == DL_TERM_ARITH)
        return bound_by(sides, nsides, t->lhs) &&
               (!t->rhs || bound_by(sides, nsides, t->rhs));
    if (t->kind != DL_TERM_VAR)
        return 1;
    for (int s = 0; s < nsides; s++)
        if (var_index(&sides[s].vars, t->name) >= 0)
            return 1;
    return 0;
}

/* Filters for the comparisons whose variables these sides bind. */
static int apply_comparisons(clause_plan *cp, const side *sides, int nsides)
{
    for (size_t k = 0; k < cp->c->ncmps; k++) {
        const dl_cmp *cmp = &cp->c->cmps[k];
        if ((cmp->left.kind == DL_TERM_NUMBER ||
             cmp->left.kind == DL_TERM_STRING) &&
            (cmp->right.kind == DL_TERM_NUMBER ||
             cmp->right.kind == DL_TERM_STRING))
            cp->applied[k] = 1; /* folded by dl_plan: it holds */
        if (cp->applied[k] || !bound_by(sides, nsides, &cmp->left) ||
            !bound_by(sides, nsides, &cmp->right))
            continue;
        dl_type type = comparison_type(cp, cmp);
        dl_plan_term l, r;
        int rc = term_value(cp, sides, nsides, &cmp->left, type, &l);
        if (rc || (rc = term_value(cp, sides, nsides, &cmp->right, type, &r)) ||
            (rc = add_filter(cp, l, cmp->op, r)))
            return rc;
        /* A symbol's id is a hash: symbols order by their strings. */
        cp->filters[cp->nfilters - 1].by_text =
            type == DL_SYMBOL && cmp->op != DL_EQ && cmp->op != DL_NE;
        cp->applied[k] = 1;
    }
    return 0;
}

/* ---- emitting rules ---------------------------------------------------------------- */

static int in_stratum(const clause_plan *cp, int rel)
{
    return DL_PREL(cp->p, rel)->stratum == cp->stratum;
}

/* Emits head :- sides (a copy of one side, or a join of two), or, when
 * anti_right >= 0, head :- sides[0], !anti_right: one rule per semi-naive
 * version. */
static int emit_rule(clause_plan *cp, int head, const side *sides,
                     int nsides, int anti_right,
                     const dl_plan_term *head_terms)
{
    const dl_plan_rel *h = DL_PREL(cp->p, head);
    dl_plan_term *terms = dl_alloc(&cp->p->arena, h->arity * sizeof *terms);
    dl_plan_filter *filters =
        dl_alloc(&cp->p->arena, (cp->nfilters + 1) * sizeof *filters);
    dl_plan_expr *exprs =
        dl_alloc(&cp->p->arena, (cp->nexprs + 1) * sizeof *exprs);
    if (!terms || !filters || !exprs)
        return NOMEM();
    memcpy(exprs, cp->exprs, cp->nexprs * sizeof *exprs);
    /* head_terms are in declared column order; the engine wants them in
     * stored order. */
    for (size_t j = 0; j < h->arity; j++)
        terms[h->declared >= 0 ? dl_stored_column(cp->p, head, (unsigned)j)
                               : j] = head_terms[j];
    memcpy(filters, cp->filters, cp->nfilters * sizeof *filters);
    int versions[2][2] = {{1, 0}, {0, 1}}, nversions = 0, chosen[2];
    if (nsides == 1) {
        chosen[nversions++] = 0; /* copy or anti-join: the delta */
    } else {
        for (int s = 0; s < 2; s++)
            if (in_stratum(cp, sides[s].rel))
                chosen[nversions++] = s;
        if (nversions == 0)
            chosen[nversions++] = 0;
    }
    for (int v = 0; v < nversions; v++) {
        dl_plan_rule *r = dl_alloc(&cp->p->arena, sizeof *r);
        if (!r || dl_vec_push(&cp->p->arena, &cp->p->plan_rules, r))
            return NOMEM();
        r->stratum = cp->stratum;
        r->head = head;
        r->nbody = nsides;
        for (int s = 0; s < nsides; s++) {
            r->body[s] = sides[s].rel;
            r->delta[s] = nsides == 1 ? 1 : versions[chosen[v]][s];
        }
        if (anti_right >= 0) {
            /* The negated side is complete (a lower stratum): read whole. */
            r->negated = 1;
            r->nbody = 2;
            r->body[1] = anti_right;
            r->delta[1] = 0;
        }
        r->head_terms = terms;
        r->filters = filters;
        r->nfilters = cp->nfilters;
        r->exprs = exprs;
        r->nexprs = cp->nexprs;
        r->pos = cp->c->pos;
    }
    cp->nfilters = 0;
    cp->nexprs = 0;
    return 0;
}

static int emit(clause_plan *cp, int head, const side *sides, int nsides,
                const dl_plan_term *head_terms)
{
    return emit_rule(cp, head, sides, nsides, -1, head_terms);
}

static int head_terms_of(clause_plan *cp, const side *sides, int nsides,
                         dl_plan_term *out)
{
    const dl_atom *h = &cp->c->head;
    const dl_relation *r = DL_REL(cp->p, h->rel);
    for (size_t j = 0; j < h->arity; j++) {
        int rc = term_value(cp, sides, nsides, &h->args[j], r->col_types[j],
                            &out[j]);
        if (rc)
            return rc;
    }
    return 0;
}

/* ---- one clause ---------------------------------------------------------------------- */

static void atom_vars(const dl_atom *a, var_list *into, size_t cap)
{
    for (size_t j = 0; j < a->arity; j++)
        if (a->args[j].kind == DL_TERM_VAR)
            (void)var_push(into, cap, a->args[j].name);
}

static int shared_count(const var_list *bound, const dl_atom *a)
{
    int n = 0;
    for (size_t j = 0; j < a->arity; j++) {
        const dl_term *t = &a->args[j];
        int dup = 0;
        for (size_t k = 0; k < j; k++)
            dup |= a->args[k].kind == DL_TERM_VAR && t->kind == DL_TERM_VAR &&
                   !strcmp(a->args[k].name, t->name);
        n += !dup && t->kind == DL_TERM_VAR && var_index(bound, t->name) >= 0;
    }
    return n;
}

/* Is `name` still needed once atoms done[] are joined? */
static int needed_later(const clause_plan *cp, const int *done,
                        const char *name)
{
    const dl_clause *c = cp->c;
    for (size_t j = 0; j < c->head.arity; j++)
        if (dl_term_mentions(&c->head.args[j], name))
            return 1;
    for (size_t i = 0; i < c->natoms; i++)
        if (!done[i])
            for (size_t j = 0; j < c->atoms[i].arity; j++)
                if (dl_term_mentions(&c->atoms[i].args[j], name))
                    return 1;
    for (size_t i = 0; i < c->nnegs; i++)
        for (size_t j = 0; j < c->negs[i].arity; j++)
            if (dl_term_mentions(&c->negs[i].args[j], name))
                return 1;
    for (size_t k = 0; k < c->ncmps; k++)
        if (!cp->applied[k] &&
            (dl_term_mentions(&c->cmps[k].left, name) ||
             dl_term_mentions(&c->cmps[k].right, name)))
            return 1;
    return 0;
}

static int pick_next(const clause_plan *cp, const int *done,
                     const var_list *bound)
{
    int first = -1;
    for (size_t i = 0; i < cp->c->natoms; i++) {
        if (done[i])
            continue;
        if (shared_count(bound, &cp->c->atoms[i]) > 0)
            return (int)i;
        if (first < 0)
            first = (int)i;
    }
    return first;
}

/* The shared variables of `left` and atom a, in left's order, and their
 * columns in a; none means a cartesian product. */
static size_t join_key(const var_list *left, const dl_atom *a,
                       const char **key_vars, unsigned *atom_cols)
{
    size_t nkey = 0;
    for (size_t i = 0; i < left->n; i++)
        for (size_t j = 0; j < a->arity; j++)
            if (a->args[j].kind == DL_TERM_VAR &&
                !strcmp(a->args[j].name, left->names[i])) {
                key_vars[nkey] = left->names[i];
                atom_cols[nkey++] = (unsigned)j;
                break;
            }
    return nkey;
}

/* A hidden relation of the clause's stratum holding `vars` (after a
 * constant 0 column when `cross`: a cartesian product joins on it), keyed
 * on its first `key` columns; s gets its variables' columns. */
static int new_hidden(clause_plan *cp, const var_list *vars, size_t key,
                      int cross, side *s)
{
    size_t arity = vars->n + (cross ? 1 : 0);
    if (arity > RAVEL_MAX_ARITY)
        return dl_error_at(cp->p->file, cp->c->pos,
                           "the rule needs %zu variables at once, more than "
                           "%d", vars->n, RAVEL_MAX_ARITY);
    dl_plan_rel *tr;
    int rc = add_plan_rel(cp->p, &tr);
    if (rc || (rc = side_alloc(cp, s)))
        return rc;
    tr->arity = arity;
    tr->key = cross ? 1 : key;
    tr->stratum = cp->stratum;
    snprintf(tr->name, sizeof tr->name, "@t%zu.%s", cp->p->plan_rels.n - 1,
             DL_REL(cp->p, cp->c->head.rel)->name);
    s->rel = (int)cp->p->plan_rels.n - 1;
    for (size_t k = 0; k < vars->n; k++) {
        s->vars.names[k] = vars->names[k];
        s->cols[k] = (unsigned)(k + (cross ? 1 : 0));
    }
    s->vars.n = vars->n;
    return 0;
}

/* Emits hidden :- from (sides[0..nsides)), writing t's variables (and the
 * constant 0 first when cross). */
static int fill_hidden(clause_plan *cp, const side *t, int cross,
                       const side *from, int nsides, dl_plan_term *terms)
{
    size_t at = 0;
    if (cross)
        terms[at++] = const_term(0);
    for (size_t k = 0; k < t->vars.n; k++) {
        dl_term v = {.kind = DL_TERM_VAR, .name = t->vars.names[k]};
        int rc = term_value(cp, from, nsides, &v, DL_NUMBER, &terms[at++]);
        if (rc)
            return rc;
    }
    return emit(cp, t->rel, from, nsides, terms);
}

/* An atom as the right side of a cartesian product: copied into a hidden
 * relation (0, its variables...), its constants and comparisons applied in
 * the copy. */
static int cross_side(clause_plan *cp, const dl_atom *a, dl_plan_term *terms,
                      side *out)
{
    side s;
    var_list vars = {NULL, 0};
    vars.names = dl_alloc(&cp->p->arena, cp->maxvars * sizeof(char *));
    if (!vars.names)
        return NOMEM();
    atom_vars(a, &vars, cp->maxvars);
    int rc = bind_atom(cp, a, a->rel, 0, &s);
    if (rc || (rc = apply_comparisons(cp, &s, 1)) ||
        (rc = new_hidden(cp, &vars, 1, 1, out)))
        return rc;
    return fill_hidden(cp, out, 1, &s, 1, terms);
}

/* Is `name` read by the head or by negated atoms from index `from` on? */
static int needed_after_negation(const dl_clause *c, size_t from,
                                 const char *name)
{
    for (size_t j = 0; j < c->head.arity; j++)
        if (dl_term_mentions(&c->head.args[j], name))
            return 1;
    for (size_t i = from; i < c->nnegs; i++)
        for (size_t j = 0; j < c->negs[i].arity; j++)
            if (c->negs[i].args[j].kind == DL_TERM_VAR &&
                !strcmp(c->negs[i].args[j].name, name))
                return 1;
    return 0;
}

/* The clause's end, once its positive atoms are joined into sides: each
 * negated atom in turn is an anti-join of a hidden relation keyed on the
 * atom's bound columns (its variables' values and its constants; '_'
 * columns are left out of the key) with an index of the negated relation
 * keyed the same way, so a tuple meets the facts that would refute it on
 * its own rank; then the head. */
static int finish(clause_plan *cp, side *sides, int nsides,
                  dl_plan_term *terms)
{
    ravel_dl_program *p = cp->p;
    const dl_clause *c = cp->c;
    side cur[2] = {sides[0], nsides > 1 ? sides[1] : sides[0]};
    int ncur = nsides, anti = -1;
    for (size_t i = 0; i < c->nnegs; i++) {
        const dl_atom *n = &c->negs[i];
        const dl_relation *nr = DL_REL(p, n->rel);
        unsigned cols[RAVEL_MAX_ARITY];
        size_t nkey = 0;
        for (size_t j = 0; j < n->arity; j++)
            if (n->args[j].kind != DL_TERM_WILD)
                cols[nkey++] = (unsigned)j;
        if (nkey == 0)
            return dl_error_at(p->file, n->pos,
                               "'!%s' with only '_' arguments is not "
                               "supported yet", n->rel_name);
        int right, rc = index_of(p, n->rel, nkey, cols, &right);
        if (rc)
            return rc;
        /* The hidden relation: the key values, then the variables still
         * needed (a key variable is bound to its key column). */
        side t;
        dl_plan_rel *tr;
        if ((rc = side_alloc(cp, &t)) || (rc = add_plan_rel(p, &tr)))
            return rc;
        size_t at = 0;
        for (size_t k = 0; k < nkey; k++) {
            const dl_term *arg = &n->args[cols[k]];
            if ((rc = term_value(cp, cur, ncur, arg, nr->col_types[cols[k]],
                                 &terms[at])))
                return rc;
            if (arg->kind == DL_TERM_VAR &&
                var_index(&t.vars, arg->name) < 0) {
                t.vars.names[t.vars.n] = arg->name;
                t.cols[t.vars.n++] = (unsigned)at;
            }
            at++;
        }
        for (int s = 0; s < ncur; s++)
            for (size_t v = 0; v < cur[s].vars.n; v++) {
                const char *name = cur[s].vars.names[v];
                if (var_index(&t.vars, name) >= 0 ||
                    !needed_after_negation(c, i + 1, name))
                    continue;
                dl_term var = {.kind = DL_TERM_VAR, .name = name};
                if ((rc = term_value(cp, cur, ncur, &var, DL_NUMBER,
                                     &terms[at])))
                    return rc;
                t.vars.names[t.vars.n] = name;
                t.cols[t.vars.n++] = (unsigned)at++;
            }
        if (at > RAVEL_MAX_ARITY)
            return dl_error_at(p->file, c->pos,
                               "the rule needs %zu columns at once, more "
                               "than %d", at, RAVEL_MAX_ARITY);
        tr->arity = at;
        tr->key = nkey;
        tr->stratum = cp->stratum;
        snprintf(tr->name, sizeof tr->name, "@n%zu.%s", p->plan_rels.n - 1,
                 DL_REL(p, c->head.rel)->name);
        t.rel = (int)p->plan_rels.n - 1;
        if ((rc = emit_rule(cp, t.rel, cur, anti >= 0 ? 1 : ncur, anti,
                            terms)))
            return rc;
        cur[0] = t;
        ncur = 1;
        anti = right;
    }
    int rc = head_terms_of(cp, cur, ncur, terms);
    return rc ? rc : emit_rule(cp, c->head.rel, cur, ncur, anti, terms);
}

static int plan_clause(ravel_dl_program *p, const dl_clause *c)
{
    clause_plan cp = {.p = p, .c = c,
                      .stratum = DL_REL(p, c->head.rel)->stratum};
    size_t nterms = 0;
    for (size_t i = 0; i < c->natoms; i++)
        nterms += c->atoms[i].arity;
    cp.maxvars = nterms + 1;
    cp.applied = dl_alloc(&p->arena, (c->ncmps + 1) * sizeof(int));
    cp.filters = dl_alloc(&p->arena, (2 * cp.maxvars + c->ncmps +
                                      2 * RAVEL_MAX_ARITY) *
                                         sizeof *cp.filters);
    int *done = dl_alloc(&p->arena, c->natoms * sizeof(int));
    dl_plan_term *terms = dl_alloc(&p->arena, (cp.maxvars + RAVEL_MAX_ARITY) *
                                                  sizeof *terms);
    unsigned *key_cols = dl_alloc(&p->arena, cp.maxvars * sizeof(unsigned));
    const char **kv = dl_alloc(&p->arena, cp.maxvars * sizeof(char *));
    var_list bound = {NULL, 0}, keep = {NULL, 0};
    bound.names = dl_alloc(&p->arena, cp.maxvars * sizeof(char *));
    keep.names = dl_alloc(&p->arena, cp.maxvars * sizeof(char *));
    if (!cp.applied || !cp.filters || !done || !terms || !key_cols || !kv ||
        !bound.names || !keep.names)
        return NOMEM();
    int rc;

    int first = 0;
    for (size_t i = 0; i < c->natoms; i++)
        if (DL_REL(p, c->atoms[i].rel)->stratum == cp.stratum) {
            first = (int)i;
            break;
        }
    done[first] = 1;
    const dl_atom *a0 = &c->atoms[first];
    if (c->natoms == 1) {
        side s;
        if ((rc = bind_atom(&cp, a0, a0->rel, 0, &s)) ||
            (rc = apply_comparisons(&cp, &s, 1)))
            return rc;
        return finish(&cp, &s, 1, terms);
    }

    /* The left side: a0 first (left_is_atom), then each step's hidden
     * relation, made with the next join's key first, or with a leading 0
     * column when the next atom shares nothing with it. */
    atom_vars(a0, &bound, cp.maxvars);
    int left_is_atom = 1, planned = -1;
    side left;
    for (size_t step = 1; step < c->natoms; step++) {
        int next = planned >= 0 ? planned : pick_next(&cp, done, &bound);
        const dl_atom *a = &c->atoms[next];
        size_t nkey = join_key(&bound, a, kv, key_cols);
        side sides[2];
        if (nkey == 0) {
            if (left_is_atom) {
                side s0;
                if ((rc = bind_atom(&cp, a0, a0->rel, 0, &s0)) ||
                    (rc = apply_comparisons(&cp, &s0, 1)) ||
                    (rc = new_hidden(&cp, &bound, 1, 1, &left)) ||
                    (rc = fill_hidden(&cp, &left, 1, &s0, 1, terms)))
                    return rc;
            }
            sides[0] = left;
            if ((rc = cross_side(&cp, a, terms, &sides[1])) ||
                (rc = apply_comparisons(&cp, sides, 2)))
                return rc;
        } else {
            if (left_is_atom) {
                /* a0 keyed on its columns holding the key variables. */
                unsigned cols0[RAVEL_MAX_ARITY];
                for (size_t k = 0; k < nkey; k++)
                    for (size_t j = a0->arity; j-- > 0;)
                        if (a0->args[j].kind == DL_TERM_VAR &&
                            !strcmp(a0->args[j].name, kv[k]))
                            cols0[k] = (unsigned)j; /* its first column */
                int rel;
                if ((rc = index_of(p, a0->rel, nkey, cols0, &rel)) ||
                    (rc = bind_atom(&cp, a0, rel, 0, &left)))
                    return rc;
            }
            int right_rel;
            sides[0] = left;
            if ((rc = index_of(p, a->rel, nkey, key_cols, &right_rel)) ||
                (rc = bind_atom(&cp, a, right_rel, 1, &sides[1])) ||
                (rc = apply_comparisons(&cp, sides, 2)))
                return rc;
        }
        done[next] = 1;
        atom_vars(a, &bound, cp.maxvars);
        if (step + 1 == c->natoms)
            return finish(&cp, sides, 2, terms);
        /* The hidden relation: the next join's key first, then what is
         * still needed. */
        int after = pick_next(&cp, done, &bound);
        size_t nkey_next = join_key(&bound, &c->atoms[after], kv, key_cols);
        keep.n = 0;
        for (size_t k = 0; k < nkey_next; k++)
            keep.names[keep.n++] = kv[k];
        for (size_t i = 0; i < bound.n; i++)
            if (var_index(&keep, bound.names[i]) < 0 &&
                needed_later(&cp, done, bound.names[i]))
                keep.names[keep.n++] = bound.names[i];
        if ((rc = new_hidden(&cp, &keep, nkey_next, nkey_next == 0, &left)) ||
            (rc = fill_hidden(&cp, &left, nkey_next == 0, sides, 2, terms)))
            return rc;
        left_is_atom = 0;
        planned = after;
        /* From here the left side binds only what the hidden relation
         * holds. */
        bound.n = 0;
        for (size_t k = 0; k < keep.n; k++)
            bound.names[bound.n++] = keep.names[k];
    }
    return 0;
}

/* An aggregate clause (dl_clause, aggregate.c): one engine rule reading
 * @aN keyed on its group columns, its first k (itself when it is stored
 * so, else an index; with no group, @aN as it is stored).  Values are
 * stored encoded (ravel/datalog.h): a number's sign bit flipped, which
 * keeps the order (min and max read the stored bits) but not sums, so a
 * sum of numbers flips each value back first and the result again, and a
 * count, a number, is flipped too. */
static int plan_aggregate(ravel_dl_program *p, const dl_clause *c)
{
    const dl_atom *a = &c->atoms[0];
    size_t k = c->head.arity - 1;
    unsigned cols[RAVEL_MAX_ARITY];
    for (size_t i = 0; i < k; i++)
        cols[i] = (unsigned)i;
    int rel = a->rel, rc;
    if (k > 0 && (rc = index_of(p, a->rel, k, cols, &rel)))
        return rc;
    dl_plan_rule *r = dl_alloc(&p->arena, sizeof *r);
    dl_plan_term *terms = dl_alloc(&p->arena, (k + 1) * sizeof *terms);
    dl_plan_expr *flip = dl_alloc(&p->arena, sizeof *flip);
    if (!r || !terms || !flip)
        return NOMEM();
    dl_type type = DL_REL(p, a->rel)->col_types[c->agg_value];
    for (size_t i = 0; i < k; i++)
        terms[i] = col_term(0, (unsigned)i);
    dl_plan_term value = col_term(0, dl_stored_column(p, rel,
                                                      (unsigned)c->agg_value));
    r->stratum = DL_REL(p, c->head.rel)->stratum;
    r->head = c->head.rel;
    r->nbody = 1;
    r->body[0] = rel;
    r->delta[0] = 1;
    r->aggregate = 1 + (int)c->agg_op;
    r->head_terms = terms;
    r->pos = c->pos;
    if (c->agg_op == DL_AGG_COUNT || (c->agg_op == DL_AGG_SUM &&
                                      type == DL_NUMBER))
        r->agg_xor = DL_SIGN_BIT;
    if (c->agg_op == DL_AGG_SUM && type == DL_NUMBER) {
        flip->op = RAVEL_XOR;
        flip->left = value;
        flip->right = const_term(DL_SIGN_BIT);
        r->exprs = flip;
        r->nexprs = 1;
        value.side = -2;
        value.col = 0;
    }
    r->agg_value = value;
    terms[k] = value;
    return dl_vec_push(&p->arena, &p->plan_rules, r) ? NOMEM() : 0;
}

/* Folds comparisons of two constants: a false one drops the clause. */
static int constant_comparisons_hold(const dl_clause *c)
{
    for (size_t k = 0; k < c->ncmps; k++) {
        const dl_term *l = &c->cmps[k].left, *r = &c->cmps[k].right;
        if ((l->kind != DL_TERM_NUMBER && l->kind != DL_TERM_STRING) ||
            (r->kind != DL_TERM_NUMBER && r->kind != DL_TERM_STRING))
            continue;
        int order;
        if (l->kind == DL_TERM_STRING) {
            order = dl_compare_text(l->name, l->len, r->name, r->len);
        } else {
            /* As signed numbers: sign, then magnitude. */
            int ls = l->negative && l->magnitude, rs = r->negative && r->magnitude;
            if (ls != rs)
                order = ls ? -1 : 1;
            else if (l->magnitude == r->magnitude)
                order = 0;
            else
                order = (l->magnitude < r->magnitude) != ls ? -1 : 1;
        }
        int holds = 0;
        switch (c->cmps[k].op) {
        case DL_EQ: holds = order == 0; break;
        case DL_NE: holds = order != 0; break;
        case DL_LT: holds = order < 0; break;
        case DL_LE: holds = order <= 0; break;
        case DL_GT: holds = order > 0; break;
        case DL_GE: holds = order >= 0; break;
        }
        if (!holds)
            return 0;
    }
    return 1;
}

/* One plan of every clause, declared relations stored as `layout` says
 * (NULL: in declared order, keyed on the first column). */
static int plan_all(ravel_dl_program *p, const dl_plan_rel *layout)
{
    int rc;
    p->plan_rels.n = p->plan_rules.n = 0; /* the arena keeps the old */
    for (size_t i = 0; i < p->relations.n; i++) {
        const dl_relation *r = DL_REL(p, i);
        dl_plan_rel *pr;
        if ((rc = add_plan_rel(p, &pr)))
            return rc;
        snprintf(pr->name, sizeof pr->name, "%s", r->name);
        pr->arity = r->arity;
        /* An aggregate's results are written in declared order. */
        int fixed = r->fixed_key > 0 || !layout;
        pr->key = r->fixed_key ? r->fixed_key : fixed ? 1 : layout[i].key;
        for (unsigned c = 0; c < r->arity; c++)
            pr->perm[c] = fixed ? c : layout[i].perm[c];
        pr->declared = (int)i;
        pr->stratum = r->stratum;
    }
    /* Rules stratum by stratum, so the lowering declares them in order. */
    for (int s = 0; s < p->nstrata; s++)
        for (size_t i = 0; i < p->clauses.n; i++) {
            const dl_clause *c = p->clauses.items[i];
            if (DL_REL(p, c->head.rel)->stratum != s ||
                !constant_comparisons_hold(c))
                continue;
            if ((rc = c->is_aggregate ? plan_aggregate(p, c)
                                      : plan_clause(p, c)))
                return rc;
        }
    return 0;
}

/* Stored layouts: each declared relation in the key its joins read most
 * often in a first plan (counting rule versions; ties go to the earliest
 * read), so that the most used read needs no index.  Copies read any
 * layout and do not count. */
static int choose_layouts(ravel_dl_program *p, dl_plan_rel *layout)
{
    size_t nrel = p->relations.n, nplan = p->plan_rels.n;
    size_t *reads = calloc(nplan + 1, sizeof *reads);
    if (!reads)
        return NOMEM();
    for (size_t i = 0; i < p->plan_rules.n; i++) {
        const dl_plan_rule *r = p->plan_rules.items[i];
        for (int s = 0; s < r->nbody && r->nbody == 2; s++)
            reads[r->body[s]]++;
    }
    for (size_t d = 0; d < nrel; d++) {
        const dl_plan_rel *own = DL_PREL(p, d);
        size_t best = reads[d];
        const unsigned *cols = own->perm;
        size_t key = own->key;
        for (size_t i = nrel; i < nplan; i++) {
            const dl_plan_rel *r = DL_PREL(p, i);
            if (r->base == (int)d && reads[i] > best) {
                best = reads[i];
                cols = r->key_cols;
                key = r->key;
            }
        }
        layout[d].key = key;
        size_t n = 0;
        for (size_t k = 0; k < key; k++)
            layout[d].perm[n++] = cols[k];
        for (unsigned c = 0; c < own->arity; c++) {
            int in_key = 0;
            for (size_t k = 0; k < key; k++)
                in_key |= cols[k] == c;
            if (!in_key)
                layout[d].perm[n++] = c;
        }
    }
    free(reads);
    return 0;
}

int dl_plan(ravel_dl_program *p)
{
    int rc = plan_all(p, NULL);
    if (rc || p->relations.n == 0)
        return rc;
    dl_plan_rel *layout = calloc(p->relations.n, sizeof *layout);
    if (!layout)
        return NOMEM();
    rc = choose_layouts(p, layout);
    if (!rc)
        rc = plan_all(p, layout);
    free(layout);
    return rc;
}
