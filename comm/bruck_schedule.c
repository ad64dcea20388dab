/* The zero-rotation Bruck schedule as formulas (see bruck_schedule.h). */
#include "bruck_schedule.h"

int ravel_bruck_steps(int P)
{
    int steps = 0;
    while (steps < 31 && (1 << steps) < P)
        steps++;
    return steps;
}

int ravel_bruck_step_positions(int P, int k, int positions[])
{
    int n = 0;
    for (int j = 1; j < P; j++)
        if ((j >> k) & 1) {
            if (positions)
                positions[n] = j;
            n++;
        }
    return n;
}

int ravel_bruck_max_step_positions(int P)
{
    int most = 0;
    for (int k = 0; k < ravel_bruck_steps(P); k++) {
        int n = ravel_bruck_step_positions(P, k, 0);
        if (n > most)
            most = n;
    }
    return most;
}

int ravel_bruck_last_step(int j)
{
    return 31 - __builtin_clz((unsigned)j);
}

void ravel_bruck_block_at(int rank, int j, int k, int P, int *src, int *dst)
{
    /* Each step k' < k with bit k' of j set carried the block 2^k' ranks
     * forward, so it left its source (j mod 2^k) ranks back. */
    int travelled = j & ((1 << k) - 1);
    *src = ((rank - travelled) % P + P) % P;
    *dst = (*src + j) % P;
}
