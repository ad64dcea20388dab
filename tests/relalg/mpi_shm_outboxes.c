/* The engine packs its streams straight into backend shm's outboxes.
 *
 * A transitive closure runs three times with backend shm and counts
 * discovered: packed into the outboxes (the default), packed into a send
 * array of the engine's (pack_into_outboxes = 0: the backend copies it
 * into the shared window), and into the outboxes with at most 5 words a
 * block and round (most streams then go from a send array in rounds,
 * while a rank whose streams all fit sends from its outboxes in the first
 * round and nothing after).  Every closure must have the size a
 * breadth-first search finds.  The hook reads this process's comm-layer
 * counters after every iteration: the bytes copied
 * (ravel_comm_charge_copy, the engine's and the backend's).  The engine
 * packs and lands the same bytes in the first two runs, so what the run
 * from a send array copies more, summed over ranks, is what the backend
 * copied into the window there: every byte sent (the record's
 * total_bytes) in an iteration where the other run had its outboxes
 * written in place.  The test asks that for most of the bytes sent (the
 * window starts small and grows for the outboxes when they did not fit,
 * so the first large iterations copy in both runs).
 * usage: mpiexec -n P mpi_relalg_shm_outboxes */
#include "ravel/comm.h"
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { V = 600, E = 900, MAX_ITERATIONS = 256 };

static int failures;

static void fail(const char *what)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        fprintf(stderr, "FAIL: %s\n", what);
    failures++;
}

/* Per iteration of the current run: bytes copied on all ranks, and the
 * bytes sent rank to rank. */
static uint64_t copied[MAX_ITERATIONS], sent[MAX_ITERATIONS];
static size_t iterations;

static void hook(const ravel_iteration_record *rec, void *arg)
{
    (void)arg;
    uint64_t mine = ravel_comm_stats_get().copied, all = 0;
    ravel_comm_stats_reset();
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (iterations < MAX_ITERATIONS) {
        copied[iterations] = all;
        sent[iterations] = rec->total_bytes;
    }
    iterations++;
}

/* One closure with backend shm; the per-iteration counters in copied[],
 * sent[] and iterations. */
static void run_closure(const uint64_t (*edges)[2], uint64_t want,
                        int outboxes, uint64_t max_block_elements,
                        const char *what)
{
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = "shm";
    o.discover_counts = 1;
    o.load_balance = 0;
    o.quiet = 1;
    o.pack_into_outboxes = outboxes;
    o.max_block_elements = max_block_elements;
    ravel_rel path;
    ravel_engine *e = closure_engine(&o, edges, E, &path);
    ravel_engine_set_iteration_hook(e, hook, NULL);
    iterations = 0;
    ravel_comm_stats_reset();
    CHECK(ravel_run(e));
    uint64_t got;
    CHECK(ravel_relation_size(e, path, &got));
    if (got != want) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: the closure has %llu paths, a "
                 "breadth-first search finds %llu", what,
                 (unsigned long long)got, (unsigned long long)want);
        fail(msg);
    }
    if (iterations > MAX_ITERATIONS)
        fail("the closure takes more iterations than the test keeps");
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    static uint64_t edges[E][2];
    random_edges(edges, E, V, 0x2545f4914f6cdd1dull);
    uint64_t want = bfs_closure_size((const uint64_t(*)[2])edges, E, V);
    run_closure((const uint64_t(*)[2])edges, want, 1, 0,
                "packed into the outboxes");
    static uint64_t copied_in_place[MAX_ITERATIONS];
    size_t n = iterations < MAX_ITERATIONS ? iterations : MAX_ITERATIONS;
    memcpy(copied_in_place, copied, sizeof copied);

    run_closure((const uint64_t(*)[2])edges, want, 0, 0,
                "packed into a send array");
    if (iterations != n)
        fail("both runs take the same iterations");

    /* What the backend did not copy where the outboxes were in place. */
    uint64_t total = 0, saved = 0;
    for (size_t i = 0; i < n && i < iterations; i++) {
        total += sent[i];
        if (copied[i] > copied_in_place[i])
            saved += copied[i] - copied_in_place[i];
    }
    if (P > 1 && total == 0)
        fail("the exchange carried data");
    if (P > 1 && saved < total / 2) {
        char msg[200];
        snprintf(msg, sizeof msg, "the outboxes in place save the copy of "
                 "most bytes sent: %llu of %llu",
                 (unsigned long long)saved, (unsigned long long)total);
        fail(msg);
    }
    if (rank == 0)
        printf("P=%d: %zu iterations, %llu bytes sent, %llu not copied "
               "with the outboxes in place\n", P, n,
               (unsigned long long)total, (unsigned long long)saved);

    run_closure((const uint64_t(*)[2])edges, want, 1, 5,
                "rounds of 5 words");

    uint64_t held, peak;
    ravel_tuple_memory(&held, &peak);
    if (held != 0)
        fail("no tuple memory is counted once every engine is freed");
    if (rank == 0)
        printf("%s: shm outboxes at P=%d\n", failures ? "FAILED" : "ok", P);
    MPI_Finalize();
    return failures ? 1 : 0;
}
