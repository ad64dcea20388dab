/* relalg_test_util.h: what the engine's MPI tests share. */
#ifndef RAVEL_RELALG_TEST_UTIL_H
#define RAVEL_RELALG_TEST_UTIL_H

#include "ravel/error.h"

#include <mpi.h>
#include <stdio.h>

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

#endif
