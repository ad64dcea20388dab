/* The per-iteration record: kept in memory, written as CSV by rank 0, and
 * summarised on stderr at most about once a second (always for iterations
 * that take longer, and for the last one of a stratum). */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/timer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int log_open(ravel_engine *e)
{
    if (!e->opt.log_path || e->rank != 0)
        return MPI_SUCCESS;
    e->log = fopen(e->opt.log_path, "w");
    if (!e->log)
        return ravel_error_set(MPI_ERR_FILE, "cannot open log '%s': %s",
                               e->opt.log_path, strerror(errno));
    fprintf(e->log, "stratum,iteration,max_block_bytes,total_bytes,"
                    "balance_bytes,comm_seconds,compute_seconds,new_tuples,"
                    "total_tuples,backend,predicted_seconds,backend_seconds,"
                    "prediction_error\n");
    return MPI_SUCCESS;
}

static void progress(ravel_engine *e, const ravel_iteration_record *rec,
                     int last)
{
    double now = ravel_now();
    double took = rec->comm_seconds + rec->compute_seconds;
    if (!last && took < 1.0 && now - e->last_progress < 1.0)
        return;
    e->last_progress = now;
    fprintf(stderr, "relalg: stratum %u iteration %u: +%llu tuples, %llu "
            "total, N %llu B, %llu B sent, comm %.3f s, compute %.3f s%s\n",
            rec->stratum, rec->iteration,
            (unsigned long long)rec->new_tuples,
            (unsigned long long)rec->total_tuples,
            (unsigned long long)rec->max_block_bytes,
            (unsigned long long)rec->total_bytes, rec->comm_seconds,
            rec->compute_seconds, last ? " (fixed point)" : "");
}

/* The backend, its predicted and measured time and the relative error of
 * the prediction ((predicted - measured) / measured); empty fields when
 * nothing moved. */
static void write_prediction(FILE *log, const ravel_iteration_record *rec)
{
    const char *name = rec->backend >= 0
                           ? ravel_alltoallv_name((size_t)rec->backend)
                           : NULL;
    if (!name) {
        fprintf(log, "none,,,\n");
        return;
    }
    fprintf(log, "%s,%.9f,%.9f,", name, rec->predicted_seconds,
            rec->backend_seconds);
    if (rec->backend_seconds > 0.0)
        fprintf(log, "%.4f\n", (rec->predicted_seconds -
                                rec->backend_seconds) / rec->backend_seconds);
    else
        fprintf(log, "\n");
}

int log_record(ravel_engine *e, const ravel_iteration_record *rec)
{
    if (e->nrecords == e->caprecords) {
        size_t cap = e->caprecords ? 2 * e->caprecords : 64;
        ravel_iteration_record *r = realloc(e->records, cap * sizeof *r);
        if (!r)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                   "%zu iteration records", cap);
        e->records = r;
        e->caprecords = cap;
    }
    e->records[e->nrecords++] = *rec;
    if (e->rank != 0)
        return MPI_SUCCESS;
    if (e->log) {
        fprintf(e->log, "%u,%u,%llu,%llu,%llu,%.6f,%.6f,%llu,%llu,",
                rec->stratum, rec->iteration,
                (unsigned long long)rec->max_block_bytes,
                (unsigned long long)rec->total_bytes,
                (unsigned long long)rec->balance_bytes, rec->comm_seconds,
                rec->compute_seconds, (unsigned long long)rec->new_tuples,
                (unsigned long long)rec->total_tuples);
        write_prediction(e->log, rec);
        fflush(e->log);
    }
    if (!e->opt.quiet)
        progress(e, rec, rec->new_tuples == 0);
    return MPI_SUCCESS;
}
