/* mpi_start_probe: starts MPI as ravel's programs do (ravel_mpi_init) and
 * prints, on each rank, "rank R HWLOC_COMPONENTS=VALUE" (or "unset"), then
 * checks that MPI still finds every rank of this node sharing memory with
 * it (MPI_COMM_TYPE_SHARED, which the shm backend and the memory budget
 * use): exit 1 otherwise.  For mpi_start.sh. */
#include "ravel/mpi_start.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    int rank, size, node_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &node_size);
    const char *v = getenv("HWLOC_COMPONENTS");
    printf("rank %d HWLOC_COMPONENTS=%s\n", rank, v ? v : "unset");
    fflush(stdout);
    MPI_Comm_free(&node);
    MPI_Finalize();
    if (node_size != size) {
        fprintf(stderr, "mpi_start_probe: %d of %d ranks share memory\n",
                node_size, size);
        return 1;
    }
    return 0;
}
