/* bruck_steps.c: what one step of a binary Bruck exchange costs on the
 * simulated Theta-like platform, against the cost model's two ways of
 * charging it.
 *
 * Every rank runs the first STEPS steps of binary Bruck's messages (no
 * packing, no copies): at step k it receives SIZE bytes from rank - 2^k
 * and sends SIZE bytes to rank + 2^k, one MPI_Irecv, one MPI_Isend and a
 * MPI_Waitall, as comm_step_exchange does.  The time printed is the last
 * rank's end minus the first rank's start of the second of two rounds (the
 * first is untimed); running it for STEPS = 1, 2, ... gives each step's
 * cost as the difference.  Beside it, the model's charge for the same
 * steps (theta-model.json's alpha, beta, o; share_k the ranks of a node
 * whose partner is on another node, comm/model/cost_model.c):
 *   added:    sum_k alpha + 2 o + beta share_k SIZE
 *   overlaps: sum_k alpha + max(2 o + beta SIZE, beta share_k SIZE)
 * The first adds a rank's postings to the node's interface time; the
 * second lets the interface carry the other ranks' messages while this
 * rank posts and completes its own (ranks whose partner is on their node
 * finish a step early, so the ranks are not in step with each other).
 *
 *   smpicc -O2 -o bruck_steps bench/simgrid/bruck_steps.c
 *   sh bench/simgrid/smpi_run.sh ./bruck_steps theta 256 3 SIZE [STEPS]
 *
 * Measured (SimGrid 3.32, bench/results/auto/README.md, "Bruck steps
 * overlap the interface"): from 256 B to 25 KB a step the overlapping form
 * is the closer (1.5 to 5% low); the added one errs high by 5 to 7% at
 * 256 B, a quarter at 2.5 KB and 2 to 5% at 25 KB; at 128 KiB both err
 * low (3 and 4.5%). */
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
    int size = argc > 1 ? atoi(argv[1]) : -1;
    int steps = argc > 2 ? atoi(argv[2]) : 64;
    if (size < 0 || steps < 1 || P < 2) {
        if (me == 0)
            fprintf(stderr, "usage: bruck_steps SIZE [STEPS], on 2 ranks "
                            "or more of the theta platform\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *out = calloc((size_t)size + 1, 1), *in = calloc((size_t)size + 1, 1);
    double added = 0.0, overlaps = 0.0;
    int done = 0;
    for (int round = 0; round < 2; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        done = 0;
        for (int d = 1; d < P && done < steps; d *= 2, done++) {
            MPI_Request r[2];
            MPI_Irecv(in, size, MPI_CHAR, (me - d + P) % P, 0,
                      MPI_COMM_WORLD, &r[0]);
            MPI_Isend(out, size, MPI_CHAR, (me + d) % P, 0, MPI_COMM_WORLD,
                      &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            if (round == 1) {
                double own = 2 * O + BETA * size;
                double node = BETA * share(P, d) * size;
                added += ALPHA + 2 * O + node;
                overlaps += ALPHA + (own > node ? own : node);
            }
        }
        /* {-start, end}: the earliest start and the latest end */
        double mine[2] = {-start, MPI_Wtime()}, all[2];
        MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0 && round == 1)
            printf("P=%d, %d steps of %d B: %.2f us (model: added %.2f, "
                   "overlaps %.2f)\n", P, done, size, 1e6 * (all[0] + all[1]),
                   1e6 * added, 1e6 * overlaps);
    }
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
