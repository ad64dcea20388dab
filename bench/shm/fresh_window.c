/* What a fresh shared window costs: for windows of 128 KiB to 8 MiB a rank,
 * the time of MPI_Win_allocate_shared on all ranks, of writing the rank's
 * segment the first time (each page faulted in), of writing it again (the
 * pages warm: a plain copy's cost) and of MPI_Win_free; rank 0's times,
 * each size twice.  Built and run by bench/shm/fresh_window.sh.  What the
 * shm backend pays when its window grows (comm/backends/alltoallv_shm.c). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("KiB a rank,allocate ms,first write ms,second write ms,"
               "free ms,first write us a 4 KiB page\n");
    for (size_t bytes = 128 << 10; bytes <= (size_t)8 << 20; bytes *= 2)
        for (int k = 0; k < 2; k++) {
            void *base;
            MPI_Win win;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL,
                                    MPI_COMM_WORLD, &base, &win);
            double t1 = MPI_Wtime();
            memset(base, 1, bytes);
            double t2 = MPI_Wtime();
            memset(base, 2, bytes);
            double t3 = MPI_Wtime();
            MPI_Win_free(&win);
            double t4 = MPI_Wtime();
            if (rank == 0)
                printf("%zu,%.3f,%.3f,%.3f,%.3f,%.2f\n", bytes >> 10,
                       (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3,
                       (t4 - t3) * 1e3, (t2 - t1) * 1e6 / (bytes / 4096.0));
        }
    MPI_Finalize();
    return 0;
}
