/* ravel-tc: the transitive closure of a graph on the relalg engine.
 *
 *     mpiexec -n P ravel-tc [options] [GRAPH]
 *
 * GRAPH is a Matrix Market file (.mtx or .mtx.gz) or an edge list; without
 * it ravel-tc runs on its embedded default graph (default_graph.h).  Every
 * error is reported once, by rank 0, and every rank exits non-zero. */
#include "closure.h"
#include "engine_cli.h"
#include "default_graph.h"
#include "graph_input.h"
#include "summary.h"
#include "write_closure.h"

#include <ravel/comm.h>
#include <ravel/error.h>
#include <ravel/log.h>
#include <ravel/mpi_start.h>
#include <ravel/options.h>
#include <ravel/relalg.h>
#include <ravel/timer.h>

#include <stdio.h>
#include <string.h>

typedef struct {
    engine_cli engine;
    const char *output;
    const char *output_mode;
    const char *symmetric;
    const char *indices;
    int height;
    int json, help;
} tc_options;

static const char usage[] = "mpiexec -n P ravel-tc [options] [GRAPH]";

static const char description[] =
    "Computes the transitive closure of GRAPH with the rules\n"
    "    path(x,y) :- edge(x,y).\n"
    "    path(x,z) :- path(x,y), edge(y,z).\n"
    "on ravel's relational-algebra engine, one all-to-all exchange per\n"
    "iteration.  GRAPH is a Matrix Market file (coordinate; .mtx, or gzipped\n"
    ".mtx.gz) or an edge list (two ids per line, '#' or '%' comments).\n"
    "Without GRAPH, the embedded default: a complete binary tree of height 19\n"
    "with a loop on every leaf (19,398,658 paths, 19 iterations).";

/* Checks the option values every rank has; returns 0 or an exit status. */
static int check_options(const tc_options *o, ravel_tc_read_options *read,
                         tc_write_mode *mode)
{
    int status = engine_cli_check(&o->engine);
    if (status)
        return status;
    if (ravel_tc_parse_symmetric_mode(o->symmetric, &read->symmetric))
        return ravel_report(2, "--symmetric=%s: expected 'stored' or 'both'",
                    o->symmetric);
    if (ravel_tc_parse_index_mode(o->indices, &read->indices))
        return ravel_report(2, "--indices=%s: expected 'strict' or "
                    "'zero-tolerant'", o->indices);
    if (strcmp(o->output_mode, "parallel") == 0)
        *mode = TC_WRITE_PARALLEL;
    else if (strcmp(o->output_mode, "gather") == 0)
        *mode = TC_WRITE_GATHER;
    else
        return ravel_report(2, "--output-mode=%s: expected 'parallel' or "
                    "'gather'", o->output_mode);
    if (o->height < 1 || o->height > (int)RAVEL_TC_MAX_HEIGHT)
        return ravel_report(2, "--height=%d: expected 1..%u", o->height,
                    RAVEL_TC_MAX_HEIGHT);
    return 0;
}

static int run(const tc_options *o, const char *graph_path,
               const ravel_tc_read_options *read, tc_write_mode mode, int P)
{
    ravel_tc_graph graph = {0};
    char default_name[96];
    double start = ravel_now();
    int err;
    if (graph_path) {
        err = ravel_tc_graph_read(graph_path, read, MPI_COMM_WORLD, &graph);
    } else {
        snprintf(default_name, sizeof default_name,
                 "default (binary tree of height %d, leaf loops)", o->height);
        err = ravel_tc_default_graph((unsigned)o->height, MPI_COMM_WORLD,
                                     &graph);
    }
    if (err != MPI_SUCCESS)
        return ravel_report(1, "%s", ravel_error_message());
    double read_seconds = ravel_now() - start;

    ravel_engine_options eo;
    ravel_engine_options_init(&eo);
    engine_cli_apply(&o->engine, &eo);
    tc_closure closure;
    err = tc_closure_compute(&graph, &eo, MPI_COMM_WORLD, &closure);
    if (err != MPI_SUCCESS) {
        ravel_tc_graph_free(&graph);
        return ravel_report(1, "%s", ravel_error_message());
    }
    if (o->output) {
        size_t n = 0;
        const uint64_t *pairs = NULL;
        int local = ravel_relation_local(closure.engine, closure.path, &pairs,
                                         &n);
        /* All ranks write together, or none does. */
        int failed = local != MPI_SUCCESS, any_failed = 0;
        err = ravel_comm_allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX,
                                   MPI_COMM_WORLD);
        if (err == MPI_SUCCESS && any_failed)
            err = local != MPI_SUCCESS
                      ? local
                      : ravel_error_set(MPI_ERR_OTHER, "another rank could "
                                        "not read its share of the closure");
        /* Matrix Market numbers vertices from 1 unless read zero-tolerant. */
        uint64_t offset = graph.format == RAVEL_TC_FORMAT_MATRIX_MARKET &&
                                  read->indices == RAVEL_TC_INDICES_STRICT
                              ? 1
                              : 0;
        if (err == MPI_SUCCESS)
            err = tc_write_closure(o->output, mode, pairs, n, offset,
                                   MPI_COMM_WORLD);
    }
    tc_summary summary = {graph_path ? graph_path : default_name,
                          o->engine.comm, P,
                          &graph, &closure, read_seconds};
    if (err == MPI_SUCCESS)
        tc_summary_print(&summary, o->json, stdout, MPI_COMM_WORLD);
    ravel_engine_free(closure.engine);
    ravel_tc_graph_free(&graph);
    if (err != MPI_SUCCESS)
        return ravel_report(1, "%s", ravel_error_message());
    return 0;
}

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_log_set_program("ravel-tc");
    tc_options o = {0};
    engine_cli_init(&o.engine);
    o.output_mode = "parallel";
    o.symmetric = "stored";
    o.indices = "strict";
    o.height = (int)RAVEL_TC_DEFAULT_HEIGHT;
    ravel_option options[32];
    size_t noptions = engine_cli_options(
        &o.engine, "write the per-iteration log (N, bytes, comm and compute "
        "time)", options);
    const ravel_option own[] = {
        {"output", RAVEL_OPT_STRING, &o.output, "FILE",
         "write the closure as a tab-separated edge list"},
        {"output-mode", RAVEL_OPT_STRING, &o.output_mode, "MODE",
         "parallel (every rank writes its part, MPI-IO; default) or gather "
         "(rank 0 writes)"},
        {"symmetric", RAVEL_OPT_STRING, &o.symmetric, "MODE",
         "symmetric matrices: 'stored' entries only (default, what "
         "published closure sizes count) or 'both' directions"},
        {"indices", RAVEL_OPT_STRING, &o.indices, "MODE",
         "Matrix Market indices: 'strict' 1-based (default) or "
         "'zero-tolerant' (files with index 0; ids kept as written)"},
        {"height", RAVEL_OPT_INT, &o.height, "H",
         "height of the default binary tree (1..40; default 19)"},
        {"json", RAVEL_OPT_FLAG, &o.json, NULL,
         "print the summary as one JSON object"},
        {"help", RAVEL_OPT_FLAG, &o.help, NULL, "print this help and exit"},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        options[noptions++] = own[i];
    char err[512];
    int npos = 0, status = 0;
    if (ravel_options_parse(argc, argv, options, noptions, &npos, err,
                            sizeof err)) {
        status = ravel_report(2, "%s", err);
    } else if (o.help) {
        if (rank == 0)
            ravel_options_print_help(stdout, usage, description, options,
                                     noptions);
    } else if (npos > 1) {
        status = ravel_report(2, "expected at most one GRAPH, got '%s' and "
                      "'%s'", argv[1], argv[2]);
    } else {
        ravel_tc_read_options read = {0};
        tc_write_mode mode = TC_WRITE_PARALLEL;
        status = check_options(&o, &read, &mode);
        if (status == 0)
            status = run(&o, npos ? argv[1] : NULL, &read, mode, P);
    }
    MPI_Finalize();
    return status;
}
