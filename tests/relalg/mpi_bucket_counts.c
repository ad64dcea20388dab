/* Each relation's per-bucket counts (relalg/storage.c,
 * storage_count_buckets), which the load balancer sums over the ranks to
 * decide its splits, against a recount of the rank's tuples made here.
 *
 * TC of a sparse random DAG on vertices 1 .. VERTICES - 1 (edges from
 * the smaller id to the larger), each of which has an edge into vertex 0:
 * path(y, x) is keyed on y, and y = 0's row holds every vertex where the
 * others hold a few.  Balancing is on, with 16 buckets
 * and low thresholds, so that buckets split and tuples move between ranks
 * (a move takes a tuple off one rank's counts and adds it to another's);
 * full and deltas pack from a few hundred tuples, so that deltas are
 * counted through a packed cursor as well as flat.  After the run, on
 * every rank, each declared relation's counts must equal its local tuples
 * counted per bucket here (the bucket is the placement's own function:
 * what is tested is the counting).  The balancer runs on 2 ranks or more,
 * and counts are kept only then; the test fails unless some bucket of
 * path was split.
 * usage: mpiexec -n P mpi_relalg_bucket_counts (P >= 2) */
#include "relalg_internal.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERTICES 600
#define RANDOM_EDGES 300
#define INTO_HUB (VERTICES - 1) /* edges i -> 0 for i = 1 .. INTO_HUB */

static int failures;

/* Whether r's counts on this rank equal its local tuples per bucket;
 * says what differs otherwise. */
static int counts_match(ravel_engine *e, ravel_rel r, const char *name,
                        int rank)
{
    const uint64_t *t;
    size_t n;
    CHECK(ravel_relation_local(e, r, &t, &n));
    const relation *rel = &e->rels[r];
    uint64_t buckets = ravel_engine_buckets(e);
    uint64_t *want = calloc(buckets, sizeof *want);
    if (!want) {
        fprintf(stderr, "out of memory for %llu counts\n",
                (unsigned long long)buckets);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < n; i++)
        want[placement_bucket(e, rel, t + i * rel->arity)]++;
    int ok = 1;
    for (uint64_t b = 0; b < buckets && ok; b++)
        if (rel->bucket_count[b] != want[b]) {
            fprintf(stderr, "FAIL: rank %d: %s's bucket %llu counts %llu "
                    "tuples, holds %llu\n", rank, name, (unsigned long long)b,
                    (unsigned long long)rel->bucket_count[b],
                    (unsigned long long)want[b]);
            ok = 0;
        }
    free(want);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("skipped: counts are kept on 2 ranks or more\n");
        MPI_Finalize();
        return 77;
    }
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = "auto";
    o.quiet = 1;
    o.load_balance = 1;
    o.buckets = 16;
    o.balance_min_tuples = 100;
    o.balance_factor = 2.0;
    o.pack_min_tuples = 256; /* deltas of 64 tuples and more are packed */
    ravel_engine *e;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    ravel_rel edge, path;
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &edge));
    CHECK(ravel_relation_declare(e, "path", 2, 1, &path));
    if (rank == 0) {
        static uint64_t edges[RANDOM_EDGES + INTO_HUB][2];
        random_edges(edges, RANDOM_EDGES, VERTICES - 1,
                     0x9E3779B97F4A7C15ull);
        for (int i = 0; i < RANDOM_EDGES; i++) { /* forward, among 1 .. */
            uint64_t a = edges[i][0] + 1, b = edges[i][1] + 1;
            uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
            if (lo == hi && hi + 1 < VERTICES)
                hi++;
            else if (lo == hi)
                lo--;
            edges[i][0] = lo;
            edges[i][1] = hi;
        }
        for (int i = 1; i <= INTO_HUB; i++) {
            edges[RANDOM_EDGES + i - 1][0] = (uint64_t)i;
            edges[RANDOM_EDGES + i - 1][1] = 0;
        }
        CHECK(ravel_insert(e, edge, edges[0], RANDOM_EDGES + INTO_HUB));
    }
    declare_closure_rules(e, edge, path);
    CHECK(ravel_run(e));
    int split = 0;
    for (uint64_t b = 0; b < ravel_engine_buckets(e); b++)
        split |= ravel_relation_sub_buckets(e, path, b) > 1;
    int ok = counts_match(e, edge, "edge", rank) &
             counts_match(e, path, "path", rank);
    int mine[2] = {!ok, split}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    failures += all[0];
    if (rank == 0 && !all[1]) {
        fprintf(stderr, "FAIL: no bucket of path was split (the test "
                "proves nothing)\n");
        failures++;
    }
    ravel_engine_free(e);
    if (rank == 0)
        printf("%s: bucket counts against a recount, after splits and "
               "packed deltas, P=%d\n", failures ? "FAILED" : "ok", size);
    MPI_Finalize();
    return failures ? 1 : 0;
}
