/* A join that emits its head grouped by the head's first column, each
 * group sorted and without repeats.
 *
 * The merge join (rules_eval.c) walks both sides by their key y and emits
 * a head tuple for every pair.  TC's step, path(z, x) :- path(y, x),
 * edge(y, z), so emits (z, x) for every x into y and every z out of it:
 * in no order, and as many times as x reaches z through some y.  Sorting
 * those candidates to drop repeats, on the rank that sends them and on the
 * one that receives them, was 14% of fe_body's 2-rank profile, and the
 * repeats were most of what was placed, packed, sent and searched for.
 *
 * When the head's first column is the one non-key column v of a side that
 * no rule of the stratum writes (TC's edge), that side is indexed once by
 * v: for each v, the keys y it pairs with.  Then, each iteration, the
 * other side's group of every y is found in an array by y's ordinal, and
 * the head tuples of one v are made from the groups of its keys, sorted
 * and deduplicated while they are few and in cache, and emitted in order.
 * The outboxes then fill in order, which the sorts behind them notice
 * (tuple_sort.c).  Results are the merge join's: the same pairs meet. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <stdlib.h>
#include <string.h>

/* A group of head tuples is sorted and emitted once it holds this many,
 * even before its v ends: the order then breaks, never the result. */
#define GROUP_MAX_TUPLES ((size_t)1 << 12)

/* The static side by v (built once per stratum, while it stays). */
struct grouped_index {
    int source;           /* the static side's relation, as built */
    uint64_t moves;       /* its relation's moves then */
    uint64_t count;       /* its tuples then */
    unsigned k;           /* key columns */
    size_t nkeys;         /* distinct keys */
    uint64_t *keys;       /* [nkeys * k], sorted */
    uint64_t *fanout;     /* [nkeys]: its tuples with each key */
    size_t n;             /* its tuples */
    uint64_t *value;      /* [n] v, sorted by (v, key) */
    uint32_t *key_of;     /* [n] the ordinal of the key v pairs with */
    uint32_t *where;      /* [nkeys] 1 + the other side's group of each
                             key in group_map.at, 0: none; all 0
                             between joins */
    size_t bytes;         /* the above, counted as tuple memory */
};

/* The bytes of an index of n tuples with nkeys keys of k columns. */
static size_t index_bytes(size_t n, size_t nkeys, unsigned k)
{
    return n * (sizeof(uint64_t) + sizeof(uint32_t)) +
           nkeys * (k * sizeof(uint64_t) + sizeof(uint64_t) +
                    sizeof(uint32_t));
}

void join_grouped_free(grouped_index **g)
{
    if (!*g)
        return;
    budget_note((*g)->bytes, 0);
    free((*g)->keys);
    free((*g)->fanout);
    free((*g)->value);
    free((*g)->key_of);
    free((*g)->where);
    free(*g);
    *g = NULL;
}

/* Whether rule ru, a join, has a side that can lead: the head's first
 * column is its one non-key column, and no rule of the stratum writes it.
 * *lead: that side. */
static int lead_side(const ravel_engine *e, const rule *ru, int *lead)
{
    if (ru->nbody != 2 || ru->negated || ru->agg_stage || ru->nexprs ||
        ru->nfilters)
        return 0;
    const ravel_term *t = &ru->terms[0];
    if (t->side != 0 && t->side != 1)
        return 0;
    const relation *s = &e->rels[ru->source[t->side]];
    unsigned k = e->rels[ru->source[0]].key;
    if (s->arity != k + 1 || t->column != k ||
        ru->body[t->side].version != RAVEL_FULL || s->written ||
        e->rels[ru->body[t->side].rel].written)
        return 0;
    *lead = t->side;
    return 1;
}

/* Every tuple of version v of r into t (room for all), run after run. */
static size_t copy_all(const relation *r, ravel_version v, uint64_t *t)
{
    tuple_run runs[FULL_RUNS_MAX];
    unsigned nruns = storage_runs(r, v, runs), a = r->arity;
    size_t n = 0;
    for (unsigned i = 0; i < nruns; i++)
        if (runs[i].n) { /* an empty run's t may be NULL */
            memcpy(t + n * a, runs[i].t, runs[i].n * a * sizeof *t);
            n += runs[i].n;
        }
    const packed_tuples *p = storage_packed_part(r, v);
    if (p) {
        packed_cursor c;
        for (packed_cursor_seek(&c, p, a, 0); !c.at_end;
             packed_cursor_next(&c))
            memcpy(t + n++ * a, c.cur, a * sizeof *t);
    }
    return n;
}

/* The index of relation `src` (arity k + 1) by its last column; NULL when
 * memory is short (the merge join then serves). */
static grouped_index *build_index(const ravel_engine *e, int src, unsigned k)
{
    const relation *r = &e->rels[src];
    unsigned a = r->arity;
    size_t n = (size_t)storage_full_count(r);
    /* Counted as tuple memory, and only an optimisation: over the limit
     * (at most as many keys as tuples), the merge join serves. */
    uint64_t cap = budget_limit();
    if (cap && budget_held() + index_bytes(n, n, k) > cap)
        return NULL;
    grouped_index *g = calloc(1, sizeof *g);
    uint64_t *t = malloc((n ? n : 1) * a * sizeof *t);
    uint64_t *pairs = malloc((n ? n : 1) * 2 * sizeof *pairs);
    if (!g || !t || !pairs)
        goto fail;
    g->source = src;
    g->moves = r->moves;
    g->count = n;
    g->k = k;
    g->n = copy_all(r, RAVEL_FULL, t);
    n = g->n;
    tuples_sort_prefix(t, n, a, a); /* runs are disjoint: no repeats */
    /* Distinct keys, and each tuple as (v, key ordinal). */
    size_t nkeys = 0;
    for (size_t i = 0; i < n; i++)
        nkeys += i == 0 || tuples_compare(t + (i - 1) * a, t + i * a, k);
    g->keys = malloc((nkeys ? nkeys : 1) * k * sizeof *g->keys);
    g->fanout = calloc(nkeys ? nkeys : 1, sizeof *g->fanout);
    g->value = malloc((n ? n : 1) * sizeof *g->value);
    g->key_of = malloc((n ? n : 1) * sizeof *g->key_of);
    g->where = calloc(nkeys ? nkeys : 1, sizeof *g->where);
    if (!g->keys || !g->fanout || !g->value || !g->key_of || !g->where ||
        nkeys > UINT32_MAX)
        goto fail;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || tuples_compare(t + (i - 1) * a, t + i * a, k))
            memcpy(g->keys + o++ * k, t + i * a, k * sizeof *t);
        g->fanout[o - 1]++;
        pairs[2 * i] = t[i * a + k];
        pairs[2 * i + 1] = o - 1;
    }
    g->nkeys = nkeys;
    g->bytes = index_bytes(n, nkeys, k);
    budget_note(0, g->bytes);
    tuples_sort_prefix(pairs, n, 2, 2);
    for (size_t i = 0; i < n; i++) {
        g->value[i] = pairs[2 * i];
        g->key_of[i] = (uint32_t)pairs[2 * i + 1];
    }
    free(t);
    free(pairs);
    return g;
fail:
    free(t);
    free(pairs);
    join_grouped_free(&g);
    return NULL;
}

/* Where the other side's groups whose keys the index holds lie: each
 * one's first tuple (flat: its index; packed: a cursor's state on it), its
 * count and its key's ordinal, one slot each, in key order; the index's
 * `where` finds a key's slot. */
typedef struct {
    int packed;
    const uint64_t *flat;         /* flat: the run */
    const packed_tuples *p;       /* packed: the set */
    unsigned arity, stride;       /* stride: words of a slot */
    uint64_t *at;                 /* [n * stride]: count, index, pos, the
                                     last tuple's column k, its key's
                                     ordinal, then (packed) the first
                                     tuple */
    size_t n;
} group_map;

/* The fields of a slot of group_map.at. */
enum { AT_COUNT, AT_INDEX, AT_POS, AT_LAST, AT_KEY, AT_FIRST };

/* Opens a reader of the other side's one run; 0 when it has several (its
 * full: flat runs and a packed part), which the merge join reads. */
static int one_run(const relation *r, ravel_version v, tuple_reader *rd)
{
    tuple_run runs[FULL_RUNS_MAX];
    unsigned nruns = storage_runs(r, v, runs), used = 0;
    const packed_tuples *p = storage_packed_part(r, v);
    for (unsigned i = 0; i < nruns; i++)
        if (runs[i].n) {
            used++;
            tuple_reader_flat(rd, runs[i], r->arity);
        }
    if (p && p->n) {
        used++;
        tuple_reader_packed(rd, p, r->arity);
    }
    if (used == 0)
        tuple_reader_flat(rd, (tuple_run){NULL, 0}, r->arity);
    return used <= 1;
}

/* Fills m with the groups of reader rd whose keys the index holds, and
 * counts the head tuples they make before repeats (*pairs).  A key is
 * found by galloping from the last one: a small delta costs its own
 * groups, not a walk of every key. */
static int map_groups(const grouped_index *g, tuple_reader *rd,
                      group_map *m, uint64_t *pairs)
{
    unsigned a = rd->arity, k = g->k;
    memset(m, 0, sizeof *m);
    m->packed = rd->c.p != NULL;
    m->flat = rd->t;
    m->p = rd->c.p;
    m->arity = a;
    m->stride = AT_FIRST + (m->packed ? a : 0);
    size_t cap = 0;
    *pairs = 0;
    size_t o = 0;
    while (!tuple_reader_done(rd)) {
        const uint64_t *cur = tuple_reader_cur(rd);
        o = tuples_lower_bound(g->keys, o, g->nkeys, k, cur, k);
        if (o == g->nkeys)
            break;
        if (tuples_compare(g->keys + o * k, cur, k) != 0) {
            tuple_reader_seek(rd, g->keys + o * k, k); /* a key it lacks */
            continue;
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 256;
            uint64_t *more = realloc(m->at, cap * m->stride * sizeof *more);
            if (!more) {
                free(m->at);
                return 0;
            }
            m->at = more;
        }
        uint64_t *slot = m->at + m->n++ * m->stride;
        slot[AT_INDEX] = m->packed ? rd->c.index : rd->i;
        slot[AT_POS] = (uint64_t)(uintptr_t)rd->c.pos;
        slot[AT_KEY] = o;
        if (m->packed)
            memcpy(slot + AT_FIRST, cur, a * sizeof *cur);
        uint64_t n = 0, last = 0;
        if (!m->packed) {
            size_t end = tuples_group_end(rd->t, rd->i, rd->n, a, k);
            n = end - rd->i;
            last = a > k ? rd->t[(end - 1) * a + k] : 0;
            rd->i = end;
        } else {
            uint64_t key[RAVEL_MAX_ARITY];
            memcpy(key, cur, k * sizeof *key);
            do {
                n++;
                last = a > k ? rd->c.cur[k] : 0;
            } while (packed_cursor_next(&rd->c) &&
                     tuples_compare(rd->c.cur, key, k) == 0);
        }
        slot[AT_COUNT] = n;
        slot[AT_LAST] = last;
        *pairs += n * g->fanout[o];
    }
    return 1;
}

/* The head tuple of other-side tuple x with lead-side value v: terms of
 * the lead side read its key (x's) or v. */
static inline void head_of(const rule *ru, int lead, unsigned k,
                           unsigned ha, const uint64_t *x, uint64_t v,
                           uint64_t *out)
{
    for (unsigned h = 0; h < ha; h++) {
        const ravel_term *t = &ru->terms[h];
        out[h] = t->side == RAVEL_SIDE_CONSTANT ? t->value
                 : t->side != lead               ? x[t->column]
                 : t->column < k                 ? x[t->column]
                                                 : v;
    }
}

/* Sorts head tuples t[0..n) and drops repeats; returns how many are left. */
static size_t sort_unique_heads(uint64_t *t, size_t n, unsigned ha)
{
    size_t w = 0;
    tuples_sort_prefix(t, n, ha, ha);
    for (size_t i = 0; i < n; i++)
        if (w == 0 || tuples_compare(t + (w - 1) * ha, t + i * ha, ha)) {
            for (unsigned c = 0; c < ha && w != i; c++)
                t[w * ha + c] = t[i * ha + c];
            w++;
        }
    return w;
}

/* Sorts the group's head tuples, drops repeats and emits them. */
static int flush_group(ravel_engine *e, const rule *ru, tuple_buf *grp,
                       unsigned ha)
{
    size_t w = sort_unique_heads(grp->data, grp->n, ha);
    grp->n = 0;
    return emit_run(e, ru->head, grp->data, w);
}

/* Runs body with x on each tuple of the group in slot, in order. */
#define EACH_IN_SLOT(m, slot, x, body)                                       \
    do {                                                                     \
        uint64_t n_ = (slot)[AT_COUNT];                                      \
        if (!(m)->packed) {                                                  \
            const uint64_t *base_ = (m)->flat + (slot)[AT_INDEX] * (m)->arity; \
            for (uint64_t j_ = 0; j_ < n_; j_++) {                           \
                const uint64_t *x = base_ + j_ * (m)->arity;                 \
                body;                                                        \
            }                                                                \
        } else {                                                             \
            packed_cursor c_ = {.p = (m)->p, .arity = (m)->arity,            \
                                .index = (size_t)(slot)[AT_INDEX],           \
                                .pos = (const unsigned char *)(uintptr_t)    \
                                    (slot)[AT_POS]};                         \
            memcpy(c_.cur, (slot) + AT_FIRST, (m)->arity * sizeof *c_.cur);  \
            for (uint64_t j_ = 0; j_ < n_; j_++) {                           \
                if (j_)                                                      \
                    packed_cursor_next(&c_);                                 \
                const uint64_t *x = c_.cur;                                  \
                body;                                                        \
            }                                                                \
        }                                                                    \
    } while (0)

/* Whether the head is (v, then the other side's columns after the key, in
 * order): then each group of the other side makes its head tuples in
 * order and without repeats, and a v's are a union of sorted lists. */
static int head_is_suffix(const rule *ru, int lead, unsigned ha, unsigned k,
                          unsigned other_arity)
{
    if (ha != 1 + other_arity - k)
        return 0;
    for (unsigned h = 1; h < ha; h++)
        if (ru->terms[h].side != 1 - lead ||
            ru->terms[h].column != k + h - 1)
            return 0;
    return 1;
}

/* The largest bitmap of one v's values, in words (256 KiB). */
#define GROUP_BITMAP_WORDS ((size_t)1 << 15)

typedef struct {
    ravel_engine *e;
    const rule *ru;
    int lead;
    unsigned k, ha;
    const group_map *m;
    int suffix;                   /* head_is_suffix */
    tuple_buf grp;                /* a v's head tuples, to sort */
    const uint64_t **slots;       /* a v's groups of the other side */
    size_t nslots, capslots;
    uint64_t *bits;               /* [GROUP_BITMAP_WORDS]; NULL until used */
} puller;

/* Adds head tuple out to the v's tuples in order (q->grp), which are
 * emitted together each GROUP_MAX_TUPLES and at the v's end
 * (emit_staged). */
static int stage(puller *q, const uint64_t *out)
{
    int err = tuple_buf_push(&q->grp, q->ha, out);
    if (err == MPI_SUCCESS && q->grp.n >= GROUP_MAX_TUPLES) {
        err = emit_run(q->e, q->ru->head, q->grp.data, q->grp.n);
        q->grp.n = 0;
    }
    return err;
}

static int emit_staged(puller *q)
{
    int err = emit_run(q->e, q->ru->head, q->grp.data, q->grp.n);
    q->grp.n = 0;
    return err;
}

/* Where a v's n head tuples (at most) may be made: straight in the
 * outbox buffer they go to (emit_room), kept by adding to (*into)->n;
 * NULL when they must be staged and emitted (emit_run).  Staged, each
 * was copied once more, into the outbox: 4.3% of cti's TC at 2 ranks
 * (perf --call-graph dwarf); made in place, cti's join took a quarter
 * fewer instructions and the run 0.92 of its time, fe_sphere's and
 * fe_body's 0.95 (relalg/README.md, "Head tuples made in the outbox"). */
static uint64_t *heads_room(puller *q, uint64_t v, size_t n,
                            tuple_buf **into)
{
    return emit_room(q->e, q->ru->head, &v, n, into);
}

/* Emits (v, x's columns after the key) for each tuple x of one group. */
static int emit_slot(puller *q, const uint64_t *slot, uint64_t v)
{
    unsigned k = q->k, ha = q->ha;
    tuple_buf *into;
    uint64_t *room = heads_room(q, v, slot[AT_COUNT], &into);
    if (room) {
        uint64_t *out = room;
        EACH_IN_SLOT(q->m, slot, x, {
            out[0] = v;
            for (unsigned h = 1; h < ha; h++)
                out[h] = x[k + h - 1];
            out += ha;
        });
        into->n += slot[AT_COUNT];
        return MPI_SUCCESS;
    }
    uint64_t out[RAVEL_MAX_ARITY];
    out[0] = v;
    int err = MPI_SUCCESS;
    EACH_IN_SLOT(q->m, slot, x, {
        for (unsigned h = 1; h < ha; h++) /* a call per tuple: 4% of wing */
            out[h] = x[k + h - 1];
        if (err == MPI_SUCCESS)
            err = stage(q, out);
    });
    return err == MPI_SUCCESS ? emit_staged(q) : err;
}

/* One v's groups, each of one value after the key, n values in all
 * (repeats counted), as bits from lo: emitted in order, each once.  The
 * head is (v, value): two columns. */
static int emit_bits(puller *q, uint64_t v, uint64_t lo, size_t words,
                     size_t n)
{
    unsigned k = q->k;
    uint64_t *bits = q->bits;
    memset(bits, 0, words * sizeof *bits);
    for (size_t s = 0; s < q->nslots; s++)
        EACH_IN_SLOT(q->m, q->slots[s], x, {
            uint64_t b = x[k] - lo;
            bits[b / 64] |= (uint64_t)1 << (b % 64);
        });
    tuple_buf *into;
    uint64_t *room = heads_room(q, v, n, &into);
    if (room) {
        size_t made = 0;
        for (size_t w = 0; w < words; w++)
            for (uint64_t b = bits[w]; b; b &= b - 1) {
                room[2 * made] = v;
                room[2 * made + 1] =
                    lo + 64 * w + (uint64_t)__builtin_ctzll(b);
                made++;
            }
        into->n += made;
        return MPI_SUCCESS;
    }
    uint64_t out[2] = {v, 0};
    for (size_t w = 0; w < words; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1) {
            out[1] = lo + 64 * w + (uint64_t)__builtin_ctzll(b);
            int err = stage(q, out);
            if (err != MPI_SUCCESS)
                return err;
        }
    return emit_staged(q);
}

/* The head tuples of one v, from the groups q->slots: one group's as they
 * come, a dense union of one-value groups through bits, else sorted. */
static int emit_v(puller *q, uint64_t v)
{
    if (q->nslots == 0)
        return MPI_SUCCESS;
    if (q->suffix && q->nslots == 1)
        return emit_slot(q, q->slots[0], v);
    int err = MPI_SUCCESS;
    size_t n = 0; /* the groups' tuples, repeats counted */
    for (size_t s = 0; s < q->nslots; s++)
        n += q->slots[s][AT_COUNT];
    if (q->suffix && q->ha == 2) {
        uint64_t lo = UINT64_MAX, hi = 0;
        unsigned k = q->k;
        for (size_t s = 0; s < q->nslots; s++) {
            const uint64_t *slot = q->slots[s];
            uint64_t first = q->m->packed
                                 ? slot[AT_FIRST + k]
                                 : q->m->flat[slot[AT_INDEX] * q->m->arity + k];
            lo = first < lo ? first : lo;
            hi = slot[AT_LAST] > hi ? slot[AT_LAST] : hi;
        }
        uint64_t words = (hi - lo) / 64 + 1;
        if (words <= n && words <= GROUP_BITMAP_WORDS &&
            (q->bits || (q->bits = malloc(GROUP_BITMAP_WORDS *
                                          sizeof *q->bits))))
            return emit_bits(q, v, lo, (size_t)words, n);
    }
    tuple_buf *into;
    /* Sorted where they are made, a group at most: kept in cache. */
    uint64_t *room =
        n <= GROUP_MAX_TUPLES ? heads_room(q, v, n, &into) : NULL;
    if (room) {
        uint64_t *out = room;
        for (size_t s = 0; s < q->nslots; s++)
            EACH_IN_SLOT(q->m, q->slots[s], x, {
                head_of(q->ru, q->lead, q->k, q->ha, x, v, out);
                out += q->ha;
            });
        into->n += sort_unique_heads(room, n, q->ha);
        return MPI_SUCCESS;
    }
    uint64_t out[RAVEL_MAX_ARITY];
    for (size_t s = 0; s < q->nslots && err == MPI_SUCCESS; s++)
        EACH_IN_SLOT(q->m, q->slots[s], x, {
            head_of(q->ru, q->lead, q->k, q->ha, x, v, out);
            if (err == MPI_SUCCESS)
                err = tuple_buf_push(&q->grp, q->ha, out);
            if (err == MPI_SUCCESS && q->grp.n >= GROUP_MAX_TUPLES)
                err = flush_group(q->e, q->ru, &q->grp, q->ha);
        });
    return err == MPI_SUCCESS ? flush_group(q->e, q->ru, &q->grp, q->ha)
                              : err;
}

/* The join, v by v of the index. */
static int pull(ravel_engine *e, const rule *ru, int lead,
                const grouped_index *g, const group_map *m)
{
    unsigned ha = e->rels[ru->head].arity, k = g->k;
    puller q = {.e = e, .ru = ru, .lead = lead, .k = k, .ha = ha, .m = m,
                .suffix = head_is_suffix(ru, lead, ha, k, m->arity)};
    int err = MPI_SUCCESS;
    for (size_t i = 0; i < g->n && err == MPI_SUCCESS;) {
        uint64_t v = g->value[i];
        q.nslots = 0;
        for (; i < g->n && g->value[i] == v; i++) {
            uint32_t at = g->where[g->key_of[i]];
            if (!at)
                continue;
            const uint64_t *slot = m->at + (at - 1) * (size_t)m->stride;
            if (q.nslots == q.capslots) {
                size_t cap = q.capslots ? 2 * q.capslots : 64;
                const uint64_t **more = realloc(q.slots, cap * sizeof *more);
                if (!more) {
                    err = ravel_error_set(MPI_ERR_NO_MEM, "out of memory "
                                          "for %zu groups of a join", cap);
                    break;
                }
                q.slots = more;
                q.capslots = cap;
            }
            q.slots[q.nslots++] = slot;
        }
        if (err == MPI_SUCCESS)
            err = emit_v(&q, v);
    }
    tuple_buf_free(&q.grp);
    free(q.slots);
    free(q.bits);
    return err;
}

int join_grouped(ravel_engine *e, rule *ru, int *done)
{
    *done = 0;
    int lead;
    if (!lead_side(e, ru, &lead))
        return MPI_SUCCESS;
    int src = ru->source[lead];
    unsigned k = e->rels[ru->source[0]].key;
    grouped_index *g = ru->grouped;
    if (g && (g->source != src || g->moves != e->rels[src].moves ||
              g->count != storage_full_count(&e->rels[src])))
        join_grouped_free(&ru->grouped);
    if (!ru->grouped && !(ru->grouped = build_index(e, src, k)))
        return MPI_SUCCESS;
    g = ru->grouped;
    const relation *other = &e->rels[ru->source[1 - lead]];
    tuple_reader rd;
    if (!one_run(other, ru->body[1 - lead].version, &rd))
        return MPI_SUCCESS;
    /* Walking every v of the index for a few head tuples costs more than
     * the merge join's walk of the few groups that meet (luxembourg_osm's
     * iterations of a few thousand new paths a rank).  A side with fewer
     * tuples than a quarter of the index's keys makes, at the keys' mean
     * fan-out, fewer head tuples than a quarter of the index's tuples: it
     * is not even mapped (mapping every delta took 6.5% of that
     * closure's profile). */
    uint64_t count = rd.c.p ? rd.c.p->n : rd.n;
    if (count < g->nkeys / 4)
        return MPI_SUCCESS;
    group_map m;
    uint64_t pairs;
    if (!map_groups(g, &rd, &m, &pairs))
        return MPI_SUCCESS;
    tuple_reader_free(&rd);
    /* The same, counted: the head tuples the groups make. */
    int err = MPI_SUCCESS;
    if (pairs >= g->n / 4 && m.n < UINT32_MAX) {
        for (size_t i = 0; i < m.n; i++)
            g->where[m.at[i * m.stride + AT_KEY]] = (uint32_t)(i + 1);
        err = pull(e, ru, lead, g, &m);
        e->grouped_joins++;
        for (size_t i = 0; i < m.n; i++)
            g->where[m.at[i * m.stride + AT_KEY]] = 0;
        *done = 1;
    }
    free(m.at);
    return err;
}
