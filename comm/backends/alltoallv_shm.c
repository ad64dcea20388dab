/* shm: the ranks of one node exchange through shared memory.
 *
 * Every rank owns a segment of one shared window (MPI_Win_allocate_shared
 * on the communicator: no dependency beyond MPI), made at the first call,
 * kept with the communicator's context, grown when a call needs more and
 * freed with the communicator.  A call:
 *   1. each rank writes its blocks for the other ranks, one after another,
 *      into its own segment behind a header saying where each starts (one
 *      copy in: S bytes), then publishes the call's number, its segment's
 *      need and a failure flag in its segment's control line (a C11
 *      release store);
 *   2. each rank waits until every other rank has published this call
 *      (acquire loads: the published blocks are then visible), and so
 *      learns the largest need: when some rank's blocks did not fit, every
 *      rank grows the window at once (collective), writes again and
 *      publishes again;
 *   3. each rank copies its block out of every other rank's segment
 *      straight into its receive buffer: one copy out (R bytes).  Rank r
 *      reads ranks r+1, r+2, ... in turn, so the P readers start on P
 *      different segments instead of all on rank 0's.
 * The own block goes from the send buffer to the receive buffer directly.
 * No message is posted and, after the first call, no MPI call is made:
 * S + R + Z bytes copied and P - 1 control lines read, against a direct
 * exchange's 2 (P-1) messages whose bytes the MPI library copies through
 * its own shared buffers (small ones twice) or moves with a kernel-assisted
 * single copy (large ones).  The first call, which has no window yet,
 * agrees on the largest need with an allreduce instead.
 *
 * Two halves per segment, used by alternate calls: a rank may write call
 * k+1's blocks while a slower rank still reads call k's, because the half
 * it writes was last read in call k-1, and a rank publishes call k only
 * after it finished reading call k-1; the writer saw every rank publish
 * call k before it left call k.  So no second synchronisation.  Every rank
 * waits for all P - 1 others (not only those it reads from): that is what
 * makes every rank decide a growth alike and keeps the halves safe.  The
 * wait spins (or yields the core, in RAVEL_WAIT=yield mode), as MPI's own
 * shared-memory waits do; its cost grows with P, which a node bounds.
 *
 * In ravel_exchange_run, where receive counts are not known, the header
 * gives them and the receiver copies nothing at all: its views point into
 * the senders' segments, valid until the next exchange (a half is written
 * again only in the call after next).  There the own block is written
 * into the segment too, since the caller may refill its outboxes while
 * still reading the views.
 *
 * auto does not choose shm yet (comm/model/cost_model.c says why), and
 * shm carries no statistics for it: that would take the collective this
 * backend avoids.
 *
 * Only for a communicator whose ranks all share one node (node_ranks ==
 * P, counted with MPI_COMM_TYPE_SHARED, or RAVEL_NODE_SIZE's fake nodes in
 * tests); otherwise refused on every rank alike.  Not under SimGrid SMPI,
 * whose ranks all live in one process and whose shared windows ravel has
 * not been checked with.  Tiling the copies in cache-sized pieces (Li,
 * Zhang and Hoefler's Morton order) is not done: each block is one memcpy,
 * in the staggered order above. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef SMPI_SHARED_MALLOC
/* Under SimGrid SMPI: refused (the file's comment says why). */
void comm_shm_free(comm_context *ctx) { (void)ctx; }

int comm_shm_kernel(const comm_exchange *x)
{
    (void)x;
    return ravel_error_set(MPI_ERR_ARG, "backend 'shm' is not available "
                           "under SimGrid SMPI");
}
#else
/* A half's header: the call it belongs to, then P + 1 offsets (from the
 * half's start) at which the blocks for ranks 0 .. P-1 start and the last
 * ends; the data follows at HEADER_ALIGN. */
enum { HDR_CALL, HDR_OFFSETS, HEADER_ALIGN = 64, FIRST_HALF = 64 * 1024 };

/* A segment's control line, in front of its two halves: `published` is
 * the number of calls whose blocks the rank has written (stored last,
 * with release order), need[] and failed[] what it found in the last, by
 * the call's parity like the halves: a rank may publish call k+1 while a
 * slower one still reads what it published for call k (and reading the
 * next call's need there once made two ranks decide a growth apart, and
 * wait for each other forever). */
typedef struct {
    _Atomic uint64_t published;
    uint64_t need[2];
    uint64_t failed[2];
} shm_control;
enum { CONTROL_BYTES = 128 }; /* two cache lines: no false sharing */

struct comm_shm {
    MPI_Win win;
    char **base;        /* [P] each rank's segment, as this rank maps it */
    size_t half;        /* bytes in each half of every segment */
    size_t header;      /* bytes of a half's header, aligned */
    unsigned long long calls;
};

static size_t align_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static void shm_destroy(comm_shm *shm)
{
    if (shm->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(shm->win);
        MPI_Win_free(&shm->win);
    }
    shm->half = 0;
}

void comm_shm_free(comm_context *ctx)
{
    if (!ctx->shm)
        return;
    shm_destroy(ctx->shm);
    free(ctx->shm->base);
    free(ctx->shm);
    ctx->shm = NULL;
}

/* A window of two halves of `half` bytes per rank (collective). */
static int shm_create(comm_context *ctx, size_t half)
{
    comm_shm *shm = ctx->shm;
    size_t bytes = CONTROL_BYTES + 2 * half;
    if (half > ((size_t)PTRDIFF_MAX - CONTROL_BYTES) / 2)
        return ravel_error_set(MPI_ERR_NO_MEM, "a segment of 2 x %zu "
                               "bytes is more than an address space", half);
    MPI_Info info;
    int err = MPI_Info_create(&info);
    if (err != MPI_SUCCESS)
        return err;
    /* Each rank's segment on its own pages, local to its core. */
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *mine = NULL;
    err = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, ctx->comm, &mine,
                                  &shm->win);
    MPI_Info_free(&info);
    if (err != MPI_SUCCESS) {
        shm->win = MPI_WIN_NULL;
        return ravel_error_set(err, "no shared window of 2 x %zu bytes "
                               "per rank (MPI_Win_allocate_shared failed)",
                               half);
    }
    for (int i = 0; i < ctx->size && err == MPI_SUCCESS; i++) {
        MPI_Aint size;
        int unit;
        err = MPI_Win_shared_query(shm->win, i, &size, &unit, &shm->base[i]);
    }
    if (err == MPI_SUCCESS)
        err = MPI_Win_lock_all(MPI_MODE_NOCHECK, shm->win);
    if (err != MPI_SUCCESS) {
        MPI_Win_free(&shm->win);
        return err;
    }
    shm->half = half;
    /* The control line starts at "nothing published" on every rank before
     * any rank looks at another's. */
    shm_control *mine_control = (shm_control *)shm->base[ctx->rank];
    atomic_init(&mine_control->published, 0);
    MPI_Win_sync(shm->win);
    return comm_barrier(ctx);
}

/* The context's shared state, made on the first call (not yet the
 * window: the first call's allreduce sizes it). */
static int shm_state(comm_context *ctx, comm_shm **out)
{
    if (!ctx->shm) {
        comm_shm *shm = calloc(1, sizeof *shm);
        char **base = shm ? calloc((size_t)ctx->size, sizeof *base) : NULL;
        if (!base) {
            free(shm);
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                   "%d ranks' segment addresses", ctx->size);
        }
        shm->win = MPI_WIN_NULL;
        shm->base = base;
        shm->header = align_up((HDR_OFFSETS + (size_t)ctx->size + 1) *
                                   sizeof(uint64_t),
                               HEADER_ALIGN);
        ctx->shm = shm;
    }
    *out = ctx->shm;
    return MPI_SUCCESS;
}

/* Whether this rank writes its own block into its segment: only where the
 * receiver's view must outlive the send buffer (ravel_exchange_run). */
static int own_in_segment(const comm_exchange *x) { return x->inbox != NULL; }

/* The bytes this rank's half needs: its header and its blocks. */
static int segment_need(const comm_exchange *x, const comm_shm *shm,
                        size_t *need)
{
    size_t n = shm->header;
    for (int i = 0; i < x->ctx->size; i++) {
        if (i == x->ctx->rank && !own_in_segment(x))
            continue;
        if (n + x->send_bytes[i] < n)
            return ravel_error_set(MPI_ERR_COUNT, "rank %d's blocks "
                                   "overflow size_t", x->ctx->rank);
        n += x->send_bytes[i];
    }
    *need = n;
    return MPI_SUCCESS;
}

static shm_control *control_of(const comm_shm *shm, int rank)
{
    return (shm_control *)shm->base[rank];
}

static char *half_of(const comm_shm *shm, int rank)
{
    return shm->base[rank] + CONTROL_BYTES + (shm->calls & 1) * shm->half;
}

/* Step 1's end: this call's blocks (if written), need and failure. */
static void publish(const comm_context *ctx, comm_shm *shm, uint64_t need,
                    int failed)
{
    shm_control *c = control_of(shm, ctx->rank);
    c->need[shm->calls & 1] = need;
    c->failed[shm->calls & 1] = failed != MPI_SUCCESS;
    atomic_store_explicit(&c->published, shm->calls + 1,
                          memory_order_release);
}

/* Step 2: every other rank's publication of this call; the largest need
 * and whether any rank failed. */
static void wait_for_all(const comm_context *ctx, const comm_shm *shm,
                         uint64_t need, uint64_t *max_need, int *any_failed)
{
    const int P = ctx->size, me = ctx->rank;
    *max_need = need;
    *any_failed = 0;
    for (int k = 1; k < P; k++) {
        const shm_control *c = control_of(shm, (me + k) % P);
        while (atomic_load_explicit(&c->published, memory_order_acquire) <
               shm->calls + 1) {
            if (ctx->wait == RAVEL_WAIT_YIELD)
                sched_yield();
#if defined(__x86_64__) || defined(__i386__)
            else
                __builtin_ia32_pause();
#endif
        }
        uint64_t theirs = c->need[shm->calls & 1];
        *max_need = theirs > *max_need ? theirs : *max_need;
        *any_failed |= c->failed[shm->calls & 1] != 0;
    }
}

/* Step 1: this rank's header and blocks into its half. */
static void write_segment(const comm_exchange *x, const comm_shm *shm)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    char *half = half_of(shm, me);
    uint64_t *hdr = (uint64_t *)half;
    uint64_t at = shm->header;
    hdr[HDR_CALL] = shm->calls;
    for (int i = 0; i < P; i++) {
        hdr[HDR_OFFSETS + i] = at;
        if (i == me && !own_in_segment(x))
            continue;
        if (x->send_bytes[i]) /* else the block may sit at NULL */
            comm_copy(half + at, comm_send_block(x, i), x->send_bytes[i]);
        at += x->send_bytes[i];
    }
    hdr[HDR_OFFSETS + P] = at;
}

/* The first call's step 2, before there is a window to publish in: the
 * largest need and any failure by allreduce. */
static int agree(const comm_context *ctx, uint64_t need, int failed,
                 uint64_t *max_need, int *any_failed)
{
    uint64_t mine[2] = {need, failed != MPI_SUCCESS}, all[2];
    int err = comm_allreduce(ctx, mine, all, 2, MPI_UINT64_T, MPI_MAX);
    if (err != MPI_SUCCESS)
        return err;
    *max_need = all[0];
    *any_failed = all[1] != 0;
    return MPI_SUCCESS;
}

/* Grows the window to hold `need` bytes per half on every rank (all ranks
 * call it together, having seen the same needs); the halves' old contents
 * and the control lines are dropped, every rank having published this
 * call (so having read the last) and none having read this one. */
static int grow(comm_context *ctx, comm_shm *shm, uint64_t need)
{
    size_t half = shm->half ? 2 * shm->half : FIRST_HALF;
    while (half < need && half <= SIZE_MAX / 4)
        half *= 2;
    if (half < need)
        half = (size_t)need;
    half = align_up(half, HEADER_ALIGN);
    shm_destroy(shm);
    return shm_create(ctx, half);
}

/* Step 3: src's block for this rank, checked against src's header. */
static int read_block(const comm_exchange *x, const comm_shm *shm, int src)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    const char *half = half_of(shm, src);
    const uint64_t *hdr = (const uint64_t *)half;
    uint64_t from = hdr[HDR_OFFSETS + me], to = hdr[HDR_OFFSETS + me + 1];
    if (hdr[HDR_CALL] != shm->calls || from > to || to > shm->half ||
        hdr[HDR_OFFSETS + P] > shm->half)
        return ravel_error_set(MPI_ERR_INTERN, "rank %d's segment does "
                               "not hold call %llu's blocks", src,
                               shm->calls);
    size_t len = (size_t)(to - from);
    if (x->inbox) { /* a view into src's segment: no copy */
        comm_inbox_view(x->inbox, src, len ? half + from : NULL, len);
        return MPI_SUCCESS;
    }
    char *at;
    int err = comm_recv_block(x, src, len, &at);
    if (err == MPI_SUCCESS && at)
        comm_copy(at, half + from, len);
    return err;
}

int comm_shm_kernel(const comm_exchange *x)
{
    comm_context *ctx = (comm_context *)x->ctx;
    const int P = ctx->size, me = ctx->rank;
    if (ctx->node_ranks < P)
        return ravel_error_set(MPI_ERR_ARG, "backend 'shm' needs every "
                               "rank of the communicator on one node, but "
                               "its %d ranks span several (at most %d on "
                               "one%s)",
                               P, ctx->node_ranks,
                               getenv("RAVEL_NODE_SIZE")
                                   ? ", fake nodes of RAVEL_NODE_SIZE"
                                   : "");
    if (P == 1)
        return comm_copy_self(x);
    comm_shm *shm = NULL;
    int failed = shm_state(ctx, &shm);
    size_t need = 0;
    if (failed == MPI_SUCCESS)
        failed = segment_need(x, shm, &need);
    uint64_t max_need = 0;
    int any_failed = 0, err = MPI_SUCCESS;
    if (failed != MPI_SUCCESS || shm->win == MPI_WIN_NULL) {
        /* No window yet (or no state to keep one in): agree by allreduce. */
        err = agree(ctx, failed == MPI_SUCCESS ? need : 0, failed, &max_need,
                    &any_failed);
    } else {
        if (need <= shm->half)
            write_segment(x, shm);
        publish(ctx, shm, need, failed);
        wait_for_all(ctx, shm, need, &max_need, &any_failed);
    }
    if (err != MPI_SUCCESS)
        return err;
    if (any_failed)
        return failed != MPI_SUCCESS
                   ? failed
                   : ravel_error_set(MPI_ERR_OTHER, "another rank "
                                     "failed before the exchange");
    if (max_need > shm->half) { /* every rank, on the same numbers */
        err = grow(ctx, shm, max_need);
        if (err != MPI_SUCCESS)
            return err;
        write_segment(x, shm);
        publish(ctx, shm, need, MPI_SUCCESS);
        wait_for_all(ctx, shm, need, &max_need, &any_failed);
    }
    uint64_t sent_blocks = 0, sent_bytes = 0;
    for (int i = 0; i < P; i++)
        if (i != me && x->send_bytes[i]) {
            sent_blocks++;
            sent_bytes += x->send_bytes[i];
        }
    comm_stats_add(sent_blocks, sent_bytes);
    for (int k = 1; k < P && err == MPI_SUCCESS; k++)
        err = read_block(x, shm, (me + k) % P);
    if (err == MPI_SUCCESS)
        err = own_in_segment(x) ? read_block(x, shm, me) : comm_copy_self(x);
    shm->calls++;
    return err;
}
#endif /* SMPI_SHARED_MALLOC */

int ravel_alltoallv_shm(const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype,
                        void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm)
{
    return comm_run_kernel(comm_shm_kernel, "shm", sendbuf, sendcounts,
                           sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, comm);
}
