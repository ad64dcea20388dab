/* Transitive closure through the relalg engine: the benchmark of issue 5.
 *
 * path(x,z) :- path(x,y), edge(y,z), with path stored as (y,x) keyed on y, so
 * that the delta joins edge on y and each new path (z,x) goes to the owner of
 * z.  The graph is generated (a random graph with a few million paths in its
 * closure) or read from a Matrix Market file by a tiny local reader (every
 * rank reads it and inserts its share of the edges).  Prints the closure
 * size, time, tuples per second and peak memory per tuple.
 * usage: mpiexec -n P relalg-tc-bench [--mtx=FILE] [--vertices=N]
 *        [--edges=M] [--comm=NAME] [--no-balance] [--log=FILE] [--quiet] */
#include "ravel/error.h"
#include "ravel/memory.h"
#include "ravel/options.h"
#include "ravel/relalg.h"
#include "ravel/timer.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inserts this rank's share (every P-th edge) of a .mtx file's edges. */
static int read_mtx(ravel_engine *e, ravel_rel edge, const char *path,
                    int rank, int size, uint64_t *nedges)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    char line[256];
    int header = 1;
    uint64_t k = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '%')
            continue;
        if (header) { /* rows cols entries */
            header = 0;
            continue;
        }
        unsigned long long a, b;
        if (sscanf(line, "%llu %llu", &a, &b) != 2) {
            fprintf(stderr, "%s: bad line '%s'\n", path, line);
            fclose(f);
            return -1;
        }
        if ((int)(k++ % (uint64_t)size) == rank) {
            uint64_t t[2] = {a, b};
            if (ravel_insert(e, edge, t, 1) != MPI_SUCCESS) {
                fclose(f);
                return -1;
            }
        }
    }
    fclose(f);
    *nedges = k;
    return 0;
}

static void generate(ravel_engine *e, ravel_rel edge, uint64_t n, uint64_t m,
                     int rank, int size)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (uint64_t k = 0; k < m; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        uint64_t t[2] = {(s >> 8) % n, (s >> 36) % n};
        if ((int)(k % (uint64_t)size) == rank)
            ravel_insert(e, edge, t, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mtx = NULL, *comm = "vendor", *log = NULL, *model = NULL;
    uint64_t vertices = 3000, edges = 4500;
    int no_balance = 0, quiet = 0, help = 0, npos = 0;
    ravel_option opts[] = {
        {"mtx", RAVEL_OPT_STRING, &mtx, "FILE", "read the graph from FILE"},
        {"vertices", RAVEL_OPT_U64, &vertices, "N", "generated graph: N vertices (3000)"},
        {"edges", RAVEL_OPT_U64, &edges, "M", "generated graph: M edges (4500)"},
        {"comm", RAVEL_OPT_STRING, &comm, "NAME", "alltoallv backend (vendor)"},
        {"model", RAVEL_OPT_STRING, &model, "FILE", "cost model (ravel-calibrate)"},
        {"no-balance", RAVEL_OPT_FLAG, &no_balance, NULL, "disable load balancing"},
        {"log", RAVEL_OPT_STRING, &log, "FILE", "per-iteration CSV"},
        {"quiet", RAVEL_OPT_FLAG, &quiet, NULL, "no progress lines"},
        {"help", RAVEL_OPT_FLAG, &help, NULL, "this help"},
    };
    size_t nopts = sizeof opts / sizeof opts[0];
    char err[256];
    if (ravel_options_parse(argc, argv, opts, nopts, &npos, err, sizeof err) ||
        help || npos || vertices == 0) {
        if (rank == 0) {
            if (!help)
                fprintf(stderr, "%s\n", npos ? "no positional arguments" : err);
            ravel_options_print_help(stderr, "relalg-tc-bench [options]",
                                     "Transitive closure with the relalg engine.",
                                     opts, nopts);
        }
        MPI_Finalize();
        return help ? 0 : 2;
    }
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = comm;
    o.model_path = model;
    o.load_balance = !no_balance;
    o.log_path = log;
    o.quiet = quiet;
    ravel_engine *e;
    ravel_rel edge, path;
    if (ravel_engine_create(MPI_COMM_WORLD, &o, &e) != MPI_SUCCESS ||
        ravel_relation_declare(e, "edge", 2, 1, &edge) != MPI_SUCCESS ||
        ravel_relation_declare(e, "path", 2, 1, &path) != MPI_SUCCESS) {
        fprintf(stderr, "%s\n", ravel_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t nedges = edges;
    int bad = 0, anybad = 0;
    if (mtx)
        bad = read_mtx(e, edge, mtx, rank, size, &nedges) != 0;
    else
        generate(e, edge, vertices, edges, rank, size);
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        ravel_engine_free(e);
        MPI_Finalize();
        return 1;
    }
    /* path(y,x) :- edge(x,y).   path(z,x) :- path(y,x), edge(y,z). */
    ravel_term base[2] = {ravel_col(0, 1), ravel_col(0, 0)};
    ravel_term step[2] = {ravel_col(1, 1), ravel_col(0, 1)};
    ravel_body ed = {edge, RAVEL_DELTA}, ef = {edge, RAVEL_FULL};
    ravel_body pd = {path, RAVEL_DELTA};
    double t0 = 0, t1 = 0;
    uint64_t npaths = 0;
    if (ravel_rule_copy(e, path, ed, base, 0, NULL) != MPI_SUCCESS ||
        ravel_rule_join(e, path, pd, ef, step, 0, NULL) != MPI_SUCCESS ||
        ravel_flush(e) != MPI_SUCCESS) {
        fprintf(stderr, "%s\n", ravel_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = ravel_now();
    if (ravel_run(e) != MPI_SUCCESS) {
        fprintf(stderr, "%s\n", ravel_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    t1 = ravel_now();
    ravel_relation_size(e, path, &npaths);
    uint64_t rss = ravel_peak_rss_bytes(), rss_sum = 0;
    MPI_Reduce(&rss, &rss_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double s = t1 - t0;
        printf("tc: P=%d comm=%s balance=%s graph=%s edges=%" PRIu64
               " paths=%" PRIu64 " iterations=%" PRIu64 " time=%.3f s "
               "tuples/s=%.3g peak_rss_sum=%.1f MB bytes/path=%.1f\n",
               size, comm, no_balance ? "off" : "on", mtx ? mtx : "generated",
               nedges, npaths, ravel_engine_iterations(e), s,
               s > 0 ? (double)npaths / s : 0.0, (double)rss_sum / 1e6,
               npaths ? (double)rss_sum / (double)npaths : 0.0);
    }
    ravel_engine_free(e);
    MPI_Finalize();
    return 0;
}
