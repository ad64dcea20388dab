/* The ranks pack a relation's full in the same iterations (relalg/
 * storage.c, "when full packs"), and the closure they pack is right.
 *
 * A rank's packing rewrites its whole packed part, and a rank that packs
 * while the others do not is waited for at the iteration's allreduce:
 * deciding alone, fe_body's two ranks packed in turns, every other
 * iteration each.  Here TC of a chain with shortcuts, packed from a few
 * hundred tuples a rank so that it repacks many times, is run to its
 * fixed point; after each iteration every rank compares, by an allreduce
 * of the minimum and the maximum, how many times it has packed `path`
 * because the ranks agreed: the counts of the ranks whose full is not
 * bits must be equal at every iteration, and there must be some (a rank
 * that packs by its own decision alone, as before, makes none).  The
 * closure is checked against a breadth-first search.  At 1 rank there is
 * nothing to agree: only the closure is checked.
 * usage: mpiexec -n P mpi_relalg_pack_together */
#include "relalg_internal.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 600
#define EDGES 606

typedef struct {
    const ravel_engine *e;
    ravel_rel path;
    int iterations, unequal; /* iterations whose counts differed */
} watch;

static void compare_packs(const ravel_iteration_record *rec, void *arg)
{
    (void)rec;
    watch *w = arg;
    /* A rank whose full became bits (its own choice: storage.c, "full
     * as bits") packs no more, and is left out. */
    const relation *r = &w->e->rels[w->path];
    uint64_t mine = r->packs_agreed, least, most;
    uint64_t low = r->bits.slot ? UINT64_MAX : mine;
    uint64_t high = r->bits.slot ? 0 : mine;
    MPI_Allreduce(&low, &least, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&high, &most, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    w->iterations++;
    w->unequal += least != UINT64_MAX && least != most;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* A chain, ids a thousand apart (a box of bits far too sparse for
     * full: storage.c, "full as bits"), and a few forward shortcuts: some
     * 400 iterations, each adding less than the one before, so that the
     * flat part reaches its share of the packed one every few iterations,
     * at a different one on each rank were they to decide alone. */
    static uint64_t edges[EDGES][2];
    for (int i = 0; i + 1 < NODES; i++) {
        edges[i][0] = (uint64_t)i;
        edges[i][1] = (uint64_t)i + 1;
    }
    random_edges(edges + NODES - 1, EDGES - (NODES - 1), NODES,
                 0x9E3779B97F4A7C15ull);
    for (int k = NODES - 1; k < EDGES; k++)
        if (edges[k][0] > edges[k][1]) { /* forward: the chain stays one */
            uint64_t t = edges[k][0];
            edges[k][0] = edges[k][1];
            edges[k][1] = t;
        }
    uint64_t want = bfs_closure_size((const uint64_t(*)[2])edges, EDGES,
                                     NODES);
    for (int k = 0; k < EDGES; k++)
        for (int c = 0; c < 2; c++)
            edges[k][c] = edges[k][c] * 1000 + 7;
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.quiet = 1;
    o.pack_min_tuples = 256;
    ravel_rel path;
    ravel_engine *e = closure_engine(&o, (const uint64_t(*)[2])edges, EDGES,
                                     &path);
    watch w = {e, path, 0, 0};
    ravel_engine_set_iteration_hook(e, compare_packs, &w);
    CHECK(ravel_run(e));
    uint64_t got = 0;
    CHECK(ravel_relation_size(e, path, &got));
    const relation *r = &e->rels[path];
    uint64_t mine[2] = {r->packs_agreed, r->packs_alone}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    int failures = 0;
    if (rank == 0) {
        printf("%d ranks: %llu paths (the search: %llu), %d iterations, "
               "packs agreed %llu, alone %llu (all ranks)\n", size,
               (unsigned long long)got, (unsigned long long)want,
               w.iterations, (unsigned long long)all[0],
               (unsigned long long)all[1]);
        if (got != want) {
            fprintf(stderr, "FAIL: %llu paths, the search finds %llu\n",
                    (unsigned long long)got, (unsigned long long)want);
            failures++;
        }
        if (size > 1 && w.unequal) {
            fprintf(stderr, "FAIL: the ranks' agreed packs differed after "
                    "%d of %d iterations\n", w.unequal, w.iterations);
            failures++;
        }
        if (size > 1 && all[0] < 3 * (uint64_t)size) {
            fprintf(stderr, "FAIL: %llu agreed packs: the ranks did not "
                    "pack together\n", (unsigned long long)all[0]);
            failures++;
        }
    }
    ravel_engine_free(e);
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
