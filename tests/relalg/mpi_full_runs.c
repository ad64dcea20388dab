/* A relation's full held as several sorted runs (relalg/storage.c), read by
 * every kind of rule, against reachability computed here by a plain
 * breadth-first search.
 *
 * The random programs' relations are too small for runs to form at the
 * default ratio; here a chain of NODES nodes with a few random shortcuts
 * makes a closure of about a hundred iterations, each adding fewer paths
 * than full holds, so runs form at every ratio tried (1 and 2 make one of
 * most deltas, 0 is the default).  The closure is non-linear (delta path x
 * full path, both ways), so joins read full's runs on both sides; the next
 * stratum reads the closure's runs through an anti-join (pairs with no
 * path), a copy from full and a count per source node (an aggregate, which
 * reads one sorted array).  One variant writes a snapshot after every
 * iteration and a second engine resumes from it: the snapshot must hold
 * every run.  Another packs every relation and every delta (the smallest
 * pack size), is stopped partway by a memory limit of half its peak, and
 * resumes from the last snapshot before the stop, whose deltas were
 * written from their packed form.
 * usage: mpiexec -n P mpi_relalg_full_runs */
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NODES 96
#define SHORTCUTS 12
/* Matrices are one wider than the nodes: a count per node may be NODES. */
#define COLS (NODES + 1)

static unsigned char edge[NODES][COLS], reach[NODES][COLS];
static int failures;

static void make_graph(void)
{
    uint64_t s = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i + 1 < NODES; i++)
        edge[i][i + 1] = 1;
    for (int k = 0; k < SHORTCUTS; k++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int a = (int)((s >> 33) % NODES), b = (int)((s >> 13) % NODES);
        edge[a][b] = 1;
    }
    /* The oracle: a search from every node, one or more edges long. */
    for (int x = 0; x < NODES; x++) {
        int queue[NODES], head = 0, tail = 0;
        for (int y = 0; y < NODES; y++)
            if (edge[x][y] && !reach[x][y])
                reach[x][y] = 1, queue[tail++] = y;
        while (head < tail) {
            int v = queue[head++];
            for (int y = 0; y < NODES; y++)
                if (edge[v][y] && !reach[x][y])
                    reach[x][y] = 1, queue[tail++] = y;
        }
    }
}

/* Gathers r's tuples (arity 2) at rank 0 as an x, y matrix and compares it
 * with want. */
static void compare(ravel_engine *e, ravel_rel r, const char *what,
                    unsigned char want[NODES][COLS], const char *variant,
                    int rank, int size)
{
    const uint64_t *t;
    size_t n;
    CHECK(ravel_relation_local(e, r, &t, &n));
    int total;
    uint64_t *all = gather_at_root(t, (int)(2 * n), MPI_UINT64_T,
                                   sizeof *t, rank, size, &total);
    if (rank == 0) {
        static unsigned char got[NODES][COLS];
        memset(got, 0, sizeof got);
        int bad = 0;
        for (int k = 0; k + 1 < total; k += 2) {
            if (all[k] >= NODES || all[k + 1] >= COLS ||
                got[all[k]][all[k + 1]]++)
                bad = 1; /* out of range, or held twice */
        }
        if (!bad && memcmp(got, want, sizeof got) != 0)
            bad = 1;
        if (bad) {
            fprintf(stderr, "FAIL: %s, %s: %d tuples differ from the "
                    "search's\n", variant, what, total / 2);
            failures++;
        }
    }
    free(all);
}

/* With limit (bytes a rank's tuples may hold) the run must stop with an
 * error, and nothing is compared. */
static void run(const char *variant, uint32_t ratio, const char *ck,
                int resume, int packed, uint64_t limit, int rank, int size)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = "auto";
    o.quiet = 1;
    o.run_ratio = ratio;
    /* 0: a relation that may be packed keeps no runs; 1: everything is
     * packed, deltas too */
    o.pack_min_tuples = packed ? 1 : 0;
    o.checkpoint_dir = ck;
    o.checkpoint_every = 0;
    o.resume_dir = resume ? ck : NULL;
    o.max_memory = limit;
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel E, P, PY, P2, PAIR, UN, ALL, CNT;
    unsigned by_y = 1;
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &E));
    CHECK(ravel_relation_declare(e, "path", 2, 1, &P));
    CHECK(ravel_relation_index(e, P, "path_by_y", 1, &by_y, &PY));
    CHECK(ravel_relation_declare(e, "path2", 2, 2, &P2));
    CHECK(ravel_relation_declare(e, "pair", 2, 2, &PAIR));
    CHECK(ravel_relation_declare(e, "unreached", 2, 2, &UN));
    CHECK(ravel_relation_declare(e, "all", 2, 2, &ALL));
    CHECK(ravel_relation_declare(e, "count", 2, 1, &CNT));
    if (rank == 0) /* facts from one rank: the engine routes them */
        for (uint64_t x = 0; x < NODES; x++)
            for (uint64_t y = 0; y < NODES; y++) {
                uint64_t t[2] = {x, y};
                if (edge[x][y])
                    CHECK(ravel_insert(e, E, t, 1));
                CHECK(ravel_insert(e, PAIR, t, 1));
            }
    ravel_term xy[2] = {ravel_col(0, 0), ravel_col(0, 1)};
    /* path(x, z) :- path(x, y), path(y, z): path_by_y holds (y, x). */
    ravel_term xz[2] = {ravel_col(0, 1), ravel_col(1, 1)};
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_copy(e, P, (ravel_body){E, RAVEL_DELTA}, xy, 0, NULL));
    CHECK(ravel_rule_join(e, P, (ravel_body){PY, RAVEL_DELTA},
                          (ravel_body){P, RAVEL_FULL}, xz, 0, NULL));
    CHECK(ravel_rule_join(e, P, (ravel_body){PY, RAVEL_FULL},
                          (ravel_body){P, RAVEL_DELTA}, xz, 0, NULL));
    CHECK(ravel_rule_copy(e, P2, (ravel_body){P, RAVEL_DELTA}, xy, 0, NULL));
    CHECK(ravel_stratum_begin(e));
    CHECK(ravel_rule_antijoin(e, UN, (ravel_body){PAIR, RAVEL_DELTA}, P2,
                              xy, 0, NULL));
    CHECK(ravel_rule_copy(e, ALL, (ravel_body){P2, RAVEL_FULL}, xy, 0,
                          NULL));
    CHECK(ravel_rule_aggregate(e, CNT, P, RAVEL_AGG_COUNT, ravel_const(0), 0,
                               NULL, 0));
    if (limit) {
        if (ravel_run(e) == MPI_SUCCESS) {
            fprintf(stderr, "FAIL: %s: no stop at %llu bytes\n", variant,
                    (unsigned long long)limit);
            failures++;
        }
        ravel_engine_free(e);
        return;
    }
    CHECK(ravel_run(e));

    static unsigned char unreached[NODES][COLS], counts[NODES][COLS];
    memset(counts, 0, sizeof counts);
    for (int x = 0; x < NODES; x++) {
        int c = 0;
        for (int y = 0; y < NODES; y++) {
            unreached[x][y] = !reach[x][y]; /* pairs are y < NODES */
            c += reach[x][y];
        }
        if (c > 0)
            counts[x][c] = 1; /* count(x, c) */
    }
    compare(e, P, "path", reach, variant, rank, size);
    compare(e, P2, "path2", reach, variant, rank, size);
    compare(e, UN, "unreached (anti-join)", unreached, variant, rank, size);
    compare(e, ALL, "all (copy of full)", reach, variant, rank, size);
    compare(e, CNT, "count (aggregate)", counts, variant, rank, size);
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    make_graph();
    /* First, so that the process's peak is this run's. */
    run("packed", 0, NULL, 0, 1, 0, rank, size);
    uint64_t held, peak, least;
    ravel_tuple_memory(&held, &peak);
    MPI_Allreduce(&peak, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    run("ratio 1", 1, NULL, 0, 0, 0, rank, size);
    run("ratio 2", 2, NULL, 0, 0, 0, rank, size);
    run("default ratio", 0, NULL, 0, 0, 0, rank, size);
    /* Snapshots after every iteration; the second run resumes from the
     * last one (the end of the run: every relation whole). */
    char dir[] = "/tmp/ravel-full-runs-XXXXXX";
    make_scratch(dir, rank);
    run("ratio 1, snapshots", 1, dir, 0, 0, 0, rank, size);
    run("ratio 1, resumed", 1, dir, 1, 0, 0, rank, size);
    remove_scratch(dir, rank);
    /* Everything packed, stopped partway and resumed: the snapshot holds
     * deltas written from their packed form. */
    char packed_dir[] = "/tmp/ravel-full-runs-XXXXXX";
    make_scratch(packed_dir, rank);
    run("packed, stopped by the limit", 0, packed_dir, 0, 1, least / 2, rank,
        size);
    run("packed, resumed", 0, packed_dir, 1, 1, 0, rank, size);
    remove_scratch(packed_dir, rank);
    int any = 0;
    MPI_Allreduce(&failures, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: full as runs at ratios 1, 2 and the default, and "
               "through a snapshot; packed, stopped and resumed, "
               "P=%d\n", any ? "FAILED" : "ok", size);
    MPI_Finalize();
    return any ? 1 : 0;
}
