/* Every backend against the vendor MPI_Alltoallv, byte for byte.
 *
 * For each shape of counts (exchange_cases.h), each buffer layout and each
 * datatype pairing, the vendor call and the backend run on identical inputs,
 * into receive buffers pre-filled with the same sentinel bytes; the whole
 * receive buffers must then be identical (so bytes outside the blocks must be
 * left alone too), and the send buffer and count arrays must be unchanged.
 * Also checked: MPI_IN_PLACE, a sub-communicator, and that internal messages
 * never match a receive the caller has pending on its communicator.
 *
 * A second mode is a differential test on random cases: each case draws its
 * shape, largest count, layout, datatype pairing and whether empty buffers
 * are passed as NULL from (SEED, case number), runs the vendor call once
 * and then every registered backend on the same inputs.  A failure names
 * the case, so that one case can be run again alone.
 *
 * usage: mpiexec -n P mpi_alltoallv_vs_vendor [SEEDS]   (exit 1 on failure)
 *        mpiexec -n P mpi_alltoallv_vs_vendor random SEED CASES [FIRST] */
#include "exchange_cases.h"

#include "ravel/comm.h"
#include "ravel/error.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    LAYOUT_PACKED,      /* blocks back to back in rank order */
    LAYOUT_GAPS,        /* blocks separated by unused elements */
    LAYOUT_REVERSED,    /* blocks in reverse rank order, with gaps */
    LAYOUT_OVERLAP,     /* send blocks overlap (receive side packed) */
    LAYOUT_COUNT
} buffer_layout;

static const char *const layout_names[LAYOUT_COUNT] = {"packed", "gaps",
                                                       "reversed", "overlap"};

typedef struct {
    const char *name;
    MPI_Datatype send_type, recv_type;
    int send_per_unit, recv_per_unit; /* elements per unit of count */
} type_pairing;

static int failures, checks;
static int rank, nranks;

static void fail(const char *what, const char *backend, const char *detail)
{
    failures++;
    fprintf(stderr, "FAIL rank %d/%d: %s with %s: %s\n", rank, nranks, what,
            backend, detail);
}

/* Displacements (in elements) for P blocks of counts[], in a layout; returns
 * the buffer length in elements. */
static size_t lay_out(buffer_layout layout, const int counts[], int displs[],
                      int P, int is_send)
{
    size_t at = 0, span = 0;
    for (int b = 0; b < P; b++) {
        int i = layout == LAYOUT_REVERSED ? P - 1 - b : b;
        if (layout == LAYOUT_OVERLAP && is_send) {
            displs[i] = b % 3; /* every block starts within 3 elements */
            size_t end = (size_t)displs[i] + (size_t)counts[i];
            span = end > span ? end : span;
            continue;
        }
        if (layout == LAYOUT_GAPS || layout == LAYOUT_REVERSED)
            at += 1 + (size_t)(b % 3);
        displs[i] = (int)at;
        at += (size_t)counts[i];
    }
    return (layout == LAYOUT_OVERLAP && is_send ? span : at) + 2;
}

typedef struct {
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    char *sendbuf, *recv_vendor, *recv_backend, *send_copy;
    int *counts_copy;
    size_t send_bytes, recv_bytes;
} call_args;

static void free_args(call_args *a)
{
    free(a->sendcounts);
    free(a->sdispls);
    free(a->recvcounts);
    free(a->rdispls);
    free(a->sendbuf);
    free(a->recv_vendor);
    free(a->recv_backend);
    free(a->send_copy);
    free(a->counts_copy);
}

static int build_args(call_args *a, exchange_shape shape, uint64_t seed,
                      buffer_layout layout, const type_pairing *t, int P,
                      int me, int max)
{
    memset(a, 0, sizeof *a);
    a->sendcounts = malloc((size_t)P * sizeof(int));
    a->sdispls = malloc((size_t)P * sizeof(int));
    a->recvcounts = malloc((size_t)P * sizeof(int));
    a->rdispls = malloc((size_t)P * sizeof(int));
    a->counts_copy = malloc(4 * (size_t)P * sizeof(int));
    if (!a->sendcounts || !a->sdispls || !a->recvcounts || !a->rdispls ||
        !a->counts_copy)
        return -1;
    for (int p = 0; p < P; p++) {
        int units_out = case_count(shape, seed, me, p, P, max);
        int units_in = case_count(shape, seed, p, me, P, max);
        a->sendcounts[p] = units_out * t->send_per_unit;
        a->recvcounts[p] = units_in * t->recv_per_unit;
    }
    size_t send_elems = lay_out(layout, a->sendcounts, a->sdispls, P, 1);
    size_t recv_elems = lay_out(layout, a->recvcounts, a->rdispls, P, 0);
    MPI_Aint lb, send_extent, recv_extent;
    MPI_Type_get_extent(t->send_type, &lb, &send_extent);
    MPI_Type_get_extent(t->recv_type, &lb, &recv_extent);
    a->send_bytes = send_elems * (size_t)send_extent;
    a->recv_bytes = recv_elems * (size_t)recv_extent;
    a->sendbuf = malloc(a->send_bytes);
    a->send_copy = malloc(a->send_bytes);
    a->recv_vendor = malloc(a->recv_bytes);
    a->recv_backend = malloc(a->recv_bytes);
    if (!a->sendbuf || !a->send_copy || !a->recv_vendor || !a->recv_backend)
        return -1;
    for (size_t i = 0; i < a->send_bytes; i++)
        a->sendbuf[i] = (char)case_mix(seed ^ ((uint64_t)me << 40) ^ i);
    memcpy(a->send_copy, a->sendbuf, a->send_bytes);
    memset(a->recv_vendor, 0xA5, a->recv_bytes);
    memset(a->recv_backend, 0xA5, a->recv_bytes);
    memcpy(a->counts_copy, a->sendcounts, (size_t)P * sizeof(int));
    memcpy(a->counts_copy + P, a->sdispls, (size_t)P * sizeof(int));
    memcpy(a->counts_copy + 2 * P, a->recvcounts, (size_t)P * sizeof(int));
    memcpy(a->counts_copy + 3 * P, a->rdispls, (size_t)P * sizeof(int));
    return 0;
}

static void compare(const call_args *a, const char *backend, const char *what,
                    int P)
{
    checks++;
    if (memcmp(a->recv_vendor, a->recv_backend, a->recv_bytes) != 0) {
        size_t i = 0;
        while (a->recv_vendor[i] == a->recv_backend[i])
            i++;
        char detail[160];
        snprintf(detail, sizeof detail,
                 "receive buffers differ first at byte %zu of %zu "
                 "(vendor 0x%02x, backend 0x%02x)",
                 i, a->recv_bytes, (unsigned char)a->recv_vendor[i],
                 (unsigned char)a->recv_backend[i]);
        fail(what, backend, detail);
    }
    if (memcmp(a->sendbuf, a->send_copy, a->send_bytes) != 0)
        fail(what, backend, "the send buffer was modified");
    if (memcmp(a->counts_copy, a->sendcounts, (size_t)P * sizeof(int)) ||
        memcmp(a->counts_copy + P, a->sdispls, (size_t)P * sizeof(int)) ||
        memcmp(a->counts_copy + 2 * P, a->recvcounts, (size_t)P * sizeof(int)) ||
        memcmp(a->counts_copy + 3 * P, a->rdispls, (size_t)P * sizeof(int)))
        fail(what, backend, "a count or displacement array was modified");
}

static void run_case_max(ravel_alltoallv_fn fn, const char *backend,
                         exchange_shape shape, uint64_t seed,
                         buffer_layout layout, const type_pairing *t, int max,
                         MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    call_args a;
    char what[200];
    snprintf(what, sizeof what, "shape=%s layout=%s types=%s seed=%llu "
             "max=%d P=%d", shape_names[shape], layout_names[layout], t->name,
             (unsigned long long)seed, max, P);
    if (build_args(&a, shape, seed, layout, t, P, me, max) != 0) {
        fail(what, backend, "out of memory building the case");
        free_args(&a);
        return;
    }
    int err = ravel_alltoallv_vendor(a.sendbuf, a.sendcounts, a.sdispls,
                                     t->send_type, a.recv_vendor, a.recvcounts,
                                     a.rdispls, t->recv_type, comm);
    if (err == MPI_SUCCESS)
        err = fn(a.sendbuf, a.sendcounts, a.sdispls, t->send_type,
                 a.recv_backend, a.recvcounts, a.rdispls, t->recv_type, comm);
    if (err != MPI_SUCCESS)
        fail(what, backend, "returned an error");
    else
        compare(&a, backend, what, P);
    free_args(&a);
}

/* MPI_IN_PLACE: the data comes from, and lands in, the receive buffer. */
static void run_case(ravel_alltoallv_fn fn, const char *backend,
                     exchange_shape shape, uint64_t seed, buffer_layout layout,
                     const type_pairing *t, MPI_Comm comm)
{
    run_case_max(fn, backend, shape, seed, layout, t, 40, comm);
}

static void run_in_place(ravel_alltoallv_fn fn, const char *backend,
                         uint64_t seed, MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int *counts = malloc((size_t)P * sizeof(int));
    int *displs = malloc((size_t)P * sizeof(int));
    /* In place needs symmetric counts: i sends j what j sends i. */
    size_t total = 0;
    for (int p = 0; p < P; p++) {
        int lo = me < p ? me : p, hi = me < p ? p : me;
        counts[p] = case_count(SHAPE_RANDOM, seed, lo, hi, P, 30);
        displs[p] = (int)total + 1;
        total += (size_t)counts[p] + 1;
    }
    size_t n = total + 1;
    int *vendor = malloc(n * sizeof(int)), *mine = malloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        vendor[i] = mine[i] = (int)case_mix(seed + (uint64_t)me * 131 + i);
    int err = ravel_alltoallv_vendor(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL,
                                     vendor, counts, displs, MPI_INT, comm);
    if (err == MPI_SUCCESS)
        err = fn(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, mine, counts,
                 displs, MPI_INT, comm);
    checks++;
    if (err != MPI_SUCCESS)
        fail("MPI_IN_PLACE", backend, "returned an error");
    else if (memcmp(vendor, mine, n * sizeof(int)) != 0)
        fail("MPI_IN_PLACE", backend, "results differ from vendor");
    free(counts);
    free(displs);
    free(vendor);
    free(mine);
}

/* A communicator freed and another made in its place, whose handle MPI
 * may give the same value (MPICH does): the backend must use the new one's
 * context, not the last one it looked up (context.c keeps that one at
 * hand).  The second has its ranks in reverse order, so blocks placed by
 * the first's context would land at the wrong ranks; and that context is
 * freed memory by then (the sanitizer pass sees its use). */
static int run_on_reused_handle(ravel_alltoallv_fn fn, const char *backend,
                                uint64_t seed, const type_pairing *t)
{
    MPI_Comm first, second;
    MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &first);
    run_case(fn, backend, SHAPE_RANDOM, seed, LAYOUT_GAPS, t, first);
    MPI_Comm first_handle = first;
    MPI_Comm_free(&first);
    MPI_Comm_split(MPI_COMM_WORLD, 0, nranks - rank, &second);
    run_case(fn, backend, SHAPE_SKEWED, seed, LAYOUT_PACKED, t, second);
    int reused = second == first_handle;
    MPI_Comm_free(&second);
    return reused;
}

/* A receive the caller has pending on comm, with wildcards, must not match
 * any of the backend's internal messages. */
static void run_with_pending_receive(ravel_alltoallv_fn fn,
                                     const char *backend, uint64_t seed,
                                     MPI_Comm comm, const type_pairing *t)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    int token = -1, sentinel = 1000 + me;
    MPI_Request pending;
    MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &pending);
    run_case(fn, backend, SHAPE_RANDOM, seed, LAYOUT_PACKED, t, comm);
    /* Had an internal message matched, the pending receive would now hold
     * the backend's data (wrong tag or value), and the backend would have
     * lost a message.  A fast neighbour's sentinel may already be here. */
    MPI_Status status;
    int next = (me + 1) % P, prev = (me - 1 + P) % P;
    MPI_Send(&sentinel, 1, MPI_INT, next, 77, comm);
    MPI_Wait(&pending, &status);
    checks++;
    if (token != 1000 + prev || status.MPI_TAG != 77 ||
        status.MPI_SOURCE != prev)
        fail("pending wildcard receive", backend,
             "the caller's own message did not arrive intact");
}

/* One random case: what it draws from (seed, index). */
typedef struct {
    exchange_shape shape;
    int max;             /* largest count of a block, in units */
    buffer_layout layout;
    size_t pairing;      /* index into the datatype pairings */
    int null_when_empty; /* pass NULL for a buffer with nothing in it */
    uint64_t seed;       /* of the counts and the bytes */
} random_case;

static random_case draw_case(uint64_t seed, uint64_t index, size_t npairings)
{
    static const int maxima[] = {1, 2, 5, 17, 40, 300};
    uint64_t h = case_mix(seed * 0x9e3779b97f4a7c15ull + index);
    random_case c;
    c.shape = (exchange_shape)(h % SHAPE_COUNT);
    c.max = maxima[(h >> 8) % (sizeof maxima / sizeof *maxima)];
    c.layout = (buffer_layout)((h >> 16) % LAYOUT_COUNT);
    c.pairing = (size_t)((h >> 24) % npairings);
    c.null_when_empty = (int)((h >> 32) % 2);
    c.seed = case_mix(h);
    return c;
}

static int all_zero(const int counts[], int P)
{
    for (int i = 0; i < P; i++)
        if (counts[i])
            return 0;
    return 1;
}

/* The vendor call once, then every backend, on the inputs of case `index`. */
static void run_random_case(uint64_t seed, uint64_t index,
                            const type_pairing pairings[], size_t npairings,
                            MPI_Comm comm)
{
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    random_case c = draw_case(seed, index, npairings);
    const type_pairing *t = &pairings[c.pairing];
    char what[240];
    snprintf(what, sizeof what, "random case %llu of seed %llu (shape=%s "
             "max=%d layout=%s types=%s null=%d P=%d)",
             (unsigned long long)index, (unsigned long long)seed,
             shape_names[c.shape], c.max, layout_names[c.layout], t->name,
             c.null_when_empty, P);
    call_args a;
    if (build_args(&a, c.shape, c.seed, c.layout, t, P, me, c.max) != 0) {
        fail(what, "(all)", "out of memory building the case");
        free_args(&a);
        return;
    }
    const char *send = c.null_when_empty && all_zero(a.sendcounts, P)
                           ? NULL : a.sendbuf;
    int recv_null = c.null_when_empty && all_zero(a.recvcounts, P);
    int err = ravel_alltoallv_vendor(send, a.sendcounts, a.sdispls,
                                     t->send_type,
                                     recv_null ? NULL : a.recv_vendor,
                                     a.recvcounts, a.rdispls, t->recv_type,
                                     comm);
    if (err != MPI_SUCCESS)
        fail(what, "vendor", "returned an error");
    for (size_t b = 0; err == MPI_SUCCESS && b < ravel_alltoallv_count();
         b++) {
        const char *name = ravel_alltoallv_name(b);
        memset(a.recv_backend, 0xA5, a.recv_bytes);
        int berr = ravel_alltoallv_lookup(name)(
            send, a.sendcounts, a.sdispls, t->send_type,
            recv_null ? NULL : a.recv_backend, a.recvcounts, a.rdispls,
            t->recv_type, comm);
        if (berr != MPI_SUCCESS)
            fail(what, name, "returned an error");
        else
            compare(&a, name, what, P);
    }
    free_args(&a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int random_mode = argc > 1 && strcmp(argv[1], "random") == 0;
    int seeds = argc > 1 && !random_mode ? atoi(argv[1]) : 2;

    /* The parameterized backends (looking a name up adds it to the table
     * the loops below run over): radix-bruck at more radices than its
     * default 4 -- 2 (the binary schedule), odd radices (partial top
     * rounds) and 16 (one round, a direct exchange, at every P here) --
     * padded Bruck with rotations, auto agreeing before every call, and
     * two-level (here on one node: its fake nodes are comm.two_level's). */
    const char *const variants[] = {"radix-bruck:2",      "radix-bruck:3",
                                    "radix-bruck:5",      "radix-bruck:16",
                                    "padded-bruck:basic", "auto:agree",
                                    "two-level:two-phase-bruck"};
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        checks++;
        if (!ravel_alltoallv_lookup(variants[i]))
            fail("lookup", variants[i], ravel_error_message());
    }

    /* Datatype pairings whose type signatures match. */
    MPI_Datatype triple_int, strided_pair, padded_struct;
    MPI_Type_contiguous(3, MPI_INT, &triple_int);
    MPI_Type_commit(&triple_int);
    MPI_Type_vector(2, 1, 2, MPI_INT, &strided_pair); /* ints at 0 and 8 */
    MPI_Type_commit(&strided_pair);
    {
        int lengths[2] = {1, 1};
        MPI_Aint displs[2] = {0, 8};
        MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, lengths, displs, types, &padded_struct);
        MPI_Type_commit(&padded_struct); /* 12 bytes of data, extent 16 */
    }
    const type_pairing pairings[] = {
        {"byte/byte", MPI_BYTE, MPI_BYTE, 1, 1},
        {"int/int", MPI_INT, MPI_INT, 1, 1},
        {"double/double", MPI_DOUBLE, MPI_DOUBLE, 1, 1},
        {"contig3int/int", triple_int, MPI_INT, 1, 3},
        {"int/contig3int", MPI_INT, triple_int, 3, 1},
        {"vector/int", strided_pair, MPI_INT, 1, 2},
        {"int/vector", MPI_INT, strided_pair, 2, 1},
        {"struct/struct", padded_struct, padded_struct, 1, 1},
    };
    const size_t npairings = sizeof pairings / sizeof pairings[0];

    /* Outside SimGrid SMPI there are no shared pages: asking for them must
     * be refused, and every exchange below must still deliver real data. */
    checks++;
    if (ravel_comm_share_payloads(1) != 0)
        fail("ravel_comm_share_payloads(1) outside SMPI", "(no backend)",
             "returned nonzero");

    MPI_Comm halves;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, nranks - rank, &halves);

    if (random_mode) {
        uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
        uint64_t cases = argc > 3 ? strtoull(argv[3], NULL, 10) : 100;
        uint64_t first = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
        for (uint64_t i = first; i < first + cases; i++)
            run_random_case(seed, i, pairings, npairings, MPI_COMM_WORLD);
        seeds = 0; /* the fixed cases below are the other mode's */
    }
    int reused_handles = 0;
    for (size_t b = 0; seeds > 0 && b < ravel_alltoallv_count(); b++) {
        const char *name = ravel_alltoallv_name(b);
        ravel_alltoallv_fn fn = ravel_alltoallv_lookup(name);
        for (int s = 0; s < seeds; s++) {
            uint64_t seed = 1 + (uint64_t)s;
            for (int shape = 0; shape < SHAPE_COUNT; shape++)
                for (int layout = 0; layout < LAYOUT_COUNT; layout++)
                    run_case(fn, name, (exchange_shape)shape, seed,
                             (buffer_layout)layout, &pairings[1],
                             MPI_COMM_WORLD);
            for (size_t t = 0; t < npairings; t++)
                run_case(fn, name, SHAPE_RANDOM, seed, LAYOUT_GAPS,
                         &pairings[t], MPI_COMM_WORLD);
            run_case(fn, name, SHAPE_SKEWED, seed, LAYOUT_REVERSED,
                     &pairings[7], MPI_COMM_WORLD);
            /* Blocks of up to 160 KB, and one of 400 KB per rank: Bruck
             * steps of more than 64 KiB (inline-bruck's second message). */
            run_case_max(fn, name, SHAPE_RANDOM, seed, LAYOUT_GAPS,
                         &pairings[1], 40000, MPI_COMM_WORLD);
            run_case_max(fn, name, SHAPE_SKEWED, seed, LAYOUT_PACKED,
                         &pairings[1], 2000, MPI_COMM_WORLD);
            run_in_place(fn, name, seed, MPI_COMM_WORLD);
            run_case(fn, name, SHAPE_RANDOM, seed, LAYOUT_GAPS, &pairings[2],
                     halves);
            run_with_pending_receive(fn, name, seed, MPI_COMM_WORLD,
                                     &pairings[1]);
            reused_handles +=
                run_on_reused_handle(fn, name, seed, &pairings[2]);
        }
    }
    /* Everyone waits here, so the sub-communicator's context is freed with
     * it (its attribute delete callback runs). */
    MPI_Comm_free(&halves);
    MPI_Type_free(&triple_int);
    MPI_Type_free(&strided_pair);
    MPI_Type_free(&padded_struct);

    int totals[2] = {failures, checks}, global[2];
    ravel_comm_allreduce(totals, global, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("alltoallv vs vendor on %d ranks: %d checks, %d failures "
               "(%d calls on a reused communicator handle)\n",
               nranks, global[1], global[0], reused_handles);
    MPI_Finalize();
    return global[0] == 0 ? 0 : 1;
}
