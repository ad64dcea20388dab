/* A relation's versions on one rank: promoting an iteration's candidates to
 * delta and full, installing moved tuples, and per-bucket counts.
 *
 * full and delta are sorted duplicate-free arrays.  Candidates are sorted
 * and deduplicated in bulk and stripped of what full already holds, in one
 * call (tuple_reduce.c); what is left becomes the new delta and is merged
 * into full from the back, so full is never copied.  A full that no rule
 * reads (in TC, path: the join reads its delta) is packed to a few bytes
 * per tuple (see packed.c) as it grows; anything else that must read it
 * unpacks it. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/hash.h"

#include <string.h>

const uint64_t *storage_version(const relation *r, ravel_version v, size_t *n)
{
    if (v == RAVEL_FULL || r->delta_is_full) {
        *n = r->full.n;
        return r->full.data;
    }
    *n = r->delta.n;
    return r->delta.data;
}

void storage_count_buckets(const ravel_engine *e, relation *r,
                           const uint64_t *t, size_t n, int sign)
{
    if (!e->opt.load_balance || e->size == 1 || r->kind == REL_REPLICA)
        return;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = placement_bucket(e, r, t + i * r->arity);
        r->bucket_count[b] += (uint64_t)(int64_t)sign;
    }
}

uint64_t storage_full_count(const relation *r)
{
    return (uint64_t)r->packed.n + r->full.n;
}

size_t storage_reduce(const relation *r, uint64_t *t, size_t n)
{
    return tuples_reduce(t, n, r->arity, r->full.data, r->full.n,
                         &r->packed);
}

static int unpack(relation *r)
{
    if (r->packed.n == 0)
        return MPI_SUCCESS;
    tuple_buf flat;
    int err = packed_unpack(&r->packed, r->arity, &flat, r->full.n);
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

/* Packs full's flat part together with the packed one, when no rule reads
 * full and the flat part has grown to pack_min_tuples and to 1/PACK_RATIO of
 * the packed part.  The ratio makes repacking geometric: the packed part
 * grows by 1/8 between repacks, so all repacks together encode about 9
 * times the final size, while the flat part, at 16 bytes per 2-column tuple
 * against 2 to 4 packed, stays a small share. */
#define PACK_RATIO 8
static int maybe_pack(const ravel_engine *e, relation *r)
{
    uint64_t min = e->opt.pack_min_tuples;
    if (!r->pack_ok || r->delta_is_full || min == 0 || r->full.n < min ||
        r->full.n < r->packed.n / PACK_RATIO)
        return MPI_SUCCESS;
    /* While it is packed a relation is held twice, flat and packed (half
     * the flat bytes, or less).  That is the price of keeping a growing
     * relation small; a relation no rule of this stratum writes, finished
     * earlier, is packed only when the moment fits under the run's peak
     * so far: packing kcfa_k1.dl's AEval in the one-rule stratum after
     * its recursion made the run's peak 118 MB against the 85 MB it held
     * flat. */
    if (!r->written && budget_held() + r->full.bytes / 2 > budget_peak())
        return MPI_SUCCESS;
    packed_tuples merged;
    int err = packed_merge(&merged, &r->packed, r->full.data, r->full.n,
                           r->arity);
    if (err != MPI_SUCCESS)
        return err;
    packed_free(&r->packed);
    r->packed = merged;
    tuple_buf_free(&r->full);
    return MPI_SUCCESS;
}

/* Sorts and deduplicates b, and drops what full holds. */
static void reduce_to_new(relation *r, tuple_buf *b)
{
    b->n = storage_reduce(r, b->data, b->n);
    tuple_buf_shrink(b, r->arity);
}

static int promote(ravel_engine *e, relation *r, uint64_t *new_tuples)
{
    reduce_to_new(r, &r->incoming);
    tuple_buf_free(&r->delta);
    r->delta = r->incoming;
    memset(&r->incoming, 0, sizeof r->incoming);
    r->delta_is_full = 0;
    int err = tuples_merge_into(&r->full, r->arity, r->delta.data,
                                r->delta.n);
    if (err == MPI_SUCCESS)
        err = maybe_pack(e, r);
    if (err != MPI_SUCCESS)
        return err;
    storage_count_buckets(e, r, r->delta.data, r->delta.n, 1);
    *new_tuples = r->delta.n;
    return MPI_SUCCESS;
}

static int install(ravel_engine *e, relation *r, int to_delta)
{
    tuple_buf *b = to_delta ? &r->incoming_delta : &r->incoming;
    /* Moves are rare: they merge into a flat full. */
    int err = storage_unpack(r);
    if (err != MPI_SUCCESS)
        return err;
    reduce_to_new(r, b);
    if (to_delta && !r->delta_is_full) {
        /* Moved delta tuples were in delta where they came from. */
        err = tuples_merge_into(&r->delta, r->arity, b->data, b->n);
    }
    if (err == MPI_SUCCESS)
        err = tuples_merge_into(&r->full, r->arity, b->data, b->n);
    if (err == MPI_SUCCESS)
        storage_count_buckets(e, r, b->data, b->n, 1);
    tuple_buf_free(b);
    return err;
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
    return relation_error(r, unpack(r));
}
