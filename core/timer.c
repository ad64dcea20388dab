/* The monotonic clock behind ravel_now. */
#include "ravel/timer.h"

#include <time.h>

double ravel_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
