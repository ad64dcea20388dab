/* ravel/hash.h: the hash that places tuples, the same on every rank.
 *
 * Placement is only correct if every rank computes the same hash for the same
 * tuple, on every platform.  XXH3_64bits gives that guarantee for a byte
 * string; ravel hashes the little-endian bytes of the 64-bit columns, so the
 * result does not depend on the host's byte order either. */
#ifndef RAVEL_HASH_H
#define RAVEL_HASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* XXH3_64bits of the little-endian bytes of cols[0..n), with `seed`. */
uint64_t ravel_hash_columns(const uint64_t *cols, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif
