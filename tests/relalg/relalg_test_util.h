/* relalg_test_util.h: what the engine's MPI tests share. */
#ifndef RAVEL_RELALG_TEST_UTIL_H
#define RAVEL_RELALG_TEST_UTIL_H

#include "ravel/error.h"
#include "ravel/relalg.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A call that must succeed for the test to go on: on failure, say where and
 * why, and stop every rank. */
#define CHECK(call)                                                            \
    do {                                                                       \
        int rc_ = (call);                                                      \
        if (rc_ != MPI_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,       \
                    #call, ravel_error_message());                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                      \
        }                                                                      \
    } while (0)

/* Gathers every rank's count elements of `type` (elem bytes each) at rank
 * 0 of MPI_COMM_WORLD: there, a malloc'd array of all of them in rank
 * order, *total its length; elsewhere NULL.  Collective. */
static inline void *gather_at_root(const void *data, int count,
                                   MPI_Datatype type, size_t elem, int rank,
                                   int size, int *total)
{
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    *total = 0;
    if (rank == 0) {
        counts = malloc((size_t)size * sizeof *counts);
        displs = malloc((size_t)size * sizeof *displs);
    }
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            displs[r] = *total;
            *total += counts[r];
        }
        all = malloc(((size_t)*total + 1) * elem);
    }
    MPI_Gatherv(data, count, type, all, counts, displs, type, 0,
                MPI_COMM_WORLD);
    free(counts);
    free(displs);
    return all;
}

/* ne random edges among vertices 0 .. nv-1 (a xorshift from seed, the
 * same on every rank). */
static inline void random_edges(uint64_t (*edges)[2], int ne, int nv,
                                uint64_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < ne; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        edges[k][0] = (x >> 3) % (uint64_t)nv;
        edges[k][1] = (x >> 29) % (uint64_t)nv;
    }
}

/* The size of the transitive closure of those edges, by a breadth-first
 * search from every vertex: the engine's oracle, written apart from it. */
static inline uint64_t bfs_closure_size(const uint64_t (*edges)[2], int ne,
                                        int nv)
{
    unsigned char *seen = malloc((size_t)nv);
    int *queue = malloc((size_t)nv * sizeof *queue);
    uint64_t total = 0;
    for (int s = 0; seen && queue && s < nv; s++) {
        memset(seen, 0, (size_t)nv);
        int head = 0, tail = 0;
        queue[tail++] = s;
        while (head < tail) {
            int u = queue[head++];
            for (int k = 0; k < ne; k++)
                if ((int)edges[k][0] == u && !seen[edges[k][1]]) {
                    seen[edges[k][1]] = 1;
                    queue[tail++] = (int)edges[k][1];
                    total++;
                }
        }
    }
    free(seen);
    free(queue);
    return total;
}

/* The closure's two rules, path kept as (to, from) and keyed on to:
 * path(y, x) :- edge(x, y).  path(z, x) :- path(y, x), edge(y, z). */
static inline void declare_closure_rules(ravel_engine *e, ravel_rel edge,
                                         ravel_rel path)
{
    ravel_term base[2] = {ravel_col(0, 1), ravel_col(0, 0)};
    ravel_term step[2] = {ravel_col(1, 1), ravel_col(0, 1)};
    ravel_body ed = {edge, RAVEL_DELTA}, ef = {edge, RAVEL_FULL};
    ravel_body pd = {path, RAVEL_DELTA};
    CHECK(ravel_rule_copy(e, path, ed, base, 0, NULL));
    CHECK(ravel_rule_join(e, path, pd, ef, step, 0, NULL));
}

/* An engine of options o set up for the closure of ne edges: relations
 * edge and path declared, each rank inserting every P-th edge from its
 * rank on, the rules declared and the facts flushed; *path for the
 * result.  Collective. */
static inline ravel_engine *closure_engine(const ravel_engine_options *o,
                                           const uint64_t (*edges)[2],
                                           int ne, ravel_rel *path)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_engine *e;
    ravel_rel edge;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, o, &e));
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &edge));
    CHECK(ravel_relation_declare(e, "path", 2, 1, path));
    for (int k = rank; k < ne; k += P)
        CHECK(ravel_insert(e, edge, edges[k], 1));
    declare_closure_rules(e, edge, *path);
    CHECK(ravel_flush(e));
    return e;
}

/* A fresh folder under /tmp named from the template dir (its XXXXXX
 * replaced), made by rank 0 and told to every rank.  Collective. */
static inline void make_scratch(char *dir, int rank)
{
    if (rank == 0 && !mkdtemp(dir)) {
        perror("mkdtemp");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Bcast(dir, (int)strlen(dir) + 1, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* Removes it, once every rank is done with it.  Collective. */
static inline void remove_scratch(const char *dir, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
}

#endif
