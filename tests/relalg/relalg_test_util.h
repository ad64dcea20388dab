/* relalg_test_util.h: what the engine's MPI tests share. */
#ifndef RAVEL_RELALG_TEST_UTIL_H
#define RAVEL_RELALG_TEST_UTIL_H

#include "ravel/error.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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

#endif
