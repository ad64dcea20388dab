/* edge_checksum.h: an order-independent fingerprint of an edge multiset.
 * The sum (mod 2^64) of a strong mix of each pair: equal multisets give
 * equal sums wherever and in whatever order the edges lie, and a missing,
 * extra or altered edge changes it except with probability ~2^-64. */
#ifndef RAVEL_TC_EDGE_CHECKSUM_H
#define RAVEL_TC_EDGE_CHECKSUM_H

#include <stdint.h>

static inline uint64_t tc_mix_edge(uint64_t src, uint64_t dst)
{
    /* splitmix64 finaliser over a combination of both ends */
    uint64_t z = src * 0x9E3779B97F4A7C15ull + dst + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#endif
