/* ravel-tc-check: reads and validates a graph the way ravel-tc would, and
 * prints what it found, without computing anything.  Useful to vet a file
 * before a long run, and the command-line face of the reader's tests.
 * Exit status: 0 valid, 1 invalid input (one message, from rank 0), 2 usage. */
#include "default_graph.h"
#include "graph_input.h"

#include "ravel/error.h"
#include "ravel/log.h"
#include "ravel/mpi_start.h"
#include "ravel/options.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char usage[] = "mpiexec -n P ravel-tc-check [options] GRAPH\n"
                            "       mpiexec -n P ravel-tc-check --tree=H";
static const char description[] =
    "Reads a Matrix Market file (.mtx, .mtx.gz) or an edge list in parallel "
    "and checks it: banner, size line, every entry, the entry count.";

typedef struct {
    int help, per_rank;
    const char *symmetric, *indices, *format;
    uint64_t tree;
} check_args;

static int parse_format(const char *text, ravel_tc_format *format)
{
    static const char *const names[] = {"auto", "mtx", "edges"};
    for (size_t i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *format = (ravel_tc_format)i;
            return 0;
        }
    return -1;
}

/* Returns 0, or 2 after printing (rank 0) why the command line is wrong. */
static int parse_args(int argc, char **argv, int rank, check_args *a,
                      ravel_tc_read_options *o, const char **path)
{
    const ravel_option options[] = {
        {"symmetric", RAVEL_OPT_STRING, &a->symmetric, "stored|both",
         "symmetric matrices: entries as stored (default) or both ways"},
        {"indices", RAVEL_OPT_STRING, &a->indices, "strict|zero-tolerant",
         "Matrix Market indices: 1-based (default) or also 0"},
        {"format", RAVEL_OPT_STRING, &a->format, "auto|mtx|edges",
         "input format (default: auto, by name and first line)"},
        {"tree", RAVEL_OPT_U64, &a->tree, "H",
         "check the default graph generated at height H instead of a file"},
        {"per-rank", RAVEL_OPT_FLAG, &a->per_rank, NULL,
         "also print the edges each rank holds"},
        {"help", RAVEL_OPT_FLAG, &a->help, NULL, "print this help"},
    };
    const size_t n = sizeof options / sizeof options[0];
    char err[256];
    int npos = 0;
    if (ravel_options_parse(argc, argv, options, n, &npos, err, sizeof err)) {
        if (rank == 0)
            fprintf(stderr, "ravel-tc-check: %s\n", err);
        return 2;
    }
    if (a->help) {
        if (rank == 0)
            ravel_options_print_help(stdout, usage, description, options, n);
        return 1;
    }
    const char *bad = NULL;
    if (ravel_tc_parse_symmetric_mode(a->symmetric, &o->symmetric))
        bad = "--symmetric expects stored or both";
    else if (ravel_tc_parse_index_mode(a->indices, &o->indices))
        bad = "--indices expects strict or zero-tolerant";
    else if (parse_format(a->format, &o->format))
        bad = "--format expects auto, mtx or edges";
    else if ((npos == 1) == (a->tree != 0))
        bad = "expected one GRAPH file or --tree=H (see --help)";
    if (bad) {
        if (rank == 0)
            fprintf(stderr, "ravel-tc-check: %s\n", bad);
        return 2;
    }
    *path = npos == 1 ? argv[1] : NULL;
    return 0;
}

static void report(const char *path, const ravel_tc_graph *g, int per_rank,
                   int rank, MPI_Comm comm)
{
    if (per_rank) {
        for (int r = 0, P = 0; MPI_Comm_size(comm, &P) == MPI_SUCCESS && r < P;
             r++) {
            if (r == rank)
                fprintf(stderr, "rank %d: %zu edges\n", rank, g->nedges);
            MPI_Barrier(comm);
        }
    }
    if (rank == 0)
        printf("%s: %s%s (%s, %s): %llu vertices, %llu entries, %llu edges\n",
               path, ravel_tc_format_name(g->format),
               g->compressed ? ", gzip" : "", ravel_tc_field_name(g->field),
               ravel_tc_symmetry_name(g->symmetry),
               (unsigned long long)g->vertex_count,
               (unsigned long long)g->entries_read,
               (unsigned long long)g->edges_total);
}

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ravel_log_set_program("ravel-tc-check");

    check_args a = {0, 0, "stored", "strict", "auto", 0};
    ravel_tc_read_options o = {0};
    const char *path = NULL;
    int status = parse_args(argc, argv, rank, &a, &o, &path);
    if (status == 1)
        status = 0; /* --help */
    else if (status == 0) {
        ravel_tc_graph g;
        char name[64];
        int rc;
        if (path) {
            rc = ravel_tc_graph_read(path, &o, MPI_COMM_WORLD, &g);
        } else {
            snprintf(name, sizeof name, "tree of height %llu",
                     (unsigned long long)a.tree);
            path = name;
            rc = a.tree > RAVEL_TC_MAX_HEIGHT
                     ? ravel_error_set(MPI_ERR_ARG,
                                       "--tree: expected a height in 1..%u",
                                       RAVEL_TC_MAX_HEIGHT)
                     : ravel_tc_default_graph((unsigned)a.tree,
                                              MPI_COMM_WORLD, &g);
        }
        if (rc != MPI_SUCCESS) {
            if (rank == 0)
                fprintf(stderr, "ravel-tc-check: %s\n", ravel_error_message());
            status = 1;
        } else {
            report(path, &g, a.per_rank, rank, MPI_COMM_WORLD);
            ravel_tc_graph_free(&g);
        }
    }
    MPI_Finalize();
    return status;
}
