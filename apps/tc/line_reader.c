/* Lines of a byte range of a plain file (pread) or of a whole gzip stream.
 * See line_reader.h for the contract that makes adjacent ranges tile a file. */
#include "line_reader.h"

#include "ravel/error.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int init(ravel_tc_lines *r, size_t block)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->end = UINT64_MAX;
    r->block = block;
    r->cap = block;
    r->buf = malloc(r->cap + 1); /* + 1: room for the NUL of a last line */
    if (!r->buf)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "out of memory for a %zu-byte read buffer",
                               block);
    return MPI_SUCCESS;
}

/* Reads more data after buf[len), first moving the unconsumed bytes to the
 * front and growing the buffer when a single line fills it. */
static int fill(ravel_tc_lines *r)
{
    if (r->next > 0) {
        memmove(r->buf, r->buf + r->next, r->len - r->next);
        r->buf_offset += r->next;
        r->len -= r->next;
        r->next = 0;
    }
    if (r->len == r->cap) {
        if (r->cap > SIZE_MAX / 2 - 1)
            return ravel_error_set(MPI_ERR_NO_MEM, "line too long");
        char *bigger = realloc(r->buf, 2 * r->cap + 1);
        if (!bigger)
            return ravel_error_set(MPI_ERR_NO_MEM,
                                   "out of memory for a line longer "
                                   "than %zu bytes at offset %llu",
                                   r->cap,
                                   (unsigned long long)r->buf_offset);
        r->buf = bigger;
        r->cap *= 2;
    }
    size_t want = r->cap - r->len;
    if (want > r->block)
        want = r->block;
    if (r->gz) {
        /* zlib hands out what it inflated before a fault and reports the
         * fault on the next call: keep the data, fail when nothing comes. */
        int got = gzread(r->gz, r->buf + r->len, (unsigned)want);
        if (got > 0) {
            r->len += (size_t)got;
            return MPI_SUCCESS;
        }
        int zerr = Z_OK;
        gzerror(r->gz, &zerr); /* its text names the file: ours does */
        unsigned long long at = r->buf_offset + r->len;
        if (zerr == Z_BUF_ERROR)
            return ravel_error_set(MPI_ERR_IO,
                                   "expected the gzip stream to continue, "
                                   "found it truncated after %llu inflated "
                                   "bytes",
                                   at);
        if (got < 0 || (zerr != Z_OK && zerr != Z_STREAM_END))
            return ravel_error_set(MPI_ERR_IO,
                                   "expected valid gzip data, found corrupt "
                                   "data after %llu inflated bytes (zlib "
                                   "error %d%s%s)",
                                   at, zerr, zerr == Z_ERRNO ? ": " : "",
                                   zerr == Z_ERRNO ? strerror(errno) : "");
        r->eof = 1;
        return MPI_SUCCESS;
    }
    for (;;) {
        ssize_t got = pread(r->fd, r->buf + r->len, want,
                            (off_t)(r->buf_offset + r->len));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return ravel_error_set(MPI_ERR_IO, "read failed at offset "
                                   "%llu: %s",
                                   (unsigned long long)(r->buf_offset + r->len),
                                   strerror(errno));
        if (got == 0)
            r->eof = 1;
        r->len += (size_t)got;
        return MPI_SUCCESS;
    }
}

/* The next line regardless of the end offset; see ravel_tc_lines_next. */
static int next_line(ravel_tc_lines *r, char **line, size_t *length, int *code)
{
    for (;;) {
        char *start = r->buf + r->next;
        char *nl = memchr(start, '\n', r->len - r->next);
        if (nl || (r->eof && r->next < r->len)) {
            size_t n = nl ? (size_t)(nl - start) : r->len - r->next;
            start[n] = '\0';
            r->next += n + (nl ? 1 : 0);
            if (nl)
                r->newlines++;
            if (n > 0 && start[n - 1] == '\r')
                start[--n] = '\0';
            *line = start;
            *length = n;
            return 1;
        }
        if (r->eof)
            return 0;
        int rc = fill(r);
        if (rc != MPI_SUCCESS) {
            *code = rc;
            return -1;
        }
    }
}

int ravel_tc_lines_next(ravel_tc_lines *r, char **line, size_t *length,
                        int *code)
{
    if (ravel_tc_lines_offset(r) >= r->end)
        return 0;
    int got = next_line(r, line, length, code);
    /* The parsers see NUL-terminated text: a NUL inside a line would end
     * it silently ("1 2\0garbage" read as "1 2").  Checked here, not in
     * next_line, so that the partial line a range skips (the range before
     * reports it, with its line number) is not. */
    const char *nul = got == 1 ? memchr(*line, '\0', *length) : NULL;
    if (nul) {
        *code = ravel_error_set(MPI_ERR_OTHER, "expected text, found a NUL "
                                "byte at column %zu",
                                (size_t)(nul - *line) + 1);
        return -1;
    }
    return got;
}

uint64_t ravel_tc_lines_offset(const ravel_tc_lines *r)
{
    return r->buf_offset + r->next;
}

int ravel_tc_lines_open_range(ravel_tc_lines *r, int fd, uint64_t begin, uint64_t end,
                              int first_line_known, size_t block)
{
    int rc = init(r, block);
    if (rc != MPI_SUCCESS)
        return rc;
    r->fd = fd;
    r->end = end;
    if (first_line_known || begin == 0) {
        r->buf_offset = begin;
        return MPI_SUCCESS;
    }
    /* The line holding byte begin-1 belongs to the range before ours. */
    r->buf_offset = begin - 1;
    char *skipped;
    size_t n;
    if (next_line(r, &skipped, &n, &rc) < 0) {
        ravel_tc_lines_close(r);
        return rc;
    }
    r->newlines = 0;
    return MPI_SUCCESS;
}

int ravel_tc_lines_open_gz(ravel_tc_lines *r, gzFile gz)
{
    int rc = init(r, RAVEL_TC_READ_BLOCK);
    if (rc != MPI_SUCCESS)
        return rc;
    r->gz = gz;
    return MPI_SUCCESS;
}

void ravel_tc_lines_close(ravel_tc_lines *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->next = r->cap = 0;
}
