/* input_error.h: the graph reader's errors, found on one rank, known by all.
 *
 * Each rank records the first error it meets (later ones follow from it).
 * A line number may be local to the rank's byte range until the ranks have
 * counted the lines before them.  ravel_tc_input_error_agree then makes all
 * ranks report the same error: the one at the earliest line, as a
 * sequential reader would.  Internal to apps/tc. */
#ifndef RAVEL_TC_INPUT_ERROR_H
#define RAVEL_TC_INPUT_ERROR_H

#include "ravel/quote.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Long enough for any message below plus a path; ravel/error.h keeps 1024. */
#define RAVEL_TC_ERROR_TEXT 768

/* Longest piece of input quoted in a message before it is cut with "...". */
#define RAVEL_TC_QUOTE_MAX 40
#define RAVEL_TC_QUOTE_ROOM RAVEL_QUOTE_ROOM(RAVEL_TC_QUOTE_MAX)

typedef struct {
    int code;      /* MPI_SUCCESS while no error was found */
    uint64_t line; /* 1-based line at fault, 0 when none */
    char text[RAVEL_TC_ERROR_TEXT]; /* what was expected and what was found */
} ravel_tc_input_error;

/* Records an error at `line` (0: none) unless one is already recorded;
 * returns the code recorded, for `return ravel_tc_input_error_at(...)`. */
int ravel_tc_input_error_at(ravel_tc_input_error *err, int code, uint64_t line,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Writes the first n bytes of s into out as 's' (cut to RAVEL_TC_QUOTE_MAX
 * bytes with "..." when longer; "end of line" when empty), bytes outside
 * printable ASCII escaped (ravel_quote).  Returns out; out needs
 * RAVEL_TC_QUOTE_ROOM bytes. */
const char *ravel_tc_quote(const char *s, size_t n, char *out, size_t outlen);

/* Collective: every rank gets the earliest error of any rank, as the return
 * value (MPI_SUCCESS when none) and as ravel_error_message() in the form
 * "path:line: text" (or "path: text").  err->code and err->line become the
 * agreed ones (err->text stays this rank's). */
int ravel_tc_input_error_agree(ravel_tc_input_error *err, const char *path,
                               MPI_Comm comm);

#endif
