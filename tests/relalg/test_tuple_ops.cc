// The engine's tuple primitives (relalg/tuple_sort.c, tuple_ops.c,
// packed.c) against the C++ standard library: sort + unique, difference,
// merge, flat and packed.
// Shapes cover both sorting paths (radix on few varying bytes, quicksort on
// many), every arity class, heavy duplication and none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include <mpi.h> // before the C block: mpi.h brings C++ declarations

extern "C" {
#include "relalg_internal.h"
}

namespace {

using Tuples = std::vector<std::vector<uint64_t>>;

// n random tuples whose columns take `bits` random low bits (64: anything).
Tuples random_tuples(std::mt19937_64 &rng, size_t n, unsigned arity,
                     unsigned bits)
{
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    Tuples t(n, std::vector<uint64_t>(arity));
    for (auto &row : t)
        for (auto &v : row)
            v = rng() & mask;
    return t;
}

std::vector<uint64_t> flatten(const Tuples &t, unsigned arity)
{
    std::vector<uint64_t> flat;
    flat.reserve(t.size() * arity + 1);
    for (const auto &row : t)
        flat.insert(flat.end(), row.begin(), row.end());
    return flat;
}

Tuples sorted_unique(Tuples t)
{
    std::sort(t.begin(), t.end());
    t.erase(std::unique(t.begin(), t.end()), t.end());
    return t;
}

struct Shape {
    size_t n;
    unsigned arity, bits;
};

const Shape shapes[] = {
    {0, 2, 16},      {1, 2, 16},       {23, 2, 16},     {25, 2, 16},
    {1000, 1, 4},    {100000, 2, 14},  {100000, 2, 40}, {50000, 3, 10},
    {50000, 2, 64},  {20000, 5, 64},   {3000, 64, 3},   {40000, 4, 2},
    {70000, 2, 0},   {200000, 1, 20},  {150000, 3, 20}, {100000, 4, 12},
};

// A rank that inserts no tuples appends 0 tuples from NULL to a buffer
// with no storage yet: no memcpy(NULL, NULL, 0), which is undefined (the
// sanitized build, scripts/test-sanitize.sh, aborted here).
TEST(TupleOps, AppendingNothingToAnEmptyBufferLeavesItEmpty)
{
    tuple_buf b = {};
    ASSERT_EQ(tuple_buf_append(&b, 2, nullptr, 0), MPI_SUCCESS);
    EXPECT_EQ(b.n, 0u);
    const uint64_t t[2] = {4, 5};
    ASSERT_EQ(tuple_buf_append(&b, 2, t, 1), MPI_SUCCESS);
    ASSERT_EQ(tuple_buf_append(&b, 2, nullptr, 0), MPI_SUCCESS);
    ASSERT_EQ(b.n, 1u);
    EXPECT_EQ(b.data[0], 4u);
    EXPECT_EQ(b.data[1], 5u);
    tuple_buf_free(&b);
}

TEST(TupleOps, SortUniqueMatchesStdSortUnique)
{
    std::mt19937_64 rng(7);
    for (const Shape &s : shapes) {
        Tuples t = random_tuples(rng, s.n, s.arity, s.bits);
        std::vector<uint64_t> flat = flatten(t, s.arity);
        size_t n = tuples_sort_unique(flat.data(), s.n, s.arity);
        flat.resize(n * s.arity);
        EXPECT_EQ(flat, flatten(sorted_unique(t), s.arity))
            << "n=" << s.n << " arity=" << s.arity << " bits=" << s.bits;
    }
}

TEST(TupleOps, SortUniqueOfPresortedAndReversedInput)
{
    std::mt19937_64 rng(8);
    Tuples t = sorted_unique(random_tuples(rng, 60000, 2, 20));
    std::vector<uint64_t> expect = flatten(t, 2);
    std::vector<uint64_t> flat = expect;
    EXPECT_EQ(tuples_sort_unique(flat.data(), t.size(), 2), t.size());
    EXPECT_EQ(flat, expect);
    std::reverse(t.begin(), t.end());
    flat = flatten(t, 2);
    EXPECT_EQ(tuples_sort_unique(flat.data(), t.size(), 2), t.size());
    EXPECT_EQ(flat, expect);
}

TEST(TupleOps, DifferenceAndMergeMatchStd)
{
    std::mt19937_64 rng(9);
    for (unsigned arity : {1u, 2u, 3u}) {
        Tuples a = sorted_unique(random_tuples(rng, 30000, arity, 9));
        Tuples b = sorted_unique(random_tuples(rng, 20000, arity, 9));
        Tuples diff;
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                            std::back_inserter(diff));
        std::vector<uint64_t> fa = flatten(a, arity), fb = flatten(b, arity);
        size_t n = tuples_difference(fa.data(), a.size(), fb.data(),
                                     b.size(), arity);
        fa.resize(n * arity);
        EXPECT_EQ(fa, flatten(diff, arity)) << "arity=" << arity;

        // diff is disjoint from b: merging it into b gives their union.
        Tuples both;
        std::merge(b.begin(), b.end(), diff.begin(), diff.end(),
                   std::back_inserter(both));
        tuple_buf full = {};
        ASSERT_EQ(tuple_buf_append(&full, arity, fb.data(), b.size()),
                  MPI_SUCCESS);
        ASSERT_EQ(tuples_merge_into(&full, arity, fa.data(), n), MPI_SUCCESS);
        std::vector<uint64_t> merged(full.data, full.data + full.n * arity);
        EXPECT_EQ(merged, flatten(both, arity)) << "arity=" << arity;
        tuple_buf_free(&full);
    }
}

// Packs t (sorted unique), checking the count.
void pack(const std::vector<uint64_t> &flat, size_t n, unsigned arity,
          packed_tuples *p)
{
    packed_writer w;
    packed_writer_init(&w, p, arity);
    for (size_t i = 0; i < n; i++)
        ASSERT_EQ(packed_append(&w, flat.data() + i * arity), MPI_SUCCESS);
    ASSERT_EQ(p->n, n);
}

std::vector<uint64_t> unpack(const packed_tuples *p, unsigned arity)
{
    tuple_buf b;
    EXPECT_EQ(packed_unpack(p, arity, &b, 0), MPI_SUCCESS);
    std::vector<uint64_t> v(b.data, b.data + b.n * arity);
    tuple_buf_free(&b);
    return v;
}

// Round trip, difference and merge of packed sets, on sizes around the
// block length and on values that need every varint length.
TEST(PackedTuples, RoundTripDifferenceAndMergeMatchStd)
{
    std::mt19937_64 rng(10);
    const Shape packed_shapes[] = {
        {0, 2, 16},     {1, 2, 16},      {127, 2, 16},   {128, 2, 16},
        {129, 2, 16},   {100000, 2, 14}, {30000, 1, 20}, {30000, 3, 64},
        {5000, 64, 2},  {20000, 2, 64},  {40000, 4, 3},
    };
    for (const Shape &s : packed_shapes) {
        unsigned arity = s.arity;
        Tuples a = sorted_unique(random_tuples(rng, s.n, arity, s.bits));
        Tuples b = sorted_unique(random_tuples(rng, s.n / 2 + 1, arity,
                                               s.bits));
        std::vector<uint64_t> fa = flatten(a, arity);
        packed_tuples p;
        pack(fa, a.size(), arity, &p);
        EXPECT_EQ(unpack(&p, arity), fa) << "n=" << s.n << " arity=" << arity;

        // b minus p
        Tuples diff;
        std::set_difference(b.begin(), b.end(), a.begin(), a.end(),
                            std::back_inserter(diff));
        std::vector<uint64_t> fb = flatten(b, arity);
        size_t n = packed_difference(fb.data(), b.size(), &p, arity);
        fb.resize(n * arity);
        EXPECT_EQ(fb, flatten(diff, arity)) << "n=" << s.n;

        // p plus (b minus p)
        Tuples both;
        std::merge(a.begin(), a.end(), diff.begin(), diff.end(),
                   std::back_inserter(both));
        packed_tuples merged;
        ASSERT_EQ(packed_merge(&merged, &p, fb.data(), n, arity),
                  MPI_SUCCESS);
        EXPECT_EQ(unpack(&merged, arity), flatten(both, arity))
            << "n=" << s.n;
        packed_free(&merged);
        packed_free(&p);
    }
}

TEST(PackedTuples, ARepeatedTupleIsStoredOnce)
{
    packed_tuples p;
    packed_writer w;
    packed_writer_init(&w, &p, 2);
    const uint64_t t[][2] = {{1, 2}, {1, 2}, {1, 3}, {1, 3}, {4, 0}};
    for (const auto &x : t)
        ASSERT_EQ(packed_append(&w, x), MPI_SUCCESS);
    EXPECT_EQ(unpack(&p, 2), (std::vector<uint64_t>{1, 2, 1, 3, 4, 0}));
    packed_free(&p);
}

} // namespace
