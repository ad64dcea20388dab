// The engine's tuple primitives (relalg/tuple_sort.c, tuple_reduce.c,
// tuple_ops.c, packed.c) against the C++ standard library: sort + unique,
// difference, merge, flat and packed.
// Shapes cover both sorting paths (radix on few varying bytes, quicksort on
// many), every arity class, heavy duplication and none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
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

// tuples_lower_bound (galloping from a start, and its two-column path)
// against std::lower_bound on the first `words` columns, from starts at,
// before and past the answer; sets with long runs of one first column (a
// search by one column lands on the first of them) and values at 0 and
// 2^64 - 1.
TEST(TupleOps, LowerBoundMatchesStdLowerBound)
{
    std::mt19937_64 rng(17);
    for (unsigned arity : {1u, 2u, 3u}) {
        for (unsigned bits : {3u, 12u, 64u}) {
            Tuples t = sorted_unique(random_tuples(rng, 3000, arity, bits));
            t.insert(t.begin(), std::vector<uint64_t>(arity, 0));
            t.push_back(std::vector<uint64_t>(arity, ~0ull));
            t = sorted_unique(t);
            std::vector<uint64_t> flat = flatten(t, arity);
            for (unsigned words = 1; words <= arity; words++) {
                for (int k = 0; k < 400; k++) {
                    std::vector<uint64_t> key(arity);
                    if (k % 3 == 0) { // one that is there
                        key = t[rng() % t.size()];
                    } else {
                        for (auto &v : key)
                            v = k % 3 == 1 ? rng() & ((1ull << 12) - 1) : rng();
                    }
                    auto before = [words](const std::vector<uint64_t> &a,
                                          const std::vector<uint64_t> &b) {
                        return std::lexicographical_compare(
                            a.begin(), a.begin() + words, b.begin(),
                            b.begin() + words);
                    };
                    size_t want = std::lower_bound(t.begin(), t.end(), key,
                                                   before) - t.begin();
                    for (size_t lo : {size_t{0}, want / 2, want,
                                      want > 0 ? want - 1 : 0}) {
                        size_t got = tuples_lower_bound(flat.data(), lo,
                                                        t.size(), arity,
                                                        key.data(), words);
                        ASSERT_EQ(got, want)
                            << "arity " << arity << " words " << words
                            << " bits " << bits << " from " << lo;
                    }
                    // From past the answer it answers where it starts.
                    if (want < t.size()) {
                        ASSERT_EQ(tuples_lower_bound(flat.data(), want + 1,
                                                     t.size(), arity,
                                                     key.data(), words),
                                  want + 1);
                    }
                }
            }
        }
    }
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

TEST(TupleOps, ReduceAgainstFlatAndMergeMatchStd)
{
    std::mt19937_64 rng(9);
    // Values of 9 bits (many equal columns) and of 40 (every column
    // differs: only the first decides).
    for (unsigned bits : {9u, 40u})
    for (unsigned arity : {1u, 2u, 3u}) {
        Tuples raw = random_tuples(rng, 30000, arity, bits);
        Tuples a = sorted_unique(raw);
        Tuples b = sorted_unique(random_tuples(rng, 20000, arity, bits));
        Tuples diff;
        std::set_difference(a.begin(), a.end(), b.begin(), b.end(),
                            std::back_inserter(diff));
        std::vector<uint64_t> fa = flatten(raw, arity), fb = flatten(b, arity);
        tuple_run run = {fb.data(), b.size()};
        size_t n = tuples_reduce(fa.data(), raw.size(), arity, &run, 1,
                                 nullptr);
        fa.resize(n * arity);
        EXPECT_EQ(fa, flatten(diff, arity)) << "arity=" << arity << " bits=" << bits;

        // diff is disjoint from b: merging it into b gives their union.
        Tuples both;
        std::merge(b.begin(), b.end(), diff.begin(), diff.end(),
                   std::back_inserter(both));
        tuple_buf full = {};
        ASSERT_EQ(tuple_buf_append(&full, arity, fb.data(), b.size()),
                  MPI_SUCCESS);
        ASSERT_EQ(tuples_merge_into(&full, arity, fa.data(), n), MPI_SUCCESS);
        std::vector<uint64_t> merged(full.data, full.data + full.n * arity);
        EXPECT_EQ(merged, flatten(both, arity)) << "arity=" << arity << " bits=" << bits;
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

// tuples_reduce of sorted unique c against the packed set p, and what it
// must leave: c less `held`, p's tuples, by std::set_difference.
void expect_reduced_against(const Tuples &c, const packed_tuples *p,
                            const Tuples &held, unsigned arity,
                            const std::string &where)
{
    Tuples diff;
    std::set_difference(c.begin(), c.end(), held.begin(), held.end(),
                        std::back_inserter(diff));
    std::vector<uint64_t> fc = flatten(c, arity);
    size_t n = tuples_reduce(fc.data(), c.size(), arity, nullptr, 0, p);
    fc.resize(n * arity);
    EXPECT_EQ(fc, flatten(diff, arity)) << where;
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

        // b minus p, b given reversed
        Tuples diff;
        std::set_difference(b.begin(), b.end(), a.begin(), a.end(),
                            std::back_inserter(diff));
        Tuples rb(b.rbegin(), b.rend());
        std::vector<uint64_t> fb = flatten(rb, arity);
        size_t n = tuples_reduce(fb.data(), b.size(), arity, nullptr, 0, &p);
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

        // fresh tuples minus the merged set, searched in its blocks
        Tuples c = sorted_unique(random_tuples(rng, s.n / 3 + 1, arity,
                                               s.bits));
        expect_reduced_against(c, &merged, both, arity,
                               "n=" + std::to_string(s.n));
        packed_free(&merged);
        packed_free(&p);
    }
}

// The bytes a packed set of sorted unique t must hold, encoded apart from
// packed.c's writer: every tuple but a block's first against the one before.
std::vector<unsigned char> reference_bytes(const Tuples &t, unsigned arity)
{
    std::vector<unsigned char> out;
    std::vector<unsigned char> one(TUPLE_MAX_BYTES(arity));
    for (size_t i = 0; i < t.size(); i++) {
        if (i % PACKED_BLOCK == 0)
            continue;
        unsigned char *end =
            tuple_encode(one.data(), t[i - 1].data(), t[i].data(), arity);
        out.insert(out.end(), one.data(), end);
    }
    return out;
}

// Sets over many chunks (the smallest chunk packed.c takes), grown by
// merges that consume the set before, as full's repacking does (of one
// run, or of a run and a packed set at once): each must
// hold what std::set holds, in the bytes encoded apart, be searched as one
// set, and give the memory ledger back all it took.
TEST(PackedTuples, SetsOfManyChunksMergeAndReadAsOne)
{
    packed_set_chunk_bytes(1);
    std::mt19937_64 rng(17);
    const uint64_t held_before = budget_held();
    size_t most_chunks = 0;
    const Shape chunk_shapes[] = {
        {40000, 1, 30}, {40000, 2, 12}, {40000, 2, 40}, {20000, 3, 64},
        {4000, 8, 20},
    };
    for (const Shape &s : chunk_shapes) {
        unsigned arity = s.arity;
        std::set<std::vector<uint64_t>> oracle;
        packed_tuples p;
        memset(&p, 0, sizeof p);
        for (int round = 0; round < 6; round++) {
            // repeats of held tuples among the new ones
            Tuples add = random_tuples(rng, s.n, arity, s.bits);
            for (size_t i = 0; i < add.size() / 10 && !oracle.empty(); i++)
                add[i] = *oracle.begin();
            add = sorted_unique(add);
            std::vector<uint64_t> fa = flatten(add, arity);
            // Odd rounds add two sets at once, as full's flat part and an
            // iteration's packed new tuples are packed in: interleaved,
            // some tuples in both (kept once), the second set packed.
            Tuples ra, rb;
            for (const auto &t : add) {
                unsigned to = (unsigned)(rng() % 5);
                if (to != 1)
                    ra.push_back(t);
                if (to >= 1)
                    rb.push_back(t);
            }
            std::vector<uint64_t> fra = flatten(ra, arity);
            std::vector<uint64_t> frb = flatten(rb, arity);
            packed_tuples pb;
            pack(frb, rb.size(), arity, &pb);
            tuple_source two[2] = {{{fra.data(), ra.size()}, nullptr},
                                   {{nullptr, 0}, &pb}};
            packed_tuples merged;
            ASSERT_EQ(round % 2 ? packed_merge_sources(&merged, &p, two, 2,
                                                       arity)
                                : packed_merge(&merged, &p, fa.data(),
                                               add.size(), arity),
                      MPI_SUCCESS);
            EXPECT_EQ(p.n, 0u) << "the merge consumes the set it reads";
            EXPECT_EQ(pb.n, rb.size()) << "and only reads its sources";
            packed_free(&pb);
            p = merged;
            oracle.insert(add.begin(), add.end());
            Tuples all(oracle.begin(), oracle.end());
            ASSERT_EQ(unpack(&p, arity), flatten(all, arity))
                << "arity=" << arity << " round=" << round;
            std::vector<unsigned char> bytes(p.nbytes);
            packed_copy_bytes(&p, bytes.data());
            EXPECT_EQ(bytes, reference_bytes(all, arity))
                << "arity=" << arity << " round=" << round;
            most_chunks = std::max(most_chunks, p.nchunks);

            // fresh tuples minus the set, searched through its blocks
            Tuples c = sorted_unique(random_tuples(rng, s.n / 2, arity,
                                                   s.bits));
            c.insert(c.end(), all.begin(), all.begin() + all.size() / 7);
            c = sorted_unique(c);
            expect_reduced_against(c, &p, all, arity,
                                   "arity=" + std::to_string(arity) +
                                       " round=" + std::to_string(round));
        }
        packed_free(&p);
    }
    EXPECT_GT(most_chunks, 8u) << "the sets must span many chunks";
    EXPECT_EQ(budget_held(), held_before);
    packed_set_chunk_bytes(0);
    packed_release_spare_chunks();
}

// A set extended in place (packed_extend: an outbox filled in order by a
// grouped join) holds what std::set holds, in the bytes encoded apart, over
// many chunks, searched as one set; tuples not all after its last one leave
// it as it was; the memory ledger gets back all it took.
TEST(PackedTuples, ExtendAppendsInPlaceOnlyAfterTheLastTuple)
{
    packed_set_chunk_bytes(1);
    std::mt19937_64 rng(23);
    const uint64_t held_before = budget_held();
    const Shape extend_shapes[] = {
        {20000, 1, 30}, {20000, 2, 12}, {20000, 2, 40}, {8000, 3, 64},
        {3000, 8, 20}, {1, 2, 16},
    };
    for (const Shape &s : extend_shapes) {
        unsigned arity = s.arity;
        Tuples all;
        packed_tuples p;
        memset(&p, 0, sizeof p);
        size_t most_chunks = 0;
        for (int round = 0; round < 12; round++) {
            // The next tuples: above every one held, in their first column.
            Tuples add = sorted_unique(random_tuples(rng, s.n, arity, s.bits));
            uint64_t base = all.empty() ? 0 : all.back()[0] + 1;
            for (auto &t : add)
                t[0] = base + (t[0] >> 8);
            add = sorted_unique(add);
            std::vector<uint64_t> fa = flatten(add, arity);
            std::string at = "arity=" + std::to_string(arity) +
                             " round=" + std::to_string(round);
            if (all.empty()) {
                pack(fa, add.size(), arity, &p);
            } else {
                // A set whose first tuple is not after the last held.
                std::vector<uint64_t> early = flatten(Tuples{all.back()},
                                                      arity);
                int done = 1;
                ASSERT_EQ(packed_extend(&p, early.data(), 1, arity, &done),
                          MPI_SUCCESS);
                EXPECT_EQ(done, 0) << at;
                ASSERT_EQ(unpack(&p, arity), flatten(all, arity)) << at;
                ASSERT_EQ(packed_extend(&p, fa.data(), add.size(), arity,
                                        &done),
                          MPI_SUCCESS);
                EXPECT_EQ(done, 1) << at;
            }
            all.insert(all.end(), add.begin(), add.end());
            ASSERT_EQ(unpack(&p, arity), flatten(all, arity)) << at;
            std::vector<unsigned char> bytes(p.nbytes);
            packed_copy_bytes(&p, bytes.data());
            EXPECT_EQ(bytes, reference_bytes(all, arity)) << at;
            most_chunks = std::max(most_chunks, p.nchunks);
            Tuples c = sorted_unique(random_tuples(rng, s.n / 2 + 1, arity,
                                                   s.bits));
            c.insert(c.end(), all.begin(), all.begin() + all.size() / 5);
            c = sorted_unique(c);
            expect_reduced_against(c, &p, all, arity, at);
        }
        if (s.n > 1) {
            EXPECT_GT(most_chunks, 3u) << "arity=" << arity;
        }
        packed_free(&p);
    }
    EXPECT_EQ(budget_held(), held_before);
    packed_set_chunk_bytes(0);
    packed_release_spare_chunks();
}

// A reader over a run of tuples a (flat or packed) seeks keys of k columns
// in increasing order, as a join does, and reads each key's group: checked
// against std::lower_bound and std::equal_range on a.
void check_reader(std::mt19937_64 &rng, const Tuples &a, unsigned arity,
                  unsigned k, bool packed)
{
    std::vector<uint64_t> fa = flatten(a, arity);
    packed_tuples p = {};
    tuple_reader r;
    if (packed) {
        pack(fa, a.size(), arity, &p);
        tuple_reader_packed(&r, &p, arity);
    } else {
        tuple_reader_flat(&r, tuple_run{fa.data(), a.size()}, arity);
    }
    auto less = [k](const std::vector<uint64_t> &x,
                    const std::vector<uint64_t> &y) {
        return std::lexicographical_compare(x.begin(), x.begin() + k,
                                            y.begin(), y.begin() + k);
    };
    // Keys drawn from the same values, one per prefix, some held and some
    // not; their columns after k are not zero, as a join's are (it seeks
    // the other side's current tuple).
    Tuples keys = sorted_unique(random_tuples(rng, 200, arity, 3));
    keys.erase(std::unique(keys.begin(), keys.end(),
                           [&](const auto &x, const auto &y) {
                               return !less(x, y) && !less(y, x);
                           }),
               keys.end());
    for (const auto &key : keys) {
        auto lo = std::lower_bound(a.begin(), a.end(), key, less);
        auto range = std::equal_range(a.begin(), a.end(), key, less);
        if (!tuple_reader_done(&r)) {
            const uint64_t *cur = tuple_reader_cur(&r);
            if (less(std::vector<uint64_t>(cur, cur + arity), key))
                tuple_reader_seek(&r, key.data(), k);
        }
        ASSERT_EQ(tuple_reader_done(&r), lo == a.end());
        if (lo == a.end())
            break;
        const uint64_t *cur = tuple_reader_cur(&r);
        ASSERT_EQ(std::vector<uint64_t>(cur, cur + arity), *lo);
        if (range.first == range.second)
            continue;
        const uint64_t *g;
        size_t n;
        ASSERT_EQ(tuple_reader_group(&r, k, &g, &n), MPI_SUCCESS);
        EXPECT_EQ(std::vector<uint64_t>(g, g + n * arity),
                  flatten(Tuples(range.first, range.second), arity));
    }
    tuple_reader_free(&r);
    packed_free(&p);
}

TEST(TupleReader, SeeksAndGroupsAsStdOnFlatAndPackedRuns)
{
    std::mt19937_64 rng(12);
    // column values of 3 bits: keys of every width hit and miss
    const Shape reader_shapes[] = {
        {0, 2, 3},    {1, 2, 3},    {5, 2, 3},    {3000, 2, 3},
        {3000, 3, 3}, {5000, 4, 3}, {2000, 8, 3}, {400, 1, 3},
    };
    for (const Shape &s : reader_shapes)
        for (unsigned k = 1; k <= s.arity; k++)
            for (bool packed : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "n=" << s.n << " arity=" << s.arity
                             << " k=" << k << " packed=" << packed);
                Tuples a = sorted_unique(
                    random_tuples(rng, s.n, s.arity, s.bits));
                check_reader(rng, a, s.arity, k, packed);
            }
}

// A relation's full held as flat runs and a packed part, visited
// (ravel_relation_visit's storage_visit): every tuple once, in order,
// against std::set; over several batches, and with either part empty.
struct Visited {
    std::vector<uint64_t> t;
    unsigned arity;
};

int collect_visit(const uint64_t *t, size_t n, void *arg)
{
    auto *v = static_cast<Visited *>(arg);
    v->t.insert(v->t.end(), t, t + n * v->arity);
    return 0;
}

TEST(Storage, AVisitHandsOverFlatRunsAndPackedPartInOrder)
{
    std::mt19937_64 rng(13);
    for (unsigned arity : {1u, 2u, 8u})
        for (int split = 0; split < 4; split++) {
            Tuples all = sorted_unique(random_tuples(rng, 12000, arity, 16));
            // split 0: all packed; 1: all flat; 2, 3: some of each, the flat
            // part in up to three runs
            Tuples packed_part, runs[3];
            for (const auto &t : all) {
                int to = split == 0 ? 3 : split == 1 ? 0 : (int)(rng() % 4);
                (to == 3 ? packed_part : runs[split == 3 ? to : 0])
                    .push_back(t);
            }
            relation r;
            std::memset(&r, 0, sizeof r);
            r.arity = arity;
            std::vector<uint64_t> f0 = flatten(runs[0], arity);
            ASSERT_EQ(tuple_buf_append(&r.full, arity, f0.data(),
                                       runs[0].size()),
                      MPI_SUCCESS);
            for (int k = 1; k < 3; k++) {
                std::vector<uint64_t> fk = flatten(runs[k], arity);
                ASSERT_EQ(tuple_buf_append(&r.runs[r.nruns++], arity,
                                           fk.data(), runs[k].size()),
                          MPI_SUCCESS);
            }
            pack(flatten(packed_part, arity), packed_part.size(), arity,
                 &r.packed);
            Visited got{{}, arity};
            ASSERT_EQ(storage_visit(&r, collect_visit, &got), MPI_SUCCESS);
            EXPECT_EQ(got.t, flatten(all, arity))
                << "arity=" << arity << " split=" << split;
            tuple_buf_free(&r.full);
            for (auto &b : r.runs)
                tuple_buf_free(&b);
            packed_free(&r.packed);
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

// Candidates reduced in one bitmap (their box is small), or group by group
// (groups of all columns but the last, dense, sparse or mixed), against a
// full split between a flat and a packed part, the way storage holds it:
// the result is the sorted distinct candidates that neither part holds.
// Last columns sit near 0 and near 2^64 - 1, so the bitmaps' range
// arithmetic is checked at both ends; a prefix stride of 2^40 makes the
// box too large for one bitmap while the groups stay dense.
TEST(TupleOps, ReduceDropsRepeatsAndHeldTuplesInDenseAndSparseGroups)
{
    std::mt19937_64 rng(11);
    struct Case {
        unsigned arity, prefix_bits, last_bits;
        uint64_t last_base, prefix_stride;
        size_t n, held_per_two_candidates;
    };
    const uint64_t wide = 1ull << 40;
    const Case cases[] = {
        {1, 0, 10, 0, 1, 5000, 1},           {1, 0, 40, 0, 1, 5000, 1},
        {1, 0, 12, ~0ull - 4095, 1, 9000, 1}, {2, 4, 10, 0, 1, 100000, 1},
        {2, 12, 20, 0, 1, 50000, 1},         {2, 6, 8, ~0ull - 255, 1, 60000, 1},
        {2, 3, 16, 1000, 1, 200000, 1},      {3, 2, 9, 0, 1, 40000, 1},
        {4, 2, 7, 5, 1, 30000, 1},           {2, 0, 6, 0, 1, 64, 1},
        {2, 1, 3, 0, 1, 15, 1},              {2, 4, 10, 0, wide, 100000, 1},
        {2, 6, 8, ~0ull - 255, wide, 60000, 1}, {3, 2, 9, 7, wide, 40000, 1},
        // full far larger than the candidates: searched, not read whole
        {2, 4, 12, 0, 1, 4000, 40},          {2, 4, 12, 0, wide, 4000, 40},
        {1, 0, 16, 3, 1, 3000, 40},
    };
    for (const Case &c : cases) {
        unsigned k = c.arity - 1;
        uint64_t pmask = c.prefix_bits ? (1ull << c.prefix_bits) - 1 : 0;
        uint64_t lmask = (1ull << c.last_bits) - 1;
        auto draw = [&](size_t n) {
            Tuples t(n, std::vector<uint64_t>(c.arity));
            for (auto &row : t) {
                for (unsigned i = 0; i < k; i++)
                    row[i] = (rng() & pmask) * c.prefix_stride;
                row[k] = c.last_base + (rng() & lmask);
            }
            return t;
        };
        Tuples cand = draw(c.n);
        // Half the groups made sparse: their last columns spread wide.
        for (auto &row : cand)
            if (k > 0 && (row[0] / c.prefix_stride & 1))
                row[k] = c.last_base + (rng() & (lmask >> 1)) * 977 % lmask;
        Tuples held =
            sorted_unique(draw(c.n * c.held_per_two_candidates / 2 + 1));
        // held split between a packed part and flat runs, as a
        // relation's full is (storage.c): 1 to FULL_RUNS_MAX of them.
        unsigned nruns = 1 + rng() % FULL_RUNS_MAX;
        std::vector<Tuples> flat_parts(nruns);
        Tuples packed_part;
        for (const auto &row : held)
            if (rng() & 1)
                flat_parts[rng() % nruns].push_back(row);
            else
                packed_part.push_back(row);
        Tuples expect;
        Tuples u = sorted_unique(cand);
        std::set_difference(u.begin(), u.end(), held.begin(), held.end(),
                            std::back_inserter(expect));

        std::vector<std::vector<uint64_t>> ff;
        std::vector<tuple_run> runs;
        for (const Tuples &part : flat_parts)
            ff.push_back(flatten(part, c.arity));
        for (size_t r = 0; r < nruns; r++)
            runs.push_back({ff[r].data(), flat_parts[r].size()});
        packed_tuples p;
        pack(flatten(packed_part, c.arity), packed_part.size(), c.arity, &p);
        std::vector<uint64_t> t = flatten(cand, c.arity);
        size_t n = tuples_reduce(t.data(), cand.size(), c.arity, runs.data(),
                                 nruns, &p);
        t.resize(n * c.arity);
        EXPECT_EQ(t, flatten(expect, c.arity))
            << "arity=" << c.arity << " runs=" << nruns
            << " prefix_bits=" << c.prefix_bits
            << " last_bits=" << c.last_bits << " n=" << c.n;
        packed_free(&p);
    }
}

// A column after the first that differs: its low half as it is, its high
// half against the tuple before's.  The bytes are written out here by
// hand from that rule (LEB128), not by the encoder.
TEST(TupleEncode, HighHalvesAgainstTheTupleBefore)
{
    const uint64_t sign = 1ull << 63;
    struct Case {
        std::vector<uint64_t> prev, t;
        std::vector<unsigned char> bytes;
    } cases[] = {
        // below 2^32: as they are
        {{1, 300}, {2, 5}, {0x00, 0x01, 0x05}},
        // numbers as the Datalog front end holds them: 2^63 + n
        {{sign + 4, sign + 9}, {sign + 5, sign + 7}, {0x00, 0x01, 0x07}},
        // the same in the last of three columns, the first equal
        {{7, sign + 4, sign + 9},
         {7, sign + 5, sign + 300},
         {0x01, 0x01, 0xac, 0x02}},
        // high halves that differ: their XOR, 2^41 ^ 2^40, stays
        {{0, 1ull << 40}, {1, (1ull << 41) + 3},
         {0x00, 0x01, 0x83, 0x80, 0x80, 0x80, 0x80, 0x60}},
    };
    for (const Case &c : cases) {
        unsigned arity = (unsigned)c.t.size();
        std::vector<unsigned char> out(TUPLE_MAX_BYTES(arity));
        unsigned char *end =
            tuple_encode(out.data(), c.prev.data(), c.t.data(), arity);
        out.resize((size_t)(end - out.data()));
        EXPECT_EQ(out, c.bytes) << "t[last]=" << c.t.back();
        std::vector<uint64_t> cur = c.prev;
        ASSERT_EQ(tuple_decode(out.data(), out.data() + out.size(),
                               cur.data(), arity),
                  out.data() + out.size());
        EXPECT_EQ(cur, c.t);
    }
}

// Numbers with their sign bit flipped (2^63 + n) pack into as few bytes
// as the same n do, and read back as they went in.
TEST(PackedTuples, SignBitFlippedNumbersPackAsSmallOnes)
{
    std::mt19937_64 rng(23);
    for (unsigned arity : {2u, 4u}) {
        Tuples small = sorted_unique(random_tuples(rng, 20000, arity, 11));
        Tuples flipped = small;
        for (auto &row : flipped)
            for (auto &v : row)
                v += 1ull << 63;
        packed_tuples ps, pf;
        pack(flatten(small, arity), small.size(), arity, &ps);
        pack(flatten(flipped, arity), flipped.size(), arity, &pf);
        EXPECT_EQ(pf.nbytes, ps.nbytes) << "arity " << arity;
        EXPECT_LT(pf.nbytes, small.size() * (arity + 1) * 2)
            << "arity " << arity;
        EXPECT_EQ(unpack(&pf, arity), flatten(flipped, arity));
        packed_free(&ps);
        packed_free(&pf);
    }
}

} // namespace

// The filter of full's flat part (tuple_filter.c): never "surely not" for
// a tuple added (an independent std::set is the oracle), for tuples of
// 1 to 3 columns, two columns by their own path; and "may hold" for few
// of the tuples never added at its full load (the rate it was sized for:
// 8 bits a tuple, 3 of them in one word, some 4%).
TEST(TupleFilter, HoldsEveryTupleAddedAndFewOthers)
{
    std::mt19937_64 rng(11);
    for (unsigned arity : {1u, 2u, 3u}) {
        tuple_filter f = {};
        const size_t n = 50000;
        ASSERT_EQ(tuple_filter_reset(&f, n), MPI_SUCCESS);
        Tuples added = sorted_unique(random_tuples(rng, n, arity, 20));
        std::set<std::vector<uint64_t>> in(added.begin(), added.end());
        std::vector<uint64_t> flat = flatten(added, arity);
        // Added in two calls, as storage.c adds runs.
        size_t half = added.size() / 2;
        tuple_filter_add(&f, flat.data(), half, arity);
        tuple_filter_add(&f, flat.data() + half * arity, added.size() - half,
                         arity);
        EXPECT_EQ(f.n, added.size());
        EXPECT_LE(f.n, f.most);
        for (const auto &t : added)
            ASSERT_TRUE(tuple_filter_may_hold(&f, t.data(), arity))
                << "arity=" << arity;
        size_t others = 0, wrong = 0;
        for (const auto &t : random_tuples(rng, 200000, arity, 40)) {
            if (in.count(t))
                continue;
            others++;
            wrong += tuple_filter_may_hold(&f, t.data(), arity);
        }
        double rate = (double)wrong / (double)others;
        EXPECT_LT(rate, 0.08) << "arity=" << arity;
        // Reset empties it: nothing added answers "may hold" for few.
        ASSERT_EQ(tuple_filter_reset(&f, n), MPI_SUCCESS);
        EXPECT_EQ(f.n, 0u);
        size_t after = 0;
        for (const auto &t : added)
            after += tuple_filter_may_hold(&f, t.data(), arity);
        EXPECT_EQ(after, 0u) << "arity=" << arity;
        tuple_filter_free(&f);
        EXPECT_EQ(f.words, nullptr);
    }
}
