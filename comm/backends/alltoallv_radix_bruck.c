/* radix-bruck: Bruck's exchange in radix r, blocks at their real sizes,
 * sizes in a header in front of the data (the non-uniform radix Bruck of
 * TuNA, Fan et al., HPDC'25; the radix itself is Bruck et al.'s, IEEE TPDS
 * 1997).
 *
 * Number a rank's blocks by distance j = dst - rank (mod P) and write j in
 * base r.  Round k (of ceil(log_r P)) moves, for every digit d in [1, r),
 * the positions whose digit k is d to rank + d r^k: up to r - 1 messages,
 * all in flight at once, to r - 1 different peers.  A block hops once per
 * non-zero digit of its distance, so it is forwarded at most log_r P times
 * (log2 P in two-phase Bruck) at the price of up to r - 1 messages per
 * round.  r = 2 is inline-bruck's schedule; r >= P is one round of P - 1
 * messages, a direct exchange (so r is taken as min(r, P)).  No rotations:
 * bruck_schedule.h says which block each position holds, bruck_transit.h
 * keeps the blocks in transit, as in the binary backends.
 *
 * Sizes travel as inline-bruck's do: each message is a header of its n
 * sizes followed by its n blocks, received into a buffer posted before the
 * data leaves and bounded by the header plus E_r bytes of blocks, the rest
 * (if any) in a second message whose size the header announces.  E_r =
 * max(64 KiB / (r - 1), 1 KiB) (radix_bruck_eager): a round's receive
 * staging stays near 64 KiB whatever the radix, and a message whose blocks
 * outweigh E_r is one whose transfer dwarfs a second latency.
 *
 * Every message of a round is packed before any block of the round is
 * unpacked: a position that sends in round k also receives in round k, into
 * the slot its outgoing block was read from.
 *
 * Names: `radix-bruck` is r = 4 (TuNA's results favour small radices at
 * small blocks, and 4 halves the hops of radix 2 for 3 messages a round);
 * `radix-bruck:R` any R >= 2, written in decimal without sign or leading
 * zeros (registry.c parses the name; each radix in use takes one of
 * RADIX_SLOTS entry points, since a backend is a plain function).
 *
 * Cost per rank: sum over rounds k of m_k messages (the digits with
 * positions, plus one per message past E_r bytes), 8 n bytes of header and
 * the blocks at the moving positions; every block packed and unpacked once
 * per hop.  Exact counts and the prediction: comm/model/cost_model.c. */
#include "comm_internal.h"

#include "bruck_schedule.h"
#include "bruck_transit.h"
#include "ravel/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_FIRST = 230, TAG_REST = 270 }; /* + round */

/* One message of a round: the positions of one digit. */
typedef struct {
    int n;            /* blocks */
    int peer_to, peer_from;
    size_t out_data;  /* bytes of blocks sent */
    size_t first;     /* bytes in the first message (header included) */
    size_t rest_in;   /* bytes of the second message received */
    char *out, *in, *rest;
    size_t out_size, in_size, rest_size;
    int too_big;      /* the second message would pass INT_MAX */
} radix_message;

typedef struct {
    bruck_state b;
    int r;
    size_t eager;
    size_t room;          /* the largest header: the private bytes */
    int *first;           /* [r + 1] the round's positions by digit */
    radix_message *msg;   /* [r] by digit (0 unused) */
    MPI_Request *request; /* [4 r]: r first receives, then up to 2 r sends
                             and r second receives */
} radix_state;

static int radix_state_allocate(const comm_exchange *x, radix_state *s,
                                int P, int r)
{
    s->r = r;
    s->eager = radix_bruck_eager(r);
    s->room = bruck_header_bytes(x, ravel_radix_max_positions(P, r));
    s->first = malloc(((size_t)r + 1) * sizeof *s->first);
    s->msg = calloc((size_t)r, sizeof *s->msg);
    s->request = malloc(4 * (size_t)r * sizeof *s->request);
    int err = bruck_state_allocate(&s->b, P, r, "radix Bruck");
    if (err == MPI_SUCCESS && (!s->first || !s->msg || !s->request))
        err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory for radix %d "
                              "Bruck metadata", r);
    return err;
}

static void radix_state_release(radix_state *s)
{
    for (int d = 0; s->msg && d < s->r; d++) {
        comm_payload_free(s->msg[d].out);
        comm_payload_free(s->msg[d].in);
        comm_payload_free(s->msg[d].rest);
    }
    free(s->first);
    free(s->msg);
    free(s->request);
    bruck_state_release(&s->b);
}

/* The sizes and blocks of digit d's message into its send staging: the
 * header of n sizes, then the blocks.  A message starts at its buffer's
 * first byte, whose first `room` bytes stay private under SMPI's shared
 * payloads: see alltoallv_inline_bruck.c for why it must start there. */
static int pack_message(const comm_exchange *x, radix_state *s, int k, int d)
{
    radix_message *m = &s->msg[d];
    const int *positions = s->b.positions + s->first[d];
    uint64_t *sizes = s->b.sizes_out + s->first[d];
    m->out_data = bruck_block_sizes(x, &s->b, k, m->n, positions, sizes);
    size_t header = bruck_header_bytes(x, m->n);
    size_t pre = bruck_carry_bytes(x);
    size_t out = header + m->out_data, bound = header + s->eager;
    m->first = out < bound ? out : bound;
    /* A second message over INT_MAX bytes is refused before a byte of it
     * is copied; the first still goes, so that its header makes the peer
     * refuse it too. */
    int count;
    m->too_big = comm_int_count(out - m->first, "a radix Bruck message's "
                                "second part", &count);
    if (m->too_big != MPI_SUCCESS)
        m->first = header;
    size_t need = header + (m->too_big == MPI_SUCCESS ? m->out_data : 0);
    int err = bruck_staging_grow(&m->out, &m->out_size, need, s->room,
                                 "send staging");
    if (err != MPI_SUCCESS)
        return err;
    if (x->carry) /* auto's carried agreement, the same for every digit */
        comm_carry_pack(x->carry, m->out);
    memcpy(m->out + pre, sizes, header - pre);
    if (m->too_big == MPI_SUCCESS)
        bruck_pack_blocks(x, &s->b, k, m->n, positions, m->out + header);
    comm_stats_header(header);
    return MPI_SUCCESS;
}

/* Reads digit d's header; posts the second receive if the header says more
 * is coming.  *posted counts it. */
static int read_header(const comm_exchange *x, radix_state *s, int k, int d,
                       MPI_Request *request, int *posted)
{
    radix_message *m = &s->msg[d];
    size_t header = bruck_header_bytes(x, m->n), data = 0;
    size_t pre = bruck_carry_bytes(x);
    uint64_t *sizes = s->b.sizes_in + s->first[d];
    if (x->carry)
        comm_carry_receive(x->carry, k, d, m->in);
    memcpy(sizes, m->in + pre, header - pre);
    for (int i = 0; i < m->n; i++)
        data += (size_t)sizes[i];
    m->rest_in = data > s->eager ? data - s->eager : 0;
    int count;
    int err = comm_int_count(m->rest_in, "a radix Bruck message's second "
                             "part", &count);
    if (err != MPI_SUCCESS || m->rest_in == 0)
        return err;
    err = bruck_staging_grow(&m->rest, &m->rest_size, m->rest_in, 0,
                             "receive staging");
    if (err == MPI_SUCCESS)
        err = comm_irecv(m->rest, m->rest_in, m->peer_from, TAG_REST + k,
                         x->ctx, request);
    if (err == MPI_SUCCESS)
        ++*posted;
    return err;
}

/* Packs every message of the round, then posts every first receive, then
 * the sends.  Receives posted before the packing cost more than they
 * save: on MPICH over UCX at 2 ranks they made 32 KiB blocks take 24
 * instead of 15 us and 128 KiB ones 60 instead of 45 (a sender's
 * rendezvous waits for a receiver that is busy packing).  On failure,
 * what was posted is cancelled or waited for. */
static int post_round(const comm_exchange *x, radix_state *s, int k,
                      int *nrecv, int *nsend)
{
    MPI_Request *recv = s->request, *send = s->request + s->r;
    int err = MPI_SUCCESS;
    *nrecv = *nsend = 0;
    for (int d = 1; d < s->r && err == MPI_SUCCESS; d++)
        if (s->msg[d].n)
            err = pack_message(x, s, k, d);
    for (int d = 1; d < s->r && err == MPI_SUCCESS; d++) {
        radix_message *m = &s->msg[d];
        if (m->n == 0)
            continue;
        size_t header = bruck_header_bytes(x, m->n);
        err = bruck_staging_grow(&m->in, &m->in_size, s->room + s->eager,
                                 s->room, "receive staging");
        if (err == MPI_SUCCESS)
            err = comm_irecv(m->in, header + s->eager,
                             m->peer_from, TAG_FIRST + k, x->ctx,
                             &recv[*nrecv]);
        if (err == MPI_SUCCESS)
            ++*nrecv;
    }
    for (int d = 1; d < s->r && err == MPI_SUCCESS; d++) {
        radix_message *m = &s->msg[d];
        if (m->n == 0)
            continue;
        char *message = m->out;
        if (err == MPI_SUCCESS)
            err = comm_isend(message, m->first, m->peer_to, TAG_FIRST + k,
                             x->ctx, &send[*nsend], 0);
        if (err == MPI_SUCCESS)
            ++*nsend;
        size_t rest = m->out_data + bruck_header_bytes(x, m->n) - m->first;
        if (err == MPI_SUCCESS && m->too_big == MPI_SUCCESS && rest) {
            err = comm_isend(message + m->first, rest, m->peer_to,
                             TAG_REST + k, x->ctx, &send[*nsend], 0);
            if (err == MPI_SUCCESS)
                ++*nsend;
        }
    }
    if (err != MPI_SUCCESS) {
        for (int i = 0; i < *nrecv; i++) {
            MPI_Cancel(&recv[i]);
            MPI_Request_free(&recv[i]);
        }
        comm_waitall(x->ctx, *nsend, send);
    }
    return err;
}

static int radix_round(const comm_exchange *x, radix_state *s, int k)
{
    const int P = x->ctx->size, me = x->ctx->rank;
    int stride = ravel_radix_stride(s->r, k);
    ravel_radix_round_positions(P, s->r, k, s->b.positions, s->first);
    for (int d = 1; d < s->r; d++) {
        radix_message *m = &s->msg[d];
        m->n = s->first[d + 1] - s->first[d];
        int distance = (int)(((long long)d * stride) % P);
        m->peer_to = (me + distance) % P;
        m->peer_from = (me - distance + P) % P;
        m->rest_in = 0;
    }
    int nrecv, nsend;
    int err = post_round(x, s, k, &nrecv, &nsend);
    if (err != MPI_SUCCESS)
        return err;
    /* The first messages, then the second ones their headers announce
     * (posted after the sends, at the end of the request array). */
    err = comm_waitall(x->ctx, nrecv, s->request);
    MPI_Request *pending = s->request + s->r;
    int npending = nsend;
    for (int d = 1; d < s->r && err == MPI_SUCCESS; d++)
        if (s->msg[d].n)
            err = read_header(x, s, k, d, &pending[npending], &npending);
    if (err == MPI_SUCCESS && x->carry)
        comm_carry_round_end(x->carry, k);
    int wait_err = comm_waitall(x->ctx, npending, pending);
    if (err == MPI_SUCCESS)
        err = wait_err;
    for (int d = 1; d < s->r && err == MPI_SUCCESS; d++) {
        radix_message *m = &s->msg[d];
        if (m->n == 0)
            continue;
        err = m->too_big;
        size_t in_first = 0;
        for (int i = 0; i < m->n; i++)
            in_first += (size_t)s->b.sizes_in[s->first[d] + i];
        in_first -= m->rest_in;
        bruck_arrival a = {{m->in + bruck_header_bytes(x, m->n), m->rest},
                           {in_first, m->rest_in}};
        if (err == MPI_SUCCESS)
            err = bruck_unpack_blocks(x, &s->b, k, m->n,
                                      s->b.positions + s->first[d],
                                      s->b.sizes_in + s->first[d], &a);
    }
    return err;
}

int comm_radix_bruck_kernel(const comm_exchange *x)
{
    const int P = x->ctx->size;
    int err = comm_copy_self(x);
    int r = x->param < P ? x->param : P;
    if (x->carry)
        comm_carry_begin(x->carry, x, r);
    if (err != MPI_SUCCESS || P == 1)
        return err;
    radix_state s = {0};
    err = radix_state_allocate(x, &s, P, r);
    for (int k = 0; err == MPI_SUCCESS && k < ravel_radix_rounds(P, r); k++)
        err = radix_round(x, &s, k);
    radix_state_release(&s);
    return err;
}

/* ---- one entry point per radix in use ---------------------------------- */

enum { RADIX_SLOTS = 16 };
static int slot_radix[RADIX_SLOTS];
static char slot_name[RADIX_SLOTS][32];
static int slots_used;

static int run_slot(int slot, const void *sendbuf, const int sendcounts[],
                    const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    return comm_run_kernel_param(comm_radix_bruck_kernel, slot_name[slot],
                                 slot_radix[slot], sendbuf, sendcounts,
                                 sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm);
}

#define RADIX_SLOT(i)                                                         \
    static RAVEL_ALLTOALLV_DECLARE(radix_slot_##i)                            \
    {                                                                         \
        return run_slot(i, sendbuf, sendcounts, sdispls, sendtype, recvbuf,  \
                        recvcounts, rdispls, recvtype, comm);                 \
    }
RADIX_SLOT(0) RADIX_SLOT(1) RADIX_SLOT(2) RADIX_SLOT(3)
RADIX_SLOT(4) RADIX_SLOT(5) RADIX_SLOT(6) RADIX_SLOT(7)
RADIX_SLOT(8) RADIX_SLOT(9) RADIX_SLOT(10) RADIX_SLOT(11)
RADIX_SLOT(12) RADIX_SLOT(13) RADIX_SLOT(14) RADIX_SLOT(15)

static const ravel_alltoallv_fn slot_fn[RADIX_SLOTS] = {
    radix_slot_0,  radix_slot_1,  radix_slot_2,  radix_slot_3,
    radix_slot_4,  radix_slot_5,  radix_slot_6,  radix_slot_7,
    radix_slot_8,  radix_slot_9,  radix_slot_10, radix_slot_11,
    radix_slot_12, radix_slot_13, radix_slot_14, radix_slot_15};

ravel_alltoallv_fn comm_radix_bruck_fn(int radix)
{
    for (int i = 0; i < slots_used; i++)
        if (slot_radix[i] == radix)
            return slot_fn[i];
    if (slots_used == RADIX_SLOTS) {
        ravel_error_set(MPI_ERR_ARG, "radix-bruck:%d: at most %d different "
                        "radices can be used in one process", radix,
                        RADIX_SLOTS);
        return NULL;
    }
    slot_radix[slots_used] = radix;
    snprintf(slot_name[slots_used], sizeof slot_name[0], "radix-bruck:%d",
             radix);
    return slot_fn[slots_used++];
}

int ravel_alltoallv_radix_bruck(const void *sendbuf, const int sendcounts[],
                                const int sdispls[], MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype,
                                MPI_Comm comm)
{
    return comm_run_kernel_param(comm_radix_bruck_kernel, "radix-bruck",
                                 RADIX_BRUCK_DEFAULT, sendbuf, sendcounts,
                                 sdispls, sendtype, recvbuf, recvcounts,
                                 rdispls, recvtype, comm);
}
