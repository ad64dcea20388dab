/* Transitive closure as two rules on the engine (see closure.h). */
#include "closure.h"

#include <ravel/error.h>
#include <ravel/timer.h>

#include <stdlib.h>
#include <string.h>

static int declare_program(tc_closure *c)
{
    ravel_engine *e = c->engine;
    int err = ravel_relation_declare(e, "edge", 2, 1, &c->edge);
    if (err == MPI_SUCCESS)
        err = ravel_relation_declare(e, "path", 2, 1, &c->path);
    if (err == MPI_SUCCESS)
        err = ravel_stratum_begin(e);
    if (err != MPI_SUCCESS)
        return err;
    /* path(x,y) :- edge(x,y).  Stored as (y, x). */
    const ravel_term base_head[2] = {ravel_col(0, 1), ravel_col(0, 0)};
    err = ravel_rule_copy(e, c->path, (ravel_body){c->edge, RAVEL_DELTA},
                          base_head, 0, NULL);
    if (err != MPI_SUCCESS)
        return err;
    /* path(x,z) :- path(x,y), edge(y,z).  Left (y, x), right (y, z); the
     * head (z, x).  edge never changes, so its full version is the right
     * side and the new paths the left: that is all of semi-naive here. */
    const ravel_term step_head[2] = {ravel_col(1, 1), ravel_col(0, 1)};
    return ravel_rule_join(e, c->path, (ravel_body){c->path, RAVEL_DELTA},
                           (ravel_body){c->edge, RAVEL_FULL}, step_head, 0,
                           NULL);
}

static void sum_records(tc_closure *c)
{
    size_t n = 0;
    const ravel_iteration_record *r = ravel_engine_records(c->engine, &n);
    /* A resumed run's records start at its snapshot; the counts do not. */
    c->iterations = ravel_engine_iterations(c->engine);
    c->productive_iterations = ravel_engine_productive_iterations(c->engine);
    for (size_t i = 0; i < n; i++) {
        c->comm_seconds += r[i].comm_seconds;
        c->compute_seconds += r[i].compute_seconds;
    }
}

int tc_closure_compute(ravel_tc_graph *graph,
                       const ravel_engine_options *options, MPI_Comm comm,
                       tc_closure *c)
{
    memset(c, 0, sizeof *c);
    double start = ravel_now();
    int err = ravel_engine_create(comm, options, &c->engine);
    if (err != MPI_SUCCESS)
        return err;
    err = declare_program(c);
    if (err == MPI_SUCCESS)
        err = ravel_insert(c->engine, c->edge, graph->edges, graph->nedges);
    free(graph->edges);
    graph->edges = NULL;
    graph->nedges = 0;
    if (err == MPI_SUCCESS)
        err = ravel_run(c->engine);
    if (err == MPI_SUCCESS)
        err = ravel_relation_size(c->engine, c->path, &c->closure_size);
    if (err != MPI_SUCCESS) {
        ravel_engine_free(c->engine);
        c->engine = NULL;
        return err;
    }
    c->seconds = ravel_now() - start;
    c->move_comm_seconds = ravel_engine_move_seconds(c->engine);
    sum_records(c);
    return MPI_SUCCESS;
}
