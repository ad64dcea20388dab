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
 *   0. sizes, within the node: to each slot c, the sizes of its blocks for
 *      slot c's ranks of every node (in node order, then slot order), and
 *      (uneven nodes only, below) the sizes of the blocks c will pass on
 *      to it;
 *   1. data, within the node: to each slot c, those blocks, one after
 *      another;
 *   2. across nodes, INNER on column i: to the slot-i rank of each node b,
 *      the blocks of every rank of node a for node b's slot-i rank, in the
 *      node's slot order.  What arrives is this rank's whole receive;
 *   3. (uneven nodes only) within the node: what was relayed (below).
 * Within a node the exchanges are `shm` (segments of one shared window: a
 * copy in and a copy out, no message).  Under SimGrid SMPI, whose shared
 * windows ravel does not use, they are messages at the platform's
 * intra-node cost: the sizes by spread-out, the blocks by spread-out or
 * inline-bruck as the model predicts faster (intra_for_blocks, below).
 *
 * Uneven nodes (P not a multiple of the node size, or a short node): the
 * relay on node a for the ranks of slot q of other nodes is slot q mod k,
 * and the rank that receives it on node b is b's slot q mod k, which
 * exists because q mod k <= q < k_b.  When that is not q itself, the
 * block is relayed once more, in step 3, to slot q, who told the relay the
 * sizes to expect in step 0 (it knows its receive counts).  With nodes of
 * equal size nothing is relayed and step 3 is skipped: every rank knows
 * the node sizes.
 *
 * Costs, per rank, nodes of k ranks, n nodes: 2 (k - 1) small messages of
 * sizes (4 bytes a block: sizes up to 2^31 - 1, as MPI's counts) and
 * 2 (k - 1) of data within the node (none with shm), INNER's on n ranks
 * with blocks k times larger; copies: each block is packed for step 1 by
 * the intra-node backend, packed again for step 2 (a relay gathers its
 * node's pieces per destination node), and copied to its place at the end
 * (S + 2 R bytes with shm, besides INNER's own).  The own block and the
 * node's own data travel the same way (through column i's own rank).
 *
 * Every step is an MPI_Alltoallv-signature call with int counts, so a
 * relay's total for one step must fit in an int: past that it fails with
 * MPI_ERR_COUNT, as MPI_Alltoallv would, and its peers are not told
 * (there is no agreement on failure before the data moves). */
#include "comm_internal.h"

#include "ravel/error.h"

#include <limits.h>
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
    /* per call, grown as needed */
    uint32_t *meta_out, *meta_in;
    size_t meta_out_cap, meta_in_cap;
    int *meta_in_at;  /* [k + 1]: where slot q's sizes start in meta_in */
    int *ints;        /* [8 k + 4 n]: the steps' counts and offsets */
    size_t *cursor;   /* [max(k, n)] */
    char *buf[3];
    size_t cap[3];
};

/* Step 0 ends every message with the sender's bytes of the call (its own
 * block included), in two words: low, high. */
enum { TOTAL_WORDS = 2 };

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

/* The words of step 0's message from slot q to slot c: the sizes of q's
 * blocks for c's slots of every node, those of the blocks c passes on to
 * q (uneven nodes), and q's total. */
static size_t step0_words(const comm_two_level *t, int q, int c)
{
    size_t words = TOTAL_WORDS;
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
    if (t->node != MPI_COMM_NULL)
        MPI_Comm_free(&t->node);
    if (t->column != MPI_COMM_NULL)
        MPI_Comm_free(&t->column);
    free(t->first);
    free(t->member);
    free(t->column_rank);
    free(t->meta_out);
    free(t->meta_in);
    free(t->meta_in_at);
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
    const int n = t->nodes, k = t->k;
    if (err == MPI_SUCCESS) {
        t->column_rank = malloc((size_t)n * sizeof *t->column_rank);
        t->meta_in_at = malloc(((size_t)k + 1) * sizeof *t->meta_in_at);
        t->ints = malloc((8 * (size_t)k + 4 * (size_t)n) * sizeof *t->ints);
        t->cursor = malloc((size_t)(k > n ? k : n) * sizeof *t->cursor);
        if (!t->column_rank || !t->meta_in_at || !t->ints || !t->cursor)
            err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    }
    if (err == MPI_SUCCESS)
        for (int b = 0, r = 0; b < n; b++)
            t->column_rank[b] = size_of(t, b) > t->me_slot ? r++ : -1;
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

static int grow_meta(uint32_t **m, size_t *cap, size_t entries)
{
    if (entries <= *cap && *m)
        return MPI_SUCCESS;
    free(*m);
    *m = malloc((entries ? entries : 1) * sizeof **m);
    *cap = *m ? entries : 0;
    return *m ? MPI_SUCCESS
              : ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                                "block sizes", entries);
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

/* Under SMPI, the two intra-node exchanges go through messages (ravel
 * does not use SimGrid's shared windows): the sizes by spread-out, whose
 * messages go from and to two-level's own private arrays (a Bruck
 * exchange would carry them through its staging buffers, whose pages a
 * timing run shares among all simulated ranks: the sizes would arrive as
 * garbage); the blocks by spread-out or inline-bruck, whichever the model
 * predicts faster for the node's largest sender, which every rank of the
 * node learnt in step 0 (so they all choose alike).  On a real node both
 * are shm. */
static ravel_alltoallv_fn intra_for_sizes(void)
{
#ifdef SMPI_SHARED_MALLOC
    return ravel_alltoallv_spread_out;
#else
    return ravel_alltoallv_shm;
#endif
}

static ravel_alltoallv_fn intra_for_blocks(int k, uint64_t most,
                                           uint64_t sum)
{
#ifdef SMPI_SHARED_MALLOC
    const ravel_cost_params *m;
    if (k < 2 || ravel_comm_model(&m, NULL) != MPI_SUCCESS)
        return ravel_alltoallv_spread_out;
    ravel_cost_params node = *m;
    node.ranks_per_node = k;
    ravel_call_stats s = {.P = k,
                          .max_block = most / (uint64_t)k,
                          .max_send = most / (uint64_t)k * (uint64_t)(k - 1),
                          .max_recv = most / (uint64_t)k * (uint64_t)(k - 1),
                          .total = sum / (uint64_t)k * (uint64_t)(k - 1),
                          .nonempty = (uint64_t)k * (uint64_t)(k - 1),
                          .max_nonempty_send = (uint64_t)(k - 1),
                          .max_nonempty_recv = (uint64_t)(k - 1),
                          .max_self = most / (uint64_t)k};
    double spread = ravel_cost_predict("spread-out", &node, &s);
    double bruck = ravel_cost_predict("inline-bruck", &node, &s);
    return bruck >= 0 && bruck < spread ? ravel_alltoallv_inline_bruck
                                        : ravel_alltoallv_spread_out;
#else
    (void)k;
    (void)most;
    (void)sum;
    return ravel_alltoallv_shm;
#endif
}

/* ---- one entry point per inner backend in use -------------------------- */

enum { INNER_SLOTS = 8, NAME_LEN = 48 };
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
    ravel_alltoallv_fn intra = intra_for_sizes();
    ravel_alltoallv_fn inner = slot_inner[x->param];
    const int n = t->nodes, k = t->k, i = t->me_slot;
    const int cols = n; /* at most; column_rank says who is in */
    int *mo_c = t->ints, *mo_d = mo_c + k, *mi_c = mo_d + k, *mi_d = mi_c + k;
    int *no_c = mi_d + k, *no_d = no_c + k, *ni_c = no_d + k, *ni_d = ni_c + k;
    int *co_c = ni_d + k, *co_d = co_c + cols, *ci_c = co_d + cols,
        *ci_d = ci_c + cols;
    size_t *cur = t->cursor;

    /* Every block must fit the 4-byte sizes (and MPI's int counts). */
    for (int r = 0; r < ctx->size; r++)
        if (x->send_bytes[r] > INT_MAX || x->recv_bytes[r] > INT_MAX)
            return ravel_error_set(MPI_ERR_COUNT, "two-level: a block of "
                                   "%zu bytes (with rank %d) is more than "
                                   "an int counts",
                                   x->send_bytes[r] > INT_MAX
                                       ? x->send_bytes[r]
                                       : x->recv_bytes[r], r);

    /* ---- step 0: sizes within the node ---- */
    size_t entries = 0;
    for (int c = 0; c < k; c++)
        entries += cur[c] = step0_words(t, i, c);
    size_t in_entries = 0;
    t->meta_in_at[0] = 0;
    for (int q = 0; q < k; q++) {
        size_t e = step0_words(t, q, i);
        int c32;
        err = comm_int_count(in_entries + e, "two-level sizes", &c32);
        if (err != MPI_SUCCESS)
            return err;
        mi_c[q] = (int)e;
        mi_d[q] = (int)in_entries;
        in_entries += e;
        t->meta_in_at[q + 1] = (int)in_entries;
    }
    size_t total;
    err = lay_out(cur, k, mo_c, mo_d, &total, "two-level sizes");
    (void)total; /* == entries */
    if (err == MPI_SUCCESS)
        err = grow_meta(&t->meta_out, &t->meta_out_cap, entries);
    if (err == MPI_SUCCESS)
        err = grow_meta(&t->meta_in, &t->meta_in_cap, in_entries);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t mine = 0; /* this rank's bytes, own block included */
    for (int r = 0; r < ctx->size; r++)
        mine += x->send_bytes[r];
    for (int c = 0; c < k; c++) {
        uint32_t *m = t->meta_out + mo_d[c] + mo_c[c] - TOTAL_WORDS;
        m[0] = (uint32_t)mine;
        m[1] = (uint32_t)(mine >> 32);
        m = t->meta_out + mo_d[c];
        size_t bytes = 0;
        for (int b = 0; b < n; b++)
            for (int q = c; q < size_of(t, b); q += k) {
                *m = (uint32_t)x->send_bytes[member_of(t, b, q)];
                bytes += *m++;
            }
        for (int d = 0; d < n; d++)
            if (relayed_via(i, size_of(t, d), c))
                for (int s = 0; s < size_of(t, d); s++)
                    *m++ = (uint32_t)x->recv_bytes[member_of(t, d, s)];
        cur[c] = bytes; /* step 1's count to slot c */
    }
    err = intra(t->meta_out, mo_c, mo_d, MPI_UINT32_T, t->meta_in, mi_c,
                mi_d, MPI_UINT32_T, t->node);
    if (err != MPI_SUCCESS)
        return err;
    uint64_t most = 0, sum = 0; /* over the node's ranks */
    for (int q = 0; q < k; q++) {
        const uint32_t *m = t->meta_in + t->meta_in_at[q + 1] - TOTAL_WORDS;
        uint64_t theirs = (uint64_t)m[0] | (uint64_t)m[1] << 32;
        most = theirs > most ? theirs : most;
        sum += theirs;
    }
    intra = intra_for_blocks(k, most, sum);

    /* ---- step 1: data within the node ---- */
    size_t out1 = 0;
    err = lay_out(cur, k, no_c, no_d, &out1, "two-level step 1");
    /* What arrives from slot q: the sum of the first nS sizes it sent. */
    int nS = 0; /* sizes per sender for this relay's blocks */
    for (int b = 0; b < n; b++)
        nS += slots_from(i, k, size_of(t, b));
    for (int q = 0; q < k; q++) {
        const uint32_t *m = t->meta_in + t->meta_in_at[q];
        size_t bytes = 0;
        for (int e = 0; e < nS; e++)
            bytes += m[e];
        cur[q] = bytes;
    }
    size_t in1 = 0;
    if (err == MPI_SUCCESS)
        err = lay_out(cur, k, ni_c, ni_d, &in1, "two-level step 1");
    if (err == MPI_SUCCESS)
        err = grow(t, 0, out1);
    if (err == MPI_SUCCESS)
        err = grow(t, 1, in1);
    if (err != MPI_SUCCESS)
        return err;
    for (int c = 0; c < k; c++) {
        char *to = t->buf[0] + no_d[c];
        for (int b = 0; b < n; b++)
            for (int q = c; q < size_of(t, b); q += k) {
                int r = member_of(t, b, q);
                size_t len = x->send_bytes[r];
                if (len) {
                    comm_copy(to, comm_send_block(x, r), len);
                    to += len;
                }
            }
    }
    err = intra(t->buf[0], no_c, no_d, MPI_BYTE, t->buf[1], ni_c, ni_d,
                MPI_BYTE, t->node);
    if (err != MPI_SUCCESS)
        return err;

    /* ---- step 2: across nodes, on this rank's column ---- */
    /* To node b: each slot s's section for b, in slot order. */
    for (int b = 0; b < n; b++)
        cur[b] = 0;
    for (int s = 0; s < k; s++) {
        const uint32_t *m = t->meta_in + t->meta_in_at[s];
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
            /* slot q told this relay its sizes from d, in step 0 */
            const uint32_t *m = t->meta_in + t->meta_in_at[q] + nS;
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
        const uint32_t *m = t->meta_in + t->meta_in_at[s];
        const char *from = t->buf[1] + ni_d[s];
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
            const uint32_t *m = t->meta_in + t->meta_in_at[q] + nS;
            const uint32_t *end =
                t->meta_in + t->meta_in_at[q + 1] - TOTAL_WORDS;
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
                const uint32_t *m = t->meta_in + t->meta_in_at[q] + nS;
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
        err = intra(t->buf[1], no_c, no_d, MPI_BYTE, t->buf[2], ni_c, ni_d,
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

static const ravel_alltoallv_fn slot_fn[INNER_SLOTS] = {
    two_level_slot_0, two_level_slot_1, two_level_slot_2, two_level_slot_3,
    two_level_slot_4, two_level_slot_5, two_level_slot_6, two_level_slot_7};

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
