/* Error reporting and waiting modes of the comm layer.
 *
 *  - With MPI_ERRORS_RETURN on the caller's communicator, a negative count
 *    or a null datatype makes every backend return the MPI error class the
 *    MPI standard gives for it, with a message naming the argument, and
 *    leaves the communicator usable.
 *  - The waiting mode follows RAVEL_WAIT: argv[1] is the mode this run
 *    expects ("block", "yield", or "auto": yield exactly when the ranks on
 *    this node outnumber its online cores), and a sub-communicator gets its
 *    own decision.
 * usage: mpiexec -n P mpi_errors_and_waiting block|yield|auto */
#include "ravel/comm.h"
#include "ravel/error.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

static void expect(int ok, const char *what, const char *backend)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s (%s)\n", what, backend);
    }
}

static void check_errors(MPI_Comm comm)
{
    int P;
    MPI_Comm_size(comm, &P);
    int *counts = calloc((size_t)P, sizeof(int));
    int *displs = calloc((size_t)P, sizeof(int));
    int *bad = calloc((size_t)P, sizeof(int));
    bad[P - 1] = -1;
    char buf[8] = {0}, out[8] = {0};
    for (size_t b = 0; b < ravel_alltoallv_count(); b++) {
        const char *name = ravel_alltoallv_name(b);
        ravel_alltoallv_fn fn = ravel_alltoallv_lookup(name);
        if (strcmp(name, "vendor") == 0)
            continue; /* MPICH checks its own arguments its own way */
        int err = fn(buf, bad, displs, MPI_INT, buf, counts, displs, MPI_INT,
                     comm);
        int cls = -1;
        MPI_Error_class(err, &cls);
        expect(cls == MPI_ERR_COUNT, "a negative send count gives MPI_ERR_COUNT",
               name);
        char want[64];
        snprintf(want, sizeof want, "sendcounts[%d] = -1", P - 1);
        expect(strstr(ravel_error_message(), want) != NULL,
               "the message names the negative count", name);
        err = fn(buf, counts, displs, MPI_DATATYPE_NULL, buf, counts, displs,
                 MPI_INT, comm);
        MPI_Error_class(err, &cls);
        expect(cls == MPI_ERR_TYPE, "a null datatype gives MPI_ERR_TYPE", name);
        /* The communicator still works afterwards (separate buffers: MPI
         * forbids aliasing them, and auto may choose vendor, which checks). */
        err = fn(buf, counts, displs, MPI_INT, out, counts, displs, MPI_INT,
                 comm);
        expect(err == MPI_SUCCESS, "a valid call after errors succeeds", name);
    }
    free(counts);
    free(displs);
    free(bad);
}

static ravel_wait_mode expected_mode(const char *expect_arg, MPI_Comm comm)
{
    if (strcmp(expect_arg, "block") == 0)
        return RAVEL_WAIT_BLOCK;
    if (strcmp(expect_arg, "yield") == 0)
        return RAVEL_WAIT_YIELD;
    MPI_Comm node;
    int node_ranks;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_ranks);
    MPI_Comm_free(&node);
    return node_ranks > sysconf(_SC_NPROCESSORS_ONLN) ? RAVEL_WAIT_YIELD
                                                       : RAVEL_WAIT_BLOCK;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *expect_arg = argc > 1 ? argv[1] : "auto";

    MPI_Comm world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    check_errors(world);

    ravel_wait_mode mode;
    expect(ravel_comm_wait_mode(world, &mode) == MPI_SUCCESS &&
               mode == expected_mode(expect_arg, world),
           "the waiting mode follows RAVEL_WAIT", expect_arg);
    MPI_Comm solo; /* one rank per communicator: never oversubscribed */
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &solo);
    expect(ravel_comm_wait_mode(solo, &mode) == MPI_SUCCESS &&
               mode == expected_mode(expect_arg, solo),
           "a sub-communicator decides its own waiting mode", expect_arg);
    MPI_Comm_free(&solo);
    MPI_Comm_free(&world);

    int any = 0;
    ravel_comm_allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("errors and waiting (%s): %d failures\n", expect_arg, any);
    MPI_Finalize();
    return any ? 1 : 0;
}
