/* ravel/relalg.h: the balanced parallel relational-algebra engine (BPRA).
 *
 * An engine evaluates Datalog-style rules over relations of uint64_t columns
 * to a fixed point, across the ranks of an MPI communicator (Kumar & Gilray,
 * HiPC'19 and ISC'20).  The main design choices:
 *
 *  - Placement.  A tuple of a relation with key width k lives in bucket
 *    ravel_hash_columns(first k columns, k, seed) % buckets; a bucket is split
 *    into s sub-buckets (1 <= s <= P) by hashing the other columns, and
 *    sub-bucket j of bucket b lives on rank (b + j) % P.  Every rank computes
 *    the same placement; a tuple has exactly one home.
 *  - Storage.  Each relation keeps, on every rank, `full` (all tuples it
 *    holds) and `delta` (those added in the last iteration) as flat, sorted,
 *    duplicate-free arrays of tuples: arity uint64_t words per tuple and
 *    nothing else, so a tuple costs arity * 8 bytes.  Sorted order is
 *    lexicographic on the columns, so a relation is also sorted on its key,
 *    and joins are merge joins with galloping search.
 *  - Joins.  join(left, right) pairs tuples whose first k columns are equal
 *    (both sides must have the same key width k).  The left side is the one
 *    that is spread over sub-buckets; when the left or right relation's bucket
 *    is split, the engine keeps a replica of the right relation on every rank
 *    holding a sub-bucket of the left one (a hidden relation, filled in the
 *    same exchanges).  Put the big, growing relation on the left.
 *  - Secondary indexes.  ravel_relation_index declares a copy of a relation
 *    with its columns permuted (the chosen key columns first), kept in step
 *    with it by the engine: every tuple the base gets, the index gets in the
 *    same iteration, so rules may join on other columns.  Multi-way joins are
 *    written as chains of binary joins through intermediate relations.
 *  - Evaluation.  A program is a list of strata, run in order.  A stratum
 *    runs semi-naively: at its start every relation's delta is its whole
 *    content; each iteration evaluates every rule of the stratum on the
 *    current versions, buffers all output per destination rank, performs ONE
 *    exchange through the chosen comm backend, keeps what is absent from
 *    full as the next delta and adds it to full.  The stratum ends when no
 *    rank found a new tuple.  An iteration's ONE allreduce agrees on that,
 *    on its log record, and on the next iteration's exchange (whose rules
 *    were evaluated before it): one exchange and one allreduce per
 *    iteration, and one allreduce more per stratum.
 *  - Load balancing (ISC'20, spatial): after an iteration in which some
 *    relation of at least balance_min_tuples grew by an eighth since the
 *    last look, a bucket whose sub-buckets hold more than `balance_factor`
 *    times the mean bucket size is split into more sub-buckets (up to P)
 *    and its tuples moved.  Results do not depend on it.
 *
 * Conventions.  Functions return MPI error codes (MPI_SUCCESS on success)
 * and record a message for ravel_error_message() (ravel/error.h).  Functions
 * marked "collective" must be called by every rank of the engine's
 * communicator; when one rank fails there, every rank returns an error.
 * Declarations (relations, indexes, strata, rules) are local but must be made
 * identically, in the same order, on every rank.  Not thread-safe. */
#ifndef RAVEL_RELALG_H
#define RAVEL_RELALG_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The largest arity of a relation. */
#define RAVEL_MAX_ARITY 64

typedef struct ravel_engine ravel_engine;

/* A relation handle: small integers, in order of declaration. */
typedef int ravel_rel;

typedef struct {
    const char *comm_backend; /* comm.h backend name; default "vendor" */
    int load_balance;         /* split heavy buckets; default 1 (on) */
    uint64_t buckets;         /* buckets per relation; 0 = 64 * P */
    uint32_t sub_buckets;     /* initial sub-buckets per bucket, 1..P
                                 (clamped to P); default 1 */
    double balance_factor;    /* split when a sub-bucket holds more than
                                 this times the mean bucket; default 4 */
    uint64_t balance_min_tuples; /* relations smaller than this (global) are
                                    never split; default 65536 */
    uint64_t seed;            /* hash seed of the placement; default 0 */
    uint64_t max_block_elements; /* most uint64_t words sent to one rank in
                                    one exchange round; larger iterations
                                    take several rounds.  0 = the largest
                                    safe value, INT_MAX / 8 / P */
    const char *log_path;     /* per-iteration CSV (rank 0 writes); NULL =
                                 none */
    int quiet;                /* no progress lines on stderr; default 0 */
    const char *model_path;   /* cost model file (ravel-calibrate) for the
                                 auto backend and the predictions in the
                                 log; NULL = RAVEL_MODEL, else built-in */
    uint64_t pack_min_tuples; /* a relation is stored packed (a few bytes
                                 per tuple) once this many of its tuples on
                                 a rank are not, counted as tuples of 2
                                 columns (wider ones: as many bytes); 0 =
                                 never pack; default 1048576 */
    uint32_t run_ratio;       /* a relation's full is held as a few sorted
                                 runs, each at most 1/run_ratio of the one
                                 before, so that an iteration's new tuples
                                 do not move all of full; 0 = default 4
                                 (1 makes a run of most deltas: tests) */
    uint64_t max_memory;      /* bytes this rank's tuples may hold (its
                                 relations, outboxes and exchange arrays);
                                 a run that would need more stops with an
                                 MPI_ERR_NO_MEM naming the relation, the
                                 iteration and the size.  0 = 3/4 of the
                                 memory available at creation, shared among
                                 the node's ranks; UINT64_MAX = no limit.
                                 One limit per process: the last engine
                                 created sets it */
    const char *checkpoint_dir; /* write snapshots of the run into this
                                   folder (created if missing): every
                                   checkpoint_every seconds, between
                                   iterations, and at the end of every
                                   stratum; NULL = none */
    double checkpoint_every;  /* seconds between snapshots; 0 = after every
                                 iteration; default 600 */
    int discover_counts;      /* 1: exchange through ravel_exchange
                                 (comm.h), which learns receive sizes on
                                 the way (default); 0: an MPI_Ialltoall of
                                 counts, then the backend's
                                 MPI_Alltoallv.  Either way the call's
                                 statistics are agreed in the previous
                                 iteration's allreduce */
    int pack_into_outboxes;   /* with discover_counts and a backend whose
                                 outboxes are written in place (shm): 1
                                 packs the streams straight into them
                                 when they fit its window as it is, so
                                 the backend copies nothing (default); 0
                                 packs them into a send array of the
                                 engine's, which the backend copies from
                                 (kept for comparison) */
    const char *resume_dir;   /* the next ravel_run continues from the
                                 newest complete snapshot in this folder
                                 (on any number of ranks) instead of from
                                 the inserted facts; NULL = start afresh */
} ravel_engine_options;

/* Fills *o with the defaults above. */
void ravel_engine_options_init(ravel_engine_options *o);

/* Bytes this rank's tuples hold now and the most they held so far: what
 * max_memory limits (relations, outboxes, exchange arrays).  Not
 * collective. */
void ravel_tuple_memory(uint64_t *held, uint64_t *peak);

/* Creates an engine on (a duplicate of) comm.  Collective.  o may be NULL
 * for the defaults.  Fails with MPI_ERR_ARG for an unknown backend name. */
int ravel_engine_create(MPI_Comm comm, const ravel_engine_options *o,
                        ravel_engine **out);

/* Frees everything the engine holds.  Collective (frees a communicator).
 * NULL is accepted. */
void ravel_engine_free(ravel_engine *e);

/* ---- relations ----------------------------------------------------------- */

/* Declares relation `name` (unique, at most 63 characters) with `arity`
 * columns (1..RAVEL_MAX_ARITY), partitioned and joined on its first
 * `key_columns` columns (1..arity). */
int ravel_relation_declare(ravel_engine *e, const char *name, unsigned arity,
                           unsigned key_columns, ravel_rel *out);

/* Declares a secondary index of `base`: a relation named `name` whose columns
 * are base's columns key_cols[0..nkey) followed by the remaining columns of
 * base in their order, keyed on its first nkey columns.  The engine keeps it
 * equal to that permutation of base (full and delta alike); it may be read by
 * rules, never written.  Declare it before base is filled, or it is filled
 * at the next ravel_run. */
int ravel_relation_index(ravel_engine *e, ravel_rel base, const char *name,
                         unsigned nkey, const unsigned *key_cols,
                         ravel_rel *out);

/* The relation called `name`: MPI_SUCCESS, or MPI_ERR_ARG when unknown. */
int ravel_relation_find(const ravel_engine *e, const char *name,
                        ravel_rel *out);

unsigned ravel_relation_arity(const ravel_engine *e, ravel_rel r);
unsigned ravel_relation_key_columns(const ravel_engine *e, ravel_rel r);
const char *ravel_relation_name(const ravel_engine *e, ravel_rel r);

/* Adds n facts (n * arity words, row after row) to relation r, from any
 * rank: they are buffered here and sent to their owners at the next
 * ravel_flush or ravel_run.  Not collective.  r must not be an index. */
int ravel_insert(ravel_engine *e, ravel_rel r, const uint64_t *tuples,
                 size_t n);

/* Sends buffered facts to their owners and fills new indexes.  Collective.
 * ravel_run does it first; call it to query relations before a run. */
int ravel_flush(ravel_engine *e);

/* ---- rules --------------------------------------------------------------- */

typedef enum { RAVEL_DELTA = 0, RAVEL_FULL = 1 } ravel_version;

/* One body atom: a relation and the version of it the rule reads. */
typedef struct {
    ravel_rel rel;
    ravel_version version;
} ravel_body;

/* A value in a rule: column `column` of body atom `side` (0 = the copy's
 * body or the join's left, 1 = the join's right), or a constant. */
typedef struct {
    int side;         /* 0, 1, or RAVEL_SIDE_CONSTANT */
    unsigned column;  /* column of that atom's relation, in its order */
    uint64_t value;   /* the constant, when side == RAVEL_SIDE_CONSTANT */
} ravel_term;

#define RAVEL_SIDE_CONSTANT (-1)
/* A computed value: expression number `column` of the rule's list (the
 * *_ex declarations below). */
#define RAVEL_SIDE_EXPR (-2)

static inline ravel_term ravel_col(int side, unsigned column)
{
    ravel_term t = {side, column, 0};
    return t;
}

static inline ravel_term ravel_const(uint64_t value)
{
    ravel_term t = {RAVEL_SIDE_CONSTANT, 0, value};
    return t;
}

static inline ravel_term ravel_expr_ref(unsigned index)
{
    ravel_term t = {RAVEL_SIDE_EXPR, index, 0};
    return t;
}

typedef enum {
    RAVEL_EQ = 0, RAVEL_NE, RAVEL_LT, RAVEL_LE, RAVEL_GT, RAVEL_GE,
    /* The same orders by the engine's order function instead of unsigned
     * comparison (ravel_engine_set_order): for values whose order is not
     * their bits' (a front end's ids of strings). */
    RAVEL_ORD_LT, RAVEL_ORD_LE, RAVEL_ORD_GT, RAVEL_ORD_GE
} ravel_cmp;

/* An order on values: negative, 0 or positive as a comes before, with or
 * after b.  It must be a total order, the same on every rank. */
typedef int (*ravel_order_fn)(uint64_t a, uint64_t b, void *arg);

/* The order RAVEL_ORD_* filters use (none by default: a rule using them
 * then fails when it is evaluated).  Local; set it alike on every rank. */
void ravel_engine_set_order(ravel_engine *e, ravel_order_fn fn, void *arg);

/* Arithmetic on 64-bit words: ADD, SUB, MUL wrap modulo 2^64 (the same
 * bits for signed and unsigned values); SDIV and SREM read both words as
 * two's-complement integers and truncate toward zero (INT64_MIN / -1 is
 * INT64_MIN, its remainder 0); UDIV and UREM read them unsigned; XOR is
 * bitwise.  A division or remainder by zero stops the run with an error
 * naming the rule's head. */
typedef enum {
    RAVEL_ADD = 0, RAVEL_SUB, RAVEL_MUL, RAVEL_SDIV, RAVEL_SREM, RAVEL_UDIV,
    RAVEL_UREM, RAVEL_XOR
} ravel_op;

/* left op right.  An operand may be a body column, a constant, or an
 * earlier expression of the same list (ravel_expr_ref(i), i below this
 * one's index). */
typedef struct {
    ravel_op op;
    ravel_term left, right;
} ravel_expr;

/* Keeps a body tuple (or pair) only when `left op right` holds (unsigned
 * comparison, or the engine's order for RAVEL_ORD_*). */
typedef struct {
    ravel_term left;
    ravel_cmp op;
    ravel_term right;
} ravel_filter;

/* Starts a new stratum: the rules declared next belong to it.  Strata run
 * in declaration order.  Rules declared before any stratum_begin go into a
 * first stratum made for them. */
int ravel_stratum_begin(ravel_engine *e);

/* head(terms) :- body, filters.  head_terms has head's arity entries, each
 * a body column (side 0) or a constant.  head must not be an index. */
int ravel_rule_copy(ravel_engine *e, ravel_rel head, ravel_body body,
                    const ravel_term *head_terms, size_t nfilters,
                    const ravel_filter *filters);

/* head(terms) :- left, right, filters, where left and right agree on their
 * first k columns (both relations have key width k).  head_terms has head's
 * arity entries from either side (0 = left, 1 = right) or constants. */
int ravel_rule_join(ravel_engine *e, ravel_rel head, ravel_body left,
                    ravel_body right, const ravel_term *head_terms,
                    size_t nfilters, const ravel_filter *filters);

/* head(terms) :- left, !right: the tuples of left whose first k columns
 * equal those of no tuple of right (both relations have key width k), the
 * anti-join of stratified negation.  head_terms and filters read left
 * (side 0) or constants only.  right is read in full and must not grow in
 * this stratum (a relation of an earlier stratum, or an index of one):
 * the engine does not check it, and a right side still growing would make
 * the result depend on the order of iterations.  Placement is a join's:
 * a left tuple meets every right tuple with its key on its own rank. */
int ravel_rule_antijoin(ravel_engine *e, ravel_rel head, ravel_body left,
                        ravel_rel right, const ravel_term *head_terms,
                        size_t nfilters, const ravel_filter *filters);

/* The most expressions one rule may hold. */
#define RAVEL_MAX_EXPRS 256

/* The three rules above with computed values: head terms and filters may
 * also be ravel_expr_ref(i), i < nexprs <= RAVEL_MAX_EXPRS, evaluated for
 * each body tuple (or pair) from exprs[0..nexprs) in order. */
int ravel_rule_copy_ex(ravel_engine *e, ravel_rel head, ravel_body body,
                       const ravel_term *head_terms, size_t nfilters,
                       const ravel_filter *filters, size_t nexprs,
                       const ravel_expr *exprs);
int ravel_rule_join_ex(ravel_engine *e, ravel_rel head, ravel_body left,
                       ravel_body right, const ravel_term *head_terms,
                       size_t nfilters, const ravel_filter *filters,
                       size_t nexprs, const ravel_expr *exprs);
int ravel_rule_antijoin_ex(ravel_engine *e, ravel_rel head, ravel_body left,
                           ravel_rel right, const ravel_term *head_terms,
                           size_t nfilters, const ravel_filter *filters,
                           size_t nexprs, const ravel_expr *exprs);

/* What an aggregate computes over the tuples of a group. */
typedef enum {
    RAVEL_AGG_COUNT = 0, /* the number of tuples */
    RAVEL_AGG_SUM,       /* the sum of the values, modulo 2^64 */
    RAVEL_AGG_MIN,       /* the least value (unsigned comparison) */
    RAVEL_AGG_MAX        /* the greatest value (unsigned comparison) */
} ravel_agg;

/* head(g1, ..., gk, result): for every group of body's tuples that agree
 * on their first k columns (k = head's arity - 1; in body's column order,
 * so an index puts its key first), result = op over the group's tuples of
 * `value` (a body column, side 0, a constant, or an expression of exprs;
 * unused by COUNT), XORed with result_xor (the caller's encoding of the
 * result, e.g. a flipped sign bit).  With k = 0 the whole body is one
 * group, and COUNT and SUM give a result (0) even when body is empty; MIN
 * and MAX of no tuples give none.
 *
 * body is read once, whole, at the stratum's first iteration: it must be
 * complete before the stratum starts (a relation of an earlier stratum, or
 * an index of one), as an anti-join's right side.  Each rank reduces its
 * own tuples first; the partial results of a group meet on one rank (a
 * hidden relation that is never split) in the stratum's first exchange,
 * and the head gets its tuples in the second. */
int ravel_rule_aggregate(ravel_engine *e, ravel_rel head, ravel_rel body,
                         ravel_agg op, ravel_term value, size_t nexprs,
                         const ravel_expr *exprs, uint64_t result_xor);

/* ---- evaluation ---------------------------------------------------------- */

/* Flushes facts, then runs every stratum declared since the previous run, in
 * order, each to its fixed point.  Collective. */
int ravel_run(ravel_engine *e);

/* What one iteration did, the same on every rank. */
typedef struct {
    uint32_t stratum;          /* 0-based, in declaration order */
    uint32_t iteration;        /* 1-based within the stratum */
    uint64_t max_block_bytes;  /* N: largest block one rank sent to another */
    uint64_t total_bytes;      /* bytes sent rank to rank (self excluded) in
                                  the iteration's exchange */
    uint64_t balance_bytes;    /* bytes moved by load balancing after it */
    double comm_seconds;       /* exchange time, max over ranks */
    double compute_seconds;    /* rule evaluation and insertion, max */
    int backend;               /* registry index (ravel_alltoallv_name) of
                                  the backend that moved the tuples: the
                                  fixed one, or auto's choice; -1 when
                                  nothing moved */
    double predicted_seconds;  /* the cost model's time for that call */
    double backend_seconds;    /* its measured time, max over ranks (part
                                  of comm_seconds) */
    uint64_t new_tuples;       /* tuples added to declared relations */
    uint64_t total_tuples;     /* tuples in declared relations afterwards */
} ravel_iteration_record;

/* Called on every rank after each iteration (collectively, in the same
 * order), e.g. to sample counters; may be NULL. */
typedef void (*ravel_iteration_hook)(const ravel_iteration_record *rec,
                                     void *arg);
void ravel_engine_set_iteration_hook(ravel_engine *e, ravel_iteration_hook fn,
                                     void *arg);

/* All records so far (valid until the next run or free), and their count. */
const ravel_iteration_record *ravel_engine_records(const ravel_engine *e,
                                                   size_t *n);

/* Iterations run so far, all strata together, and those of them that
 * found new tuples; a resumed run counts those before its snapshot too
 * (ravel_engine_records holds only this run's). */
uint64_t ravel_engine_iterations(const ravel_engine *e);
uint64_t ravel_engine_productive_iterations(const ravel_engine *e);

/* This rank's seconds in the exchanges that no iteration record counts
 * (sending and landing, as a record's comm_seconds counts them):
 * the facts' placement on their ranks (the first run's start) and the
 * balancer's moves.  A backend that sets itself up in the first of them
 * (shm allocates its window there) pays for it here, so a comparison of
 * backends adds this to the records' comm_seconds. */
double ravel_engine_move_seconds(const ravel_engine *e);

/* ---- queries ------------------------------------------------------------- */

/* The number of tuples of r over all ranks.  Collective. */
int ravel_relation_size(ravel_engine *e, ravel_rel r, uint64_t *out);

/* This rank's tuples of r: *tuples points to *n tuples of arity words
 * each, sorted and duplicate-free, valid until the next flush, run or free.
 * Every tuple of r is held by exactly one rank.  A packed relation is
 * unpacked for this (16 bytes per 2-column tuple from then on), which can
 * fail for want of memory: MPI_ERR_NO_MEM, with *n = 0.  Not collective. */
int ravel_relation_local(ravel_engine *e, ravel_rel r,
                         const uint64_t **tuples, size_t *n);

/* This rank's tuples of r, as ravel_relation_local gives them (sorted,
 * duplicate-free), handed to visit a batch at a time without unpacking a
 * packed relation: for a caller that streams them (writing output).  The
 * batch is valid during the call only.  visit returns 0 to go on; any
 * other value stops the visit and is returned.  MPI_ERR_NO_MEM when the
 * batch buffer cannot be had.  Not collective. */
typedef int (*ravel_visit_fn)(const uint64_t *tuples, size_t n, void *arg);
int ravel_relation_visit(ravel_engine *e, ravel_rel r, ravel_visit_fn visit,
                         void *arg);

/* The rank that owns `tuple` of r under the current placement (an index's
 * tuple in the index's column order). */
int ravel_relation_owner(const ravel_engine *e, ravel_rel r,
                         const uint64_t *tuple);

/* The current sub-bucket count of bucket `bucket` of r (1 when unsplit). */
uint32_t ravel_relation_sub_buckets(const ravel_engine *e, ravel_rel r,
                                    uint64_t bucket);
uint64_t ravel_engine_buckets(const ravel_engine *e);

#ifdef __cplusplus
}
#endif
#endif
