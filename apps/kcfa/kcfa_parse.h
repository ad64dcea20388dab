/* kcfa_parse.h: reading a program's text into a ravel_kcfa_program.
 *
 * Grammar: (program C), C ::= (app A A A), A ::= (lam X Y C) | (ref X).
 * A name is a symbol (a run of bytes other than white space, parentheses,
 * '"' and ';') or a double-quoted string in which \" and \\ stand for '"'
 * and '\'; a name is never empty and never contains a NUL byte.  ';' starts
 * a comment that runs to the end of the line.  Form names (program, app,
 * lam, ref) are only keywords in the head position: (ref lam) is legal.
 *
 * The parser keeps its own stack of open forms instead of recursing, so
 * nesting depth is limited only by memory.  Nodes and names go into growing
 * arrays, never one allocation per node. */
#ifndef RAVEL_KCFA_PARSE_H
#define RAVEL_KCFA_PARSE_H

#include <stddef.h>

#include "kcfa_program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where and why a parse failed.  line and column are 1-based; the column
 * counts bytes, so a tab counts as one.  line is 0 when the failure has no
 * position (the file could not be read, memory ran out). */
typedef struct {
    size_t line;
    size_t column;
    char message[256]; /* without the position, e.g. "unknown form 'lamb'" */
} ravel_kcfa_parse_error;

/* Parses text[0..len) (which may contain NUL bytes: they are errors outside
 * strings and inside them) into *out.  `file` names the input in messages.
 * Returns MPI_SUCCESS, or an MPI error class (MPI_ERR_OTHER for bad input,
 * MPI_ERR_NO_MEM) after recording "FILE:LINE:COLUMN: message" with
 * ravel_error_set and, when err is not NULL, filling *err.  On failure *out
 * is left zeroed. */
int ravel_kcfa_parse_text(const char *text, size_t len, const char *file,
                          ravel_kcfa_program *out,
                          ravel_kcfa_parse_error *err);

/* Reads the file at `path` and parses it as above (MPI_ERR_FILE when it
 * cannot be read). */
int ravel_kcfa_parse_file(const char *path, ravel_kcfa_program *out,
                          ravel_kcfa_parse_error *err);

#ifdef __cplusplus
}
#endif
#endif
