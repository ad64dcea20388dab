/* Writing the closure as text, in parallel (MPI-IO) or through rank 0. */
#include "write_closure.h"

#include <ravel/comm.h>
#include <ravel/error.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK_BYTES = 4 << 20, LINE_MAX_BYTES = 42, TAG_CHUNK = 31 };

/* Decimal digits of v. */
static size_t digits(uint64_t v)
{
    size_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Formats pairs [*next, n) into buf (at most CHUNK_BYTES); returns bytes. */
static size_t format_chunk(const uint64_t *pairs, size_t n, size_t *next,
                           uint64_t offset, char *buf)
{
    char *p = buf;
    while (*next < n && (size_t)(p - buf) + LINE_MAX_BYTES <= CHUNK_BYTES) {
        const uint64_t *t = pairs + 2 * *next;
        p = put_u64(p, t[1] + offset);
        *p++ = '\t';
        p = put_u64(p, t[0] + offset);
        *p++ = '\n';
        (*next)++;
    }
    return (size_t)(p - buf);
}

static uint64_t text_bytes(const uint64_t *pairs, size_t n, uint64_t offset)
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += digits(pairs[2 * i] + offset) +
                 digits(pairs[2 * i + 1] + offset) + 2;
    return bytes;
}

static int write_parallel(const char *path, const uint64_t *pairs, size_t n,
                          uint64_t offset, MPI_Comm comm, char *buf)
{
    uint64_t mine = text_bytes(pairs, n, offset), before = 0, total = 0;
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Exscan(&mine, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, comm);
    MPI_File fh;
    int err = MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                            MPI_INFO_NULL, &fh);
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "%s: cannot open for writing", path);
    err = MPI_File_set_size(fh, (MPI_Offset)total); /* truncates old files */
    size_t next = 0;
    MPI_Offset at = (MPI_Offset)before;
    while (err == MPI_SUCCESS && next < n) {
        size_t len = format_chunk(pairs, n, &next, offset, buf);
        err = MPI_File_write_at(fh, at, buf, (int)len, MPI_CHAR,
                                MPI_STATUS_IGNORE);
        at += (MPI_Offset)len;
    }
    int close_err = MPI_File_close(&fh);
    if (err == MPI_SUCCESS)
        err = close_err;
    if (err != MPI_SUCCESS)
        return ravel_error_set(err, "%s: writing the closure failed", path);
    return MPI_SUCCESS;
}

/* Rank 0 writes its own text, then each other rank's, chunk by chunk (an
 * empty chunk ends a rank's text).  Rank 0 drains every rank even after a
 * write error, so that no rank is left blocked in a send. */
static int write_gathered(const char *path, const uint64_t *pairs, size_t n,
                          uint64_t offset, MPI_Comm comm, char *buf)
{
    int rank, P, err = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    size_t next = 0;
    if (rank != 0) {
        for (;;) {
            size_t len = format_chunk(pairs, n, &next, offset, buf);
            MPI_Send(buf, (int)len, MPI_CHAR, 0, TAG_CHUNK, comm);
            if (len == 0)
                return MPI_SUCCESS;
        }
    }
    FILE *out = fopen(path, "w");
    if (!out)
        err = ravel_error_set(MPI_ERR_FILE, "%s: cannot open for writing: %s",
                              path, strerror(errno));
    while (next < n) {
        size_t len = format_chunk(pairs, n, &next, offset, buf);
        if (out && fwrite(buf, 1, len, out) != len)
            err = ravel_error_set(MPI_ERR_IO, "%s: write failed: %s", path,
                                  strerror(errno));
    }
    for (int r = 1; r < P; r++) {
        for (;;) {
            MPI_Status status;
            int len;
            MPI_Recv(buf, CHUNK_BYTES, MPI_CHAR, r, TAG_CHUNK, comm, &status);
            MPI_Get_count(&status, MPI_CHAR, &len);
            if (len == 0)
                break;
            if (out && fwrite(buf, 1, (size_t)len, out) != (size_t)len)
                err = ravel_error_set(MPI_ERR_IO, "%s: write failed: %s", path,
                                      strerror(errno));
        }
    }
    if (out && fclose(out) != 0 && err == MPI_SUCCESS)
        err = ravel_error_set(MPI_ERR_IO, "%s: closing failed: %s", path,
                              strerror(errno));
    return err;
}

/* Every rank learns whether any failed; the first failing rank's message
 * becomes everyone's. */
static int agree(int err, MPI_Comm comm)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    int mine[2] = {err != MPI_SUCCESS ? rank : P, err}, first[2];
    ravel_comm_allreduce(mine, first, 1, MPI_2INT, MPI_MINLOC, comm);
    if (first[0] == P)
        return MPI_SUCCESS;
    char message[1024];
    snprintf(message, sizeof message, "%s", ravel_error_message());
    MPI_Bcast(message, sizeof message, MPI_CHAR, first[0], comm);
    return ravel_error_set(first[1], "%s", message);
}

int tc_write_closure(const char *path, tc_write_mode mode,
                     const uint64_t *pairs, size_t n, uint64_t id_offset,
                     MPI_Comm comm)
{
    char *buf = malloc(CHUNK_BYTES);
    int err = MPI_SUCCESS;
    if (!buf)
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the output "
                              "buffer");
    /* Agree first: the writers below are collective. */
    err = agree(err, comm);
    if (err != MPI_SUCCESS)
        return err;
    if (mode == TC_WRITE_PARALLEL)
        err = write_parallel(path, pairs, n, id_offset, comm, buf);
    else
        err = write_gathered(path, pairs, n, id_offset, comm, buf);
    free(buf);
    return agree(err, comm);
}
