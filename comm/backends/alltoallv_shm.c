/* shm: the ranks of one node exchange through shared memory.
 *
 * Every rank owns a segment of one shared window (MPI_Win_allocate_shared
 * on the communicator: no dependency beyond MPI), made at the first call,
 * kept with the communicator's context, grown (doubling, from 64 KiB)
 * when a call needs more, up to a limit (ravel_comm_shm_chunk: 1 MiB a
 * half by default), and freed with the communicator.  A call:
 *   1. each rank writes its blocks for the other ranks, one after another,
 *      into its own segment behind a header saying where each starts (one
 *      copy in: S bytes), then publishes the call's number, its segment's
 *      need and a failure flag in its segment's control line (a C11
 *      release store);
 *   2. each rank waits until every other rank has published this call
 *      (acquire loads: the published blocks are then visible), and so
 *      learns the largest need: when some rank's blocks did not fit, every
 *      rank grows the window at once (collective), writes again and
 *      publishes again; past the limit, the call goes in rounds (below);
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
 * A call whose largest stream (a rank's blocks one after another) does
 * not fit a half of the limit's size goes in rounds: in round j every rank
 * writes bytes [j D, (j+1) D) of its stream (D: the half less its header),
 * publishes, waits, and copies the parts of its blocks in them out; the
 * window stays bounded and a round's synchronisation is small beside its
 * D bytes of copies.  Before the limit a window grown to each closure's
 * largest exchange kept 2 x 128 MiB a rank and took 0.14 s of
 * reallocations in wiki-Vote's first iterations (bench/results/shm/).
 *
 * In ravel_exchange_run, where receive counts are not known, the header
 * gives them and the receiver copies nothing at all: its views point into
 * the senders' segments, valid until the next exchange (a half is written
 * again only in the call after next).  There the own block is written
 * into the segment too, since the caller may refill its outboxes while
 * still reading the views.  A call in rounds copies out there too (the
 * views could not outlive the next round), into the inbox's memory.
 *
 * Outboxes written in place.  An exchange handle of this backend asks for
 * its outboxes' room in the rank's half of the next call
 * (comm_shm_room: bump allocation behind the header, safe to write once
 * the rank has left the previous call, since every rank had then left the
 * one before, the half's last reader).  The caller's writes are then the
 * only copy: the call writes the header (where each block lies), and when
 * every rank's blocks are in place and the window need not grow, reads
 * them in place, in one round whatever the limit.  All of a run's
 * outboxes are in place or none (one that finds no room moves the others
 * out).  Anything that would overwrite them first moves them to the
 * handle's memory (the evacuate callback): another handle's or
 * MPI_Alltoallv's call, a growth, a call in rounds.  The window grows for
 * outboxes (each rank publishes the half it would want, its blocks and an
 * eighth) up to ravel_comm_shm_outboxes, 16 MiB a half by default, beyond
 * the chunk that bounds copies in rounds: memory the outboxes would take
 * in the handle anyway.  bench/results/shm/: 0.09 to 0.26 of vendor's
 * time in the same form from 64 KiB to 4 MiB at 2 ranks.
 *
 * shm carries no statistics for auto: to auto it is a direct exchange.
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

/* A half's header: the call it belongs to, where its data ends, then for
 * ranks 0 .. P-1 where the block for that rank starts and ends (offsets
 * from the half's start); the data follows at HEADER_ALIGN.  Blocks
 * written by the backend lie one after another in rank order, outboxes
 * written in place wherever their room was handed out. */
enum { HDR_CALL, HDR_END, HDR_BLOCKS, HEADER_ALIGN = 64,
       FIRST_HALF = 64 * 1024 };

static size_t align_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

size_t comm_shm_header(int P)
{
    return align_up((HDR_BLOCKS + 2 * (size_t)P) * sizeof(uint64_t),
                    HEADER_ALIGN);
}

/* A half of at most `bytes` (a tunable) at P ranks: at least a header and
 * one line of data, aligned, within an address space. */
static size_t half_within(uint64_t bytes, int P)
{
    size_t least = comm_shm_header(P) + HEADER_ALIGN;
    if (bytes > SIZE_MAX / 4)
        bytes = SIZE_MAX / 4;
    return align_up((size_t)bytes > least ? (size_t)bytes : least,
                    HEADER_ALIGN);
}

size_t comm_shm_limit(int P)
{
    return half_within(ravel_comm_shm_chunk(), P);
}

#ifdef SMPI_SHARED_MALLOC
/* Under SimGrid SMPI: refused (the file's comment says why). */
void comm_shm_free(comm_context *ctx) { (void)ctx; }

uint64_t comm_shm_fresh_bytes(const comm_context *ctx, uint64_t stream)
{
    (void)ctx, (void)stream;
    return 0; /* no shm: nothing to grow */
}

char *comm_shm_room(comm_context *ctx, void *owner, comm_evacuate_fn evacuate,
                    size_t bytes)
{
    (void)ctx, (void)owner, (void)evacuate, (void)bytes;
    return NULL;
}

void comm_shm_unplace(comm_context *ctx, const void *owner)
{
    (void)ctx, (void)owner;
}

int comm_shm_rooms_fit(comm_context *ctx, const void *owner,
                       const size_t *bytes, int n)
{
    (void)ctx, (void)owner, (void)bytes, (void)n;
    return 0;
}

int comm_shm_kernel(const comm_exchange *x)
{
    (void)x;
    return ravel_error_set(MPI_ERR_ARG, "backend 'shm' is not available "
                           "under SimGrid SMPI");
}
#else

/* What a rank publishes for a round, kept by the round's parity like the
 * halves: a rank may publish call k+1 while a slower one still reads what
 * it published for call k (reading the next call's need there once made
 * two ranks decide a growth apart, and wait for each other forever). */
typedef struct {
    uint64_t need;     /* bytes of a half that hold its blocks */
    uint64_t want;     /* bytes of a half its outboxes would like to be
                          written in place in; 0: none asked */
    uint64_t failed;   /* it failed before the exchange */
    uint64_t unplaced; /* its blocks are not all written in place */
} shm_note;

/* A segment's control line, in front of its two halves: `published` is
 * the number of rounds whose blocks the rank has written (stored last,
 * with release order), note[] what it said in the last two. */
typedef struct {
    _Atomic uint64_t published;
    shm_note note[2];
} shm_control;
enum { CONTROL_BYTES = 128 }; /* two cache lines: no false sharing */

struct comm_shm {
    MPI_Win win;
    char **base;        /* [P] each rank's segment, as this rank maps it */
    size_t half;        /* bytes in each half of every segment */
    size_t header;      /* bytes of a half's header, aligned */
    unsigned long long calls; /* rounds, in fact: a call may take several */
    char **dest;        /* [P] where each source's block goes, in rounds */
    /* Outboxes written in place for the next call (comm_shm_room). */
    void *placer;              /* whose, or NULL */
    comm_evacuate_fn evacuate; /* moves them to the placer's memory */
    size_t placed;             /* bytes of the half's data handed out */
    const void *asked;         /* the handle that asked for room */
};

static void shm_destroy(comm_shm *shm)
{
    if (shm->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(shm->win);
        MPI_Win_free(&shm->win);
    }
    shm->half = 0;
}

/* Moves the outboxes placed in the next half to their handle's memory,
 * unless they are `owner`'s. */
static int evacuate_others(comm_shm *shm, const void *owner)
{
    if (!shm->placer || shm->placer == owner)
        return MPI_SUCCESS;
    return shm->evacuate(shm->placer);
}

void comm_shm_free(comm_context *ctx)
{
    if (!ctx->shm)
        return;
    evacuate_others(ctx->shm, NULL); /* out of memory: nothing to keep */
    shm_destroy(ctx->shm);
    free(ctx->shm->base);
    free(ctx->shm->dest);
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
    int err = comm_window_allocate(ctx->comm, ctx->size, bytes, &shm->win,
                                   shm->base);
    if (err != MPI_SUCCESS)
        return err;
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
        char **dest = base ? calloc((size_t)ctx->size, sizeof *dest) : NULL;
        if (!dest) {
            free(base);
            free(shm);
            *out = NULL;
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                   "%d ranks' segment addresses", ctx->size);
        }
        shm->win = MPI_WIN_NULL;
        shm->base = base;
        shm->dest = dest;
        shm->header = comm_shm_header(ctx->size);
        ctx->shm = shm;
    }
    *out = ctx->shm;
    return MPI_SUCCESS;
}

/* Whether this rank writes its own block into its segment: only where the
 * receiver's view must outlive the send buffer (ravel_exchange_run). */
static int own_in_segment(const comm_exchange *x) { return x->inbox != NULL; }

/* The bytes this rank's blocks take in its segment, its own block only
 * where own_in_segment: its "stream", the blocks one after another. */
static int stream_bytes(const comm_exchange *x, uint64_t *bytes)
{
    uint64_t n = 0;
    for (int i = 0; i < x->ctx->size; i++) {
        if (i == x->ctx->rank && !own_in_segment(x))
            continue;
        if (n + x->send_bytes[i] < n)
            return ravel_error_set(MPI_ERR_COUNT, "rank %d's blocks "
                                   "overflow 64 bits", x->ctx->rank);
        n += x->send_bytes[i];
    }
    *bytes = n;
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

char *comm_shm_room(comm_context *ctx, void *owner, comm_evacuate_fn evacuate,
                    size_t bytes)
{
    comm_shm *shm = NULL;
    if (ctx->size == 1 || ctx->node_ranks < ctx->size ||
        shm_state(ctx, &shm) != MPI_SUCCESS)
        return NULL;
    shm->asked = owner;
    if (shm->win == MPI_WIN_NULL || (shm->placer && shm->placer != owner))
        return NULL;
    size_t at = align_up(shm->placed, HEADER_ALIGN);
    size_t room = shm->half - shm->header;
    if (at > room || bytes > room - at)
        return NULL;
    shm->placer = owner;
    shm->evacuate = evacuate;
    shm->placed = at + bytes;
    return half_of(shm, ctx->rank) + shm->header + at;
}

int comm_shm_rooms_fit(comm_context *ctx, const void *owner,
                       const size_t *bytes, int n)
{
    comm_shm *shm = ctx->shm;
    if (ctx->size == 1 || ctx->node_ranks < ctx->size || !shm ||
        shm->win == MPI_WIN_NULL || (shm->placer && shm->placer != owner))
        return 0;
    size_t at = shm->placer ? shm->placed : 0;
    size_t room = shm->half - shm->header;
    for (int i = 0; i < n; i++) { /* as comm_shm_room hands them out */
        at = align_up(at, HEADER_ALIGN);
        if (at > room || bytes[i] > room - at)
            return 0;
        at += bytes[i];
    }
    return 1;
}

void comm_shm_unplace(comm_context *ctx, const void *owner)
{
    comm_shm *shm = ctx->shm;
    if (shm && owner && shm->placer == owner) {
        shm->placer = NULL;
        shm->placed = 0;
    }
}

/* The half `owner`'s outboxes would be written in place in: their bytes
 * with an eighth more (their sizes change from call to call) and a line
 * per block (the rooms' alignment); 0 when the owner asked for no room. */
static uint64_t outbox_want(const comm_shm *shm, const void *owner,
                            uint64_t stream, int P)
{
    if (!owner || shm->asked != owner)
        return 0;
    uint64_t want = shm->header + stream + stream / 8 +
                    (uint64_t)P * HEADER_ALIGN;
    return want < stream ? UINT64_MAX : want;
}

/* Whether this call's blocks are `owner`'s outboxes written in place:
 * MPI_SUCCESS and *placed = 1 when every one lies in the room handed out,
 * MPI_ERR_INTERN when some lies elsewhere (never: the owner moves all of
 * them out at once, comm_shm_room). */
static int placed_blocks(const comm_exchange *x, const comm_shm *shm,
                         int *placed)
{
    *placed = x->owner && shm->placer == x->owner;
    if (!*placed)
        return MPI_SUCCESS;
    uintptr_t lo = (uintptr_t)(half_of(shm, x->ctx->rank) + shm->header);
    uintptr_t hi = lo + shm->placed;
    for (int i = 0; i < x->ctx->size; i++) {
        uintptr_t at = (uintptr_t)comm_send_block(x, i);
        if (x->send_bytes[i] &&
            (at < lo || at > hi || x->send_bytes[i] > hi - at))
            return ravel_error_set(MPI_ERR_INTERN, "rank %d's outbox for "
                                   "rank %d lies outside its shared "
                                   "segment", x->ctx->rank, i);
    }
    return MPI_SUCCESS;
}

/* Step 1's end: this round's blocks (if written) and what it found. */
static void publish(const comm_context *ctx, comm_shm *shm,
                    const shm_note *note)
{
    shm_control *c = control_of(shm, ctx->rank);
    c->note[shm->calls & 1] = *note;
    atomic_store_explicit(&c->published, shm->calls + 1,
                          memory_order_release);
}

/* What every rank's note says together: the largest need and want, and
 * whether any failed or has blocks not in place. */
static void note_merge(shm_note *all, const shm_note *one)
{
    all->need = one->need > all->need ? one->need : all->need;
    all->want = one->want > all->want ? one->want : all->want;
    all->failed |= one->failed;
    all->unplaced |= one->unplaced;
}

/* Step 2: every other rank's publication of this round, and all ranks'
 * notes merged. */
static void wait_for_all(const comm_context *ctx, const comm_shm *shm,
                         const shm_note *mine, shm_note *all)
{
    const int P = ctx->size, me = ctx->rank;
    *all = *mine;
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
        note_merge(all, &c->note[shm->calls & 1]);
    }
}

/* Publishes this round and waits for the others' (steps 1 and 2). */
static void synchronise(const comm_context *ctx, comm_shm *shm)
{
    shm_note nothing = {0}, all;
    publish(ctx, shm, &nothing);
    wait_for_all(ctx, shm, &nothing, &all);
}

/* The header of this rank's half says where block i starts and ends. */
static void header_block(uint64_t *hdr, int i, uint64_t start, uint64_t end)
{
    hdr[HDR_BLOCKS + 2 * i] = start;
    hdr[HDR_BLOCKS + 2 * i + 1] = end;
}

/* Step 1: this rank's header and the bytes [lo, hi) of its stream into its
 * half: the header's offsets are the blocks' places in the whole stream
 * (plus the header's size), a round's bytes start behind the header. */
static void write_round(const comm_exchange *x, const comm_shm *shm,
                        uint64_t lo, uint64_t hi)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    char *half = half_of(shm, me), *data = half + shm->header;
    uint64_t *hdr = (uint64_t *)half;
    uint64_t at = 0;
    hdr[HDR_CALL] = shm->calls;
    for (int i = 0; i < P; i++) {
        uint64_t len = i == me && !own_in_segment(x) ? 0 : x->send_bytes[i];
        header_block(hdr, i, shm->header + at, shm->header + at + len);
        uint64_t from = at > lo ? at : lo;
        uint64_t to = at + len < hi ? at + len : hi;
        if (from < to) /* else the block may sit at NULL */
            comm_copy(data + (from - lo),
                      comm_send_block(x, i) + (from - at), to - from);
        at += len;
    }
    hdr[HDR_END] = shm->header + at;
}

/* Step 1 of a call whose blocks are outboxes written in place: the header
 * only, saying where each lies. */
static void write_placed_header(const comm_exchange *x, const comm_shm *shm)
{
    char *half = half_of(shm, x->ctx->rank);
    uint64_t *hdr = (uint64_t *)half;
    hdr[HDR_CALL] = shm->calls;
    for (int i = 0; i < x->ctx->size; i++) {
        uint64_t start = x->send_bytes[i]
                             ? (uint64_t)(comm_send_block(x, i) - half)
                             : shm->header;
        header_block(hdr, i, start, start + x->send_bytes[i]);
    }
    hdr[HDR_END] = shm->header + shm->placed;
}

/* A header no reader takes for this round's: this rank's blocks were lost
 * (moving its outboxes out of the window failed), and every reader of
 * them fails instead of waiting or reading garbage. */
static void spoil_header(const comm_exchange *x, const comm_shm *shm)
{
    ((uint64_t *)half_of(shm, x->ctx->rank))[HDR_CALL] = UINT64_MAX;
}

/* The first call's step 2, before there is a window to publish in: the
 * notes merged by allreduce. */
static int agree(const comm_context *ctx, const shm_note *mine,
                 shm_note *all)
{
    uint64_t v[4] = {mine->need, mine->want, mine->failed, mine->unplaced};
    uint64_t w[4];
    int err = comm_allreduce(ctx, v, w, 4, MPI_UINT64_T, MPI_MAX);
    if (err != MPI_SUCCESS)
        return err;
    *all = (shm_note){w[0], w[1], w[2], w[3]};
    return MPI_SUCCESS;
}

/* The most bytes a half holds for outboxes written in place (never less
 * than comm_shm_limit: ravel_comm_shm_outboxes is at least the chunk). */
static size_t outbox_limit(int P)
{
    return half_within(ravel_comm_shm_outboxes(), P);
}

/* The half the window grows to, 0 for none: to the largest need, within
 * the limit (ravel_comm_shm_chunk), or to the largest want, within the
 * outboxes' (ravel_comm_shm_outboxes).  Doubling: a run whose exchanges
 * grow reallocates a few times only.  Every rank decides on the same
 * notes. */
static size_t grown_half(size_t now, int P, uint64_t need, uint64_t want)
{
    size_t limit = comm_shm_limit(P);
    uint64_t target = 0;
    if (need > now && now < limit)
        target = need;
    size_t outboxes = outbox_limit(P);
    if (want > now && now < outboxes) {
        limit = outboxes;
        target = want > target ? want : target;
    }
    if (target == 0)
        return 0;
    size_t half = now ? 2 * now : FIRST_HALF;
    while (half < target && half < limit)
        half *= 2;
    return half > limit ? limit : half;
}

static size_t growth(const comm_context *ctx, const comm_shm *shm,
                     const shm_note *all)
{
    return grown_half(shm->half, ctx->size, all->need, all->want);
}

uint64_t comm_shm_fresh_bytes(const comm_context *ctx, uint64_t stream)
{
    const comm_shm *shm = ctx->shm;
    const int P = ctx->size;
    uint64_t need = comm_shm_header(P) + stream;
    need = need < stream ? UINT64_MAX : need;
    /* the handle that asked for room asks for it again (outbox_want) */
    uint64_t want = shm && shm->asked ? outbox_want(shm, shm->asked, stream, P)
                                      : 0;
    size_t half = grown_half(shm ? shm->half : 0, P, need, want);
    return half > FIRST_HALF ? (uint64_t)half : 0;
}

/* Grows the window to halves of `half` bytes (all ranks call it together,
 * having seen the same notes); the halves' old contents and the control
 * lines are dropped, every rank having published this call (so having
 * read the last) and none having read this one. */
static int grow(comm_context *ctx, comm_shm *shm, size_t half)
{
    shm_destroy(shm);
    return shm_create(ctx, half);
}

/* The bytes of the half every round uses in a window of halves of `half`
 * bytes: all of it, within the limit (which may have been lowered since
 * the window grew). */
static size_t round_half(int P, size_t half)
{
    size_t limit = comm_shm_limit(P);
    return half < limit ? half : limit;
}

/* src's block for this rank, [from, to) in src's stream, as its header
 * says (the same in every round of a call), checked against the half. */
static int block_of(const comm_exchange *x, const comm_shm *shm, int src,
                    size_t round_half, uint64_t rounds, uint64_t *from,
                    uint64_t *to)
{
    const int me = x->ctx->rank;
    const uint64_t *hdr = (const uint64_t *)half_of(shm, src);
    uint64_t h = shm->header, end = hdr[HDR_END];
    uint64_t start = hdr[HDR_BLOCKS + 2 * me];
    *from = start - h;
    *to = hdr[HDR_BLOCKS + 2 * me + 1] - h;
    if (hdr[HDR_CALL] != shm->calls || start < h || end < h ||
        *from > *to || *to > end - h ||
        end - h > rounds * (round_half - h))
        return ravel_error_set(MPI_ERR_INTERN, "rank %d's segment does "
                               "not hold round %llu's blocks", src,
                               shm->calls);
    return MPI_SUCCESS;
}

/* Step 3 of round j of a call in rounds (round j holds the bytes [j D,
 * (j+1) D) of every stream): the part of src's block in it, copied to
 * where the block goes (dest[src], found in round 0). */
static int read_piece(const comm_exchange *x, comm_shm *shm, int src,
                      uint64_t j, uint64_t rounds, size_t round_half)
{
    uint64_t from, to, D = round_half - shm->header;
    int err = block_of(x, shm, src, round_half, rounds, &from, &to);
    if (err == MPI_SUCCESS && j == 0)
        err = comm_recv_block(x, src, (size_t)(to - from), &shm->dest[src]);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t lo = j * D, hi = lo + D;
    uint64_t a = from > lo ? from : lo, b = to < hi ? to : hi;
    if (a < b)
        comm_copy(shm->dest[src] + (a - from),
                  half_of(shm, src) + shm->header + (a - lo), b - a);
    return MPI_SUCCESS;
}

/* Step 3 of a call in one round: src's block for this rank, a view into
 * src's segment inside ravel_exchange_run (no copy), else copied out (the
 * one round of a call in rounds). */
static int read_block(const comm_exchange *x, comm_shm *shm, int src)
{
    if (!x->inbox)
        return read_piece(x, shm, src, 0, 1, shm->half);
    uint64_t from, to;
    int err = block_of(x, shm, src, shm->half, 1, &from, &to);
    if (err != MPI_SUCCESS)
        return err;
    size_t len = (size_t)(to - from);
    comm_inbox_view(x->inbox, src,
                    len ? half_of(shm, src) + shm->header + from : NULL, len);
    return MPI_SUCCESS;
}

/* Step 1 of a round once the call's blocks are decided: this rank's
 * stream [lo, hi), or a spoiled header when its blocks were lost. */
static void write_or_spoil(const comm_exchange *x, const comm_shm *shm,
                           int lost, uint64_t lo, uint64_t hi)
{
    if (lost)
        spoil_header(x, shm);
    else
        write_round(x, shm, lo, hi);
}

/* A call whose largest stream does not fit a half: in rounds of D bytes of
 * every stream, each a write, a synchronisation and a read.  Nothing stays
 * in the window past the call (the receiver copies out, also inside
 * ravel_exchange_run).  Starts at shm->calls and leaves it at the last
 * round's number. */
static int exchange_in_rounds(const comm_exchange *x, comm_shm *shm,
                              uint64_t max_stream, int lost)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    size_t half = round_half(P, shm->half);
    uint64_t D = half - shm->header;
    uint64_t rounds = (max_stream + D - 1) / D;
    int err = lost;
    for (uint64_t j = 0; j < rounds; j++) {
        if (j > 0)
            shm->calls++;
        write_or_spoil(x, shm, lost, j * D, (j + 1) * D);
        synchronise(x->ctx, shm);
        /* A rank that failed reading goes on writing and synchronising:
         * the others wait for every round. */
        for (int k = 1; k < P && err == MPI_SUCCESS; k++)
            err = read_piece(x, shm, (me + k) % P, j, rounds, half);
        if (err == MPI_SUCCESS && own_in_segment(x))
            err = read_piece(x, shm, me, j, rounds, half);
    }
    return err;
}

/* The call proper (comm_shm_kernel): `failed` is what went wrong on this
 * rank before it (said to the others, so that all fail alike). */
static int shm_exchange(const comm_exchange *x, comm_shm *shm, int failed)
{
    comm_context *ctx = (comm_context *)x->ctx;
    const int P = ctx->size, me = ctx->rank;
    uint64_t stream = 0;
    int placed = 0;
    if (failed == MPI_SUCCESS)
        failed = stream_bytes(x, &stream);
    if (failed == MPI_SUCCESS)
        failed = placed_blocks(x, shm, &placed);
    shm_note mine = {0}, all;
    if (failed == MPI_SUCCESS) {
        /* need: the bytes of a half that holds the whole stream (or the
         * room handed out to outboxes written in place). */
        mine.need = shm->header + (placed ? shm->placed : stream);
        mine.want = outbox_want(shm, x->owner, stream, P);
    }
    mine.failed = failed != MPI_SUCCESS;
    mine.unplaced = !placed && stream > 0; /* nothing to place: in place */
    int err = MPI_SUCCESS;
    /* No window yet (or no state to keep one in): agree by allreduce. */
    int by_lines = shm && shm->win != MPI_WIN_NULL;
    if (!by_lines) {
        err = agree(ctx, &mine, &all);
    } else {
        if (placed)
            write_placed_header(x, shm);
        else if (failed == MPI_SUCCESS &&
                 mine.need <= round_half(P, shm->half))
            write_round(x, shm, 0, stream);
        publish(ctx, shm, &mine);
        wait_for_all(ctx, shm, &mine, &all);
    }
    if (err != MPI_SUCCESS)
        return err;
    if (all.failed) {
        /* Every rank published this call's number: the next call takes
         * the next, or its wait would pass on this call's publications
         * and read halves their writers had not written yet. */
        if (by_lines)
            shm->calls++;
        return failed != MPI_SUCCESS
                   ? failed
                   : ravel_error_set(MPI_ERR_OTHER, "another rank "
                                     "failed before the exchange");
    }
    /* Every rank decides on the same numbers: `all` and the window.  In
     * place when every rank's outboxes are and no growth moves them; else
     * in one round while the largest need fits a round's half, or in
     * rounds. */
    size_t half = growth(ctx, shm, &all);
    int in_place = !all.unplaced && !half;
    int rounds = all.need > round_half(P, half ? half : shm->half) &&
                 !(in_place && all.need <= shm->half);
    /* Outboxes written in place that the call cannot read where they are
     * go to the handle's memory first; if that fails, this rank's blocks
     * are lost, and it says so through its headers. */
    int lost = MPI_SUCCESS;
    if (placed && (half || rounds))
        lost = shm->evacuate(x->owner);
    int fresh = 0; /* this call's number not published in this window */
    if (half) {
        err = grow(ctx, shm, half);
        if (err != MPI_SUCCESS)
            return err;
        fresh = 1;
    }
    uint64_t sent_blocks = 0, sent_bytes = 0;
    for (int i = 0; i < P; i++)
        if (i != me && x->send_bytes[i]) {
            sent_blocks++;
            sent_bytes += x->send_bytes[i];
        }
    comm_stats_add(sent_blocks, sent_bytes);
    if (rounds) {
        /* This call's first publication only said its need. */
        if (!fresh)
            shm->calls++;
        err = exchange_in_rounds(x, shm, all.need - shm->header, lost);
        if (err == MPI_SUCCESS && !own_in_segment(x))
            err = comm_copy_self(x);
        shm->calls++;
        return err;
    }
    if (fresh) { /* the grown window holds the call: write it there */
        write_or_spoil(x, shm, lost, 0, stream);
        synchronise(ctx, shm);
    }
    err = lost;
    for (int k = 1; k < P && err == MPI_SUCCESS; k++)
        err = read_block(x, shm, (me + k) % P);
    if (err == MPI_SUCCESS)
        err = own_in_segment(x) ? read_block(x, shm, me) : comm_copy_self(x);
    shm->calls++;
    return err;
}

int comm_shm_kernel(const comm_exchange *x)
{
    comm_context *ctx = (comm_context *)x->ctx;
    const int P = ctx->size;
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
    /* Another handle's outboxes written in place would be overwritten. */
    if (failed == MPI_SUCCESS)
        failed = evacuate_others(shm, x->owner);
    int err = shm_exchange(x, shm, failed);
    if (shm) { /* the placement and the asking were for this call */
        comm_shm_unplace(ctx, x->owner);
        if (shm->asked == x->owner)
            shm->asked = NULL;
    }
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
