/* Placement of tuples, checked against the documented formula and against
 * sets kept by the test.
 *
 *  1. Unsplit: after a flush every tuple sits on rank
 *     (ravel_hash_columns(key, k, seed) % buckets) % P, computed here from
 *     the formula, whichever rank inserted it (facts are inserted by
 *     rotating ranks, with duplicates across ranks), on MPI_COMM_WORLD and on
 *     a communicator with the ranks in reverse order; the union over ranks is
 *     exactly the distinct facts: nothing lost, nothing duplicated.
 *  2. Splits: a relation whose tuples nearly all share one key is split by
 *     the load balancer; the heavy bucket then has P sub-buckets, its tuples
 *     sit on several ranks, each tuple once, and a join reading the split
 *     relation (through a replica) gives the same result as a nested-loop
 *     join computed here, with balancing on and off.
 * usage: mpiexec -n P mpi_relalg_placement */
#include "ravel/error.h"
#include "ravel/hash.h"
#include "ravel/relalg.h"
#include "relalg_test_util.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(int ok, const char *what)
{
    int all = 0, mine = !ok;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (all) {
        failures++;
        if (rank == 0)
            fprintf(stderr, "FAIL: %s (on %d ranks)\n", what, all);
    }
}

static int cmp3(const void *a, const void *b)
{
    return memcmp(a, b, 3 * sizeof(uint64_t)) < 0   ? -1
           : memcmp(a, b, 3 * sizeof(uint64_t)) > 0 ? 1
                                                    : 0;
}

static int cmp_tuple2(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* All ranks' tuples of r (arity words), sorted, on every rank. */
static uint64_t *gather_all(ravel_engine *e, ravel_rel r, unsigned arity,
                            MPI_Comm comm, size_t *n)
{
    int P;
    MPI_Comm_size(comm, &P);
    size_t nl;
    const uint64_t *t;
    CHECK(ravel_relation_local(e, r, &t, &nl));
    int cnt = (int)(nl * arity), *counts = malloc((size_t)P * sizeof(int));
    int *displs = malloc((size_t)P * sizeof(int)), total = 0;
    MPI_Allgather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, comm);
    for (int i = 0; i < P; i++) {
        displs[i] = total;
        total += counts[i];
    }
    uint64_t *all = malloc((size_t)total * sizeof *all + 8);
    MPI_Allgatherv(t, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T,
                   comm);
    free(counts);
    free(displs);
    *n = (size_t)total / arity;
    return all;
}

static void check_unsplit(MPI_Comm comm, const char *label)
{
    int rank, P;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &P);
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.buckets = 37;
    o.seed = 12345;
    o.quiet = 1;
    ravel_engine *e;
    ravel_rel r;
    CHECK(ravel_engine_create(comm, &o, &e));
    CHECK(ravel_relation_declare(e, "r", 3, 2, &r));
    enum { N = 600 };
    static uint64_t facts[N][3];
    for (int i = 0; i < N; i++) {
        facts[i][0] = (uint64_t)(i % 50);
        facts[i][1] = (uint64_t)(i % 7) * 1000003u;
        facts[i][2] = (uint64_t)(i % 13);
        /* Each fact by two ranks (duplicates must collapse). */
        if (i % P == rank || (i + 1) % P == rank)
            CHECK(ravel_insert(e, r, facts[i], 1));
    }
    CHECK(ravel_flush(e));
    size_t nl;
    const uint64_t *t;
    CHECK(ravel_relation_local(e, r, &t, &nl));
    int misplaced = 0;
    for (size_t i = 0; i < nl; i++) {
        uint64_t b = ravel_hash_columns(t + 3 * i, 2, o.seed) % o.buckets;
        if ((int)(b % (uint64_t)P) != rank ||
            ravel_relation_owner(e, r, t + 3 * i) != rank)
            misplaced++;
    }
    char what[128];
    snprintf(what, sizeof what, "%s: tuples on the rank the formula names",
             label);
    expect(misplaced == 0, what);
    size_t n;
    uint64_t *all = gather_all(e, r, 3, comm, &n);
    qsort(all, n, 3 * sizeof *all, cmp3);
    qsort(facts, N, sizeof facts[0], cmp3);
    size_t distinct = 0;
    for (int i = 0; i < N; i++)
        if (i == 0 || cmp3(facts[i - 1], facts[i]) != 0)
            memmove(facts[distinct++], facts[i], sizeof facts[0]);
    snprintf(what, sizeof what, "%s: every fact exactly once", label);
    expect(n == distinct && memcmp(all, facts, n * sizeof facts[0]) == 0,
           what);
    free(all);
    ravel_engine_free(e);
}

static void check_split(int balance)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.load_balance = balance;
    o.balance_min_tuples = 100;
    o.balance_factor = 2.0;
    o.buckets = 16;
    o.quiet = 1;
    ravel_engine *e;
    ravel_rel skew, copy, side, out;
    CHECK(ravel_engine_create(MPI_COMM_WORLD, &o, &e));
    CHECK(ravel_relation_declare(e, "skew", 2, 1, &skew));
    CHECK(ravel_relation_declare(e, "copy", 2, 1, &copy));
    CHECK(ravel_relation_declare(e, "side", 2, 1, &side));
    CHECK(ravel_relation_declare(e, "out", 2, 1, &out));
    enum { NS = 3000, NSIDE = 40 };
    static uint64_t s[NS][2], d[NSIDE][2];
    for (int i = 0; i < NS; i++) {
        s[i][0] = i % 10 == 0 ? (uint64_t)(i % 37) : 0; /* key 0 is heavy */
        s[i][1] = (uint64_t)i;
    }
    for (int i = 0; i < NSIDE; i++) {
        d[i][0] = (uint64_t)(i % 5);
        d[i][1] = (uint64_t)(100000 + i);
    }
    if (rank == 0) {
        CHECK(ravel_insert(e, skew, s[0], NS));
        CHECK(ravel_insert(e, side, d[0], NSIDE));
    }
    ravel_body sb = {skew, RAVEL_DELTA};
    ravel_term same[2] = {ravel_col(0, 0), ravel_col(0, 1)};
    CHECK(ravel_rule_copy(e, copy, sb, same, 0, NULL));
    /* out(y, z) :- copy(x, y), side(x, z), in a later stratum. */
    CHECK(ravel_stratum_begin(e));
    ravel_body cf = {copy, RAVEL_FULL}, df = {side, RAVEL_FULL};
    ravel_term yz[2] = {ravel_col(0, 1), ravel_col(1, 1)};
    CHECK(ravel_rule_join(e, out, cf, df, yz, 0, NULL));
    CHECK(ravel_run(e));

    uint64_t key0 = 0;
    uint64_t b0 = ravel_hash_columns(&key0, 1, o.seed) % o.buckets;
    if (balance && P > 1)
        expect(ravel_relation_sub_buckets(e, copy, b0) == (uint32_t)P,
               "the heavy bucket is split into P sub-buckets");
    if (!balance)
        expect(ravel_relation_sub_buckets(e, copy, b0) == 1,
               "no split without balancing");
    size_t nl;
    const uint64_t *t;
    CHECK(ravel_relation_local(e, copy, &t, &nl));
    int misplaced = 0, has_key0 = 0, ranks_key0 = 0;
    for (size_t i = 0; i < nl; i++) {
        misplaced += ravel_relation_owner(e, copy, t + 2 * i) != rank;
        has_key0 |= t[2 * i] == 0;
    }
    expect(misplaced == 0, "split tuples sit with their owner");
    MPI_Allreduce(&has_key0, &ranks_key0, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (balance && P > 1)
        expect(ranks_key0 > 1, "the heavy key is spread over ranks");
    size_t n;
    uint64_t *all = gather_all(e, copy, 2, MPI_COMM_WORLD, &n);
    qsort(all, n, 2 * sizeof *all, cmp_tuple2);
    qsort(s, NS, sizeof s[0], cmp_tuple2);
    expect(n == NS && memcmp(all, s, sizeof s) == 0,
           "a split loses and duplicates nothing");
    free(all);
    /* The join against a nested loop. */
    uint64_t *want = malloc(NS * NSIDE * 2 * sizeof *want);
    size_t nw = 0;
    for (int i = 0; i < NS; i++)
        for (int j = 0; j < NSIDE; j++)
            if (s[i][0] == d[j][0]) {
                want[2 * nw] = s[i][1];
                want[2 * nw + 1] = d[j][1];
                nw++;
            }
    qsort(want, nw, 2 * sizeof *want, cmp_tuple2);
    size_t w = 0;
    for (size_t i = 0; i < nw; i++)
        if (i == 0 || cmp_tuple2(want + 2 * (i - 1), want + 2 * i) != 0) {
            want[2 * w] = want[2 * i];
            want[2 * w + 1] = want[2 * i + 1];
            w++;
        }
    all = gather_all(e, out, 2, MPI_COMM_WORLD, &n);
    qsort(all, n, 2 * sizeof *all, cmp_tuple2);
    expect(n == w && memcmp(all, want, w * 2 * sizeof *want) == 0,
           balance ? "join over a split relation (balancing on)"
                   : "join (balancing off)");
    free(all);
    free(want);
    ravel_engine_free(e);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    check_unsplit(MPI_COMM_WORLD, "world");
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, P - 1 - rank, &reversed);
    check_unsplit(reversed, "reversed ranks");
    MPI_Comm_free(&reversed);
    check_split(1);
    check_split(0);
    if (rank == 0)
        printf("%s: placement at P=%d\n", failures ? "FAILED" : "ok", P);
    MPI_Finalize();
    return failures ? 1 : 0;
}
