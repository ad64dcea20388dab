/* bruck_schedule.h: where every block is during a zero-rotation Bruck
 * exchange, as formulas instead of data movement.
 *
 * Bruck's all-to-all (Bruck et al., IEEE TPDS 1997) on P ranks takes
 * ceil(log2 P) steps.  Number a rank's blocks by their distance j = dst - rank
 * (mod P).  At step k every rank sends the blocks whose distance has bit k
 * set to rank + 2^k and receives the same positions from rank - 2^k.  The
 * classical algorithm rotates its buffer before step 0 and after the last
 * step so that position j is physical slot j; the zero-rotation variant
 * leaves the data where it is and computes, for each position, which block
 * it holds.  These formulas are that computation; the unit tests check them
 * against a literal simulation with rotations. */
#ifndef RAVEL_BRUCK_SCHEDULE_H
#define RAVEL_BRUCK_SCHEDULE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Steps of the exchange on P ranks: ceil(log2 P) (0 when P == 1). */
int ravel_bruck_steps(int P);

/* The positions j in [1, P) that move at step k, in increasing order, into
 * `positions` (which may be NULL to count them); returns how many. */
int ravel_bruck_step_positions(int P, int k, int positions[]);

/* Most positions that move at any one step (the staging buffer's size). */
int ravel_bruck_max_step_positions(int P);

/* The step at which position j makes its last hop: the index of j's highest
 * set bit (j >= 1). */
int ravel_bruck_last_step(int j);

/* Before step k (k = 0: initially), position j on `rank` holds the block that
 * `*src` sends to `*dst`.  While no bit of j below k is set, it is still the
 * rank's own send block, read from the send buffer. */
void ravel_bruck_block_at(int rank, int j, int k, int P, int *src, int *dst);

/* Whether position j still holds the rank's own send block before step k. */
static inline int ravel_bruck_is_original(int j, int k)
{
    return (j & ((1 << k) - 1)) == 0;
}

/* ---- radix r (radix-bruck) ---------------------------------------------
 *
 * The same exchange in base r >= 2 (Bruck et al. give it for any radix;
 * TuNA, Fan et al. HPDC'25, for non-uniform blocks): ceil(log_r P) rounds;
 * at round k, for every digit d in [1, r), the positions j whose base-r
 * digit k is d go to rank + d r^k, as up to r - 1 messages at once.  A
 * block moves once per non-zero digit of its distance, so fewer hops than
 * in base 2 (at most log_r P, against log2 P) at the price of more
 * messages per round.  With r = 2 these are the functions above. */

/* Rounds on P ranks: ceil(log_r P) (0 when P == 1). */
int ravel_radix_rounds(int P, int r);

/* r^k, for k below ravel_radix_rounds(P, r) (then it is < P). */
int ravel_radix_stride(int r, int k);

/* Digit k of j in base r. */
int ravel_radix_digit(int j, int r, int k);

/* The positions j in [1, P) whose digit k is d, in increasing order, into
 * `positions` (may be NULL to count them); returns how many. */
int ravel_radix_positions(int P, int r, int k, int d, int positions[]);

/* How many positions j in [1, P) have digit k equal to d (1 <= d < r):
 * a closed form, so the cost model need not list them. */
int ravel_radix_count(int P, int r, int k, int d);

/* All the positions that move in round k, grouped by digit in one pass:
 * those of digit d (1 <= d < r) are positions[first[d] .. first[d + 1]),
 * in increasing order.  positions has room for P - 1, first for r + 1
 * entries (first[0] = first[1] = 0: digit 0 does not move). */
void ravel_radix_round_positions(int P, int r, int k, int positions[],
                                 int first[]);

/* Most positions of any (round, digit): a message's most blocks. */
int ravel_radix_max_positions(int P, int r);

/* The round of j's last hop: the index of its highest non-zero digit. */
int ravel_radix_last_round(int j, int r);

/* Before round k, position j on `rank` holds the block `*src` sends `*dst`
 * (it has moved by j mod r^k so far). */
void ravel_radix_block_at(int rank, int j, int k, int r, int P, int *src,
                          int *dst);

/* Whether position j still holds the rank's own send block before round k. */
int ravel_radix_is_original(int j, int r, int k);

#ifdef __cplusplus
}
#endif
#endif
