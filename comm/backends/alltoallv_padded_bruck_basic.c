/* padded-bruck:basic: padded Bruck with the classical uniform exchange,
 * rotations and all, as the paper's code has it beside the modified one.
 *
 * padded-bruck (alltoallv_padded_bruck.c) runs the zero-rotation variant of
 * Fan et al., HPDC'22: blocks that have not moved are read from the send
 * buffer, blocks on their last hop go to the receive buffer.  This is the
 * algorithm that variant improves on, kept so the two (and padded-alltoall,
 * which hands the padded blocks to MPI_Alltoall) can be measured side by
 * side:
 *   pad      every block, its real size, into a P x M array in rank order
 *            (the input of a uniform all-to-all);
 *   rotate   slot j of a working array takes the block for rank + j (Bruck
 *            et al.'s phase 1: P blocks of M bytes);
 *   steps    ceil(log2 P) steps, at step k the slots whose index has bit k
 *            set are packed, sent to rank + 2^k, and the ones received from
 *            rank - 2^k unpacked into the same slots (phase 2);
 *   rotate   back: slot j now holds the block from rank - j, copied to its
 *            place in a P x M array in rank order (phase 3);
 *   unpad    every block, its real size, to the receive buffer.
 * The own block takes the same path (slot 0), as in the classical
 * algorithm.
 *
 * Cost: padded-bruck's messages (ceil(log2 P), n_k M bytes at step k) and
 * more copies: S + Z to pad, 2 P M to rotate twice, 2 W M to pack and
 * unpack every step (W = sum of popcount(j) for j < P), R + Z to unpad,
 * against padded-bruck's Z + S + R + 2 (W - P + 1) M. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "ravel/error.h"

#include <stdlib.h>

enum { TAG_BASIC_BRUCK = 320 }; /* + step */

typedef struct {
    size_t M;
    int *positions;
    char *ranked;  /* P slots of M in rank order: padded send, then receive */
    char *rotated; /* P slots of M, slot j for distance j */
    char *outgoing, *incoming;
} basic_buffers;

static int allocate(basic_buffers *b, int P)
{
    size_t most = (size_t)ravel_bruck_max_step_positions(P);
    size_t step_bytes, all_bytes;
    int err = comm_padded_bruck_sizes(P, b->M, &step_bytes, &all_bytes);
    if (err != MPI_SUCCESS)
        return err;
    b->positions = malloc(most * sizeof *b->positions);
    b->ranked = comm_payload_alloc(all_bytes, 1); /* padding is sent */
    b->rotated = comm_payload_alloc(all_bytes, 0);
    b->outgoing = comm_payload_alloc(step_bytes, 0);
    b->incoming = comm_payload_alloc(step_bytes, 0);
    if (!b->positions || !b->ranked || !b->rotated || !b->outgoing ||
        !b->incoming)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for basic "
                               "Bruck buffers (2 x %zu bytes)", all_bytes);
    return MPI_SUCCESS;
}

static void release(basic_buffers *b)
{
    free(b->positions);
    comm_payload_free(b->ranked);
    comm_payload_free(b->rotated);
    comm_payload_free(b->outgoing);
    comm_payload_free(b->incoming);
}

static int exchange_step(const comm_exchange *x, basic_buffers *b, int k)
{
    int n = ravel_bruck_step_positions(x->ctx->size, k, b->positions);
    size_t bytes = (size_t)n * b->M;
    for (int i = 0; i < n; i++)
        comm_copy(b->outgoing + (size_t)i * b->M,
                  b->rotated + (size_t)b->positions[i] * b->M, b->M);
    int err = comm_step_exchange(x, k, b->outgoing, bytes, b->incoming, bytes,
                                 TAG_BASIC_BRUCK + k, 0);
    for (int i = 0; err == MPI_SUCCESS && i < n; i++)
        comm_copy(b->rotated + (size_t)b->positions[i] * b->M,
                  b->incoming + (size_t)i * b->M, b->M);
    return err;
}

int comm_padded_bruck_basic_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    if (P == 1 || x->send_bytes[me] != x->recv_bytes[me])
        return comm_copy_self(x); /* the whole exchange, or its error */
    basic_buffers b = {0};
    int err = comm_global_max_block(x, &b.M);
    if (err != MPI_SUCCESS || b.M == 0)
        return err;
    err = allocate(&b, P);
    if (err == MPI_SUCCESS) {
        for (int dst = 0; dst < P; dst++) /* pad */
            if (x->send_bytes[dst]) /* else sendbuf may be NULL */
                comm_copy(b.ranked + (size_t)dst * b.M,
                          x->sendbuf + x->send_offset[dst],
                          x->send_bytes[dst]);
        for (int j = 0; j < P; j++) /* rotate */
            comm_copy(b.rotated + (size_t)j * b.M,
                      b.ranked + (size_t)((me + j) % P) * b.M, b.M);
    }
    for (int k = 0; err == MPI_SUCCESS && k < ravel_bruck_steps(P); k++)
        err = exchange_step(x, &b, k);
    if (err == MPI_SUCCESS) {
        for (int j = 0; j < P; j++) /* rotate back */
            comm_copy(b.ranked + (size_t)((me - j + P) % P) * b.M,
                      b.rotated + (size_t)j * b.M, b.M);
        for (int src = 0; err == MPI_SUCCESS && src < P; src++) /* unpad */
            if (x->recv_bytes[src] > b.M)
                err = ravel_error_set(MPI_ERR_TRUNCATE, "rank %d expects "
                                      "%zu bytes from rank %d, more than "
                                      "any rank sent", me, x->recv_bytes[src],
                                      src);
            else if (x->recv_bytes[src]) /* else recvbuf may be NULL */
                comm_copy(x->recvbuf + x->recv_offset[src],
                          b.ranked + (size_t)src * b.M, x->recv_bytes[src]);
    }
    release(&b);
    return err;
}

int comm_alltoallv_padded_bruck_basic(const void *sendbuf,
                                      const int sendcounts[],
                                      const int sdispls[],
                                      MPI_Datatype sendtype, void *recvbuf,
                                      const int recvcounts[],
                                      const int rdispls[],
                                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel(comm_padded_bruck_basic_kernel,
                           "padded-bruck:basic", sendbuf, sendcounts, sdispls,
                           sendtype, recvbuf, recvcounts, rdispls, recvtype,
                           comm);
}
