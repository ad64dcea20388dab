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

int ravel_radix_count(int P, int r, int k, int d)
{
    /* Digit k runs through 0..r-1, each for `stride` consecutive j, in
     * cycles of r * stride: full cycles, then what the last partial cycle
     * holds of digit d.  j = 0 has digit 0, so [0, P) counts as [1, P). */
    long long stride = ravel_radix_stride(r, k), cycle = stride * r;
    long long n = (P / cycle) * stride, rest = P % cycle - d * stride;
    if (rest > 0)
        n += rest < stride ? rest : stride;
    return (int)n;
}

void ravel_radix_round_positions(int P, int r, int k, int positions[],
                                 int first[])
{
    int stride = ravel_radix_stride(r, k);
    for (int d = 0; d <= r; d++)
        first[d] = 0;
    for (int j = 1; j < P; j++) /* count each digit, at first[d + 1] */
        first[(j / stride) % r + 1]++;
    first[1] = 0; /* digit 0 stays */
    for (int d = 2; d <= r; d++)
        first[d] += first[d - 1];
    /* first[d] is now where digit d's positions start; fill in order, then
     * step the starts back (each advanced by its count). */
    for (int j = 1; j < P; j++) {
        int d = (j / stride) % r;
        if (d)
            positions[first[d]++] = j;
    }
    for (int d = r; d >= 2; d--)
        first[d] = first[d - 1];
    first[1] = 0;
}

int ravel_radix_max_positions(int P, int r)
{
    /* Digit 1 is never rarer than a higher digit in the same round. */
    int most = 0;
    for (int k = 0; k < ravel_radix_rounds(P, r); k++) {
        int n = ravel_radix_count(P, r, k, 1);
        if (n > most)
            most = n;
    }
    return most;
}

int ravel_radix_last_round(int j, int r)
{
    if (r == 2 && j > 0) /* the binary backends' hot path: a bit scan */
        return ravel_bruck_last_step(j);
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
    if (r == 2)
        return ravel_bruck_is_original(j, k);
    return j % ravel_radix_stride(r, k) == 0;
}
