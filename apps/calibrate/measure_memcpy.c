/* gamma: seconds per byte of a local copy, memcpy on rank 0.
 *
 * Sizes 4 KiB to 64 MiB (powers of 4), t(n) = c + gamma * n; the small sizes
 * copy within the caches, the large ones stream through memory, and the
 * residuals show how far one straight line is from that.  Both buffers are
 * written before timing, so that page faults of first touch are not
 * counted as copying.
 *
 * The copy must really happen: memcpy is called through a volatile function
 * pointer, which the compiler cannot see through (so it can neither drop a
 * copy whose result looks unused nor merge repeated identical copies), and
 * a byte of every copy's destination is folded into a volatile sink. */
#include "calibrate.h"

#include <ravel/error.h>
#include <ravel/timer.h>

#include <stdlib.h>
#include <string.h>

#define MEMCPY_MIN ((size_t)4 << 10)
#define MEMCPY_MAX ((size_t)64 << 20)
#define MAX_REPS 1000000

static void *(*volatile copy_bytes)(void *, const void *, size_t) = memcpy;
static volatile unsigned char sink;

static double time_copies(char *dst, const char *src, size_t n, int reps)
{
    unsigned char fold = 0;
    double start = ravel_now();
    for (int r = 0; r < reps; r++) {
        copy_bytes(dst, src, n);
        fold ^= (unsigned char)dst[(size_t)r % n];
    }
    double seconds = ravel_now() - start;
    sink ^= fold;
    return seconds;
}

int cal_measure_memcpy(const cal_effort *e, cal_series *s)
{
    int err = MPI_SUCCESS;
    char *src = malloc(MEMCPY_MAX), *dst = malloc(MEMCPY_MAX);
    double trial[64];
    int trials = e->trials < 64 ? e->trials : 64;
    memset(s, 0, sizeof *s);
    s->x_unit = "B";
    if (!src || !dst) {
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for two %zu-byte "
                              "memcpy buffers", MEMCPY_MAX);
        goto fn_exit;
    }
    for (size_t i = 0; i < MEMCPY_MAX; i++)
        src[i] = (char)(i * 131);
    memset(dst, 0, MEMCPY_MAX);
    for (size_t n = MEMCPY_MIN; n <= MEMCPY_MAX; n *= 4) {
        double once = time_copies(dst, src, n, 2) / 2; /* also warms up */
        int reps = cal_reps_for(e->trial_seconds, once, MAX_REPS);
        for (int k = 0; k < trials; k++)
            trial[k] = time_copies(dst, src, n, reps) / reps;
        s->x[s->n] = (double)n;
        s->t[s->n] = cal_median(trial, (size_t)trials);
        s->n++;
    }
    s->measured = 1;
    cal_fit(s, 0);
fn_exit:
    free(src);
    free(dst);
    return err;
}
