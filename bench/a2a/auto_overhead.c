/* auto-overhead: what auto adds to the backend it runs, per call, in a
 * tight loop of one pattern (no barrier between calls, unlike ravel-a2a,
 * whose per-call barrier and timing blur differences of a few ns).
 *
 * usage: mpiexec -n P auto-overhead [ELEMENTS [BACKEND]]
 * Every rank sends every rank ELEMENTS doubles (default 2: 16-byte
 * blocks).  Rounds alternate BACKEND (default spread-out, what auto picks
 * for this on 2 ranks of one node) and auto, 20000 timed calls each after
 * 1000 untimed ones; a round's time is the slowest rank's mean call, and
 * the figure the best of 6 rounds.  auto's time includes its agreements
 * (an allreduce every so many calls on a direct exchange). */
#include <ravel/comm.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 7, UNTIMED = 1000, TIMED = 20000 };

static double round_time(ravel_alltoallv_fn f, const double *sb,
                         const int *counts, const int *displs, double *rb)
{
    for (int i = 0; i < UNTIMED; i++)
        f(sb, counts, displs, MPI_DOUBLE, rb, counts, displs, MPI_DOUBLE,
          MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < TIMED; i++)
        f(sb, counts, displs, MPI_DOUBLE, rb, counts, displs, MPI_DOUBLE,
          MPI_COMM_WORLD);
    t = (MPI_Wtime() - t) / TIMED;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int n = argc > 1 ? atoi(argv[1]) : 2;
    const char *fixed = argc > 2 ? argv[2] : "spread-out";
    ravel_alltoallv_fn f[2] = {ravel_alltoallv_lookup(fixed),
                               ravel_alltoallv_lookup("auto")};
    int *counts = malloc((size_t)P * sizeof *counts);
    int *displs = malloc((size_t)P * sizeof *displs);
    double *sb = calloc((size_t)P * (n > 0 ? n : 1), sizeof *sb);
    double *rb = calloc((size_t)P * (n > 0 ? n : 1), sizeof *rb);
    if (n < 0 || !f[0] || !counts || !displs || !sb || !rb) {
        if (me == 0)
            fprintf(stderr, "usage: auto-overhead [ELEMENTS >= 0 [BACKEND]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < P; i++) {
        counts[i] = n;
        displs[i] = i * n;
    }
    double best[2] = {1e9, 1e9};
    for (int round = 0; round < ROUNDS; round++)
        for (int b = 0; b < 2; b++) {
            double t = round_time(f[b], sb, counts, displs, rb);
            if (round > 0 && t < best[b]) /* the first round warms up */
                best[b] = t;
        }
    if (me == 0)
        printf("%d ranks, %d-byte blocks: %s %.4f us, auto %.4f us, "
               "auto adds %.4f us (%.3f)\n",
               P, n * 8, fixed, 1e6 * best[0], 1e6 * best[1],
               1e6 * (best[1] - best[0]), best[1] / best[0]);
    free(counts);
    free(displs);
    free(sb);
    free(rb);
    MPI_Finalize();
    return 0;
}
