/* Joins evaluated grouped by the head's first column (relalg/
 * join_grouped.c) against results computed here without the engine.
 *
 * First, transitive closures in TC's form, path(z, x) :- path(y, x),
 * edge(y, z), against reachability by a plain breadth-first search: with
 * small ids (a v's union of groups goes through bits) and with ids a
 * thousand apart (merged by sorting), with deltas flat and packed, with
 * the balancer splitting buckets (the join's index must follow the moved
 * tuples: a stale one loses paths), and with hubs whose groups pass the
 * size at which a v's tuples are flushed early.  Then one stratum of
 * non-recursive joins of static facts, each head shape the grouped join
 * handles (its first column the static side's last; the other side's
 * columns after the key in order or not; constants; the key in the head;
 * two key columns; the static side on the left), against nested loops.
 * Every case must take the grouped path somewhere (the engine counts it),
 * or the test would prove nothing.
 * usage: mpiexec -n P mpi_relalg_join_grouped */
#include "relalg_internal.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 260
#define HUBS 3 /* nodes with an edge from every other: large groups */

static int rank, size, failures;
static unsigned char edge[NODES][NODES], reach[NODES][NODES];

static void fail(const char *what)
{
    failures++;
    fprintf(stderr, "rank %d: FAIL: %s\n", rank, what);
}

static uint64_t id_of(int i, uint64_t stride)
{
    return (uint64_t)i * stride + 7;
}

static int node_of(uint64_t id, uint64_t stride)
{
    if (id < 7 || (id - 7) % stride || (id - 7) / stride >= NODES)
        return -1;
    return (int)((id - 7) / stride);
}

/* A random graph (the same on every rank) with a few hubs, and its
 * reachability by breadth-first search. */
static void make_graph(uint64_t seed)
{
    memset(edge, 0, sizeof edge);
    uint64_t x = seed;
    for (int k = 0; k < 3 * NODES; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        edge[(x >> 3) % NODES][(x >> 29) % NODES] = 1;
    }
    for (int h = 0; h < HUBS; h++)
        for (int i = 0; i < NODES; i++)
            edge[i][h * 7] = 1;
    int queue[NODES];
    for (int s = 0; s < NODES; s++) {
        unsigned char *seen = reach[s];
        memset(seen, 0, NODES);
        int head = 0, tail = 0;
        for (int v = 0; v < NODES; v++)
            if (edge[s][v] && !seen[v])
                seen[v] = 1, queue[tail++] = v;
        while (head < tail) {
            int u = queue[head++];
            for (int v = 0; v < NODES; v++)
                if (edge[u][v] && !seen[v])
                    seen[v] = 1, queue[tail++] = v;
        }
    }
}

/* The tuples of r on every rank, at rank 0 (elsewhere NULL); *n their
 * count. */
static uint64_t *gather_relation(ravel_engine *e, ravel_rel r, int *n)
{
    const uint64_t *t;
    size_t local;
    CHECK(ravel_relation_local(e, r, &t, &local));
    unsigned a = ravel_relation_arity(e, r);
    int words;
    uint64_t *all = gather_at_root(t, (int)(local * a), MPI_UINT64_T,
                                   sizeof *t, rank, size, &words);
    *n = words / (int)a;
    return all;
}

/* The grouped joins this engine made, summed over the ranks. */
static uint64_t grouped_joins(const ravel_engine *e)
{
    uint64_t mine = e->grouped_joins, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

typedef struct {
    const char *name;
    uint64_t stride;      /* ids stride apart */
    uint64_t pack_min;    /* pack_min_tuples (0: the default) */
    int balance;          /* split buckets eagerly */
} tc_case;

static void run_tc(const tc_case *c)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.quiet = 1;
    if (c->pack_min)
        o.pack_min_tuples = c->pack_min;
    if (c->balance) {
        o.balance_factor = 1.0;
        o.balance_min_tuples = 64;
        o.buckets = 8;
    }
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel edge_r, path;
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &edge_r));
    CHECK(ravel_relation_declare(e, "path", 2, 1, &path));
    if (rank == 0) {
        for (int i = 0; i < NODES; i++)
            for (int j = 0; j < NODES; j++)
                if (edge[i][j]) {
                    uint64_t t[2] = {id_of(i, c->stride), id_of(j, c->stride)};
                    CHECK(ravel_insert(e, edge_r, t, 1));
                }
    }
    CHECK(ravel_stratum_begin(e));
    /* path is held (to, from), as apps/tc holds it. */
    const ravel_term base[2] = {ravel_col(0, 1), ravel_col(0, 0)};
    CHECK(ravel_rule_copy(e, path, (ravel_body){edge_r, RAVEL_DELTA}, base,
                          0, NULL));
    const ravel_term step[2] = {ravel_col(1, 1), ravel_col(0, 1)};
    CHECK(ravel_rule_join(e, path, (ravel_body){path, RAVEL_DELTA},
                          (ravel_body){edge_r, RAVEL_FULL}, step, 0, NULL));
    CHECK(ravel_run(e));
    uint64_t grouped = grouped_joins(e);
    int n;
    uint64_t *all = gather_relation(e, path, &n);
    if (rank == 0) {
        static unsigned char got[NODES][NODES];
        memset(got, 0, sizeof got);
        int bad = 0, want = 0;
        for (int i = 0; i < n; i++) {
            int to = node_of(all[2 * i], c->stride),
                from = node_of(all[2 * i + 1], c->stride);
            if (to < 0 || from < 0 || !reach[from][to] || got[from][to])
                bad++;
            else
                got[from][to] = 1;
        }
        for (int s = 0; s < NODES; s++)
            for (int v = 0; v < NODES; v++)
                want += reach[s][v];
        char what[160];
        if (bad || n != want) {
            snprintf(what, sizeof what, "tc %s: %d paths (%d wrong or "
                     "repeated), the search finds %d", c->name, n, bad, want);
            fail(what);
        }
        if (grouped == 0) {
            snprintf(what, sizeof what, "tc %s: no join was grouped",
                     c->name);
            fail(what);
        }
        printf("tc %-16s %6d paths, %llu grouped joins\n", c->name, n,
               (unsigned long long)grouped);
    }
    free(all);
    ravel_engine_free(e);
}

/* ---- non-recursive shapes ------------------------------------------------ */

#define A_N 20000  /* a(y, x): tuples */
#define S_N 1500   /* s(y, v) */
#define DOM 90     /* y, v values */
#define XDOM 3000  /* x values */

static uint64_t a_t[A_N][2], s_t[S_N][2], a3_t[A_N][3], a2_t[A_N][3],
    s2_t[S_N][3];

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void make_facts(void)
{
    for (int i = 0; i < A_N; i++) {
        a_t[i][0] = rnd() % DOM;
        a_t[i][1] = rnd() % XDOM;
        a3_t[i][0] = rnd() % DOM;
        a3_t[i][1] = rnd() % 40;
        a3_t[i][2] = rnd() % XDOM;
        a2_t[i][0] = rnd() % 9;
        a2_t[i][1] = rnd() % 9;
        a2_t[i][2] = rnd() % 200; /* dense: through bits */
    }
    for (int i = 0; i < S_N; i++) {
        s_t[i][0] = rnd() % DOM;
        s_t[i][1] = i < 300 ? 5 : rnd() % DOM; /* v = 5: a large group */
        s2_t[i][0] = rnd() % 9;
        s2_t[i][1] = rnd() % 9;
        s2_t[i][2] = rnd() % DOM;
    }
}

static int cmp3(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    for (int c = 0; c < 3; c++)
        if (a[c] != b[c])
            return a[c] < b[c] ? -1 : 1;
    return 0;
}

/* Sorts n tuples of arity words (padded to 3) and drops repeats. */
static int sort_unique(uint64_t *t, int n)
{
    qsort(t, (size_t)n, 3 * sizeof *t, cmp3);
    int w = 0;
    for (int i = 0; i < n; i++)
        if (w == 0 || cmp3(t + 3 * (w - 1), t + 3 * i))
            memcpy(t + 3 * w++, t + 3 * i, 3 * sizeof *t);
    return w;
}

/* A head shape: which join it is and how its head is made. */
typedef enum { SUFFIX3, CONSTANT, KEY_IN_HEAD, TWO_KEYS, LEAD_LEFT } shape;

/* The oracle: the rule's head tuples by nested loops, padded to 3 words,
 * into out (sorted, without repeats); without out, only counted (with
 * repeats). */
static int expect(shape sh, uint64_t *out)
{
    int n = 0;
    uint64_t spare[3];
    for (int i = 0; i < A_N; i++)
        for (int j = 0; j < S_N; j++) {
            uint64_t *o = out ? out + 3 * n : spare;
            switch (sh) {
            case SUFFIX3:
                if (a3_t[i][0] != s_t[j][0])
                    continue;
                o[0] = s_t[j][1], o[1] = a3_t[i][1], o[2] = a3_t[i][2];
                break;
            case CONSTANT:
                if (a_t[i][0] != s_t[j][0])
                    continue;
                o[0] = s_t[j][1], o[1] = 77, o[2] = a_t[i][1];
                break;
            case KEY_IN_HEAD:
                if (a_t[i][0] != s_t[j][0])
                    continue;
                o[0] = s_t[j][1], o[1] = a_t[i][1], o[2] = s_t[j][0];
                break;
            case TWO_KEYS:
                if (a2_t[i][0] != s2_t[j][0] || a2_t[i][1] != s2_t[j][1])
                    continue;
                o[0] = s2_t[j][2], o[1] = a2_t[i][2], o[2] = 0;
                break;
            case LEAD_LEFT:
                if (a_t[i][0] != s_t[j][0])
                    continue;
                o[0] = s_t[j][1], o[1] = a_t[i][1], o[2] = 0;
                break;
            }
            n++;
        }
    return out ? sort_unique(out, n) : n;
}

static void run_shapes(void)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.quiet = 1;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel a, s, a3, a2, s2, r[5];
    CHECK(ravel_relation_declare(e, "a", 2, 1, &a));
    CHECK(ravel_relation_declare(e, "s", 2, 1, &s));
    CHECK(ravel_relation_declare(e, "a3", 3, 1, &a3));
    CHECK(ravel_relation_declare(e, "a2", 3, 2, &a2));
    CHECK(ravel_relation_declare(e, "s2", 3, 2, &s2));
    const unsigned ar[5] = {3, 3, 3, 2, 2};
    const char *names[5] = {"suffix3", "constant", "key_in_head", "two_keys",
                            "lead_left"};
    for (int i = 0; i < 5; i++)
        CHECK(ravel_relation_declare(e, names[i], ar[i], 1, &r[i]));
    if (rank == 0) {
        CHECK(ravel_insert(e, a, &a_t[0][0], A_N));
        CHECK(ravel_insert(e, s, &s_t[0][0], S_N));
        CHECK(ravel_insert(e, a3, &a3_t[0][0], A_N));
        CHECK(ravel_insert(e, a2, &a2_t[0][0], A_N));
        CHECK(ravel_insert(e, s2, &s2_t[0][0], S_N));
    }
    CHECK(ravel_stratum_begin(e));
    const ravel_body ad = {a, RAVEL_DELTA}, sf = {s, RAVEL_FULL};
    const ravel_term suffix3[3] = {ravel_col(1, 1), ravel_col(0, 1),
                                   ravel_col(0, 2)};
    CHECK(ravel_rule_join(e, r[0], (ravel_body){a3, RAVEL_DELTA}, sf,
                          suffix3, 0, NULL));
    const ravel_term constant[3] = {ravel_col(1, 1), ravel_const(77),
                                    ravel_col(0, 1)};
    CHECK(ravel_rule_join(e, r[1], ad, sf, constant, 0, NULL));
    const ravel_term key[3] = {ravel_col(1, 1), ravel_col(0, 1),
                               ravel_col(1, 0)};
    CHECK(ravel_rule_join(e, r[2], ad, sf, key, 0, NULL));
    const ravel_term two[2] = {ravel_col(1, 2), ravel_col(0, 2)};
    CHECK(ravel_rule_join(e, r[3], (ravel_body){a2, RAVEL_DELTA},
                          (ravel_body){s2, RAVEL_FULL}, two, 0, NULL));
    const ravel_term left[2] = {ravel_col(0, 1), ravel_col(1, 1)};
    CHECK(ravel_rule_join(e, r[4], sf, ad, left, 0, NULL));
    CHECK(ravel_run(e));
    uint64_t grouped = grouped_joins(e);
    for (int i = 0; i < 5; i++) {
        int n;
        uint64_t *all = gather_relation(e, r[i], &n);
        if (rank != 0)
            continue;
        uint64_t *want = malloc(((size_t)expect((shape)i, NULL) + 1) * 3 *
                                sizeof *want);
        uint64_t *got = calloc((size_t)n * 3 + 3, sizeof *got);
        for (int j = 0; j < n; j++)
            memcpy(got + 3 * j, all + ar[i] * j, ar[i] * sizeof *got);
        int m = expect((shape)i, want);
        int same = sort_unique(got, n) == n && n == m &&
                   memcmp(got, want, (size_t)n * 3 * sizeof *got) == 0;
        if (!same) {
            char what[128];
            snprintf(what, sizeof what, "shape %s: %d tuples, the nested "
                     "loops make %d (or they differ)", names[i], n, m);
            fail(what);
        }
        printf("shape %-12s %7d tuples\n", names[i], n);
        free(want);
        free(got);
        free(all);
    }
    /* Each of the five joins is grouped on every rank at its one
     * iteration (every rank holds some of each side). */
    if (rank == 0 && grouped < 5 * (uint64_t)size) {
        char what[96];
        snprintf(what, sizeof what, "shapes: %llu grouped joins, not %d",
                 (unsigned long long)grouped, 5 * size);
        fail(what);
    }
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_graph(2463534242ull);
    const tc_case cases[] = {
        {"small ids", 1, 0, 0},
        {"far ids", 1000, 0, 0},
        {"packed", 1, 64, 0},
        {"packed far", 1000, 64, 0},
        {"balanced", 1, 0, 1},
        {"balanced packed", 1000, 64, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_tc(&cases[i]);
    make_facts();
    run_shapes();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s\n", all ? "FAILED" : "join_grouped: all passed");
    MPI_Finalize();
    return all ? 1 : 0;
}
