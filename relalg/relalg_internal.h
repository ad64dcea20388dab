/* relalg_internal.h: the engine's structures, shared by the relalg sources.
 *
 * Relations come in three kinds.  A declared relation is written by rules
 * and facts.  An index is a permuted copy of a declared relation.  A replica
 * is a hidden copy of a relation placed on every rank that holds a
 * sub-bucket of another ("layout") relation, so that joins stay local when
 * buckets are split.  Indexes and replicas are "derived": every tuple their
 * base receives is also sent to them, in the same exchange. */
#ifndef RAVEL_RELALG_INTERNAL_H
#define RAVEL_RELALG_INTERNAL_H

#include "ravel/comm.h"
#include "ravel/cost_model.h"
#include "ravel/relalg.h"

#include <stdint.h>
#include <stdio.h>
#include <xxhash.h>

/* ---- the memory budget (memory_budget.c) -------------------------------- */

/* The bytes tuple storage may hold on this rank; 0 = no limit. */
void budget_set_limit(uint64_t bytes);
/* The default limit: 3/4 of the memory available now, shared among the
 * ranks of comm on this node (0 when the kernel does not say).  Collective
 * on comm. */
int budget_default(MPI_Comm comm, uint64_t *bytes);
uint64_t budget_limit(void);
/* Bytes held now, and the most held so far. */
uint64_t budget_held(void);
uint64_t budget_peak(void);
/* MPI_SUCCESS when a buffer may grow from old_bytes to new_bytes within the
 * limit; else MPI_ERR_NO_MEM with a message saying how much it needed. */
int budget_check(size_t old_bytes, size_t new_bytes);
/* Records that a buffer went from old_bytes to new_bytes (0: freed). */
void budget_note(size_t old_bytes, size_t new_bytes);
/* Starts a window (an iteration); whether the most held in it came within
 * a quarter of the limit. */
void budget_window_start(void);
int budget_window_near_limit(void);

/* ---- flat tuple arrays (tuple_ops.c) ------------------------------------ */

typedef struct {
    uint64_t *data; /* n * arity words */
    size_t n;       /* tuples */
    size_t cap;     /* tuples allocated */
    size_t bytes;   /* bytes allocated, as the memory budget knows them */
} tuple_buf;

int tuple_buf_reserve(tuple_buf *b, unsigned arity, size_t more);
int tuple_buf_append(tuple_buf *b, unsigned arity, const uint64_t *t,
                     size_t n);
void tuple_buf_free(tuple_buf *b);
/* Releases spare capacity (memory matters more than the realloc). */
void tuple_buf_shrink(tuple_buf *b, unsigned arity);

/* The loops over every tuple of a bulk operation (sorting, reducing) are
 * compiled once per common arity (1 to 4 columns) as well as for any
 * arity: with the width a constant, a tuple's copy is a few moves instead
 * of a call to memcpy (7.5% of the samples of a profile of TC on
 * ego-Facebook, relalg/README.md), and loops over columns unroll. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Runs `call` with `w` the tuple width `arity`, a constant for 1 to 4
 * columns: the one place that says which widths are compiled apart. */
#define WITH_CONSTANT_WIDTH(arity, w, call)                                    \
    switch (arity) {                                                           \
    case 1: { const unsigned w = 1; call; } break;                             \
    case 2: { const unsigned w = 2; call; } break;                             \
    case 3: { const unsigned w = 3; call; } break;                             \
    case 4: { const unsigned w = 4; call; } break;                             \
    default: { const unsigned w = (arity); call; } break;                      \
    }

/* Sorts n tuples in place on their first k columns (k <= arity; the order
 * among tuples equal there is unspecified): radix or quicksort
 * (tuple_sort.c). */
void tuples_sort_prefix(uint64_t *t, size_t n, unsigned arity, unsigned k);

/* A blocked Bloom filter of tuples (tuple_filter.c): whether a set surely
 * lacks a tuple, or may hold it. */
typedef struct {
    uint64_t *words; /* NULL: none */
    size_t mask;     /* words - 1, a power of two less one */
    size_t n;        /* tuples added */
    size_t most;     /* tuples it takes at its bits a tuple */
    size_t covers;   /* storage.c: the count of full's flat and packed
                        parts it was last brought up to; another count
                        means it is stale */
} tuple_filter;

/* A hash of a tuple's columns: the word from its low bits, the three bits
 * in it from its high ones. */
static inline uint64_t tuple_filter_hash(const uint64_t *t, unsigned arity)
{
    uint64_t h = 0x9E3779B97F4A7C15u;
    for (unsigned c = 0; c < arity; c++) {
        h = (h ^ t[c]) * 0xBF58476D1CE4E5B9u;
        h ^= h >> 31;
    }
    h *= 0x94D049BB133111EBu;
    return h ^ (h >> 29);
}

static inline uint64_t tuple_filter_bits(uint64_t h)
{
    return (1ull << (h >> 58)) | (1ull << ((h >> 52) & 63)) |
           (1ull << ((h >> 46) & 63));
}

/* Whether the filter may hold t (0: surely not). */
static inline int tuple_filter_may_hold(const tuple_filter *f,
                                        const uint64_t *t, unsigned arity)
{
    uint64_t h = tuple_filter_hash(t, arity), b = tuple_filter_bits(h);
    return (f->words[h & f->mask] & b) == b;
}

/* Empties f and sizes it for `tuples` (allocating, budgeted). */
int tuple_filter_reset(tuple_filter *f, size_t tuples);
/* Adds n tuples (f has room: f->n + n <= f->most keeps its error rate). */
void tuple_filter_add(tuple_filter *f, const uint64_t *t, size_t n,
                      unsigned arity);
void tuple_filter_free(tuple_filter *f);

/* One sorted duplicate-free array of tuples, read only. */
typedef struct {
    const uint64_t *t;
    size_t n;
} tuple_run;

/* The most flat runs a relation's full is held in (storage.c). */
#define FULL_RUNS_MAX 5

struct packed_tuples;
/* Sorts t[0..n) lexicographically in place and drops repeats and the
 * tuples of a set held as the disjoint runs flat[0..nflat) and `packed`
 * (any may be empty; packed may be NULL; nflat <= FULL_RUNS_MAX); returns
 * the new count (tuple_reduce.c). */
size_t tuples_reduce(uint64_t *t, size_t n, unsigned arity,
                     const tuple_run *flat, unsigned nflat,
                     const struct packed_tuples *packed);

struct tuple_box;
/* A relation's full as the reduction reads it: flat runs, a packed part
 * and the bits of a box (any may be empty; bits may be NULL).  The
 * functions below that take (flat, nflat, packed) read this with no
 * bits; storage.c passes full whole (full_set_of). */
typedef struct {
    const tuple_run *flat;
    unsigned nflat;
    const struct packed_tuples *packed;
    const struct tuple_box *bits;
    const tuple_filter *filter; /* of the flat runs and the packed part,
                                   or NULL */
} full_set;
/* tuples_reduce against a full_set. */
size_t tuples_reduce_in(uint64_t *t, size_t n, unsigned arity,
                        const full_set *full);

/* Candidates held as one bit per tuple of their box (tuple_reduce.c): for
 * the candidates of a dense closure, a bitmap of the box is far smaller
 * than the candidates at 8 bytes a column.  Only the box's rows that hold
 * tuples take room (a row: one value of all columns but the last). */
typedef struct tuple_box {
    uint32_t *slot;               /* [rows]: 1 + the row's place in bits,
                                     0: the row holds nothing (NULL: no
                                     box) */
    uint64_t *bits;               /* the rows that hold tuples */
    size_t rows, row_words;
    size_t used_rows, cap_rows;
    int zeroed;                   /* bits come zeroed: rows need no
                                     clearing when taken */
    size_t most_words;            /* index and rows take up to this */
    unsigned span_factor;         /* the box, every row held or not, may
                                     span this many times the words its
                                     tuples take flat (0: once) */
    size_t added;                 /* tuples added (repeats too) */
    size_t count;                 /* bits set: the tuples it holds */
    size_t retry_at;              /* widen again from this many added */
    uint64_t min[RAVEL_MAX_ARITY], max[RAVEL_MAX_ARITY];
    unsigned arity;
} tuple_box;
/* What a box may always take for each tuple it holds, in bytes a column:
 * about what the tuples take packed, a quarter of flat.  full is held as
 * bits within it (storage.c), and a box of candidates grows to it whatever
 * limit it started with (new_row, tuple_reduce.c). */
#define BOX_BYTES_PER_COLUMN 2
/* That room for n tuples of `arity` columns. */
static inline size_t box_bytes_for(size_t n, unsigned arity)
{
    return n * arity * BOX_BYTES_PER_COLUMN;
}
/* Starts *x as the box of t[0..n) with their bits set, when its bitmap
 * takes at most most_bytes and the tuples' own bytes (and fits the memory
 * limit); else returns 0
 * and leaves *x empty.  The box widens for tuples outside it while its
 * bitmap stays within most_bytes. */
int tuple_box_start(tuple_box *x, const uint64_t *t, size_t n,
                    unsigned arity, size_t most_bytes);
/* Sets t's bit, widening the box if need be; 0 when t stays outside. */
int tuple_box_add(tuple_box *x, const uint64_t *t);
/* Sets the bits of t[0..n), the box's limit first raised to most_bytes if
 * that is more, and the box widened to the smallest that holds them and
 * what it held (within that limit and the words of its tuples, these
 * included, flat).  Returns how many it could not take, moved to t's
 * front: n when it could not widen (the box then as it was, its limit
 * raised), else those whose rows the limit refused. */
size_t tuple_box_absorb(tuple_box *x, uint64_t *t, size_t n,
                        size_t most_bytes);
/* Appends to out, sorted, the box's tuples not held by the set of flat
 * runs and packed (as tuples_reduce's), and frees the box. */
int tuple_box_drain(tuple_box *x, const tuple_run *flat, unsigned nflat,
                    const struct packed_tuples *packed, tuple_buf *out);
/* The same written as the packed set *out (never flat: a box of a dense
 * closure's candidates holds tens of millions of new tuples). */
int tuple_box_drain_packed(tuple_box *x, const tuple_run *flat,
                           unsigned nflat, const struct packed_tuples *packed,
                           struct packed_tuples *out);
/* The same, each against the full of a full_set. */
int tuple_box_drain_in(tuple_box *x, const full_set *full, tuple_buf *out);
int tuple_box_drain_packed_in(tuple_box *x, const full_set *full,
                              struct packed_tuples *out);
/* The tuples the box holds. */
size_t tuple_box_count(const tuple_box *x);
void tuple_box_free(tuple_box *x);
/* Whether the box holds t. */
int tuple_box_has(const tuple_box *x, const uint64_t *t);
/* Hands the box's tuples to put in order, in batches; the first error put
 * returns ends it and is returned.  The box is only read. */
int tuple_box_each(const tuple_box *x,
                   int (*put)(void *arg, const uint64_t *t, size_t n),
                   void *arg);
/* Raises the limit of x's index and held rows to most_bytes, if more. */
void tuple_box_raise_limit(tuple_box *x, size_t most_bytes);

/* Drops from sorted unique t[0..n) the tuples of the set held as flat and
 * packed (as tuples_reduce's), keeping the order; returns the new count. */
size_t tuples_drop_held(uint64_t *t, size_t n, unsigned arity,
                        const tuple_run *flat, unsigned nflat,
                        const struct packed_tuples *packed);
/* The same against a full_set. */
size_t tuples_drop_held_in(uint64_t *t, size_t n, unsigned arity,
                           const full_set *full);

/* tuples_reduce against nothing: sort and drop repeats. */
size_t tuples_sort_unique(uint64_t *t, size_t n, unsigned arity);

/* Lexicographic comparison of the first `words` columns: -1, 0 or 1.
 * Inline: it is the innermost operation of sorting, merging and joining. */
static inline int tuples_compare(const uint64_t *a, const uint64_t *b,
                                 unsigned words)
{
    for (unsigned i = 0; i < words; i++) {
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/* First index i in [lo, n) whose first `words` columns are >= key
 * (galloping from lo). */
size_t tuples_lower_bound(const uint64_t *t, size_t lo, size_t n,
                          unsigned arity, const uint64_t *key,
                          unsigned words);

/* Whether some run of runs[0..nruns) holds a tuple whose first `words`
 * columns are key's; j[r] is where run r's search starts and is moved
 * forward (keys asked in increasing order; runs after the one that holds
 * key are not searched, which later searches do not mind). */
int tuple_runs_hold(const tuple_run *runs, unsigned nruns, size_t *j,
                    unsigned arity, const uint64_t *key, unsigned words);

/* Merges sorted unique add[0..m) (disjoint from full) into full. */
int tuples_merge_into(tuple_buf *full, unsigned arity, const uint64_t *add,
                      size_t m);

/* ---- packed tuples (packed.c) ------------------------------------------- */

/* A sorted duplicate-free set of tuples, varint-encoded against each
 * predecessor, in blocks of PACKED_BLOCK whose first tuples are kept whole
 * for searching.  Read by cursors; never modified, only rebuilt.
 * The encoded bytes lie in chunks of at most one huge page (a block never
 * spans two), so that a merge can give back the chunks of the set it
 * reads as it goes and write the new set into them (packed_merge). */
#define PACKED_BLOCK 128

typedef struct packed_tuples {
    unsigned char **chunks;       /* the encoded tuples after each head */
    size_t *used;                 /* [nchunks] bytes written in each */
    size_t nchunks, capchunks;
    size_t lastcap;               /* room of the last chunk (the others
                                     have packed_chunk_bytes()) */
    size_t nbytes;                /* written in all chunks */
    uint64_t *heads;              /* nblocks * arity words */
    size_t capheads;
    uint64_t *offsets;            /* where each block's bytes start: its
                                     chunk << 32 | the byte in it */
    size_t capoffsets;
    size_t nblocks;
    size_t n;                     /* tuples */
} packed_tuples;

typedef struct {
    packed_tuples *p;
    unsigned arity;
    uint64_t prev[RAVEL_MAX_ARITY];
} packed_writer;

typedef struct {
    const packed_tuples *p;
    unsigned arity;
    size_t index;                 /* of cur in the set */
    int at_end;
    const unsigned char *pos;
    uint64_t cur[RAVEL_MAX_ARITY];
} packed_cursor;

/* Starts an empty set *p written by w; tuples must come in increasing
 * order (a repeat of the last one is dropped). */
void packed_writer_init(packed_writer *w, packed_tuples *p, unsigned arity);
int packed_append(packed_writer *w, const uint64_t *t);
/* packed_append of t[0..n) in order, for callers that hand tuples over
 * by callback (a packed_writer * as arg). */
int packed_append_tuples(void *writer, const uint64_t *t, size_t n);
void packed_free(packed_tuples *p);
/* Puts c on the first tuple of block `block` (at_end past the last). */
void packed_cursor_seek(packed_cursor *c, const packed_tuples *p,
                        unsigned arity, size_t block);
/* Moves c to the next tuple; 0 (and at_end) past the last. */
int packed_cursor_next(packed_cursor *c);
/* The last block whose first tuple is <= t (0 when none is). */
size_t packed_block_at(const packed_tuples *p, unsigned arity,
                       const uint64_t *t);
/* Moves c forward to the first tuple >= t (at_end if none): by the
 * blocks' heads when t lies beyond the next block, then tuple by tuple. */
void packed_cursor_advance_to(packed_cursor *c, const uint64_t *t);
/* *out = base plus sorted unique add[0..m); a tuple in both is kept once
 * (packed_append drops a repeat of the tuple before it).  Consumes base,
 * which is empty afterwards, failed or not: its chunks are given back as
 * the merge leaves them, and out's are taken from those, so a merge holds
 * about one set, not two, and writes into memory already faulted in. */
int packed_merge(packed_tuples *out, packed_tuples *base,
                 const uint64_t *add, size_t m, unsigned arity);
/* A sorted unique set of tuples to merge: flat, or packed when `packed`
 * is set. */
typedef struct {
    tuple_run flat;
    const packed_tuples *packed;
} tuple_source;
static inline size_t tuple_source_count(const tuple_source *s)
{
    return s->packed ? s->packed->n : s->flat.n;
}
/* Starts *x as the box of the disjoint sorted unique sets src[0..nsrc)
 * with their bits set, as tuple_box_start does for a flat array: when its
 * index and held rows take at most most_bytes, and its span, every row
 * held or not, at most span_factor times the words of the tuples flat
 * (weighed first on a sample); else returns 0 and leaves *x empty.  The
 * box keeps the factor as it widens.  A relation's full, held as bits
 * (storage.c), starts so. */
int tuple_box_start_sets(struct tuple_box *x, const tuple_source *src,
                         unsigned nsrc, unsigned arity, size_t most_bytes,
                         unsigned span_factor);
#define PACKED_MERGE_SOURCES_MAX 4
/* The same with up to PACKED_MERGE_SOURCES_MAX sources added at once (a
 * tuple in several kept once): a relation's flat part and its new tuples
 * are packed in without being merged flat first, and an iteration's new
 * tuples are gathered from the sets they came in (storage.c).  The
 * sources are only read. */
int packed_merge_sources(packed_tuples *out, packed_tuples *base,
                         const tuple_source *src, unsigned nsrc,
                         unsigned arity);
/* Ends a set written by w alone: its unused room goes. */
void packed_writer_finish(packed_writer *w);
/* Appends sorted unique t[0..n) to p in place when they all come after
 * its last tuple (*done then 1; else p is untouched): what p holds is
 * not written again, as a merge would. */
int packed_extend(packed_tuples *p, const uint64_t *t, size_t n,
                  unsigned arity, int *done);
/* The encoded bytes of p, in order, to out (p->nbytes of them). */
void packed_copy_bytes(const packed_tuples *p, unsigned char *out);
/* The bytes of a chunk.  Tests set a small size to make sets of many
 * chunks from few tuples (0: the default, one huge page); set it only
 * while no packed set exists. */
size_t packed_chunk_bytes(void);
void packed_set_chunk_bytes(size_t bytes);
/* Frees the chunks kept for reuse (packed_merge's); the engine's free
 * calls it. */
void packed_release_spare_chunks(void);
/* *out = the tuples of p, flat, with room for `extra` more. */
int packed_unpack(const packed_tuples *p, unsigned arity, tuple_buf *out,
                  size_t extra);

/* Bytes one tuple may take encoded: the column index, the increase and
 * arity - 1 columns, each a varint of at most 10 bytes. */
#define TUPLE_MAX_BYTES(arity) (10 * ((size_t)(arity) + 1))

/* The high half of a column after the first that differs is written
 * against the tuple before's (XOR): the low half as it is.  Values that
 * share their high bits, as the Datalog front end's numbers do (their sign
 * bit flipped to sort as unsigned: 2^63 + n), then take the bytes of their
 * low half, 1 to 5, instead of 10: kCFA's AEval as Datalog took 12.6
 * bytes a tuple packed, ravel-kcfa's the same tuples 4.  Values below 2^32
 * are written as they are. */
#define TUPLE_HIGH_BITS UINT64_C(0xFFFFFFFF00000000)

/* v as written after prev (or back: the same XOR). */
static inline uint64_t tuple_against_high(uint64_t v, uint64_t prev)
{
    return v ^ (prev & TUPLE_HIGH_BITS);
}

/* Writes t encoded against prev (the tuple before it, or zeros) at p and
 * returns the end: the first column c where they differ, t[c] - prev[c]
 * and the columns after c (tuple_against_high of prev's), as LEB128
 * varints.  Compact when t follows prev in sorted order; correct in any
 * order. */
unsigned char *tuple_encode(unsigned char *p, const uint64_t *prev,
                            const uint64_t *t, unsigned arity);
/* Decodes one tuple of [p, end) onto cur (which holds the tuple before
 * it); returns the end of what it read, or NULL when the bytes run out or
 * name a column beyond arity. */
const unsigned char *tuple_decode(const unsigned char *p,
                                  const unsigned char *end, uint64_t *cur,
                                  unsigned arity);

/* ---- relations ----------------------------------------------------------- */

typedef enum { REL_DECLARED, REL_INDEX, REL_REPLICA } rel_kind;

typedef struct {
    char name[64];
    rel_kind kind;
    unsigned arity, key;
    int base;                     /* declared relation it derives from */
    unsigned perm[RAVEL_MAX_ARITY]; /* column i = base column perm[i] */
    int layout;                   /* replica: relation whose sub-buckets it
                                     follows; else itself */
    int copy_of;                  /* replica: the relation it copies */
    int active;                   /* derived: receives tuples */
    int populated;                /* derived: filled from its base */
    int never_split;              /* the partials of an aggregate: a
                                     group's must meet on one rank */
    tuple_buf full;               /* flat; the oldest and largest run,
                                     or, when packed.n > 0, the tuples
                                     added since the last packing */
    tuple_buf runs[FULL_RUNS_MAX - 1]; /* the rest of full's flat part:
                                     newer runs, each a small fraction of
                                     the one before (storage.c) */
    unsigned nruns;
    tuple_filter filter;          /* of full's flat and packed parts, when
                                     it counts their tuples (storage.c) */
    packed_tuples packed;         /* the rest of full, when packed */
    tuple_box bits;               /* or full whole as the bits of its box
                                     (bits.slot NULL: not; then full's
                                     flat and packed parts are empty):
                                     storage.c, "full as bits" */
    size_t bits_n;                /* the tuples bits holds */
    uint64_t bits_tried_at;       /* full's size when bits were last
                                     refused or given up: tried again
                                     at twice it (by a quarter more while
                                     full is all flat) */
    int pack_ok;                  /* no rule of the running stratum reads
                                     full: its flat part is one array (it
                                     is packed either way: storage.c) */
    int written;                  /* some rule of the running stratum
                                     writes it (or its base) */
    tuple_buf delta;
    packed_tuples delta_packed;   /* a large delta, packed (delta is then
                                     empty): storage.c, pack_delta */
    int delta_is_full;            /* at a stratum's start delta = full */
    uint32_t *subs;               /* [buckets] sub-bucket counts */
    int split;                    /* some bucket has subs > 1 */
    uint64_t *bucket_count;       /* [buckets] local tuples per bucket, when
                                     balancing */
    tuple_buf pending;            /* facts inserted, not yet routed */
    tuple_buf incoming;           /* candidates received this iteration,
                                     or tuples moved here (full only) */
    tuple_buf incoming_checked;   /* candidates that came stripped of
                                     full's tuples: box drains, packed
                                     segments (promotion does not search
                                     full for them again) */
    tuple_buf incoming_delta;     /* tuples moved here that are in delta */
    packed_tuples incoming_packed; /* candidates drained or landed packed
                                     without what full holds: this rank's
                                     box, and packed segments when
                                     arrivals_packed (promotion makes it
                                     delta) */
    int arrivals_packed;          /* this exchange's packed segments of
                                     candidates land in incoming_packed
                                     (exchange_reserve_checked decides) */
    int *targets;                 /* declared: itself and its active derived
                                     relations, the targets of its tuples */
    size_t ntargets;
    uint64_t moves;               /* times tuples moved into or out of
                                     full (the balancer, derived relations
                                     filled): an index of full built
                                     before is stale (join_grouped.c) */
    uint64_t promoted;            /* new tuples at its last promotion */
    int pack_agreed;              /* whether every rank packs full at the
                                     next promotion, as the ranks agreed
                                     in the last iteration's allreduce;
                                     -1: each rank decides alone (one
                                     rank, or no agreement yet):
                                     storage.c, pack_due */
    uint64_t packs_agreed;        /* times full was packed because the
                                     ranks agreed to (tests) */
    uint64_t packs_alone;         /* and by this rank's own decision */
} relation;

/* Appends one tuple to a buffer: the emission hot path. */
static inline int tuple_buf_push(tuple_buf *b, unsigned arity,
                                 const uint64_t *t)
{
    if (b->n == b->cap) {
        int err = tuple_buf_reserve(b, arity, 1);
        if (err != MPI_SUCCESS)
            return err;
    }
    uint64_t *d = b->data + b->n * arity;
    for (unsigned i = 0; i < arity; i++)
        d[i] = t[i];
    b->n++;
    return MPI_SUCCESS;
}

/* A join's static side indexed by its last column (join_grouped.c). */
typedef struct grouped_index grouped_index;

typedef struct {
    ravel_body body[2];
    int nbody;                    /* 1 = copy, 2 = join */
    int negated;                  /* join: an anti-join (left, !right) */
    int head;
    int source[2];                /* relation read for each side (a replica
                                     or the relation itself), set per run */
    ravel_term *terms;            /* head arity */
    ravel_filter *filters;
    size_t nfilters;
    ravel_expr *exprs;            /* computed values, in order */
    size_t nexprs;
    int replica;                  /* join: replica of the right side, -1 */
    /* An aggregate (ravel_rule_aggregate) is two rules: stage 1 reduces
     * this rank's body tuples per group into partial results, emitted to
     * the hidden relation `head` (group, rank, partial), at the stratum's
     * first iteration only; stage 2 combines the partials that arrived
     * (its body's delta) into the real head (group, result). */
    int agg_stage;                /* 0: not an aggregate; 1 or 2 */
    ravel_agg agg_op;
    unsigned agg_groups;          /* k: the group's columns */
    ravel_term agg_value;         /* stage 1: what is reduced */
    uint64_t agg_xor;             /* stage 2: XORed into the result */
    grouped_index *grouped;       /* join: its index for join_grouped, kept
                                     through a stratum; NULL: none */
} rule;

typedef struct {
    rule *rules;
    size_t nrules;
    int done;
} stratum;

/* The buckets of one-column keys, remembered (placement.c): hashing the key
 * was a fifth of a 2-rank profile of TC on wiki-Vote, whose join places
 * each edge's target once for every path into the edge's source.
 * Direct-mapped; bucket_plus_1 is 0 in an empty entry. */
#define BUCKET_MEMO_BITS 11
#define BUCKET_MEMO_SIZE ((size_t)1 << BUCKET_MEMO_BITS)
typedef struct {
    uint64_t key, bucket_plus_1;
} bucket_memo;

struct ravel_engine {
    MPI_Comm comm;
    int rank, size;
    ravel_engine_options opt;
    char backend_name[64];
    ravel_alltoallv_fn alltoallv;
    ravel_exchange *exchange;     /* the discover_counts path's handle */
    int backend_index;            /* in the comm registry */
    int backend_is_auto;          /* it chooses per call: hint it */
    ravel_call_stats call_stats;  /* of the iteration's backend call */
    uint64_t buckets;
    uint64_t seed_sub;            /* seed for the sub-bucket hash */
    bucket_memo *bucket_memo;     /* [BUCKET_MEMO_SIZE]; NULL: none */
    relation *rels;
    size_t nrels, caprels;
    stratum *strata;
    size_t nstrata, capstrata;
    ravel_iteration_record *records;
    size_t nrecords, caprecords;
    uint64_t iterations;
    uint64_t productive;          /* iterations that found new tuples */
    double move_seconds;          /* this rank's time in the exchanges
                                     outside the iterations' own: the
                                     facts' placement, the balancer's
                                     moves (balance_finish_moves) */
    ravel_iteration_hook hook;
    void *hook_arg;
    ravel_order_fn order;         /* of the RAVEL_ORD_* filters; NULL */
    void *order_arg;
    FILE *log;
    MPI_Op record_op;             /* max of some fields, sum of others */
    double last_progress;
    /* outbox[(2 * target + in_delta) * size + rank]: tuples for target on
     * rank; in_delta is used by moves only.  outbox_packed, indexed alike:
     * what a buffer for another rank held when it filled, sorted, without
     * repeats and packed (exchange.c, push_compacting) */
    tuple_buf *outbox;
    packed_tuples *outbox_packed;
    tuple_box **outbox_box;       /* indexed alike: a buffer's candidates
                                     as bits once their box is small
                                     (exchange.c, push_compacting); NULL
                                     when none */
    size_t outbox_slots;
    int echoed_error;             /* the exchange failed only because
                                     another rank did (its error is that
                                     rank's to tell) */
    char *checkpoint_dir;         /* snapshots go here; NULL: none */
    char *resume_dir;             /* resume from here; NULL: start afresh */
    uint32_t snapshot_seq;        /* number of the last snapshot written */
    uint32_t snapshot_at[2];      /* its stratum and iteration (0: none
                                     written by this run) */
    int snapshot_written;         /* by this run */
    double last_snapshot;         /* when (ravel_now), or the run began */
    /* The balancer's room for every relation's bucket counts, local and
     * global (uint64_t each), then the sub-bucket counts before it looks
     * (uint32_t): grown with the relation table, so that a look, which is
     * collective, never fails on one rank for want of memory. */
    void *balance_scratch;
    uint64_t grouped_joins;       /* joins join_grouped evaluated (tests
                                     look) */
};

/* The outbox buffer of slot (2 * target + in_delta) for `rank`. */
static inline tuple_buf *outbox_at(const ravel_engine *e, size_t slot,
                                   int rank)
{
    return &e->outbox[slot * (size_t)e->size + (size_t)rank];
}

/* The packed part of the outbox buffer of slot for `rank`. */
static inline packed_tuples *outbox_packed_at(const ravel_engine *e,
                                              size_t slot, int rank)
{
    return &e->outbox_packed[slot * (size_t)e->size + (size_t)rank];
}

/* Where the box of the outbox buffer of slot for `rank` is kept. */
static inline tuple_box **outbox_box_at(const ravel_engine *e, size_t slot,
                                        int rank)
{
    return &e->outbox_box[slot * (size_t)e->size + (size_t)rank];
}

/* Frees the box at *x, if any. */
void outbox_box_free(tuple_box **x);

/* The outbox slot of tuples for `target` (in_delta: moved tuples that are
 * in delta). */
static inline size_t outbox_slot_index(int target, int in_delta)
{
    return 2 * (size_t)target + (in_delta != 0);
}

/* The outbox buffer of tuples for `target` on `rank`. */
static inline tuple_buf *outbox_slot(const ravel_engine *e, int target,
                                     int in_delta, int rank)
{
    return outbox_at(e, outbox_slot_index(target, in_delta), rank);
}

/* ---- the relation table (engine.c) -------------------------------------- */

/* A zeroed slot for the next relation, e->rels[e->nrels], growing the table
 * when it is full; the caller fills it and then counts it (e->nrels++).
 * NULL, with the message set, when memory runs out. */
relation *relation_slot(ravel_engine *e);

/* Declares a relation hidden from the caller (its name gets a '#' in
 * front, which declared names may not start with); returns its id, or -1
 * with the message set. */
int relation_add_hidden(ravel_engine *e, const char *name, unsigned arity,
                        unsigned key);

/* Returns err; when it is an error, first puts "relation NAME: " before the
 * message (once), so that a failure deep in storage says whose it was. */
int relation_error(const relation *r, int err);

/* ---- placement (placement.c) -------------------------------------------- */

uint64_t placement_bucket(const ravel_engine *e, const relation *r,
                          const uint64_t *t);
int placement_rank(const ravel_engine *e, const relation *r,
                   const uint64_t *t);
/* Allocates r's bucket layout and grows the balancer's room
 * (e->balance_scratch) to e->nrels + 1 relations. */
int placement_alloc_layout(ravel_engine *e, relation *r);

/* ---- emission and exchange (exchange.c) --------------------------------- */

/* Queues tuple t (in base column order of declared relation `base`) for
 * every active target of base; t is permuted per target. */
int emit_tuple(ravel_engine *e, int base, const uint64_t *t);
/* emit_tuple of the n tuples t, which share their first column: to a
 * relation that is its only target, keyed on that column and not split
 * there, they go to one rank together, a buffer's room at a time (a
 * grouped join's values, join_grouped.c). */
int emit_run(ravel_engine *e, int base, const uint64_t *t, size_t n);
/* Where up to n tuples of base that share t's first column may be written
 * straight into the outbox buffer that emit_run would copy them into: its
 * free room, when they go to one rank (as emit_run's), no box takes that
 * rank's tuples and the room holds n; NULL otherwise (emit_run then).
 * Only t's first column is read.  The w written are kept by adding w to
 * (*into)->n, before anything else is emitted. */
uint64_t *emit_room(ravel_engine *e, int base, const uint64_t *t, size_t n,
                    tuple_buf **into);
/* Queues t (already in target column order) for target only, to every
 * rank that should hold it; in_delta marks moved tuples that are in delta. */
int emit_to_target(ravel_engine *e, int target, const uint64_t *t,
                   int in_delta);

/* Sizes the outbox for the current relations and rebuilds every declared
 * relation's target list.  Call after relations are added or activated. */
int outbox_ensure(ravel_engine *e);

typedef struct {
    uint64_t max_block_bytes;
    uint64_t total_bytes;
    int backend;              /* registry index of the backend used; -1 */
    double predicted_seconds; /* the model's time for its call(s) */
    double backend_seconds;   /* measured time of the call(s) */
    double self_seconds;      /* handing this rank's own tuples over: local
                                 work, counted as computation */
    double exchange_seconds;  /* exchange_send_planned's sending and
                                 landing, less self_seconds: an
                                 iteration's comm_seconds, or a move's */
} exchange_stats;

/* An exchange in two halves, so that its agreement can ride in a
 * collective the caller makes anyway (run.c's iteration allreduce).
 *
 * exchange_pack, local: deduplicates the outbox and packs every other
 * rank's stream into one send array, and fills this rank's part of the
 * agreement.  exchange_send_planned, collective, once every rank has packed
 * without error and the parts are reduced (AGREE_MAX_* by maximum, the
 * rest summed, in words): moves the streams, the backend told the call's
 * statistics, and lands the arrivals in the targets' incoming (slot
 * in_delta 0) and incoming_delta buffers.  A rank failing there returns
 * its error alone: callers agree on errors in their next collective.
 * exchange_plan_discard frees a plan that will not be sent (a failure
 * somewhere, or the stratum ended); the outbox is emptied either way. */
enum { AGREE_MAX_BLOCK, AGREE_MAX_TOTAL, AGREE_MAX_NONEMPTY, AGREE_TOTAL,
       AGREE_NONEMPTY, AGREE_WORDS };
enum { AGREE_MAXIMA = AGREE_MAX_NONEMPTY + 1 };

typedef struct {
    uint64_t *send;               /* the streams to other ranks */
    size_t send_bytes;            /* as the memory budget knows it */
    int in_outboxes;              /* the streams are in e->exchange's
                                     outboxes instead (send is NULL) */
    uint64_t *len, *off;          /* [P] each: a stream's words, offset */
    size_t *sizes;                /* [2P] scratch taken ahead: past the
                                     agreement no rank may stop */
    uint64_t agree[AGREE_WORDS];  /* this rank's part of the agreement */
} exchange_plan;

int exchange_pack(ravel_engine *e, int local_error, exchange_plan *plan);
int exchange_send_planned(ravel_engine *e, exchange_plan *plan,
                          const uint64_t agreed[AGREE_WORDS],
                          exchange_stats *st);
void exchange_plan_discard(ravel_engine *e, exchange_plan *plan);
/* Frees the plan's send array once its streams are sent (its bytes leave
 * the memory ledger): before the arrivals are unpacked, so that the two
 * never add up at the exchange's peak. */
void exchange_plan_free_send(exchange_plan *plan);

/* Both halves with an agreement of their own (one small allreduce): for
 * the exchanges outside iterations (facts, moves).  local_error: this rank
 * failed before the call; every rank then returns an error.  Collective. */
int exchange_run(ravel_engine *e, int local_error, exchange_stats *st);

/* exchange_send_planned's moving of the streams when receive sizes are
 * discovered (exchange_discover.c): the rounds through e->exchange (the
 * plan's send array is freed after them), the arrivals to their
 * relations. */
int exchange_discover(ravel_engine *e, exchange_plan *plan,
                      uint64_t max_block, exchange_stats *st);

/* Shared by both paths (exchange.c). */
tuple_buf *exchange_slot_incoming(ravel_engine *e, size_t slot);
struct stream_segment_s;
/* Appends a segment's tuples to its slot's incoming buffer (a packed
 * segment of candidates: to incoming_checked, unpacked without what full
 * holds, or packed to incoming_packed where its relation's
 * arrivals_packed says so). */
int exchange_deliver(ravel_engine *e, const struct stream_segment_s *sg);
int exchange_hand_over(tuple_buf *into, tuple_buf *from, unsigned arity);
/* Decides, per relation, whether the packed segments of candidates
 * counted in count[outbox_slots..) (exchange_scan_streams) land packed
 * (as many as a packed delta holds: storage_packs_delta), and else makes
 * room for them in incoming_checked: they land there without the buffer
 * growing segment by segment. */
int exchange_reserve_checked(ravel_engine *e, const uint64_t *count);
/* The slot with the most words in count[] (tuples per slot): the one
 * whose arrivals get a buffer of their own instead of being appended. */
size_t exchange_largest_slot(const ravel_engine *e, const uint64_t *count);

/* ---- the streams (exchange_streams.c) ----------------------------------- */

/* One segment of a stream: n tuples of slot, raw or packed. */
typedef struct stream_segment_s {
    size_t slot;
    uint64_t n;
    int packed;
    const uint64_t *data;         /* raw tuples, or the packed heads */
    uint64_t nbytes;              /* packed: the encoded bytes after them */
    uint64_t words;               /* the whole segment's */
} stream_segment;

/* Sorts dest's outbox buffer of slot, drops repeats and merges it into its
 * packed part; the buffer is emptied (keep) or freed.  For a rank other
 * than this one. */
int exchange_seal_outbox(ravel_engine *e, size_t slot, int dest, int keep);
/* Words of the stream to dest: each slot's segment in its shorter form. */
uint64_t exchange_stream_words(const ravel_engine *e, int dest);
/* Writes that stream at out (exchange_stream_words of room) and frees the
 * outbox buffers it came from. */
void exchange_write_stream(ravel_engine *e, int dest, uint64_t *out);
/* Reads the segment at *in (before end) and moves *in past it; an error
 * naming source when the stream is malformed. */
int exchange_next_segment(const ravel_engine *e, int source,
                          const uint64_t **in, const uint64_t *end,
                          stream_segment *sg);
/* Writes sg's tuples at out (which may overlap a raw segment's tuples
 * from below, as when arrivals move down inside their own block); of a
 * packed segment (sorted, unique) only those its relation's full does not
 * hold.  *kept: how many it wrote. */
int exchange_unpack_segment(const ravel_engine *e, const stream_segment *sg,
                            uint64_t *out, uint64_t *kept);
/* A packed segment of candidates (sorted, unique), less what its
 * relation's full holds, into *out packed (which it initialises). */
int exchange_land_packed(const ravel_engine *e, const stream_segment *sg,
                         packed_tuples *out);
/* Lands the stream [in, end) from source: slot big's raw segments
 * unpacked at the end of *got (which has room for them), the others
 * appended to their slots' buffers (exchange_deliver).  When got's memory is
 * the block the stream lies in, every segment must be raw and the streams
 * landed in address order: tuples then only move down. */
int exchange_land_stream(ravel_engine *e, int source, const uint64_t *in,
                         const uint64_t *end, size_t big, tuple_buf *got);
/* Tuples of every stream per slot, of raw segments into count[slot] and
 * of packed ones (which land apart) into count[outbox_slots + slot];
 * *any_packed when some segment is packed (the raw ones then cannot be
 * moved down inside their block: see exchange_land_stream). */
int exchange_scan_streams(const ravel_engine *e,
                          const uint64_t *const *view, const uint64_t *len,
                          uint64_t *count, int *any_packed);
void exchange_note_backend(ravel_engine *e, uint64_t rounds,
                           int in_exchange, exchange_stats *st);

/* ---- storage (storage.c) ------------------------------------------------- */

/* incoming -> sort, unique, minus full -> delta; delta merged into full. */
int storage_promote(ravel_engine *e, relation *r, uint64_t *new_tuples);
/* The words a rank gives the iteration's allreduce, summed over the ranks,
 * so that they pack r's full together (storage_agree_pack). */
#define PACK_VOTE_WORDS 3
void storage_pack_votes(const ravel_engine *e, const relation *r,
                        uint64_t votes[PACK_VOTE_WORDS]);
/* Sets r->pack_agreed from the sums of every rank's votes. */
void storage_agree_pack(relation *r, const uint64_t sums[PACK_VOTE_WORDS]);
/* Adds the tuples moved here (incoming, or incoming_delta when to_delta,
 * then also to delta) to full, and empties that buffer. */
int storage_install(ravel_engine *e, relation *r, int to_delta);
void storage_count_buckets(const ravel_engine *e, relation *r,
                           const uint64_t *t, size_t n, int sign);
/* Version v of r as the sorted disjoint flat runs it is held in (delta:
 * one; full: its flat runs); returns their count.  Full's packed part, a
 * run disjoint from them, is storage_packed_part's. */
unsigned storage_runs(const relation *r, ravel_version v,
                      tuple_run out[FULL_RUNS_MAX]);
/* The packed part of version v of r: NULL when v reads delta or none. */
const packed_tuples *storage_packed_part(const relation *r, ravel_version v);
/* Tuples of full, packed or not. */
uint64_t storage_full_count(const relation *r);
/* Sorts t[0..n), drops repeats and what full holds; returns the count. */
size_t storage_reduce(const relation *r, uint64_t *t, size_t n);
/* Drops from sorted unique t[0..n) what full holds; returns the count. */
size_t storage_drop_held(const relation *r, uint64_t *t, size_t n);
/* Appends the box's tuples that full does not hold to out (sorted), and
 * frees the box. */
int storage_drain_box(const relation *r, tuple_box *x, tuple_buf *out);
/* The same, packed, into r->incoming_packed. */
int storage_drain_box_packed(relation *r, tuple_box *x);
/* Merges *add (sorted, unique, disjoint from full) into
 * r->incoming_packed, repeats kept once; frees *add. */
int storage_add_incoming_packed(relation *r, packed_tuples *add);
/* Whether a delta of n tuples of r is held packed (then also a box of n
 * candidates is drained packed). */
int storage_packs_delta(const ravel_engine *e, const relation *r, size_t n);
/* Frees delta, flat or packed. */
void storage_free_delta(relation *r);
/* Makes delta flat again (an aggregate over it reads one array). */
int storage_unpack_delta(relation *r);
/* Makes full one flat array again, and delta flat (for readers other than
 * the above). */
int storage_unpack(relation *r);
/* full held as bits is packed again (a stratum starts, a rule reads it):
 * nothing but the reduction reads bits. */
int storage_unbits(relation *r);
/* Hands full's tuples held as bits (none unless r->bits.slot) to put, in
 * order, in batches (a snapshot writes them so). */
int storage_bits_each(const relation *r,
                      int (*put)(void *arg, const uint64_t *t, size_t n),
                      void *arg);
/* full in order, a batch at a time (ravel_relation_visit): its flat runs
 * merged into one, then merged on the way with its packed part. */
int storage_visit(relation *r, ravel_visit_fn visit, void *arg);

/* ---- reading a run, flat or packed (tuple_reader.c) ---------------------- */

/* One sorted run of tuples read in order, key group by key group, for the
 * rules: flat (a tuple_run) or packed (full's packed part).  A packed
 * run's groups are decoded into the reader's own buffer. */
typedef struct {
    const uint64_t *t;            /* flat: the run */
    size_t n, i;                  /* flat: tuples, the current one */
    packed_cursor c;              /* packed (c.p set), else zeros */
    unsigned arity;
    tuple_buf group;              /* packed: the last group read */
} tuple_reader;

void tuple_reader_flat(tuple_reader *r, tuple_run run, unsigned arity);
void tuple_reader_packed(tuple_reader *r, const packed_tuples *p,
                         unsigned arity);
void tuple_reader_free(tuple_reader *r);
static inline int tuple_reader_done(const tuple_reader *r)
{
    return r->c.p ? r->c.at_end : r->i >= r->n;
}
/* The current tuple (not done). */
static inline const uint64_t *tuple_reader_cur(const tuple_reader *r)
{
    return r->c.p ? r->c.cur : r->t + r->i * r->arity;
}
/* The end of the group of tuples from lo of t[0..n) sharing lo's first k
 * columns (galloping). */
size_t tuples_group_end(const uint64_t *t, size_t lo, size_t n,
                        unsigned arity, unsigned k);
/* Moves forward to the first tuple whose first k columns are >= key's. */
void tuple_reader_seek(tuple_reader *r, const uint64_t *key, unsigned k);
/* The current tuple and those after it sharing its first k columns, as
 * *t[0..*n) (valid until the reader's next call); moves past them. */
int tuple_reader_group(tuple_reader *r, unsigned k, const uint64_t **t,
                       size_t *n);

/* ---- rules (rules_eval.c) and balancing (balance.c) --------------------- */

/* Evaluates iteration `it` (1-based) of stratum s on this rank. */
int rules_evaluate(ravel_engine *e, stratum *s, uint32_t it);
/* Evaluates join ru grouped by its head's first column when it can
 * (*done set): the head's first column is the one non-key column of a
 * side no rule of the stratum writes, and the other side is one run.
 * Else *done is 0 and the merge join serves. */
int join_grouped(ravel_engine *e, rule *ru, int *done);
/* Frees a join's index (*g NULL after). */
void join_grouped_free(grouped_index **g);
/* Chooses for each join whether it reads the right side directly or its
 * replica (when that is active). */
void rules_bind_sources(ravel_engine *e, stratum *s);

/* Splits heavy buckets, moves the tuples whose placement changed and fills
 * the replicas this makes necessary; adds the bytes moved (all ranks) to
 * *moved_bytes.  pending: an exchange packed under the old layout, which
 * a split makes wrong: it is then discarded before the moves, and
 * *discarded set (the caller evaluates and packs again).  can_split: the
 * deltas are still there; else a wanted split changes nothing and sets
 * *deferred (the caller looks again with them kept).  Collective. */
int balance_check(ravel_engine *e, exchange_plan *pending, int can_split,
                  uint64_t *moved_bytes, int *discarded, int *deferred);
/* Activates the replicas that a split makes necessary (to be filled). */
void balance_activate_replicas(ravel_engine *e);
/* Fills derived relations that became active, together with whatever the
 * outbox already holds (facts): one exchange when any is unfilled or
 * `force`, then installation.  Collective. */
int balance_fill_derived(ravel_engine *e, int local_error, int force,
                         uint64_t *moved_bytes);

/* The exchange of queued moves, their installation (delta membership
 * kept) and the agreement on errors; adds the bytes moved to *bytes.
 * Collective. */
int balance_finish_moves(ravel_engine *e, int local_error, uint64_t *bytes);

/* ---- snapshots (program_hash.c, snapshot_file.c, snapshot.c) ------------ */

/* 2: columns written with their high halves against the tuple before's
 * (tuple_encode); a snapshot of format 1 is refused by name. */
#define SNAPSHOT_FORMAT 2u

/* A hash of every declaration: relations, strata, rules. */
uint64_t program_hash(const ravel_engine *e);

typedef struct {
    uint64_t program;
    uint32_t rank, ranks, stratum, iteration, nrels;
} snapshot_header;

/* What a snapshot file's writer and reader share: the file, its path for
 * messages, the running checksum, the bytes so far and a chunk buffer. */
typedef struct {
    FILE *f;
    char path[4096];
    XXH3_state_t *hash;
    uint64_t bytes;
    unsigned char *chunk;
} snapshot_stream;

typedef struct {
    snapshot_stream io;
    int failed;
    unsigned arity;
    unsigned chunk_kind;          /* 0: full only, 1: in delta too */
    size_t chunk_used;
    uint64_t chunk_tuples;
    uint64_t prev[RAVEL_MAX_ARITY];
} snapshot_sink;

int snapshot_sink_open(snapshot_sink *s, const char *path,
                       const snapshot_header *h);
int snapshot_sink_relation(snapshot_sink *s, uint32_t index, unsigned arity);
int snapshot_sink_tuple(snapshot_sink *s, const uint64_t *t, int in_delta);
int snapshot_sink_end_relation(snapshot_sink *s);
/* Flushes and syncs the file; its size and checksum. */
int snapshot_sink_close(snapshot_sink *s, uint64_t *bytes, uint64_t *hash);
void snapshot_sink_abandon(snapshot_sink *s);

typedef struct {
    snapshot_stream io;
    unsigned arity;
    unsigned chunk_kind;
    const unsigned char *pos, *end;
    uint64_t chunk_left;          /* tuples */
    uint64_t cur[RAVEL_MAX_ARITY];
} snapshot_source;

int snapshot_source_open(snapshot_source *s, const char *path,
                         snapshot_header *h);
int snapshot_source_relation(snapshot_source *s, uint32_t *index,
                             unsigned *arity);
/* 1 with the next tuple of the relation, 0 at its end, -1 (message set)
 * when the file is short or corrupt. */
int snapshot_source_tuple(snapshot_source *s, uint64_t *t, int *in_delta);
/* Checks that the file ended and matches the manifest's size and hash. */
int snapshot_source_finish(snapshot_source *s, uint64_t bytes,
                           uint64_t hash);
void snapshot_source_close(snapshot_source *s);

/* Snapshots of a run (snapshot.c), all collective.  snapshot_start reads
 * the checkpoint folder (the next snapshot's number); snapshot_write saves
 * every declared relation's full and delta as they stand after `iteration`
 * of `stratum` (0: before the stratum starts), then removes the older
 * snapshots; snapshot_resume loads the newest complete snapshot of
 * resume_dir, re-placing its tuples on this run's ranks, and says where to
 * continue. */
int snapshot_start(ravel_engine *e);
int snapshot_write(ravel_engine *e, uint32_t stratum, uint32_t iteration);
int snapshot_resume(ravel_engine *e, uint32_t *stratum, uint32_t *iteration);

/* For tests of kill -9 and resume: when RAVEL_TEST_KILL is "WHERE:N", the
 * N-th pass of this process through point WHERE ("exchange", "snapshot")
 * kills it with SIGKILL, as a node failure would. */
void test_kill_point(const char *where);

/* ---- records (iteration_log.c) ------------------------------------------ */

int log_open(ravel_engine *e);
int log_record(ravel_engine *e, const ravel_iteration_record *rec);

#endif
