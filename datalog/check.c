/* The checker: every name resolved, every arity and type consistent, every
 * variable grounded.  It also folds an equality that only names a variable
 * (`x = 5`, `x = y` with y bound by an atom) into the clause, as Soufflé
 * grounds such variables: the later phases then see variables bound by
 * atoms only. */
#include "dl_internal.h"

#include <ravel/error.h>

#include <mpi.h>
#include <string.h>

#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

/* ---- types ------------------------------------------------------------------ */

static int resolve_type(ravel_dl_program *p, const char *name, dl_pos pos,
                        dl_type *out)
{
    /* Follow aliases; a chain longer than the alias count is a cycle. */
    for (size_t hops = 0; hops <= p->aliases.n; hops++) {
        if (strcmp(name, "number") == 0) {
            *out = DL_NUMBER;
            return 0;
        }
        if (strcmp(name, "unsigned") == 0) {
            *out = DL_UNSIGNED;
            return 0;
        }
        if (strcmp(name, "symbol") == 0) {
            *out = DL_SYMBOL;
            return 0;
        }
        if (strcmp(name, "float") == 0)
            return dl_error_at(p->file, pos,
                               "the type float is not supported");
        const dl_type_alias *found = NULL;
        for (size_t i = 0; i < p->aliases.n && !found; i++) {
            const dl_type_alias *t = p->aliases.items[i];
            if (strcmp(t->name, name) == 0)
                found = t;
        }
        if (!found)
            return dl_error_at(p->file, pos, "unknown type '%s'", name);
        name = found->of;
    }
    return dl_error_at(p->file, pos, "the type '%s' is defined in a cycle",
                       name);
}

static int check_declarations(ravel_dl_program *p)
{
    int rc;
    for (size_t i = 0; i < p->aliases.n; i++) {
        const dl_type_alias *t = p->aliases.items[i];
        dl_type ignored;
        if (!strcmp(t->name, "number") || !strcmp(t->name, "unsigned") ||
            !strcmp(t->name, "symbol") || !strcmp(t->name, "float"))
            return dl_error_at(p->file, t->pos,
                               "'%s' is a built-in type", t->name);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(((dl_type_alias *)p->aliases.items[j])->name,
                        t->name))
                return dl_error_at(p->file, t->pos,
                                   "the type '%s' is defined twice",
                                   t->name);
        if ((rc = resolve_type(p, t->name, t->pos, &ignored)))
            return rc;
    }
    for (size_t i = 0; i < p->relations.n; i++) {
        dl_relation *r = DL_REL(p, i);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(DL_REL(p, j)->name, r->name))
                return dl_error_at(p->file, r->pos,
                                   "relation '%s' is declared twice (first "
                                   "at line %d)", r->name,
                                   DL_REL(p, j)->pos.line);
        if (strlen(r->name) > 40)
            return dl_error_at(p->file, r->pos,
                               "the relation name '%.40s...' is longer "
                               "than 40 characters", r->name);
        for (size_t c = 0; c < r->arity; c++) {
            for (size_t d = 0; d < c; d++)
                if (!strcmp(r->col_names[c], r->col_names[d]))
                    return dl_error_at(p->file, r->col_pos[c],
                                       "relation '%s' has two columns "
                                       "named '%s'", r->name,
                                       r->col_names[c]);
            if ((rc = resolve_type(p, r->col_type_names[c], r->col_pos[c],
                                   &r->col_types[c])))
                return rc;
        }
    }
    return 0;
}

/* ---- atoms ------------------------------------------------------------------ */

static int resolve_atom(ravel_dl_program *p, dl_atom *a)
{
    for (size_t i = 0; i < p->relations.n; i++)
        if (!strcmp(DL_REL(p, i)->name, a->rel_name)) {
            a->rel = (int)i;
            const dl_relation *r = DL_REL(p, i);
            if (r->arity != a->arity)
                return dl_error_at(p->file, a->pos,
                                   "'%s' has %zu column%s, used here with "
                                   "%zu", r->name, r->arity,
                                   r->arity == 1 ? "" : "s", a->arity);
            return 0;
        }
    return dl_error_at(p->file, a->pos, "relation '%s' is not declared",
                       a->rel_name);
}

/* Arithmetic over constants only, folded to one constant of a column of
 * `type` (numbers with signed, unsigned with unsigned semantics, both
 * modulo 2^64, as the engine computes them). */
static int fold_constant(ravel_dl_program *p, const dl_term *t, dl_type type,
                         uint64_t *out)
{
    if (t->kind == DL_TERM_NUMBER) {
        if (type == DL_UNSIGNED)
            return dl_encode_term(p->file, t, type, out);
        uint64_t enc;
        int rc = dl_encode_term(p->file, t, DL_NUMBER, &enc);
        *out = (uint64_t)dl_decode_number(enc);
        return rc;
    }
    if (t->kind != DL_TERM_ARITH)
        return dl_error_at(p->file, t->pos, "a fact's arguments must be "
                           "constants");
    uint64_t a, b = 0;
    int rc = fold_constant(p, t->lhs, type, &a);
    if (rc || (t->rhs && (rc = fold_constant(p, t->rhs, type, &b))))
        return rc;
    int64_t sa = dl_as_signed(a), sb = dl_as_signed(b);
    if ((t->op == '/' || t->op == '%') && b == 0)
        return dl_error_at(p->file, t->pos, "a division by zero");
    switch (t->op) {
    case '+': *out = a + b; break;
    case '-': *out = a - b; break;
    case '*': *out = a * b; break;
    case 'n': *out = 0 - a; break;
    case '/':
        *out = type == DL_UNSIGNED ? a / b
               : (sa == INT64_MIN && sb == -1) ? a : (uint64_t)(sa / sb);
        break;
    default:
        *out = type == DL_UNSIGNED ? a % b
               : sb == -1 ? 0 : (uint64_t)(sa % sb);
        break;
    }
    return 0;
}

/* Constants of an atom must fit their columns' types; arithmetic over
 * constants in a fact or head is folded into one.  A body atom's
 * arguments are variables, '_' or constants. */
static int check_atom_constants(ravel_dl_program *p, dl_atom *a, int body)
{
    const dl_relation *r = DL_REL(p, a->rel);
    for (size_t i = 0; i < a->arity; i++) {
        dl_term *t = &a->args[i];
        uint64_t v;
        if (t->kind == DL_TERM_ARITH && body)
            return dl_error_at(p->file, t->pos,
                               "arithmetic in a body atom's argument is not "
                               "supported yet (bind a variable there and "
                               "compare it)");
        if (t->kind == DL_TERM_ARITH && r->col_types[i] == DL_SYMBOL)
            return dl_error_at(p->file, t->pos,
                               "arithmetic in a symbol column");
        if (t->kind == DL_TERM_ARITH && !dl_term_mentions(t, NULL)) {
            int rc = fold_constant(p, t, r->col_types[i], &v);
            if (rc)
                return rc;
            dl_pos pos = t->pos;
            memset(t, 0, sizeof *t);
            t->kind = DL_TERM_NUMBER;
            t->pos = pos;
            if (r->col_types[i] == DL_NUMBER && (v >> 63)) {
                t->negative = 1;
                t->magnitude = 0 - v;
            } else {
                t->magnitude = v;
            }
        }
        if (t->kind == DL_TERM_NUMBER || t->kind == DL_TERM_STRING) {
            int rc = dl_encode_term(p->file, t, r->col_types[i], &v);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int dl_term_mentions(const dl_term *t, const char *name)
{
    if (t->kind == DL_TERM_VAR)
        return !name || !strcmp(t->name, name);
    if (t->kind != DL_TERM_ARITH)
        return 0;
    return dl_term_mentions(t->lhs, name) ||
           (t->rhs && dl_term_mentions(t->rhs, name));
}

int dl_term_vars(const dl_term *t, const char **names, size_t *n,
                 size_t cap)
{
    if (t->kind == DL_TERM_ARITH)
        return dl_term_vars(t->lhs, names, n, cap) ||
                       (t->rhs && dl_term_vars(t->rhs, names, n, cap))
                   ? -1
                   : 0;
    if (t->kind != DL_TERM_VAR)
        return 0;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(names[i], t->name))
            return 0;
    if (*n == cap)
        return -1;
    names[(*n)++] = t->name;
    return 0;
}

const char *dl_term_first_var(const dl_term *t)
{
    if (t->kind == DL_TERM_VAR)
        return t->name;
    if (t->kind != DL_TERM_ARITH)
        return NULL;
    const char *v = dl_term_first_var(t->lhs);
    return v || !t->rhs ? v : dl_term_first_var(t->rhs);
}

/* depth bounds a chain of assignments (x = y + 1, y = z, ...). */
static dl_type var_type_within(const ravel_dl_program *p, const dl_clause *c,
                               const char *name, int depth)
{
    for (size_t i = 0; i < c->natoms; i++)
        for (size_t j = 0; j < c->atoms[i].arity; j++)
            if (c->atoms[i].args[j].kind == DL_TERM_VAR &&
                !strcmp(c->atoms[i].args[j].name, name))
                return DL_REL(p, c->atoms[i].rel)->col_types[j];
    for (size_t k = 0; k < c->ncmps && depth > 0; k++) {
        const dl_cmp *m = &c->cmps[k];
        if (m->op != DL_EQ)
            continue;
        const dl_term *other = NULL;
        if (m->left.kind == DL_TERM_VAR && !strcmp(m->left.name, name))
            other = &m->right;
        else if (m->right.kind == DL_TERM_VAR && !strcmp(m->right.name, name))
            other = &m->left;
        if (!other)
            continue;
        if (other->kind == DL_TERM_STRING)
            return DL_SYMBOL;
        const char *v = dl_term_first_var(other);
        if (v && strcmp(v, name) != 0)
            return var_type_within(p, c, v, depth - 1);
    }
    return DL_NUMBER;
}

dl_type dl_clause_var_type(const ravel_dl_program *p, const dl_clause *c,
                           const char *name)
{
    return var_type_within(p, c, name, 8);
}

/* ---- variables of a clause ---------------------------------------------------- */

typedef struct {
    const char *name;
    dl_type type;
    int typed;
    int bound;          /* appears in a body atom */
    const char *where;  /* the relation that gave it its type */
} var_info;

typedef struct {
    var_info *v;
    size_t n, cap;
} var_table;

static var_info *var_get(var_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->v[i].name, name))
            return &t->v[i];
    return NULL;
}

static var_info *var_add(dl_arena *a, var_table *t, const char *name)
{
    var_info *v = var_get(t, name);
    if (v)
        return v;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        var_info *grown = dl_alloc(a, cap * sizeof *grown);
        if (!grown)
            return NULL;
        if (t->n)
            memcpy(grown, t->v, t->n * sizeof *grown);
        t->v = grown;
        t->cap = cap;
    }
    v = &t->v[t->n++];
    memset(v, 0, sizeof *v);
    v->name = name;
    return v;
}

static int type_var(ravel_dl_program *p, var_table *vars, const dl_term *t,
                    dl_type type, const char *rel, int bound)
{
    var_info *v = var_add(&p->arena, vars, t->name);
    if (!v)
        return NOMEM();
    if (v->typed && v->type != type)
        return dl_error_at(p->file, t->pos,
                           "variable '%s' is a %s in '%s' and a %s in '%s'",
                           t->name, dl_type_name(v->type), v->where,
                           dl_type_name(type), rel);
    v->typed = 1;
    v->type = type;
    v->where = rel;
    v->bound |= bound;
    return 0;
}

/* Every args array of the clause its own: the parser shares a rule's
 * head and atoms between the clauses of its disjunction, and folding an
 * equality rewrites terms in place. */
static int own_terms(ravel_dl_program *p, dl_clause *c)
{
    dl_atom *atoms = dl_alloc(&p->arena, (c->natoms + 1) * sizeof *atoms);
    if (!atoms)
        return NOMEM();
    if (c->natoms)
        memcpy(atoms, c->atoms, c->natoms * sizeof *atoms);
    atoms[c->natoms] = c->head;
    for (size_t i = 0; i <= c->natoms; i++) {
        dl_term *args = dl_alloc(&p->arena, atoms[i].arity * sizeof *args);
        if (!args)
            return NOMEM();
        memcpy(args, atoms[i].args, atoms[i].arity * sizeof *args);
        atoms[i].args = args;
    }
    c->head = atoms[c->natoms];
    c->atoms = atoms;
    dl_atom *negs = dl_alloc(&p->arena, (c->nnegs + 1) * sizeof *negs);
    if (!negs)
        return NOMEM();
    for (size_t i = 0; i < c->nnegs; i++) {
        negs[i] = c->negs[i];
        negs[i].args = dl_alloc(&p->arena, negs[i].arity * sizeof(dl_term));
        if (!negs[i].args)
            return NOMEM();
        memcpy(negs[i].args, c->negs[i].args, negs[i].arity * sizeof(dl_term));
    }
    c->negs = negs;
    return 0;
}

/* t with every `var` replaced by `with` (arithmetic rebuilt, since its
 * nodes may be shared); NULL when out of memory. */
static const dl_term *subst(dl_arena *a, const dl_term *t, const char *var,
                            const dl_term *with)
{
    if (!dl_term_mentions(t, var))
        return t;
    dl_term *n = dl_alloc(a, sizeof *n);
    if (!n)
        return NULL;
    if (t->kind == DL_TERM_VAR) {
        *n = *with;
        n->pos = t->pos;
        return n;
    }
    *n = *t;
    n->lhs = subst(a, t->lhs, var, with);
    n->rhs = t->rhs ? subst(a, t->rhs, var, with) : NULL;
    return n->lhs && (!t->rhs || n->rhs) ? n : NULL;
}

static int substitute(dl_arena *a, dl_clause *c, const char *var,
                      const dl_term *with)
{
    dl_term *terms[RAVEL_MAX_ARITY + 2];
    for (size_t i = 0; i < c->head.arity; i++)
        terms[i] = &c->head.args[i];
    for (size_t k = 0; k < c->ncmps; k++) {
        dl_term *sides[2] = {&c->cmps[k].left, &c->cmps[k].right};
        for (int s = 0; s < 2; s++) {
            const dl_term *n = subst(a, sides[s], var, with);
            if (!n)
                return NOMEM();
            if (n != sides[s])
                *sides[s] = *n;
        }
    }
    for (size_t i = 0; i < c->head.arity; i++) {
        const dl_term *n = subst(a, terms[i], var, with);
        if (!n)
            return NOMEM();
        if (n != terms[i])
            *terms[i] = *n;
    }
    return 0;
}

static int is_bound(const var_table *vars, const dl_term *t)
{
    if (t->kind == DL_TERM_ARITH)
        return is_bound(vars, t->lhs) && (!t->rhs || is_bound(vars, t->rhs));
    if (t->kind != DL_TERM_VAR)
        return t->kind != DL_TERM_WILD;
    for (size_t i = 0; i < vars->n; i++)
        if (!strcmp(vars->v[i].name, t->name))
            return vars->v[i].bound;
    return 0;
}

/* `x = t` where x is in no atom and t is a constant or a bound variable:
 * x stands for t everywhere, and the comparison goes. */
static int fold_equalities(dl_arena *a, dl_clause *c, const var_table *vars)
{
    for (size_t k = 0; k < c->ncmps;) {
        dl_cmp *cmp = &c->cmps[k];
        dl_term *free_side = NULL, *other = NULL;
        if (cmp->op == DL_EQ) {
            if (cmp->left.kind == DL_TERM_VAR && !is_bound(vars, &cmp->left) &&
                is_bound(vars, &cmp->right))
                free_side = &cmp->left, other = &cmp->right;
            else if (cmp->right.kind == DL_TERM_VAR &&
                     !is_bound(vars, &cmp->right) &&
                     is_bound(vars, &cmp->left))
                free_side = &cmp->right, other = &cmp->left;
        }
        if (!free_side) {
            k++;
            continue;
        }
        const char *name = free_side->name;
        dl_term with = *other;
        c->cmps[k] = c->cmps[--c->ncmps]; /* remove it, then rewrite */
        int rc = substitute(a, c, name, &with);
        if (rc)
            return rc;
        k = 0; /* a rewrite may ground another equality */
    }
    return 0;
}

/* A side's type: a variable's, a string's (symbol), or -1 for a number
 * constant, which takes the type of what it is compared with. */
static int side_type(const var_table *vars, const dl_term *t)
{
    if (t->kind == DL_TERM_ARITH) {
        int l = side_type(vars, t->lhs);
        return l >= 0 || !t->rhs ? l : side_type(vars, t->rhs);
    }
    if (t->kind == DL_TERM_STRING)
        return DL_SYMBOL;
    if (t->kind == DL_TERM_VAR)
        for (size_t i = 0; i < vars->n; i++)
            if (!strcmp(vars->v[i].name, t->name))
                return (int)vars->v[i].type;
    return -1;
}

static int check_cmp_types(ravel_dl_program *p, const var_table *vars,
                           const dl_cmp *cmp)
{
    int l = side_type(vars, &cmp->left), r = side_type(vars, &cmp->right);
    if (l >= 0 && r >= 0 && l != r)
        return dl_error_at(p->file, cmp->pos,
                           "comparing a %s with a %s", dl_type_name(l),
                           dl_type_name(r));
    if ((l == DL_SYMBOL) != (r == DL_SYMBOL) && (l == -1 || r == -1))
        return dl_error_at(p->file, cmp->pos,
                           "comparing a symbol with a number");
    /* A constant in a variable's column must fit its type. */
    const dl_term *sides[2] = {&cmp->left, &cmp->right};
    int types[2] = {r, l};
    for (int s = 0; s < 2; s++) {
        uint64_t ignored;
        int rc;
        if (sides[s]->kind == DL_TERM_NUMBER && types[s] >= 0 &&
            (rc = dl_encode_term(p->file, sides[s], (dl_type)types[s],
                                 &ignored)))
            return rc;
    }
    return 0;
}

/* Arithmetic in `where`: every variable grounded, of type `type` (number
 * or unsigned, never symbol), every constant a number. */
static int check_arith(ravel_dl_program *p, const var_table *vars,
                       const dl_term *t, int type, const char *where)
{
    if (t->kind == DL_TERM_ARITH) {
        if (type == DL_SYMBOL)
            return dl_error_at(p->file, t->pos, "arithmetic on symbols");
        int rc = check_arith(p, vars, t->lhs, type, where);
        return rc || !t->rhs ? rc : check_arith(p, vars, t->rhs, type, where);
    }
    if (t->kind == DL_TERM_STRING)
        return dl_error_at(p->file, t->pos, "a string in arithmetic");
    if (t->kind == DL_TERM_WILD)
        return dl_error_at(p->file, t->pos, "'_' in arithmetic");
    if (t->kind != DL_TERM_VAR)
        return 0;
    if (!is_bound(vars, t))
        return dl_error_at(p->file, t->pos,
                           "variable '%s' in %s is not grounded: no atom of "
                           "the body binds it", t->name, where);
    int vt = side_type(vars, t);
    if (type >= 0 && vt != type)
        return dl_error_at(p->file, t->pos,
                           "variable '%s' is a %s, in arithmetic on %s "
                           "values", t->name, dl_type_name((dl_type)vt),
                           dl_type_name((dl_type)type));
    return 0;
}

static int check_clause(ravel_dl_program *p, dl_clause *c)
{
    int rc;
    var_table vars = {0};
    if ((rc = own_terms(p, c)) || (rc = resolve_atom(p, &c->head)))
        return rc;
    if (c->natoms == 0)
        return dl_error_at(p->file, c->pos,
                           "a rule needs at least one atom in its body");
    for (size_t i = 0; i < c->natoms; i++) {
        dl_atom *a = &c->atoms[i];
        if ((rc = resolve_atom(p, a)) ||
            (rc = check_atom_constants(p, a, 1)))
            return rc;
        const dl_relation *r = DL_REL(p, a->rel);
        for (size_t j = 0; j < a->arity; j++)
            if (a->args[j].kind == DL_TERM_VAR &&
                (rc = type_var(p, &vars, &a->args[j], r->col_types[j],
                               r->name, 1)))
                return rc;
    }
    if ((rc = fold_equalities(&p->arena, c, &vars)))
        return rc;
    const dl_relation *h = DL_REL(p, c->head.rel);
    for (size_t j = 0; j < c->head.arity; j++) {
        const dl_term *t = &c->head.args[j];
        if (t->kind == DL_TERM_WILD)
            return dl_error_at(p->file, t->pos,
                               "'_' in the head of a rule: every head "
                               "column needs a value");
        if (t->kind == DL_TERM_ARITH) {
            if ((rc = check_arith(p, &vars, t, h->col_types[j], "the head")))
                return rc;
            continue;
        }
        if (t->kind != DL_TERM_VAR)
            continue;
        if (!is_bound(&vars, t))
            return dl_error_at(p->file, t->pos,
                               "variable '%s' in the head is not grounded: "
                               "no atom of the body binds it", t->name);
        if ((rc = type_var(p, &vars, t, h->col_types[j], h->name, 0)))
            return rc;
    }
    if ((rc = check_atom_constants(p, &c->head, 0)))
        return rc;
    for (size_t i = 0; i < c->nnegs; i++) {
        dl_atom *a = &c->negs[i];
        if ((rc = resolve_atom(p, a)) ||
            (rc = check_atom_constants(p, a, 1)))
            return rc;
        const dl_relation *r = DL_REL(p, a->rel);
        for (size_t j = 0; j < a->arity; j++) {
            const dl_term *t = &a->args[j];
            if (t->kind != DL_TERM_VAR)
                continue;
            if (!is_bound(&vars, t))
                return dl_error_at(p->file, t->pos,
                                   "variable '%s' in a negated atom is not "
                                   "grounded: no positive atom of the body "
                                   "binds it (use '_' for any value)",
                                   t->name);
            if ((rc = type_var(p, &vars, t, r->col_types[j], r->name, 0)))
                return rc;
        }
    }
    for (size_t k = 0; k < c->ncmps; k++) {
        const dl_cmp *cmp = &c->cmps[k];
        const dl_term *sides[2] = {&cmp->left, &cmp->right};
        for (int s = 0; s < 2; s++) {
            if (sides[s]->kind == DL_TERM_WILD)
                return dl_error_at(p->file, sides[s]->pos,
                                   "'_' in a comparison");
            if (sides[s]->kind == DL_TERM_VAR && !is_bound(&vars, sides[s]))
                return dl_error_at(p->file, sides[s]->pos,
                                   "variable '%s' in a comparison is not "
                                   "grounded: no atom of the body binds it",
                                   sides[s]->name);
            if (sides[s]->kind == DL_TERM_ARITH &&
                (rc = check_arith(p, &vars, sides[s],
                                  side_type(&vars, sides[s]),
                                  "a comparison")))
                return rc;
        }
        if ((rc = check_cmp_types(p, &vars, cmp)))
            return rc;
    }
    return 0;
}

static int check_facts(ravel_dl_program *p)
{
    for (size_t i = 0; i < p->facts.n; i++) {
        dl_atom *f = p->facts.items[i];
        int rc = resolve_atom(p, f);
        if (rc || (rc = check_atom_constants(p, f, 0)))
            return rc;
    }
    return 0;
}

int dl_check(ravel_dl_program *p)
{
    int rc = check_declarations(p);
    if (rc || (rc = check_facts(p)))
        return rc;
    for (size_t i = 0; i < p->clauses.n; i++)
        if ((rc = check_clause(p, p->clauses.items[i])))
            return rc;
    return 0;
}
