/* Aggregates: each aggregate literal of a clause becomes relations and
 * clauses the rest of the front end knows, and one aggregate clause the
 * engine evaluates (ravel_rule_aggregate).
 *
 *     h(x, n) :- a(x), n = count : { b(x, y), c(y) }.
 * becomes
 *     @a1(x, y)  :- b(x, y), c(y).            the aggregate's answers
 *     @g2(x, n)  := count of @a1 grouped on x  (an aggregate clause)
 *     h(x, n)    :- a(x), @g2(x, n).
 *     h(x, n)    :- a(x), !@g2(x, _), n = 0.   count and sum of nothing
 *
 * What is grouped and what is counted is Soufflé's (the test oracle,
 * tests/datalog/oracle/naive_eval.py, says the same):
 *  - a variable of the aggregate that the clause grounds outside it (by a
 *    positive atom, or an equality with grounded terms) is a group
 *    column, fixed from outside; one that occurs outside without being
 *    grounded there is refused (Soufflé's "witness"); the others are local
 *    to the aggregate;
 *  - @aN holds the group columns and every named local variable, so each
 *    distinct assignment of them counts once (`_` positions are projected
 *    away), except when the body is one positive atom without a repeated
 *    variable: then every matching tuple counts once, so its `_` become
 *    variables of @aN too;
 *  - a sum, min or max of an expression gets a column of its own in @aN,
 *    bound by `t = expression`;
 *  - aggregates whose bodies are the same text (the same variables) read
 *    one @aN: `lo = min v : { t(g, v) }, hi = max v : { t(g, v) }` joins
 *    t once;
 *  - count and sum of no answers are 0 (the second clause above, or, with
 *    no group column, the engine's own 0); min and max of none give no
 *    tuple.
 * A group variable must also be bound by an atom inside the aggregate (it
 * is a column of @aN); one that occurs inside only in a comparison or a
 * negation is refused for now.  A negated atom of `_` only, `!r(_, _)`
 * ("r is empty"), becomes a count of r that must be 0.
 *
 * Nothing here resolves names or types: @aN and @gN are declared with the
 * type names of the columns their variables come from, and dl_check
 * checks the rewritten clauses like any others (its errors point into the
 * aggregate's body).  dl_check_aggregates then refuses the sum, min or
 * max of symbols, whose ids are hashes. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

/* The most variables one aggregate or clause may hold. */
#define MAXV RAVEL_MAX_ARITY

typedef struct {
    const char *name[MAXV];
    size_t n;
} names;

static int has(const names *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], v))
            return 1;
    return 0;
}

/* Adds v once; -1 when the set is full. */
static int add(names *s, const char *v)
{
    if (has(s, v))
        return 0;
    if (s->n == MAXV)
        return -1;
    s->name[s->n++] = v;
    return 0;
}

static int add_term_vars(names *s, const dl_term *t)
{
    return dl_term_vars(t, s->name, &s->n, MAXV);
}

static int add_atom_vars(names *s, const dl_atom *a)
{
    for (size_t j = 0; j < a->arity; j++)
        if (add_term_vars(s, &a->args[j]))
            return -1;
    return 0;
}

static int too_many(const ravel_dl_program *p, dl_pos pos)
{
    return dl_error_at(p->file, pos, "more than %d variables in one "
                       "aggregate or clause", MAXV);
}

/* The variables the clause grounds outside its aggregates: those of its
 * positive atoms, then, until nothing changes, x of `x = t` with t's
 * variables grounded. */
static int grounded_outside(const ravel_dl_program *p, const dl_clause *c,
                            names *g)
{
    g->n = 0;
    for (size_t i = 0; i < c->natoms; i++)
        if (add_atom_vars(g, &c->atoms[i]))
            return too_many(p, c->pos);
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t k = 0; k < c->ncmps; k++) {
            const dl_cmp *cmp = &c->cmps[k];
            if (cmp->op != DL_EQ)
                continue;
            const dl_term *side[2] = {&cmp->left, &cmp->right};
            for (int s = 0; s < 2; s++) {
                names rhs = {0};
                if (side[s]->kind != DL_TERM_VAR || has(g, side[s]->name) ||
                    add_term_vars(&rhs, side[1 - s]))
                    continue;
                int all = 1;
                for (size_t v = 0; v < rhs.n; v++)
                    all &= has(g, rhs.name[v]);
                if (all) {
                    if (add(g, side[s]->name))
                        return too_many(p, c->pos);
                    changed = 1;
                }
            }
        }
    }
    return 0;
}

/* Every variable the clause mentions outside aggregate `skip` (its
 * other aggregates' results included, not their bodies). */
static int mentioned_outside(const ravel_dl_program *p, const dl_clause *c,
                             size_t skip, names *m)
{
    m->n = 0;
    int rc = add_atom_vars(m, &c->head);
    for (size_t i = 0; i < c->natoms && !rc; i++)
        rc = add_atom_vars(m, &c->atoms[i]);
    for (size_t i = 0; i < c->nnegs && !rc; i++)
        rc = add_atom_vars(m, &c->negs[i]);
    for (size_t k = 0; k < c->ncmps && !rc; k++)
        rc = add_term_vars(m, &c->cmps[k].left) ||
             add_term_vars(m, &c->cmps[k].right);
    for (size_t a = 0; a < c->naggs && !rc; a++)
        if (a != skip)
            rc = add_term_vars(m, &c->aggs[a].result);
    return rc ? too_many(p, c->pos) : 0;
}

/* The declared type name of variable v where one of the aggregate's atoms
 * binds it ("number" when none does, or the relation is unknown: dl_check
 * then reports what is wrong). */
static const char *type_name_of(const ravel_dl_program *p,
                                const dl_atom *atoms, size_t natoms,
                                const char *v)
{
    for (size_t i = 0; i < natoms; i++) {
        const dl_atom *a = &atoms[i];
        for (size_t r = 0; r < p->relations.n; r++) {
            const dl_relation *rel = DL_REL(p, r);
            if (strcmp(rel->name, a->rel_name) || rel->arity != a->arity)
                continue;
            for (size_t j = 0; j < a->arity; j++)
                if (a->args[j].kind == DL_TERM_VAR &&
                    !strcmp(a->args[j].name, v))
                    return rel->col_type_names[j];
        }
    }
    return "number";
}

static dl_term var_term(const char *name, dl_pos pos)
{
    dl_term t;
    memset(&t, 0, sizeof t);
    t.kind = DL_TERM_VAR;
    t.pos = pos;
    t.name = name;
    return t;
}

/* The comparison `left = right` (right 0 when NULL), at left's place. */
static dl_cmp equality(dl_term left, const dl_term *right)
{
    dl_cmp c;
    memset(&c, 0, sizeof c);
    c.left = left;
    if (right)
        c.right = *right;
    else {
        c.right.kind = DL_TERM_NUMBER;
        c.right.pos = left.pos;
    }
    c.op = DL_EQ;
    c.pos = left.pos;
    return c;
}

/* Adds the hidden relation "@<tag>N" with the given columns to the
 * program; its index in *rel. */
static int declare(ravel_dl_program *p, char tag, const names *cols,
                   const char **types, dl_pos pos, int *rel)
{
    dl_relation *r = dl_alloc(&p->arena, sizeof *r);
    char *name = dl_alloc(&p->arena, 32);
    if (!r || !name)
        return NOMEM();
    snprintf(name, 32, "@%c%zu", tag, p->relations.n);
    r->name = name;
    r->pos = pos;
    r->arity = cols->n;
    r->col_names = dl_alloc(&p->arena, (cols->n + 1) * sizeof(char *));
    r->col_type_names = dl_alloc(&p->arena, (cols->n + 1) * sizeof(char *));
    r->col_pos = dl_alloc(&p->arena, (cols->n + 1) * sizeof(dl_pos));
    r->col_types = dl_alloc(&p->arena, (cols->n + 1) * sizeof(dl_type));
    if (!r->col_names || !r->col_type_names || !r->col_pos || !r->col_types)
        return NOMEM();
    for (size_t i = 0; i < cols->n; i++) {
        r->col_names[i] = cols->name[i];
        r->col_type_names[i] = types[i];
        r->col_pos[i] = pos;
    }
    r->stratum = -1;
    *rel = (int)p->relations.n;
    return dl_vec_push(&p->arena, &p->relations, r) ? NOMEM() : 0;
}

/* The atom rel(args) of the relation just declared, its columns the
 * variables `cols` (and a last argument `last` when not NULL). */
static int make_atom(ravel_dl_program *p, int rel, const names *cols,
                     const dl_term *last, dl_pos pos, dl_atom *out)
{
    const dl_relation *r = DL_REL(p, rel);
    dl_term *args = dl_alloc(&p->arena, (r->arity + 1) * sizeof *args);
    if (!args)
        return NOMEM();
    for (size_t i = 0; i < cols->n; i++)
        args[i] = var_term(cols->name[i], pos);
    if (last)
        args[cols->n] = *last;
    memset(out, 0, sizeof *out);
    out->rel_name = r->name;
    out->rel = -1;
    out->pos = pos;
    out->arity = r->arity;
    out->args = args;
    return 0;
}

static int push_clause(ravel_dl_program *p, const dl_clause *c)
{
    dl_clause *n = dl_alloc(&p->arena, sizeof *n);
    if (!n)
        return NOMEM();
    *n = *c;
    return dl_vec_push(&p->arena, &p->clauses, n) ? NOMEM() : 0;
}

/* What one aggregate became: the atom its clause reads, and whether a
 * group with no answer has a value (count and sum: 0). */
typedef struct {
    dl_atom read;      /* @gN(groups..., result) */
    dl_atom none;      /* @gN(groups..., _), for the empty groups */
    int zero;          /* count or sum with a group column */
    dl_term result;
} lowered;

/* Fresh variable names for the `_` of a one-atom body and the value of an
 * expression: '@' is in no user's variable. */
static const char *fresh(ravel_dl_program *p)
{
    char *s = dl_alloc(&p->arena, 24);
    if (s)
        snprintf(s, 24, "@v%zu", p->fresh_vars++);
    return s;
}

/* ---- equal bodies share their answers ---------------------------------- */

/* Appends s[0..n) to the text *buf (arena, grown by doubling). */
typedef struct {
    char *text;
    size_t len, cap;
} sig_buf;

static int put(ravel_dl_program *p, sig_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *t = dl_alloc(&p->arena, cap);
        if (!t)
            return NOMEM();
        if (b->len)
            memcpy(t, b->text, b->len);
        b->text = t;
        b->cap = cap;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
    b->text[b->len] = '\0';
    return 0;
}

static int put_str(ravel_dl_program *p, sig_buf *b, const char *s)
{
    return put(p, b, s, strlen(s));
}

static int put_term(ravel_dl_program *p, sig_buf *b, const dl_term *t)
{
    char num[48];
    switch (t->kind) {
    case DL_TERM_VAR:
        return put_str(p, b, "v") || put_str(p, b, t->name) ||
               put_str(p, b, ",") ? NOMEM() : 0;
    case DL_TERM_WILD:
        return put_str(p, b, "_,");
    case DL_TERM_NUMBER:
        snprintf(num, sizeof num, "n%s%llu,", t->negative ? "-" : "",
                 (unsigned long long)t->magnitude);
        return put_str(p, b, num);
    case DL_TERM_STRING:
        /* Its length first: the bytes may hold anything. */
        snprintf(num, sizeof num, "s%zu:", t->len);
        return put_str(p, b, num) || put(p, b, t->name, t->len) ? NOMEM()
                                                                  : 0;
    default:
        snprintf(num, sizeof num, "(%c", t->op);
        return put_str(p, b, num) || put_term(p, b, t->lhs) ||
               (t->rhs && put_term(p, b, t->rhs)) || put_str(p, b, ")")
                   ? NOMEM()
                   : 0;
    }
}

static int put_atom(ravel_dl_program *p, sig_buf *b, const dl_atom *a)
{
    int rc = put_str(p, b, a->rel_name) || put_str(p, b, "(") ? NOMEM() : 0;
    for (size_t j = 0; j < a->arity && !rc; j++)
        rc = put_term(p, b, &a->args[j]);
    return rc ? rc : put_str(p, b, ")");
}

/* The text of `@aN(cols) :- answers' body` that equal bodies share. */
static int signature(ravel_dl_program *p, const names *cols,
                     const dl_clause *c, const char **out)
{
    sig_buf b = {0};
    int rc = put_str(p, &b, "[");
    for (size_t i = 0; i < cols->n && !rc; i++)
        rc = put_str(p, &b, cols->name[i]) || put_str(p, &b, ",") ? NOMEM()
                                                                   : 0;
    for (size_t i = 0; i < c->natoms && !rc; i++)
        rc = put_str(p, &b, "]+") || put_atom(p, &b, &c->atoms[i]) ? NOMEM()
                                                                   : 0;
    for (size_t i = 0; i < c->nnegs && !rc; i++)
        rc = put_str(p, &b, "!") || put_atom(p, &b, &c->negs[i]) ? NOMEM()
                                                                 : 0;
    for (size_t k = 0; k < c->ncmps && !rc; k++) {
        char op[8];
        snprintf(op, sizeof op, "?%d", (int)c->cmps[k].op);
        rc = put_str(p, &b, op) || put_term(p, &b, &c->cmps[k].left) ||
             put_term(p, &b, &c->cmps[k].right) ? NOMEM() : 0;
    }
    *out = b.text;
    return rc;
}

typedef struct {
    const char *sig;
    int rel;
} answers_of;

/* The @aN already made for a body with this signature, or -1. */
static int shared_answers(const ravel_dl_program *p, const char *sig)
{
    for (size_t i = 0; i < p->agg_answers.n; i++) {
        const answers_of *a = p->agg_answers.items[i];
        if (!strcmp(a->sig, sig))
            return a->rel;
    }
    return -1;
}

static int remember_answers(ravel_dl_program *p, const char *sig, int rel)
{
    answers_of *a = dl_alloc(&p->arena, sizeof *a);
    if (!a)
        return NOMEM();
    a->sig = sig;
    a->rel = rel;
    return dl_vec_push(&p->arena, &p->agg_answers, a) ? NOMEM() : 0;
}

static int lower_one(ravel_dl_program *p, const dl_clause *c, size_t which,
                     const names *grounded, lowered *out)
{
    const dl_aggregate *g = &c->aggs[which];
    names outside, inner = {0}, bound_inside = {0};
    int rc = mentioned_outside(p, c, which, &outside);
    if (rc)
        return rc;
    /* A one-atom body with no repeated variable counts tuples: its `_`
     * become columns. */
    dl_atom *atoms = dl_alloc(&p->arena, (g->natoms + 1) * sizeof *atoms);
    if (!atoms)
        return NOMEM();
    if (g->natoms)
        memcpy(atoms, g->atoms, g->natoms * sizeof *atoms);
    if (g->natoms == 1) {
        names seen = {0};
        int repeated = 0;
        for (size_t j = 0; j < atoms[0].arity; j++) {
            const dl_term *t = &atoms[0].args[j];
            if (t->kind == DL_TERM_VAR) {
                repeated |= has(&seen, t->name);
                if (add(&seen, t->name))
                    return too_many(p, g->pos);
            }
        }
        if (!repeated) {
            dl_term *args = dl_alloc(&p->arena,
                                     atoms[0].arity * sizeof *args);
            if (!args)
                return NOMEM();
            for (size_t j = 0; j < atoms[0].arity; j++) {
                args[j] = atoms[0].args[j];
                if (args[j].kind == DL_TERM_WILD) {
                    /* Named by position, so that equal bodies read alike
                     * (shared_answers). */
                    char *v = dl_alloc(&p->arena, 24);
                    if (!v)
                        return NOMEM();
                    snprintf(v, 24, "@w%zu", j);
                    args[j] = var_term(v, args[j].pos);
                }
            }
            atoms[0].args = args;
        }
    }
    for (size_t i = 0; i < g->natoms; i++)
        if (add_atom_vars(&bound_inside, &atoms[i]))
            return too_many(p, g->pos);
    /* Every variable of the aggregate, in order: its atoms', then the
     * rest's. */
    for (size_t v = 0; v < bound_inside.n; v++)
        add(&inner, bound_inside.name[v]);
    for (size_t i = 0; i < g->nnegs; i++)
        if (add_atom_vars(&inner, &g->negs[i]))
            return too_many(p, g->pos);
    for (size_t k = 0; k < g->ncmps; k++)
        if (add_term_vars(&inner, &g->cmps[k].left) ||
            add_term_vars(&inner, &g->cmps[k].right))
            return too_many(p, g->pos);
    if (g->op != DL_AGG_COUNT && add_term_vars(&inner, &g->target))
        return too_many(p, g->pos);
    if (has(&inner, g->result.name))
        return dl_error_at(p->file, g->result.pos,
                           "'%s' is bound by the aggregate and used inside "
                           "it", g->result.name);
    names groups = {0}, cols = {0};
    const char *types[MAXV + 1];
    for (size_t v = 0; v < inner.n; v++) {
        const char *name = inner.name[v];
        if (has(grounded, name)) {
            if (!has(&bound_inside, name))
                return dl_error_at(p->file, g->pos,
                                   "'%s' is grounded outside the aggregate "
                                   "and used inside it only in a "
                                   "comparison or negation: not supported "
                                   "yet (bind it by an atom inside)", name);
            types[groups.n] = type_name_of(p, atoms, g->natoms, name);
            add(&groups, name);
        } else if (has(&outside, name)) {
            return dl_error_at(p->file, g->pos,
                               "'%s' occurs inside the aggregate and "
                               "outside it without being grounded there: "
                               "a value of an aggregate's body cannot "
                               "leave it (only its result can)", name);
        }
    }
    cols = groups;
    for (size_t v = 0; v < bound_inside.n; v++)
        if (!has(&groups, bound_inside.name[v])) {
            types[cols.n] = type_name_of(p, atoms, g->natoms,
                                         bound_inside.name[v]);
            if (add(&cols, bound_inside.name[v]))
                return too_many(p, g->pos);
        }
    /* The reduced value: a variable of @aN, or an expression's column. */
    dl_cmp *cmps = dl_alloc(&p->arena, (g->ncmps + 1) * sizeof *cmps);
    if (!cmps)
        return NOMEM();
    if (g->ncmps)
        memcpy(cmps, g->cmps, g->ncmps * sizeof *cmps);
    size_t ncmps = g->ncmps, value = 0;
    const char *value_type = "number";
    if (g->op != DL_AGG_COUNT) {
        const char *first = dl_term_first_var(&g->target);
        int direct = g->target.kind == DL_TERM_VAR &&
                     has(&cols, g->target.name);
        if (!direct) {
            /* An expression, or a variable bound by an equality: a
             * column t of its own, `t = target`. */
            const char *t = "@t"; /* the one such column of @aN */
            types[cols.n] = first ? type_name_of(p, atoms, g->natoms, first)
                                  : "number";
            if (add(&cols, t))
                return too_many(p, g->pos);
            cmps[ncmps++] = equality(var_term(t, g->target.pos), &g->target);
        }
        const char *v = direct ? g->target.name : cols.name[cols.n - 1];
        for (size_t i = 0; i < cols.n; i++)
            if (!strcmp(cols.name[i], v)) {
                value = i;
                value_type = types[i];
            }
    }
    if (cols.n == 0)
        return dl_error_at(p->file, g->pos,
                           "the aggregate's body binds no variable: give "
                           "its atom a variable (count : { r(_, x) })");
    /* @aN(cols) :- the aggregate's body; one @aN for equal bodies. */
    int a_rel, g_rel;
    dl_clause answers = {0};
    answers.pos = g->pos;
    answers.body_id = -1;
    answers.atoms = atoms;
    answers.natoms = g->natoms;
    answers.negs = g->negs;
    answers.nnegs = g->nnegs;
    answers.cmps = cmps;
    answers.ncmps = ncmps;
    const char *sig;
    if ((rc = signature(p, &cols, &answers, &sig)))
        return rc;
    if ((a_rel = shared_answers(p, sig)) < 0) {
        if ((rc = declare(p, 'a', &cols, types, g->pos, &a_rel)) ||
            (rc = make_atom(p, a_rel, &cols, NULL, g->pos, &answers.head)) ||
            (rc = push_clause(p, &answers)) ||
            (rc = remember_answers(p, sig, a_rel)))
            return rc;
    }
    /* @gN(groups, result) := op of @aN. */
    names gcols = groups;
    types[groups.n] = g->op == DL_AGG_COUNT ? "number" : value_type;
    if (add(&gcols, g->result.name))
        return too_many(p, g->pos);
    if ((rc = declare(p, 'g', &gcols, types, g->pos, &g_rel)))
        return rc;
    DL_REL(p, g_rel)->fixed_key = groups.n ? groups.n : 1;
    dl_clause agg = {0};
    agg.pos = g->pos;
    agg.body_id = -1;
    agg.is_aggregate = 1;
    agg.agg_op = g->op;
    agg.agg_value = value;
    agg.of_negation = g->of_negation ? g->atoms[0].rel_name : NULL;
    dl_atom *body = dl_alloc(&p->arena, sizeof *body);
    if (!body)
        return NOMEM();
    /* Its head's last column only types the result: the value's variable,
     * or 0 for a count. */
    dl_term last = g->op == DL_AGG_COUNT
                       ? (dl_term){.kind = DL_TERM_NUMBER, .pos = g->pos}
                       : var_term(cols.name[value], g->pos);
    if ((rc = make_atom(p, a_rel, &cols, NULL, g->pos, body)) ||
        (rc = make_atom(p, g_rel, &groups, &last, g->pos, &agg.head)))
        return rc;
    agg.atoms = body;
    agg.natoms = 1;
    if ((rc = push_clause(p, &agg)))
        return rc;
    dl_term wild = {.kind = DL_TERM_WILD, .pos = g->pos};
    out->result = g->result;
    out->zero = groups.n > 0 &&
                (g->op == DL_AGG_COUNT || g->op == DL_AGG_SUM);
    if ((rc = make_atom(p, g_rel, &groups, &g->result, g->pos, &out->read)))
        return rc;
    return make_atom(p, g_rel, &groups, &wild, g->pos, &out->none);
}

/* Appends to clause c (copied) an atom, a negated atom or a comparison. */
static int extend(ravel_dl_program *p, dl_clause *c, const dl_atom *atom,
                  const dl_atom *neg, const dl_cmp *cmp)
{
    if (atom) {
        dl_atom *a = dl_alloc(&p->arena, (c->natoms + 1) * sizeof *a);
        if (!a)
            return NOMEM();
        if (c->natoms)
            memcpy(a, c->atoms, c->natoms * sizeof *a);
        a[c->natoms++] = *atom;
        c->atoms = a;
    }
    if (neg) {
        dl_atom *a = dl_alloc(&p->arena, (c->nnegs + 1) * sizeof *a);
        if (!a)
            return NOMEM();
        if (c->nnegs)
            memcpy(a, c->negs, c->nnegs * sizeof *a);
        a[c->nnegs++] = *neg;
        c->negs = a;
    }
    if (cmp) {
        dl_cmp *k = dl_alloc(&p->arena, (c->ncmps + 1) * sizeof *k);
        if (!k)
            return NOMEM();
        if (c->ncmps)
            memcpy(k, c->cmps, c->ncmps * sizeof *k);
        k[c->ncmps++] = *cmp;
        c->cmps = k;
    }
    return 0;
}

/* The clause's aggregates lowered; the clause reads their results, and for
 * each count or sum with groups a copy of every clause so far reads "no
 * answer: 0" instead.  Clauses go to the end of the program, the first in
 * the original's place. */
static int rewrite_clause(ravel_dl_program *p, size_t index)
{
    dl_clause *c = p->clauses.items[index];
    names grounded;
    int rc = grounded_outside(p, c, &grounded);
    if (rc)
        return rc;
    /* The clause's variants: one, doubled by each aggregate with a zero. */
    dl_clause base = *c;
    base.aggs = NULL;
    base.naggs = 0;
    dl_vec variants = {0};
    dl_clause *first = dl_alloc(&p->arena, sizeof *first);
    if (!first || dl_vec_push(&p->arena, &variants, first))
        return NOMEM();
    *first = base;
    for (size_t a = 0; a < c->naggs; a++) {
        lowered l;
        if ((rc = lower_one(p, c, a, &grounded, &l)))
            return rc;
        size_t n = variants.n;
        for (size_t v = 0; v < n; v++) {
            dl_clause *cl = variants.items[v];
            if (l.zero) {
                if (variants.n >= 64)
                    return dl_error_at(p->file, c->pos,
                                       "more than 6 counts or sums with "
                                       "groups in one rule");
                dl_clause *none = dl_alloc(&p->arena, sizeof *none);
                if (!none || dl_vec_push(&p->arena, &variants, none))
                    return NOMEM();
                *none = *cl;
                dl_cmp zero = equality(l.result, NULL);
                if ((rc = extend(p, none, NULL, &l.none, &zero)))
                    return rc;
            }
            if ((rc = extend(p, cl, &l.read, NULL, NULL)))
                return rc;
        }
    }
    *c = *(dl_clause *)variants.items[0];
    for (size_t v = 1; v < variants.n; v++)
        if ((rc = push_clause(p, variants.items[v])))
            return rc;
    return 0;
}

/* `!r(_, ..., _)` (r is empty) is `n = count : { r(_, ..., _) }, n = 0`
 * with a variable n of its own: an aggregate with no group, which always
 * has a result.  The negated atom goes; stratify.c still names it if it
 * lies in the recursion that derives r. */
static int negations_of_emptiness(ravel_dl_program *p, dl_clause *c)
{
    for (size_t i = 0; i < c->nnegs;) {
        const dl_atom *neg = &c->negs[i];
        int all_wild = 1;
        for (size_t j = 0; j < neg->arity; j++)
            all_wild &= neg->args[j].kind == DL_TERM_WILD;
        if (!all_wild) {
            i++;
            continue;
        }
        dl_aggregate *aggs = dl_alloc(&p->arena,
                                      (c->naggs + 1) * sizeof *aggs);
        dl_atom *atom = dl_alloc(&p->arena, sizeof *atom);
        const char *n = fresh(p);
        if (!aggs || !atom || !n)
            return NOMEM();
        if (c->naggs)
            memcpy(aggs, c->aggs, c->naggs * sizeof *aggs);
        *atom = *neg;
        dl_aggregate *g = &aggs[c->naggs];
        memset(g, 0, sizeof *g);
        g->op = DL_AGG_COUNT;
        g->pos = neg->pos;
        g->result = var_term(n, neg->pos);
        g->atoms = atom;
        g->natoms = 1;
        g->of_negation = 1;
        c->aggs = aggs;
        c->naggs++;
        dl_cmp zero = equality(g->result, NULL);
        int rc = extend(p, c, NULL, NULL, &zero);
        if (rc)
            return rc;
        /* The negated atoms without this one (a new array: the parser's
         * may be shared by the clauses of one rule). */
        dl_atom *negs = dl_alloc(&p->arena, c->nnegs * sizeof *negs);
        if (!negs)
            return NOMEM();
        memcpy(negs, c->negs, i * sizeof *negs);
        memcpy(negs + i, c->negs + i + 1, (c->nnegs - i - 1) * sizeof *negs);
        c->negs = negs;
        c->nnegs--;
    }
    return 0;
}

int dl_rewrite_aggregates(ravel_dl_program *p)
{
    size_t n = p->clauses.n; /* the new clauses need no rewriting */
    for (size_t i = 0; i < n; i++) {
        int rc = negations_of_emptiness(p, p->clauses.items[i]);
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < n; i++) {
        const dl_clause *c = p->clauses.items[i];
        if (c->naggs) {
            int rc = rewrite_clause(p, i);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int dl_check_aggregates(ravel_dl_program *p)
{
    static const char *const op_name[] = {"count", "sum", "min", "max"};
    for (size_t i = 0; i < p->clauses.n; i++) {
        const dl_clause *c = p->clauses.items[i];
        if (!c->is_aggregate || c->agg_op == DL_AGG_COUNT)
            continue;
        const dl_relation *a = DL_REL(p, c->atoms[0].rel);
        if (a->col_types[c->agg_value] == DL_SYMBOL)
            return dl_error_at(p->file, c->pos,
                               "%s of symbols is not supported: a symbol's "
                               "id is a hash, not its place in any order",
                               op_name[c->agg_op]);
    }
    return 0;
}
