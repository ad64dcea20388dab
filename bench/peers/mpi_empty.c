/* The least an MPI program does: MPI_Init, one allreduce (so that every
 * rank has really reached every other) and MPI_Finalize.  Built with mpicc
 * by bench/peers/mpi_floor.sh and launch_floor.sh, for the memory and the
 * wall time every MPI program pays before its first tuple. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int one = 1, sum;
    MPI_Init(&argc, &argv);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return sum > 0 ? 0 : 1;
}
