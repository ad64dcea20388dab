/* ravel_tc_graph_read: a graph file, read in parallel into edge arrays.
 *
 * Three steps, each ending with every rank agreeing on success or on one
 * error (input_error.h): open the file and read its header (every rank reads
 * the few header lines itself, so no broadcast is needed); parse the entries
 * (a plain file as P adjacent byte ranges, one per rank; a gzip stream whole
 * on every rank, each keeping every P-th entry); check the totals against
 * the size line.  See graph_input.h for the formats and the guarantees. */
#include "graph_input.h"

#include "edge_buffer.h"
#include "input_error.h"
#include "line_parsers.h"
#include "line_reader.h"

#include "ravel/comm.h"
#include "ravel/error.h"
#include "ravel/file_open.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes the header reader fetches at a time: headers are a few lines. */
#define HEADER_BLOCK ((size_t)64 << 10)

/* Everything one read needs, so helpers take a single pointer. */
typedef struct {
    const char *path;
    ravel_tc_read_options options;
    MPI_Comm comm;
    int rank, nranks;
    int fd;
    gzFile gz;
    uint64_t file_size;
    ravel_tc_format format;
    ravel_tc_mm_header header;
    uint64_t header_newlines; /* lines up to and including the size line */
    uint64_t data_start;      /* offset of the first line after them */
    uint64_t range_begin, range_end; /* this rank's share of a plain file */
    ravel_tc_input_error err;
} read_state;

/* How to walk one stream of lines and what came out of it. */
typedef struct {
    uint64_t first_line;    /* number of the reader's first line */
    int keep_every_pth;     /* gzip: keep entries with ordinal % P == rank */
    int store;              /* 0: count only (the rescan for "too many") */
    uint64_t stop_at_entry; /* record this entry's line and stop */
    uint64_t entries;       /* entries seen */
    uint64_t stop_line;     /* line of entry stop_at_entry, 0 if not seen */
    uint64_t max_id;        /* largest vertex id seen (edge lists) */
    ravel_tc_edge_buffer edges;
} walk;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int open_file(read_state *st)
{
    /* O_NONBLOCK: opening a FIFO would otherwise wait for a writer, for
     * ever; the type is checked on what was opened, so nothing can swap
     * the path between a check and the open.  On a regular file the flag
     * changes nothing. */
    st->fd = open(st->path, O_RDONLY | O_NONBLOCK);
    if (st->fd < 0)
        return ravel_tc_input_error_at(
            &st->err, errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE, 0,
            "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(st->fd, &sb) != 0)
        return ravel_tc_input_error_at(&st->err, MPI_ERR_FILE, 0,
                                       "cannot stat: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return ravel_tc_input_error_at(&st->err, MPI_ERR_FILE, 0,
                                       "expected a regular file, found %s",
                                       ravel_file_kind(sb.st_mode));
    st->file_size = (uint64_t)sb.st_size;
    unsigned char magic[2] = {0, 0};
    ssize_t got = pread(st->fd, magic, 2, 0);
    if (got < 0)
        return ravel_tc_input_error_at(&st->err, MPI_ERR_IO, 0,
                                       "cannot read: %s", strerror(errno));
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        /* From the descriptor checked above, not by path again. */
        int gz_fd = dup(st->fd);
        st->gz = gz_fd >= 0 ? gzdopen(gz_fd, "rb") : NULL;
        if (!st->gz && gz_fd >= 0)
            close(gz_fd);
        if (!st->gz)
            return ravel_tc_input_error_at(&st->err, MPI_ERR_FILE, 0,
                                           "cannot open the gzip stream");
    }
    if (st->format == RAVEL_TC_FORMAT_AUTO &&
        (ends_with(st->path, ".mtx") || ends_with(st->path, ".mtx.gz")))
        st->format = RAVEL_TC_FORMAT_MATRIX_MARKET;
    return MPI_SUCCESS;
}

/* Reads the banner, comments and size line from r (at the start of the
 * file), or decides the file is an edge list (which has no header). */
static int read_header(read_state *st, ravel_tc_lines *r)
{
    char *text;
    size_t n;
    int code = MPI_SUCCESS;
    int got = ravel_tc_lines_next(r, &text, &n, &code);
    if (got < 0)
        return ravel_tc_input_error_at(&st->err, code, 1, "%s",
                                       ravel_error_message());
    if (st->format == RAVEL_TC_FORMAT_AUTO)
        st->format = (got == 1 && strncmp(text, "%%", 2) == 0)
                         ? RAVEL_TC_FORMAT_MATRIX_MARKET
                         : RAVEL_TC_FORMAT_EDGE_LIST;
    if (st->format == RAVEL_TC_FORMAT_EDGE_LIST)
        return MPI_SUCCESS;
    uint64_t line = 1;
    if (ravel_tc_parse_banner(got == 1 ? text : NULL, line, &st->err,
                              &st->header) < 0)
        return st->err.code;
    do {
        line++;
        got = ravel_tc_lines_next(r, &text, &n, &code);
        if (got < 0)
            return ravel_tc_input_error_at(&st->err, code, line, "%s",
                                           ravel_error_message());
    } while ((got = ravel_tc_parse_size_line(got == 1 ? text : NULL, line,
                                             &st->err, &st->header)) == 0);
    if (got < 0)
        return st->err.code;
    if (st->options.indices == RAVEL_TC_INDICES_ZERO_TOLERANT &&
        (st->header.rows == UINT64_MAX || st->header.columns == UINT64_MAX))
        return ravel_tc_input_error_at(&st->err, MPI_ERR_OTHER, line,
                                       "expected dimensions below %llu",
                                       (unsigned long long)UINT64_MAX);
    st->header_newlines = r->newlines;
    st->data_start = ravel_tc_lines_offset(r);
    return MPI_SUCCESS;
}

/* Parses every line r hands out into w.  Stops at the first error. */
static int walk_lines(read_state *st, ravel_tc_lines *r, walk *w)
{
    const int mm = st->format == RAVEL_TC_FORMAT_MATRIX_MARKET;
    const int mirror = mm && st->header.symmetry != RAVEL_TC_SYMMETRY_GENERAL &&
                       st->options.symmetric == RAVEL_TC_SYMMETRIC_BOTH;
    char *text;
    size_t n;
    int code = MPI_SUCCESS;
    for (uint64_t line = w->first_line;; line++) {
        int got = ravel_tc_lines_next(r, &text, &n, &code);
        if (got < 0)
            return ravel_tc_input_error_at(&st->err, code, line, "%s",
                                           ravel_error_message());
        if (got == 0)
            return MPI_SUCCESS;
        uint64_t src, dst;
        got = mm ? ravel_tc_parse_mm_entry(text, line, &st->header,
                                           st->options.indices, &st->err,
                                           &src, &dst)
                 : ravel_tc_parse_edge_line(text, line, &st->err, &src, &dst);
        if (got < 0)
            return st->err.code;
        if (got == 0)
            continue;
        uint64_t ordinal = w->entries++;
        if (ordinal == w->stop_at_entry) {
            w->stop_line = line;
            return MPI_SUCCESS;
        }
        if (!w->store ||
            (w->keep_every_pth && ordinal % (uint64_t)st->nranks !=
                                      (uint64_t)st->rank))
            continue;
        if (src > w->max_id || dst > w->max_id)
            w->max_id = src > dst ? src : dst;
        if (ravel_tc_edge_buffer_push(&w->edges, src, dst) ||
            (mirror && src != dst &&
             ravel_tc_edge_buffer_push(&w->edges, dst, src)))
            return ravel_tc_input_error_at(&st->err, MPI_ERR_NO_MEM, line,
                                           "out of memory after %zu edges",
                                           w->edges.n);
    }
}

static void too_many(read_state *st, uint64_t line)
{
    ravel_tc_input_error_at(&st->err, MPI_ERR_OTHER, line,
                            "expected %llu entries as the size line (line "
                            "%llu) declares, found more: this is entry %llu",
                            (unsigned long long)st->header.entries,
                            (unsigned long long)st->header.size_line,
                            (unsigned long long)st->header.entries + 1);
}

/* Too few or too many entries for the size line; `eof_line` is the number
 * of the line where the file ends. */
static void check_count(read_state *st, uint64_t total, uint64_t eof_line)
{
    if (st->format != RAVEL_TC_FORMAT_MATRIX_MARKET ||
        total == st->header.entries)
        return;
    if (total < st->header.entries)
        ravel_tc_input_error_at(&st->err, MPI_ERR_OTHER, eof_line,
                                "expected %llu entries as the size line (line "
                                "%llu) declares, found %llu before the end "
                                "of the file",
                                (unsigned long long)st->header.entries,
                                (unsigned long long)st->header.size_line,
                                (unsigned long long)total);
}

/* The gzip path: every rank inflates and parses the whole stream. */
static int read_gz_entries(read_state *st, ravel_tc_lines *r, walk *w)
{
    if (st->format == RAVEL_TC_FORMAT_EDGE_LIST) {
        /* Its first line, read to tell the format, is data: start over. */
        ravel_tc_lines_close(r);
        int rc = gzrewind(st->gz) == 0 ? ravel_tc_lines_open_gz(r, st->gz)
                                       : MPI_ERR_IO;
        if (rc != MPI_SUCCESS)
            ravel_tc_input_error_at(&st->err, rc, 0,
                                    "cannot restart the gzip stream");
        if (rc != MPI_SUCCESS)
            return ravel_tc_input_error_agree(&st->err, st->path, st->comm);
    }
    w->first_line = r->newlines + 1;
    w->keep_every_pth = 1;
    if (st->format == RAVEL_TC_FORMAT_MATRIX_MARKET)
        w->stop_at_entry = st->header.entries; /* the first one too many */
    walk_lines(st, r, w);
    if (w->stop_line)
        too_many(st, w->stop_line);
    else if (st->err.code == MPI_SUCCESS)
        check_count(st, w->entries, r->newlines + 1);
    return ravel_tc_input_error_agree(&st->err, st->path, st->comm);
}

/* This rank's byte range of the data section: P near-equal shares. */
static void split_range(read_state *st)
{
    uint64_t size = st->file_size - st->data_start;
    uint64_t P = (uint64_t)st->nranks, r = (uint64_t)st->rank;
    uint64_t share = size / P, extra = size % P;
    st->range_begin = st->data_start + r * share + (r < extra ? r : extra);
    st->range_end = st->range_begin + share + (r < extra ? 1 : 0);
}

static int walk_range(read_state *st, walk *w, uint64_t *newlines)
{
    ravel_tc_lines r;
    int rc = ravel_tc_lines_open_range(&r, st->fd, st->range_begin,
                                       st->range_end, st->rank == 0,
                                       RAVEL_TC_READ_BLOCK);
    if (rc != MPI_SUCCESS)
        return ravel_tc_input_error_at(&st->err, rc, 0, "%s",
                                       ravel_error_message());
    w->first_line = 1; /* local until the ranks before have been counted */
    walk_lines(st, &r, w);
    *newlines = r.newlines;
    ravel_tc_lines_close(&r);
    return st->err.code;
}

/* The plain-file path: each rank parses the lines beginning in its range. */
static int read_range_entries(read_state *st, walk *w)
{
    uint64_t local[2] = {0, 0}, before[2] = {0, 0}, total[2] = {0, 0};
    split_range(st);
    walk_range(st, w, &local[0]);
    local[1] = w->entries;
    int rc = MPI_Exscan(local, before, 2, MPI_UINT64_T, MPI_SUM, st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (st->rank == 0)
        before[0] = before[1] = 0; /* MPI_Exscan leaves rank 0's undefined */
    if (st->err.code != MPI_SUCCESS && st->err.line > 0)
        st->err.line += st->header_newlines + before[0];
    rc = ravel_tc_input_error_agree(&st->err, st->path, st->comm);
    if (rc != MPI_SUCCESS)
        return rc;

    rc = ravel_comm_allreduce(local, total, 2, MPI_UINT64_T, MPI_SUM,
                              st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    check_count(st, total[1], st->header_newlines + total[0] + 1);
    uint64_t extra = st->header.entries; /* global ordinal of the extra one */
    if (st->format == RAVEL_TC_FORMAT_MATRIX_MARKET &&
        total[1] > st->header.entries && extra >= before[1] &&
        extra < before[1] + local[1]) {
        walk again = {.stop_at_entry = extra - before[1]};
        uint64_t ignored;
        if (walk_range(st, &again, &ignored) == MPI_SUCCESS)
            too_many(st, st->header_newlines + before[0] + again.stop_line);
    }
    return ravel_tc_input_error_agree(&st->err, st->path, st->comm);
}

/* Global totals and the vertex count, into *g. */
static int finish(read_state *st, walk *w, ravel_tc_graph *g)
{
    uint64_t local[2] = {w->edges.n, st->gz ? 0 : w->entries}, sum[2];
    int rc = ravel_comm_allreduce(local, sum, 2, MPI_UINT64_T, MPI_SUM,
                                  st->comm);
    uint64_t max_id = w->edges.n ? w->max_id : 0, any = w->edges.n > 0;
    uint64_t top[2] = {max_id, any}, global_top[2];
    if (rc == MPI_SUCCESS)
        rc = ravel_comm_allreduce(top, global_top, 2, MPI_UINT64_T, MPI_MAX,
                                  st->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    g->edges = w->edges.ids;
    g->nedges = w->edges.n;
    w->edges = (ravel_tc_edge_buffer){0};
    g->edges_total = sum[0];
    g->entries_read = st->gz ? w->entries : sum[1];
    g->format = st->format;
    g->compressed = st->gz != NULL;
    if (st->format == RAVEL_TC_FORMAT_MATRIX_MARKET) {
        uint64_t dim = st->header.rows > st->header.columns
                           ? st->header.rows
                           : st->header.columns;
        g->field = st->header.field;
        g->symmetry = st->header.symmetry;
        g->vertex_count =
            dim + (st->options.indices == RAVEL_TC_INDICES_ZERO_TOLERANT);
    } else {
        g->vertex_count = global_top[1] ? global_top[0] + 1 : 0;
    }
    return MPI_SUCCESS;
}

int ravel_tc_graph_read(const char *path, const ravel_tc_read_options *options,
                        MPI_Comm comm, ravel_tc_graph *graph)
{
    read_state st;
    memset(&st, 0, sizeof st);
    memset(graph, 0, sizeof *graph);
    st.path = path ? path : "(null)";
    if (options)
        st.options = *options;
    st.format = st.options.format;
    st.comm = comm;
    st.fd = -1;
    MPI_Comm_rank(comm, &st.rank);
    MPI_Comm_size(comm, &st.nranks);
    walk w;
    memset(&w, 0, sizeof w);
    w.store = 1;
    w.stop_at_entry = UINT64_MAX;
    ravel_tc_lines header;
    int have_reader = 0;

    int rc = MPI_SUCCESS;
    if (!path || st.format > RAVEL_TC_FORMAT_EDGE_LIST)
        ravel_tc_input_error_at(&st.err, MPI_ERR_ARG, 0,
                                "invalid arguments to ravel_tc_graph_read");
    else if (open_file(&st) == MPI_SUCCESS) {
        rc = st.gz ? ravel_tc_lines_open_gz(&header, st.gz)
                   : ravel_tc_lines_open_range(&header, st.fd, 0,
                                               UINT64_MAX, 1, HEADER_BLOCK);
        if (rc != MPI_SUCCESS)
            ravel_tc_input_error_at(&st.err, rc, 0, "%s",
                                    ravel_error_message());
        else {
            have_reader = 1;
            read_header(&st, &header);
        }
    }
    rc = ravel_tc_input_error_agree(&st.err, st.path, comm);
    if (rc != MPI_SUCCESS)
        goto fn_exit;

    if (st.gz) {
        rc = read_gz_entries(&st, &header, &w);
    } else {
        ravel_tc_lines_close(&header);
        have_reader = 0;
        rc = read_range_entries(&st, &w);
    }
    if (rc == MPI_SUCCESS)
        rc = finish(&st, &w, graph);

fn_exit:
    if (have_reader)
        ravel_tc_lines_close(&header);
    ravel_tc_edge_buffer_free(&w.edges);
    if (st.gz)
        gzclose(st.gz);
    if (st.fd >= 0)
        close(st.fd);
    return rc;
}

void ravel_tc_graph_free(ravel_tc_graph *graph)
{
    if (!graph)
        return;
    free(graph->edges);
    memset(graph, 0, sizeof *graph);
}
