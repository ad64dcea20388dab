/* One internal message carries at most INT_MAX bytes: every backend that
 * sends its own messages refuses a larger one with MPI_ERR_COUNT, and does
 * so before it touches the data.
 *
 * Each rank sends every other rank one block of more than 2^31 bytes
 * (INT_MAX + 1), as 2049 elements of a contiguous 1 MiB type (raw bytes,
 * the backends' own messages) and as 3 elements of a strided 1 GiB type
 * (packed by the byte view first).  More than 2^31 by at least 1 MiB: the
 * backends with sizes inline carry up to 64 KiB of a message's blocks in a
 * first message and the rest in a second, which must pass INT_MAX too.
 * The buffers are anonymous mappings with MAP_NORESERVE that nothing may
 * read or write: afterwards mincore() must find none of their pages
 * resident (a read of an untouched page maps the zero page, a write a
 * fresh one), and the peak resident size must not have grown by a
 * gigabyte (staging copies).  vendor is MPICH's own call, which may send
 * large messages, so it is not run.
 * usage: mpiexec -n P mpi_message_limit */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, mincore: Linux */
#include "ravel/comm.h"
#include "ravel/error.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define BIG_BLOCK (((size_t)1 << 31) + ((size_t)1 << 20))

/* The backends with messages of their own; each must refuse. */
static const char *const backends[] = {
    "spread-out",   "padded-alltoall", "padded-bruck",  "padded-bruck:basic",
    "two-phase-bruck", "pairwise",     "inline-bruck",  "radix-bruck",
    "radix-bruck:2", "radix-bruck:16"};

static int failures;

static void expect(int ok, const char *what, const char *backend,
                   const char *type)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL: %s (%s, %s type): %s\n", what, backend, type,
                ravel_error_message());
    }
}

/* An untouchable region of `bytes`: reserved address space, no memory. */
static char *untouched(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* Pages of [p, p + bytes) that are resident. */
static size_t resident_pages(char *p, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + page - 1) / page;
    unsigned char *vec = malloc(n);
    size_t resident = 0;
    if (!vec || mincore(p, bytes, vec) != 0) {
        perror("mincore");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < n; i++)
        resident += vec[i] & 1;
    free(vec);
    return resident;
}

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    int count;         /* elements per block: count * size = 2^31 bytes */
    MPI_Aint extent;   /* of one element */
} big_type;

/* One call of `backend` with a block of 2^31 bytes to and from every other
 * rank (none to itself): checks the refusal and the untouched buffers. */
static void check_refusal(const char *backend, const big_type *t,
                          MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *counts = calloc((size_t)P, sizeof(int));
    int *displs = calloc((size_t)P, sizeof(int)); /* all blocks overlap */
    for (int i = 0; i < P; i++)
        counts[i] = i == me ? 0 : t->count;
    size_t span = (size_t)t->extent * (size_t)t->count + BIG_BLOCK;
    char *send = untouched(span), *recv = untouched(span);
    long before = peak_kib();
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(backend);
    int err = fn(send, counts, displs, t->type, recv, counts, displs, t->type,
                 comm);
    int cls = -1;
    MPI_Error_class(err, &cls);
    expect(cls == MPI_ERR_COUNT, "a 2^31-byte message gives MPI_ERR_COUNT",
           backend, t->name);
    /* The size refused depends on the backend and P (a block, a padded
     * block, a step's blocks, all packed blocks); the limit does not. */
    expect(strstr(ravel_error_message(), " bytes is more than one MPI "
                  "message can carry (INT_MAX = 2147483647)") != NULL,
           "the message gives the size and the INT_MAX limit", backend,
           t->name);
    expect(resident_pages(send, span) == 0,
           "the send buffer was not read before the refusal", backend,
           t->name);
    expect(resident_pages(recv, span) == 0,
           "the receive buffer was not written before the refusal", backend,
           t->name);
    expect(peak_kib() - before < (1L << 20),
           "no gigabyte was staged before the refusal", backend, t->name);
    munmap(send, span);
    munmap(recv, span);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    big_type types[2] = {{"contiguous", MPI_DATATYPE_NULL, 2049, 1 << 20},
                         {"strided", MPI_DATATYPE_NULL, 3, 0}};
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &types[0].type);
    /* 2 runs of 512 MiB, 1 GiB apart: 1 GiB of data, 1.5 GiB of extent. */
    MPI_Type_vector(2, 1 << 29, 1 << 30, MPI_BYTE, &types[1].type);
    MPI_Aint lb;
    for (int i = 0; i < 2; i++) {
        MPI_Type_commit(&types[i].type);
        MPI_Type_get_extent(types[i].type, &lb, &types[i].extent);
    }
    for (size_t b = 0; P > 1 && b < sizeof backends / sizeof *backends; b++) {
        expect(ravel_alltoallv_lookup(backends[b]) != NULL,
               "the backend is registered", backends[b], "any");
        for (int i = 0; i < 2 && ravel_alltoallv_lookup(backends[b]); i++)
            check_refusal(backends[b], &types[i], comm);
    }
    for (int i = 0; i < 2; i++)
        MPI_Type_free(&types[i].type);
    MPI_Comm_free(&comm);

    int any = 0;
    ravel_comm_allreduce(&failures, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %d failure(s) on %d ranks\n", argv[0], any, P);
    MPI_Finalize();
    return any != 0;
}
