/* write_closure.h: the closure as a tab-separated edge list, "src\tdst\n".
 *
 * Two ways, the user's choice:
 *  - parallel: every rank writes its own paths into one shared file with
 *    MPI-IO, at an offset given by an exclusive scan of the ranks' byte
 *    counts: no rank holds more than its own share;
 *  - gather: rank 0 writes the file with stdio and the other ranks send it
 *    their text, rank by rank, in chunks of 4 MiB.
 * Lines are in no particular order.  Collective: on failure every rank
 * returns the same error code with the message set (ravel/error.h). */
#ifndef RAVEL_TC_WRITE_CLOSURE_H
#define RAVEL_TC_WRITE_CLOSURE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { TC_WRITE_PARALLEL = 0, TC_WRITE_GATHER = 1 } tc_write_mode;

/* Writes the n pairs of `pairs` held by this rank, each stored as (dst, src)
 * (the engine's path order), adding `id_offset` to every id (1 turns the
 * engine's 0-based ids back into Matrix Market's 1-based indices). */
int tc_write_closure(const char *path, tc_write_mode mode,
                     const uint64_t *pairs, size_t n, uint64_t id_offset,
                     MPI_Comm comm);

#endif
