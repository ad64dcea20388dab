/* a2a_exchange.h: the buffers and counts of one benchmarked alltoallv.
 *
 * A rank's send row and receive column come from the distribution (see
 * a2a_dist.h); blocks are packed in rank order.  Element k of the block src
 * sends dst holds a value drawn from (seed, src, dst, k), so a received block
 * can be checked against a formula as well as against MPI_Alltoallv.
 *
 * Payload memory.  Under SimGrid SMPI every simulated rank lives in one
 * process; a pure timing run (shared = 1) takes its payload buffers from
 * SMPI_SHARED_MALLOC, which maps one physical buffer for all ranks: the
 * simulated times are unchanged, the data is garbage, and the memory no
 * longer grows with P^2.  Verifying runs use private buffers. */
#ifndef RAVEL_A2A_EXCHANGE_H
#define RAVEL_A2A_EXCHANGE_H

#include "a2a_config.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int P, me;
    int *sendcounts, *sdispls, *recvcounts, *rdispls; /* one block of 4P */
    unsigned char *sendbuf, *recvbuf;
    unsigned char *reference; /* MPI_Alltoallv's result; verify only */
    size_t send_bytes, recv_bytes; /* own block included */
    uint64_t max_elems;
    int shared;                    /* payloads from SMPI_SHARED_MALLOC */
} a2a_exchange;

/* Whether this build can share payloads between simulated ranks. */
int a2a_exchange_can_share(void);

/* Sizes and allocates the exchange for blocks of at most max_elems.  The
 * send buffer is filled unless shared.  Returns 0, or -1 with a message. */
int a2a_exchange_build(a2a_exchange *x, const a2a_config *cfg,
                       uint64_t max_elems, int P, int me, int shared,
                       char *err, size_t errlen);

void a2a_exchange_free(a2a_exchange *x);

/* The first source rank whose block in buf differs from the expected
 * values, or -1 when every block is right. */
int a2a_exchange_first_wrong_block(const a2a_exchange *x,
                                   const a2a_config *cfg,
                                   const unsigned char *buf);

/* Bytes this rank sends to other ranks (its own block excluded). */
uint64_t a2a_exchange_offrank_bytes(const a2a_exchange *x,
                                    const a2a_config *cfg);

#endif
