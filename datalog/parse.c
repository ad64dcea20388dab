/* The parser: tokens to declarations, facts and conjunctive clauses, by
 * recursive descent with one token of look-ahead.  A body's disjunctions
 * (';' and parentheses) are expanded here into one clause per alternative,
 * so the later phases see conjunctions only.  Constructs of Soufflé that
 * ravel does not evaluate are refused by name where they are met. */
#include "dl_internal.h"

#include <ravel/error.h>
#include <ravel/quote.h>

#include <mpi.h>
#include <string.h>

/* The most clauses one rule's disjunctions may expand into. */
#define DL_MAX_ALTERNATIVES 4096
/* The deepest nesting of parentheses in a body (the parser recurses). */
#define DL_MAX_NESTING 100

typedef struct {
    ravel_dl_program *p;
    dl_lexer lx;
    dl_token tok;   /* the current token */
    dl_token next;  /* one token of look-ahead */
    int depth;      /* parentheses open in the body being parsed */
    int in_aggregate; /* parsing an aggregate's body */
} parser;

typedef struct {
    dl_vec atoms; /* dl_atom* */
    dl_vec negs;  /* dl_atom*, negated */
    dl_vec cmps;  /* dl_cmp* */
    dl_vec aggs;  /* dl_aggregate* */
} conj;

#define FILE_OF(ps) ((ps)->p->file)
#define NOMEM() ravel_error_set(MPI_ERR_NO_MEM, "datalog: out of memory")

static int shift(parser *ps)
{
    ps->tok = ps->next;
    if (ps->tok.kind == DL_TOK_EOF)
        return 0;
    return dl_lex(&ps->lx, &ps->next);
}

static int is_punct(const dl_token *t, const char *s)
{
    return t->kind == DL_TOK_PUNCT && dl_token_is(t, s);
}

/* "found 'x'" for a message about the current token. */
static int unexpected(parser *ps, const char *expected)
{
    const dl_token *t = &ps->tok;
    if (t->kind == DL_TOK_EOF)
        return dl_error_at(FILE_OF(ps), t->pos,
                           "expected %s, found the end of the file",
                           expected);
    if (t->kind == DL_TOK_STRING)
        return dl_error_at(FILE_OF(ps), t->pos,
                           "expected %s, found the string \"%.*s\"", expected,
                           (int)(t->len > 40 ? 40 : t->len), t->text);
    if (t->kind == DL_TOK_DIRECTIVE)
        return dl_error_at(FILE_OF(ps), t->pos, "expected %s, found '.%.*s'",
                           expected, (int)(t->len > 40 ? 40 : t->len),
                           t->text);
    /* Escaped: a stray byte (a byte-order mark's first, say) is shown as
     * \xef, not as half a character. */
    char q[RAVEL_QUOTE_ROOM(40)];
    return dl_error_at(FILE_OF(ps), t->pos, "expected %s, found %s", expected,
                       ravel_quote(t->text, t->len, 40, q, sizeof q));
}

static int expect(parser *ps, const char *punct)
{
    if (!is_punct(&ps->tok, punct)) {
        char what[8];
        snprintf(what, sizeof what, "'%s'", punct);
        return unexpected(ps, what);
    }
    return shift(ps);
}

static int take_ident(parser *ps, const char *what, const char **out,
                      dl_pos *pos)
{
    if (ps->tok.kind != DL_TOK_IDENT)
        return unexpected(ps, what);
    *out = dl_strndup(&ps->p->arena, ps->tok.text, ps->tok.len);
    if (!*out)
        return NOMEM();
    if (pos)
        *pos = ps->tok.pos;
    return shift(ps);
}

/* ---- numbers ---------------------------------------------------------------- */

static int parse_magnitude(parser *ps, const dl_token *t, uint64_t *out)
{
    int negative;
    int rc = dl_parse_number_text(t->text, t->len, out, &negative);
    if (rc == -2)
        return dl_error_at(FILE_OF(ps), t->pos, "%.*s does not fit in 64 bits",
                           (int)t->len, t->text);
    if (rc)
        return dl_error_at(FILE_OF(ps), t->pos, "'%.*s' is not a number",
                           (int)(t->len > 40 ? 40 : t->len), t->text);
    return 0;
}

/* ---- terms ------------------------------------------------------------------ */

static const char *const aggregates[] = {"count", "sum", "min", "max",
                                         "mean", "range"};

static int refuse_term(parser *ps)
{
    const dl_token *t = &ps->tok;
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        if (t->kind == DL_TOK_IDENT && dl_token_is(t, aggregates[i]))
            return dl_error_at(FILE_OF(ps), t->pos,
                               i < 4 ? "an aggregate ('%s') inside a term "
                                       "is not supported: bind it to a "
                                       "variable of the body, "
                                       "'v = %s ... : { ... }'"
                                     : "the aggregate '%s' is not "
                                       "supported%s",
                               aggregates[i], i < 4 ? aggregates[i] : "");
    if (is_punct(t, "$"))
        return dl_error_at(FILE_OF(ps), t->pos,
                           "counters and algebraic data types ('$') are "
                           "not supported");
    if (is_punct(t, "["))
        return dl_error_at(FILE_OF(ps), t->pos,
                           "records ('[...]') are not supported");
    if (is_punct(t, "@"))
        return dl_error_at(FILE_OF(ps), t->pos,
                           "user-defined functors ('@') are not supported");
    if (t->kind == DL_TOK_IDENT && dl_token_is(t, "nil"))
        return dl_error_at(FILE_OF(ps), t->pos,
                           "records ('nil') are not supported");
    if (t->kind == DL_TOK_IDENT && is_punct(&ps->next, "("))
        return dl_error_at(FILE_OF(ps), t->pos,
                           "functors ('%.*s(...)') are not supported yet",
                           (int)(t->len > 40 ? 40 : t->len), t->text);
    return 0;
}

static int parse_sum(parser *ps, dl_term *out);

/* A constant, a variable, '_', or a parenthesised sum. */
static int parse_primary(parser *ps, dl_term *out)
{
    int rc = refuse_term(ps);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->pos = ps->tok.pos;
    dl_token t = ps->tok;
    if (is_punct(&t, "(")) {
        if (++ps->depth > DL_MAX_NESTING)
            return dl_error_at(FILE_OF(ps), t.pos,
                               "parentheses nested deeper than %d",
                               DL_MAX_NESTING);
        if ((rc = shift(ps)) || (rc = parse_sum(ps, out)))
            return rc;
        ps->depth--;
        return expect(ps, ")");
    }
    if (t.kind == DL_TOK_NUMBER) {
        out->kind = DL_TERM_NUMBER;
        if ((rc = parse_magnitude(ps, &t, &out->magnitude)))
            return rc;
    } else if (t.kind == DL_TOK_STRING) {
        out->kind = DL_TERM_STRING;
        out->name = dl_strndup(&ps->p->arena, t.text, t.len);
        out->len = t.len;
        if (!out->name)
            return NOMEM();
    } else if (is_punct(&t, "_")) {
        out->kind = DL_TERM_WILD;
    } else if (t.kind == DL_TOK_IDENT) {
        out->kind = DL_TERM_VAR;
        out->name = dl_strndup(&ps->p->arena, t.text, t.len);
        if (!out->name)
            return NOMEM();
    } else {
        return unexpected(ps, "a variable, '_' or a constant");
    }
    return shift(ps);
}

static int arith_node(parser *ps, dl_term *out, char op, dl_pos pos,
                      const dl_term *lhs, const dl_term *rhs)
{
    dl_term *l = dl_alloc(&ps->p->arena, sizeof *l);
    dl_term *r = rhs ? dl_alloc(&ps->p->arena, sizeof *r) : NULL;
    if (!l || (rhs && !r))
        return NOMEM();
    *l = *lhs;
    if (rhs)
        *r = *rhs;
    memset(out, 0, sizeof *out);
    out->kind = DL_TERM_ARITH;
    out->pos = pos;
    out->op = op;
    out->lhs = l;
    out->rhs = r;
    return 0;
}

/* '-' number is a negative constant; '-' anything else negates it. */
static int parse_unary(parser *ps, dl_term *out)
{
    if (!is_punct(&ps->tok, "-"))
        return parse_primary(ps, out);
    dl_pos pos = ps->tok.pos;
    int rc = shift(ps);
    if (rc)
        return rc;
    if (ps->tok.kind == DL_TOK_NUMBER) {
        if ((rc = parse_primary(ps, out)))
            return rc;
        out->pos = pos;
        out->negative = 1;
        return 0;
    }
    dl_term inner;
    if ((rc = parse_unary(ps, &inner)))
        return rc;
    return arith_node(ps, out, 'n', pos, &inner, NULL);
}

static int parse_product(parser *ps, dl_term *out)
{
    int rc = parse_unary(ps, out);
    while (!rc && (is_punct(&ps->tok, "*") || is_punct(&ps->tok, "/") ||
                   is_punct(&ps->tok, "%"))) {
        char op = ps->tok.text[0];
        dl_pos pos = ps->tok.pos;
        dl_term rhs, lhs = *out;
        if ((rc = shift(ps)) || (rc = parse_unary(ps, &rhs)))
            return rc;
        rc = arith_node(ps, out, op, pos, &lhs, &rhs);
    }
    return rc;
}

/* Soufflé's operators and precedence: * / % bind tighter than + -, all
 * left-associative; ^ and the bitwise and logical words are refused. */
static int parse_sum(parser *ps, dl_term *out)
{
    int rc = parse_product(ps, out);
    while (!rc && (is_punct(&ps->tok, "+") || is_punct(&ps->tok, "-"))) {
        char op = ps->tok.text[0];
        dl_pos pos = ps->tok.pos;
        dl_term rhs, lhs = *out;
        if ((rc = shift(ps)) || (rc = parse_product(ps, &rhs)))
            return rc;
        rc = arith_node(ps, out, op, pos, &lhs, &rhs);
    }
    if (rc)
        return rc;
    static const char *const refused[] = {"^", "&", "|", "band", "bor",
                                          "bxor", "bshl", "bshr", "bshru",
                                          "bnot", "land", "lor", "lxor",
                                          "lnot"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if ((ps->tok.kind == DL_TOK_PUNCT || ps->tok.kind == DL_TOK_IDENT) &&
            dl_token_is(&ps->tok, refused[i]))
            return dl_error_at(FILE_OF(ps), ps->tok.pos,
                               "the operator '%s' is not supported yet",
                               refused[i]);
    return 0;
}

static int parse_term(parser *ps, dl_term *out)
{
    return parse_sum(ps, out);
}

/* ---- atoms and bodies ------------------------------------------------------- */

static int parse_atom(parser *ps, dl_atom *a)
{
    int rc;
    memset(a, 0, sizeof *a);
    a->rel = -1;
    if ((rc = take_ident(ps, "a relation name", &a->rel_name, &a->pos)))
        return rc;
    if ((rc = expect(ps, "(")))
        return rc;
    dl_vec args = {0};
    while (!is_punct(&ps->tok, ")")) {
        if (args.n && (rc = expect(ps, ",")))
            return rc;
        dl_term *t = dl_alloc(&ps->p->arena, sizeof *t);
        if (!t)
            return NOMEM();
        if ((rc = parse_term(ps, t)) || (rc = dl_vec_push(&ps->p->arena,
                                                          &args, t)))
            return rc;
    }
    if (args.n == 0)
        return dl_error_at(FILE_OF(ps), a->pos,
                           "'%s()': relations without columns are not "
                           "supported", a->rel_name);
    a->arity = args.n;
    a->args = dl_alloc(&ps->p->arena, args.n * sizeof *a->args);
    if (!a->args)
        return NOMEM();
    for (size_t i = 0; i < args.n; i++)
        a->args[i] = *(dl_term *)args.items[i];
    return shift(ps); /* ')' */
}

static int cmp_op(const dl_token *t, dl_cmp_op *op)
{
    static const struct {
        const char *text;
        dl_cmp_op op;
    } ops[] = {{"=", DL_EQ},  {"!=", DL_NE}, {"<", DL_LT},
               {"<=", DL_LE}, {">", DL_GT},  {">=", DL_GE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (is_punct(t, ops[i].text)) {
            *op = ops[i].op;
            return 1;
        }
    return 0;
}

static int parse_disjunction(parser *ps, dl_vec *alts);

/* Appends every pairing of a clause of *acc with one of lit to a new list:
 * the product that distributes a conjunction over disjunctions. */
static int conj_product(parser *ps, dl_vec *acc, const dl_vec *lit,
                        dl_pos pos)
{
    if (acc->n * lit->n > DL_MAX_ALTERNATIVES)
        return dl_error_at(FILE_OF(ps), pos,
                           "the body's disjunctions expand to more than %d "
                           "clauses", DL_MAX_ALTERNATIVES);
    dl_vec out = {0};
    for (size_t i = 0; i < acc->n; i++)
        for (size_t j = 0; j < lit->n; j++) {
            const conj *a = acc->items[i], *b = lit->items[j];
            conj *c = dl_alloc(&ps->p->arena, sizeof *c);
            if (!c)
                return NOMEM();
            for (int side = 0; side < 2; side++) {
                const conj *from = side ? b : a;
                for (size_t k = 0; k < from->atoms.n; k++)
                    if (dl_vec_push(&ps->p->arena, &c->atoms,
                                    from->atoms.items[k]))
                        return NOMEM();
                for (size_t k = 0; k < from->negs.n; k++)
                    if (dl_vec_push(&ps->p->arena, &c->negs,
                                    from->negs.items[k]))
                        return NOMEM();
                for (size_t k = 0; k < from->cmps.n; k++)
                    if (dl_vec_push(&ps->p->arena, &c->cmps,
                                    from->cmps.items[k]))
                        return NOMEM();
                for (size_t k = 0; k < from->aggs.n; k++)
                    if (dl_vec_push(&ps->p->arena, &c->aggs,
                                    from->aggs.items[k]))
                        return NOMEM();
            }
            if (dl_vec_push(&ps->p->arena, &out, c))
                return NOMEM();
        }
    *acc = out;
    return 0;
}

static int parse_literal(parser *ps, dl_vec *alts);
static int single(parser *ps, dl_vec *alts, dl_atom *pos, dl_atom *neg,
                  dl_cmp *cmp);

/* count, sum, min, max: the aggregates evaluated. */
static int agg_keyword(const dl_token *t, dl_agg_op *op)
{
    static const char *const names[] = {"count", "sum", "min", "max"};
    for (int i = 0; i < 4; i++)
        if (t->kind == DL_TOK_IDENT && dl_token_is(t, names[i])) {
            *op = (dl_agg_op)i;
            return 1;
        }
    return 0;
}

static int vec_to_array(parser *ps, const dl_vec *v, size_t size,
                        void **out);
static int atom_clause(parser *ps, dl_vec *alts, int negated);

/* op [target] ':' (atom | '{' conjunction '}'); result is filled by the
 * caller. */
static int parse_aggregate(parser *ps, dl_aggregate *g)
{
    int rc;
    memset(g, 0, sizeof *g);
    g->pos = ps->tok.pos;
    agg_keyword(&ps->tok, &g->op);
    if (ps->in_aggregate)
        return dl_error_at(FILE_OF(ps), g->pos,
                           "an aggregate inside an aggregate is not "
                           "supported");
    if ((rc = shift(ps)))
        return rc;
    if (g->op != DL_AGG_COUNT && (rc = parse_term(ps, &g->target)))
        return rc;
    if ((rc = expect(ps, ":")))
        return rc;
    dl_vec alts = {0};
    ps->in_aggregate = 1;
    if (is_punct(&ps->tok, "{")) {
        if (!(rc = shift(ps)) && !(rc = parse_disjunction(ps, &alts)))
            rc = expect(ps, "}");
    } else if (ps->tok.kind == DL_TOK_IDENT && is_punct(&ps->next, "(")) {
        rc = atom_clause(ps, &alts, 0);
    } else {
        rc = unexpected(ps, "an atom or '{' after the aggregate's ':'");
    }
    ps->in_aggregate = 0;
    if (rc)
        return rc;
    if (alts.n != 1)
        return dl_error_at(FILE_OF(ps), g->pos,
                           "a disjunction inside an aggregate is not "
                           "supported (nor by Souffle)");
    const conj *c = alts.items[0];
    g->natoms = c->atoms.n;
    g->nnegs = c->negs.n;
    g->ncmps = c->cmps.n;
    if ((rc = vec_to_array(ps, &c->atoms, sizeof(dl_atom),
                           (void **)&g->atoms)) ||
        (rc = vec_to_array(ps, &c->negs, sizeof(dl_atom),
                           (void **)&g->negs)) ||
        (rc = vec_to_array(ps, &c->cmps, sizeof(dl_cmp),
                           (void **)&g->cmps)))
        return rc;
    return 0;
}

/* An aggregate literal as a clause of its own. */
static int agg_clause(parser *ps, dl_vec *alts, dl_aggregate *g)
{
    if (g->result.kind != DL_TERM_VAR)
        return dl_error_at(FILE_OF(ps), g->result.pos,
                           "an aggregate's value must be bound to a "
                           "variable ('v = %s ... : { ... }')",
                           g->op == DL_AGG_COUNT ? "count"
                           : g->op == DL_AGG_SUM ? "sum"
                           : g->op == DL_AGG_MIN ? "min" : "max");
    conj *c = dl_alloc(&ps->p->arena, sizeof *c);
    if (!c || dl_vec_push(&ps->p->arena, alts, c) ||
        dl_vec_push(&ps->p->arena, &c->aggs, g))
        return NOMEM();
    return 0;
}

/* term op term, as a clause of its own; or an aggregate bound to a
 * variable, 'v = op ... : { ... }' or 'op ... : { ... } = v'. */
static int parse_comparison(parser *ps, dl_vec *alts)
{
    int rc;
    dl_agg_op op;
    memset(alts, 0, sizeof *alts);
    if (agg_keyword(&ps->tok, &op)) {
        dl_aggregate *g = dl_alloc(&ps->p->arena, sizeof *g);
        if (!g)
            return NOMEM();
        if ((rc = parse_aggregate(ps, g)) || (rc = expect(ps, "=")) ||
            (rc = parse_term(ps, &g->result)))
            return rc;
        return agg_clause(ps, alts, g);
    }
    dl_cmp *cmp = dl_alloc(&ps->p->arena, sizeof *cmp);
    if (!cmp)
        return NOMEM();
    cmp->pos = ps->tok.pos;
    if ((rc = parse_term(ps, &cmp->left)))
        return rc;
    if (!cmp_op(&ps->tok, &cmp->op))
        return unexpected(ps, "a comparison (= != < <= > >=)");
    if ((rc = shift(ps)))
        return rc;
    if (agg_keyword(&ps->tok, &op)) {
        if (cmp->op != DL_EQ)
            return dl_error_at(FILE_OF(ps), ps->tok.pos,
                               "an aggregate is bound to a variable with "
                               "'=', not compared");
        dl_aggregate *g = dl_alloc(&ps->p->arena, sizeof *g);
        if (!g)
            return NOMEM();
        if ((rc = parse_aggregate(ps, g)))
            return rc;
        g->result = cmp->left;
        return agg_clause(ps, alts, g);
    }
    if ((rc = parse_term(ps, &cmp->right)))
        return rc;
    return single(ps, alts, NULL, NULL, cmp);
}

/* One literal as a clause of its own: an atom, positive or negated, or a
 * comparison. */
static int single(parser *ps, dl_vec *alts, dl_atom *pos, dl_atom *neg,
                  dl_cmp *cmp)
{
    conj *c = dl_alloc(&ps->p->arena, sizeof *c);
    if (!c || dl_vec_push(&ps->p->arena, alts, c) ||
        (pos && dl_vec_push(&ps->p->arena, &c->atoms, pos)) ||
        (neg && dl_vec_push(&ps->p->arena, &c->negs, neg)) ||
        (cmp && dl_vec_push(&ps->p->arena, &c->cmps, cmp)))
        return NOMEM();
    return 0;
}

/* An atom (negated or not) as a clause of its own. */
static int atom_clause(parser *ps, dl_vec *alts, int negated)
{
    dl_atom *a = dl_alloc(&ps->p->arena, sizeof *a);
    if (!a)
        return NOMEM();
    int rc = parse_atom(ps, a);
    if (rc)
        return rc;
    return negated ? single(ps, alts, NULL, a, NULL)
                   : single(ps, alts, a, NULL, NULL);
}

/* '!' atom, or '!' (formula): the formula's negation by De Morgan, as
 * Soufflé reads it.  The formula is a disjunction of clauses; its negation
 * is the conjunction, over the clauses, of "some literal of the clause is
 * false", which distributes back into clauses: !(a ; b, x = y) is
 * !a, !b ; !a, x != y.  (Variables inside must be bound outside, as for
 * any negated atom, so no quantifier is lost.) */
static int parse_negation(parser *ps, dl_vec *alts)
{
    static const dl_cmp_op opposite[] = {DL_NE, DL_EQ, DL_GE,
                                         DL_GT, DL_LE, DL_LT};
    dl_pos pos = ps->tok.pos;
    int rc = shift(ps);
    if (rc)
        return rc;
    memset(alts, 0, sizeof *alts);
    if (ps->tok.kind == DL_TOK_IDENT && is_punct(&ps->next, "("))
        return atom_clause(ps, alts, 1);
    if (!is_punct(&ps->tok, "("))
        return unexpected(ps, "an atom or '(' after '!'");
    dl_vec inner;
    if ((rc = parse_literal(ps, &inner)))
        return rc;
    /* Start from one empty clause (true), and AND in each inner clause's
     * "one of its literals is false". */
    if ((rc = single(ps, alts, NULL, NULL, NULL)))
        return rc;
    for (size_t i = 0; i < inner.n; i++) {
        const conj *c = inner.items[i];
        if (c->aggs.n)
            return dl_error_at(FILE_OF(ps), pos,
                               "an aggregate inside a negation is not "
                               "supported");
        dl_vec some_false = {0};
        for (size_t k = 0; k < c->atoms.n && !rc; k++)
            rc = single(ps, &some_false, NULL, c->atoms.items[k], NULL);
        for (size_t k = 0; k < c->negs.n && !rc; k++)
            rc = single(ps, &some_false, c->negs.items[k], NULL, NULL);
        for (size_t k = 0; k < c->cmps.n && !rc; k++) {
            dl_cmp *flip = dl_alloc(&ps->p->arena, sizeof *flip);
            if (!flip)
                return NOMEM();
            *flip = *(dl_cmp *)c->cmps.items[k];
            flip->op = opposite[flip->op];
            rc = single(ps, &some_false, NULL, NULL, flip);
        }
        if (rc || (rc = conj_product(ps, alts, &some_false, pos)))
            return rc;
    }
    return 0;
}

/* A literal as a list of alternatives (one, unless it is a parenthesised
 * disjunction). */
static int parse_literal(parser *ps, dl_vec *alts)
{
    int rc;
    memset(alts, 0, sizeof *alts);
    if (is_punct(&ps->tok, "(")) {
        /* "(x + y) % 3 = 0" or a group "(a ; b)": try the comparison,
         * and read a group if that fails. */
        parser saved = *ps;
        dl_vec as_cmp;
        if (parse_comparison(ps, &as_cmp) == 0) {
            *alts = as_cmp;
            return 0;
        }
        *ps = saved;
        ravel_error_clear();
        if (++ps->depth > DL_MAX_NESTING)
            return dl_error_at(FILE_OF(ps), ps->tok.pos,
                               "parentheses nested deeper than %d",
                               DL_MAX_NESTING);
        if ((rc = shift(ps)) || (rc = parse_disjunction(ps, alts)))
            return rc;
        ps->depth--;
        return expect(ps, ")");
    }
    if (is_punct(&ps->tok, "!"))
        return parse_negation(ps, alts);
    if (ps->tok.kind == DL_TOK_IDENT && is_punct(&ps->next, "("))
        return atom_clause(ps, alts, 0);
    return parse_comparison(ps, alts);
}

static int parse_conjunction(parser *ps, dl_vec *alts)
{
    memset(alts, 0, sizeof *alts);
    int rc = single(ps, alts, NULL, NULL, NULL); /* true, so far */
    if (rc)
        return rc;
    for (;;) {
        dl_pos pos = ps->tok.pos;
        dl_vec lit;
        if ((rc = parse_literal(ps, &lit)) ||
            (rc = conj_product(ps, alts, &lit, pos)))
            return rc;
        if (!is_punct(&ps->tok, ","))
            return 0;
        if ((rc = shift(ps)))
            return rc;
    }
}

static int parse_disjunction(parser *ps, dl_vec *alts)
{
    int rc;
    memset(alts, 0, sizeof *alts);
    for (;;) {
        dl_vec part;
        if ((rc = parse_conjunction(ps, &part)))
            return rc;
        if (alts->n + part.n > DL_MAX_ALTERNATIVES)
            return dl_error_at(FILE_OF(ps), ps->tok.pos,
                               "the body's disjunctions expand to more than "
                               "%d clauses", DL_MAX_ALTERNATIVES);
        for (size_t i = 0; i < part.n; i++)
            if (dl_vec_push(&ps->p->arena, alts, part.items[i]))
                return NOMEM();
        if (!is_punct(&ps->tok, ";"))
            return 0;
        if ((rc = shift(ps)))
            return rc;
    }
}

/* ---- facts and rules -------------------------------------------------------- */

static int vec_to_array(parser *ps, const dl_vec *v, size_t size,
                        void **out)
{
    *out = NULL;
    if (!v->n)
        return 0;
    char *arr = dl_alloc(&ps->p->arena, v->n * size);
    if (!arr)
        return NOMEM();
    for (size_t i = 0; i < v->n; i++)
        memcpy(arr + i * size, v->items[i], size);
    *out = arr;
    return 0;
}

static int parse_clause(parser *ps)
{
    int rc;
    dl_vec heads = {0};
    dl_pos pos = ps->tok.pos;
    for (;;) {
        dl_atom *h = dl_alloc(&ps->p->arena, sizeof *h);
        if (!h)
            return NOMEM();
        if ((rc = parse_atom(ps, h)) ||
            (rc = dl_vec_push(&ps->p->arena, &heads, h)))
            return rc;
        if (!is_punct(&ps->tok, ","))
            break;
        if ((rc = shift(ps)))
            return rc;
    }
    if (is_punct(&ps->tok, ".")) {
        if (heads.n > 1)
            return dl_error_at(FILE_OF(ps), pos,
                               "several atoms before '.': a fact is one "
                               "atom");
        const dl_atom *f = heads.items[0];
        for (size_t i = 0; i < f->arity; i++)
            if (f->args[i].kind == DL_TERM_VAR ||
                f->args[i].kind == DL_TERM_WILD)
                return dl_error_at(FILE_OF(ps), f->args[i].pos,
                                   "a fact's arguments must be constants");
        if ((rc = dl_vec_push(&ps->p->arena, &ps->p->facts, heads.items[0])))
            return rc;
        return shift(ps);
    }
    if (!is_punct(&ps->tok, ":-"))
        return unexpected(ps, "':-' or '.'");
    if ((rc = shift(ps)))
        return rc;
    dl_vec alts;
    if ((rc = parse_disjunction(ps, &alts)))
        return rc;
    if (!is_punct(&ps->tok, "."))
        return unexpected(ps, "',', ';' or '.' ending the rule");
    if ((rc = shift(ps)))
        return rc;
    /* Alternative by alternative, each head in turn: the clauses of one
     * body are adjacent and share its body_id (dl_share_bodies). */
    for (size_t i = 0; i < alts.n; i++)
        for (size_t h = 0; h < heads.n; h++) {
            const conj *c = alts.items[i];
            dl_clause *cl = dl_alloc(&ps->p->arena, sizeof *cl);
            if (!cl)
                return NOMEM();
            cl->head = *(dl_atom *)heads.items[h];
            cl->pos = pos;
            cl->body_id = ps->p->nbodies + (int)i;
            cl->natoms = c->atoms.n;
            cl->nnegs = c->negs.n;
            cl->ncmps = c->cmps.n;
            cl->naggs = c->aggs.n;
            if (c->aggs.n) {
                /* Each clause gets relations of its own for its
                 * aggregates: its body is not shared with other heads. */
                cl->body_id = -1;
                if ((rc = vec_to_array(ps, &c->aggs, sizeof(dl_aggregate),
                                       (void **)&cl->aggs)))
                    return rc;
            }
            if ((rc = vec_to_array(ps, &c->atoms, sizeof(dl_atom),
                                   (void **)&cl->atoms)) ||
                (rc = vec_to_array(ps, &c->negs, sizeof(dl_atom),
                                   (void **)&cl->negs)) ||
                (rc = vec_to_array(ps, &c->cmps, sizeof(dl_cmp),
                                   (void **)&cl->cmps)) ||
                (rc = dl_vec_push(&ps->p->arena, &ps->p->clauses, cl)))
                return rc;
        }
    ps->p->nbodies += (int)alts.n;
    return 0;
}

/* ---- directives ------------------------------------------------------------- */

static int parse_decl(parser *ps)
{
    int rc;
    dl_relation *r = dl_alloc(&ps->p->arena, sizeof *r);
    if (!r)
        return NOMEM();
    r->stratum = -1;
    r->input_delimiter = r->output_delimiter = '\t';
    if ((rc = take_ident(ps, "a relation name", &r->name, &r->pos)) ||
        (rc = expect(ps, "(")))
        return rc;
    dl_vec names = {0}, types = {0}, poss = {0};
    while (!is_punct(&ps->tok, ")")) {
        if (names.n && (rc = expect(ps, ",")))
            return rc;
        const char *name, *type;
        dl_pos *pos = dl_alloc(&ps->p->arena, sizeof *pos);
        if (!pos)
            return NOMEM();
        if ((rc = take_ident(ps, "a column name", &name, pos)) ||
            (rc = expect(ps, ":")) ||
            (rc = take_ident(ps, "a type", &type, NULL)) ||
            (rc = dl_vec_push(&ps->p->arena, &names, (void *)name)) ||
            (rc = dl_vec_push(&ps->p->arena, &types, (void *)type)) ||
            (rc = dl_vec_push(&ps->p->arena, &poss, pos)))
            return rc;
    }
    if (names.n == 0)
        return dl_error_at(FILE_OF(ps), r->pos,
                           "relation %s has no columns: relations without "
                           "columns are not supported", r->name);
    if (names.n > RAVEL_MAX_ARITY)
        return dl_error_at(FILE_OF(ps), r->pos,
                           "relation %s has %zu columns, more than %d",
                           r->name, names.n, RAVEL_MAX_ARITY);
    if ((rc = shift(ps)))
        return rc;
    r->arity = names.n;
    r->col_names = (const char **)names.items;
    r->col_type_names = (const char **)types.items;
    r->col_pos = dl_alloc(&ps->p->arena, names.n * sizeof *r->col_pos);
    r->col_types = dl_alloc(&ps->p->arena, names.n * sizeof *r->col_types);
    if (!r->col_pos || !r->col_types)
        return NOMEM();
    for (size_t i = 0; i < names.n; i++)
        r->col_pos[i] = *(dl_pos *)poss.items[i];
    /* Soufflé's qualifiers change representation or meaning (eqrel closes
     * a relation under equivalence); none is evaluated here. */
    static const char *const qualifiers[] = {
        "btree", "brie", "eqrel", "inline", "no_inline", "magic",
        "no_magic", "override", "btree_delete", "choice"};
    for (size_t i = 0; i < sizeof qualifiers / sizeof qualifiers[0]; i++)
        if (ps->tok.kind == DL_TOK_IDENT && dl_token_is(&ps->tok, qualifiers[i]))
            return dl_error_at(FILE_OF(ps), ps->tok.pos,
                           "the relation qualifier '%.*s' is not supported",
                           (int)(ps->tok.len > 40 ? 40 : ps->tok.len),
                           ps->tok.text);
    return dl_vec_push(&ps->p->arena, &ps->p->relations, r);
}

static int parse_type(parser *ps)
{
    int rc;
    dl_type_alias *t = dl_alloc(&ps->p->arena, sizeof *t);
    if (!t)
        return NOMEM();
    if ((rc = take_ident(ps, "a type name", &t->name, &t->pos)))
        return rc;
    if (!is_punct(&ps->tok, "<:") && !is_punct(&ps->tok, "="))
        return unexpected(ps, "'<:' or '='");
    if ((rc = shift(ps)))
        return rc;
    if (is_punct(&ps->tok, "[") || is_punct(&ps->tok, "$"))
        return dl_error_at(FILE_OF(ps), ps->tok.pos,
                           "record and algebraic data types are not "
                           "supported");
    if ((rc = take_ident(ps, "a type", &t->of, NULL)))
        return rc;
    if (is_punct(&ps->tok, "|"))
        return dl_error_at(FILE_OF(ps), ps->tok.pos,
                           "union types are not supported");
    return dl_vec_push(&ps->p->arena, &ps->p->aliases, t);
}

static dl_relation *find_relation(ravel_dl_program *p, const char *name)
{
    for (size_t i = 0; i < p->relations.n; i++)
        if (strcmp(DL_REL(p, i)->name, name) == 0)
            return DL_REL(p, i);
    return NULL;
}

/* One key=value of an I/O directive, applied to r. */
static int io_param(parser *ps, dl_relation *r, int input, const char *key,
                    dl_pos kpos, const dl_token *v)
{
    const char *val = dl_strndup(&ps->p->arena, v->text, v->len);
    if (!val)
        return NOMEM();
    if (strcmp(key, "IO") == 0) {
        if (strcmp(val, "file") != 0)
            return dl_error_at(FILE_OF(ps), v->pos,
                               "IO=%s: only IO=file is supported", val);
    } else if (strcmp(key, "filename") == 0) {
        if (!*val)
            return dl_error_at(FILE_OF(ps), v->pos, "an empty filename");
        if (input)
            r->input_file = val;
        else
            r->output_file = val;
    } else if (strcmp(key, "delimiter") == 0) {
        if (v->len != 1 || val[0] == '\n' || val[0] == '"')
            return dl_error_at(FILE_OF(ps), v->pos,
                               "delimiter=\"%s\": the delimiter must be one "
                               "byte, not a newline or a quote", val);
        if (input)
            r->input_delimiter = val[0];
        else
            r->output_delimiter = val[0];
    } else {
        return dl_error_at(FILE_OF(ps), kpos,
                           "the I/O parameter '%s' is not supported (IO, "
                           "filename and delimiter are)", key);
    }
    return 0;
}

/* .input / .output / .printsize name [(params)] [, name ...] */
static int parse_io(parser *ps, int kind /* 0 input, 1 output, 2 size */)
{
    int rc;
    for (;;) {
        const char *name;
        dl_pos pos;
        if ((rc = take_ident(ps, "a relation name", &name, &pos)))
            return rc;
        dl_relation *r = find_relation(ps->p, name);
        if (!r)
            return dl_error_at(FILE_OF(ps), pos,
                               "'%s' is not declared (declare it with .decl "
                               "before this directive)", name);
        if (kind == 0)
            r->is_input = 1, r->input_pos = pos;
        else if (kind == 1)
            r->is_output = 1;
        else
            r->is_printsize = 1;
        if (is_punct(&ps->tok, "(")) {
            if (kind == 2)
                return dl_error_at(FILE_OF(ps), ps->tok.pos,
                                   ".printsize takes no parameters");
            if ((rc = shift(ps)))
                return rc;
            while (!is_punct(&ps->tok, ")")) {
                const char *key;
                dl_pos kpos;
                if ((rc = take_ident(ps, "a parameter name", &key, &kpos)) ||
                    (rc = expect(ps, "=")))
                    return rc;
                if (ps->tok.kind != DL_TOK_STRING &&
                    ps->tok.kind != DL_TOK_IDENT)
                    return unexpected(ps, "a parameter value");
                dl_token v = ps->tok;
                if ((rc = io_param(ps, r, kind == 0, key, kpos, &v)) ||
                    (rc = shift(ps)))
                    return rc;
                if (is_punct(&ps->tok, ",") && (rc = shift(ps)))
                    return rc;
            }
            if ((rc = shift(ps)))
                return rc;
        }
        if (!is_punct(&ps->tok, ","))
            return 0;
        if ((rc = shift(ps)))
            return rc;
    }
}

static int parse_directive(parser *ps)
{
    dl_token d = ps->tok;
    int rc = shift(ps);
    if (rc)
        return rc;
    if (dl_token_is(&d, "decl"))
        return parse_decl(ps);
    if (dl_token_is(&d, "type"))
        return parse_type(ps);
    if (dl_token_is(&d, "input"))
        return parse_io(ps, 0);
    if (dl_token_is(&d, "output"))
        return parse_io(ps, 1);
    if (dl_token_is(&d, "printsize"))
        return parse_io(ps, 2);
    return dl_error_at(FILE_OF(ps), d.pos,
                       "the directive .%.*s is not supported", (int)d.len,
                       d.text);
}

int dl_parse(ravel_dl_program *p, const char *src, size_t len)
{
    parser ps = {.p = p};
    int rc;
    dl_lexer_init(&ps.lx, &p->arena, p->file, src, len);
    if ((rc = dl_lex(&ps.lx, &ps.next)) || (rc = shift(&ps)))
        return rc;
    while (ps.tok.kind != DL_TOK_EOF) {
        if (ps.tok.kind == DL_TOK_DIRECTIVE)
            rc = parse_directive(&ps);
        else if (ps.tok.kind == DL_TOK_IDENT)
            rc = parse_clause(&ps);
        else if (is_punct(&ps.tok, ".") && ps.next.kind == DL_TOK_IDENT)
            rc = dl_error_at(p->file, ps.tok.pos,
                             "unknown directive '.%.*s'",
                             (int)(ps.next.len > 40 ? 40 : ps.next.len),
                             ps.next.text);
        else
            rc = unexpected(&ps, "a declaration, a fact or a rule");
        if (rc)
            return rc;
    }
    return 0;
}
