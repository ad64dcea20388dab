/* Reducing candidates to new tuples: sorted, without repeats, without what
 * the relation already holds.
 *
 * Candidates are the engine's bulk: TC of wiki-Vote makes 297 million for
 * its 11.9 million paths, and sorting them on every byte, then searching
 * full for each survivor, took three quarters of a 1-rank profile
 * (relalg/README.md).  Dense closures repeat candidates within a small box
 * of values: wiki-Vote's 8,297 nodes make 69 million possible paths, a
 * bitmap of 8.6 MB.  So, when one bit for every tuple of the candidates'
 * box takes at most half the candidates' own bytes, each candidate sets its
 * bit, each tuple of full in the box clears its own, and the bits left are
 * written out in order: no sort, no comparison.  Otherwise the candidates
 * are sorted on their first arity - 1 columns only (the groups that share
 * them: in TC, the paths into one node), and each group is reduced on its
 * own:
 *   - dense (at least one candidate per 64 values of its range): a bit per
 *     value is set, full's tuples in the group's range clear theirs, and
 *     the bits left are written out in order: the last column is never
 *     sorted, and full is read without a comparison per candidate;
 *   - sparse: sorted on the last column, and each tuple kept when it is
 *     neither a repeat nor in full (found by galloping, full read forward).
 * Groups come in increasing order, so the search in each of full's flat
 * runs and its packed cursor only move forward over the whole call. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

/* A group of fewer candidates is sorted: a bitmap's set-up costs more. */
#define DENSE_MIN_TUPLES 16
/* The largest bitmap, in words (1 MiB: ranges up to 8 million values). */
#define BITMAP_MAX_WORDS ((size_t)1 << 17)

/* full as the walk reads it: its flat runs, its packed part and its
 * bits. */
typedef struct {
    const tuple_run *flat;
    unsigned nflat;
    size_t j[FULL_RUNS_MAX]; /* flat[r].t[j[r]]: the run's next tuple not
                                yet passed */
    int packed;              /* cursor is on the packed part */
    packed_cursor cursor;
    const tuple_box *bits;   /* NULL: none */
    const tuple_filter *filter; /* of the flat runs and the packed part;
                                   NULL: none */
    unsigned arity;
} full_walk;

/* A walk of the set `full`, from its start. */
static full_walk walk_start(const full_set *full, unsigned arity)
{
    full_walk f = {.flat = full->flat, .nflat = full->nflat, .arity = arity};
    if (full->packed && full->packed->n > 0) {
        f.packed = 1;
        packed_cursor_seek(&f.cursor, full->packed, arity, 0);
    }
    if (full->bits && full->bits->slot)
        f.bits = full->bits;
    if (full->filter && full->filter->words)
        f.filter = full->filter;
    return f;
}

static full_set full_of(const tuple_run *flat, unsigned nflat,
                        const packed_tuples *packed)
{
    return (full_set){flat, nflat, packed, NULL, NULL};
}

/* Whether box x holds t: within its corners, in a row it holds, its bit
 * set.  Constant time: a relation's full held as bits answers the
 * reduction's every search with one of these. */
static inline int box_has(const tuple_box *x, const uint64_t *t)
{
    unsigned a = x->arity, k = a - 1;
    uint64_t row = 0;
    for (unsigned c = 0; c < k; c++) {
        if (t[c] < x->min[c] || t[c] > x->max[c])
            return 0;
        row = row * (x->max[c] - x->min[c] + 1) + (t[c] - x->min[c]);
    }
    if (t[k] < x->min[k] || t[k] > x->max[k])
        return 0;
    uint32_t s = x->slot[row];
    if (!s)
        return 0;
    uint64_t v = t[k] - x->min[k];
    return (int)(x->bits[(size_t)(s - 1) * x->row_words + v / 64] >>
                 (v % 64)) & 1;
}

/* Whether full holds t: its bits, its flat runs, then its packed part (as
 * when the flat part was one array; searching the packed part first did
 * not make fe_sphere's TC faster).  Each part's search starts where its
 * last one ended, whichever parts were skipped. */
static int full_has(full_walk *f, const uint64_t *t)
{
    unsigned a = f->arity;
    if (f->bits && box_has(f->bits, t))
        return 1;
    /* The parts' positions lag where the filter answers for them: each
     * search gallops from its part's last one, forward all the same. */
    if (f->filter && !(a == 2 ? tuple_filter_may_hold(f->filter, t, 2)
                              : tuple_filter_may_hold(f->filter, t, a)))
        return 0;
    if (tuple_runs_hold(f->flat, f->nflat, f->j, a, t, a))
        return 1;
    if (!f->packed)
        return 0;
    packed_cursor_advance_to(&f->cursor, t);
    return !f->cursor.at_end && tuples_compare(f->cursor.cur, t, a) == 0;
}

/* Whether full holds at most about `most` tuples from lo to hi: then
 * reading them all (clearing bits) costs less than searching full for each
 * candidate, which is what a small set of candidates against a large full
 * wants (fe_sphere's late iterations).  Exact on the flat part; the packed
 * part is counted in whole blocks.  full's bits are never walked: a bit
 * is tested in constant time. */
static int few_held_between(full_walk *f, const uint64_t *lo,
                            const uint64_t *hi, size_t most)
{
    unsigned a = f->arity;
    if (f->bits)
        return 0;
    size_t held = 0;
    for (unsigned r = 0; r < f->nflat; r++) {
        const tuple_run *run = &f->flat[r];
        size_t i = tuples_lower_bound(run->t, f->j[r], run->n, a, lo, a);
        held += tuples_lower_bound(run->t, i, run->n, a, hi, a) - i;
    }
    if (f->packed) {
        const packed_tuples *p = f->cursor.p;
        held += (packed_block_at(p, a, hi) - packed_block_at(p, a, lo) + 1) *
                PACKED_BLOCK;
    }
    return held <= most;
}

/* Drops from sorted unique t[from..w) what full holds; returns the new w. */
static size_t drop_held(uint64_t *t, size_t from, size_t w, full_walk *f)
{
    unsigned a = f->arity;
    size_t out = from;
    for (size_t i = from; i < w; i++)
        if (!full_has(f, t + i * a)) {
            if (out != i)
                memcpy(t + out * a, t + i * a, a * sizeof *t);
            out++;
        }
    return out;
}

static inline void clear_bit(uint64_t *bits, uint64_t v)
{
    bits[v / 64] &= ~((uint64_t)1 << (v % 64));
}

/* Writes from t[w] one tuple for every bit set in bits[0..words): the
 * first arity - 1 columns from key, the last `first` plus the bit's index;
 * returns the new w. */
static inline size_t write_bits(uint64_t *t, size_t w, unsigned arity,
                                const uint64_t *key, uint64_t first,
                                const uint64_t *bits, size_t words)
{
    unsigned k = arity - 1;
    for (size_t x = 0; x < words; x++)
        for (uint64_t b = bits[x]; b; b &= b - 1) {
            uint64_t *out = t + w++ * arity;
            memcpy(out, key, k * sizeof *key);
            out[k] = first + 64 * (uint64_t)x + (uint64_t)__builtin_ctzll(b);
        }
    return w;
}

/* Clears the bit of every tuple of full that has key's first arity - 1
 * columns and a last column in [lo, hi] (bit v - lo for value v). */
static void clear_held(full_walk *f, uint64_t *key, uint64_t lo, uint64_t hi,
                       uint64_t *bits)
{
    unsigned a = f->arity, k = a - 1;
    key[k] = lo;
    for (unsigned r = 0; r < f->nflat; r++) {
        const tuple_run *run = &f->flat[r];
        size_t *j = &f->j[r];
        for (*j = tuples_lower_bound(run->t, *j, run->n, a, key, a);
             *j < run->n; ++*j) {
            const uint64_t *s = run->t + *j * a;
            if (tuples_compare(s, key, k) != 0 || s[k] > hi)
                break;
            clear_bit(bits, s[k] - lo);
        }
    }
    if (!f->packed)
        return;
    packed_cursor *c = &f->cursor;
    for (packed_cursor_advance_to(c, key); !c->at_end; packed_cursor_next(c)) {
        if (tuples_compare(c->cur, key, k) != 0 || c->cur[k] > hi)
            break;
        clear_bit(bits, c->cur[k] - lo);
    }
}

/* The dense group t[lo..hi), last column in [min, max], reduced through
 * bits (of (max - min) / 64 + 1 words) and written from t[w]; returns the
 * new w.  w <= lo, and the group is read whole before anything is
 * written. */
static size_t reduce_dense(uint64_t *t, size_t lo, size_t hi, size_t w,
                           uint64_t min, uint64_t max, uint64_t *bits,
                           full_walk *f)
{
    unsigned a = f->arity, k = a - 1;
    size_t words = (size_t)((max - min) / 64) + 1;
    uint64_t key[RAVEL_MAX_ARITY], last[RAVEL_MAX_ARITY];
    memcpy(key, t + lo * a, k * sizeof *key);
    memcpy(last, key, k * sizeof *key);
    key[k] = min;
    last[k] = max;
    memset(bits, 0, words * sizeof *bits);
    for (size_t i = lo; i < hi; i++) {
        uint64_t v = t[i * a + k] - min;
        bits[v / 64] |= (uint64_t)1 << (v % 64);
    }
    int walk = few_held_between(f, key, last, 2 * (hi - lo));
    if (walk)
        clear_held(f, key, min, max, bits);
    size_t from = w;
    w = write_bits(t, w, a, key, min, bits, words);
    return walk ? w : drop_held(t, from, w, f);
}

/* The sparse group t[lo..hi) sorted on its last column, written from t[w]
 * without repeats or what full holds; returns the new w (w <= lo). */
static size_t reduce_sparse(uint64_t *t, size_t lo, size_t hi, size_t w,
                            full_walk *f)
{
    unsigned a = f->arity;
    tuples_sort_prefix(t + lo * a, hi - lo, a, a);
    const uint64_t *prev = NULL;
    for (size_t i = lo; i < hi; i++) {
        const uint64_t *s = t + i * a;
        /* t[i - 1] is never written over before t[i] is read: w <= i - 1
         * writes it only with itself. */
        int repeat = prev && tuples_compare(prev, s, a) == 0;
        prev = s;
        if (repeat || full_has(f, s))
            continue;
        if (w != i)
            memcpy(t + w * a, s, a * sizeof *s);
        w++;
    }
    return w;
}

/* The smallest and largest value of each column of every step-th tuple
 * of t[0..n), from the first. */
ALWAYS_INLINE void box_of_every(const uint64_t *t, size_t n, unsigned arity,
                                size_t step, uint64_t *min, uint64_t *max)
{
    memcpy(min, t, arity * sizeof *min);
    memcpy(max, t, arity * sizeof *max);
    for (size_t i = step; i < n; i += step)
        for (unsigned c = 0; c < arity; c++) {
            uint64_t v = t[i * arity + c];
            min[c] = v < min[c] ? v : min[c];
            max[c] = v > max[c] ? v : max[c];
        }
}

/* The smallest and largest value of each column of t[0..n). */
ALWAYS_INLINE void box_of(const uint64_t *t, size_t n, unsigned arity,
                          uint64_t *min, uint64_t *max)
{
    box_of_every(t, n, arity, 1, min, max);
}

/* From this many tuples on, a box is first weighed on a sample. */
#define SAMPLE_MIN_TUPLES 4096

/* The box of every 64th tuple of t[0..n): it lies inside the box of all,
 * so a box refused for its span (a bitmap, a box's rows) is refused for
 * all the tuples too, and the pass over every one of them is saved.  A
 * buffer of fe_body's sparse candidates was weighed for a box of bits,
 * then, sorted, for one bitmap, each refused after a pass of its own (2.6%
 * of a 2-rank profile in box_of). */
static void sample_box(const uint64_t *t, size_t n, unsigned arity,
                       uint64_t *min, uint64_t *max)
{
    box_of_every(t, n, arity, 64, min, max);
}

/* Whether a bitmap of `words` more fits the memory limit: it counts as
 * tuple memory, and is only an optimisation. */
static int bitmap_fits_budget(size_t words)
{
    uint64_t cap = budget_limit();
    return cap == 0 || budget_held() + words * sizeof(uint64_t) <= cap;
}

/* The words of a box from min to max: 0 when over `most`. */
static size_t box_words(unsigned arity, const uint64_t *min,
                        const uint64_t *max, size_t most, size_t *row_words)
{
    uint64_t total = (max[arity - 1] - min[arity - 1]) / 64 + 1;
    if (total > most)
        return 0;
    *row_words = (size_t)total;
    for (unsigned c = 0; c + 1 < arity; c++) {
        uint64_t span = max[c] - min[c];
        if (span >= most || span + 1 > most / total)
            return 0;
        total *= span + 1;
    }
    return (size_t)total;
}

/* Whether t[0..n)'s tuples all lie in a box small enough for one bit per
 * tuple of it: each column's range, the last one's rounded up to whole
 * words, taking at most half the bytes of the tuples themselves.  *words
 * and the box's corner (min, max) and row length come back. */
static int fits_one_bitmap(const uint64_t *t, size_t n, unsigned arity,
                           uint64_t *min, uint64_t *max, size_t *row_words,
                           size_t *words)
{
    if (n >= SAMPLE_MIN_TUPLES) {
        sample_box(t, n, arity, min, max);
        if (box_words(arity, min, max, n / 2 * arity, row_words) == 0)
            return 0;
    }
    WITH_CONSTANT_WIDTH(arity, w, box_of(t, n, w, min, max))
    /* words: half the tuples' bytes */
    *words = box_words(arity, min, max, n / 2 * arity, row_words);
    if (*words == 0)
        return 0;
    /* Over the limit, the sort does the work. */
    return bitmap_fits_budget(*words);
}

/* The bit of tuple s, which lies in the box of fits_one_bitmap. */
ALWAYS_INLINE uint64_t box_bit(const uint64_t *s, unsigned arity,
                               const uint64_t *min, const uint64_t *max,
                               size_t row_bits)
{
    uint64_t row = 0;
    for (unsigned c = 0; c + 1 < arity; c++)
        row = row * (max[c] - min[c] + 1) + (s[c] - min[c]);
    return row * row_bits + (s[arity - 1] - min[arity - 1]);
}

ALWAYS_INLINE void set_box_bits(const uint64_t *t, size_t n, unsigned arity,
                                const uint64_t *min, const uint64_t *max,
                                size_t row_bits, uint64_t *bits)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = box_bit(t + i * arity, arity, min, max, row_bits);
        bits[v / 64] |= (uint64_t)1 << (v % 64);
    }
}

static inline int in_box(const uint64_t *s, unsigned arity,
                         const uint64_t *min, const uint64_t *max)
{
    for (unsigned c = 0; c < arity; c++)
        if (s[c] < min[c] || s[c] > max[c])
            return 0;
    return 1;
}

/* Calls held(arg, s) for every tuple s of full inside the box: one walk
 * for the dense bitmap and for a box's held rows, each caller given its
 * own inlined copy. */
ALWAYS_INLINE void walk_held_in_box(full_walk *f, const uint64_t *min,
                                    const uint64_t *max,
                                    void (*held)(void *arg,
                                                 const uint64_t *s),
                                    void *arg)
{
    unsigned arity = f->arity;
    for (unsigned r = 0; r < f->nflat; r++) {
        const tuple_run *run = &f->flat[r];
        size_t j = tuples_lower_bound(run->t, 0, run->n, arity, min, arity);
        for (; j < run->n && run->t[j * arity] <= max[0]; j++)
            if (in_box(run->t + j * arity, arity, min, max))
                held(arg, run->t + j * arity);
    }
    packed_cursor *cur = &f->cursor;
    if (f->packed)
        for (packed_cursor_advance_to(cur, min);
             !cur->at_end && cur->cur[0] <= max[0]; packed_cursor_next(cur))
            if (in_box(cur->cur, arity, min, max))
                held(arg, cur->cur);
}

typedef struct {
    const uint64_t *min, *max;
    unsigned arity;
    size_t row_bits;
    uint64_t *bits;
} dense_box;

static inline void clear_dense_bit(void *arg, const uint64_t *s)
{
    dense_box *d = arg;
    clear_bit(d->bits, box_bit(s, d->arity, d->min, d->max, d->row_bits));
}

/* Clears the bit of every tuple of full inside the box. */
static void clear_box_held(full_walk *f, const uint64_t *min,
                           const uint64_t *max, size_t row_bits,
                           uint64_t *bits)
{
    dense_box d = {min, max, f->arity, row_bits, bits};
    walk_held_in_box(f, min, max, clear_dense_bit, &d);
}

/* key's first k columns to the next row of the box, the last of them
 * first (rows in order). */
static inline void next_row(uint64_t *key, const uint64_t *min,
                            const uint64_t *max, unsigned k)
{
    for (unsigned c = k; c-- > 0;) {
        if (key[c] < max[c]) {
            key[c]++;
            return;
        }
        key[c] = min[c];
    }
}

/* Writes a tuple from t[0] for every bit set, in order (a row is one value
 * of all columns but the last, rows in order; a row's bits are its last
 * column's values); returns the count. */
static size_t write_box(uint64_t *t, unsigned arity, const uint64_t *min,
                        const uint64_t *max, const uint64_t *bits,
                        size_t row_words, size_t words)
{
    unsigned k = arity - 1;
    uint64_t key[RAVEL_MAX_ARITY];
    memcpy(key, min, arity * sizeof *key);
    size_t w = 0;
    for (size_t r = 0; r < words / row_words; r++) {
        w = write_bits(t, w, arity, key, min[k], bits + r * row_words,
                       row_words);
        next_row(key, min, max, k);
    }
    return w;
}

/* The box of fits_one_bitmap as bits: set for every tuple of t, cleared for
 * every tuple full holds, and written back in order.  Returns the count;
 * SIZE_MAX when the bitmap could not be allocated. */
static size_t reduce_in_one_bitmap(uint64_t *t, size_t n, unsigned arity,
                                   const uint64_t *min, const uint64_t *max,
                                   size_t row_words, size_t words,
                                   full_walk *f)
{
    uint64_t *bits = calloc(words, sizeof *bits);
    if (!bits)
        return SIZE_MAX;
    budget_note(0, words * sizeof *bits);
    ravel_memory_prefer_huge_pages(bits, words * sizeof *bits);
    size_t row_bits = 64 * row_words;
    WITH_CONSTANT_WIDTH(arity, w, set_box_bits(t, n, w, min, max, row_bits,
                                               bits))
    /* full's tuples from the box's first corner to its last, read when
     * they are few, else searched for after. */
    int walk = few_held_between(f, min, max, 2 * n);
    if (walk)
        clear_box_held(f, min, max, row_bits, bits);
    size_t w = write_box(t, arity, min, max, bits, row_words, words);
    free(bits);
    budget_note(words * sizeof *bits, 0);
    return walk ? w : drop_held(t, 0, w, f);
}

/* ---- candidates held as bits of their box (tuple_box_*) ----------------
 * A box is laid out in rows: a row is one value of all columns but the
 * last, its bits the last column's values.  Only the rows that hold a
 * tuple take room: a row's place is kept in an index of 4 bytes a row.
 * At P ranks a rank's candidates hold about 1/P of the rows of their box
 * (their first column is the key, placed on ranks by its hash), and a
 * bitmap of every row made the rows of the other ranks' keys resident
 * too: TC of wiki-Vote at 2 ranks held boxes of 8.6 MB half empty. */

/* The row of s in the box from min to max. */
static inline uint64_t row_of(const uint64_t *s, unsigned arity,
                              const uint64_t *min, const uint64_t *max)
{
    uint64_t row = 0;
    for (unsigned c = 0; c + 1 < arity; c++)
        row = row * (max[c] - min[c] + 1) + (s[c] - min[c]);
    return row;
}

/* The words a box of `rows` rows takes with `used` of them held. */
static size_t box_cost(size_t rows, size_t row_words, size_t used)
{
    return rows / 2 + 1 + used * row_words;
}

/* The rows of the box from min to max, and their words: 0 when the whole
 * box, every row of it, passes `area` words, or its index with one row
 * passes `most`.  The area bounds how sparse a box may be: walking,
 * clearing and laying out a box costs time with its every row, held or
 * not, and rows counted only as held let boxes start on fe_sphere's sparse
 * closure, 1.14 times its time.  `most` bounds the memory it takes. */
static size_t box_rows(unsigned arity, const uint64_t *min,
                       const uint64_t *max, size_t area, size_t most,
                       size_t *row_words)
{
    size_t words = box_words(arity, min, max, area, row_words);
    if (words == 0 || box_cost(words / *row_words, *row_words, 1) > most)
        return 0;
    return words / *row_words;
}

/* The area box x may span once `added` tuples fell in it: the words they
 * would take flat, times its span factor (tuple_box), at one bit a tuple
 * of the box's. */
static size_t box_area(const tuple_box *x, unsigned arity, size_t added)
{
    size_t per = (size_t)arity * (x->span_factor ? x->span_factor : 1);
    return added > SIZE_MAX / per ? SIZE_MAX : added * per;
}

static size_t box_bytes(const tuple_box *x)
{
    return x->rows * sizeof *x->slot +
           x->cap_rows * x->row_words * sizeof *x->bits;
}

/* Room for one more row, within `most` words; 0 when it is not had. */
static int grow_rows(tuple_box *x, size_t most)
{
    size_t fit = (most - (x->rows / 2 + 1)) / x->row_words;
    size_t cap = x->cap_rows < 8 ? 16 : 2 * x->cap_rows;
    cap = cap < fit ? cap : fit;
    if (cap <= x->used_rows ||
        !bitmap_fits_budget((cap - x->cap_rows) * x->row_words))
        return 0;
    uint64_t *bits = realloc(x->bits, cap * x->row_words * sizeof *bits);
    if (!bits)
        return 0; /* an optimisation only */
    size_t before = box_bytes(x);
    x->bits = bits;
    x->cap_rows = cap;
    budget_note(before, box_bytes(x));
    ravel_memory_prefer_huge_pages(bits, cap * x->row_words * sizeof *bits);
    return 1;
}

/* Room for `row`, which holds no tuple yet: NULL when a new row would take
 * the box past its limit.  The limit is at least BOX_BYTES_PER_COLUMN a
 * column of the tuples held: a box of candidates starts limited to a
 * quarter of the buffer it replaces, and TC of ego-Facebook's boxes, so
 * held to a third of their rows, left buffers of 4 MB a rank beside them
 * for the candidates of the other rows.  Apart from row_bits, whose every
 * call for a row already held (most) stays inline. */
static __attribute__((noinline)) uint64_t *new_row(tuple_box *x,
                                                    uint64_t row)
{
    size_t most = x->most_words,
           by_count = box_bytes_for(x->count, x->arity) / sizeof *x->bits;
    if (by_count > most)
        most = x->most_words = by_count;
    if (box_cost(x->rows, x->row_words, x->used_rows + 1) > most ||
        x->used_rows >= UINT32_MAX ||
        (x->used_rows == x->cap_rows && !grow_rows(x, most)))
        return NULL;
    uint64_t *bits = x->bits + x->used_rows * x->row_words;
    if (!x->zeroed) /* rows laid out again come zeroed (relayout_box) */
        memset(bits, 0, x->row_words * sizeof *bits);
    x->slot[row] = (uint32_t)++x->used_rows;
    return bits;
}

/* The words of `row`; when it holds no tuple yet, NULL if `add` is 0, else
 * new_row's. */
static inline uint64_t *row_bits(tuple_box *x, uint64_t row, int add)
{
    uint32_t s = x->slot[row];
    if (s)
        return x->bits + (size_t)(s - 1) * x->row_words;
    return add ? new_row(x, row) : NULL;
}

/* Sets t's bit (t in the box); 0 when its row cannot be had. */
static inline int set_in_box(tuple_box *x, const uint64_t *t)
{
    unsigned k = x->arity - 1;
    uint64_t *bits = row_bits(x, row_of(t, x->arity, x->min, x->max), 1);
    if (!bits)
        return 0;
    uint64_t v = t[k] - x->min[k], bit = (uint64_t)1 << (v % 64);
    x->count += !(bits[v / 64] & bit);
    bits[v / 64] |= bit;
    return 1;
}

/* An empty box from min to max (x's arity and limit set), spanning at
 * most `area` words; 0 when over it or x's limit, or memory is short. */
static int lay_out(tuple_box *x, const uint64_t *min, const uint64_t *max,
                   size_t area)
{
    unsigned a = x->arity;
    size_t row_words = 0;
    size_t rows = box_rows(a, min, max, area, x->most_words, &row_words);
    if (rows == 0 || !bitmap_fits_budget(rows / 2 + 1))
        return 0;
    uint32_t *slot = calloc(rows, sizeof *slot);
    if (!slot)
        return 0;
    x->slot = slot;
    x->bits = NULL;
    x->rows = rows;
    x->row_words = row_words;
    x->used_rows = x->cap_rows = 0;
    memcpy(x->min, min, a * sizeof *min);
    memcpy(x->max, max, a * sizeof *max);
    budget_note(0, box_bytes(x));
    return 1;
}

/* Lays out empty x (arity, limit set) as the box from min to max of n
 * tuples, spanning at most as many words as the tuples' own: a sparser
 * box would cost more to write out than it saves.  0 (x left empty) when
 * it cannot. */
static int lay_out_first(tuple_box *x, const uint64_t *min,
                         const uint64_t *max, unsigned arity,
                         size_t most_bytes, size_t n)
{
    x->arity = arity;
    x->most_words = most_bytes / sizeof *x->bits;
    x->added = n;
    if (lay_out(x, min, max, box_area(x, arity, n)))
        return 1;
    memset(x, 0, sizeof *x);
    return 0;
}

/* Room for the `used` rows a new box's tuples hold (counted before any is
 * taken: a box refused when half built made cti's peak), within its
 * limit and the memory limit; else frees x and returns 0. */
static int take_rows(tuple_box *x, size_t used)
{
    if (box_cost(x->rows, x->row_words, used) > x->most_words ||
        used >= UINT32_MAX || !bitmap_fits_budget(used * x->row_words) ||
        !(x->bits = malloc(used * x->row_words * sizeof *x->bits))) {
        tuple_box_free(x);
        return 0;
    }
    size_t before = box_bytes(x);
    x->cap_rows = used;
    budget_note(before, box_bytes(x));
    ravel_memory_prefer_huge_pages(x->bits,
                                   used * x->row_words * sizeof *x->bits);
    return 1;
}

int tuple_box_start(tuple_box *x, const uint64_t *t, size_t n,
                    unsigned arity, size_t most_bytes)
{
    memset(x, 0, sizeof *x);
    if (n == 0)
        return 0;
    uint64_t min[RAVEL_MAX_ARITY], max[RAVEL_MAX_ARITY];
    size_t row_words;
    if (n >= SAMPLE_MIN_TUPLES) {
        sample_box(t, n, arity, min, max);
        if (box_rows(arity, min, max, box_area(x, arity, n),
                     most_bytes / sizeof(uint64_t), &row_words) == 0)
            return 0;
    }
    WITH_CONSTANT_WIDTH(arity, w, box_of(t, n, w, min, max))
    if (!lay_out_first(x, min, max, arity, most_bytes, n))
        return 0;
    /* The rows the tuples hold, counted (marked, then unmarked) before any
     * is taken: a box refused when half built made cti's peak. */
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t *s = &x->slot[row_of(t + i * arity, arity, min, max)];
        used += *s == 0;
        *s = 1;
    }
    for (size_t i = 0; i < n; i++)
        x->slot[row_of(t + i * arity, arity, min, max)] = 0;
    if (!take_rows(x, used))
        return 0;
    for (size_t i = 0; i < n; i++)
        set_in_box(x, t + i * arity); /* cannot fail: room for all */
    return 1;
}

/* y's index from x's: every held row of x at its place in y's layout,
 * with the same place in the bits. */
static void index_rows_again(const tuple_box *x, tuple_box *y)
{
    unsigned a = x->arity, k = a - 1;
    uint64_t key[RAVEL_MAX_ARITY];
    memcpy(key, x->min, a * sizeof *key);
    for (size_t r = 0; r < x->rows; r++, next_row(key, x->min, x->max, k))
        if (x->slot[r])
            y->slot[row_of(key, a, y->min, y->max)] = x->slot[r];
}

/* x's rows lengthened in their own room to y's (laid out, its index
 * empty), which starts `at` words before x's: grown by realloc, which
 * moves a mapped block's pages without copying them, and rewritten from
 * the last row to the first, each one's words moving up.  A copy into
 * new room held both boxes at once, the peak of TC of ego-Facebook at 2
 * ranks on small pages (1.6 and 1.8 MB of a rank's boxes; relalg/README.md,
 * "Boxes widened in place").  0 (x as it was) when memory is short. */
static int lengthen_rows(tuple_box *x, tuple_box *y, size_t at)
{
    size_t used = x->used_rows, from = x->row_words, to = y->row_words;
    size_t before = x->cap_rows * from * sizeof *x->bits;
    uint64_t *bits = realloc(x->bits, used * to * sizeof *bits);
    if (!bits)
        return 0;
    budget_note(before, used * to * sizeof *bits);
    ravel_memory_prefer_huge_pages(bits, used * to * sizeof *bits);
    for (size_t s = used; s-- > 0;) {
        uint64_t *row = bits + s * to;
        memmove(row + at, bits + s * from, from * sizeof *bits);
        memset(row, 0, at * sizeof *bits);
        memset(row + at + from, 0, (to - at - from) * sizeof *bits);
    }
    index_rows_again(x, y);
    budget_note(x->rows * sizeof *x->slot, 0);
    free(x->slot);
    y->bits = bits;
    y->used_rows = y->cap_rows = used;
    return 1;
}

/* x's rows copied into new room in y's layout (laid out, its index
 * empty), whose last column starts `shift` values before x's: bit by
 * bit, for a shift by part of a word (relayout_box also comes here for a
 * box that holds no row yet, which has nothing to lengthen). */
static int copy_rows_shifted(tuple_box *x, tuple_box *y, uint64_t shift)
{
    unsigned a = x->arity, k = a - 1;
    y->bits = calloc((x->used_rows ? x->used_rows : 1) * y->row_words,
                     sizeof *y->bits);
    if (!y->bits)
        return 0;
    y->cap_rows = x->used_rows;
    y->zeroed = 1;
    budget_note(0, y->cap_rows * y->row_words * sizeof *y->bits);
    uint64_t key[RAVEL_MAX_ARITY];
    memcpy(key, x->min, a * sizeof *key);
    for (size_t r = 0; r < x->rows; r++, next_row(key, x->min, x->max, k)) {
        if (!x->slot[r])
            continue;
        const uint64_t *old = x->bits + (size_t)(x->slot[r] - 1) * x->row_words;
        uint64_t *bits = row_bits(y, row_of(key, a, y->min, y->max), 1);
        for (size_t w = 0; w < x->row_words; w++)
            for (uint64_t b = old[w]; b; b &= b - 1) {
                uint64_t v = shift + 64 * (uint64_t)w +
                             (uint64_t)__builtin_ctzll(b);
                bits[v / 64] |= (uint64_t)1 << (v % 64);
            }
    }
    y->zeroed = 0;
    tuple_box_free(x);
    return 1;
}

/* Lays x out again as the box from lo to hi (which holds x's), spanning
 * at most `area` words: every held row moved to its place in the new
 * layout, its bits with it (in their own room when the last column
 * starts whole words earlier, or where it did: the usual case).  0 when
 * over `area`, x's limit, the memory limit, or memory is short. */
static int relayout_box(tuple_box *x, const uint64_t *lo, const uint64_t *hi,
                        size_t area)
{
    unsigned k = x->arity - 1;
    tuple_box y = *x;
    if (!lay_out(&y, lo, hi, area))
        return 0;
    uint64_t shift = x->min[k] - lo[k];
    if (box_cost(y.rows, y.row_words, x->used_rows) > y.most_words ||
        !bitmap_fits_budget(x->used_rows * y.row_words) ||
        !(shift % 64 == 0 && x->used_rows > 0
              ? lengthen_rows(x, &y, (size_t)(shift / 64))
              : copy_rows_shifted(x, &y, shift))) {
        budget_note(box_bytes(&y), 0);
        free(y.slot);
        return 0;
    }
    *x = y;
    return 1;
}

/* Widens x to hold t: each column that must grow grows by at least its
 * span, so that a box grown tuple by tuple is laid out again a few times,
 * not once per tuple (a widening only as far as t, near the limit, did
 * that: TC of cti ten times slower).  Never past the limit, nor past the
 * words the tuples added so far would take flat: a box much sparser than
 * its tuples costs more to clear and write out than it saves (fe_sphere's
 * late iterations, a few new tuples in a box of 33 MB, took its exchanges
 * from 2.5 s to 12).  0 when over either or memory is short: t then stays
 * out. */
static int widen_box(tuple_box *x, const uint64_t *t)
{
    uint64_t lo[RAVEL_MAX_ARITY], hi[RAVEL_MAX_ARITY];
    for (unsigned c = 0; c < x->arity; c++) {
        uint64_t span = x->max[c] - x->min[c] + 1;
        uint64_t down = x->min[c] < span ? x->min[c] : span; /* to 0 */
        lo[c] = x->min[c];
        hi[c] = x->max[c];
        if (t[c] < lo[c])
            lo[c] = t[c] < lo[c] - down ? t[c] : lo[c] - down;
        if (t[c] > hi[c])
            hi[c] = UINT64_MAX - hi[c] < span || t[c] > hi[c] + span
                        ? t[c]
                        : hi[c] + span;
    }
    return relayout_box(x, lo, hi, box_area(x, x->arity, x->added + 1));
}

size_t tuple_box_absorb(tuple_box *x, uint64_t *t, size_t n,
                        size_t most_bytes)
{
    if (n == 0)
        return 0;
    unsigned a = x->arity;
    if (most_bytes / sizeof *x->bits > x->most_words)
        x->most_words = most_bytes / sizeof *x->bits;
    uint64_t lo[RAVEL_MAX_ARITY], hi[RAVEL_MAX_ARITY];
    WITH_CONSTANT_WIDTH(a, w, box_of(t, n, w, lo, hi))
    int wider = 0;
    for (unsigned c = 0; c < a; c++) {
        wider |= lo[c] < x->min[c] || hi[c] > x->max[c];
        lo[c] = lo[c] < x->min[c] ? lo[c] : x->min[c];
        hi[c] = hi[c] > x->max[c] ? hi[c] : x->max[c];
    }
    size_t added = x->added + n;
    if (wider && !relayout_box(x, lo, hi, box_area(x, a, added)))
        return n;
    size_t left = 0;
    for (size_t i = 0; i < n; i++)
        if (!set_in_box(x, t + i * a)) /* its row is not had */
            memmove(t + left++ * a, t + i * a, a * sizeof *t);
    x->added = added - left;
    return left;
}

int tuple_box_add(tuple_box *x, const uint64_t *t)
{
    if (!in_box(t, x->arity, x->min, x->max)) {
        /* A widening refused is tried again only once the tuples added
         * have grown by a quarter (the limit grows with them): trying it
         * for every tuple outside took 6% of ego-Facebook's TC. */
        if (x->added < x->retry_at || !widen_box(x, t)) {
            if (x->added >= x->retry_at)
                x->retry_at = x->added + x->added / 4 + 1;
            return 0;
        }
    }
    if (!set_in_box(x, t))
        return 0;
    x->added++;
    return 1;
}

/* Kept as bits are set and cleared: counting them took 10.6% of a 1-rank
 * profile of fe_sphere's TC (its boxes counted at every drain, through
 * libgcc's popcount: the build targets CPUs without the instruction). */
size_t tuple_box_count(const tuple_box *x) { return x->count; }

int tuple_box_has(const tuple_box *x, const uint64_t *t)
{
    return x->slot && box_has(x, t);
}

void tuple_box_raise_limit(tuple_box *x, size_t most_bytes)
{
    if (most_bytes / sizeof *x->bits > x->most_words)
        x->most_words = most_bytes / sizeof *x->bits;
}

/* Calls fn(arg, t) for every tuple t of the sets src[0..nsrc). */
static void each_in_sets(const tuple_source *src, unsigned nsrc,
                         unsigned arity,
                         void (*fn)(void *arg, const uint64_t *t), void *arg)
{
    for (unsigned i = 0; i < nsrc; i++) {
        if (!src[i].packed) {
            for (size_t j = 0; j < src[i].flat.n; j++)
                fn(arg, src[i].flat.t + j * arity);
            continue;
        }
        packed_cursor c;
        for (packed_cursor_seek(&c, src[i].packed, arity, 0); !c.at_end;
             packed_cursor_next(&c))
            fn(arg, c.cur);
    }
}

typedef struct {
    uint64_t *min, *max;
    unsigned arity;
} corners;

static void widen_corners(void *arg, const uint64_t *t)
{
    corners *b = arg;
    for (unsigned c = 0; c < b->arity; c++) {
        b->min[c] = t[c] < b->min[c] ? t[c] : b->min[c];
        b->max[c] = t[c] > b->max[c] ? t[c] : b->max[c];
    }
}

typedef struct {
    tuple_box *x;
    size_t used;
} row_count;

static void mark_row(void *arg, const uint64_t *t)
{
    row_count *rc = arg;
    tuple_box *x = rc->x;
    uint32_t *s = &x->slot[row_of(t, x->arity, x->min, x->max)];
    rc->used += *s == 0;
    *s = 1;
}

static void set_bit_of(void *arg, const uint64_t *t)
{
    set_in_box(arg, t); /* cannot fail: room for every row */
}

/* Calls fn(arg, t) for a sample of the sets src[0..nsrc): every 64th
 * flat tuple and the packed sets' block heads, kept whole. */
static void each_sampled(const tuple_source *src, unsigned nsrc,
                         unsigned arity,
                         void (*fn)(void *arg, const uint64_t *t), void *arg)
{
    for (unsigned i = 0; i < nsrc; i++) {
        const packed_tuples *p = src[i].packed;
        if (p) {
            for (size_t k = 0; k < p->nblocks; k++)
                fn(arg, p->heads + k * arity);
            continue;
        }
        for (size_t k = 0; k < src[i].flat.n; k += 64)
            fn(arg, src[i].flat.t + k * arity);
    }
}

typedef struct {
    uint32_t *slot;
    unsigned arity;
    const uint64_t *min, *max;
    size_t used;
} sample_rows;

static void mark_sampled_row(void *arg, const uint64_t *t)
{
    sample_rows *s = arg;
    uint32_t *at = &s->slot[row_of(t, s->arity, s->min, s->max)];
    s->used += *at == 0;
    *at = 1;
}

/* Whether the box of n tuples of the sets src may fit: a box around some
 * of them lies inside the box of all, and holds no more rows, so when the
 * box of a sample is refused (its span, or its index with the rows the
 * sample holds), so is the box of all, which is then never read whole: a
 * sparse full tried at every doubling (cti's, luxembourg_osm's) spent 2
 * to 5% of the run's instructions in tries.  b: the sample's corners. */
static int sample_fits(const tuple_box *x, const tuple_source *src,
                       unsigned nsrc, unsigned arity, corners *b, size_t n,
                       size_t most_bytes)
{
    each_sampled(src, nsrc, arity, widen_corners, b);
    size_t row_words, most = most_bytes / sizeof(uint64_t);
    size_t rows = box_rows(arity, b->min, b->max, box_area(x, arity, n),
                           most, &row_words);
    if (rows == 0)
        return 0;
    sample_rows s = {calloc(rows, sizeof *s.slot), arity, b->min, b->max, 0};
    if (!s.slot)
        return 0;
    each_sampled(src, nsrc, arity, mark_sampled_row, &s);
    free(s.slot);
    return box_cost(rows, row_words, s.used) <= most;
}

int tuple_box_start_sets(tuple_box *x, const tuple_source *src,
                         unsigned nsrc, unsigned arity, size_t most_bytes,
                         unsigned span_factor)
{
    memset(x, 0, sizeof *x);
    x->span_factor = span_factor;
    size_t n = 0;
    for (unsigned i = 0; i < nsrc; i++)
        n += tuple_source_count(&src[i]);
    if (n == 0)
        return 0;
    uint64_t min[RAVEL_MAX_ARITY], max[RAVEL_MAX_ARITY];
    for (unsigned c = 0; c < arity; c++) {
        min[c] = UINT64_MAX;
        max[c] = 0;
    }
    corners b = {min, max, arity};
    if (!sample_fits(x, src, nsrc, arity, &b, n, most_bytes)) {
        x->span_factor = 0; /* left empty */
        return 0;
    }
    each_in_sets(src, nsrc, arity, widen_corners, &b);
    if (!lay_out_first(x, min, max, arity, most_bytes, n))
        return 0;
    /* The rows held, counted before any is taken (as tuple_box_start). */
    row_count rc = {x, 0};
    each_in_sets(src, nsrc, arity, mark_row, &rc);
    memset(x->slot, 0, x->rows * sizeof *x->slot);
    if (!take_rows(x, rc.used))
        return 0;
    each_in_sets(src, nsrc, arity, set_bit_of, x);
    return 1;
}

/* Clears s's bit in box arg, if its row holds any. */
static inline void clear_row_bit(void *arg, const uint64_t *s)
{
    tuple_box *x = arg;
    unsigned k = x->arity - 1;
    uint64_t *bits = row_bits(x, row_of(s, x->arity, x->min, x->max), 0);
    if (!bits)
        return;
    uint64_t v = s[k] - x->min[k];
    x->count -= (bits[v / 64] >> (v % 64)) & 1;
    clear_bit(bits, v);
}

/* Clears the bit of every tuple of full inside the box when full holds
 * few there, and says so; else each tuple written must be searched for
 * (fe_sphere's late iterations: a few new tuples in a box that holds 39
 * million of full's a rank). */
static int clear_held_if_few(tuple_box *x, full_walk *f)
{
    if (!few_held_between(f, x->min, x->max, 2 * tuple_box_count(x)))
        return 0;
    walk_held_in_box(f, x->min, x->max, clear_row_bit, x);
    return 1;
}

/* The words of a row written out at a time: at most 64 times as many
 * tuples. */
#define DRAIN_WORDS 128

/* The bytes write_rows writes a batch into: no more than a row's words
 * make (a small relation's box, drained under a small memory limit). */
static size_t batch_bytes(const tuple_box *x)
{
    size_t words = x->row_words < DRAIN_WORDS ? x->row_words : DRAIN_WORDS;
    return 64 * words * x->arity * sizeof(uint64_t);
}

/* Writes the box's tuples in order, DRAIN_WORDS of a row's words at a
 * time, into t (batch_bytes), each batch without
 * what full holds unless `walk` cleared those, and hands each batch to
 * put. */
static int write_rows(const tuple_box *x, full_walk *f, int walk,
                      uint64_t *t,
                      int (*put)(void *arg, const uint64_t *t, size_t n),
                      void *arg)
{
    unsigned a = x->arity, k = a - 1;
    uint64_t key[RAVEL_MAX_ARITY];
    memcpy(key, x->min, a * sizeof *key);
    int err = MPI_SUCCESS;
    for (size_t r = 0; r < x->rows && err == MPI_SUCCESS;
         r++, next_row(key, x->min, x->max, k)) {
        if (!x->slot[r])
            continue;
        const uint64_t *row = x->bits + (size_t)(x->slot[r] - 1) *
                                            x->row_words;
        for (size_t w0 = 0; w0 < x->row_words && err == MPI_SUCCESS;
             w0 += DRAIN_WORDS) {
            size_t nw = x->row_words - w0 < DRAIN_WORDS ? x->row_words - w0
                                                        : DRAIN_WORDS;
            size_t m = write_bits(t, 0, a, key, x->min[k] + 64 * w0,
                                  row + w0, nw);
            if (!walk)
                m = drop_held(t, 0, m, f);
            err = put(arg, t, m);
        }
    }
    return err;
}

/* write_rows through a batch buffer of its own, counted while held. */
static int write_out(const tuple_box *x, full_walk *f, int walk,
                     int (*put)(void *arg, const uint64_t *t, size_t n),
                     void *arg)
{
    size_t bytes = batch_bytes(x);
    uint64_t *t = malloc(bytes);
    if (!t)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for %zu "
                               "bytes of tuples", bytes);
    budget_note(0, bytes);
    int err = write_rows(x, f, walk, t, put, arg);
    budget_note(bytes, 0);
    free(t);
    return err;
}

int tuple_box_each(const tuple_box *x,
                   int (*put)(void *arg, const uint64_t *t, size_t n),
                   void *arg)
{
    if (!x->slot)
        return MPI_SUCCESS;
    full_walk none = {.arity = x->arity}; /* walked: nothing dropped */
    return write_out(x, &none, 1, put, arg);
}

typedef struct {
    tuple_buf *out;
    unsigned arity;
} flat_out;

static int put_flat(void *arg, const uint64_t *t, size_t n)
{
    flat_out *o = arg;
    return tuple_buf_append(o->out, o->arity, t, n);
}

/* The box's tuples not held by full (flat runs and packed), in order, to
 * put; frees the box. */
static int drain(tuple_box *x, const full_set *full,
                 int (*put)(void *arg, const uint64_t *t, size_t n),
                 void *arg)
{
    full_walk f = walk_start(full, x->arity);
    int walk = clear_held_if_few(x, &f);
    int err = write_out(x, &f, walk, put, arg);
    tuple_box_free(x);
    return err;
}

int tuple_box_drain_in(tuple_box *x, const full_set *full, tuple_buf *out)
{
    int err = tuple_buf_reserve(out, x->arity, tuple_box_count(x));
    flat_out o = {out, x->arity};
    if (err != MPI_SUCCESS) {
        tuple_box_free(x);
        return err;
    }
    return drain(x, full, put_flat, &o);
}

int tuple_box_drain(tuple_box *x, const tuple_run *flat, unsigned nflat,
                    const packed_tuples *packed, tuple_buf *out)
{
    full_set full = full_of(flat, nflat, packed);
    return tuple_box_drain_in(x, &full, out);
}

int tuple_box_drain_packed_in(tuple_box *x, const full_set *full,
                              packed_tuples *out)
{
    packed_writer w;
    packed_writer_init(&w, out, x->arity);
    int err = drain(x, full, packed_append_tuples, &w);
    if (err == MPI_SUCCESS)
        packed_writer_finish(&w);
    else
        packed_free(out);
    return err;
}

int tuple_box_drain_packed(tuple_box *x, const tuple_run *flat,
                           unsigned nflat, const packed_tuples *packed,
                           packed_tuples *out)
{
    full_set full = full_of(flat, nflat, packed);
    return tuple_box_drain_packed_in(x, &full, out);
}

void tuple_box_free(tuple_box *x)
{
    if (x->slot)
        budget_note(box_bytes(x), 0);
    free(x->slot);
    free(x->bits);
    memset(x, 0, sizeof *x);
}

size_t tuples_drop_held_in(uint64_t *t, size_t n, unsigned arity,
                           const full_set *full)
{
    full_walk f = walk_start(full, arity);
    return drop_held(t, 0, n, &f);
}

size_t tuples_drop_held(uint64_t *t, size_t n, unsigned arity,
                        const tuple_run *flat, unsigned nflat,
                        const packed_tuples *packed)
{
    full_set full = full_of(flat, nflat, packed);
    return tuples_drop_held_in(t, n, arity, &full);
}

size_t tuples_reduce(uint64_t *t, size_t n, unsigned arity,
                     const tuple_run *flat, unsigned nflat,
                     const packed_tuples *packed)
{
    full_set full = full_of(flat, nflat, packed);
    return tuples_reduce_in(t, n, arity, &full);
}

size_t tuples_reduce_in(uint64_t *t, size_t n, unsigned arity,
                        const full_set *full)
{
    if (n == 0)
        return 0;
    unsigned k = arity - 1;
    full_walk f = walk_start(full, arity);
    uint64_t min[RAVEL_MAX_ARITY], max[RAVEL_MAX_ARITY];
    size_t row_words, words;
    if (fits_one_bitmap(t, n, arity, min, max, &row_words, &words)) {
        size_t w = reduce_in_one_bitmap(t, n, arity, min, max, row_words,
                                        words, &f);
        if (w != SIZE_MAX)
            return w;
    }
    tuples_sort_prefix(t, n, arity, k);
    /* A dense group has at least as many tuples as its bitmap has words. */
    size_t cap = n < BITMAP_MAX_WORDS ? n : BITMAP_MAX_WORDS;
    uint64_t *bits = NULL;
    int no_bits = 0; /* the bitmap could not be had: sort every group */
    size_t w = 0;
    for (size_t lo = 0; lo < n;) {
        const uint64_t *first = t + lo * arity;
        uint64_t min = first[k], max = first[k];
        size_t hi = lo + 1;
        for (; hi < n && tuples_compare(t + hi * arity, first, k) == 0;
             hi++) {
            uint64_t v = t[hi * arity + k];
            min = v < min ? v : min;
            max = v > max ? v : max;
        }
        uint64_t words = (max - min) / 64 + 1;
        int dense = hi - lo >= DENSE_MIN_TUPLES && words <= hi - lo &&
                    words <= cap && !no_bits;
        if (dense && !bits && !(bits = malloc(cap * sizeof *bits)))
            dense = 0, no_bits = 1; /* slower, not wrong */
        w = dense ? reduce_dense(t, lo, hi, w, min, max, bits, &f)
                  : reduce_sparse(t, lo, hi, w, &f);
        lo = hi;
    }
    free(bits);
    return w;
}

size_t tuples_sort_unique(uint64_t *t, size_t n, unsigned arity)
{
    return tuples_reduce(t, n, arity, NULL, 0, NULL);
}
