/* alltoallv_demo: every comm backend on random non-uniform counts, checked
 * against the vendor MPI_Alltoallv and timed.
 *
 * It uses only ravel's installed API, so it is also the example of a program
 * built outside the tree:
 *     mpicc alltoallv_demo.c $(pkg-config --cflags --libs ravel)
 *     mpiexec -n 4 ./a.out
 * Exit status 1 if any backend's result differs from vendor's. */
#include <ravel/comm.h>
#include <ravel/options.h>
#include <ravel/timer.h>

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    double *sendbuf, *recvbuf, *reference;
    size_t nrecv;
} exchange;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Doubles rank src sends rank dst: uniform in [0, max], known to all. */
static int count(uint64_t seed, int src, int dst, int max)
{
    return (int)(mix(seed ^ ((uint64_t)src << 32) ^ (uint64_t)dst) %
                 (uint64_t)(max + 1));
}

static int make_exchange(exchange *x, int P, int me, uint64_t seed, int max)
{
    x->sendcounts = malloc(4 * (size_t)P * sizeof(int));
    if (!x->sendcounts)
        return -1;
    x->sdispls = x->sendcounts + P;
    x->recvcounts = x->sendcounts + 2 * P;
    x->rdispls = x->sendcounts + 3 * P;
    size_t nsend = 0, nrecv = 0;
    for (int p = 0; p < P; p++) {
        x->sendcounts[p] = count(seed, me, p, max);
        x->recvcounts[p] = count(seed, p, me, max);
        x->sdispls[p] = (int)nsend;
        x->rdispls[p] = (int)nrecv;
        nsend += (size_t)x->sendcounts[p];
        nrecv += (size_t)x->recvcounts[p];
    }
    x->nrecv = nrecv;
    x->sendbuf = malloc((nsend + 1) * sizeof(double));
    x->recvbuf = malloc((nrecv + 1) * sizeof(double));
    x->reference = malloc((nrecv + 1) * sizeof(double));
    if (!x->sendbuf || !x->recvbuf || !x->reference)
        return -1;
    for (size_t i = 0; i < nsend; i++)
        x->sendbuf[i] = (double)me * 1e6 + (double)i;
    return 0;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over iterations of the slowest rank's time for one call. */
static int time_backend(ravel_alltoallv_fn fn, exchange *x, int iters,
                        double *median)
{
    double *times = malloc((size_t)iters * sizeof *times);
    if (!times)
        return MPI_ERR_NO_MEM;
    int err = MPI_SUCCESS;
    for (int i = 0; i < iters && err == MPI_SUCCESS; i++) {
        ravel_comm_barrier(MPI_COMM_WORLD);
        double start = ravel_now();
        err = fn(x->sendbuf, x->sendcounts, x->sdispls, MPI_DOUBLE, x->recvbuf,
                 x->recvcounts, x->rdispls, MPI_DOUBLE, MPI_COMM_WORLD);
        double mine = ravel_now() - start;
        ravel_comm_allreduce(&mine, &times[i], 1, MPI_DOUBLE, MPI_MAX,
                             MPI_COMM_WORLD);
    }
    qsort(times, (size_t)iters, sizeof *times, compare_doubles);
    *median = times[iters / 2];
    free(times);
    return err;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int P, me;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int iters = 50, max = 1000, help = 0;
    uint64_t seed = 42;
    const ravel_option options[] = {
        {"iters", RAVEL_OPT_INT, &iters, "N", "timed calls per backend (50)"},
        {"max", RAVEL_OPT_INT, &max, "K", "largest block, in doubles (1000)"},
        {"seed", RAVEL_OPT_U64, &seed, "S", "seed of the random counts (42)"},
        {"help", RAVEL_OPT_FLAG, &help, NULL, "print this help"},
    };
    char err[256];
    int npos;
    if (ravel_options_parse(argc, argv, options, 4, &npos, err, sizeof err) ||
        npos > 0 || iters < 1 || max < 0) {
        if (me == 0)
            fprintf(stderr, "alltoallv_demo: %s\n",
                    npos > 0 ? "takes no arguments"
                    : (iters < 1 || max < 0) ? "--iters must be >= 1 and "
                                               "--max >= 0"
                                             : err);
        MPI_Finalize();
        return 2;
    }
    if (help) {
        if (me == 0)
            ravel_options_print_help(stdout, "mpiexec -n P alltoallv_demo "
                                     "[options]",
                                     "Runs every ravel comm backend on random "
                                     "non-uniform counts, checks each\nagainst "
                                     "the vendor MPI_Alltoallv and prints the "
                                     "median time of each.",
                                     options, 4);
        MPI_Finalize();
        return 0;
    }
    exchange x = {0};
    if (make_exchange(&x, P, me, seed, max) != 0) {
        fprintf(stderr, "alltoallv_demo: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    ravel_alltoallv_vendor(x.sendbuf, x.sendcounts, x.sdispls, MPI_DOUBLE,
                           x.reference, x.recvcounts, x.rdispls, MPI_DOUBLE,
                           MPI_COMM_WORLD);
    if (me == 0)
        printf("%d ranks, blocks of 0..%d doubles (seed %llu), %d calls "
               "each\n%-18s %12s %8s\n", P, max, (unsigned long long)seed,
               iters, "backend", "median (us)", "result");
    int wrong_anywhere = 0;
    for (size_t b = 0; b < ravel_alltoallv_count(); b++) {
        const char *name = ravel_alltoallv_name(b);
        ravel_alltoallv_fn fn = ravel_alltoallv_lookup(name);
        memset(x.recvbuf, 0, (x.nrecv + 1) * sizeof(double));
        double median = 0;
        int rc = time_backend(fn, &x, iters, &median);
        int wrong = rc != MPI_SUCCESS ||
                    memcmp(x.recvbuf, x.reference, x.nrecv * sizeof(double));
        int any = 0;
        ravel_comm_allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        wrong_anywhere |= any;
        if (me == 0)
            printf("%-18s %12.1f %8s\n", name, median * 1e6,
                   any ? "WRONG" : "ok");
    }
    free(x.sendcounts);
    free(x.sendbuf);
    free(x.recvbuf);
    free(x.reference);
    MPI_Finalize();
    return wrong_anywhere;
}
