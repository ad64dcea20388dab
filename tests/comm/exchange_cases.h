/* exchange_cases.h: the shapes of MPI_Alltoallv calls the comm tests check.
 *
 * Counts come from a hash of (seed, source, destination), so every rank can
 * compute both what it sends and what it receives without communicating. */
#ifndef RAVEL_TEST_EXCHANGE_CASES_H
#define RAVEL_TEST_EXCHANGE_CASES_H

#include <stdint.h>

typedef enum {
    SHAPE_RANDOM,        /* non-uniform counts, 0..max */
    SHAPE_SPARSE,        /* most counts zero */
    SHAPE_ALL_ZERO,      /* nothing anywhere */
    SHAPE_ONE_SENDER,    /* rank 0 sends to everyone, nobody else sends */
    SHAPE_ONE_RECEIVER,  /* everyone sends to the last rank only */
    SHAPE_SKEWED,        /* one block per rank is 50x the others */
    SHAPE_COUNT
} exchange_shape;

static inline uint64_t case_mix(uint64_t x)
{
    /* splitmix64's finaliser: a cheap, well-spread hash. */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Elements rank `src` sends to rank `dst` in this shape. */
static inline int case_count(exchange_shape shape, uint64_t seed, int src,
                             int dst, int P, int max)
{
    uint64_t h = case_mix(seed * 1000003u + (uint64_t)src * 7919u +
                          (uint64_t)dst);
    switch (shape) {
    case SHAPE_RANDOM:
        return (int)(h % (uint64_t)(max + 1));
    case SHAPE_SPARSE:
        return h % 5 == 0 ? 1 + (int)((h >> 8) % (uint64_t)max) : 0;
    case SHAPE_ALL_ZERO:
        return 0;
    case SHAPE_ONE_SENDER:
        return src == 0 ? 1 + (int)(h % (uint64_t)max) : 0;
    case SHAPE_ONE_RECEIVER:
        return dst == P - 1 ? 1 + (int)(h % (uint64_t)max) : 0;
    case SHAPE_SKEWED:
        return (int)(h % 4) + (dst == (src + 1) % P ? 50 * max : 0);
    default:
        return 0;
    }
}

static const char *const shape_names[SHAPE_COUNT] = {
    "random", "sparse", "all-zero", "one-sender", "one-receiver", "skewed"};

#endif
