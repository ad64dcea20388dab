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

/* ---- radix r ----------------------------------------------------------- */

int ravel_radix_rounds(int P, int r)
{
    int rounds = 0;
    for (long long reach = 1; reach < P; reach *= r)
        rounds++;
    return rounds;
}

int ravel_radix_stride(int r, int k)
{
    long long s = 1;
    for (int i = 0; i < k && s <= 0x7fffffff; i++)
        s *= r;
    return s > 0x7fffffff ? 0x7fffffff : (int)s;
}

int ravel_radix_digit(int j, int r, int k)
{
    for (int i = 0; i < k && j > 0; i++)
        j /= r;
    return j % r;
}

int ravel_radix_positions(int P, int r, int k, int d, int positions[])
{
    int n = 0;
    for (int j = 1; j < P; j++)
        if (ravel_radix_digit(j, r, k) == d) {
            if (positions)
                positions[n] = j;
            n++;
        }
    return n;
}

int ravel_radix_max_positions(int P, int r)
{
    int most = 0;
    for (int k = 0; k < ravel_radix_rounds(P, r); k++)
        for (int d = 1; d < r; d++) {
            int n = ravel_radix_positions(P, r, k, d, 0);
            if (n > most)
                most = n;
            if (n == 0)
                break; /* digits above d do not occur at round k either */
        }
    return most;
}

int ravel_radix_last_round(int j, int r)
{
    int k = -1;
    for (int i = 0; j > 0; i++, j /= r)
        if (j % r)
            k = i;
    return k;
}

void ravel_radix_block_at(int rank, int j, int k, int r, int P, int *src,
                          int *dst)
{
    int travelled = j % ravel_radix_stride(r, k);
    *src = ((rank - travelled) % P + P) % P;
    *dst = (*src + j) % P;
}

int ravel_radix_is_original(int j, int r, int k)
{
    return j % ravel_radix_stride(r, k) == 0;
}
