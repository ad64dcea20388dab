/* fresh: seconds per byte of fresh shared memory, on each node: a window
 * of MPI_Win_allocate_shared allocated and its segment written the first
 * time, by every rank of the node at once (what the shm backend pays when
 * its window grows: comm/backends/alltoallv_shm.c).
 *
 * Sizes 256 KiB to 4 MiB a rank (powers of 2), t(n) = c + fresh * n, each
 * point the slowest rank's time (the growth waits for it), the median of
 * the trials.  The window is freed after each trial, untimed.  On this
 * project's VM a fresh page cost 17 to 19 us to write and the allocation
 * 2 ms a MiB: about 7e-9 s/B (bench/shm/fresh_window.sh); without a
 * hypervisor in between a page fault costs a fraction of that. */
#include "calibrate.h"

#include <ravel/error.h>
#include <ravel/timer.h>

#include <string.h>

#define FRESH_MIN ((size_t)256 << 10)
#define FRESH_MAX ((size_t)4 << 20)

/* One trial: the slowest node rank's seconds to allocate n bytes a rank
 * and write them. */
static int time_fresh(MPI_Comm node, size_t n, double *seconds)
{
    void *base = NULL;
    MPI_Win win;
    int err = MPI_Barrier(node);
    double start = ravel_now();
    if (err == MPI_SUCCESS)
        err = MPI_Win_allocate_shared((MPI_Aint)n, 1, MPI_INFO_NULL, node,
                                      &base, &win);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "MPI_Win_allocate_shared of %zu bytes "
                               "a rank failed", n);
    memset(base, 1, n);
    double mine = ravel_now() - start;
    err = MPI_Win_free(&win);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "freeing a shared window failed");
    err = MPI_Allreduce(&mine, seconds, 1, MPI_DOUBLE, MPI_MAX, node);
    return err == MPI_SUCCESS
               ? MPI_SUCCESS
               : ravel_error_set(err, "agreeing on a trial's time failed");
}

int cal_measure_fresh(MPI_Comm comm, const cal_effort *e, cal_series *s)
{
    double trial[64];
    int trials = e->trials < 64 ? e->trials : 64;
    memset(s, 0, sizeof *s);
    s->x_unit = "B";
    MPI_Comm node;
    int err = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0,
                                  MPI_INFO_NULL, &node);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "cannot split the ranks by node");
    for (size_t n = FRESH_MIN; n <= FRESH_MAX && err == MPI_SUCCESS; n *= 2) {
        for (int k = 0; k < trials && err == MPI_SUCCESS; k++)
            err = time_fresh(node, n, &trial[k]);
        if (err == MPI_SUCCESS) {
            s->x[s->n] = (double)n;
            s->t[s->n] = cal_median(trial, (size_t)trials);
            s->n++;
        }
    }
    MPI_Comm_free(&node);
    if (err != MPI_SUCCESS)
        return err;
    s->measured = 1;
    cal_fit(s, 0);
    return MPI_SUCCESS;
}
