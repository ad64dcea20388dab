/* Shared bodies: a rule with several heads evaluates its body once.
 *
 * The parser gives each head of `h1, h2, ... :- body.` a clause of its own
 * with the same body (same body_id), and each clause would join the body
 * again: the k-CFA rule with six heads and six body atoms, planned head by
 * head, joined the same five times six times (examples/datalog/kcfa_k2.dl:
 * 26 s against ravel-kcfa's 3 s, which joins once into its Call relation).
 * So, after checking, such a group becomes
 *     @bN(v1, ..., vm) :- body.      hi :- @bN(v1, ..., vm).   (each i)
 * with v1..vm the variables the heads mention, in order of appearance: a
 * plain rewriting (@bN holds exactly the body's answers projected on what
 * the heads read), so stratification and semi-naive evaluation of the
 * rewritten program are those of the original.  @bN is a relation of the
 * program with a name no user relation can have; the planner stores and
 * places it like any other.
 *
 * Left alone: groups whose body has one atom (the copies would cost what
 * the body costs) and bodies with negated atoms (kept as they were planned
 * before: no program measured needs them shared; a negation cycle through
 * a shared body is reported without @bN either way, dl_stratify). */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

/* How many clauses (from index i on) share clause i's body. */
static size_t group_size(const ravel_dl_program *p, size_t i)
{
    const dl_clause *c = p->clauses.items[i];
    size_t n = 1;
    while (i + n < p->clauses.n &&
           ((const dl_clause *)p->clauses.items[i + n])->body_id == c->body_id)
        n++;
    return n;
}

/* The relation @bN holding the heads' variables of group [first, first+n),
 * added to the program; *out is NULL when there is none to make. */
static int declare_body_relation(ravel_dl_program *p, size_t first, size_t n,
                                 dl_relation **out)
{
    const dl_clause *c = p->clauses.items[first];
    /* A head's arithmetic may hold more variables than the head has
     * columns (h(x + y + w)): the list is bounded by what @bN can hold,
     * not by the heads' arity. */
    const char **names = dl_alloc(&p->arena,
                                  (RAVEL_MAX_ARITY + 1) * sizeof *names);
    if (!names)
        return NOMEM();
    size_t nvars = 0;
    int wide = 0;
    for (size_t h = 0; h < n; h++) {
        const dl_atom *head = &((const dl_clause *)p->clauses.items[first + h])->head;
        for (size_t j = 0; j < head->arity; j++)
            wide |= dl_term_vars(&head->args[j], names, &nvars,
                                 RAVEL_MAX_ARITY) != 0;
    }
    *out = NULL;
    if (nvars == 0 || wide)
        return 0; /* nothing to share, or too wide: leave the group alone */
    dl_relation *r = dl_alloc(&p->arena, sizeof *r);
    char *name = dl_alloc(&p->arena, 32);
    if (!r || !name)
        return NOMEM();
    snprintf(name, 32, "@b%zu", p->relations.n);
    r->name = name;
    r->pos = c->pos;
    r->arity = nvars;
    r->col_names = names;
    r->col_type_names = dl_alloc(&p->arena, (nvars + 1) * sizeof(char *));
    r->col_pos = dl_alloc(&p->arena, (nvars + 1) * sizeof(dl_pos));
    r->col_types = dl_alloc(&p->arena, (nvars + 1) * sizeof(dl_type));
    if (!r->col_type_names || !r->col_pos || !r->col_types)
        return NOMEM();
    for (size_t v = 0; v < nvars; v++) {
        r->col_types[v] = dl_clause_var_type(p, c, names[v]);
        r->col_type_names[v] = dl_type_name(r->col_types[v]);
        r->col_pos[v] = c->pos;
    }
    r->stratum = -1;
    *out = r;
    return dl_vec_push(&p->arena, &p->relations, r) ? NOMEM() : 0;
}

/* The atom @bN(v1, ..., vm). */
static dl_atom body_atom(const dl_relation *r, int rel, dl_term *args,
                         dl_pos pos)
{
    for (size_t v = 0; v < r->arity; v++) {
        memset(&args[v], 0, sizeof args[v]);
        args[v].kind = DL_TERM_VAR;
        args[v].pos = pos;
        args[v].name = r->col_names[v];
    }
    dl_atom a = {.rel_name = r->name, .rel = rel, .pos = pos,
                 .arity = r->arity, .args = args};
    return a;
}

static int share_group(ravel_dl_program *p, size_t first, size_t n)
{
    dl_relation *r = NULL;
    int rc = declare_body_relation(p, first, n, &r);
    if (rc || !r)
        return rc;
    int rel = (int)p->relations.n - 1;
    dl_clause *c0 = p->clauses.items[first];
    /* The body clause, appended: a copy of the first head's clause with
     * @bN as its head. */
    dl_clause *body = dl_alloc(&p->arena, sizeof *body);
    dl_term *args = dl_alloc(&p->arena, r->arity * sizeof *args);
    if (!body || !args)
        return NOMEM();
    *body = *c0;
    body->head = body_atom(r, rel, args, c0->pos);
    body->body_id = -1;
    if (dl_vec_push(&p->arena, &p->clauses, body))
        return NOMEM();
    /* Each head now reads @bN alone. */
    for (size_t h = 0; h < n; h++) {
        dl_clause *c = p->clauses.items[first + h];
        dl_atom *a = dl_alloc(&p->arena, sizeof *a);
        if (!a)
            return NOMEM();
        *a = body_atom(r, rel, args, c->pos);
        c->atoms = a;
        c->natoms = 1;
        c->negs = NULL;
        c->nnegs = 0;
        c->cmps = NULL;
        c->ncmps = 0;
        c->body_id = -1;
    }
    return 0;
}

int dl_share_bodies(ravel_dl_program *p)
{
    size_t nclauses = p->clauses.n; /* the body clauses go after these */
    for (size_t i = 0; i < nclauses;) {
        const dl_clause *c = p->clauses.items[i];
        size_t n = c->body_id >= 0 ? group_size(p, i) : 1;
        if (i + n > nclauses)
            n = nclauses - i;
        if (n > 1 && c->natoms > 1 && c->nnegs == 0) {
            int rc = share_group(p, i, n);
            if (rc)
                return rc;
        }
        i += n;
    }
    return 0;
}
