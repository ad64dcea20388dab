/* A relation's versions on one rank: promoting an iteration's candidates to
 * delta and full, installing moved tuples, and per-bucket counts.
 *
 * full and delta are sorted duplicate-free arrays.  Candidates are sorted
 * and deduplicated in bulk and stripped of what full already holds, in one
 * call (tuple_reduce.c).  What is left becomes the new delta, and full
 * takes it as a run of its own: full is a few sorted disjoint runs, each at
 * most a small fraction of the one before (1/4), and a run that grows past
 * that is merged into the one before (from the back, so full is never
 * copied).
 * Merging every delta into one array moved, on each of kCFA's 2,085
 * iterations, every tuple after the first new one: 63% of the samples of
 * a 1-rank profile of kcfa k = 2 were memmove (relalg/README.md).  With
 * runs each tuple moves a few times.  Readers take the runs one by one (a
 * join of delta with full is the union of its joins with each run).
 *
 * A large full is packed to a few bytes per tuple (see packed.c) as it
 * grows, its newest tuples staying flat.  Rules read the packed part
 * through cursors (rules_eval.c), the reduction walks or searches it
 * (tuple_reduce.c); the rare readers of a flat array (moves, aggregates,
 * the API's ravel_relation_local) unpack it.  kCFA's AEval, 8 columns of
 * context and closure that rules read, held flat took 64 bytes a tuple:
 * most of the run's memory (bench/results/peers/README.md). */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/hash.h"

#include <stdlib.h>
#include <string.h>

/* A run may hold at most 1/ratio of the tuples of the run before it (the
 * option run_ratio): each merge then moves at most ratio + 1 times the
 * tuples it adds, and a tuple is merged at most once per run.  A merge
 * holds the two runs and the room the smaller one takes in the larger
 * (merging from the back writes that room first), so a rank's flat part
 * peaks at up to 1/ratio more.  It was 32: kcfa k = 3 at 2 ranks peaked
 * at 188 MiB a rank with 8 (176 when every delta was merged into one
 * array), 181 with 16, 178 with 32, at the same speed.  Since then
 * relations pack from 2^20 tuples and the flat part is at most an eighth
 * of the packed one, and with 32 a tuple of luxembourg_osm's TC (426
 * iterations of a few thousand new tuples a rank) was moved some 19 times
 * by merges (bench/relalg/run_moves.py), and `add_run` took more than a
 * quarter of a rank's time; with 4, about 6 times: 0.91 of the run's time,
 * kcfa k = 1 0.92, the other closures and memory as they were
 * (relalg/README.md, "Runs a quarter of the one before"). */
#define RUN_RATIO_DEFAULT 4

/* Whether reading version v of r reads full. */
static int reads_full(const relation *r, ravel_version v)
{
    return v == RAVEL_FULL || r->delta_is_full;
}

const packed_tuples *storage_packed_part(const relation *r, ravel_version v)
{
    const packed_tuples *p = reads_full(r, v) ? &r->packed : &r->delta_packed;
    return p->n > 0 ? p : NULL;
}

unsigned storage_runs(const relation *r, ravel_version v,
                      tuple_run out[FULL_RUNS_MAX])
{
    if (!reads_full(r, v)) {
        out[0] = (tuple_run){r->delta.data, r->delta.n};
        return r->delta_packed.n == 0; /* else it is the packed part */
    }
    out[0] = (tuple_run){r->full.data, r->full.n};
    for (unsigned i = 0; i < r->nruns; i++)
        out[1 + i] = (tuple_run){r->runs[i].data, r->runs[i].n};
    return 1 + r->nruns;
}

/* Whether r's tuples are counted to their buckets: for the balancer. */
static int counts_buckets(const ravel_engine *e, const relation *r)
{
    return e->opt.load_balance && e->size > 1 && r->kind != REL_REPLICA;
}

void storage_count_buckets(const ravel_engine *e, relation *r,
                           const uint64_t *t, size_t n, int sign)
{
    if (!counts_buckets(e, r))
        return;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = placement_bucket(e, r, t + i * r->arity);
        r->bucket_count[b] += (uint64_t)(int64_t)sign;
    }
}

/* The tuples of full's flat part. */
static size_t flat_count(const relation *r)
{
    size_t n = r->full.n;
    for (unsigned i = 0; i < r->nruns; i++)
        n += r->runs[i].n;
    return n;
}

uint64_t storage_full_count(const relation *r)
{
    return (uint64_t)r->packed.n + flat_count(r) + r->bits_n;
}

/* The tuples of full the filter answers for: its flat and packed parts
 * (bits answer for themselves). */
static size_t filter_count(const relation *r)
{
    return flat_count(r) + r->packed.n;
}

/* full whole, as the reduction reads it (runs: room for its flat runs). */
static full_set full_set_of(const relation *r,
                            tuple_run runs[FULL_RUNS_MAX])
{
    unsigned nruns = storage_runs(r, RAVEL_FULL, runs);
    const tuple_filter *filter =
        r->filter.words && r->filter.covers == filter_count(r) ? &r->filter
                                                               : NULL;
    return (full_set){runs, nruns, &r->packed, &r->bits, filter};
}

/* ---- the filter of full's flat and packed parts ---------------------
 * (tuple_filter.c.)  It answers for full only while it was brought up to
 * the count of its flat and packed parts last (filter.covers): tuples are
 * added to it wherever storage.c adds them to full (add_run, install,
 * maybe_pack), unpacking and packing leave the count as it was, and any
 * other change of the count (bits, the balancer's removals) leaves it
 * unused until it is rebuilt from full at the next addition.  Removals
 * alone only make it answer "may hold" for tuples gone, which a search
 * then settles.
 *
 * It covered the flat part only until luxembourg_osm's TC showed that the
 * packed part wanted it more: 1.44 million searches of the packed part a
 * rank, of which 300 found the tuple, each decoding some 64 tuples of a
 * block (a quarter of the run's samples). */

/* Below this many tuples full is searched in cache anyway. */
#define FILTER_MIN_TUPLES ((size_t)1 << 12)
/* Above this many the filter is dropped, so that it takes at most 8 MiB.
 * A large full is mostly a dense closure's, whose candidates full often
 * holds: fe_body's TC, before its bits, found 44% of the candidates it
 * searched for in the packed part, which a forward walk reads in order
 * where a filter's words are read at random; with a filter of any size
 * (room for twice its tuples, as the flat part's had) it took 1.16 of the
 * time and 119 MiB more.  (A filter of the flat part
 * alone, rebuilt each time full was packed, cost it 1.05 and 20 MiB:
 * bench/results/peers/flat_filter/.) */
#define FILTER_MAX_TUPLES ((size_t)1 << 22)

/* Adds the tuples of packed set p to filter f. */
static void filter_add_packed(tuple_filter *f, const packed_tuples *p,
                              unsigned arity)
{
    packed_cursor c;
    for (packed_cursor_seek(&c, p, arity, 0); !c.at_end;
         packed_cursor_next(&c))
        tuple_filter_add(f, c.cur, 1, arity);
}

static void filter_add_source(tuple_filter *f, const tuple_source *s,
                              unsigned arity)
{
    if (s->packed)
        filter_add_packed(f, s->packed, arity);
    else
        tuple_filter_add(f, s->flat.t, s->flat.n, arity);
}

/* Brings the filter up to full after the tuples of `added` were added to
 * it, which counted `before` tuples (filter_count) then. */
static void filter_added(relation *r, const tuple_source *added,
                         size_t before)
{
    tuple_filter *f = &r->filter;
    size_t now = filter_count(r);
    if (now < FILTER_MIN_TUPLES || now > FILTER_MAX_TUPLES) {
        tuple_filter_free(f);
        return;
    }
    if (f->words && f->covers == before &&
        f->n + tuple_source_count(added) <= f->most) {
        filter_add_source(f, added, r->arity);
    } else {
        /* Room for the tuples of now rounded up to a power of two: rebuilt
         * about each time full doubles, at 8 to 16 bits a tuple. */
        if (tuple_filter_reset(f, now) != MPI_SUCCESS) {
            /* Over the memory limit, or out of memory: a filter is only
             * a short cut, and the searches it would spare still work. */
            tuple_filter_free(f);
            ravel_error_clear();
            return;
        }
        tuple_filter_add(f, r->full.data, r->full.n, r->arity);
        for (unsigned i = 0; i < r->nruns; i++)
            tuple_filter_add(f, r->runs[i].data, r->runs[i].n, r->arity);
        if (r->packed.n > 0)
            filter_add_packed(f, &r->packed, r->arity);
    }
    f->covers = now;
}

size_t storage_reduce(const relation *r, uint64_t *t, size_t n)
{
    tuple_run runs[FULL_RUNS_MAX];
    full_set full = full_set_of(r, runs);
    return tuples_reduce_in(t, n, r->arity, &full);
}

size_t storage_drop_held(const relation *r, uint64_t *t, size_t n)
{
    tuple_run runs[FULL_RUNS_MAX];
    full_set full = full_set_of(r, runs);
    return tuples_drop_held_in(t, n, r->arity, &full);
}

int storage_drain_box(const relation *r, tuple_box *x, tuple_buf *out)
{
    tuple_run runs[FULL_RUNS_MAX];
    full_set full = full_set_of(r, runs);
    return tuple_box_drain_in(x, &full, out);
}

int storage_drain_box_packed(relation *r, tuple_box *x)
{
    tuple_run runs[FULL_RUNS_MAX];
    full_set full = full_set_of(r, runs);
    packed_tuples drained;
    int err = tuple_box_drain_packed_in(x, &full, &drained);
    return err == MPI_SUCCESS ? storage_add_incoming_packed(r, &drained)
                              : err;
}

int storage_add_incoming_packed(relation *r, packed_tuples *add)
{
    if (add->n == 0) {
        packed_free(add); /* its room, if any */
        return MPI_SUCCESS;
    }
    if (r->incoming_packed.n == 0) {
        packed_free(&r->incoming_packed); /* its room, if any */
        r->incoming_packed = *add;
        memset(add, 0, sizeof *add); /* now in incoming_packed */
        return MPI_SUCCESS;
    }
    tuple_source one = {{NULL, 0}, add};
    packed_tuples merged;
    /* Frees the base, incoming_packed, as it reads it. */
    int err = packed_merge_sources(&merged, &r->incoming_packed, &one, 1,
                                   r->arity);
    packed_free(add);
    if (err == MPI_SUCCESS)
        r->incoming_packed = merged;
    return err;
}

/* Merges the newest run into the one before it. */
static int merge_last_run(relation *r)
{
    tuple_buf *last = &r->runs[r->nruns - 1];
    tuple_buf *before = r->nruns > 1 ? &r->runs[r->nruns - 2] : &r->full;
    int err = tuples_merge_into(before, r->arity, last->data, last->n);
    if (err != MPI_SUCCESS)
        return err;
    tuple_buf_free(last);
    r->nruns--;
    return MPI_SUCCESS;
}

/* Merges full's flat runs into one. */
static int merge_runs(relation *r)
{
    int err = MPI_SUCCESS;
    while (r->nruns > 0 && err == MPI_SUCCESS)
        err = merge_last_run(r);
    return err;
}

/* 1/share of the tuples of r that make full pack, at least 1: the option
 * counts tuples of 2 columns (TC's); wider ones are packed at as many
 * bytes. */
static uint64_t pack_min_share(const ravel_engine *e, const relation *r,
                               unsigned share)
{
    uint64_t min = e->opt.pack_min_tuples * 2 / r->arity / share;
    return min ? min : 1;
}

/* Whether full is packed as it grows: packing is on. */
static int packs(const ravel_engine *e)
{
    return e->opt.pack_min_tuples != 0;
}

/* Adds sorted unique t[0..n) (disjoint from full) to full as its newest
 * run, then merges runs that outgrew 1/ratio of the run before.  Tuples
 * too many for a run of their own (TC's deltas are often larger than full)
 * are merged straight into the newest run: a copy of them would only be
 * merged, and held twice meanwhile. */
static int add_run(const ravel_engine *e, relation *r, const uint64_t *t,
                   size_t n)
{
    if (n == 0)
        return MPI_SUCCESS;
    size_t before = filter_count(r);
    size_t ratio = e->opt.run_ratio ? e->opt.run_ratio : RUN_RATIO_DEFAULT;
    /* Every flat full keeps runs, TC's path too (no rule reads it): its
     * one flat array, merged into from the back, moved nearly whole every
     * iteration, 16% of cal.cedge's TC (195 iterations of 2,600 new
     * tuples into 250,000 a rank) in memmove.  Runs took that run to 0.78
     * of its time, luxembourg_osm's to 0.92 (relalg/README.md, "Runs for
     * every flat full").  fe_sphere's TC, once 5% slower with runs (a
     * candidate searched in several), now holds its full as bits. */
    tuple_buf *newest = r->nruns > 0 ? &r->runs[r->nruns - 1] : &r->full;
    int err;
    if (r->nruns == FULL_RUNS_MAX - 1 || newest->n / ratio < n) {
        err = tuples_merge_into(newest, r->arity, t, n);
    } else {
        err = tuple_buf_append(&r->runs[r->nruns], r->arity, t, n);
        r->nruns += err == MPI_SUCCESS; /* a failed run is not counted */
    }
    while (err == MPI_SUCCESS && r->nruns > 0) {
        const tuple_buf *last_but_one =
            r->nruns > 1 ? &r->runs[r->nruns - 2] : &r->full;
        if (last_but_one->n / ratio >= r->runs[r->nruns - 1].n)
            break;
        err = merge_last_run(r);
    }
    if (err == MPI_SUCCESS)
        filter_added(r, &(tuple_source){{t, n}, NULL}, before);
    return err;
}

/* ---- full as bits ------------------------------------------------------
 * A relation that no rule reads (TC's path: its full only rejects old
 * tuples) holds full as one bit for every tuple of its box (tuple_box,
 * tuple_reduce.c: only rows, values of all columns but the last, that
 * hold a tuple take room) when that takes at most what its tuples take
 * flat (bits_most_bytes), and its span, every row held or not, at most
 * twice their flat words (BITS_SPAN_FACTOR).  Dense closures are far
 * under both: the Gnutella closures fill 40% of their box, a tenth of a
 * byte a path where packed tuples take 2 to 5.  And the reduction, which searched full's
 * packed part for every candidate (a third of fe_sphere's profile), tests
 * a bit, while promotion sets bits where it rewrote the packed set (a
 * quarter of fe_body's).  When the box would pass its limit (new tuples
 * far outside it, or sparser than the limit), full is packed again, and
 * bits are tried again once it has doubled. */

/* ---- when full packs -------------------------------------------------
 * Packing rewrites the packed part each time the flat part, with the
 * tuples being added, has grown to 1/PACK_RATIO of it (maybe_pack).  Each
 * rank deciding alone, the ranks of fe_body's TC at 2 ranks, whose flat
 * part grew by about a sixteenth of the packed one an iteration, repacked
 * in turns, one in the odd iterations and the other in the even, each
 * repack (60 to 300 ms) waited out by the other rank in the iteration's
 * allreduce: 1.6 s a rank of a 19 s run.  So with several ranks they
 * decide together, one iteration ahead: each tells the allreduce its flat
 * part after one more promotion like its last, its packed part, and
 * whether that flat part reaches the minimum; every rank packs at the
 * next promotion when some rank reaches the minimum and the ranks' flat
 * parts together reach 1/PACK_RATIO of their packed parts.  A rank packs
 * alone only when its flat part passes twice its own share (a relation
 * whose tuples lie mostly on other ranks). */
#define PACK_RATIO 8

/* Whether full packs now, with `adding`. */
static int pack_due(const ravel_engine *e, const relation *r,
                    const tuple_source *adding)
{
    /* The option counts tuples of 2 columns (TC's); wider ones are packed
     * at as many bytes: kCFA's AEval (8 columns) held 2^20 of them flat
     * at 64 bytes each, a third of the run's peak. */
    size_t flat = flat_count(r) + tuple_source_count(adding);
    if (!packs(e) || r->delta_is_full || flat == 0)
        return 0;
    int over_min = flat >= pack_min_share(e, r, 1);
    if (r->pack_agreed < 0)
        return over_min && flat >= r->packed.n / PACK_RATIO;
    return r->pack_agreed ||
           (over_min && flat >= r->packed.n / (PACK_RATIO / 2));
}

void storage_pack_votes(const ravel_engine *e, const relation *r,
                        uint64_t votes[PACK_VOTE_WORDS])
{
    uint64_t next = r->bits.slot ? 0 : flat_count(r) + r->promoted;
    votes[0] = next;
    votes[1] = r->packed.n;
    votes[2] = packs(e) && next > 0 && next >= pack_min_share(e, r, 1);
}

void storage_agree_pack(relation *r, const uint64_t sums[PACK_VOTE_WORDS])
{
    r->pack_agreed = sums[2] > 0 && sums[0] >= sums[1] / PACK_RATIO;
}

/* The span a box of full may take, every row held or not, in the words
 * its tuples take flat (a box of candidates: once).  Twice: TC of cti
 * and fe_body at 2 ranks, whose boxes' spans passed their tuples' words
 * until 2.2 and 24 million tuples a rank, packed full and then packed it
 * again every other iteration (a sixth of fe_body's run), and cti packed
 * it at 1.1 million, again at 2.2 and became bits at 2.3, each step
 * rewriting all of full.  Taken at 1.1 and 12 million, bits made those
 * runs 0.78 and 0.86 of their time, usroads' 0.82 (relalg/README.md,
 * "Bits up to flat, twice their span").  A sparser closure is still
 * refused: the span is walked when a box is laid out, cleared and written
 * out. */
#define BITS_SPAN_FACTOR 2

/* While full is all flat (nothing packed), bits may span four times its
 * tuples' flat words and take up to twice what they take flat, and are
 * tried again at every growth by a quarter: flat tuples take 16 bytes
 * each, and the rank holds them whole until full packs, so bits that
 * start at twice that are soon the smaller as a growing closure fills its
 * box, and each iteration spent flat searches its runs for the
 * candidates that full holds (a dense closure's most).  cti's TC at 2
 * ranks took its bits at 0.82 million tuples a rank instead of 1.13 (its
 * box spans 4.4 million words; its held rows take 13.5 MB at 1.1 million
 * tuples): 0.95 of the time and 97 MiB instead of 105; fe_sphere's at
 * 0.65 million instead of 1.2 to 1.3: 2 MiB less, at the same time.
 * Wider limits, whatever full's growth, took OL.cedge's bits at 66,000
 * tuples, near the end of its closure, at 4 MiB more and more time (a
 * closure growing fast takes wider ones: below).  A full packed already keeps the
 * limits above: fe_body's bits, taken packed, took 418 MiB instead of 377
 * when these held for it too (relalg/README.md, "Bits while flat: four
 * times their span, twice flat"). */
#define BITS_SPAN_FACTOR_FLAT 4
#define BITS_FLAT_BYTES_FACTOR 2

/* While full is all flat and the promotion adds at least 1/BITS_FAST_GROWTH
 * of it, wider still: a span of six times the flat words, three times
 * their bytes.  A closure growing that fast goes on filling its box,
 * whose bits soon take less than the flat tuples the rank would hold
 * until full packs; near its end a closure adds little, and bits taken
 * then only cost their room.  cti's TC at 2 ranks took its bits at 0.42
 * million tuples a rank, adding 0.11 million to 0.31 (0.82 million under
 * the limits above): 84 MiB instead of 97, at 0.97 of the time;
 * OL.cedge's only try, at 65,000 tuples a rank, adds 700 to 1,000 and
 * keeps the limits above, which refuse it (relalg/README.md, "Bits wider
 * while a closure grows fast"). */
#define BITS_FAST_GROWTH 8
#define BITS_SPAN_FACTOR_FAST 6
#define BITS_FLAT_BYTES_FACTOR_FAST 3

/* Whether full, now of n tuples, has grown enough since bits were last
 * refused to try them again: to twice that, or while it is all flat
 * (`flat`) by a quarter. */
static int grown_to_retry_bits(const relation *r, uint64_t n, int flat)
{
    uint64_t t = r->bits_tried_at;
    return n >= t && n - t >= (flat ? t / 4 : t);
}

/* Bits are tried from a sixteenth of the tuples that make full pack. */
static uint64_t bits_min_tuples(const ravel_engine *e, const relation *r)
{
    return pack_min_share(e, r, 16);
}

/* The room bits of n tuples may take: what they take flat, packed or
 * not, though packed they take less (2.2 bytes a tuple of fe_body's TC).
 * A closure that goes on growing fills its box, and the packed set it
 * would hold instead is rewritten at every growth by an eighth, held
 * twice meanwhile, beside flat tuples: at half of flat, fe_body's peak
 * was 407 MiB at 2 ranks and usroads' 2677, at flat 377 and 2393 ("Bits
 * up to flat, twice their span"; cti's rose from 88 to 105 MiB: its
 * bits, 14 MB a rank, taken beside 1.1 million flat tuples).  Earlier,
 * held packed until its bits took a quarter of flat, fe_body's full
 * became bits at 49 million tuples a rank (of 78 million at the end),
 * every growth by an eighth until then rewrote the packed set, and the
 * rank held the packed set, the box and the iteration's delta at once, at
 * the run's peak.  Taken at 24 million instead (5.1 bytes a tuple), the
 * run took 0.78 of the time and 0.70 of the peak (usroads 0.65 and 0.82);
 * cti, whose bits were refused at a quarter of flat to the end, took 0.83
 * of the time and 2 MiB more (relalg/README.md, "Bits up to half of flat,
 * packed or not").  While full is all flat, bits hold it in less whatever
 * they take under half: TC of ego-Facebook at 2 ranks was refused bits of
 * 1.0 MB a rank at 173,000 tuples (a quarter of flat: 0.7 MB) and merged
 * them flat, 4 MB a rank at its peak ("full as bits while flat"). */
static size_t bits_most_bytes(const relation *r, uint64_t n)
{
    return (size_t)n * r->arity * sizeof(uint64_t);
}

/* full held as bits becomes packed again. */
static int unbits(relation *r)
{
    if (!r->bits.slot)
        return MPI_SUCCESS;
    /* full's flat and packed parts are empty while it is bits. */
    packed_free(&r->packed);
    int err = tuple_box_drain_packed(&r->bits, NULL, 0, NULL, &r->packed);
    r->bits_n = 0;
    r->bits_tried_at = r->packed.n;
    return err;
}

/* Holds full, with `adding` (disjoint from it), as bits from now, when
 * full could pack (no rule reads it), grows in this stratum (a finished
 * relation is left as it is: its box and its packed set held at once
 * could pass the run's peak), has reached bits_min_tuples and has grown
 * enough since bits were last refused (grown_to_retry_bits); *held tells
 * whether it did. */
static int maybe_bits(const ravel_engine *e, relation *r,
                      const tuple_source *adding, int *held)
{
    *held = 0;
    uint64_t had = storage_full_count(r), adds = tuple_source_count(adding);
    uint64_t n = had + adds;
    int flat = r->packed.n == 0;
    if (!packs(e) || !r->pack_ok || !r->written || r->delta_is_full ||
        n < bits_min_tuples(e, r) || !grown_to_retry_bits(r, n, flat))
        return MPI_SUCCESS;
    r->bits_tried_at = n;
    tuple_source src[FULL_RUNS_MAX + 2];
    unsigned nsrc = 0;
    src[nsrc++] = (tuple_source){{r->full.data, r->full.n}, NULL};
    for (unsigned i = 0; i < r->nruns; i++)
        src[nsrc++] = (tuple_source){{r->runs[i].data, r->runs[i].n}, NULL};
    if (r->packed.n > 0)
        src[nsrc++] = (tuple_source){{NULL, 0}, &r->packed};
    src[nsrc++] = *adding;
    int fast = flat && adds >= had / BITS_FAST_GROWTH;
    size_t most = bits_most_bytes(r, n) * (fast   ? BITS_FLAT_BYTES_FACTOR_FAST
                                           : flat ? BITS_FLAT_BYTES_FACTOR
                                                  : 1);
    unsigned span = fast   ? BITS_SPAN_FACTOR_FAST
                    : flat ? BITS_SPAN_FACTOR_FLAT
                           : BITS_SPAN_FACTOR;
    if (!tuple_box_start_sets(&r->bits, src, nsrc, r->arity, most, span))
        return MPI_SUCCESS;
    tuple_buf_free(&r->full);
    for (unsigned i = 0; i < r->nruns; i++)
        tuple_buf_free(&r->runs[i]);
    r->nruns = 0;
    tuple_filter_free(&r->filter);
    packed_free(&r->packed);
    r->bits_n = (size_t)n;
    *held = 1;
    return MPI_SUCCESS;
}

/* Sets the bits of `adding` (disjoint from full, held as bits).  When the
 * box cannot take one, full is packed again and takes them packed. */
static int add_to_bits(relation *r, const tuple_source *adding)
{
    tuple_box *x = &r->bits;
    unsigned a = r->arity;
    tuple_box_raise_limit(x, bits_most_bytes(r, r->bits_n +
                                                tuple_source_count(adding)));
    int taken = 1;
    if (!adding->packed) {
        for (size_t i = 0; i < adding->flat.n && taken; i++) {
            taken = tuple_box_add(x, adding->flat.t + i * a);
            r->bits_n += (size_t)taken;
        }
    } else {
        packed_cursor c;
        for (packed_cursor_seek(&c, adding->packed, a, 0);
             !c.at_end && taken; packed_cursor_next(&c)) {
            taken = tuple_box_add(x, c.cur);
            r->bits_n += (size_t)taken;
        }
    }
    if (taken)
        return MPI_SUCCESS;
    /* Some are set already: the merge keeps a tuple in both once. */
    int err = unbits(r);
    packed_tuples merged;
    if (err == MPI_SUCCESS)
        err = packed_merge_sources(&merged, &r->packed, adding, 1, a);
    if (err != MPI_SUCCESS)
        return err;
    packed_free(&r->packed);
    r->packed = merged;
    return MPI_SUCCESS;
}

int storage_unbits(relation *r) { return relation_error(r, unbits(r)); }

int storage_bits_each(const relation *r,
                      int (*put)(void *arg, const uint64_t *t, size_t n),
                      void *arg)
{
    return tuple_box_each(&r->bits, put, arg);
}

static int unpack(relation *r)
{
    int err = unbits(r);
    if (err == MPI_SUCCESS)
        err = merge_runs(r);
    if (err != MPI_SUCCESS || r->packed.n == 0)
        return err;
    tuple_buf flat;
    err = packed_unpack(&r->packed, r->arity, &flat, r->full.n);
    if (err == MPI_SUCCESS) /* room reserved: cannot fail */
        err = tuples_merge_into(&flat, r->arity, r->full.data, r->full.n);
    if (err != MPI_SUCCESS) {
        tuple_buf_free(&flat);
        return err;
    }
    tuple_buf_free(&r->full);
    r->full = flat;
    packed_free(&r->packed);
    return MPI_SUCCESS;
}

/* Packs full's flat part together with the packed one and with `adding`
 * (sorted unique tuples that full does not hold: an iteration's new ones),
 * when the flat part with them has grown to pack_min_tuples and to
 * 1/PACK_RATIO of the packed part; *packed_in tells whether it did (else
 * `adding` is still to be added).  The ratio makes repacking geometric:
 * the packed part grows by 1/8 between repacks, so all repacks together
 * encode about 9 times the final size, while the flat part, at 16 bytes
 * per 2-column tuple against 2 to 4 packed, stays a small share.  The new
 * tuples go into the packed set without being merged into the flat part
 * first: that merge held them twice, beside the delta (the peak of TC of
 * ego-Facebook at 1 rank). */
static int maybe_pack(const ravel_engine *e, relation *r,
                      const tuple_source *adding, int *packed_in)
{
    *packed_in = 0;
    if (!pack_due(e, r, adding))
        return MPI_SUCCESS;
    int agreed = r->pack_agreed > 0;
    size_t flat = flat_count(r) + tuple_source_count(adding);
    /* While it is packed a relation is held twice, flat and packed (half
     * the flat bytes, or less).  That is the price of keeping a growing
     * relation small; a relation no rule of this stratum writes, finished
     * earlier, is packed only when the moment fits under the run's peak
     * so far: packing kcfa_k1.dl's AEval in the one-rule stratum after
     * its recursion made the run's peak 118 MB against the 85 MB it held
     * flat. */
    if (!r->written && budget_held() + flat * r->arity * 4 > budget_peak())
        return MPI_SUCCESS;
    packed_tuples merged;
    size_t before = filter_count(r);
    int err = merge_runs(r);
    tuple_source two[2] = {{{r->full.data, r->full.n}, NULL}, *adding};
    if (err == MPI_SUCCESS)
        err = packed_merge_sources(&merged, &r->packed, two, 2, r->arity);
    if (err != MPI_SUCCESS)
        return err;
    packed_free(&r->packed);
    r->packed = merged;
    tuple_buf_free(&r->full);
    /* The filter already holds what was flat. */
    filter_added(r, adding, before);
    *packed_in = 1;
    r->packs_agreed += agreed;
    r->packs_alone += !agreed;
    return MPI_SUCCESS;
}

/* Sorts and deduplicates b, and drops what full holds. */
static void reduce_to_new(relation *r, tuple_buf *b)
{
    b->n = storage_reduce(r, b->data, b->n);
    tuple_buf_shrink(b, r->arity);
}

/* Whether t[0..n) is sorted without repeats, as one box's drain or one
 * packed segment lands. */
static int sorted_unique(const uint64_t *t, size_t n, unsigned arity)
{
    for (size_t i = 1; i < n; i++)
        if (tuples_compare(t + (i - 1) * arity, t + i * arity, arity) >= 0)
            return 0;
    return 1;
}

/* incoming and incoming_checked become one set of new tuples in incoming.
 * Only incoming is searched against full: the others came without full's
 * tuples (in a dense closure, nearly all: wiki-Vote's largest iteration
 * at 1 rank, 37,000 of 5.3 million), and searching full again for them
 * took a third of fe_sphere's 1-rank profile (relalg/README.md, "Checked
 * candidates are not searched again"). */
static int gather_new(relation *r)
{
    unsigned a = r->arity;
    tuple_buf *in = &r->incoming, *ok = &r->incoming_checked;
    if (ok->n == 0) {
        tuple_buf_free(ok); /* its room, reserved for arrivals full held */
        reduce_to_new(r, in);
        return MPI_SUCCESS;
    }
    /* Not shrunk yet: the merge below may fit in what it holds. */
    in->n = storage_reduce(r, in->data, in->n);
    if (!sorted_unique(ok->data, ok->n, a))
        ok->n = tuples_sort_unique(ok->data, ok->n, a);
    tuple_buf *into = ok; /* what holds the new set: ok alone, or merged */
    if (in->n > 0) {
        /* One merged into the other, less what both hold: into the one
         * with room for both (incoming, reduced, mostly has: it had room
         * for all raw arrivals), else the larger, which then grows. */
        size_t total = in->n + ok->n;
        into = in->cap >= total   ? in
               : ok->cap >= total ? ok
               : in->n >= ok->n   ? in
                                  : ok;
        tuple_buf *add = into == in ? ok : in;
        tuple_run held = {into->data, into->n};
        add->n = tuples_drop_held(add->data, add->n, a, &held, 1, NULL);
        int err = tuples_merge_into(into, a, add->data, add->n);
        if (err != MPI_SUCCESS)
            return err;
    }
    if (into == ok) { /* the new set becomes incoming */
        tuple_buf x = *in;
        *in = *ok;
        *ok = x;
    }
    tuple_buf_free(ok);
    tuple_buf_shrink(in, a);
    return MPI_SUCCESS;
}

/* A large delta of a relation that packs is held packed until the next
 * promotion: rules read it where it lies, as they read full's packed part
 * (tuple_reader.c), and it is the largest thing a rank holds while they
 * run: TC of wiki-Vote at 2 ranks peaked evaluating its third iteration
 * with 42 MB of delta, flat, beside 38 MB of candidates (16 bytes a tuple
 * flat, 2 or 3 packed).  Large: a quarter of the tuples that make full
 * pack (2^18 of 2 columns), or from a sixteenth (2^16) when flat it would
 * take a quarter of what the rank's ledger holds: TC of ego-Facebook at 2
 * ranks landed an early iteration's 262,000 new tuples a rank flat, 4.2
 * MB beside 4 MB held, its peak on small pages, while cti's deltas of
 * that size, small beside its full, packed from 2^16 cost it 8% of its
 * time (relalg/README.md, "Deltas packed when they would dominate").  A
 * smaller delta stays flat: kCFA's, a few thousand tuples an iteration,
 * are read by several rules. */
int storage_packs_delta(const ravel_engine *e, const relation *r, size_t n)
{
    if (!packs(e) || n < pack_min_share(e, r, 16))
        return 0;
    return n >= pack_min_share(e, r, 4) ||
           (uint64_t)n * r->arity * sizeof(uint64_t) >= budget_held() / 4;
}

static int pack_delta(const ravel_engine *e, relation *r)
{
    if (!storage_packs_delta(e, r, r->delta.n))
        return MPI_SUCCESS;
    packed_tuples none;
    memset(&none, 0, sizeof none);
    int err = packed_merge(&r->delta_packed, &none, r->delta.data,
                           r->delta.n, r->arity);
    if (err == MPI_SUCCESS)
        tuple_buf_free(&r->delta);
    return err;
}

void storage_free_delta(relation *r)
{
    tuple_buf_free(&r->delta);
    packed_free(&r->delta_packed);
}

int storage_unpack_delta(relation *r)
{
    if (r->delta_packed.n == 0)
        return MPI_SUCCESS;
    tuple_buf flat;
    int err = packed_unpack(&r->delta_packed, r->arity, &flat, 0);
    if (err != MPI_SUCCESS)
        return relation_error(r, err);
    storage_free_delta(r);
    r->delta = flat;
    return MPI_SUCCESS;
}

/* The new tuples (incoming, after gather_new) and the candidates of this
 * rank's box, drained packed (incoming_packed), become the delta, packed:
 * never flat at once (TC of wiki-Vote at 1 rank peaked with 84 MB of new
 * tuples flat, where they take 12 packed).  Repeats between the two are
 * kept once. */
static int gather_packed(relation *r)
{
    int err = MPI_SUCCESS;
    if (r->incoming.n == 0) {
        r->delta_packed = r->incoming_packed;
    } else {
        tuple_source two[2] = {{{r->incoming.data, r->incoming.n}, NULL},
                               {{NULL, 0}, &r->incoming_packed}};
        packed_tuples none;
        memset(&none, 0, sizeof none);
        err = packed_merge_sources(&r->delta_packed, &none, two, 2, r->arity);
        packed_free(&r->incoming_packed);
    }
    memset(&r->incoming_packed, 0, sizeof r->incoming_packed);
    tuple_buf_free(&r->incoming);
    return err;
}

/* Adds delta, flat or packed, to full (whose flat part it joins flat when
 * full is not packed yet). */
static int add_delta_to_full(const ravel_engine *e, relation *r)
{
    tuple_source adding = {{r->delta.data, r->delta.n}, NULL};
    if (r->delta_packed.n > 0)
        adding.packed = &r->delta_packed;
    if (r->bits.slot)
        return add_to_bits(r, &adding);
    int held;
    int err = maybe_bits(e, r, &adding, &held);
    if (err != MPI_SUCCESS || held)
        return err;
    int packed_in;
    err = maybe_pack(e, r, &adding, &packed_in);
    if (err != MPI_SUCCESS || packed_in)
        return err;
    if (!adding.packed)
        return add_run(e, r, r->delta.data, r->delta.n);
    tuple_buf flat;
    err = packed_unpack(&r->delta_packed, r->arity, &flat, 0);
    if (err == MPI_SUCCESS)
        err = add_run(e, r, flat.data, flat.n);
    tuple_buf_free(&flat);
    return err;
}

/* Counts delta's tuples to their buckets, flat or packed. */
static void count_delta(const ravel_engine *e, relation *r)
{
    if (!r->delta_packed.n) {
        storage_count_buckets(e, r, r->delta.data, r->delta.n, 1);
        return;
    }
    if (!counts_buckets(e, r))
        return;
    packed_cursor c;
    for (packed_cursor_seek(&c, &r->delta_packed, r->arity, 0); !c.at_end;
         packed_cursor_next(&c))
        storage_count_buckets(e, r, c.cur, 1, 1);
}

static int promote(ravel_engine *e, relation *r, uint64_t *new_tuples)
{
    int err = gather_new(r);
    if (err != MPI_SUCCESS)
        return err;
    storage_free_delta(r);
    r->delta_is_full = 0;
    if (r->incoming_packed.n > 0) {
        err = gather_packed(r);
    } else {
        packed_free(&r->incoming_packed); /* a drain that found nothing */
        r->delta = r->incoming;
        memset(&r->incoming, 0, sizeof r->incoming);
    }
    if (err == MPI_SUCCESS)
        err = add_delta_to_full(e, r);
    if (err != MPI_SUCCESS)
        return err;
    count_delta(e, r);
    *new_tuples = r->delta.n + r->delta_packed.n;
    r->promoted = *new_tuples;
    return pack_delta(e, r);
}

static int install(ravel_engine *e, relation *r, int to_delta)
{
    tuple_buf *b = to_delta ? &r->incoming_delta : &r->incoming;
    /* Moves are rare: they merge into a flat full. */
    int err = storage_unpack(r);
    /* Moved tuples that came packed landed apart (exchange_deliver), and
     * so did tuples of this rank's box (a resumed run's). */
    if (err == MPI_SUCCESS && !to_delta)
        err = exchange_hand_over(b, &r->incoming_checked, r->arity);
    if (err == MPI_SUCCESS && !to_delta && r->incoming_packed.n > 0) {
        tuple_buf flat;
        err = packed_unpack(&r->incoming_packed, r->arity, &flat, 0);
        packed_free(&r->incoming_packed);
        if (err == MPI_SUCCESS)
            err = exchange_hand_over(b, &flat, r->arity);
    }
    if (err != MPI_SUCCESS)
        return err;
    reduce_to_new(r, b);
    r->moves += b->n > 0;
    if (to_delta && !r->delta_is_full) {
        /* Moved delta tuples were in delta where they came from. */
        err = tuples_merge_into(&r->delta, r->arity, b->data, b->n);
    }
    size_t before = filter_count(r);
    if (err == MPI_SUCCESS)
        err = tuples_merge_into(&r->full, r->arity, b->data, b->n);
    if (err == MPI_SUCCESS)
        filter_added(r, &(tuple_source){{b->data, b->n}, NULL}, before);
    if (err == MPI_SUCCESS)
        storage_count_buckets(e, r, b->data, b->n, 1);
    tuple_buf_free(b);
    return err;
}

/* Tuples a visit hands over at a time, when they must be merged. */
#define VISIT_BATCH 4096

typedef struct {
    ravel_visit_fn fn;
    void *arg;
} visit_bits;

static int put_visit(void *arg, const uint64_t *t, size_t n)
{
    visit_bits *v = arg;
    return v->fn(t, n, v->arg);
}

int storage_visit(relation *r, ravel_visit_fn fn, void *arg)
{
    if (r->bits.slot) { /* full whole */
        visit_bits v = {fn, arg};
        return tuple_box_each(&r->bits, put_visit, &v);
    }
    int err = merge_runs(r);
    if (err != MPI_SUCCESS)
        return relation_error(r, err);
    unsigned a = r->arity;
    const uint64_t *flat = r->full.data;
    size_t nflat = r->full.n;
    if (r->packed.n == 0)
        return nflat ? fn(flat, nflat, arg) : MPI_SUCCESS;
    uint64_t *batch = malloc(VISIT_BATCH * a * sizeof *batch);
    if (!batch)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for a batch "
                               "of %d tuples", VISIT_BATCH);
    packed_cursor c;
    packed_cursor_seek(&c, &r->packed, a, 0);
    size_t i = 0, n = 0;
    int rc = 0;
    while (!rc && (!c.at_end || i < nflat)) {
        /* disjoint: no tuple is in both */
        if (i == nflat ||
            (!c.at_end && tuples_compare(c.cur, flat + i * a, a) < 0)) {
            memcpy(batch + n * a, c.cur, a * sizeof *batch);
            packed_cursor_next(&c);
        } else {
            memcpy(batch + n * a, flat + i++ * a, a * sizeof *batch);
        }
        if (++n == VISIT_BATCH || (c.at_end && i == nflat)) {
            rc = fn(batch, n, arg);
            n = 0;
        }
    }
    free(batch);
    return rc;
}

/* The entry points say which relation failed. */
int storage_promote(ravel_engine *e, relation *r, uint64_t *new_tuples)
{
    return relation_error(r, promote(e, r, new_tuples));
}

int storage_install(ravel_engine *e, relation *r, int to_delta)
{
    return relation_error(r, install(e, r, to_delta));
}

int storage_unpack(relation *r)
{
    int err = unpack(r);
    return err == MPI_SUCCESS ? storage_unpack_delta(r)
                              : relation_error(r, err);
}

