/* comm_internal.h: what the backends share and the public API hides.
 *
 * Every backend but `vendor` is written once, against a byte view of the
 * call: the frontend (byte_view.c) turns counts, displacements and datatypes
 * into byte sizes and byte offsets, packs non-contiguous types, and hands the
 * backend's kernel a `comm_exchange`.  Kernels move bytes only. */
#ifndef RAVEL_COMM_INTERNAL_H
#define RAVEL_COMM_INTERNAL_H

#include "ravel/comm.h"
#include "ravel/cost_model.h"

#include <stddef.h>
#include <stdint.h>

/* auto's agreement carried by an exchange itself (call_stats.c): the
 * call's statistics disseminated along the messages a Bruck exchange sends
 * anyway, 10 words in front of each header.  After round k, `window` holds
 * the fields of the r^k ranks ending at this one (rank - r^k + 1 .. rank)
 * and `partial` the sums of the (P mod r^k) ranks ending here: the two
 * exact windows from which the last round completes the sums of all P
 * ranks, no rank counted twice (maxima only need `window`).  Every rank
 * ends with the same numbers, those of the allreduce. */
enum { CARRY_MAX_FIELDS = 6, CARRY_SUM_FIELDS = 2,
       CARRY_FIELDS = CARRY_MAX_FIELDS + CARRY_SUM_FIELDS,
       CARRY_WORDS = CARRY_FIELDS + CARRY_SUM_FIELDS };
#define CARRY_BYTES ((size_t)CARRY_WORDS * sizeof(uint64_t))
typedef struct {
    int P, radix, rounds;    /* radix and rounds of the carrying exchange */
    uint64_t window[CARRY_FIELDS];
    uint64_t partial[CARRY_SUM_FIELDS];
    uint64_t next_window[CARRY_FIELDS]; /* the round being received */
    uint64_t next_partial[CARRY_SUM_FIELDS];
    int done;                /* `agreed` holds the call's statistics */
    ravel_call_stats agreed;
} comm_carry;

/* A backend's algorithm on one call seen as bytes (comm_exchange, below). */
typedef struct comm_exchange comm_exchange;
typedef int (*comm_kernel)(const comm_exchange *x);

/* shm's shared window and its bookkeeping (alltoallv_shm.c). */
typedef struct comm_shm comm_shm;

/* two-level's node and column communicators, its map of the nodes and
 * its scratch (alltoallv_two_level.c). */
typedef struct comm_two_level comm_two_level;

/* What ravel caches on a caller's communicator. */
typedef struct {
    MPI_Comm comm;        /* private duplicate: internal messages travel
                             here (the caller's own in the SimGrid build) */
    int owns_comm;        /* comm is a duplicate to free */
    int rank;
    int size;
    ravel_wait_mode wait; /* how this communicator's exchanges wait */
    int node_ranks;       /* most ranks of comm on one node (the cost
                             model's ranks per node; RAVEL_NODE_SIZE's
                             fake nodes in tests) */
    comm_shm *shm;        /* shm's window, made on its first call */
    comm_two_level *two_level; /* made on two-level's first call */
    int hinted;           /* `hint` holds the next auto call's statistics */
    ravel_call_stats hint;
    int last_choice;      /* registry index auto chose last; -1: none */
    double last_predicted;
    /* What that choice was made for: a call with the same statistics and
     * model reuses it (repeated calls of one pattern pay no model). */
    ravel_call_stats chosen_for;
    ravel_cost_params chosen_with;
    int chosen_in_exchange; /* for ravel_exchange_run (count exchange
                               charged to the backends that need one) */
    ravel_alltoallv_fn chosen_fn;
    comm_kernel chosen_kernel; /* chosen_fn's kernel, run on this context
                                  (NULL: call chosen_fn) */
    int chosen_param;
    const char *chosen_name;
    double chosen_agreement; /* that model's agreement time on comm */
    unsigned chosen_generation; /* comm_model_generation() then */
    int chosen_is_known;  /* chosen_for is known_stats (below) */
    uint64_t chosen_fresh; /* shm's growth that choice weighed (bytes; 0:
                              none, and the choice may be reused) */
    double shm_rent;      /* what declining shm's growth cost so far
                             (ravel_cost_choose_renting) */
    /* auto's memory of the pattern (alltoallv_auto.c): the statistics of
     * the last call every rank knows them of, the model's choice for them,
     * and how many such calls in a row chose the same. */
    int carry_wanted;     /* the next kernel carries its call's statistics */
    comm_carry carry;
    int known;
    ravel_call_stats known_stats;
    int known_choice;
    int repeats;
    int last_carried;     /* the last call chose from the one before */
    int blind_calls;      /* calls since known_stats's whose statistics no
                             rank learnt (their backend carries none) */
    double blind_seconds; /* their predicted time */
} comm_context;

/* The cached context of `user`, made (collectively) on first use. */
int comm_context_get(MPI_Comm user, comm_context **ctx);

int comm_waitall(const comm_context *ctx, int n, MPI_Request requests[]);

/* MPI_Allreduce and MPI_Barrier on ctx's communicator, in its waiting
 * mode (ravel_comm_allreduce and ravel_comm_barrier with the context in
 * hand). */
int comm_allreduce(const comm_context *ctx, const void *sendbuf,
                   void *recvbuf, int count, MPI_Datatype type, MPI_Op op);
int comm_barrier(const comm_context *ctx);

/* Frees shm's window (collective on the context's communicator): when the
 * context is freed. */
void comm_shm_free(comm_context *ctx);

/* Frees two-level's communicators and scratch (collective, the same). */
void comm_two_level_free(comm_context *ctx);

/* A shared window of `bytes` per rank on comm, whose `ranks` ranks share
 * a node (shared_window.c): each rank's segment on its own pages, base[q]
 * rank q's, the window locked for all (MPI_MODE_NOCHECK); on failure
 * *win is MPI_WIN_NULL and the error says why.  Collective. */
int comm_window_allocate(MPI_Comm comm, int ranks, size_t bytes,
                         MPI_Win *win, char **base);

/* The ranks of comm on this rank's node, ordered as in comm: those
 * sharing its memory (MPI_COMM_TYPE_SHARED), cut into RAVEL_NODE_SIZE's
 * fake nodes of consecutive ranks when that is set (tests).  Collective. */
int comm_node_comm(MPI_Comm comm, MPI_Comm *node);

/* Where an exchange that discovers its receive counts puts what arrives
 * (exchange.c): blocks in chunks that never move, a view per source. */
typedef struct comm_inbox comm_inbox;

/* Room for src's block of `len` bytes in the inbox, recorded as its view;
 * NULL only for len 0 (or, with the error set, out of memory: then *err). */
char *comm_inbox_place(comm_inbox *in, int src, size_t len, int *err);

/* Records src's block as `len` bytes at `at`, memory the inbox does not own
 * (shm's views into the senders' segments): the run's views can then not
 * be handed over (ravel_exchange_take_inbox). */
void comm_inbox_view(comm_inbox *in, int src, const char *at, size_t len);

/* One alltoallv call seen as bytes.  Offsets are signed: MPI allows negative
 * displacements as long as the data they name is addressable. */
struct comm_exchange {
    const char *sendbuf;
    char *recvbuf;
    const size_t *send_bytes;    /* [P] bytes of the block for rank i */
    const MPI_Aint *send_offset; /* [P] where that block starts */
    const size_t *recv_bytes;    /* [P] bytes expected from rank i */
    const MPI_Aint *recv_offset; /* [P] where they go */
    const comm_context *ctx;
    int param;                   /* the backend's parameter from its name
                                    (radix-bruck's radix); 0 if none */
    /* The exchange API (exchange.c): when send_at is set, block i starts
     * at send_at[i] (sendbuf and send_offset are unused); when inbox is
     * set, receive counts are not known: recv_bytes and recv_offset are
     * unused, and only backends that learn the sizes on the way run (the
     * Bruck family), placing each block in the inbox on arrival. */
    const char *const *send_at;
    comm_inbox *inbox;
    /* When set, the kernel agrees on the call's statistics on the way
     * (comm_carry_*), if it can: the Bruck family in its headers, the
     * padded backends in the allreduce they make anyway. */
    comm_carry *carry;
    /* The exchange handle running the call (exchange.c), whose outboxes
     * shm may hold in place (comm_shm_room); NULL in MPI_Alltoallv's
     * signature. */
    void *owner;
};

/* Where the block for rank dst starts (NULL when it is empty). */
static inline const char *comm_send_block(const comm_exchange *x, int dst)
{
    if (x->send_bytes[dst] == 0)
        return NULL; /* the buffer may be NULL: no NULL + offset */
    return x->send_at ? x->send_at[dst] : x->sendbuf + x->send_offset[dst];
}

/* Where src's block of `len` bytes goes: its place in the receive buffer,
 * after checking len against the caller's count (MPI_ERR_TRUNCATE), or a
 * new place in the inbox.  *to is NULL for an empty block. */
int comm_recv_block(const comm_exchange *x, int src, size_t len, char **to);

/* The kernels that learn receive sizes on the way (x->inbox), for the
 * exchange API: two-phase-bruck, inline-bruck, radix-bruck, and shm (from
 * the headers in the senders' segments). */
int comm_two_phase_bruck_kernel(const comm_exchange *x);
int comm_inline_bruck_kernel(const comm_exchange *x);
int comm_radix_bruck_kernel(const comm_exchange *x);
int comm_shm_kernel(const comm_exchange *x);
/* shm's geometry, for the cost model: the bytes of a half's header at P
 * ranks, and the most bytes a half holds (ravel_comm_shm_chunk, at least
 * a header and one line of data); a call whose largest stream needs more
 * goes in rounds. */
size_t comm_shm_header(int P);
size_t comm_shm_limit(int P);
/* The fresh shared memory shm's window would take if shm ran a call on ctx
 * whose largest stream (the blocks one rank writes into its half) is
 * `stream` bytes, counted as the bytes of one half of the grown window
 * (allocating both halves and writing the call into one cost about one
 * half's worth of bench/shm/fresh_window.sh's allocate-and-write: 4.1,
 * 7.7 and 14.9 ms measured for halves of 512 KiB, 1 and 2 MiB, against
 * 3.5, 7.0 and 14.0 so counted; bench/results/auto/README.md).  0 when
 * the window holds the call, and for the smallest window a first call
 * makes (64 KiB halves), which closures of many small exchanges repay
 * within a few calls (bench/results/shm/README.md, "The first calls")
 * while the model's predictions of such calls are far too small to weigh
 * it.  Charged (a segment's bytes, about 0.7 ms here, the first window
 * measured at 1.5 ms), it made auto 1.11 to 1.16 times shm on OL.cedge,
 * TG.cedge and cal.cedge, and 1.01 on wing, against 1.04 to 1.05 and 1.24
 * free; with the rent scaled to measured seconds as well, 1.10 to 1.28 and
 * ego-Facebook 1.14 (bench/results/auto/README.md, "The placement
 * counted").  The same on every rank (the window and its asked-for
 * outboxes are).  What auto's rent-or-buy rule weighs
 * (ravel_cost_choose_renting). */
uint64_t comm_shm_fresh_bytes(const comm_context *ctx, uint64_t stream);

/* Outboxes written in place (exchange.c, for a handle of backend shm).
 * comm_shm_room hands out `bytes` of room, 64-byte aligned, in this rank's
 * half of shm's next call, for handle `owner`'s outboxes: the caller's
 * writes are then the only copy, the call writing just the half's header.
 * NULL when there is no window yet, another handle placed outboxes for
 * the same call, or the half has no more room; either way the next call
 * grows the window toward what the owner's outboxes take (up to
 * ravel_comm_shm_outboxes).  Whatever would overwrite placed outboxes
 * first calls `evacuate(owner)`, which must move every one of them to the
 * owner's own memory (updating the send_at its run reads) and call
 * comm_shm_unplace: another handle's or MPI_Alltoallv's call, a growth of
 * the window, a call in rounds, the context's end.  The placement ends
 * with the owner's call. */
typedef int (*comm_evacuate_fn)(void *owner);
char *comm_shm_room(comm_context *ctx, void *owner, comm_evacuate_fn evacuate,
                    size_t bytes);
void comm_shm_unplace(comm_context *ctx, const void *owner);
/* Whether rooms of bytes[0 .. n-1] (in that order) would all be handed
 * out to `owner` now, without the window growing. */
int comm_shm_rooms_fit(comm_context *ctx, const void *owner,
                       const size_t *bytes, int n);

/* The discovering kernel of backend `name` (and its parameter), or NULL
 * when the backend needs receive counts in advance (registry.c). */
comm_kernel comm_discovering_kernel(const char *name, int *param);

/* The other byte-moving kernels, behind their backends' entry points. */
int comm_spread_out_kernel(const comm_exchange *x);
int comm_pairwise_kernel(const comm_exchange *x);
int comm_padded_alltoall_kernel(const comm_exchange *x);
int comm_padded_bruck_kernel(const comm_exchange *x);
int comm_padded_bruck_basic_kernel(const comm_exchange *x);

/* The kernel behind backend `name` (and its parameter), or NULL for a
 * backend that runs none (vendor, auto): for auto, which calls its
 * choice's kernel with the context it already holds (registry.c). */
comm_kernel comm_backend_kernel(const char *name, int *param);

/* Runs `kernel` on the MPI_Alltoallv arguments: the shared frontend of every
 * byte-moving backend.  `name` appears in error messages. */
int comm_run_kernel(comm_kernel kernel, const char *name, const void *sendbuf,
                    const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype, MPI_Comm comm);

/* The same, for a backend with a parameter (x->param). */
int comm_run_kernel_param(comm_kernel kernel, const char *name, int param,
                          const void *sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm);

/* The same on comm's context, already found (comm is for error
 * messages); the last error is not cleared. */
int comm_run_kernel_in(comm_context *ctx, comm_kernel kernel,
                       const char *name, int param, const void *sendbuf,
                       const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf,
                       const int recvcounts[], const int rdispls[],
                       MPI_Datatype recvtype, MPI_Comm comm);

/* two-level:INNER, INNER a backend name (not two-level itself): one of a
 * few entry points, bound to INNER on first use; NULL with the error set
 * when INNER is not a backend or all entry points are taken. */
ravel_alltoallv_fn comm_two_level_fn(const char *name, const char *inner);
/* The backend two-level's step 3 runs within a node (uneven nodes): shm,
 * or spread-out under SMPI (its shared windows are the rank's own). */
const char *comm_two_level_intra_name(void);

/* radix-bruck: the radix of the plain name, and the backend of radix r
 * (>= 2) under the name "radix-bruck:r": one of a few entry points, bound
 * to r on first use; NULL with the error set when all are taken. */
#define RADIX_BRUCK_DEFAULT 4
ravel_alltoallv_fn comm_radix_bruck_fn(int radix);
/* The radix a radix-bruck name stands for ("radix-bruck": the default,
 * "radix-bruck:R": R when the registry would accept it); 0 for any other
 * name. */
int comm_radix_of_name(const char *name);
/* INNER of a "two-level:INNER" name (not checked), NULL for any other
 * name. */
const char *comm_two_level_inner(const char *name);

/* auto:agree, auto agreeing by allreduce before every call. */
RAVEL_ALLTOALLV_DECLARE(comm_alltoallv_auto_agree);

/* padded-bruck:basic, the classical Bruck with rotations under padding. */
RAVEL_ALLTOALLV_DECLARE(comm_alltoallv_padded_bruck_basic);

/* Both padded Bruck variants' sizes: a step's largest message (the most
 * positions of a step, M bytes each) and P slots of M, or MPI_ERR_COUNT
 * when they overflow size_t or a step passes INT_MAX.  Every rank knows P
 * and M, so every rank refuses alike, before a block is copied. */
int comm_padded_bruck_sizes(int P, size_t M, size_t *step_bytes,
                            size_t *all_bytes);

/* Staging buffers for payload (payload_memory.c): malloc, or calloc when
 * `zeroed`, unless ravel_comm_share_payloads is on under SMPI.  Never for
 * counts, offsets or anything else a backend reads back. */
void *comm_payload_alloc(size_t bytes, int zeroed);
/* Whether comm_payload_alloc shares its pages now (then its blocks are
 * neither malloc's nor one rank's). */
int comm_payload_shared(void);
/* The same, with the first `prefix` bytes private even when payloads are
 * shared: room for metadata that travels in one message with payload (and
 * SMPI copies only a message's private bytes, so it arrives intact).  Such
 * a message must start at the buffer's first byte: SimGrid 3.32 loses the
 * private bytes of one that starts inside the private range. */
void *comm_payload_alloc_private_prefix(size_t bytes, size_t prefix);
void comm_payload_free(void *buf);

/* Reports `code` the way an MPI function does: logs the last error message
 * unless the communicator returns errors, then calls its error handler. */
int comm_report_error(MPI_Comm user, const char *name, int code);

/* Point-to-point on the context's communicator, counted in the statistics.
 * Sizes above INT_MAX fail with MPI_ERR_COUNT. */
int comm_isend(const void *buf, size_t bytes, int peer, int tag,
               const comm_context *ctx, MPI_Request *request, int metadata);
int comm_irecv(void *buf, size_t bytes, int peer, int tag,
               const comm_context *ctx, MPI_Request *request);

/* Bruck step k: sends out to rank + 2^k while receiving in from rank -
 * 2^k, both with `tag`, and waits for both (the receive is cancelled if the
 * send cannot be posted). */
int comm_step_exchange(const comm_exchange *x, int k, const void *out,
                       size_t out_bytes, void *in, size_t in_bytes, int tag,
                       int metadata);

/* Adds to the statistics what a collective delivered (of sizes, not
 * data: comm_stats_add_metadata). */
void comm_stats_add(uint64_t messages, uint64_t bytes);
void comm_stats_add_metadata(uint64_t messages, uint64_t bytes);

/* Counts one send (and its bytes) or one receive posted (comm_isend and
 * comm_irecv call these). */
void comm_stats_send(size_t bytes, int metadata);
void comm_stats_receive(void);

/* Counts `bytes` of a message just sent as metadata (block sizes in a
 * header in front of data) without counting a metadata message. */
void comm_stats_header(size_t bytes);

/* Counts every message and byte sent since the statistics were *before
 * as metadata too (a backend that carried sizes, not data). */
void comm_stats_as_metadata(const ravel_comm_stats *before);

/* Pays the copies charged so far to SMPI's clock (nothing outside SMPI).
 * Called before every message is posted or waited for, and at the end of
 * every backend call. */
void comm_charge_flush(void);

/* memcpy that reports its bytes (ravel_comm_charge_copy); bytes may be 0
 * with null pointers (but a caller must not form NULL + offset: guard the
 * call on the size where a buffer may be NULL). */
void comm_copy(void *to, const void *from, size_t bytes);

/* Copies this rank's own block from the send side to the receive side. */
int comm_copy_self(const comm_exchange *x);

/* The largest send block over all ranks, in bytes (for the padded backends). */
int comm_global_max_block(const comm_exchange *x, size_t *max_bytes);

/* The call's global statistics by one allreduce (call_stats.c); `failed`
 * is this rank's error so far: if any rank failed, every rank returns an
 * error (its own, or one saying another rank failed). */
int comm_agree_on_stats(const int sendcounts[], MPI_Datatype sendtype,
                        const int recvcounts[], MPI_Datatype recvtype,
                        int failed, comm_context *ctx, ravel_call_stats *s);

/* The carried agreement (comm_carry).  A kernel that carries calls begin
 * with its radix (2 for the binary Bruck backends) before its first round;
 * then in round k it puts comm_carry_pack's CARRY_BYTES in front of every
 * message (the same bytes for every digit of the round), hands every
 * message's carried bytes of digit d to comm_carry_receive, and calls
 * comm_carry_round_end once all of the round's have arrived.  The last
 * round's end sets c->done and c->agreed.  (P = 1: done at begin.) */
void comm_carry_begin(comm_carry *c, const comm_exchange *x, int radix);
void comm_carry_pack(const comm_carry *c, void *to);
void comm_carry_receive(comm_carry *c, int k, int d, const void *from);
void comm_carry_round_end(comm_carry *c, int k);
/* The same agreement in one allreduce, for a kernel that makes an
 * allreduce anyway (the padded backends' largest block): done, and
 * *max_block gets the largest block any rank sends, itself included. */
int comm_carry_allreduce(comm_carry *c, const comm_exchange *x,
                         size_t *max_block);

/* auto's decision for a call with these counts (alltoallv_auto.c): the
 * statistics handed over by ravel_comm_hint_stats, or agreed by one
 * allreduce, then the model's choice, reused when statistics, model and
 * `in_exchange` equal the last call's; ctx->last_choice and ctx->chosen_fn
 * name it.  `in_exchange`: the call is ravel_exchange_run's, which makes a
 * count exchange before the backends that need one (the model's
 * ravel_cost_choose_exchange).  Collective unless hinted. */
int comm_auto_decide(comm_context *ctx, const int counts[],
                     MPI_Datatype type, const int recvcounts[],
                     MPI_Datatype recvtype, int in_exchange);

/* Says once, from rank 0, that auto decides with the built-in model
 * (nothing when a model was given). */
void comm_model_announce_default(void);

/* How many models this process has set: a choice made with the current
 * one needs no comparison of the parameters. */
unsigned comm_model_generation(void);

/* Checks that `n` fits in an int for an MPI call; names `what` if not. */
int comm_int_count(size_t n, const char *what, int *out);

#endif
