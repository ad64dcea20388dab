/* line_parsers.h: one line of Matrix Market or of an edge list, parsed.
 *
 * Pure functions of a line's text: no I/O, no MPI, so every rule of the
 * formats (and every message) is in one place.  Each returns 1 when the line
 * holds what was asked for, 0 for a blank or comment line where one may
 * appear, and -1 after recording an error at `line` in *err.  Internal to
 * apps/tc. */
#ifndef RAVEL_TC_LINE_PARSERS_H
#define RAVEL_TC_LINE_PARSERS_H

#include "graph_input.h"
#include "input_error.h"

#include <stddef.h>
#include <stdint.h>

/* What the banner and the size line declare. */
typedef struct {
    ravel_tc_field field;
    ravel_tc_symmetry symmetry;
    uint64_t rows, columns, entries;
    uint64_t size_line; /* where the size line is, for count messages */
} ravel_tc_mm_header;

/* Line 1 of a Matrix Market file (NULL text: the file is empty). */
int ravel_tc_parse_banner(const char *text, uint64_t line,
                          ravel_tc_input_error *err, ravel_tc_mm_header *h);

/* A line after the banner and before the entries: 0 for comments and blank
 * lines, 1 once the size line is read into h (NULL text: end of file). */
int ravel_tc_parse_size_line(const char *text, uint64_t line,
                             ravel_tc_input_error *err, ravel_tc_mm_header *h);

/* An entry: 0-based vertex ids (index - 1, or the index unchanged under
 * RAVEL_TC_INDICES_ZERO_TOLERANT) in *src and *dst. */
int ravel_tc_parse_mm_entry(char *text, uint64_t line,
                            const ravel_tc_mm_header *h,
                            ravel_tc_index_mode indices,
                            ravel_tc_input_error *err, uint64_t *src,
                            uint64_t *dst);

/* Edge-list ids stay below 2^63 - 1 so that the vertex count fits int64_t
 * (and MPI_MAX over MPI_UINT64_T, which MPICH 4.0.2 compares as signed, stays
 * right). */
#define RAVEL_TC_MAX_VERTEX_ID ((uint64_t)INT64_MAX)

/* A line of an edge list: two vertex ids below RAVEL_TC_MAX_VERTEX_ID. */
int ravel_tc_parse_edge_line(char *text, uint64_t line,
                             ravel_tc_input_error *err, uint64_t *src,
                             uint64_t *dst);

#endif
