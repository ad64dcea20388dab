/* What the Bruck exchanges of exact sizes share (bruck_transit.h). */
#include "bruck_transit.h"

#include "bruck_schedule.h"
#include "ravel/error.h"

#include <stdlib.h>

enum { FIRST_CHUNK = 4096 };

int bruck_staging_grow(char **buf, size_t *size, size_t need,
                       size_t private_prefix, const char *what)
{
    if (need < private_prefix)
        need = private_prefix; /* the private bytes are all there */
    if (need <= *size)
        return MPI_SUCCESS;
    size_t next = *size ? *size : FIRST_CHUNK;
    while (next < need)
        next = next > SIZE_MAX / 2 ? need : 2 * next;
    comm_payload_free(*buf);
    *size = 0;
    *buf = private_prefix ? comm_payload_alloc_private_prefix(next,
                                                              private_prefix)
                          : comm_payload_alloc(next, 0);
    if (!*buf)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory growing the %s "
                               "to %zu bytes", what, next);
    *size = next;
    return MPI_SUCCESS;
}

/* Where position j's next block of `len` bytes goes. */
static int transit_slot(bruck_transit *t, int j, size_t len, char **out)
{
    if (len > t->slot_cap[j]) {
        if (!t->nchunks || len > t->chunk_size - t->chunk_used) {
            size_t next = t->nchunks ? 2 * t->chunk_size : FIRST_CHUNK;
            while (next < len && next <= SIZE_MAX / 2)
                next *= 2;
            if (next < len || t->nchunks == BRUCK_MAX_CHUNKS)
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

size_t bruck_carry_bytes(const comm_exchange *x)
{
    return x->carry ? CARRY_BYTES : 0;
}

size_t bruck_header_bytes(const comm_exchange *x, int n)
{
    return bruck_carry_bytes(x) + (size_t)n * sizeof(uint64_t);
}

size_t radix_bruck_eager(int radix)
{
    size_t share = INLINE_BRUCK_EAGER / (size_t)(radix > 2 ? radix - 1 : 1);
    return share > RADIX_BRUCK_MIN_EAGER ? share : RADIX_BRUCK_MIN_EAGER;
}

int bruck_state_allocate(bruck_state *s, int P, int radix, const char *who)
{
    size_t most = (size_t)P;
    s->radix = radix;
    s->positions = malloc(most * sizeof *s->positions);
    s->meta_out = malloc((CARRY_WORDS + most) * sizeof *s->meta_out);
    s->meta_in = malloc((CARRY_WORDS + most) * sizeof *s->meta_in);
    s->sizes_out = s->meta_out ? s->meta_out + CARRY_WORDS : NULL;
    s->sizes_in = s->meta_in ? s->meta_in + CARRY_WORDS : NULL;
    s->transit.slot = calloc((size_t)P, sizeof(char *));
    s->transit.slot_len = calloc((size_t)P, sizeof(size_t));
    s->transit.slot_cap = calloc((size_t)P, sizeof(size_t));
    if (!s->positions || !s->sizes_out || !s->sizes_in ||
        !s->transit.slot || !s->transit.slot_len || !s->transit.slot_cap)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %s "
                               "metadata of %d ranks", who, P);
    return MPI_SUCCESS;
}

void bruck_state_release(bruck_state *s)
{
    free(s->positions);
    free(s->meta_out);
    free(s->meta_in);
    comm_payload_free(s->outgoing);
    comm_payload_free(s->incoming);
    for (size_t c = 0; c < s->transit.nchunks; c++)
        comm_payload_free(s->transit.chunk[c]);
    free(s->transit.slot);
    free(s->transit.slot_len);
    free(s->transit.slot_cap);
}

/* The block at position j before round k: the caller's, or one in
 * transit. */
static const char *block_at(const comm_exchange *x, const bruck_state *s,
                            int j, int k, size_t *len)
{
    if (ravel_radix_is_original(j, s->radix, k)) {
        int dst = (x->ctx->rank + j) % x->ctx->size;
        *len = x->send_bytes[dst];
        return comm_send_block(x, dst);
    }
    *len = s->transit.slot_len[j];
    return s->transit.slot[j];
}

size_t bruck_block_sizes(const comm_exchange *x, const bruck_state *s, int k,
                         int n, const int positions[], uint64_t sizes[])
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        size_t len;
        block_at(x, s, positions[i], k, &len);
        sizes[i] = len;
        total += len;
    }
    return total;
}

int bruck_step_sizes(const comm_exchange *x, bruck_state *s, int k,
                     size_t *total)
{
    int n = ravel_bruck_step_positions(x->ctx->size, k, s->positions);
    *total = bruck_block_sizes(x, s, k, n, s->positions, s->sizes_out);
    return n;
}

void bruck_pack_blocks(const comm_exchange *x, const bruck_state *s, int k,
                       int n, const int positions[], char *to)
{
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *block = block_at(x, s, positions[i], k, &len);
        if (len) { /* an empty block may sit at a null staging buffer */
            comm_copy(to, block, len);
            to += len;
        }
    }
}

/* Copies `len` bytes at the reader's place in the arrival to `to` (which
 * may be NULL when len is 0), and moves the place on.  Fails when the
 * arrival holds fewer bytes than the sizes announce. */
static int take(const bruck_arrival *a, int *piece, size_t *at, char *to,
                size_t len)
{
    while (len) {
        if (*piece > 1)
            return ravel_error_set(MPI_ERR_INTERN, "a Bruck step brought "
                                   "fewer bytes than its sizes announce");
        size_t here = a->len[*piece] - *at;
        if (here == 0) {
            ++*piece;
            *at = 0;
            continue;
        }
        if (here > len)
            here = len;
        comm_copy(to, a->piece[*piece] + *at, here);
        to += here;
        *at += here;
        len -= here;
    }
    return MPI_SUCCESS;
}

int bruck_unpack_blocks(const comm_exchange *x, bruck_state *s, int k, int n,
                        const int positions[], const uint64_t sizes[],
                        const bruck_arrival *a)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int piece = 0;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        int j = positions[i];
        size_t len = (size_t)sizes[i];
        char *to = NULL;
        if (ravel_radix_last_round(j, s->radix) == k) {
            int err = comm_recv_block(x, ((me - j) % P + P) % P, len, &to);
            if (err != MPI_SUCCESS)
                return err;
        } else {
            int err = transit_slot(&s->transit, j, len, &to);
            if (err != MPI_SUCCESS)
                return err;
        }
        int err = take(a, &piece, &at, to, len);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}
