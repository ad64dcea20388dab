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

#ifdef __cplusplus
}
#endif
#endif
