/* shared_window.c: one window of shared memory over the ranks of a node,
 * for shm and two-level. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <stdint.h>

int comm_window_allocate(MPI_Comm comm, int ranks, size_t bytes,
                         MPI_Win *win, char **base)
{
    *win = MPI_WIN_NULL;
    if (bytes > (size_t)PTRDIFF_MAX)
        return ravel_error_set(MPI_ERR_NO_MEM, "a segment of %zu bytes is "
                               "more than an address space", bytes);
    MPI_Info info;
    int err = MPI_Info_create(&info);
    if (err != MPI_SUCCESS)
        return err;
    /* Each rank's segment on its own pages, local to its core. */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *mine = NULL;
    err = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, comm, &mine, win);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        *win = MPI_WIN_NULL;
        return ravel_error_set(err, "no shared window of %zu bytes per rank "
                               "(MPI_Win_allocate_shared failed)", bytes);
    }
    for (int q = 0; q < ranks && err == MPI_SUCCESS; q++) {
        MPI_Aint size;
        int unit;
        err = MPI_Win_shared_query(*win, q, &size, &unit, &base[q]);
    }
    if (err == MPI_SUCCESS)
        err = MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    if (err != MPI_SUCCESS)
        MPI_Win_free(win);
    return err;
}
