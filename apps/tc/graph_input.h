/* graph_input.h: the graphs ravel-tc reads, as edge arrays spread over ranks.
 *
 * ravel_tc_graph_read reads a Matrix Market file (.mtx, or gzip-compressed,
 * recognised by its magic bytes) or a plain edge list and leaves on every rank
 * a share of the edges as pairs of 0-based uint64_t vertex ids, with the
 * global vertex count and the global number of entries read.  Which rank
 * holds which edge is arbitrary (the engine redistributes by hash); the union
 * over ranks is exactly the file's entries, duplicates and self-loops kept.
 *
 * Parallel reading.  An uncompressed file is split into P equal byte ranges
 * of its data section; each rank preads its own range and parses the lines
 * that begin in it, so no rank reads or holds the whole file.  Line numbers in
 * messages stay exact: each rank counts the newlines it consumed and an
 * MPI_Exscan gives every rank the number of its first line.  A gzip stream
 * cannot be entered in the middle, so every rank inflates the whole stream,
 * parses every line (every rank therefore finds the same errors) and keeps
 * the entries whose ordinal is congruent to its rank modulo P: no scatter, P
 * times the inflate work, 1/P of the edges in memory.
 *
 * Errors.  The function is collective and never aborts: on bad input every
 * rank returns the same MPI error code and ravel_error_message() holds the
 * same message on every rank, so the caller prints it once (rank 0) and all
 * ranks exit non-zero together.  When ranks find different errors the one at
 * the earliest line wins, as a sequential reader would report.  Messages read
 *     FILE:LINE: expected WHAT, found WHAT-WAS-THERE
 * (or "FILE: ..." when no line is at fault, e.g. a file that cannot be
 * opened).  Codes: MPI_ERR_NO_SUCH_FILE / MPI_ERR_FILE (cannot open),
 * MPI_ERR_IO (read failure, corrupt or truncated gzip stream), MPI_ERR_NO_MEM,
 * MPI_ERR_OTHER (malformed content), MPI_ERR_ARG (bad arguments).
 *
 * Formats.
 *  - Matrix Market: the banner "%%MatrixMarket matrix coordinate FIELD
 *    SYMMETRY" (words case-insensitive), FIELD one of pattern, integer, real,
 *    complex, SYMMETRY one of general, symmetric, skew-symmetric, hermitian;
 *    '%' comment lines; the size line "rows columns entries"; then exactly
 *    `entries` lines "row column [value...]" with as many value fields as
 *    FIELD needs (0, 1, 1, 2).  Values are checked to be numbers and then
 *    ignored.  Indices are 1-based and checked against rows and columns.
 *    Blank lines, CRLF endings and '%' lines among the entries are tolerated.
 *    Vertex v of the graph is index v+1; the vertex count is
 *    max(rows, columns).
 *  - Edge list: lines "src dst" of two integers in 0..2^63-2, used as vertex
 *    ids unchanged; '#' and '%' lines are comments; the vertex count is the
 *    largest id plus one.  A file is read as Matrix Market when its name ends
 *    in .mtx or .mtx.gz or its first line starts with "%%"; otherwise as an
 *    edge list (or as options->format says).
 */
#ifndef RAVEL_TC_GRAPH_INPUT_H
#define RAVEL_TC_GRAPH_INPUT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    RAVEL_TC_FORMAT_AUTO = 0,          /* by name and first line, see above */
    RAVEL_TC_FORMAT_MATRIX_MARKET = 1,
    RAVEL_TC_FORMAT_EDGE_LIST = 2,
    RAVEL_TC_FORMAT_GENERATED = 3      /* the default graph (default_graph.h) */
} ravel_tc_format;

/* For symmetric, skew-symmetric and hermitian matrices, which store one
 * triangle: the entries as stored (what published closure sizes count) or
 * each off-diagonal entry in both directions. */
typedef enum {
    RAVEL_TC_SYMMETRIC_STORED = 0,
    RAVEL_TC_SYMMETRIC_BOTH = 1
} ravel_tc_symmetric_mode;

/* Matrix Market indices.  STRICT is the format: 1..rows, 1..columns.
 * ZERO_TOLERANT also accepts index 0 and keeps every index unchanged as the
 * vertex id (vertex count max(rows, columns) + 1): for files written from
 * 0-based edge lists whose size line gives the largest id instead of the
 * count, as five of the graphs in ../shared/datasets/suitesparse are.  Ids
 * are still checked against the size line. */
typedef enum {
    RAVEL_TC_INDICES_STRICT = 0,
    RAVEL_TC_INDICES_ZERO_TOLERANT = 1
} ravel_tc_index_mode;

/* All zero is the default: auto format, entries as stored, strict indices. */
typedef struct {
    ravel_tc_format format;
    ravel_tc_symmetric_mode symmetric;
    ravel_tc_index_mode indices;
} ravel_tc_read_options;

typedef enum {
    RAVEL_TC_FIELD_NONE = 0, /* edge lists and generated graphs */
    RAVEL_TC_FIELD_PATTERN,
    RAVEL_TC_FIELD_INTEGER,
    RAVEL_TC_FIELD_REAL,
    RAVEL_TC_FIELD_COMPLEX
} ravel_tc_field;

typedef enum {
    RAVEL_TC_SYMMETRY_GENERAL = 0, /* also edge lists and generated graphs */
    RAVEL_TC_SYMMETRY_SYMMETRIC,
    RAVEL_TC_SYMMETRY_SKEW_SYMMETRIC,
    RAVEL_TC_SYMMETRY_HERMITIAN
} ravel_tc_symmetry;

typedef struct {
    uint64_t *edges;       /* 2 * nedges ids: src0, dst0, src1, dst1, ...;
                              this rank's share, malloc'ed, NULL when empty */
    size_t nedges;         /* edges held by this rank */
    uint64_t vertex_count; /* global: every id is below it */
    uint64_t entries_read; /* global: entries (lines) in the file */
    uint64_t edges_total;  /* global sum of nedges: entries_read, plus the
                              mirrored entries under RAVEL_TC_SYMMETRIC_BOTH */
    ravel_tc_format format;     /* as detected */
    ravel_tc_field field;       /* from the banner */
    ravel_tc_symmetry symmetry; /* from the banner */
    int compressed;             /* 1 when the file was gzip-compressed */
} ravel_tc_graph;

/* Reads `path` (collective on comm; options NULL means all defaults) into
 * *graph.  Returns MPI_SUCCESS, or on every rank the same error code with the
 * same ravel_error_message(); *graph is then empty and needs no free. */
int ravel_tc_graph_read(const char *path, const ravel_tc_read_options *options,
                        MPI_Comm comm, ravel_tc_graph *graph);

/* Frees the edges and empties *graph (NULL and empty graphs are fine). */
void ravel_tc_graph_free(ravel_tc_graph *graph);

/* "matrix-market", "edge-list", "generated", ... for summaries. */
const char *ravel_tc_format_name(ravel_tc_format format);
const char *ravel_tc_field_name(ravel_tc_field field);
const char *ravel_tc_symmetry_name(ravel_tc_symmetry symmetry);

/* Parses "stored"/"both" (for --symmetric=) and "strict"/"zero-tolerant"
 * (for --indices=); returns 0, or -1 for any other text. */
int ravel_tc_parse_symmetric_mode(const char *text,
                                  ravel_tc_symmetric_mode *mode);
int ravel_tc_parse_index_mode(const char *text, ravel_tc_index_mode *mode);

#ifdef __cplusplus
}
#endif
#endif
