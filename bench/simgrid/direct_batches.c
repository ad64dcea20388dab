/* direct_batches.c: what a direct exchange in batches costs on the
 * simulated Theta-like platform, against the cost model's two ways of
 * overlapping its postings with its bytes.
 *
 * Every rank runs the first BATCHES batches of spread-out's messages (no
 * copies): batch j posts, for each distance i of j*B+1 .. j*B+B, a receive
 * of SIZE bytes from rank - i and a send of SIZE bytes to rank + i, then
 * waits for all of them.  The time printed is the last rank's end minus
 * the first rank's start of the second of two rounds.  Beside it the
 * model's two forms (theta-model.json's alpha, beta, o; share(i) the ranks
 * of a node whose partner at distance i is on another node):
 *   whole:     B' alpha + max(2 o (P-1), beta SIZE sum_i share(i))
 *   per batch: B' alpha + sum_j max(2 o B_j, N_j),
 *              N_j = beta SIZE sum_{i in j} share(i)
 *   with the trail: B' alpha + sum_j max(2 o B_j, N_j + even o B_j (1 -
 *              o B_j / N_j)) where N_j > o B_j (comm/model/cost_model.c)
 * The first lets every posting overlap every byte; the second only within
 * a batch, which the waits separate; the third adds the receives'
 * completions that follow a batch's last byte.  Near distances stay on
 * the node, far ones leave it, so the batches are not alike.  UNEVEN = 1:
 * each message takes 0 to SIZE bytes (a hash of sender and receiver), the
 * model's bytes at SIZE / 2 and even = 0.5 (mean / largest); else every
 * message SIZE bytes, even = 1.
 *
 *   smpicc -O2 -o direct_batches bench/simgrid/direct_batches.c
 *   sh bench/simgrid/smpi_run.sh ./direct_batches theta 256 3 SIZE B \
 *       [BATCHES [UNEVEN]]
 *
 * Measured (SimGrid 3.32, bench/results/auto/README.md, "A direct
 * exchange overlaps batch by batch"). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "theta_platform.h"

static double max2(double a, double b) { return a > b ? a : b; }

/* A message's size in [0, size], drawn from (from, to) alone. */
static int bytes_of(int from, int to, int size)
{
    unsigned long long x = (unsigned long long)from * 0x9E3779B97F4A7C15ull ^
                           (unsigned long long)to * 0xC2B2AE3D27D4EB4Full;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (int)(x % ((unsigned long long)size + 1));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int size = argc > 2 ? atoi(argv[1]) : -1;
    int batch = argc > 2 ? atoi(argv[2]) : -1;
    int batches = argc > 3 ? atoi(argv[3]) : P;
    /* UNEVEN (argv[4] = 1): each message takes 0 to SIZE bytes, the same
     * draw on both sides (a hash of sender and receiver) */
    int uneven = argc > 4 && atoi(argv[4]) == 1;
    if (size < 0 || batch < 1 || batches < 1 || P < 2) {
        if (me == 0)
            fprintf(stderr, "usage: direct_batches SIZE B [BATCHES [UNEVEN]], "
                            "on 2 ranks or more of the theta platform\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *out = calloc((size_t)size + 1, 1);
    char *in = calloc((size_t)size * batch + 1, 1);
    MPI_Request *requests = malloc(2 * (size_t)batch * sizeof *requests);
    double cpu = 0.0, bytes = 0.0, per_batch = 0.0, with_trail = 0.0;
    int done = 0;
    for (int round = 0; round < 2; round++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        done = 0;
        for (int first = 1; first < P && done < batches;
             first += batch, done++) {
            int n = 0, shares = 0, peers = 0;
            for (int i = first; i < first + batch && i < P; i++, peers++) {
                MPI_Irecv(in + (size_t)(i - first) * size, size, MPI_CHAR,
                          (me - i + P) % P, 0, MPI_COMM_WORLD,
                          &requests[n++]);
                MPI_Isend(out, uneven ? bytes_of(me, (me + i) % P, size) : size,
                          MPI_CHAR, (me + i) % P, 0,
                          MPI_COMM_WORLD, &requests[n++]);
                shares += share(P, i);
            }
            MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
            if (round == 1) {
                /* uneven: the mean message (size / 2) for the bytes, and
                 * the trail scaled by mean / largest as the model does */
                double even = uneven ? 0.5 : 1.0;
                double net = BETA * size * even * shares, post = O * peers;
                cpu += 2 * post;
                bytes += net;
                per_batch += ALPHA + max2(2 * post, net);
                /* the receives' completions that trail the batch's last
                 * byte: all but the fraction the sends' postings (O a
                 * peer, the network's first part) leave behind */
                double trail = net > post ? even * post * (1 - post / net)
                                          : 0.0;
                with_trail += ALPHA + max2(2 * post, net + trail);
            }
        }
        /* {-start, end}: the earliest start and the latest end */
        double mine[2] = {-start, MPI_Wtime()}, all[2];
        MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0 && round == 1)
            printf("P=%d, %d batches of %d peers, %d B: %.2f us (model: "
                   "whole %.2f, per batch %.2f, with the trail %.2f)\n", P,
                   done, batch, size, 1e6 * (all[0] + all[1]),
                   1e6 * (done * ALPHA + max2(cpu, bytes)), 1e6 * per_batch,
                   1e6 * with_trail);
    }
    free(requests);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
