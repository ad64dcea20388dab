/* Random small Datalog programs run by the engine at this P, with every comm
 * backend and varied placement settings (bucket counts, initial sub-buckets,
 * aggressive load balancing on or off, tiny exchange rounds, packed storage
 * on or off, full as one array or many runs), compared tuple
 * for tuple with a naive sequential evaluator written here.
 *
 * The oracle shares no engine code: relations are bitmaps over a small value
 * domain (values 0..D-1, arity <= 4), and each stratum applies all its rules
 * to the current sets until nothing changes.  Programs use only semi-naive
 * forms that denote the plain fixed point (copy from delta; a join as the two
 * rules delta x full and full x delta, or full x full), random filters
 * (=, !=, <, <=, >, >=, and the four by an order function, descending
 * here) and constants, secondary indexes read by joins,
 * anti-joins (stratified: the right side's base is the head of no rule of
 * the anti-join's stratum), computed head terms ((a op b) % 5), and
 * several strata.
 *
 * Each program also runs under memory limits (max_memory) so tight that most
 * runs stop somewhere (inserting, exchanging, promoting, moving): every rank
 * must then return MPI_ERR_NO_MEM with the limit in the message, none may
 * hang or crash, and a run that fits must still match the oracle.  After
 * every engine is freed, the memory ledger must be back at zero: a byte
 * counted in and never out would make long runs fail early.
 * usage: mpiexec -n P mpi_relalg_random_programs NPROGRAMS */
#include "ravel/comm.h"
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D 5          /* value domain */
#define MAXA 4       /* arity bound of the test programs */
#define SPACE 625    /* D^MAXA: tuples of one relation */
#define MAXREL 8
#define MAXRULES 16

typedef struct {
    unsigned arity, key;
    int index_of;          /* -1, or the base relation */
    unsigned perm[MAXA];   /* index column i = base column perm[i] */
} rel_spec;

typedef struct {
    int head, nbody;
    int negated;           /* an anti-join: head :- body[0], !body[1] */
    ravel_body body[2];
    ravel_term terms[MAXA];
    ravel_filter filters[2];
    size_t nfilters;
    ravel_expr exprs[2];   /* (a op b) % D, a computed head term */
    size_t nexprs;
} rule_spec;

typedef struct {
    int nrel;
    rel_spec rel[MAXREL];
    int nstrata;
    int nrules[3];
    rule_spec rules[3][MAXRULES];
    unsigned char set[MAXREL][SPACE]; /* facts, then the oracle's result */
} program;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

static unsigned encode(const uint64_t *t, unsigned arity)
{
    unsigned c = 0;
    for (unsigned i = 0; i < arity; i++)
        c = c * D + (unsigned)t[i];
    return c;
}

static void decode(unsigned c, unsigned arity, uint64_t *t)
{
    for (unsigned i = arity; i-- > 0;) {
        t[i] = c % D;
        c /= D;
    }
}

static unsigned space(unsigned arity)
{
    unsigned s = 1;
    for (unsigned i = 0; i < arity; i++)
        s *= D;
    return s;
}

/* ---- random programs ----------------------------------------------------- */

static ravel_term random_term(const program *p, const rule_spec *r)
{
    if (rndn(6) == 0)
        return ravel_const(rndn(D));
    int side = r->negated ? 0 : (int)rndn((unsigned)r->nbody);
    return ravel_col(side, rndn(p->rel[r->body[side].rel].arity));
}

/* Perhaps one head term computed: (a op b) % D, so that it stays in the
 * oracle's domain; a divisor is a nonzero constant. */
static void random_expr(const program *p, rule_spec *r)
{
    if (rndn(3))
        return;
    ravel_op op = (ravel_op)rndn(RAVEL_XOR + 1);
    r->exprs[0].op = op;
    r->exprs[0].left = random_term(p, r);
    r->exprs[0].right = op >= RAVEL_SDIV && op <= RAVEL_UREM
                            ? ravel_const(1 + rndn(D - 1))
                            : random_term(p, r);
    r->exprs[1].op = RAVEL_UREM;
    r->exprs[1].left = ravel_expr_ref(0);
    r->exprs[1].right = ravel_const(D);
    r->nexprs = 2;
    r->terms[rndn(p->rel[r->head].arity)] = ravel_expr_ref(1);
}

/* Fewer than `bound` random filters. */
static void random_filters(const program *p, rule_spec *r, unsigned bound)
{
    r->nfilters = rndn(bound);
    for (size_t i = 0; i < r->nfilters; i++) {
        r->filters[i].left = random_term(p, r);
        r->filters[i].right = random_term(p, r);
        r->filters[i].op = (ravel_cmp)rndn(RAVEL_ORD_GE + 1);
    }
}

static void random_rule(program *p, rule_spec *out, int *nout, int max)
{
    rule_spec r;
    memset(&r, 0, sizeof r);
    int declared[MAXREL], nd = 0;
    for (int i = 0; i < p->nrel; i++)
        if (p->rel[i].index_of < 0)
            declared[nd++] = i;
    r.head = declared[rndn((unsigned)nd)];
    if (rndn(3) == 0) {
        r.nbody = 1;
        r.body[0].rel = (int)rndn((unsigned)p->nrel);
    } else {
        r.nbody = 2;
        int l = (int)rndn((unsigned)p->nrel), rr = -1;
        for (int tries = 0; tries < 20 && rr < 0; tries++) {
            int c = (int)rndn((unsigned)p->nrel);
            if (p->rel[c].key == p->rel[l].key)
                rr = c;
        }
        if (rr < 0) {
            r.nbody = 1;
            r.body[0].rel = l;
        } else {
            r.body[0].rel = l;
            r.body[1].rel = rr;
        }
    }
    for (unsigned i = 0; i < p->rel[r.head].arity; i++)
        r.terms[i] = random_term(p, &r);
    random_expr(p, &r);
    random_filters(p, &r, 3);
    /* Semi-naive forms of the same rule. */
    if (r.nbody == 1) {
        r.body[0].version = RAVEL_DELTA;
        out[(*nout)++] = r;
    } else if (rndn(4) == 0 || *nout + 2 > max) {
        r.body[0].version = r.body[1].version = RAVEL_FULL;
        out[(*nout)++] = r;
    } else {
        r.body[0].version = RAVEL_DELTA;
        r.body[1].version = RAVEL_FULL;
        out[(*nout)++] = r;
        r.body[0].version = RAVEL_FULL;
        r.body[1].version = RAVEL_DELTA;
        out[(*nout)++] = r;
    }
}

/* The base of relation i (itself, or the relation it indexes). */
static int base_of(const program *p, int i)
{
    return p->rel[i].index_of < 0 ? i : p->rel[i].index_of;
}

/* Perhaps one anti-join at the end of stratum s: its right side's base is
 * the head of no rule of s (stratified negation: it does not grow while
 * the anti-join reads it). */
static void random_antijoin(program *p, int s)
{
    if (rndn(2) || p->nrules[s] >= MAXRULES)
        return;
    int l = (int)rndn((unsigned)p->nrel), right = -1;
    for (int tries = 0; tries < 20 && right < 0; tries++) {
        int c = (int)rndn((unsigned)p->nrel), grows = 0;
        for (int k = 0; k < p->nrules[s]; k++)
            grows |= p->rules[s][k].head == base_of(p, c);
        if (!grows && p->rel[c].key == p->rel[l].key)
            right = c;
    }
    int declared[MAXREL], nd = 0;
    for (int i = 0; i < p->nrel; i++)
        if (p->rel[i].index_of < 0 && i != base_of(p, right < 0 ? 0 : right))
            declared[nd++] = i;
    if (right < 0 || nd == 0)
        return;
    rule_spec r;
    memset(&r, 0, sizeof r);
    r.negated = 1;
    r.nbody = 2;
    r.head = declared[rndn((unsigned)nd)];
    r.body[0].rel = l;
    r.body[0].version = rndn(2) ? RAVEL_DELTA : RAVEL_FULL;
    r.body[1].rel = right;
    r.body[1].version = RAVEL_FULL;
    for (unsigned i = 0; i < p->rel[r.head].arity; i++)
        r.terms[i] = random_term(p, &r);
    random_expr(p, &r);
    random_filters(p, &r, 2);
    /* Its head grows now: no later anti-join of s may read it. */
    p->rules[s][p->nrules[s]++] = r;
}

static void random_program(program *p)
{
    memset(p, 0, sizeof *p);
    int ndecl = 2 + (int)rndn(3);
    for (int i = 0; i < ndecl; i++) {
        p->rel[i].arity = 1 + rndn(MAXA);
        p->rel[i].key = 1 + rndn(p->rel[i].arity < 2 ? 1 : 2);
        if (p->rel[i].key > p->rel[i].arity)
            p->rel[i].key = p->rel[i].arity;
        p->rel[i].index_of = -1;
        unsigned nfacts = rndn(20);
        for (unsigned f = 0; f < nfacts; f++)
            p->set[i][rndn(space(p->rel[i].arity))] = 1;
    }
    p->nrel = ndecl;
    /* Up to two secondary indexes, keyed on other columns. */
    for (int k = 0; k < 2; k++) {
        int b = (int)rndn((unsigned)ndecl);
        if (p->rel[b].arity < 2 || rndn(2))
            continue;
        rel_spec *x = &p->rel[p->nrel++];
        x->arity = p->rel[b].arity;
        x->key = 1;
        x->index_of = b;
        unsigned first = 1 + rndn(x->arity - 1), w = 0;
        x->perm[w++] = first;
        for (unsigned c = 0; c < x->arity; c++)
            if (c != first)
                x->perm[w++] = c;
    }
    p->nstrata = 1 + (int)rndn(3);
    for (int s = 0; s < p->nstrata; s++) {
        int want = 1 + (int)rndn(4);
        for (int i = 0; i < want && p->nrules[s] < MAXRULES - 1; i++)
            random_rule(p, p->rules[s], &p->nrules[s], MAXRULES);
        random_antijoin(p, s);
    }
}

/* ---- the oracle ------------------------------------------------------------ */

/* The tuples of relation i, from its own set or its base's. */
static size_t oracle_list(const program *p, int i, uint64_t *out)
{
    const rel_spec *r = &p->rel[i];
    int src = r->index_of < 0 ? i : r->index_of;
    size_t n = 0;
    uint64_t t[MAXA];
    for (unsigned c = 0; c < space(r->arity); c++) {
        if (!p->set[src][c])
            continue;
        decode(c, r->arity, t);
        for (unsigned k = 0; k < r->arity; k++)
            out[n * MAXA + k] = r->index_of < 0 ? t[k] : t[r->perm[k]];
        n++;
    }
    return n;
}

static uint64_t oracle_value(ravel_term t, const uint64_t *a,
                             const uint64_t *b, const uint64_t *vals)
{
    if (t.side == RAVEL_SIDE_CONSTANT)
        return t.value;
    if (t.side == RAVEL_SIDE_EXPR)
        return vals[t.column];
    return t.side == 0 ? a[t.column] : b[t.column];
}

/* The rule's expressions, by the header's definitions; the test's
 * divisors are nonzero and its values small and unsigned, so signed and
 * unsigned division agree here. */
static void oracle_exprs(const rule_spec *r, const uint64_t *a,
                         const uint64_t *b, uint64_t *vals)
{
    for (size_t i = 0; i < r->nexprs; i++) {
        uint64_t x = oracle_value(r->exprs[i].left, a, b, vals);
        uint64_t y = oracle_value(r->exprs[i].right, a, b, vals);
        switch (r->exprs[i].op) {
        case RAVEL_ADD: vals[i] = x + y; break;
        case RAVEL_SUB: vals[i] = x - y; break;
        case RAVEL_MUL: vals[i] = x * y; break;
        case RAVEL_SDIV: case RAVEL_UDIV: vals[i] = x / y; break;
        case RAVEL_SREM: case RAVEL_UREM: vals[i] = x % y; break;
        case RAVEL_XOR: vals[i] = x ^ y; break;
        }
    }
}

static int oracle_apply(program *p, const rule_spec *r, const uint64_t *a,
                        const uint64_t *b)
{
    uint64_t vals[2];
    oracle_exprs(r, a, b, vals);
    for (size_t f = 0; f < r->nfilters; f++) {
        uint64_t x = oracle_value(r->filters[f].left, a, b, vals);
        uint64_t y = oracle_value(r->filters[f].right, a, b, vals);
        int ok = 0;
        switch (r->filters[f].op) {
        case RAVEL_EQ: ok = x == y; break;
        case RAVEL_NE: ok = x != y; break;
        case RAVEL_LT: ok = x < y; break;
        case RAVEL_LE: ok = x <= y; break;
        case RAVEL_GT: ok = x > y; break;
        case RAVEL_GE: ok = x >= y; break;
        /* The engine's order function here is descending (by_descending). */
        case RAVEL_ORD_LT: ok = x > y; break;
        case RAVEL_ORD_LE: ok = x >= y; break;
        case RAVEL_ORD_GT: ok = x < y; break;
        case RAVEL_ORD_GE: ok = x <= y; break;
        }
        if (!ok)
            return 0;
    }
    uint64_t h[MAXA];
    for (unsigned i = 0; i < p->rel[r->head].arity; i++)
        h[i] = oracle_value(r->terms[i], a, b, vals);
    unsigned c = encode(h, p->rel[r->head].arity);
    if (p->set[r->head][c])
        return 0;
    p->set[r->head][c] = 1;
    return 1;
}

static void oracle_run(program *p)
{
    static uint64_t A[SPACE * MAXA], B[SPACE * MAXA];
    for (int s = 0; s < p->nstrata; s++) {
        int changed = 1;
        while (changed) {
            changed = 0;
            for (int k = 0; k < p->nrules[s]; k++) {
                const rule_spec *r = &p->rules[s][k];
                size_t na = oracle_list(p, r->body[0].rel, A);
                if (r->nbody == 1) {
                    for (size_t i = 0; i < na; i++)
                        changed |= oracle_apply(p, r, A + i * MAXA, NULL);
                    continue;
                }
                size_t nb = oracle_list(p, r->body[1].rel, B);
                unsigned key = p->rel[r->body[0].rel].key;
                if (r->negated) {
                    for (size_t i = 0; i < na; i++) {
                        int met = 0;
                        for (size_t j = 0; j < nb && !met; j++)
                            met = memcmp(A + i * MAXA, B + j * MAXA,
                                         key * sizeof(uint64_t)) == 0;
                        if (!met)
                            changed |= oracle_apply(p, r, A + i * MAXA,
                                                    NULL);
                    }
                    continue;
                }
                for (size_t i = 0; i < na; i++)
                    for (size_t j = 0; j < nb; j++)
                        if (memcmp(A + i * MAXA, B + j * MAXA,
                                   key * sizeof(uint64_t)) == 0)
                            changed |= oracle_apply(p, r, A + i * MAXA,
                                                    B + j * MAXA);
            }
        }
    }
}

/* ---- the engine ------------------------------------------------------------ */

static int failures;
static int limited_stopped, limited_fit; /* runs under a memory limit */

static int cmp_code(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* What ravel_relation_visit hands over, gathered: the tuples, and whether
 * each came after the one before (the visit's order). */
typedef struct {
    uint64_t *t;
    size_t n, cap;
    unsigned arity;
    int in_order;
} visited;

/* Lexicographic order of two tuples: -1, 0 or 1. */
static int memcmp_tuples(const uint64_t *a, const uint64_t *b, unsigned n)
{
    for (unsigned c = 0; c < n; c++)
        if (a[c] != b[c])
            return a[c] < b[c] ? -1 : 1;
    return 0;
}

static int collect(const uint64_t *t, size_t n, void *arg)
{
    visited *v = arg;
    if (v->n + n > v->cap) {
        uint64_t *grown = realloc(v->t, 2 * (v->n + n) * v->arity *
                                            sizeof *v->t);
        if (!grown)
            return MPI_ERR_NO_MEM;
        v->t = grown;
        v->cap = 2 * (v->n + n);
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t *d = v->t + (v->n + k) * v->arity;
        memcpy(d, t + k * v->arity, v->arity * sizeof *d);
        if (v->n + k > 0 && memcmp_tuples(d - v->arity, d, v->arity) >= 0)
            v->in_order = 0;
    }
    v->n += n;
    return 0;
}

/* Gathers relation i's tuples at rank 0 and compares them with the oracle;
 * the verdict is shared.  Odd relations are read through
 * ravel_relation_visit (which must also hand them over in order), even
 * ones through ravel_relation_local. */
static int compare_relation(ravel_engine *e, const program *p, int i,
                            ravel_rel id, int rank, int size)
{
    size_t n;
    const uint64_t *t;
    visited v = {.arity = p->rel[i].arity, .in_order = 1};
    if (i % 2) {
        if (ravel_relation_visit(e, id, collect, &v) != MPI_SUCCESS)
            v.in_order = 0; /* then the comparison fails */
        t = v.t;
        n = v.in_order ? v.n : 0;
    } else if (ravel_relation_local(e, id, &t, &n) != MPI_SUCCESS) {
        n = 0; /* then the comparison fails */
    }
    unsigned arity = p->rel[i].arity;
    unsigned *codes = malloc((n + 1) * sizeof *codes);
    for (size_t k = 0; k < n; k++)
        codes[k] = encode(t + k * arity, arity);
    int total;
    unsigned *all = gather_at_root(codes, (int)n, MPI_UNSIGNED,
                                   sizeof *codes, rank, size, &total);
    int ok = 1;
    if (rank == 0) {
        static uint64_t want[SPACE * MAXA];
        size_t nw = oracle_list(p, i, want);
        unsigned *wc = malloc((nw + 1) * sizeof *wc);
        for (size_t k = 0; k < nw; k++) {
            uint64_t tt[MAXA];
            memcpy(tt, want + k * MAXA, sizeof tt);
            wc[k] = encode(tt, arity);
        }
        qsort(wc, nw, sizeof *wc, cmp_code);
        qsort(all, (size_t)total, sizeof *all, cmp_code);
        ok = (size_t)total == nw &&
             (nw == 0 || memcmp(wc, all, nw * sizeof *wc) == 0);
        if (!ok)
            fprintf(stderr, "relation r%d: engine has %d tuples, oracle %zu\n",
                    i, total, nw);
        free(wc);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(v.t);
    free(codes);
    free(all);
    return ok;
}

/* Under a memory limit a call may fail: every rank must agree that it
 * did, with MPI_ERR_NO_MEM and the limit named.  Returns 1 when all ranks
 * succeeded, 0 when all failed that way (a failure otherwise counts). */
static int agreed(int err, const char *what, const char *backend,
                  int variant)
{
    int mine[2] = {err != MPI_SUCCESS, err == MPI_SUCCESS}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int any_failed = !all[1], every_failed = all[0];
    int bad = err != MPI_SUCCESS &&
              (err != MPI_ERR_NO_MEM ||
               !strstr(ravel_error_message(), "memory limit"));
    if (bad || (any_failed && !every_failed)) {
        fprintf(stderr, "FAIL: %s under a memory limit, backend %s variant "
                "%d: code %d on this rank, every rank failed: %d: %s\n",
                what, backend, variant, err, every_failed,
                ravel_error_message());
        failures++;
    }
    return !any_failed;
}

/* The order of the RAVEL_ORD_* filters: descending, unlike the bits'. */
static int by_descending(uint64_t a, uint64_t b, void *arg)
{
    (void)arg;
    return a > b ? -1 : a < b;
}

static void run_engine(const program *facts, const program *expect,
                       const char *backend, int variant, int rank, int size,
                       uint64_t max_memory)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = backend;
    o.quiet = 1;
    o.buckets = 1 + (uint64_t)(variant * 7) % 13;
    o.sub_buckets = (uint32_t)(1 + variant % 3);
    o.load_balance = variant % 2;
    o.balance_min_tuples = 1;
    o.balance_factor = 0.5;
    o.seed = (uint64_t)variant;
    /* Half the variants (with and without balancing) pack every relation
     * that no rule reads in full, as soon as it can. */
    o.pack_min_tuples = (variant / 2) % 2 ? 1 : 0;
    /* Most variants hold full as runs from the start (storage.c): joins,
     * anti-joins and reductions then read several. */
    o.run_ratio = variant % 5 < 3 ? 1 : 0;
    if (variant % 4 == 3)
        o.max_block_elements = 5; /* several exchange rounds */
    /* Half the variants learn receive sizes on the way (ravel_exchange),
     * several rounds included. */
    o.discover_counts = (variant / 4) % 2;
    o.max_memory = max_memory;
    int limited = max_memory != UINT64_MAX;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_engine_set_order(e, by_descending, NULL);
    ravel_rel ids[MAXREL];
    for (int i = 0; i < facts->nrel; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        const rel_spec *r = &facts->rel[i];
        if (r->index_of < 0)
            CHECK(ravel_relation_declare(e, name, r->arity, r->key, &ids[i]));
        else
            CHECK(ravel_relation_index(e, ids[r->index_of], name, r->key,
                                       r->perm, &ids[i]));
    }
    /* Each fact is inserted by one rank, not necessarily its owner. */
    uint64_t t[MAXA];
    unsigned counter = 0;
    int err = MPI_SUCCESS;
    for (int i = 0; i < facts->nrel && err == MPI_SUCCESS; i++) {
        if (facts->rel[i].index_of >= 0)
            continue;
        for (unsigned c = 0; c < space(facts->rel[i].arity); c++) {
            if (!facts->set[i][c])
                continue;
            if ((int)(counter++ % (unsigned)size) != rank)
                continue;
            decode(c, facts->rel[i].arity, t);
            err = ravel_insert(e, ids[i], t, 1);
            if (err != MPI_SUCCESS)
                break;
        }
    }
    /* Inserting is local: a rank that ran out tells the others here. */
    int fail = err != MPI_SUCCESS, any = 0;
    MPI_Allreduce(&fail, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (!limited || (fail && (err != MPI_ERR_NO_MEM ||
                                  !strstr(ravel_error_message(),
                                          "memory limit")))) {
            fprintf(stderr, "FAIL: insert, backend %s variant %d: %s\n",
                    backend, variant, ravel_error_message());
            failures++;
        }
        limited_stopped++;
        ravel_engine_free(e);
        return;
    }
    for (int s = 0; s < facts->nstrata; s++) {
        CHECK(ravel_stratum_begin(e));
        for (int k = 0; k < facts->nrules[s]; k++) {
            rule_spec r = facts->rules[s][k];
            r.head = ids[r.head];
            for (int b = 0; b < r.nbody; b++)
                r.body[b].rel = ids[r.body[b].rel];
            if (r.nbody == 1)
                CHECK(ravel_rule_copy_ex(e, r.head, r.body[0], r.terms,
                                         r.nfilters, r.filters, r.nexprs,
                                         r.exprs));
            else if (r.negated)
                CHECK(ravel_rule_antijoin_ex(e, r.head, r.body[0],
                                             r.body[1].rel, r.terms,
                                             r.nfilters, r.filters, r.nexprs,
                                             r.exprs));
            else
                CHECK(ravel_rule_join_ex(e, r.head, r.body[0], r.body[1],
                                         r.terms, r.nfilters, r.filters,
                                         r.nexprs, r.exprs));
        }
    }
    if (limited) {
        if (!agreed(ravel_run(e), "ravel_run", backend, variant)) {
            limited_stopped++;
            ravel_engine_free(e);
            return;
        }
        limited_fit++;
    } else {
        CHECK(ravel_run(e));
    }
    for (int i = 0; i < facts->nrel; i++) {
        if (!compare_relation(e, expect, i, ids[i], rank, size)) {
            if (rank == 0)
                fprintf(stderr, "FAIL: backend %s variant %d relation r%d\n",
                        backend, variant, i);
            failures++;
        }
    }
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nprograms = argc > 1 ? atoi(argv[1]) : 10;
    static program facts, expect;
    for (int k = 0; k < nprograms; k++) {
        rng_state = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
        random_program(&facts);
        expect = facts;
        oracle_run(&expect);
        for (size_t b = 0; b < ravel_alltoallv_count(); b++)
            run_engine(&facts, &expect, ravel_alltoallv_name(b),
                       k + (int)b, rank, size, UINT64_MAX);
        /* Limits from "stops at the first buffer" to "mostly fits". */
        static const uint64_t limits[] = {600, 3000, 12000, 48000};
        for (size_t l = 0; l < sizeof limits / sizeof *limits; l++)
            run_engine(&facts, &expect,
                       ravel_alltoallv_name((k + l) % ravel_alltoallv_count()),
                       k + (int)l, rank, size, limits[l]);
        uint64_t held, peak;
        ravel_tuple_memory(&held, &peak);
        if (held != 0) {
            fprintf(stderr, "FAIL: program %d: %llu bytes of tuples still "
                    "counted after every engine was freed\n", k,
                    (unsigned long long)held);
            failures++;
        }
    }
    if (rank == 0)
        printf("%s: %d programs x %zu backends at P=%d; under memory "
               "limits %d runs stopped cleanly, %d fitted and matched\n",
               failures ? "FAILED" : "ok", nprograms, ravel_alltoallv_count(),
               size, limited_stopped, limited_fit);
    MPI_Finalize();
    return failures ? 1 : 0;
}
