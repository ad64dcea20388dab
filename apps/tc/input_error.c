/* Errors of the graph reader: recorded on one rank, agreed on by all.  The
 * success path costs one allreduce; a broadcast of the message follows only
 * when some rank failed. */
#include "input_error.h"

#include "ravel/comm.h"
#include "ravel/error.h"
#include "ravel/quote.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ravel_tc_input_error_at(ravel_tc_input_error *err, int code, uint64_t line,
                            const char *fmt, ...)
{
    if (err->code != MPI_SUCCESS)
        return err->code;
    err->code = code;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

const char *ravel_tc_quote(const char *s, size_t n, char *out, size_t outlen)
{
    if (n == 0) {
        snprintf(out, outlen, "end of line");
        return out;
    }
    return ravel_quote(s, n, RAVEL_TC_QUOTE_MAX, out, outlen);
}

/* What travels in the broadcast from the rank whose error is reported. */
typedef struct {
    int code;
    char message[1024];
} agreed_error;

int ravel_tc_input_error_agree(ravel_tc_input_error *err, const char *path,
                               MPI_Comm comm)
{
    /* Errors without a line (open, read) sort first: key 0.  "No error" is
     * INT64_MAX, not UINT64_MAX: MPICH 4.0.2 compares MPI_UINT64_T as signed
     * in MPI_MIN, so UINT64_MAX would beat every line number. */
    const uint64_t none = (uint64_t)INT64_MAX;
    uint64_t key = err->code == MPI_SUCCESS ? none : err->line;
    uint64_t earliest = none;
    int rc = ravel_comm_allreduce(&key, &earliest, 1, MPI_UINT64_T, MPI_MIN,
                                  comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (earliest == none)
        return MPI_SUCCESS;

    int rank;
    MPI_Comm_rank(comm, &rank);
    int candidate = (err->code != MPI_SUCCESS && key == earliest) ? rank
                                                                  : INT_MAX;
    int root = INT_MAX;
    rc = ravel_comm_allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS)
        return rc;

    agreed_error agreed;
    memset(&agreed, 0, sizeof agreed);
    if (rank == root) {
        agreed.code = err->code;
        if (err->line > 0)
            snprintf(agreed.message, sizeof agreed.message, "%s:%llu: %s",
                     path, (unsigned long long)err->line, err->text);
        else
            snprintf(agreed.message, sizeof agreed.message, "%s: %s", path,
                     err->text);
    }
    rc = MPI_Bcast(&agreed, (int)sizeof agreed, MPI_BYTE, root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    err->code = agreed.code;
    err->line = earliest;
    return ravel_error_set(agreed.code, "%s", agreed.message);
}
