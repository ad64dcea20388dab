/* The least an MPI program does: MPI_Init, one allreduce (so that every
 * rank has really reached every other) and MPI_Finalize.  Built with mpicc
 * by bench/peers/mpi_floor.sh and launch_floor.sh, for the memory and the
 * wall time every MPI program pays before its first tuple.  Built with
 * -DRAVEL_MPI_START (and ravel's library), it starts MPI as ravel's
 * programs do (ravel_mpi_init: the environment set for one node). */
#include <mpi.h>

#ifdef RAVEL_MPI_START
#include "ravel/mpi_start.h"
#define MPI_Init ravel_mpi_init
#endif

int main(int argc, char **argv)
{
    int one = 1, sum;
    MPI_Init(&argc, &argv);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return sum > 0 ? 0 : 1;
}
