/* ravel/cost_model.h: what each all-to-all backend costs, for one call.
 *
 * The model is the one place that knows what every backend costs.  It has
 * two layers, both closed forms derived in comm/model/cost_model.c:
 *
 *  - counts: given every block size of a call (the P x P matrix), exactly
 *    what one rank posts, sends and copies in each backend.  The tests
 *    compare them with what the instrumented backends report through
 *    ravel_comm_stats_get(): they must match to the byte.
 *  - predictions: given only a few global statistics of the call (no rank
 *    knows the whole matrix), the time of the slowest rank in each backend,
 *    from five machine parameters measured by ravel-calibrate:
 *        alpha  seconds of latency per message on the wire
 *        beta   seconds per byte through one rank's link when it alone sends
 *        gamma  seconds per byte of a local copy (memcpy) by one core
 *        o      seconds of CPU to post and complete one send or receive
 *        fresh  seconds per byte of fresh shared memory: a shared window
 *               allocated and first written (what shm's window costs
 *               when it grows)
 *    and the ranks per node, which share one network interface.
 *
 * The `auto` backend evaluates the predictions on statistics every rank
 * agrees on, in the same order, and calls the cheapest backend, so every
 * rank calls the same one.  A model file (JSON, written by ravel-calibrate)
 * holds the parameters; see ravel_cost_model_load. */
#ifndef RAVEL_COST_MODEL_H
#define RAVEL_COST_MODEL_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The machine: what ravel-calibrate measures. */
typedef struct {
    double alpha;       /* s per message (latency) */
    double beta;        /* s per byte on one rank's link */
    double gamma;       /* s per byte copied locally */
    double o;           /* s of CPU per send or receive posted */
    double fresh;       /* s per byte of a shared window allocated and
                           first written */
    int ranks_per_node; /* ranks sharing one network interface (>= 1) */
} ravel_cost_params;

/* Global statistics of one call, the same on every rank.  Blocks a rank
 * sends itself are excluded everywhere but in max_self. */
typedef struct {
    int P;                      /* ranks */
    uint64_t max_block;         /* largest block any rank sends another */
    uint64_t max_send;          /* largest bytes one rank sends to others */
    uint64_t max_recv;          /* largest bytes one rank receives */
    uint64_t total;             /* all bytes between distinct ranks */
    uint64_t nonempty;          /* non-empty blocks between distinct ranks */
    uint64_t max_nonempty_send; /* most non-empty blocks one rank sends */
    uint64_t max_nonempty_recv; /* most non-empty blocks one rank receives */
    uint64_t max_self;          /* largest block a rank sends itself */
} ravel_call_stats;

/* What one rank does in one call of a backend.  `messages` and `bytes`
 * follow ravel_comm_stats (a collective counts one message per peer it
 * delivers to); `posted` counts point-to-point sends and receives that ravel
 * posts itself; `copied` the bytes ravel copies locally. */
typedef struct {
    uint64_t messages;
    uint64_t bytes;
    uint64_t metadata_messages;
    uint64_t metadata_bytes;
    uint64_t posted;
    uint64_t copied;
} ravel_cost_counts;

/* The statistics of a call whose block sizes (bytes) are sizes[src * P +
 * dst]: what the auto backend agrees on with one allreduce. */
void ravel_call_stats_of(int P, const uint64_t sizes[], ravel_call_stats *s);

/* The exact counts of rank `rank` in backend `name` for block sizes
 * sizes[src * P + dst], with byte-typed contiguous buffers and a separate
 * send buffer.  Returns 0, or -1 for a name the model does not describe
 * (auto, which is whatever it chooses, is not described). */
int ravel_cost_counts_of(const char *name, int P, int rank,
                         const uint64_t sizes[], ravel_cost_counts *out);

/* The same on nodes of node_size consecutive ranks, the last one shorter
 * when node_size does not divide P (RAVEL_NODE_SIZE's layout): what
 * two-level:INNER does depends on the nodes (ravel_cost_counts_of takes
 * all P ranks for one node), every other backend's counts do not. */
int ravel_cost_counts_on_nodes(const char *name, int P, int node_size,
                               int rank, const uint64_t sizes[],
                               ravel_cost_counts *out);

/* Predicted seconds of backend `name` for a call with statistics *s on a
 * machine *m (the slowest rank's time).  Returns a negative value for a
 * name the model does not describe. */
double ravel_cost_predict(const char *name, const ravel_cost_params *m,
                          const ravel_call_stats *s);

/* The backend auto picks: the backend the model describes with the least
 * predicted time, among the registry's fixed rows (shm where every rank
 * shares one node), radix-bruck at radix
 * 8, 16 and 32 ("radix-bruck:R", which ravel_alltoallv_lookup accepts) and,
 * where m->ranks_per_node > 1 and P spans several nodes, two-level over
 * each of those but shm ("two-level:INNER"); a tie goes to ravel's own
 * backends before `vendor` (whose internals the model can only estimate),
 * among them to the earlier row of the registry, then to the extra
 * radices, then to two-level.  Returns
 * a name in static storage; *predicted gets its prediction when not
 * NULL. */
const char *ravel_cost_choose(const ravel_cost_params *m,
                              const ravel_call_stats *s, double *predicted);

/* The time of the allreduce of a few words with which auto agrees on a
 * call's statistics on P ranks (0 on one rank). */
double ravel_cost_agreement(const ravel_cost_params *m, int P);

/* The same inside ravel_exchange_run (ravel/comm.h): a backend that needs
 * every receive count in advance pays the count exchange the call makes
 * first (an MPI_Ialltoall of 8 bytes per pair); the Bruck family discovers
 * the counts and pays nothing more. */
double ravel_cost_predict_exchange(const char *name,
                                   const ravel_cost_params *m,
                                   const ravel_call_stats *s);
const char *ravel_cost_choose_exchange(const ravel_cost_params *m,
                                       const ravel_call_stats *s,
                                       double *predicted);
/* Either choice among the registry's fixed rows only (in_exchange: as
 * ravel_cost_choose_exchange), for a caller that cannot run a radix or a
 * two-level backend the registry has no room left to name. */
const char *ravel_cost_choose_fixed(const ravel_cost_params *m,
                                    const ravel_call_stats *s,
                                    int in_exchange, double *predicted);

/* What shm's window would cost to grow for this call: fresh_bytes (a
 * rank's new segment; 0 when the window holds the call) times m->fresh. */
double ravel_cost_shm_growth(const ravel_cost_params *m,
                             uint64_t fresh_bytes);

/* The choice of ravel_cost_choose (in_exchange: _exchange), when shm's
 * window would take fresh_bytes to grow for this call: the rent-or-buy
 * (ski-rental) rule.  A choice of shm that needs the growth is taken only
 * once the time other backends lost against shm's without the growth, in
 * the calls that declined it, adds up to the growth's cost (*rent keeps
 * that sum between calls; the growth, once taken, sets it to 0); until
 * then the best other backend is taken and its loss added to *rent.  So
 * a run of few calls never pays a growth that its calls cannot repay, and
 * a run of many pays at most twice what knowing the future would.  The
 * prediction includes the growth when shm grows.  Same on every rank for
 * the same arguments. */
const char *ravel_cost_choose_renting(const ravel_cost_params *m,
                                      const ravel_call_stats *s,
                                      int in_exchange, int looked_up,
                                      uint64_t fresh_bytes, double *rent,
                                      double *predicted);

/* ---- the model the backends use --------------------------------------- */

/* Built-in parameters, used when no model file is given: rough figures of a
 * single multi-core node (see comm/model/cost_model.c for their origin). */
void ravel_cost_params_default(ravel_cost_params *m);

/* Reads a model file written by ravel-calibrate.  A file that is missing,
 * unreadable, malformed, of another format version, or has a missing or
 * non-positive parameter is refused: MPI_ERR_FILE or MPI_ERR_ARG, with
 * ravel_error_message() naming the file, and the field or line at fault.
 * Only "fresh" may be missing (files written before it): the built-in
 * figure is read for it. */
int ravel_cost_model_load(const char *path, ravel_cost_params *m);

/* Writes *m as a model file, with the extra JSON members in `extra` (a
 * comma-separated list of "name": value pairs, or NULL). */
int ravel_cost_model_save(const char *path, const ravel_cost_params *m,
                          const char *extra);

/* The model of this process: the one set last, else the file named by
 * RAVEL_MODEL, else the built-in default (auto says so once, on stderr
 * from rank 0 of MPI_COMM_WORLD, when it first decides with it).  Fails when RAVEL_MODEL names a bad
 * file.  `source` (may be NULL) gets the file's path or "built-in". */
int ravel_comm_model(const ravel_cost_params **m, const char **source);

/* Sets this process's model (copied); `source` names it in logs. */
void ravel_comm_set_model(const ravel_cost_params *m, const char *source);

/* Loads `path` and makes it this process's model (a NULL or empty path
 * changes nothing).  Errors as ravel_cost_model_load. */
int ravel_comm_use_model_file(const char *path);

/* The global statistics of an MPI_Alltoallv call with these arguments,
 * agreed on by one allreduce (what auto does without a hint).  Collective. */
int ravel_comm_call_stats(const void *sendbuf, const int sendcounts[],
                          MPI_Datatype sendtype, const int recvcounts[],
                          MPI_Datatype recvtype, MPI_Comm comm,
                          ravel_call_stats *s);

/* The process's model's prediction for backend `name` on `comm` (its real
 * ranks per node).  Errors as ravel_comm_model, or MPI_ERR_ARG for a name
 * the model does not describe. */
int ravel_comm_predict(MPI_Comm comm, const char *name,
                       const ravel_call_stats *s, double *seconds);
/* The same for a call of ravel_exchange_run, which makes a count exchange
 * before a backend that needs every receive count
 * (ravel_cost_predict_exchange). */
int ravel_comm_predict_exchange(MPI_Comm comm, const char *name,
                                const ravel_call_stats *s, double *seconds);

/* ---- statistics handed to auto ---------------------------------------- */

/* Tells the next call of the auto backend on `comm` the call's global
 * statistics, so that it need not agree on them itself.  Every rank must
 * pass the same statistics.  Not collective; consumed by that call. */
int ravel_comm_hint_stats(MPI_Comm comm, const ravel_call_stats *s);

/* What the last call of auto on `comm` chose (its registry index and
 * prediction); *index = -1 before any. */
int ravel_comm_last_choice(MPI_Comm comm, int *index, double *predicted);

/* What auto knows of its last call on `comm` (alltoallv form): *known = 1
 * and its statistics in *s when every rank agreed on them (by allreduce,
 * by hint, or along the call's own messages), else 0 (*s then holds the
 * latest statistics every rank knows, of an earlier call); *carried = 1
 * when that call chose from an earlier call's statistics instead of
 * agreeing first.  Any pointer but comm may be NULL. */
int ravel_comm_auto_memory(MPI_Comm comm, int *known, ravel_call_stats *s,
                           int *carried);

#ifdef __cplusplus
}
#endif
#endif
