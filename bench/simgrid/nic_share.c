/* nic_share.c: how the simulated Theta-like platform shares a node's
 * network interface, against the cost model's assumption (a byte leaving
 * a node costs beta times the ranks of the node sending off-node at once).
 *
 * Ranks 0..SENDERS-1 (node 0) each send SIZE bytes to rank + 64 (node 1),
 * all at once; the time is the slowest rank's, after one untimed round.
 * The model's time for it: o (isend) + alpha + SENDERS * SIZE * beta + o
 * (completing the receive), printed beside.
 *
 *   smpicc -O2 -o nic_share bench/simgrid/nic_share.c
 *   sh bench/simgrid/smpi_run.sh ./nic_share theta 128 3 SIZE SENDERS
 *
 * Measured (SimGrid 3.32, bench/results/auto/README.md): the model holds
 * for 32 KiB messages and overestimates 2 KiB ones by about a fifth when
 * 64 ranks share the interface. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "theta_platform.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int size = argc > 2 ? atoi(argv[1]) : -1;
    int senders = argc > 2 ? atoi(argv[2]) : -1;
    if (P < 2 * RANKS_PER_NODE || size < 0 || senders < 1 ||
        senders > RANKS_PER_NODE) {
        if (me == 0)
            fprintf(stderr, "usage: nic_share SIZE SENDERS (1-64), on 128 "
                            "ranks of the theta platform\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc((size_t)size + 1, 1);
    for (int round = 0; round < 2; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Request r;
        if (me < senders) {
            MPI_Isend(buf, size, MPI_CHAR, me + RANKS_PER_NODE, 0,
                      MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (me >= RANKS_PER_NODE && me < RANKS_PER_NODE + senders) {
            MPI_Irecv(buf, size, MPI_CHAR, me - RANKS_PER_NODE, 0,
                      MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        t = MPI_Wtime() - t;
        double slowest;
        MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0 && round == 1)
            printf("%d B from %d ranks at once: %.2f us (model %.2f)\n",
                   size, senders, 1e6 * slowest,
                   1e6 * (2 * O + ALPHA + senders * (double)size * BETA));
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
