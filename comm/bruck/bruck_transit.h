/* bruck_transit.h: the bookkeeping that the Bruck exchanges of exact sizes
 * (two-phase-bruck, inline-bruck, radix-bruck) share: which block each
 * moving position holds, packing the blocks of a message, and where the
 * blocks a message brings go (the receive buffer on their last hop, else a
 * working buffer).  In radix r (bruck_schedule.h), a message of round k
 * and digit d carries the positions whose digit k is d; the binary
 * backends are radix 2, digit 1, one message per step.  How the sizes
 * travel is each backend's own: in a message of their own, or in a header
 * in front of the data.
 *
 * Blocks in transit live in chunks that are never moved: when a block does
 * not fit its position's slot, it gets a new slot at the end of the current
 * chunk, or in a new chunk twice as large.  So growth copies nothing, and
 * every byte these backends copy is one the algorithm moves (the cost
 * model's count). */
#ifndef RAVEL_BRUCK_TRANSIT_H
#define RAVEL_BRUCK_TRANSIT_H

#include "comm_internal.h"

#include <stddef.h>
#include <stdint.h>

enum { BRUCK_MAX_CHUNKS = 64 }; /* each doubles the room */

/* inline-bruck: bytes of blocks a step's first message may carry after its
 * header; the rest goes in a second message.  The receiver's bound, so the
 * same on every rank (a constant, not a tunable).  64 KiB: where a step
 * carries more, its transfer (some 6 us at 10 GB/s) outweighs the second
 * message's latency (about 1 us). */
#define INLINE_BRUCK_EAGER ((size_t)65536)

typedef struct {
    char *chunk[BRUCK_MAX_CHUNKS];
    size_t nchunks;
    size_t chunk_used; /* bytes handed out in the last chunk */
    size_t chunk_size; /* its size */
    char **slot;       /* [P] where position j's block starts */
    size_t *slot_len;  /* [P] its length */
    size_t *slot_cap;  /* [P] room at slot[j] (0: no slot yet) */
} bruck_transit;

/* radix-bruck: the bound of each of a round's up to r - 1 messages, the
 * same on every rank: INLINE_BRUCK_EAGER shared among them, so that the
 * receive staging of a round stays near 64 KiB whatever r, but at least
 * RADIX_BRUCK_MIN_EAGER, below which a header of many sizes would crowd
 * out the data. */
#define RADIX_BRUCK_MIN_EAGER ((size_t)1024)
size_t radix_bruck_eager(int radix);

typedef struct {
    int radix;           /* 2 for the binary backends */
    int *positions;      /* [P] the positions moving in the current round */
    uint64_t *sizes_out; /* [P] sizes of the blocks sent, by position index */
    uint64_t *sizes_in;  /* [P] sizes of the blocks received */
    uint64_t *meta_out;  /* [CARRY_WORDS + P]: room for auto's carried
                            agreement right before sizes_out */
    uint64_t *meta_in;   /* the same before sizes_in */
    char *outgoing;      /* send staging */
    size_t outgoing_size;
    char *incoming;      /* receive staging */
    size_t incoming_size;
    bruck_transit transit;
} bruck_state;

/* The header in front of a message's blocks: auto's carried agreement
 * when the call carries one (x->carry: bruck_carry_bytes, else 0), then
 * the n blocks' sizes. */
size_t bruck_carry_bytes(const comm_exchange *x);
size_t bruck_header_bytes(const comm_exchange *x, int n);

/* Allocates the per-call arrays for P ranks in radix r (2 <= r <= P);
 * `who` names the backend in the error. */
int bruck_state_allocate(bruck_state *s, int P, int radix, const char *who);
void bruck_state_release(bruck_state *s);

/* Room for `need` bytes in a staging buffer whose old contents are dead:
 * free and allocate, never copy.  Doubling bounds the reallocations.  The
 * first `private_prefix` bytes stay private when payloads are shared
 * (comm_payload_alloc_private_prefix); 0 for payload only. */
int bruck_staging_grow(char **buf, size_t *size, size_t need,
                       size_t private_prefix, const char *what);

/* Fills sizes[] with the sizes, before round k, of the blocks at the n
 * positions[] (ravel_radix_round_positions); returns their sum. */
size_t bruck_block_sizes(const comm_exchange *x, const bruck_state *s, int k,
                         int n, const int positions[], uint64_t sizes[]);

/* Binary: s->positions and s->sizes_out for step k (digit 1). */
int bruck_step_sizes(const comm_exchange *x, bruck_state *s, int k,
                     size_t *total);

/* Copies the blocks at the n positions[] of round k, back to back, to
 * `to`. */
void bruck_pack_blocks(const comm_exchange *x, const bruck_state *s, int k,
                       int n, const int positions[], char *to);

/* The bytes a step brought, in up to two pieces (first[0..len0) then
 * second[0..len1)): blocks of s->sizes_in back to back, possibly split
 * across the pieces. */
typedef struct {
    const char *piece[2];
    size_t len[2];
} bruck_arrival;

/* Puts the n blocks that round k brought to positions[], of sizes[],
 * where they go: the receive buffer on their last hop (their size checked
 * against the caller's count: MPI_ERR_TRUNCATE), else a working slot.
 * Every block that leaves a position in round k must be packed before a
 * block of that round is unpacked: it may land in the same slot. */
int bruck_unpack_blocks(const comm_exchange *x, bruck_state *s, int k, int n,
                        const int positions[], const uint64_t sizes[],
                        const bruck_arrival *a);

#endif
