// mpi_gtest_main.h: main() of a GoogleTest program run under mpiexec.
//
// Every rank runs every test in the same order; only rank 0 prints the
// report, but a rank whose tests failed says so, and every rank exits
// non-zero when any failed.  Set rank and size before the tests run.
#ifndef RAVEL_TEST_MPI_GTEST_MAIN_H
#define RAVEL_TEST_MPI_GTEST_MAIN_H

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

inline int mpi_gtest_main(int argc, char **argv, int *rank, int *size,
                          const char *suite)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    ::testing::InitGoogleTest(&argc, argv);
    if (*rank != 0) { // one report; other ranks still fail the run below
        auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
    }
    int failed = RUN_ALL_TESTS() != 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && failed)
        fprintf(stderr, "rank %d: %s failed (see above)\n", *rank, suite);
    MPI_Finalize();
    return any;
}

#endif
