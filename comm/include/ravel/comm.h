/* ravel/comm.h: pluggable non-uniform all-to-all exchange.
 *
 * Every backend has exactly the signature and the semantics of MPI_Alltoallv,
 * so a caller can swap one for another, or for MPI_Alltoallv itself, by name:
 *
 *   vendor           MPI_Alltoallv of the MPI library (MPI_Ialltoallv when
 *                    waiting yields the core)
 *   spread-out       Isend/Irecv to every peer in rotated order, throttled
 *   padded-alltoall  every block padded to the global maximum, MPI_Alltoall
 *   padded-bruck     every block padded, then a zero-rotation Bruck exchange
 *                    (`padded-bruck:basic`: the classical Bruck, with its
 *                    rotations; `padded-bruck:modified`: padded-bruck)
 *   two-phase-bruck  Bruck exchange of exact sizes: at every step a metadata
 *                    message, then the data (Fan et al., HPDC'22)
 *   pairwise         P-1 steps of one send and one receive each, waited for
 *                    before the next (Thakur et al.'s long-message algorithm)
 *   inline-bruck     two-phase Bruck with the sizes in a header in front of
 *                    the data: one message per step (two past 64 KiB)
 *   radix-bruck      Bruck in radix r, sizes inline: ceil(log_r P) rounds of
 *                    up to r - 1 messages at once (TuNA, Fan et al.,
 *                    HPDC'25); `radix-bruck` is r = 4, `radix-bruck:R` any
 *                    R >= 2 (R >= P: one round, a direct exchange)
 *   shm              ranks of one node: each writes its blocks into its
 *                    segment of a shared window, one allreduce, each copies
 *                    its blocks out (in ravel_exchange_run: reads them in
 *                    place); refused when the ranks span several nodes
 *   auto             per call, the backend ravel/cost_model.h predicts to be
 *                    fastest (every rank picks the same one): from
 *                    statistics agreed by an allreduce while the exchange
 *                    pattern is new or changing, then from the last
 *                    call's, carried along that call's own messages;
 *                    `auto:agree` agrees by allreduce before every call
 *
 * Guarantees of every backend, the same as MPI_Alltoallv's:
 *  - results byte-identical to MPI_Alltoallv for any P >= 1, any counts
 *    (zeros included) and any displacements (gaps, any order, overlapping on
 *    the send side);
 *  - send and receive datatypes may differ when their type signatures match;
 *    contiguous types are moved as bytes, others are packed with MPI_Pack.  A
 *    type that cannot be packed as plain bytes is refused with MPI_ERR_TYPE;
 *  - MPI_IN_PLACE as sendbuf is accepted (the data comes from recvbuf);
 *  - the caller's buffers (other than recvbuf) and count arrays are read only;
 *  - internal messages travel on a duplicate of `comm`, made on first use and
 *    cached on `comm` (freed with it), so they never match the caller's
 *    pending messages.
 *
 * Errors are MPI error codes.  Like an MPI function, a backend hands an error
 * to the communicator's error handler (MPI_ERRORS_ARE_FATAL by default); with
 * MPI_ERRORS_RETURN it returns the code, and ravel_error_message() says why.
 * One internal message is limited to INT_MAX bytes (MPI's int count).
 *
 * Waiting.  Where an MPI busy-polls and ranks outnumber cores, a blocking
 * wait burns the core that the peer it waits for needs.  Every backend
 * therefore waits through ravel_comm_waitall, which either blocks in
 * MPI_Waitall or loops over MPI_Testall and sched_yield.  The mode is chosen
 * per communicator on first use from the environment variable RAVEL_WAIT:
 *   RAVEL_WAIT=auto   (default) yield when the ranks of the communicator on
 *                     this node outnumber the node's online cores
 *   RAVEL_WAIT=yield  always yield
 *   RAVEL_WAIT=block  always block
 *
 * Tunables (environment, read on first use, or the setters below):
 *   RAVEL_SPREAD_OUT_THROTTLE  requests in flight in spread-out (default 32)
 *
 * Testing node-aware code on one machine: RAVEL_NODE_SIZE=k splits every
 * node into fake nodes of k consecutive ranks (the cost model's ranks per
 * node, shm's refusal).  For tests only: the fake nodes still share memory.
 */
#ifndef RAVEL_COMM_H
#define RAVEL_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The MPI_Alltoallv signature shared by every backend. */
typedef int (*ravel_alltoallv_fn)(const void *sendbuf, const int sendcounts[],
                                  const int sdispls[], MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[],
                                  const int rdispls[], MPI_Datatype recvtype,
                                  MPI_Comm comm);

#define RAVEL_ALLTOALLV_DECLARE(fn)                                           \
    int fn(const void *sendbuf, const int sendcounts[], const int sdispls[],  \
           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],      \
           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)

RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_vendor);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_spread_out);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_padded_alltoall);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_padded_bruck);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_two_phase_bruck);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_pairwise);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_inline_bruck);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_radix_bruck);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_shm);
RAVEL_ALLTOALLV_DECLARE(ravel_alltoallv_auto);

/* The backend registered under `name` ("vendor", "spread-out", ...), or NULL
 * when no backend has that name; then ravel_error_message() says why in a
 * sentence that lists the accepted names.  A name with a parameter
 * ("radix-bruck:8", "padded-bruck:basic") joins the table, after the fixed
 * rows, the first time it is looked up. */
ravel_alltoallv_fn ravel_alltoallv_lookup(const char *name);

/* The registered backends, in table order: name i for i < count, else NULL.
 * The fixed rows come first (ravel_alltoallv_fixed_count of them, `auto`
 * the last); then the parameterized names looked up so far. */
size_t ravel_alltoallv_fixed_count(void);
size_t ravel_alltoallv_count(void);
const char *ravel_alltoallv_name(size_t i);

/* Writes the fixed rows' names separated by `sep` into buf (always
 * terminated); returns the length the full list needs. */
size_t ravel_alltoallv_names(char *buf, size_t buflen, const char *sep);

/* ---- an exchange that discovers its receive counts --------------------
 *
 * MPI_Alltoallv needs every receive count in advance, so its callers first
 * exchange counts (an MPI_Alltoall).  A ravel_exchange does not: the
 * library owns the buffers, the caller fills an outbox per destination
 * (or hands one filled send buffer), runs the exchange, and reads, for
 * each source, a view of what arrived.  The backends of the Bruck family
 * (two-phase-bruck, inline-bruck, radix-bruck[:R]) learn the sizes on the
 * way and place each block as it arrives; every other backend is run
 * after one count exchange inside ravel_exchange_run (an MPI_Alltoall of
 * 8 bytes per pair; for two-level:INNER, a call of two-level:INNER itself
 * on 8-byte blocks), so its cost shows in the exchange's time and counts
 * (as metadata).
 * `auto` chooses per run: with statistics handed over by
 * ravel_comm_hint_stats, or agreed by one allreduce in which each rank's
 * largest receive is taken as its largest send (no rank knows its
 * receives yet). */
typedef struct ravel_exchange ravel_exchange;

/* A handle for exchanges on comm with backend `name` (as
 * ravel_alltoallv_lookup accepts).  Collective on first use of comm. */
int ravel_exchange_create(MPI_Comm comm, const char *name,
                          ravel_exchange **out);

/* Frees the handle and every buffer and view it owns.  NULL is a no-op. */
void ravel_exchange_free(ravel_exchange *x);

/* Room for `bytes` more bytes at the end of dest's outbox: the caller
 * writes them there.  Valid until the next outbox, send or run call on the
 * handle; NULL (with ravel_error_message) when out of memory.  With
 * backend shm the room is in this rank's segment of the node's shared
 * window where it fits (ravel_comm_shm_outboxes), so the run copies
 * nothing: the receivers read the caller's bytes where they were
 * written. */
void *ravel_exchange_outbox(ravel_exchange *x, int dest, size_t bytes);

/* Whether outboxes of bytes[i] bytes for each rank i, asked for in rank
 * order (each in one ravel_exchange_outbox call, the first of this run),
 * would all be written in place now: backend shm on more than one rank,
 * in the window as it is.  Filling them then saves the copy a send buffer
 * costs (ravel_exchange_send); where they would not fit, the handle's own
 * memory holds them and the window grows for the next run (up to
 * ravel_comm_shm_outboxes), and with any other backend outboxes cost as
 * much as a send buffer or one copy more (packed into one for a backend
 * of MPI_Alltoallv's signature).  A caller that sends from outboxes only
 * when this says so never makes the window grow for them. */
int ravel_exchange_outboxes_fit(const ravel_exchange *x,
                                const size_t bytes[]);

/* Empties the outboxes without a run: what they hold is not sent. */
void ravel_exchange_discard(ravel_exchange *x);

/* Instead of outboxes: for the next run only, rank i's block is the
 * bytes[i] bytes at buf + offsets[i] (read in place, not copied, so it
 * must stay untouched until the run returns).  Discards the outboxes. */
int ravel_exchange_send(ravel_exchange *x, const void *buf,
                        const size_t bytes[], const size_t offsets[]);

/* Sends every outbox (or the send buffer) and receives every rank's block.
 * Collective.  Empties the outboxes; the views of the previous run end. */
int ravel_exchange_run(ravel_exchange *x);

/* What rank src sent in the last run: *bytes bytes at the pointer (NULL
 * when empty), read only, valid until the next run or the handle's free.
 * With backend shm the views point into the other ranks' segments of the
 * communicator's shared window, which its second shm call after this run
 * writes again, whichever handle (or MPI_Alltoallv-form call) makes it:
 * one handle per communicator, as the engine uses, never sees it; a
 * caller alternating two shm handles on one communicator must be done
 * with one's views before the other runs twice. */
const void *ravel_exchange_inbox(const ravel_exchange *x, int src,
                                 size_t *bytes);

/* Hands over the memory behind the last run's views when it is one block
 * the caller may keep: the views stay valid (they point into it) past the
 * next run, *bytes is its size, and the caller frees it with free().  NULL
 * when the views are spread over several blocks, when nothing arrived, or
 * when the memory is not the caller's to free (SMPI's shared payloads; a
 * shared-memory backend's views into its peers): the caller then copies
 * out of the views.  Lets a caller adopt what arrived without a copy. */
void *ravel_exchange_take_inbox(ravel_exchange *x, size_t *bytes);

/* Ends the last run's views and frees the memory behind them now, and
 * the outboxes' memory of the handle's own (else both are kept for the
 * next run). */
void ravel_exchange_release(ravel_exchange *x);

/* The backend that moved the data in the last run (auto's choice). */
const char *ravel_exchange_backend(const ravel_exchange *x);

/* ---- waiting ---------------------------------------------------------- */

typedef enum { RAVEL_WAIT_BLOCK = 0, RAVEL_WAIT_YIELD = 1 } ravel_wait_mode;

/* The mode this communicator's exchanges wait in.  Collective on comm the
 * first time it is called for comm (it duplicates comm, see above). */
int ravel_comm_wait_mode(MPI_Comm comm, ravel_wait_mode *mode);

/* Waits for all n requests in comm's waiting mode.  Collective on comm only
 * the first time comm is used by ravel. */
int ravel_comm_waitall(MPI_Comm comm, int n, MPI_Request requests[]);

/* MPI_Allreduce (as MPI_Iallreduce and ravel_comm_waitall) and MPI_Barrier,
 * in comm's waiting mode, for callers that exchange around the backends. */
int ravel_comm_allreduce(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int ravel_comm_barrier(MPI_Comm comm);

/* When some rank of comm failed (local_error != MPI_SUCCESS there), every
 * rank returns the error of the lowest failing rank, its message prefixed
 * "rank R: ", so that the line a tool prints on rank 0 says what went
 * wrong where; MPI_SUCCESS when none failed.  Collective: call it on every
 * rank, e.g. once an allreduce has flagged a failure. */
int ravel_comm_first_error(MPI_Comm comm, int local_error);

/* For a step only rank 0 performs (reading a shared file): every rank
 * returns rank 0's error and message as they are.  Collective. */
int ravel_comm_root_error(MPI_Comm comm, int root_error);

/* ---- tunables --------------------------------------------------------- */

/* Requests in flight in spread-out (sends and receives together); >= 2. */
void ravel_comm_set_spread_out_throttle(int requests);
int ravel_comm_spread_out_throttle(void);

/* The most bytes one half of a rank's segment in shm's shared window holds
 * (its header and blocks; the segment has two halves): an exchange in
 * which some rank sends more goes in rounds of that size, the window never
 * growing past it.  Default 1 MiB, or RAVEL_SHM_CHUNK (a size: 4M, 65536,
 * 1G; at least 1024).  The same on every rank of a communicator; 0
 * forgets a value set, going back to RAVEL_SHM_CHUNK's or the default. */
void ravel_comm_set_shm_chunk(uint64_t bytes);
uint64_t ravel_comm_shm_chunk(void);

/* The most bytes one half of a rank's segment in shm's shared window grows
 * to for outboxes written in place (an exchange handle of backend shm
 * hands out its outboxes' room there, so the caller's writes are the only
 * copy; see ravel_exchange_outbox).  Outboxes that do not fit stay the
 * handle's own memory, copied in at the run (in rounds of
 * ravel_comm_shm_chunk when larger).  Default 16 MiB, or
 * RAVEL_SHM_OUTBOXES (a size, at least 1024); never below the chunk.  The
 * same on every rank; 0 forgets a value set. */
void ravel_comm_set_shm_outboxes(uint64_t bytes);
uint64_t ravel_comm_shm_outboxes(void);

/* ---- simulation ------------------------------------------------------- */

/* Under SimGrid SMPI (libravel built with -DRAVEL_SIMGRID=ON), on != 0 backs
 * the backends' staging buffers by pages that all simulated ranks share, so
 * that P*N-sized buffers fit in one host process at thousands of ranks; the
 * data delivered is garbage then, so this is for timing runs only.  Counts,
 * offsets and schedules stay private.  Change it between exchanges, never
 * during one.  Returns whether sharing is on: always 0 outside SMPI. */
int ravel_comm_share_payloads(int on);

/* ---- accounting ------------------------------------------------------- */

/* What this process sent through the backends since the last reset: one
 * message per point-to-point send (a collective counts one message per peer
 * it delivers to, with the bytes it carries there), self copies excluded.
 * `posted` and `copied` are the local work: point-to-point sends and
 * receives ravel posted itself, and bytes ravel copied in memory (packing,
 * staging, forwarding, its own block; not what the MPI library copies
 * inside its collectives).  ravel/cost_model.h predicts all six. */
typedef struct {
    uint64_t messages;
    uint64_t bytes;
    uint64_t metadata_messages; /* of which carried block sizes, not data */
    uint64_t metadata_bytes;
    uint64_t posted;            /* sends and receives posted */
    uint64_t copied;            /* bytes copied locally */
} ravel_comm_stats;

void ravel_comm_stats_reset(void);
ravel_comm_stats ravel_comm_stats_get(void);

/* Reports `bytes` copied in memory by ravel (the comm layer and the engine
 * call it for every copy, pack and rotation): counted in `copied`, and under
 * SimGrid SMPI charged to the simulated clock as bytes x RAVEL_SIM_GAMMA
 * seconds (environment, seconds per byte; unset or 0: free, as SMPI leaves
 * local work by default).  Outside SMPI it only counts. */
void ravel_comm_charge_copy(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
