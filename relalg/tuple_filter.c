/* A filter of full's flat and packed parts: a set of bits that says of a
 * tuple that full surely does not hold it, or may.
 *
 * The reduction searches full for each candidate that survives its dedup
 * (tuple_reduce.c, full_has), and when most candidates are new every part
 * is searched in vain: on cal.cedge's TC at 1 rank, 95% of the 524,000
 * searched candidates were new, and the searches of the flat runs were a
 * fifth of the instructions (callgrind), each galloping over some hundred
 * tuples of the largest run; on luxembourg_osm's at 2 ranks, 300 of 1.44
 * million searches of the packed part found the tuple, each decoding some
 * 64 tuples of a block.  A negative answer here costs a hash and one word
 * read.
 *
 * Blocked Bloom filter: a tuple's hash picks one 64-bit word and three
 * bits in it (one cache line per test), FILTER_BITS_PER_TUPLE bits a
 * tuple, so a word holds the bits of some eight tuples: "may hold" for a
 * few percent of the tuples it lacks (2% at 10.6 bits a tuple in
 * tests/relalg's TupleFilter test; about 5% at its full load).  It
 * only ever gains tuples; storage.c rebuilds it when it is full, and
 * drops it when full becomes bits or passes 2^22 tuples. */
#include "relalg_internal.h"

#include "ravel/error.h"

#include <stdlib.h>
#include <string.h>

/* 8 bits a tuple against the 128 of a flat two-column tuple. */
#define FILTER_BITS_PER_TUPLE 8

void tuple_filter_free(tuple_filter *f)
{
    budget_note(f->words ? (f->mask + 1) * sizeof *f->words : 0, 0);
    free(f->words);
    memset(f, 0, sizeof *f);
}

int tuple_filter_reset(tuple_filter *f, size_t tuples)
{
    size_t words = 1;
    while (words * 64 / FILTER_BITS_PER_TUPLE < tuples &&
           words < ((size_t)1 << 40))
        words *= 2;
    size_t old = f->words ? (f->mask + 1) * sizeof *f->words : 0;
    size_t bytes = words * sizeof *f->words;
    if (f->words && old == bytes) {
        memset(f->words, 0, bytes);
    } else {
        int err = budget_check(old, bytes);
        if (err != MPI_SUCCESS)
            return err;
        uint64_t *w = calloc(words, sizeof *w);
        if (!w)
            return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for a "
                                   "filter of %zu tuples", tuples);
        tuple_filter_free(f);
        budget_note(0, bytes);
        f->words = w;
        f->mask = words - 1;
    }
    f->n = 0;
    f->most = words * 64 / FILTER_BITS_PER_TUPLE;
    return MPI_SUCCESS;
}

/* Inlined twice below, arity a constant 2 in one (TC's path). */
static inline void add_each(tuple_filter *f, const uint64_t *t, size_t n,
                            unsigned arity)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t h = tuple_filter_hash(t + i * arity, arity);
        f->words[h & f->mask] |= tuple_filter_bits(h);
    }
}

void tuple_filter_add(tuple_filter *f, const uint64_t *t, size_t n,
                      unsigned arity)
{
    if (arity == 2)
        add_each(f, t, n, 2);
    else
        add_each(f, t, n, arity);
    f->n += n;
}
