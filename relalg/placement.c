/* Where a tuple lives: bucket from its key, sub-bucket from the rest, rank
 * from both.
 *
 * bucket = ravel_hash_columns(key, k, seed) % buckets, sub-bucket j =
 * ravel_hash_columns(other columns, arity - k, seed') % subs[bucket] (0 when
 * the bucket is whole), rank = (bucket + j) % P.  Sub-bucket 0 of a bucket
 * is on the same rank for every relation, so unsplit relations with the same
 * key are co-located and join without replicas.  The hash is the same on
 * every platform (ravel/hash.h), so every rank agrees. */
#include "relalg_internal.h"

#include "ravel/error.h"
#include "ravel/hash.h"

#include <stdlib.h>

uint64_t placement_bucket(const ravel_engine *e, const relation *r,
                          const uint64_t *t)
{
    if (r->key != 1 || !e->bucket_memo)
        return ravel_hash_columns(t, r->key, e->opt.seed) % e->buckets;
    /* Fibonacci hashing picks the entry: one multiplication. */
    bucket_memo *m = &e->bucket_memo[(t[0] * 0x9e3779b97f4a7c15ull) >>
                                     (64 - BUCKET_MEMO_BITS)];
    if (m->bucket_plus_1 && m->key == t[0])
        return m->bucket_plus_1 - 1;
    uint64_t b = ravel_hash_columns(t, 1, e->opt.seed) % e->buckets;
    m->key = t[0];
    m->bucket_plus_1 = b + 1;
    return b;
}

int placement_rank(const ravel_engine *e, const relation *r,
                   const uint64_t *t)
{
    uint64_t b = placement_bucket(e, r, t);
    uint64_t j = 0;
    uint32_t s = r->subs[b];
    if (s > 1) {
        /* A relation whose columns are all key has nothing to split on but
         * the key; it hashes the key again with the other seed. */
        if (r->arity > r->key)
            j = ravel_hash_columns(t + r->key, r->arity - r->key,
                                   e->seed_sub) % s;
        else
            j = ravel_hash_columns(t, r->key, e->seed_sub) % s;
    }
    return (int)((b + j) % (uint64_t)e->size);
}

int placement_alloc_layout(ravel_engine *e, relation *r)
{
    r->subs = malloc(e->buckets * sizeof *r->subs);
    r->bucket_count = calloc(e->buckets, sizeof *r->bucket_count);
    size_t room = (e->nrels + 1) * e->buckets *
                  (2 * sizeof(uint64_t) + sizeof(uint32_t));
    void *scratch = realloc(e->balance_scratch, room);
    if (scratch)
        e->balance_scratch = scratch;
    if (!r->subs || !r->bucket_count || !scratch)
        return ravel_error_set(MPI_ERR_NO_MEM,
                               "out of memory for %llu buckets of %s",
                               (unsigned long long)e->buckets, r->name);
    uint32_t s = e->opt.sub_buckets;
    if (s < 1)
        s = 1;
    if (s > (uint32_t)e->size)
        s = (uint32_t)e->size;
    for (uint64_t b = 0; b < e->buckets; b++)
        r->subs[b] = s;
    r->split = s > 1;
    return MPI_SUCCESS;
}

int ravel_relation_owner(const ravel_engine *e, ravel_rel r,
                         const uint64_t *tuple)
{
    return placement_rank(e, &e->rels[r], tuple);
}

uint32_t ravel_relation_sub_buckets(const ravel_engine *e, ravel_rel r,
                                    uint64_t bucket)
{
    return e->rels[r].subs[bucket % e->buckets];
}

uint64_t ravel_engine_buckets(const ravel_engine *e)
{
    return e->buckets;
}
