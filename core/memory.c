/* Growing arrays, and peak resident memory from getrusage (Linux reports
 * it in KiB). */
#include "ravel/memory.h"

#include <stdlib.h>
#include <sys/resource.h>

int ravel_grow(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t grown = *cap < 16 ? 16 : *cap + *cap / 2, bytes;
    if (grown < *cap || grown < need)
        grown = need;
    if (ravel_mul_size(grown, elem, &bytes) != 0)
        return -1;
    void *d = realloc(*data, bytes ? bytes : 1);
    if (!d)
        return -1;
    *data = d;
    *cap = grown;
    return 0;
}

uint64_t ravel_peak_rss_bytes(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return (uint64_t)usage.ru_maxrss * 1024u;
}
