/* line_reader.h: lines of a byte range of a file, or of a gzip stream.
 *
 * The graph reader's only view of its input.  A reader over a plain file
 * preads blocks of a fixed size and hands out the lines that *begin* before
 * its end offset, finishing the last one past that offset if needed: ranks
 * that split a file into adjacent ranges therefore parse every line exactly
 * once.  A reader over a gzip stream inflates it from the start (its
 * offsets are offsets in the inflated data, and it has no end offset).
 * Lines are returned NUL-terminated without their "\n" or "\r\n"; a line may
 * be of any length (the buffer grows).  Error messages (ravel_error_set)
 * name no file: the caller, which knows the line, adds both.  Internal to
 * apps/tc. */
#ifndef RAVEL_TC_LINE_READER_H
#define RAVEL_TC_LINE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* Bytes fetched per read: large enough for pread to run at disk speed. */
#define RAVEL_TC_READ_BLOCK ((size_t)1 << 20)

typedef struct {
    int fd;            /* plain file, or -1 */
    gzFile gz;         /* gzip stream, or NULL */
    char *buf;
    size_t cap;        /* bytes allocated (one more is kept for a NUL) */
    size_t len;        /* bytes of buf holding data */
    size_t next;       /* first unconsumed byte of buf */
    uint64_t buf_offset; /* file offset of buf[0] */
    uint64_t end;      /* lines starting at or after this offset are not ours */
    size_t block;      /* bytes per read */
    int eof;           /* no more data after buf[len) */
    uint64_t newlines; /* newlines consumed with the lines handed out */
} ravel_tc_lines;

/* Lines of the plain file `fd` beginning in [begin, end).  When `begin` is
 * not the start of a line the partial line is skipped (it belongs to the
 * range before).  `first_line_known` says begin is known to start a line.
 * Returns MPI_SUCCESS or an MPI error code with ravel_error_set. */
int ravel_tc_lines_open_range(ravel_tc_lines *r, int fd, uint64_t begin,
                              uint64_t end,
                              int first_line_known, size_t block);

/* Lines of the gzip stream `gz` from its start. */
int ravel_tc_lines_open_gz(ravel_tc_lines *r, gzFile gz);

/* The next line: returns 1 and sets *line (NUL-terminated, valid until the
 * next call) and *length; 0 at the end of the range or file; or a negative
 * value after a read error, a corrupt gzip stream or a line holding a NUL
 * byte (ravel_error_set called, code in *code). */
int ravel_tc_lines_next(ravel_tc_lines *r, char **line, size_t *length,
                        int *code);

/* The offset, in the file (inflated stream), of the next unread line. */
uint64_t ravel_tc_lines_offset(const ravel_tc_lines *r);

/* Frees the buffer (not the descriptor or the stream). */
void ravel_tc_lines_close(ravel_tc_lines *r);

#endif
