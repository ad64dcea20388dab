/* The error every rank reports when some rank failed: the lowest failing
 * rank's, with its message.  Without it the ranks that did not fail can only
 * say "another rank failed", and the one line a tool prints (from rank 0)
 * would hide what went wrong: which relation ran out of memory, which file
 * could not be written. */
#include "ravel/comm.h"

#include "ravel/error.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MESSAGE_BYTES 1024

int ravel_comm_first_error(MPI_Comm comm, int local_error)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int mine = local_error != MPI_SUCCESS ? rank : INT_MAX, first = INT_MAX;
    int err = ravel_comm_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (err != MPI_SUCCESS)
        return local_error != MPI_SUCCESS ? local_error : err;
    if (first == INT_MAX)
        return MPI_SUCCESS;
    /* The code first, as an int, then the message. */
    char buf[sizeof(int) + MESSAGE_BYTES];
    memset(buf, 0, sizeof buf);
    if (rank == first) {
        memcpy(buf, &local_error, sizeof local_error);
        snprintf(buf + sizeof(int), MESSAGE_BYTES, "%s",
                 ravel_error_message());
    }
    err = MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, first, comm);
    if (err != MPI_SUCCESS)
        return local_error != MPI_SUCCESS ? local_error : err;
    int code;
    memcpy(&code, buf, sizeof code);
    buf[sizeof buf - 1] = '\0';
    const char *message = buf + sizeof(int);
    int size;
    MPI_Comm_size(comm, &size);
    if (size == 1 || strncmp(message, "rank ", 5) == 0) /* told already */
        return ravel_error_set(code, "%s", message);
    return ravel_error_set(code, "rank %d: %s", first, message);
}

int ravel_comm_root_error(MPI_Comm comm, int root_error)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char buf[sizeof(int) + MESSAGE_BYTES];
    memset(buf, 0, sizeof buf);
    if (rank == 0) {
        memcpy(buf, &root_error, sizeof root_error);
        if (root_error != MPI_SUCCESS)
            snprintf(buf + sizeof(int), MESSAGE_BYTES, "%s",
                     ravel_error_message());
    }
    int err = MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, 0, comm);
    if (err != MPI_SUCCESS)
        return err;
    int code;
    memcpy(&code, buf, sizeof code);
    if (code == MPI_SUCCESS || rank == 0)
        return code;
    buf[sizeof buf - 1] = '\0';
    return ravel_error_set(code, "%s", buf + sizeof(int));
}
