/* The k-CFA rules, broken into binary joins (see kcfa_analysis.h for the
 * plan; every column layout used below is spelled out next to its join). */
#include "kcfa_analysis.h"

#include <ravel/error.h>

#include <string.h>

const char *const kcfa_output_names[KCFA_OUTPUTS] = {
    "Time", "ReachesCfg", "AEval", "Store", "Step", "ReachesClo"};

/* A head being assembled, term by term. */
typedef struct {
    ravel_term t[RAVEL_MAX_ARITY];
    unsigned n;
} head;

static void col(head *h, int side, unsigned c) { h->t[h->n++] = ravel_col(side, c); }

static void cols(head *h, int side, unsigned first, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        col(h, side, first + i);
}

static void constant(head *h, uint64_t v) { h->t[h->n++] = ravel_const(v); }

typedef struct {
    ravel_engine *e;
    unsigned k;
    int err;
    /* inputs */
    ravel_rel prog, lam, app, var, var_by_x, lam_c, lam_p, var_c;
    /* outputs */
    ravel_rel time, reaches_cfg, aeval, store, step, reaches_clo;
    /* intermediates */
    ravel_rel non_param, time_c, f, h, i, j, call, s1, s2;
} builder;

static ravel_rel declare(builder *b, const char *name, unsigned arity,
                         unsigned key)
{
    ravel_rel r = -1;
    if (b->err == MPI_SUCCESS)
        b->err = ravel_relation_declare(b->e, name, arity, key, &r);
    return r;
}

static void copy(builder *b, ravel_rel to, ravel_rel from, const head *h,
                 size_t nfilters, const ravel_filter *filters)
{
    if (b->err == MPI_SUCCESS)
        b->err = ravel_rule_copy(b->e, to, (ravel_body){from, RAVEL_DELTA},
                                 h->t, nfilters, filters);
}

/* to :- left ⋈ right.  `right_grows`: both sides change during the stratum,
 * so both delta ⋈ full and full ⋈ delta are needed. */
static void join(builder *b, ravel_rel to, ravel_rel left, ravel_rel right,
                 int right_grows, const head *h, size_t nfilters,
                 const ravel_filter *filters)
{
    if (b->err == MPI_SUCCESS)
        b->err = ravel_rule_join(b->e, to, (ravel_body){left, RAVEL_DELTA},
                                 (ravel_body){right, RAVEL_FULL}, h->t,
                                 nfilters, filters);
    if (right_grows && b->err == MPI_SUCCESS)
        b->err = ravel_rule_join(b->e, to, (ravel_body){left, RAVEL_FULL},
                                 (ravel_body){right, RAVEL_DELTA}, h->t,
                                 nfilters, filters);
}

static void declare_relations(builder *b)
{
    const unsigned k = b->k;
    b->prog = declare(b, "Prog", 1, 1);
    b->lam = declare(b, "Lam", 4, 1);
    b->app = declare(b, "App", 4, 1);
    b->var = declare(b, "Var", 2, 1);
    b->lam_c = declare(b, "LamC", 2, 1);
    b->lam_p = declare(b, "LamP", 4, 1);
    b->var_c = declare(b, "VarC", 3, 1);
    b->time = declare(b, "Time", k, k);
    b->reaches_cfg = declare(b, "ReachesCfg", 1 + k, 1);
    b->aeval = declare(b, "AEval", 2 + 2 * k, 1 + k);
    b->store = declare(b, "Store", 2 + 2 * k, 1);
    b->step = declare(b, "Step", 3 + 3 * k, 1);
    b->reaches_clo = declare(b, "ReachesClo", 1 + k, 1);
    b->non_param = declare(b, "NonParam", 2, 1);
    b->time_c = declare(b, "TimeC", 1 + k, 1);
    b->f = declare(b, "CallF", 4 + k, 1 + k);
    b->h = declare(b, "CallH", 4 + 2 * k, 1);
    b->i = declare(b, "CallI", 7 + 2 * k, 1 + k);
    b->j = declare(b, "CallJ", 7 + 3 * k, 1 + k);
    b->call = declare(b, "Call", 7 + 4 * k, 1);
    b->s1 = declare(b, "EnterS1", 1 + 2 * k, 1);
    b->s2 = declare(b, "EnterS2", 1 + 2 * k, 1 + k);
    if (b->err == MPI_SUCCESS) {
        const unsigned by_x[1] = {1};
        b->err = ravel_relation_index(b->e, b->var, "VarByX", 1, by_x,
                                      &b->var_by_x);
    }
}

/* Stratum 0: NonParam(lc, r) :- LamP(0,lc,p0,p1), VarC(0,r,x), x≠p0, x≠p1. */
static void non_param_stratum(builder *b)
{
    if (b->err == MPI_SUCCESS)
        b->err = ravel_stratum_begin(b->e);
    head h = {.n = 0};
    col(&h, 0, 1);
    col(&h, 1, 1);
    const ravel_filter not_a_parameter[2] = {
        {ravel_col(1, 2), RAVEL_NE, ravel_col(0, 2)},
        {ravel_col(1, 2), RAVEL_NE, ravel_col(0, 3)}};
    join(b, b->non_param, b->lam_p, b->var_c, 0, &h, 2, not_a_parameter);
}

/* Rule 1: ReachesCfg(e, τ0) and Time(τ0) for Prog(e), τ0 = (e, ..., e). */
static void entry_rules(builder *b)
{
    head h = {.n = 0};
    for (unsigned c = 0; c <= b->k; c++)
        col(&h, 0, 0);
    copy(b, b->reaches_cfg, b->prog, &h, 0, NULL);
    h.n = 0;
    for (unsigned c = 0; c < b->k; c++)
        col(&h, 0, 0);
    copy(b, b->time, b->prog, &h, 0, NULL);
}

/* Rule 2, as the chain ReachesCfg ⋈ App ⋈ AEval ⋈ Lam ⋈ AEval ⋈ AEval. */
static void call_chain(builder *b)
{
    const unsigned k = b->k;
    head h = {.n = 0};
    /* ReachesCfg(a,τ) ⋈ App(a,f,a0,a1) -> F(f, τ, a, a0, a1) */
    col(&h, 1, 1), cols(&h, 0, 1, k), col(&h, 0, 0), col(&h, 1, 2),
        col(&h, 1, 3);
    join(b, b->f, b->reaches_cfg, b->app, 0, &h, 0, NULL);
    /* F(f,τ,a,a0,a1) ⋈ AEval(f,τ,l,τf) -> H(l, a, τ, a0, a1, τf) */
    h.n = 0;
    col(&h, 1, k + 1), col(&h, 0, k + 1), cols(&h, 0, 1, k),
        col(&h, 0, k + 2), col(&h, 0, k + 3), cols(&h, 1, k + 2, k);
    join(b, b->h, b->f, b->aeval, 1, &h, 0, NULL);
    /* H(l,a,τ,a0,a1,τf) ⋈ Lam(l,x,y,body)
     *   -> I(a0, τ, a, a1, l, τf, x, y, body) */
    h.n = 0;
    col(&h, 0, k + 2), cols(&h, 0, 2, k), col(&h, 0, 1), col(&h, 0, k + 3),
        col(&h, 0, 0), cols(&h, 0, k + 4, k), cols(&h, 1, 1, 3);
    join(b, b->i, b->h, b->lam, 0, &h, 0, NULL);
    /* I(a0,τ,a,a1,l,τf,x,y,body) ⋈ AEval(a0,τ,l0,τ0')
     *   -> J(a1, τ, a, l, τf, x, y, body, l0, τ0') */
    h.n = 0;
    col(&h, 0, k + 2), cols(&h, 0, 1, k), col(&h, 0, k + 1),
        col(&h, 0, k + 3), cols(&h, 0, k + 4, k), cols(&h, 0, 2 * k + 4, 3),
        col(&h, 1, k + 1), cols(&h, 1, k + 2, k);
    join(b, b->j, b->i, b->aeval, 1, &h, 0, NULL);
    /* J(a1,τ,a,l,τf,x,y,body,l0,τ0') ⋈ AEval(a1,τ,l1,τ1')
     *   -> Call(a, τ, l, τf, x, y, body, l0, τ0', l1, τ1') */
    h.n = 0;
    col(&h, 0, k + 1), cols(&h, 0, 1, k), col(&h, 0, k + 2),
        cols(&h, 0, k + 3, k), cols(&h, 0, 2 * k + 3, 3), col(&h, 0, 2 * k + 6),
        cols(&h, 0, 2 * k + 7, k), col(&h, 1, k + 1), cols(&h, 1, k + 2, k);
    join(b, b->call, b->j, b->aeval, 1, &h, 0, NULL);
}

/* τ2 = push(a, τ) from a Call tuple: a, then τ1 .. τ(k-1). */
static void push_context(head *h, unsigned k)
{
    col(h, 0, 0);
    cols(h, 0, 1, k - 1);
}

/* Rule 2's heads, from Call(a[0], τ[1..k], l[k+1], τf[k+2..2k+1],
 * x[2k+2], y[2k+3], body[2k+4], l0[2k+5], τ0'[2k+6..3k+5], l1[3k+6],
 * τ1'[3k+7..4k+6]). */
static void call_heads(builder *b)
{
    const unsigned k = b->k;
    head h = {.n = 0};
    col(&h, 0, 2 * k + 2), push_context(&h, k), col(&h, 0, 2 * k + 5),
        cols(&h, 0, 2 * k + 6, k);
    copy(b, b->store, b->call, &h, 0, NULL);
    h.n = 0;
    col(&h, 0, 2 * k + 3), push_context(&h, k), col(&h, 0, 3 * k + 6),
        cols(&h, 0, 3 * k + 7, k);
    copy(b, b->store, b->call, &h, 0, NULL);
    h.n = 0;
    col(&h, 0, 0), cols(&h, 0, 1, k), col(&h, 0, 2 * k + 4),
        push_context(&h, k), col(&h, 0, k + 1), cols(&h, 0, k + 2, k);
    copy(b, b->step, b->call, &h, 0, NULL);
    h.n = 0;
    col(&h, 0, 2 * k + 4), push_context(&h, k);
    copy(b, b->reaches_cfg, b->call, &h, 0, NULL);
    h.n = 0;
    col(&h, 0, k + 1), cols(&h, 0, k + 2, k);
    copy(b, b->reaches_clo, b->call, &h, 0, NULL);
    h.n = 0;
    push_context(&h, k);
    copy(b, b->time, b->call, &h, 0, NULL);
}

/* Rules 3, 4 and 5: where AEval comes from. */
static void aeval_rules(builder *b)
{
    const unsigned k = b->k;
    head h = {.n = 0};
    /* Rule 3: TimeC(0, τ) :- Time(τ);  AEval(l,τ,l,τ) :- TimeC ⋈ LamC(0,l) */
    constant(&h, 0), cols(&h, 0, 0, k);
    copy(b, b->time_c, b->time, &h, 0, NULL);
    h.n = 0;
    col(&h, 1, 1), cols(&h, 0, 1, k), col(&h, 1, 1), cols(&h, 0, 1, k);
    join(b, b->aeval, b->time_c, b->lam_c, 0, &h, 0, NULL);
    /* Rule 4: Store(x,τ,l,τ') ⋈ VarByX(x,r) -> AEval(r,τ,l,τ') */
    h.n = 0;
    col(&h, 1, 1), cols(&h, 0, 1, k), col(&h, 0, k + 1), cols(&h, 0, k + 2, k);
    join(b, b->aeval, b->store, b->var_by_x, 0, &h, 0, NULL);
    /* Rule 5: Step(a,τ0,body,τ[k+2..2k+1],lc[2k+2],τc[2k+3..3k+2])
     *   -> S1(lc, τ, τc) */
    h.n = 0;
    col(&h, 0, 2 * k + 2), cols(&h, 0, k + 2, k), cols(&h, 0, 2 * k + 3, k);
    copy(b, b->s1, b->step, &h, 0, NULL);
    /* S1(lc,τ,τc) ⋈ NonParam(lc,r) -> S2(r, τc, τ) */
    h.n = 0;
    col(&h, 1, 1), cols(&h, 0, k + 1, k), cols(&h, 0, 1, k);
    join(b, b->s2, b->s1, b->non_param, 0, &h, 0, NULL);
    /* S2(r,τc,τ) ⋈ AEval(r,τc,l,τ') -> AEval(r, τ, l, τ') */
    h.n = 0;
    col(&h, 0, 0), cols(&h, 0, k + 1, k), col(&h, 1, k + 1),
        cols(&h, 1, k + 2, k);
    join(b, b->aeval, b->s2, b->aeval, 1, &h, 0, NULL);
}

/* Row i of every input table goes in from rank i mod P. */
static void insert_facts(builder *b, const ravel_kcfa_facts *facts, int rank,
                         int P)
{
    uint64_t row[4];
    if (rank == 0 && b->err == MPI_SUCCESS)
        b->err = ravel_insert(b->e, b->prog, facts->prog, 1);
    for (size_t i = (size_t)rank; i < facts->nlam && b->err == MPI_SUCCESS;
         i += (size_t)P) {
        const uint64_t *l = facts->lam + 4 * i;
        b->err = ravel_insert(b->e, b->lam, l, 1);
        row[0] = 0, row[1] = l[0];
        if (b->err == MPI_SUCCESS)
            b->err = ravel_insert(b->e, b->lam_c, row, 1);
        row[0] = 0, row[1] = l[0], row[2] = l[1], row[3] = l[2];
        if (b->err == MPI_SUCCESS)
            b->err = ravel_insert(b->e, b->lam_p, row, 1);
    }
    for (size_t i = (size_t)rank; i < facts->napp && b->err == MPI_SUCCESS;
         i += (size_t)P)
        b->err = ravel_insert(b->e, b->app, facts->app + 4 * i, 1);
    for (size_t i = (size_t)rank; i < facts->nvar && b->err == MPI_SUCCESS;
         i += (size_t)P) {
        const uint64_t *v = facts->var + 2 * i;
        b->err = ravel_insert(b->e, b->var, v, 1);
        row[0] = 0, row[1] = v[0], row[2] = v[1];
        if (b->err == MPI_SUCCESS)
            b->err = ravel_insert(b->e, b->var_c, row, 1);
    }
}

int kcfa_analysis_declare(ravel_engine *e, unsigned k,
                          const ravel_kcfa_facts *facts, int rank, int nranks,
                          kcfa_analysis *out)
{
    if (k < 1 || k > KCFA_MAX_K)
        return ravel_error_set(MPI_ERR_ARG, "k = %u: expected 1..%d", k,
                               KCFA_MAX_K);
    builder b;
    memset(&b, 0, sizeof b);
    b.e = e;
    b.k = k;
    b.err = MPI_SUCCESS;
    declare_relations(&b);
    non_param_stratum(&b);
    if (b.err == MPI_SUCCESS)
        b.err = ravel_stratum_begin(e);
    entry_rules(&b);
    call_chain(&b);
    call_heads(&b);
    aeval_rules(&b);
    insert_facts(&b, facts, rank, nranks);
    if (b.err != MPI_SUCCESS)
        return b.err;
    out->k = k;
    out->out[KCFA_TIME] = b.time;
    out->out[KCFA_REACHES_CFG] = b.reaches_cfg;
    out->out[KCFA_AEVAL] = b.aeval;
    out->out[KCFA_STORE] = b.store;
    out->out[KCFA_STEP] = b.step;
    out->out[KCFA_REACHES_CLO] = b.reaches_clo;
    return MPI_SUCCESS;
}
