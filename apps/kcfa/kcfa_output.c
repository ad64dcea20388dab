/* Gathering relations on one rank, for output and comparison.  k-CFA's
 * relations are small next to a rank's memory, so one rank may hold one
 * whole relation; the big ones of transitive closure are written in
 * parallel instead (apps/tc/write_closure.c). */
#include "kcfa_output.h"

#include <ravel/comm.h>
#include <ravel/error.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t row_arity; /* for the qsort comparator */

static int compare_rows(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (size_t i = 0; i < row_arity; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

int kcfa_gather_relation(ravel_engine *e, ravel_rel r, int root,
                         uint64_t **rows, size_t *n)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t arity = ravel_relation_arity(e, r), local_n = 0;
    const uint64_t *local = NULL;
    int local_err = ravel_relation_local(e, r, &local, &local_n);
    *rows = NULL;
    *n = 0;
    /* Every rank must learn of a failure, or of a share too large for MPI's
     * int counts, before anyone enters the gather, or the others would wait
     * forever. */
    int bad[2] = {local_err != MPI_SUCCESS, local_n * arity > (size_t)INT_MAX};
    int any_bad[2] = {0, 0};
    ravel_comm_allreduce(bad, any_bad, 2, MPI_INT, MPI_MAX, comm);
    if (any_bad[0])
        return local_err != MPI_SUCCESS
                   ? local_err
                   : ravel_error_set(MPI_ERR_OTHER, "relation %s: another "
                                     "rank could not read its share",
                                     ravel_relation_name(e, r));
    if (any_bad[1])
        return ravel_error_set(MPI_ERR_COUNT, "relation %s: a rank holds more "
                               "than INT_MAX words of it, too many to gather",
                               ravel_relation_name(e, r));
    int words = (int)(local_n * arity);
    int *counts = rank == root ? malloc((size_t)P * sizeof(int)) : NULL;
    int *displs = rank == root ? malloc((size_t)P * sizeof(int)) : NULL;
    MPI_Gather(&words, 1, MPI_INT, counts, 1, MPI_INT, root, comm);
    uint64_t *all = NULL;
    int err = MPI_SUCCESS;
    if (rank == root) {
        size_t total = 0;
        for (int p = 0; p < P; p++) {
            displs[p] = (int)total;
            total += (size_t)counts[p];
        }
        if (total > (size_t)INT_MAX)
            err = ravel_error_set(MPI_ERR_COUNT, "relation %s: too many tuples "
                                  "to gather", ravel_relation_name(e, r));
        all = malloc(total ? total * sizeof *all : 1);
        if (!all)
            err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory gathering %s",
                                  ravel_relation_name(e, r));
        *n = arity ? total / arity : 0;
    }
    int ok = err == MPI_SUCCESS;
    MPI_Bcast(&ok, 1, MPI_INT, root, comm);
    if (ok)
        MPI_Gatherv(local, words, MPI_UINT64_T, all, counts, displs,
                    MPI_UINT64_T, root, comm);
    free(counts);
    free(displs);
    if (!ok) {
        free(all);
        *n = 0;
        return err == MPI_SUCCESS ? MPI_ERR_OTHER : err;
    }
    if (rank == root) {
        row_arity = arity;
        qsort(all, *n, arity * sizeof *all, compare_rows);
        *rows = all;
    }
    return MPI_SUCCESS;
}

int kcfa_write_relation(ravel_engine *e, ravel_rel r, const char *dir)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t *rows;
    size_t n;
    int err = kcfa_gather_relation(e, r, 0, &rows, &n);
    if (err != MPI_SUCCESS || rank != 0) {
        free(rows);
        MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
        return err;
    }
    size_t arity = ravel_relation_arity(e, r);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.tsv", dir, ravel_relation_name(e, r));
    FILE *out = fopen(path, "w");
    if (!out) {
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot open for writing: %s",
                              path, strerror(errno));
    } else {
        for (size_t i = 0; i < n; i++)
            for (size_t c = 0; c < arity; c++)
                fprintf(out, "%" PRIu64 "%c", rows[i * arity + c],
                        c + 1 < arity ? '\t' : '\n');
        if (ferror(out) | (fclose(out) != 0))
            err = ravel_error_set(MPI_ERR_IO, "%s: write failed: %s", path,
                                  strerror(errno));
    }
    free(rows);
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return err;
}
