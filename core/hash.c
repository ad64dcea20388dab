/* Tuple hashing through xxHash's XXH3, independent of byte order. */
#include "ravel/hash.h"

#include <string.h>
#include <xxhash.h>

uint64_t ravel_hash_columns(const uint64_t *cols, size_t n, uint64_t seed)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return XXH3_64bits_withSeed(cols, n * sizeof *cols, seed);
#else
    /* Big-endian hosts hash the same bytes a little-endian host would. */
    XXH3_state_t state;
    XXH3_64bits_reset_withSeed(&state, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t le = __builtin_bswap64(cols[i]);
        XXH3_64bits_update(&state, &le, sizeof le);
    }
    return XXH3_64bits_digest(&state);
#endif
}
