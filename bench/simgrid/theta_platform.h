/* theta_platform.h: what the standalone SMPI programs of bench/simgrid
 * (bruck_steps.c, direct_batches.c, nic_share.c) need to print the cost
 * model's charge beside the simulated time: theta-model.json's alpha, beta
 * and o, the ranks of a node, and the model's share
 * (comm/model/cost_model.c) written out again, so that each program
 * compiles alone with smpicc. */
#ifndef RAVEL_BENCH_THETA_PLATFORM_H
#define RAVEL_BENCH_THETA_PLATFORM_H

enum { RANKS_PER_NODE = 64 };
static const double ALPHA = 1.3e-6, BETA = 1e-10, O = 3e-6;

/* Ranks of node 0 whose partner at distance d is on another node (at
 * least 1). */
static inline int share(int P, int d)
{
    int off = 0;
    for (int r = 0; r < RANKS_PER_NODE && r < P; r++)
        off += (r + d) % P >= RANKS_PER_NODE;
    return off > 0 ? off : 1;
}

#endif
