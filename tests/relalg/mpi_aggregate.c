/* ravel_rule_aggregate against a sequential computation written here.
 *
 * Random relations of 1 to 4 columns (group columns from a few values, so
 * that groups repeat; value columns anywhere in 64 bits, so that sums wrap
 * and unsigned order matters), each aggregated by every operator over a
 * random group width k (0 to the arity), read directly or through an index
 * that puts other columns first, with and without a computed value and a
 * result XOR, under engine settings that split buckets (the partials must
 * still meet on one rank), several exchange rounds, either exchange path,
 * packed storage and full held as runs.  The body is derived in one stratum and aggregated in the next,
 * beside a recursive rule that keeps that stratum iterating: the result
 * must be computed once.  Empty bodies included (COUNT and SUM with no
 * group must still say 0).
 *
 * The oracle: every body tuple (all ranks generate the same), sorted by
 * the group columns with qsort, each run reduced with the operator's plain
 * definition.
 * usage: mpiexec -n P mpi_relalg_aggregate NCASES */
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXA 4
#define MAXT 300

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct {
    unsigned arity, k;   /* body arity, group width */
    int use_index;       /* read through an index (perm) */
    unsigned perm[MAXA]; /* index column i = base column perm[i] */
    ravel_agg op;
    int computed;        /* value = column XOR 2^63, an expression */
    unsigned value_col;  /* in the read relation's columns */
    uint64_t result_xor;
    size_t n;
    uint64_t t[MAXT * MAXA]; /* the base's tuples (may repeat) */
} agg_case;

static unsigned cmp_words;
static int cmp_tuple(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (unsigned i = 0; i < cmp_words; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static void random_case(agg_case *c)
{
    memset(c, 0, sizeof *c);
    c->arity = 1 + (unsigned)(rnd() % MAXA);
    c->k = (unsigned)(rnd() % (c->arity + 1));
    c->use_index = c->arity > 1 && rnd() % 2;
    for (unsigned i = 0; i < c->arity; i++)
        c->perm[i] = i;
    if (c->use_index) { /* keyed on another column: it comes first */
        unsigned first = 1 + (unsigned)(rnd() % (c->arity - 1)), w = 0;
        c->perm[w++] = first;
        for (unsigned i = 0; i < c->arity; i++)
            if (i != first)
                c->perm[w++] = i;
    }
    c->op = (ravel_agg)(rnd() % 4);
    c->computed = rnd() % 3 == 0;
    c->value_col = (unsigned)(rnd() % c->arity);
    c->result_xor = rnd() % 2 ? UINT64_C(1) << 63 : 0;
    c->n = rnd() % 4 == 0 ? 0 : (size_t)(rnd() % MAXT);
    for (size_t i = 0; i < c->n; i++)
        for (unsigned j = 0; j < c->arity; j++)
            /* A few columns of few values, the rest wide. */
            c->t[i * MAXA + j] = rnd() % 3 ? rnd() % 4 : rnd();
}

/* The expected head tuples (k + 1 words each) into out; returns the count. */
static size_t oracle(const agg_case *c, uint64_t *out)
{
    static uint64_t read[MAXT * MAXA];
    unsigned a = c->arity;
    for (size_t i = 0; i < c->n; i++)
        for (unsigned j = 0; j < a; j++)
            read[i * a + j] = c->t[i * MAXA + c->perm[j]];
    /* Relations are sets: duplicates go before anything is counted. */
    cmp_words = a;
    qsort(read, c->n, a * sizeof *read, cmp_tuple);
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (n == 0 || cmp_tuple(read + (n - 1) * a, read + i * a) != 0)
            memmove(read + n++ * a, read + i * a, a * sizeof *read);
    size_t groups = 0;
    if (n == 0 && c->k == 0 &&
        (c->op == RAVEL_AGG_COUNT || c->op == RAVEL_AGG_SUM)) {
        out[0] = c->result_xor;
        return 1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t acc = 0;
        while (j < n && memcmp(read + j * a, read + i * a,
                               c->k * sizeof *read) == 0) {
            uint64_t v = read[j * a + c->value_col];
            if (c->computed)
                v ^= UINT64_C(1) << 63;
            if (c->op == RAVEL_AGG_COUNT)
                acc++;
            else if (c->op == RAVEL_AGG_SUM)
                acc += v;
            else if (j == i)
                acc = v;
            else if (c->op == RAVEL_AGG_MIN)
                acc = v < acc ? v : acc;
            else
                acc = v > acc ? v : acc;
            j++;
        }
        for (unsigned g = 0; g < c->k; g++)
            out[groups * (c->k + 1) + g] = read[i * a + g];
        out[groups * (c->k + 1) + c->k] = acc ^ c->result_xor;
        groups++;
        i = j;
    }
    return groups;
}

static int failures;

/* Runs case c on a new engine; compares the head with the oracle. */
static void run_case(const agg_case *c, int variant, const char *backend,
                     int rank, int size)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = backend;
    o.quiet = 1;
    o.buckets = 1 + (uint64_t)(variant * 5) % 11;
    o.sub_buckets = (uint32_t)(1 + variant % 3);
    o.load_balance = variant % 2;
    o.balance_min_tuples = 1;
    o.balance_factor = 0.5;
    o.seed = (uint64_t)variant;
    o.discover_counts = (variant / 2) % 2;
    /* Some variants pack every relation no rule reads in full (the
     * aggregate reads its body's delta, which is then the whole). */
    o.pack_min_tuples = (variant / 8) % 2 ? 1 : 0;
    /* and some hold full as runs, which an aggregate merges first. */
    o.run_ratio = (variant / 16) % 2 ? 1 : 0;
    if (variant % 4 == 3)
        o.max_block_elements = 7;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel facts, base, read, head, edge, reach;
    unsigned a = c->arity;
    CHECK(ravel_relation_declare(e, "facts", a, 1, &facts));
    CHECK(ravel_relation_declare(e, "base", a, 1, &base));
    read = base;
    if (c->use_index)
        CHECK(ravel_relation_index(e, base, "base_by", 1, c->perm, &read));
    CHECK(ravel_relation_declare(e, "head", c->k + 1, 1, &head));
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &edge));
    CHECK(ravel_relation_declare(e, "reach", 1, 1, &reach));
    for (size_t i = 0; i < c->n; i++)
        if ((int)(i % (size_t)size) == rank)
            CHECK(ravel_insert(e, facts, c->t + i * MAXA, 1));
    /* A chain 0 -> 1 -> ... -> 11, walked from 0 beside the aggregate
     * (12 iterations). */
    for (uint64_t v = 0; v < 11 && rank == 0; v++) {
        uint64_t pair[2] = {v, v + 1};
        CHECK(ravel_insert(e, edge, pair, 1));
    }
    uint64_t zero = 0;
    if (rank == 0)
        CHECK(ravel_insert(e, reach, &zero, 1));
    ravel_term terms[MAXA];
    for (unsigned i = 0; i < a; i++)
        terms[i] = ravel_col(0, i);
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, base, (ravel_body){facts, RAVEL_DELTA}, terms,
                          0, NULL));
    CHECK(ravel_stratum_begin(e));
    ravel_expr flip = {RAVEL_XOR, ravel_col(0, c->value_col),
                       ravel_const(UINT64_C(1) << 63)};
    ravel_term value = c->computed ? ravel_expr_ref(0)
                                   : ravel_col(0, c->value_col);
    CHECK(ravel_rule_aggregate(e, head, read, c->op, value,
                               c->computed ? 1 : 0, &flip, c->result_xor));
    ravel_term hop[1] = {ravel_col(1, 1)};
    CHECK(ravel_rule_join(e, reach, (ravel_body){reach, RAVEL_DELTA},
                          (ravel_body){edge, RAVEL_FULL}, hop, 0, NULL));
    CHECK(ravel_run(e));

    const uint64_t *t;
    size_t n;
    CHECK(ravel_relation_local(e, head, &t, &n));
    unsigned w = c->k + 1;
    int total;
    uint64_t *all = gather_at_root(t, (int)(n * w), MPI_UINT64_T,
                                   sizeof *t, rank, size, &total);
    if (rank == 0) {
        static uint64_t want[(MAXT + 1) * (MAXA + 1)];
        size_t nw = oracle(c, want);
        cmp_words = w;
        qsort(all, (size_t)total / w, w * sizeof *all, cmp_tuple);
        if ((size_t)total != nw * w ||
            (nw && memcmp(all, want, nw * w * sizeof *all))) {
            fprintf(stderr, "FAIL: backend %s variant %d: op %d, arity %u, "
                    "k %u, index %d, computed %d, %zu facts: engine has %d "
                    "groups, oracle %zu\n", backend, variant, (int)c->op,
                    a, c->k, c->use_index, c->computed, c->n, total / (int)w,
                    nw);
            failures++;
        }
    }
    uint64_t reached;
    CHECK(ravel_relation_size(e, reach, &reached));
    if (reached != 12 && rank == 0) {
        fprintf(stderr, "FAIL: the walk beside the aggregate reached %llu "
                "nodes, not 12\n", (unsigned long long)reached);
        failures++;
    }
    free(all);
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ncases = argc > 1 ? atoi(argv[1]) : 40;
    const char *backends[] = {"vendor", "inline-bruck"};
    rng_state = 0x9E3779B97F4A7C15u;
    static agg_case c;
    for (int i = 0; i < ncases; i++) {
        random_case(&c);
        run_case(&c, i, backends[i % 2], rank, size);
    }
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d aggregate cases at P=%d: %s\n", ncases, size,
               all ? "FAILED" : "ok");
    MPI_Finalize();
    return all ? 1 : 0;
}
