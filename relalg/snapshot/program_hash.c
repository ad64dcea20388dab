/* The identity of a program, for snapshots: a hash of everything declared
 * (relations with their kind, arity, key, base and column order; strata;
 * rules with their bodies, versions, head terms and filters).  A snapshot
 * written by one program must not be resumed by another, and two programs
 * that differ in any rule would reach different fixed points from the same
 * tuples.  Placement settings (buckets, seed, balancing) are left out on
 * purpose: a resume re-places every tuple, so they may change.
 *
 * Each field goes in as a 64-bit word, never as struct bytes (padding would
 * make the hash depend on garbage). */
#include "../relalg_internal.h"

#include <string.h>
#include <xxhash.h>

static void put(XXH3_state_t *h, uint64_t word)
{
    XXH3_64bits_update(h, &word, sizeof word);
}

static void put_term(XXH3_state_t *h, ravel_term t)
{
    put(h, (uint64_t)(int64_t)t.side);
    put(h, t.side == RAVEL_SIDE_CONSTANT ? t.value : t.column);
}

uint64_t program_hash(const ravel_engine *e)
{
    XXH3_state_t *h = XXH3_createState();
    if (!h)
        return 0; /* never matches a snapshot's (see snapshot_resume) */
    XXH3_64bits_reset(h);
    put(h, e->nrels);
    for (size_t i = 0; i < e->nrels; i++) {
        const relation *r = &e->rels[i];
        size_t len = strlen(r->name);
        put(h, len);
        XXH3_64bits_update(h, r->name, len);
        put(h, (uint64_t)r->kind);
        put(h, r->arity);
        put(h, r->key);
        put(h, (uint64_t)(int64_t)r->base);
        put(h, (uint64_t)(int64_t)r->copy_of);
        for (unsigned c = 0; c < r->arity; c++)
            put(h, r->perm[c]);
    }
    put(h, e->nstrata);
    for (size_t s = 0; s < e->nstrata; s++) {
        const stratum *st = &e->strata[s];
        put(h, st->nrules);
        for (size_t i = 0; i < st->nrules; i++) {
            const rule *ru = &st->rules[i];
            /* An anti-join adds a word (nbody + 2); other rules hash as
             * before it existed, so their snapshots still resume. */
            put(h, (uint64_t)ru->nbody + (ru->negated ? 2u : 0u));
            for (int b = 0; b < ru->nbody; b++) {
                put(h, (uint64_t)ru->body[b].rel);
                put(h, (uint64_t)ru->body[b].version);
            }
            put(h, (uint64_t)ru->head);
            for (unsigned c = 0; c < e->rels[ru->head].arity; c++)
                put_term(h, ru->terms[c]);
            /* Expressions, when a rule has any (others hash as before
             * expressions existed). */
            for (size_t x = 0; x < ru->nexprs; x++) {
                put(h, 0xE0 + (uint64_t)ru->exprs[x].op);
                put_term(h, ru->exprs[x].left);
                put_term(h, ru->exprs[x].right);
            }
            /* Aggregates, likewise only when the rule is one. */
            if (ru->agg_stage) {
                put(h, 0xA0 + (uint64_t)ru->agg_stage);
                put(h, (uint64_t)ru->agg_op);
                put(h, ru->agg_groups);
                put_term(h, ru->agg_value);
                put(h, ru->agg_xor);
            }
            put(h, ru->nfilters);
            for (size_t f = 0; f < ru->nfilters; f++) {
                put_term(h, ru->filters[f].left);
                put(h, (uint64_t)ru->filters[f].op);
                put_term(h, ru->filters[f].right);
            }
        }
    }
    uint64_t digest = XXH3_64bits_digest(h);
    XXH3_freeState(h);
    return digest;
}
