/* two-phase-bruck: Bruck's log-step all-to-all on blocks of their real size
 * (Fan, Gilray, Kumar et al., "Optimizing the Bruck Algorithm for
 * Non-uniform All-to-all Communication", HPDC'22, Algorithm 1).
 *
 * The schedule is padded Bruck's (see alltoallv_padded_bruck.c): ceil(log2 P)
 * steps, at step k the blocks whose distance has bit k set go to rank + 2^k.
 * Blocks are not padded, so a receiver cannot know how much arrives: each
 * step is two exchanges, first the sizes of the blocks about to move
 * (metadata, 8 bytes per block), then the blocks themselves, back to back.
 * No rotation phases: unmoved blocks are read from the caller's send buffer,
 * blocks on their last hop go straight to the receive buffer, and blocks
 * still in transit live in a working buffer of chunks that never move (one
 * slot per position, reused when the next block that lands there fits).
 *
 * Cost: 2 ceil(log2 P) messages per rank (latency 2 log P * alpha), carrying
 * the real bytes of every forwarded block (bandwidth ~ (log2 P / 2) times the
 * data, with no padding) plus 8 bytes of metadata per forwarded block.  It
 * wins where padded Bruck loses to skew and spread-out to message counts:
 * small-to-medium, non-uniform blocks at large P. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_META = 70, TAG_DATA = 110 }; /* + step */

/* Blocks in transit live in chunks that are never moved: when a block does
 * not fit its position's slot, it gets a new slot at the end of the current
 * chunk, or in a new chunk twice as large.  So growth copies nothing, and
 * every byte this backend copies is one the algorithm moves (the cost
 * model's count).  At most 64 chunks: each doubles the room. */
enum { MAX_CHUNKS = 64, FIRST_CHUNK = 4096 };

typedef struct {
    char *chunk[MAX_CHUNKS];
    size_t nchunks;
    size_t chunk_used;   /* bytes handed out in the last chunk */
    size_t chunk_size;   /* its size */
    char **slot;         /* [P] where position j's block starts */
    size_t *slot_len;    /* [P] its length */
    size_t *slot_cap;    /* [P] room at slot[j] (0: no slot yet) */
} transit_buffer;

typedef struct {
    int *positions;
    uint64_t *sizes_out; /* metadata: sizes of the blocks sent this step */
    uint64_t *sizes_in;  /* metadata: sizes of the blocks received */
    char *outgoing;
    size_t outgoing_size;
    char *incoming;
    size_t incoming_size;
    transit_buffer transit;
} two_phase_state;

/* Room for `need` bytes in a staging buffer whose old contents are dead:
 * free and allocate, never copy.  Doubling bounds the reallocations. */
static int grow_staging(char **buf, size_t *size, size_t need, const char *what)
{
    if (need <= *size)
        return MPI_SUCCESS;
    size_t next = *size ? *size : FIRST_CHUNK;
    while (next < need)
        next = next > SIZE_MAX / 2 ? need : 2 * next;
    comm_payload_free(*buf);
    *size = 0;
    *buf = comm_payload_alloc(next, 0);
    if (!*buf)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory growing the %s "
                               "to %zu bytes", what, next);
    *size = next;
    return MPI_SUCCESS;
}

/* Where position j's next block of `len` bytes goes. */
static int transit_slot(transit_buffer *t, int j, size_t len, char **out)
{
    if (len > t->slot_cap[j]) {
        if (!t->nchunks || len > t->chunk_size - t->chunk_used) {
            size_t next = t->nchunks ? 2 * t->chunk_size : FIRST_CHUNK;
            while (next < len && next <= SIZE_MAX / 2)
                next *= 2;
            if (next < len || t->nchunks == MAX_CHUNKS)
                return ravel_error_set(MPI_ERR_COUNT, "working buffer "
                                       "overflows");
            char *chunk = comm_payload_alloc(next, 0);
            if (!chunk)
                return ravel_error_set(MPI_ERR_NO_MEM, "out of memory growing "
                                       "the working buffer by %zu bytes",
                                       next);
            t->chunk[t->nchunks++] = chunk;
            t->chunk_size = next;
            t->chunk_used = 0;
        }
        t->slot[j] = t->chunk[t->nchunks - 1] + t->chunk_used;
        t->slot_cap[j] = len;
        t->chunk_used += len;
    }
    t->slot_len[j] = len;
    *out = t->slot[j]; /* NULL for an empty block before any storage */
    return MPI_SUCCESS;
}

static int allocate(two_phase_state *s, int P)
{
    size_t most = (size_t)ravel_bruck_max_step_positions(P);
    s->positions = malloc(most * sizeof *s->positions);
    s->sizes_out = malloc(most * sizeof *s->sizes_out);
    s->sizes_in = malloc(most * sizeof *s->sizes_in);
    s->transit.slot = calloc((size_t)P, sizeof(char *));
    s->transit.slot_len = calloc((size_t)P, sizeof(size_t));
    s->transit.slot_cap = calloc((size_t)P, sizeof(size_t));
    if (!s->positions || !s->sizes_out || !s->sizes_in ||
        !s->transit.slot || !s->transit.slot_len ||
        !s->transit.slot_cap)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for two-phase "
                               "Bruck metadata of %d ranks", P);
    return MPI_SUCCESS;
}

static void release(two_phase_state *s)
{
    free(s->positions);
    free(s->sizes_out);
    free(s->sizes_in);
    comm_payload_free(s->outgoing);
    comm_payload_free(s->incoming);
    for (size_t c = 0; c < s->transit.nchunks; c++)
        comm_payload_free(s->transit.chunk[c]);
    free(s->transit.slot);
    free(s->transit.slot_len);
    free(s->transit.slot_cap);
}

/* The block at position j before step k: the caller's, or one in transit. */
static const char *block_at(const comm_exchange *x, const two_phase_state *s,
                            int j, int k, size_t *len)
{
    if (ravel_bruck_is_original(j, k)) {
        int dst = (x->ctx->rank + j) % x->ctx->size;
        *len = x->send_bytes[dst];
        /* An empty block may sit at a NULL buffer (legal with zero
         * counts), and NULL + 0 is undefined. */
        return *len ? x->sendbuf + x->send_offset[dst] : NULL;
    }
    *len = s->transit.slot_len[j];
    return s->transit.slot[j];
}

/* The sizes of the n blocks that move at step k, and their total. */
static void size_step(const comm_exchange *x, two_phase_state *s, int k,
                      int n, size_t *total)
{
    *total = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        block_at(x, s, s->positions[i], k, &len);
        s->sizes_out[i] = len;
        *total += len;
    }
}

static int pack_step(const comm_exchange *x, two_phase_state *s, int k, int n,
                     size_t total)
{
    int err = grow_staging(&s->outgoing, &s->outgoing_size, total,
                           "send staging");
    if (err != MPI_SUCCESS)
        return err;
    char *p = s->outgoing;
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *block = block_at(x, s, s->positions[i], k, &len);
        if (len) { /* an empty block may sit at a null staging buffer */
            comm_copy(p, block, len);
            p += len;
        }
    }
    return MPI_SUCCESS;
}

static int exchange(const comm_exchange *x, const void *out, size_t out_bytes,
                    void *in, size_t in_bytes, int k, int tag, int metadata)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int to = (me + (1 << k)) % P, from = ((me - (1 << k)) % P + P) % P;
    MPI_Request requests[2];
    int err = comm_irecv(in, in_bytes, from, tag + k, x->ctx, &requests[0]);
    if (err != MPI_SUCCESS)
        return err;
    err = comm_isend(out, out_bytes, to, tag + k, x->ctx, &requests[1],
                     metadata);
    if (err != MPI_SUCCESS) {
        MPI_Cancel(&requests[0]);
        MPI_Request_free(&requests[0]);
        return err;
    }
    return comm_waitall(x->ctx, 2, requests);
}

static int unpack_step(const comm_exchange *x, two_phase_state *s, int k,
                       int n)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    const char *p = s->incoming;
    for (int i = 0; i < n; i++) {
        int j = s->positions[i];
        size_t len = (size_t)s->sizes_in[i];
        if (ravel_bruck_last_step(j) == k) {
            int src = ((me - j) % P + P) % P;
            if (len != x->recv_bytes[src])
                return ravel_error_set(MPI_ERR_TRUNCATE, "rank %d expects %zu "
                                       "bytes from rank %d, which sent %zu",
                                       me, x->recv_bytes[src], src, len);
            if (len) /* else recvbuf may be NULL */
                comm_copy(x->recvbuf + x->recv_offset[src], p, len);
        } else {
            char *slot = NULL;
            int err = transit_slot(&s->transit, j, len, &slot);
            if (err != MPI_SUCCESS)
                return err;
            comm_copy(slot, p, len);
        }
        if (len) /* incoming is NULL while every block is empty */
            p += len;
    }
    return MPI_SUCCESS;
}

static int two_phase_step(const comm_exchange *x, two_phase_state *s, int k)
{
    int n = ravel_bruck_step_positions(x->ctx->size, k, s->positions);
    size_t out_bytes, in_bytes = 0;
    size_step(x, s, k, n, &out_bytes);
    int err = exchange(x, s->sizes_out, (size_t)n * sizeof(uint64_t),
                       s->sizes_in, (size_t)n * sizeof(uint64_t), k, TAG_META,
                       1);
    if (err != MPI_SUCCESS)
        return err;
    for (int i = 0; i < n; i++)
        in_bytes += (size_t)s->sizes_in[i];
    /* A data message over INT_MAX bytes is refused before a byte of it is
     * copied; the sizes went out first, so the peer refuses it too. */
    int count;
    err = comm_int_count(out_bytes, "a two-phase Bruck step's data", &count);
    if (err == MPI_SUCCESS)
        err = comm_int_count(in_bytes, "a two-phase Bruck step's data",
                             &count);
    if (err == MPI_SUCCESS)
        err = pack_step(x, s, k, n, out_bytes);
    if (err == MPI_SUCCESS)
        err = grow_staging(&s->incoming, &s->incoming_size, in_bytes,
                           "receive staging");
    if (err == MPI_SUCCESS)
        err = exchange(x, s->outgoing, out_bytes, s->incoming, in_bytes, k,
                       TAG_DATA, 0);
    if (err == MPI_SUCCESS)
        err = unpack_step(x, s, k, n);
    return err;
}

static int two_phase_bruck_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size;
    int err = comm_copy_self(x);
    if (err != MPI_SUCCESS || P == 1)
        return err;
    two_phase_state s = {0};
    err = allocate(&s, P);
    for (int k = 0; err == MPI_SUCCESS && k < ravel_bruck_steps(P); k++)
        err = two_phase_step(x, &s, k);
    release(&s);
    return err;
}

int ravel_alltoallv_two_phase_bruck(const void *sendbuf,
                                    const int sendcounts[],
                                    const int sdispls[], MPI_Datatype sendtype,
                                    void *recvbuf, const int recvcounts[],
                                    const int rdispls[],
                                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel(two_phase_bruck_kernel, "two-phase-bruck", sendbuf,
                           sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                           rdispls, recvtype, comm);
}
