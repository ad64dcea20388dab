/* bruck_transit.h: the bookkeeping that the Bruck exchanges of exact sizes
 * (two-phase-bruck, inline-bruck) share: which block each moving position
 * holds, packing the blocks of a step, and where the blocks a step brings
 * go (the receive buffer on their last hop, else a working buffer).  How
 * the sizes travel is each backend's own: in a message of their own, or in
 * a header in front of the data.
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

typedef struct {
    int *positions;      /* the positions moving at the current step */
    uint64_t *sizes_out; /* sizes of the blocks sent this step */
    uint64_t *sizes_in;  /* sizes of the blocks received */
    char *outgoing;      /* send staging */
    size_t outgoing_size;
    char *incoming;      /* receive staging */
    size_t incoming_size;
    bruck_transit transit;
} bruck_state;

/* Allocates the per-call arrays for P ranks; `who` names the backend in
 * the error. */
int bruck_state_allocate(bruck_state *s, int P, const char *who);
void bruck_state_release(bruck_state *s);

/* Room for `need` bytes in a staging buffer whose old contents are dead:
 * free and allocate, never copy.  Doubling bounds the reallocations.  The
 * first `private_prefix` bytes stay private when payloads are shared
 * (comm_payload_alloc_private_prefix); 0 for payload only. */
int bruck_staging_grow(char **buf, size_t *size, size_t need,
                       size_t private_prefix, const char *what);

/* Fills s->positions with the n positions that move at step k, and
 * s->sizes_out with their blocks' sizes; returns n, *total their sum. */
int bruck_step_sizes(const comm_exchange *x, bruck_state *s, int k,
                     size_t *total);

/* Copies the n blocks that move at step k, back to back, to `to`. */
void bruck_pack_blocks(const comm_exchange *x, const bruck_state *s, int k,
                       int n, char *to);

/* The bytes a step brought, in up to two pieces (first[0..len0) then
 * second[0..len1)): blocks of s->sizes_in back to back, possibly split
 * across the pieces. */
typedef struct {
    const char *piece[2];
    size_t len[2];
} bruck_arrival;

/* Puts the n blocks of step k, of sizes s->sizes_in, where they go: the
 * receive buffer on their last hop (their size checked against the
 * caller's count: MPI_ERR_TRUNCATE), else a working slot. */
int bruck_unpack_blocks(const comm_exchange *x, bruck_state *s, int k, int n,
                        const bruck_arrival *a);

#endif
