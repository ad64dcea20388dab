/* The engine's promise: one exchange and one allreduce per iteration,
 * nothing else.
 *
 * The collectives ravel calls are counted here through MPI's profiling
 * interface (this file defines them and forwards to PMPI_*), so the count
 * is what the MPI library saw, not what the engine says of itself.  A
 * transitive closure of a chain of CHAIN nodes (CHAIN - 1 productive
 * iterations, every one moving tuples) runs on each backend; the hook,
 * called once per iteration right after the iteration's allreduce, reads
 * and resets the counters.  From the second iteration on (the first also
 * holds the facts' exchange and the stratum's opening agreement) each
 * iteration must have made exactly one allreduce, no other collective, and
 * count exchanges only where a backend needs them: none for the Bruck
 * family learning sizes on the way, one for a direct backend (inside
 * ravel_exchange, or the engine's own on the count-then-alltoallv path).
 * With the load balancer on, the iterations where it looks (its own
 * collectives) must be fewer than one in four.  The closure's size is
 * checked against CHAIN (CHAIN - 1) / 2.
 * usage: mpiexec -n P mpi_relalg_collectives_per_iteration */
#include "ravel/error.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { CHAIN = 48 };

static unsigned long allreduces, alltoalls, others;

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                  MPI_Comm c)
{
    allreduces++;
    return PMPI_Allreduce(s, r, n, t, op, c);
}

int MPI_Iallreduce(const void *s, void *r, int n, MPI_Datatype t,
                   MPI_Op op, MPI_Comm c, MPI_Request *q)
{
    allreduces++;
    return PMPI_Iallreduce(s, r, n, t, op, c, q);
}

int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                 MPI_Datatype rt, MPI_Comm c)
{
    alltoalls++;
    return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}

int MPI_Ialltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, MPI_Comm c, MPI_Request *q)
{
    alltoalls++;
    return PMPI_Ialltoall(s, sn, st, r, rn, rt, c, q);
}

int MPI_Alltoallv(const void *s, const int sc[], const int sd[],
                  MPI_Datatype st, void *r, const int rc[], const int rd[],
                  MPI_Datatype rt, MPI_Comm c)
{
    others++; /* no backend under test calls it */
    return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    others++;
    return PMPI_Bcast(b, n, t, root, c);
}

int MPI_Barrier(MPI_Comm c)
{
    others++;
    return PMPI_Barrier(c);
}

int MPI_Ibarrier(MPI_Comm c, MPI_Request *q)
{
    others++;
    return PMPI_Ibarrier(c, q);
}

int MPI_Gather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
               MPI_Datatype rt, int root, MPI_Comm c)
{
    others++;
    return PMPI_Gather(s, sn, st, r, rn, rt, root, c);
}

int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                  MPI_Datatype rt, MPI_Comm c)
{
    others++;
    return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}

static int failures;
static unsigned long want_alltoalls, balance_looks, iterations;
static int balancing;

static void fail(const char *what, unsigned it, unsigned long got)
{
    fprintf(stderr, "FAIL: %s (iteration %u: %lu)\n", what, it, got);
    failures++;
}

static void hook(const ravel_iteration_record *rec, void *arg)
{
    (void)arg;
    iterations++;
    if (rec->iteration >= 2) {
        /* The balancer's first collective is an allreduce of bucket
         * counts: an iteration with more than one allreduce is one where
         * it looked, and may have moved tuples too. */
        if (balancing && allreduces > 1)
            balance_looks++;
        else if (allreduces != 1)
            fail("one allreduce", rec->iteration, allreduces);
        else if (others != 0)
            fail("no other collective", rec->iteration, others);
        else if (alltoalls != (rec->total_bytes > 0 ? want_alltoalls : 0))
            fail("count exchanges only as the backend needs them",
                 rec->iteration, alltoalls);
    }
    allreduces = alltoalls = others = 0;
}

static void run(const char *backend, int discover, int balance)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    /* The Bruck family learns sizes with the data when discovering; every
     * other case has one count exchange per exchange that moves data. */
    int learns = discover && strstr(backend, "bruck") != NULL;
    want_alltoalls = P > 1 && !learns ? 1 : 0;
    balancing = balance;
    balance_looks = iterations = 0;
    int before = failures;
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = backend;
    o.discover_counts = discover;
    o.load_balance = balance;
    o.balance_min_tuples = 64;
    o.quiet = 1;
    ravel_engine *e;
    ravel_rel edge, path;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    CHECK(ravel_relation_declare(e, "edge", 2, 1, &edge));
    CHECK(ravel_relation_declare(e, "path", 2, 1, &path));
    for (uint64_t i = (uint64_t)rank; i + 1 < CHAIN; i += (uint64_t)P)
        CHECK(ravel_insert(e, edge, (const uint64_t[]){i, i + 1}, 1));
    declare_closure_rules(e, edge, path);
    ravel_engine_set_iteration_hook(e, hook, NULL);
    CHECK(ravel_run(e));
    uint64_t got;
    CHECK(ravel_relation_size(e, path, &got));
    if (got != (uint64_t)CHAIN * (CHAIN - 1) / 2)
        fail("the closure of the chain", 0, (unsigned long)got);
    if (iterations != CHAIN)
        fail("one iteration per path length and one more", 0, iterations);
    /* Looks come when a relation grew by an eighth from at least 64
     * tuples: at most 1 + log(final / 64) / log(9 / 8) per relation. */
    if (balance && balance_looks >= iterations / 2)
        fail("the balancer looks in fewer than half the iterations", 0,
             balance_looks);
    ravel_engine_free(e);
    if (rank == 0)
        printf("%s: %s%s%s, %lu iterations, balancer looked in %lu\n",
               failures > before ? "FAILED" : "ok", backend,
               discover ? "" : " (count then alltoallv)",
               balance ? ", balancing" : "", iterations, balance_looks);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *backends[] = {"inline-bruck", "two-phase-bruck",
                              "radix-bruck:3", "spread-out", "pairwise"};
    for (size_t b = 0; b < sizeof backends / sizeof *backends; b++) {
        run(backends[b], 1, 0);
        run(backends[b], 0, 0);
    }
    run("inline-bruck", 1, 1);
    int all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return all != 0;
}
