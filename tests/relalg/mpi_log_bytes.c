/* The iteration log against what the exchange actually carried.
 *
 * A transitive closure runs with the vendor and spread-out backends (both
 * count exactly the bytes each rank sends to each other rank, ravel/comm.h)
 * and load balancing off, each with the engine's count exchange and with
 * counts discovered (ravel_exchange, whose count exchange inside a direct
 * backend's call is counted as metadata and left out).  After every iteration the hook reads this
 * process's comm-layer counters: their sum over ranks must equal the
 * record's total_bytes; the record's N (largest block one rank sent to
 * another) must lie between a rank's bytes / (P - 1) and its bytes, and
 * equal the largest rank's bytes at P = 2, where each rank has one peer.
 * The CSV written by rank 0 must hold the same records.  Also checks the
 * closure size against a breadth-first search done here.  Every iteration
 * that moved bytes names the backend that moved them (the fixed one; with
 * auto, one of the others), a positive predicted time and a measured time
 * within the exchange's; bytes are not compared for auto, whose choice may
 * pad.  A fixed backend's predicted time with counts discovered must be its
 * time with the count exchange first plus the count exchange its call then
 * makes (both direct backends need every receive count): the model's
 * ravel_cost_predict_exchange less ravel_cost_predict, which depends on P
 * alone.  The facts' placement, outside every record, has a time of its
 * own (ravel_engine_move_seconds), within the run's.
 * usage: mpiexec -n P mpi_relalg_log_bytes */
#include "ravel/comm.h"
#include "ravel/cost_model.h"
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *what, unsigned it)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "FAIL: %s (iteration %u)\n", what, it);
    failures++;
}

/* Per fixed backend (vendor, spread-out) and iteration, the predicted time
 * with the engine's count exchange; then compared in the discovering run. */
enum { MAX_ITERATIONS = 64 };
static double predicted_counts_first[2][MAX_ITERATIONS];

/* The count exchange ravel_exchange_run makes before a direct backend, as
 * the model predicts it (all ranks of these tests share one node). */
static double count_exchange_seconds(const char *backend, int P)
{
    const ravel_cost_params *model;
    if (ravel_comm_model(&model, NULL) != MPI_SUCCESS)
        return -1.0;
    ravel_cost_params m = *model;
    m.ranks_per_node = P;
    ravel_call_stats s;
    memset(&s, 0, sizeof s);
    s.P = P;
    return ravel_cost_predict_exchange(backend, &m, &s) -
           ravel_cost_predict(backend, &m, &s);
}

static void check_predictions(const ravel_engine *e, int b,
                              const char *backend, int discover)
{
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    size_t n;
    const ravel_iteration_record *rec = ravel_engine_records(e, &n);
    double counts = count_exchange_seconds(backend, P);
    if (P > 1 && !(counts > 0.0))
        fail("the model charges a direct backend a count exchange", 0);
    for (size_t i = 0; i < n && i < MAX_ITERATIONS; i++) {
        if (!discover) {
            predicted_counts_first[b][i] = rec[i].predicted_seconds;
            continue;
        }
        if (rec[i].total_bytes == 0)
            continue;
        double want = predicted_counts_first[b][i] + counts;
        double diff = rec[i].predicted_seconds - want;
        if (diff > 1e-9 * want || diff < -1e-9 * want)
            fail("with counts discovered, the prediction counts the count "
                 "exchange of a direct backend's call",
                 rec[i].iteration);
    }
}

/* The backend the records must name: fixed, or NULL for auto. */
static const char *expected_backend;

static void check_backend(const ravel_iteration_record *rec)
{
    const char *name = rec->backend >= 0
                           ? ravel_alltoallv_name((size_t)rec->backend)
                           : NULL;
    if (rec->total_bytes == 0)
        return;
    if (!name || strcmp(name, "auto") == 0 ||
        (expected_backend && strcmp(name, expected_backend) != 0))
        fail("the record names the backend that moved the bytes",
             rec->iteration);
    if (!(rec->predicted_seconds > 0.0))
        fail("the record has a positive predicted time", rec->iteration);
    if (!(rec->backend_seconds > 0.0) ||
        rec->backend_seconds > rec->comm_seconds)
        fail("the backend's time lies within the exchange's",
             rec->iteration);
}

static void hook(const ravel_iteration_record *rec, void *arg)
{
    (void)arg;
    check_backend(rec);
    if (!expected_backend) {
        ravel_comm_stats_reset();
        return;
    }
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    /* Data only: with --exchange=discover a direct backend's call also
     * carries the count exchange, counted as metadata. */
    ravel_comm_stats st = ravel_comm_stats_get();
    uint64_t mine = st.bytes - st.metadata_bytes, sum = 0, max = 0;
    ravel_comm_stats_reset();
    MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &max, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (sum != rec->total_bytes)
        fail("total_bytes equals the bytes the backend sent", rec->iteration);
    if (rec->max_block_bytes > max ||
        rec->max_block_bytes * (uint64_t)(P - 1) < max)
        fail("N lies between a rank's bytes / (P-1) and its bytes",
             rec->iteration);
    if (P == 2 && rec->max_block_bytes != max)
        fail("N equals the largest rank's bytes at P = 2", rec->iteration);
}

enum { V = 300, E = 420 };

static void check_csv(const char *path, const ravel_engine *e)
{
    size_t n;
    const ravel_iteration_record *rec = ravel_engine_records(e, &n);
    FILE *f = fopen(path, "r");
    char line[512];
    size_t rows = 0;
    int bad = !f || !fgets(line, sizeof line, f) ||
              strncmp(line, "stratum,iteration,max_block_bytes", 33) != 0;
    while (!bad && fgets(line, sizeof line, f)) {
        unsigned s, it;
        unsigned long long nb, tb, bb, nt, tt;
        double cs, ps;
        char backend[32];
        const char *want_backend =
            rows < n && rec[rows].backend >= 0
                ? ravel_alltoallv_name((size_t)rec[rows].backend)
                : "none";
        if (sscanf(line, "%u,%u,%llu,%llu,%llu,%lf,%lf,%llu,%llu,%31[^,]", &s,
                   &it, &nb, &tb, &bb, &cs, &ps, &nt, &tt, backend) != 10 ||
            rows >= n || strcmp(backend, want_backend) != 0 ||
            s != rec[rows].stratum || it != rec[rows].iteration ||
            nb != rec[rows].max_block_bytes || tb != rec[rows].total_bytes ||
            nt != rec[rows].new_tuples || tt != rec[rows].total_tuples)
            bad = 1;
        rows++;
    }
    if (f)
        fclose(f);
    if (bad || rows != n)
        fail("the CSV holds the records", 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    static uint64_t edges[E][2];
    random_edges(edges, E, V, 88172645463325252ull);
    uint64_t want = bfs_closure_size((const uint64_t(*)[2])edges, E, V);
    const char *backends[] = {"vendor", "spread-out", "auto"};
    char csv[64];
    snprintf(csv, sizeof csv, "relalg_log_bytes.%d.csv", P);
    /* Each backend with the count exchange, then discovering the counts
     * (ravel_exchange). */
    for (int run = 0; run < 6; run++) {
        int b = run % 3;
        ravel_engine_options o;
        ravel_engine_options_init(&o);
        o.comm_backend = backends[b];
        o.discover_counts = run >= 3;
        expected_backend = strcmp(backends[b], "auto") ? backends[b] : NULL;
        o.load_balance = 0;
        o.quiet = 1;
        o.log_path = csv;
        ravel_rel path;
        ravel_engine *e =
            closure_engine(&o, (const uint64_t(*)[2])edges, E, &path);
        ravel_engine_set_iteration_hook(e, hook, NULL);
        ravel_comm_stats_reset();
        double t0 = MPI_Wtime();
        CHECK(ravel_run(e));
        double wall = MPI_Wtime() - t0;
        uint64_t got;
        CHECK(ravel_relation_size(e, path, &got));
        if (got != want)
            fail("the closure has the size a breadth-first search finds", 0);
        size_t n;
        const ravel_iteration_record *rec = ravel_engine_records(e, &n);
        uint64_t moved = 0;
        for (size_t i = 0; i < n; i++)
            moved += rec[i].total_bytes;
        if (P > 1 && moved == 0)
            fail("the exchange carried data", 0);
        /* The edges' placement is an exchange no record counts: timed on
         * its own, within this rank's run.  (Not added to the records'
         * times: theirs are the slowest rank's per iteration.) */
        double moves = ravel_engine_move_seconds(e);
        if (!(moves > 0.0))
            fail("the facts' placement is timed", 0);
        if (!(moves <= wall))
            fail("the placement lies within the run", 0);
        if (b < 2)
            check_predictions(e, b, backends[b], o.discover_counts);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            check_csv(csv, e);
        MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
        ravel_engine_free(e);
    }
    if (rank == 0) {
        remove(csv);
        printf("%s: log bytes at P=%d\n", failures ? "FAILED" : "ok", P);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
