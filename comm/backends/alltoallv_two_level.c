/* two-level:INNER: many ranks per node, several nodes.  The ranks of a node
 * combine their data at relays, relays of different nodes exchange it with
 * backend INNER (any other backend, by name), and relays hand it out on
 * their node.
 *
 * Relays: every rank is one.  The node's k ranks are slots 0 .. k-1 (in
 * the communicator's order), and slot c relays every byte its node sends
 * to a rank of slot c anywhere: one communicator per slot (the "column":
 * the slot-c rank of every node), INNER run on it.  So a node's traffic
 * leaves through all its k ranks, each with 1/k of it, and each rank posts
 * messages to n - 1 other nodes instead of P - 1 other ranks.  One leader
 * per node (the other choice the design allows) would post as few
 * messages but copy the whole node's data alone, twice, while k - 1 ranks
 * wait: at 64 ranks a node that is 64 times one rank's copying, against
 * the per-message cost it saves (argued with numbers in
 * bench/results/two_level/README.md).  This is the node-aware exchange of
 * Bienz, Gropp and Olson ("Node aware sparse matrix-vector multiplication",
 * JPDC 2019), with any backend across nodes.
 *
 * One call, rank of slot i on node a, its node of k ranks:
 *   1. within the node, through its shared window (one segment per rank,
 *      MPI_Win_allocate_shared on the node's communicator, kept with the
 *      context): each rank writes into its own segment, for each slot c,
 *      the sizes of its blocks for slot c's ranks of every node (node
 *      order, then slot order), (uneven nodes only, below) the sizes of
 *      the blocks c will pass on to it, and those blocks, one after
 *      another.  One allreduce of the segments' need first (every rank
 *      has then left the last call, so nobody still reads a segment; a
 *      need past the segments grows the window, doubling from 64 KiB),
 *      one barrier after (with MPI_Win_sync on both sides: the writes are
 *      visible);
 *   2. across nodes, INNER on column i: to the slot-i rank of each node b,
 *      the blocks of every rank of node a for node b's slot-i rank, in the
 *      node's slot order, packed straight out of the node's segments.
 *      What arrives is this rank's whole receive, put in place;
 *   3. (uneven nodes only) within the node, by `shm`: what was relayed
 *      (below).
 * No message within the node but the allreduce and the barrier.  Under
 * SimGrid SMPI, whose MPI_Win_shared_query hands a rank only its own
 * segment, each rank allocates its segment and the node's ranks learn the
 * addresses by one allgather (the simulated ranks are threads of one
 * process); the allreduce and the barrier are simulated as messages at
 * the platform's intra-node cost, the copies charged as every copy is;
 * step 3 goes by spread-out there.
 *
 * Uneven nodes (P not a multiple of the node size, or a short node): the
 * relay on node a for the ranks of slot q of other nodes is slot q mod k,
 * and the rank that receives it on node b is b's slot q mod k, which
 * exists because q mod k <= q < k_b.  When that is not q itself, the
 * block is relayed once more, in step 3, to slot q, who told the relay the
 * sizes to expect in step 1 (it knows its receive counts).  With nodes of
 * equal size nothing is relayed and step 3 is skipped: every rank knows
 * the node sizes.
 *
 * Costs, per rank, nodes of k ranks, n nodes: an allreduce and a barrier
 * on the node, INNER's on n ranks with blocks k times larger (sizes: 4
 * bytes a block, up to 2^31 - 1 as MPI's counts); copies: each block into
 * the segment, packed for step 2 (a relay gathers its node's pieces per
 * destination node), and copied to its place at the end (S + Z + R' + R
 * bytes, R' the relay's sends, besides INNER's own).  The own block and
 * the node's own data travel the same way (through column i's own rank).
 *
 * Steps 2 and 3 are MPI_Alltoallv-signature calls with int counts, so a
 * relay's total for one step must fit in an int: past that it fails with
 * MPI_ERR_COUNT, as MPI_Alltoallv would, and its peers are not told
 * (a rank with a block over INT_MAX fails with its whole node, which the
 * allreduce of step 1 tells, but nodes do not tell each other).  Tiling the
 * copies in cache-sized pieces (Li, Zhang and Hoefler) is not done. */
#include "comm_internal.h"

#include "ravel/error.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct comm_two_level {
    MPI_Comm node, column;
    int nodes;        /* n */
    int uneven;       /* some nodes have fewer ranks than others */
    int me_node, me_slot, k; /* this rank's node, slot, node size */
    int *first;       /* [n + 1]: node b's ranks are member[first[b] ..] */
    int *member;      /* [P]: ranks by node, then slot */
    int *column_rank; /* [n]: node b's rank in this rank's column, or -1 */
    comm_context *node_ctx;
    /* The node's window: one segment per rank, grown as needed. */
    MPI_Win win;
    char *own;        /* under SMPI: this rank's segment (no window) */
    size_t segment;   /* bytes of each rank's segment */
    char **base;      /* [k]: each slot's segment */
    /* Where this rank's part of slot q's sizes starts in q's, and how many
     * words it has; the words this rank writes for each slot (the node
     * map fixes them). */
    size_t *part_at, *part_words, *words_for; /* [k] each */
    /* per call */
    const uint32_t **sizes_from; /* [k]: slot q's sizes for this relay */
    const char **blocks_from;    /* [k]: slot q's blocks for it */
    int *ints;        /* [4 k + 4 n]: the steps' counts and offsets */
    size_t *cursor;   /* [max(k, n)] */
    char *buf[3];
    size_t cap[3];
};

/* A segment: the byte offsets of the blocks for each slot and their end
 * (k + 1 words), the sizes for every slot, the blocks.  The first window
 * has segments of FIRST_SEGMENT bytes; a call that needs more doubles
 * them. */
enum { ALIGN = 64, FIRST_SEGMENT = 64 * 1024 };

static size_t align_up(size_t n) { return (n + ALIGN - 1) / ALIGN * ALIGN; }

static void window_free(comm_two_level *t);

static int size_of(const comm_two_level *t, int b)
{
    return t->first[b + 1] - t->first[b];
}

static int member_of(const comm_two_level *t, int b, int q)
{
    return t->member[t->first[b] + q];
}

/* How many of slots c, c + k, c + 2k, ... a node of kb ranks has. */
static int slots_from(int c, int k, int kb)
{
    return c < kb ? (kb - 1 - c) / k + 1 : 0;
}

/* Whether blocks from a node of kd ranks to this rank's slot q arrive
 * through slot c of this node in step 3 (relayed once more). */
static int relayed_via(int q, int kd, int c)
{
    return q >= kd && q % kd == c;
}

/* The sizes slot q writes for slot c in step 1: those of q's blocks for c's slots
 * of every node, and those of the blocks c passes on to q (uneven
 * nodes). */
static size_t step1_words(const comm_two_level *t, int q, int c)
{
    size_t words = 0;
    for (int b = 0; b < t->nodes; b++) {
        words += (size_t)slots_from(c, t->k, size_of(t, b));
        if (relayed_via(q, size_of(t, b), c))
            words += (size_t)size_of(t, b);
    }
    return words;
}

void comm_two_level_free(comm_context *ctx)
{
    comm_two_level *t = ctx->two_level;
    if (!t)
        return;
    window_free(t); /* before its communicator */
    if (t->node != MPI_COMM_NULL)
        MPI_Comm_free(&t->node);
    if (t->column != MPI_COMM_NULL)
        MPI_Comm_free(&t->column);
    free(t->first);
    free(t->member);
    free(t->column_rank);
    free(t->base);
    free(t->part_at);
    free(t->part_words);
    free(t->words_for);
    free(t->sizes_from);
    free(t->blocks_from);
    free(t->ints);
    free(t->cursor);
    for (int b = 0; b < 3; b++)
        comm_payload_free(t->buf[b]);
    free(t);
    ctx->two_level = NULL;
}

/* Makes an internal communicator return errors and wait as ctx does. */
static int adopt(const comm_context *ctx, MPI_Comm comm)
{
    int err = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    comm_context *inner;
    if (err == MPI_SUCCESS)
        err = comm_context_get(comm, &inner);
    if (err == MPI_SUCCESS)
        inner->wait = ctx->wait;
    return err;
}

/* The map of the nodes: every rank learns each rank's node leader (its
 * node's first rank) by one allgather, and numbers the nodes by it. */
static int map_nodes(comm_context *ctx, comm_two_level *t)
{
    const int P = ctx->size;
    int *leader = malloc((size_t)P * sizeof *leader);
    int *node_of = malloc((size_t)P * sizeof *node_of);
    int *count = calloc((size_t)P + 1, sizeof *count);
    t->first = calloc((size_t)P + 1, sizeof *t->first);
    t->member = malloc((size_t)P * sizeof *t->member);
    int err = MPI_SUCCESS;
    if (!leader || !node_of || !count || !t->first || !t->member)
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the node "
                              "map of %d ranks", P);
    int mine = ctx->rank;
    if (err == MPI_SUCCESS)
        err = MPI_Bcast(&mine, 1, MPI_INT, 0, t->node);
    if (err == MPI_SUCCESS)
        err = MPI_Allgather(&mine, 1, MPI_INT, leader, 1, MPI_INT,
                            ctx->comm);
    if (err == MPI_SUCCESS) {
        /* A node's leader is its lowest rank: nodes numbered as met. */
        int n = 0;
        for (int r = 0; r < P; r++) {
            node_of[r] = leader[r] == r ? n++ : node_of[leader[r]];
            count[node_of[r] + 1]++;
        }
        t->nodes = n;
        for (int b = 0; b < n; b++)
            t->first[b + 1] = t->first[b] + count[b + 1];
        memset(count, 0, (size_t)n * sizeof *count);
        for (int r = 0; r < P; r++) {
            int b = node_of[r];
            if (r == ctx->rank) {
                t->me_node = b;
                t->me_slot = count[b];
            }
            t->member[t->first[b] + count[b]++] = r;
        }
        t->k = size_of(t, t->me_node);
        for (int b = 0; b < n; b++)
            t->uneven |= size_of(t, b) != size_of(t, 0);
    }
    free(leader);
    free(node_of);
    free(count);
    return err;
}

/* The context's state, made on the first call (collective). */
static int two_level_state(comm_context *ctx, comm_two_level **out)
{
    if (ctx->two_level) {
        *out = ctx->two_level;
        return MPI_SUCCESS;
    }
    comm_two_level *t = calloc(1, sizeof *t);
    if (!t)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    t->node = t->column = MPI_COMM_NULL;
    t->win = MPI_WIN_NULL;
    ctx->two_level = t;
    int err = comm_node_comm(ctx->comm, &t->node);
    if (err == MPI_SUCCESS)
        err = map_nodes(ctx, t);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_split(ctx->comm, t->me_slot, t->me_node, &t->column);
    if (err == MPI_SUCCESS)
        err = adopt(ctx, t->node);
    if (err == MPI_SUCCESS)
        err = adopt(ctx, t->column);
    if (err == MPI_SUCCESS)
        err = comm_context_get(t->node, &t->node_ctx);
    const int n = t->nodes, k = t->k;
    if (err == MPI_SUCCESS) {
        t->column_rank = malloc((size_t)n * sizeof *t->column_rank);
        t->base = calloc((size_t)k, sizeof *t->base);
        t->part_at = malloc((size_t)k * sizeof *t->part_at);
        t->part_words = malloc((size_t)k * sizeof *t->part_words);
        t->words_for = malloc((size_t)k * sizeof *t->words_for);
        t->sizes_from = malloc((size_t)k * sizeof *t->sizes_from);
        t->blocks_from = malloc((size_t)k * sizeof *t->blocks_from);
        t->ints = malloc((4 * (size_t)k + 4 * (size_t)n) * sizeof *t->ints);
        t->cursor = malloc((size_t)(k > n ? k : n) * sizeof *t->cursor);
        if (!t->column_rank || !t->base || !t->part_at || !t->part_words ||
            !t->words_for || !t->sizes_from || !t->blocks_from || !t->ints ||
            !t->cursor)
            err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    }
    if (err == MPI_SUCCESS) {
        for (int b = 0, r = 0; b < n; b++)
            t->column_rank[b] = size_of(t, b) > t->me_slot ? r++ : -1;
        for (int q = 0; q < k; q++) {
            size_t at = 0;
            for (int c = 0; c < t->me_slot; c++)
                at += step1_words(t, q, c);
            t->part_at[q] = at;
            t->part_words[q] = step1_words(t, q, t->me_slot);
            t->words_for[q] = step1_words(t, t->me_slot, q);
        }
    }
    if (err != MPI_SUCCESS) {
        comm_two_level_free(ctx);
        return err;
    }
    *out = t;
    return MPI_SUCCESS;
}

/* Buffer b of at least `bytes` (contents not kept). */
static int grow(comm_two_level *t, int b, size_t bytes)
{
    if (bytes <= t->cap[b] && t->buf[b])
        return MPI_SUCCESS;
    comm_payload_free(t->buf[b]);
    t->buf[b] = comm_payload_alloc(bytes, 0);
    t->cap[b] = t->buf[b] ? bytes : 0;
    return t->buf[b] ? MPI_SUCCESS
                     : ravel_error_set(MPI_ERR_NO_MEM, "out of memory for "
                                       "%zu bytes of two-level staging",
                                       bytes);
}

#ifdef SMPI_SHARED_MALLOC
/* Under SimGrid SMPI, whose MPI_Win_shared_query hands a rank only its own
 * segment, the simulated ranks (threads of one process) share memory
 * anyway: each allocates its segment and the node's ranks learn the
 * addresses by one allgather.  The sizes at its front stay private; the
 * blocks behind them are payload, shared by all ranks in a timing run. */
static int window_create(comm_two_level *t, size_t segment, size_t prefix)
{
    char *mine = comm_payload_alloc_private_prefix(segment, prefix);
    if (!mine)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for a "
                               "segment of %zu bytes", segment);
    uint64_t at = (uint64_t)(uintptr_t)mine;
    uint64_t *all = malloc((size_t)t->k * sizeof *all);
    int err = all ? MPI_Allgather(&at, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                                  t->node)
                  : ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    for (int q = 0; err == MPI_SUCCESS && q < t->k; q++)
        t->base[q] = (char *)(uintptr_t)all[q];
    free(all);
    if (err != MPI_SUCCESS) {
        comm_payload_free(mine);
        return err;
    }
    t->own = mine;
    t->segment = segment;
    return MPI_SUCCESS;
}

static void window_free(comm_two_level *t)
{
    comm_payload_free(t->own);
    t->own = NULL;
}

static int has_window(const comm_two_level *t) { return t->own != NULL; }

/* What each rank wrote is there for every rank of the node to read. */
static int window_sync(comm_two_level *t)
{
    return comm_barrier(t->node_ctx);
}
#else
/* A window of segments of `segment` bytes on the node (collective). */
static int window_create(comm_two_level *t, size_t segment, size_t prefix)
{
    (void)prefix;
    int err = comm_window_allocate(t->node, t->k, segment, &t->win, t->base);
    if (err == MPI_SUCCESS)
        t->segment = segment;
    return err;
}

static void window_free(comm_two_level *t)
{
    if (t->win == MPI_WIN_NULL)
        return;
    MPI_Win_unlock_all(t->win);
    MPI_Win_free(&t->win);
}

static int has_window(const comm_two_level *t)
{
    return t->win != MPI_WIN_NULL;
}

/* What each rank wrote is visible to every rank of the node. */
static int window_sync(comm_two_level *t)
{
    int err = MPI_Win_sync(t->win);
    if (err == MPI_SUCCESS)
        err = comm_barrier(t->node_ctx);
    if (err == MPI_SUCCESS)
        err = MPI_Win_sync(t->win);
    return err;
}
#endif

/* Every rank of the node has entered this call (so none still reads the
 * last one's segments), and the segments hold `need` bytes, the first
 * `prefix` of them sizes: one allreduce of the largest need, and a larger
 * window when it does not fit.  A rank that failed before says so with a
 * need of FAILED_NEED, and every rank of its node fails with it. */
#define FAILED_NEED UINT64_MAX
static int window_ready(comm_two_level *t, uint64_t need, size_t prefix)
{
    uint64_t most = 0;
    int err = comm_allreduce(t->node_ctx, &need, &most, 1, MPI_UINT64_T,
                             MPI_MAX);
    if (err == MPI_SUCCESS && most == FAILED_NEED)
        return need == FAILED_NEED
                   ? MPI_ERR_COUNT
                   : ravel_error_set(MPI_ERR_OTHER, "two-level: another "
                                     "rank of this node failed");
    if (err != MPI_SUCCESS || (most <= t->segment && has_window(t)))
        return err;
    size_t segment = t->segment ? t->segment : FIRST_SEGMENT;
    while (segment < most)
        segment = segment <= SIZE_MAX / 2 ? 2 * segment : (size_t)most;
    window_free(t);
    return window_create(t, segment, prefix);
}

/* counts[] as int counts with displacements back to back; *total their
 * sum.  MPI_ERR_COUNT when a displacement passes INT_MAX. */
static int lay_out(const size_t *counts, int m, int *ints, int *displs,
                   size_t *total, const char *what)
{
    size_t at = 0;
    for (int j = 0; j < m; j++) {
        int err = comm_int_count(at, what, &displs[j]);
        if (err == MPI_SUCCESS)
            err = comm_int_count(counts[j], what, &ints[j]);
        if (err != MPI_SUCCESS)
            return err;
        at += counts[j];
    }
    *total = at;
    return MPI_SUCCESS;
}

/* The exchange of uneven nodes' last step within the node: shm, or under
 * SimGrid spread-out (messages at the intra-node cost), whose messages go
 * from and to two-level's own buffers. */
static ravel_alltoallv_fn intra_exchange(void)
{
#ifdef SMPI_SHARED_MALLOC
    return ravel_alltoallv_spread_out;
#else
    return ravel_alltoallv_shm;
#endif
}

const char *comm_two_level_intra_name(void)
{
    return intra_exchange() == ravel_alltoallv_shm ? "shm" : "spread-out";
}

/* ---- one entry point per inner backend in use -------------------------- */

/* 16: auto weighs two-level over 11 inner backends (cost_model.c), and a
 * caller may name others. */
enum { INNER_SLOTS = 16, NAME_LEN = 48 };
static char slot_name[INNER_SLOTS][NAME_LEN];
static ravel_alltoallv_fn slot_inner[INNER_SLOTS];
static int slots_used;

static int two_level_kernel(const comm_exchange *x)
{
    comm_context *ctx = (comm_context *)x->ctx;
    comm_two_level *t = NULL;
    int err = two_level_state(ctx, &t);
    if (err != MPI_SUCCESS)
        return err;
    ravel_alltoallv_fn inner = slot_inner[x->param];
    const int n = t->nodes, k = t->k, i = t->me_slot;
    const int cols = n; /* at most; column_rank says who is in */
    int *no_c = t->ints, *no_d = no_c + k, *ni_c = no_d + k, *ni_d = ni_c + k;
    int *co_c = ni_d + k, *co_d = co_c + cols, *ci_c = co_d + cols,
        *ci_d = ci_c + cols;
    size_t *cur = t->cursor;

    /* Every block must fit the 4-byte sizes (and MPI's int counts); a rank
     * with one that does not still joins its node's allreduce, failed. */
    int too_large = 0;
    for (int r = 0; r < ctx->size && !too_large; r++)
        if (x->send_bytes[r] > INT_MAX || x->recv_bytes[r] > INT_MAX)
            too_large = ravel_error_set(MPI_ERR_COUNT, "two-level: a block "
                                        "of %zu bytes (with rank %d) is "
                                        "more than an int counts",
                                        x->send_bytes[r] > INT_MAX
                                            ? x->send_bytes[r]
                                            : x->recv_bytes[r], r);

    /* ---- step 1: sizes and blocks into the node's window ---- */
    const size_t offsets = align_up(((size_t)k + 1) * sizeof(uint64_t));
    size_t words = 0, bytes = 0;
    for (int c = 0; c < k; c++)
        words += t->words_for[c];
    for (int r = 0; r < ctx->size; r++)
        bytes += x->send_bytes[r];
    const size_t sizes_end = offsets + align_up(words * sizeof(uint32_t));
    err = window_ready(t, too_large ? FAILED_NEED : sizes_end + bytes,
                       sizes_end);
    if (err != MPI_SUCCESS)
        return err;
    char *mine = t->base[i];
    uint64_t *block_at = (uint64_t *)mine;
    uint32_t *m = (uint32_t *)(mine + offsets);
    char *to = mine + sizes_end;
    for (int c = 0; c < k; c++) {
        block_at[c] = (uint64_t)(to - mine);
        for (int b = 0; b < n; b++)
            for (int q = c; q < size_of(t, b); q += k) {
                int r = member_of(t, b, q);
                size_t len = x->send_bytes[r];
                *m++ = (uint32_t)len;
                if (len) {
                    comm_copy(to, comm_send_block(x, r), len);
                    to += len;
                }
            }
        for (int d = 0; d < n; d++)
            if (relayed_via(i, size_of(t, d), c))
                for (int s = 0; s < size_of(t, d); s++)
                    *m++ = (uint32_t)x->recv_bytes[member_of(t, d, s)];
    }
    block_at[k] = (uint64_t)(to - mine);
    err = window_sync(t);
    if (err != MPI_SUCCESS)
        return err;
    for (int q = 0; q < k; q++) {
        const char *theirs = t->base[q];
        t->sizes_from[q] =
            (const uint32_t *)(theirs + offsets) + t->part_at[q];
        t->blocks_from[q] = theirs + ((const uint64_t *)theirs)[i];
    }
    int nS = 0; /* sizes per sender for this relay's blocks */
    for (int b = 0; b < n; b++)
        nS += slots_from(i, k, size_of(t, b));

    /* ---- step 2: across nodes, on this rank's column ---- */
    /* To node b: each slot s's section for b, in slot order. */
    for (int b = 0; b < n; b++)
        cur[b] = 0;
    for (int s = 0; s < k; s++) {
        const uint32_t *m = t->sizes_from[s];
        for (int b = 0; b < n; b++)
            for (int q = i; q < size_of(t, b); q += k)
                cur[b] += *m++;
    }
    int m2 = 0;
    for (int b = 0; b < n; b++)
        if (t->column_rank[b] >= 0)
            cur[m2++] = cur[b];
    size_t out2;
    err = lay_out(cur, m2, co_c, co_d, &out2, "two-level step 2");
    /* From node d: its slots' blocks for slots q of this node with
     * q mod k_d == i, q == i this rank's own, the others relayed. */
    size_t in2 = 0;
    for (int d = 0, j = 0; d < n && err == MPI_SUCCESS; d++) {
        if (t->column_rank[d] < 0)
            continue;
        const int kd = size_of(t, d);
        size_t bytes = 0;
        for (int s = 0; s < kd; s++)
            bytes += x->recv_bytes[member_of(t, d, s)];
        for (int q = i + kd; q < k; q += kd) {
            /* slot q told this relay its sizes from d, in step 1 */
            const uint32_t *m = t->sizes_from[q] + nS;
            for (int e = 0; e < d; e++)
                if (relayed_via(q, size_of(t, e), i))
                    m += size_of(t, e);
            for (int s = 0; s < kd; s++)
                bytes += m[s];
        }
        cur[j++] = bytes;
    }
    if (err == MPI_SUCCESS)
        err = lay_out(cur, m2, ci_c, ci_d, &in2, "two-level step 2");
    if (err == MPI_SUCCESS)
        err = grow(t, 2, out2);
    if (err == MPI_SUCCESS)
        err = grow(t, 0, in2);
    if (err != MPI_SUCCESS)
        return err;
    for (int b = 0, j = 0; b < n; b++)
        if (t->column_rank[b] >= 0)
            cur[b] = (size_t)co_d[j++];
    for (int s = 0; s < k; s++) {
        const uint32_t *m = t->sizes_from[s];
        const char *from = t->blocks_from[s];
        for (int b = 0; b < n; b++) {
            size_t len = 0;
            for (int q = i; q < size_of(t, b); q += k)
                len += *m++;
            if (len) { /* only nodes in the column have sections */
                comm_copy(t->buf[2] + cur[b], from, len);
                cur[b] += len;
                from += len;
            }
        }
    }
    err = inner(t->buf[2], co_c, co_d, MPI_BYTE, t->buf[0], ci_c, ci_d,
                MPI_BYTE, t->column);
    if (err != MPI_SUCCESS)
        return err;

    /* ---- the own blocks to their places; relayed ones to step 3 ---- */
    size_t out3 = 0;
    if (t->uneven)
        for (int q = 0; q < k; q++) {
            size_t bytes = 0;
            const uint32_t *m = t->sizes_from[q] + nS;
            const uint32_t *end = t->sizes_from[q] + t->part_words[q];
            for (; m < end; m++)
                bytes += *m;
            cur[q] = bytes;
        }
    if (t->uneven) {
        err = lay_out(cur, k, no_c, no_d, &out3, "two-level step 3");
        if (err == MPI_SUCCESS)
            err = grow(t, 1, out3);
        if (err != MPI_SUCCESS)
            return err;
        for (int q = 0; q < k; q++)
            cur[q] = (size_t)no_d[q];
    }
    for (int d = 0, j = 0; d < n; d++) {
        if (t->column_rank[d] < 0)
            continue;
        const int kd = size_of(t, d);
        const char *from = t->buf[0] + ci_d[j++];
        for (int s = 0; s < kd; s++) {
            const int src = member_of(t, d, s);
            size_t len = x->recv_bytes[src];
            if (len) {
                comm_copy(x->recvbuf + x->recv_offset[src], from, len);
                from += len;
            }
            for (int q = i + kd; q < k; q += kd) {
                const uint32_t *m = t->sizes_from[q] + nS;
                for (int e = 0; e < d; e++)
                    if (relayed_via(q, size_of(t, e), i))
                        m += size_of(t, e);
                len = m[s];
                if (len) {
                    comm_copy(t->buf[1] + cur[q], from, len);
                    cur[q] += len;
                    from += len;
                }
            }
        }
    }
    if (!t->uneven)
        return MPI_SUCCESS;

    /* ---- step 3 (uneven nodes): relayed blocks within the node ---- */
    size_t in3 = 0;
    for (int c = 0; c < k; c++) {
        size_t bytes = 0;
        for (int d = 0; d < n; d++)
            if (relayed_via(i, size_of(t, d), c))
                for (int s = 0; s < size_of(t, d); s++)
                    bytes += x->recv_bytes[member_of(t, d, s)];
        cur[c] = bytes;
    }
    err = lay_out(cur, k, ni_c, ni_d, &in3, "two-level step 3");
    if (err == MPI_SUCCESS)
        err = grow(t, 2, in3);
    if (err == MPI_SUCCESS)
        err = intra_exchange()(t->buf[1], no_c, no_d, MPI_BYTE, t->buf[2],
                               ni_c, ni_d,
                    MPI_BYTE, t->node);
    if (err != MPI_SUCCESS)
        return err;
    for (int c = 0; c < k; c++) {
        const char *from = t->buf[2] + ni_d[c];
        for (int d = 0; d < n; d++)
            if (relayed_via(i, size_of(t, d), c))
                for (int s = 0; s < size_of(t, d); s++) {
                    const int src = member_of(t, d, s);
                    size_t len = x->recv_bytes[src];
                    if (len) {
                        comm_copy(x->recvbuf + x->recv_offset[src], from,
                                  len);
                        from += len;
                    }
                }
    }
    return MPI_SUCCESS;
}

static int run_slot(int slot, const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel_param(two_level_kernel, slot_name[slot], slot,
                                 sendbuf, sendcounts, sdispls, sendtype,
                                 recvbuf, recvcounts, rdispls, recvtype,
                                 comm);
}

#define TWO_LEVEL_SLOT(i)                                                     \
    static RAVEL_ALLTOALLV_DECLARE(two_level_slot_##i)                        \
    {                                                                         \
        return run_slot(i, sendbuf, sendcounts, sdispls, sendtype, recvbuf,  \
                        recvcounts, rdispls, recvtype, comm);                 \
    }
TWO_LEVEL_SLOT(0) TWO_LEVEL_SLOT(1) TWO_LEVEL_SLOT(2) TWO_LEVEL_SLOT(3)
TWO_LEVEL_SLOT(4) TWO_LEVEL_SLOT(5) TWO_LEVEL_SLOT(6) TWO_LEVEL_SLOT(7)
TWO_LEVEL_SLOT(8) TWO_LEVEL_SLOT(9) TWO_LEVEL_SLOT(10) TWO_LEVEL_SLOT(11)
TWO_LEVEL_SLOT(12) TWO_LEVEL_SLOT(13) TWO_LEVEL_SLOT(14) TWO_LEVEL_SLOT(15)

static const ravel_alltoallv_fn slot_fn[INNER_SLOTS] = {
    two_level_slot_0,  two_level_slot_1,  two_level_slot_2,
    two_level_slot_3,  two_level_slot_4,  two_level_slot_5,
    two_level_slot_6,  two_level_slot_7,  two_level_slot_8,
    two_level_slot_9,  two_level_slot_10, two_level_slot_11,
    two_level_slot_12, two_level_slot_13, two_level_slot_14,
    two_level_slot_15};

ravel_alltoallv_fn comm_two_level_fn(const char *name, const char *inner)
{
    for (int s = 0; s < slots_used; s++)
        if (strcmp(slot_name[s], name) == 0)
            return slot_fn[s];
    if (strcmp(inner, "shm") == 0) {
        ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: shm runs "
                        "within one node, and two-level's inner backend "
                        "runs across nodes", name);
        return NULL;
    }
    if (strncmp(inner, "two-level", 9) == 0) {
        ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: two-level "
                        "cannot run inside itself (its columns have one "
                        "rank per node)", name);
        return NULL;
    }
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(inner);
    if (!fn) {
        char why[400];
        snprintf(why, sizeof why, "%s", ravel_error_message());
        ravel_error_set(MPI_ERR_ARG, "'%s' is not a backend: its inner "
                        "backend is not one (%s)", name, why);
        return NULL;
    }
    if (slots_used == INNER_SLOTS || strlen(name) >= NAME_LEN) {
        ravel_error_set(MPI_ERR_ARG, "'%s': at most %d two-level backends "
                        "in one process, names under %d characters", name,
                        INNER_SLOTS, NAME_LEN);
        return NULL;
    }
    strcpy(slot_name[slots_used], name);
    slot_inner[slots_used] = fn;
    return slot_fn[slots_used++];
}
