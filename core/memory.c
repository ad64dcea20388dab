/* Peak resident memory from getrusage (Linux reports it in KiB). */
#include "ravel/memory.h"

#include <sys/resource.h>

uint64_t ravel_peak_rss_bytes(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return (uint64_t)usage.ru_maxrss * 1024u;
}
