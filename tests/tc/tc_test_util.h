/* tc_test_util.h: helpers the apps/tc MPI tests share: a failure counter and
 * the end of a test, writing a test file, and gathering a distributed edge
 * list on rank 0. */
#ifndef RAVEL_TC_TEST_UTIL_H
#define RAVEL_TC_TEST_UTIL_H

#include "graph_input.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tc_failures;

#define TC_EXPECT(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond)) {                                                        \
            tc_failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
        }                                                                     \
    } while (0)

/* Ends a test program: sums the failures of every rank, reports them once
 * ("<what>: N failure(s)"), finalizes MPI and gives the exit status. */
static inline int tc_test_finish(const char *what)
{
    int rank, failures = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&tc_failures, &failures, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s)\n", what, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}

static inline void tc_write_file(const char *path, const char *content, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(content, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

static inline int tc_compare_pairs(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* All ranks' edges, sorted, on rank 0 (*n pairs; NULL elsewhere). */
static inline uint64_t *tc_gather_sorted(const ravel_tc_graph *g, MPI_Comm comm,
                                  size_t *n)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int mine = (int)(2 * g->nedges);
    int *counts = calloc((size_t)P, sizeof(int));
    int *displs = calloc((size_t)P, sizeof(int));
    if (!counts || !displs)
        exit(2);
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    int total = 0;
    for (int r = 0; r < P; r++) {
        displs[r] = total;
        total += counts[r];
    }
    uint64_t *all = rank == 0 ? malloc(sizeof(uint64_t) * (size_t)(total + 2))
                              : NULL;
    if (rank == 0 && !all)
        exit(2);
    MPI_Gatherv(g->edges, mine, MPI_UINT64_T, all, counts, displs,
                MPI_UINT64_T, 0, comm);
    free(counts);
    free(displs);
    *n = (size_t)total / 2;
    if (rank == 0)
        qsort(all, *n, 2 * sizeof(uint64_t), tc_compare_pairs);
    return all;
}

#endif
