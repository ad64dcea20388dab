/* closure.h: the transitive-closure program on the relalg engine.
 *
 *     path(x,y) :- edge(x,y).
 *     path(x,z) :- path(x,y), edge(y,z).
 *
 * edge is stored as (x, y) keyed on x; path is stored reversed, as (y, x)
 * keyed on y, so the new paths of an iteration join edge on their key and a
 * derived path(x,z) is sent, as (z, x), to the owner of z: one exchange per
 * iteration carries all of it. */
#ifndef RAVEL_TC_CLOSURE_H
#define RAVEL_TC_CLOSURE_H

#include "graph_input.h"

#include <ravel/relalg.h>

#include <stdint.h>

typedef struct {
    ravel_engine *engine;
    ravel_rel edge; /* (x, y) */
    ravel_rel path; /* (y, x): column 1 is the source, column 0 the target */
    uint64_t closure_size;
    uint64_t iterations;            /* semi-naive iterations run */
    uint64_t productive_iterations; /* those that found new paths */
    double seconds;                 /* the whole evaluation */
    double comm_seconds;            /* sum over iterations of the slowest
                                       rank's exchange time */
    double compute_seconds;         /* the same for local computation */
    double move_comm_seconds;       /* this rank's exchanges outside the
                                       iterations: the edges' placement
                                       (ravel_engine_move_seconds) */
} tc_closure;

/* Builds the program on a new engine, inserts this rank's edges and runs it
 * to its fixed point.  Collective.  The graph's edges are freed once the
 * engine holds its copy (nedges becomes 0; the global counts stay, for
 * the summary): they were a megabyte a rank of ego-Facebook's peak.  On
 * success the caller frees closure->engine with ravel_engine_free. */
int tc_closure_compute(ravel_tc_graph *graph,
                       const ravel_engine_options *options, MPI_Comm comm,
                       tc_closure *closure);

#endif
