// Candidates held as bits of their box (relalg/tuple_reduce.c, tuple_box_*)
// against std::set: tuples added in any order with repeats, some far
// outside the first box (the box widens, or refuses them when the bitmap
// would pass its limit or outgrow the tuples added), then written out
// without what a "full" held as a flat run and a packed set holds.  What
// comes out must be exactly the accepted tuples minus full, sorted, each
// once (a refused tuple is the caller's to keep).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include <mpi.h> // before the C block: mpi.h brings C++ declarations

extern "C" {
#include "relalg_internal.h"
}

namespace {

using Tuple = std::vector<uint64_t>;

Tuple random_tuple(std::mt19937_64 &rng, unsigned arity, uint64_t base,
                   uint64_t range)
{
    Tuple t(arity);
    for (auto &v : t)
        v = base + rng() % range;
    return t;
}

std::vector<uint64_t> flatten(const std::set<Tuple> &s)
{
    std::vector<uint64_t> out;
    for (const auto &t : s)
        out.insert(out.end(), t.begin(), t.end());
    return out;
}

void check_box(unsigned arity, uint64_t seed, size_t most_bytes,
               size_t *refused_count)
{
    std::mt19937_64 rng(seed);
    // A first batch in a small box, dense enough to start one.
    std::vector<uint64_t> first;
    std::set<Tuple> added;
    for (int i = 0; i < 400; i++) {
        Tuple t = random_tuple(rng, arity, 100, 6);
        first.insert(first.end(), t.begin(), t.end());
        added.insert(t);
    }
    tuple_box box;
    ASSERT_EQ(tuple_box_start(&box, first.data(), first.size() / arity,
                              arity, most_bytes),
              1);
    // Then tuples near the box (widening it), far away (refused once the
    // bitmap would pass most_bytes) and repeats.
    std::set<Tuple> refused;
    for (int i = 0; i < 3000; i++) {
        int kind = (int)(rng() % 10);
        Tuple t = kind < 6   ? random_tuple(rng, arity, 90, 30)
                  : kind < 8 ? random_tuple(rng, arity, 0, 200)
                  : kind < 9 ? random_tuple(rng, arity, 1u << 30, 1000)
                             : *std::next(added.begin(),
                                          (long)(rng() % added.size()));
        if (tuple_box_add(&box, t.data()))
            added.insert(t);
        else
            refused.insert(t);
    }
    // A refused tuple goes to the buffer; it may be accepted later, once
    // the box has widened for others: what comes out is what was accepted.
    *refused_count = refused.size();
    // The count kept as bits are set: repeats once, widenings keep it.
    EXPECT_EQ(tuple_box_count(&box), added.size());
    // full: a flat run and a packed set, disjoint, drawn from the region.
    std::set<Tuple> flat_part, packed_part;
    for (int i = 0; i < 2000; i++) {
        Tuple t = random_tuple(rng, arity, 0, 200);
        (i % 2 ? flat_part : packed_part).insert(t);
    }
    for (const auto &t : flat_part)
        packed_part.erase(t);
    std::vector<uint64_t> flat = flatten(flat_part);
    std::vector<uint64_t> packed_flat = flatten(packed_part);
    packed_tuples empty, packed;
    std::memset(&empty, 0, sizeof empty);
    ASSERT_EQ(packed_merge(&packed, &empty, packed_flat.data(),
                           packed_part.size(), arity),
              MPI_SUCCESS);
    tuple_run run = {flat.data(), flat_part.size()};

    tuple_buf out;
    std::memset(&out, 0, sizeof out);
    ASSERT_EQ(tuple_box_drain(&box, &run, 1, &packed, &out), MPI_SUCCESS);
    EXPECT_EQ(box.bits, nullptr); // drained boxes are freed

    std::vector<Tuple> want;
    for (const auto &t : added)
        if (!flat_part.count(t) && !packed_part.count(t))
            want.push_back(t); // std::set order: sorted, each once
    std::vector<Tuple> got;
    for (size_t i = 0; i < out.n; i++)
        got.emplace_back(out.data + i * arity, out.data + (i + 1) * arity);
    EXPECT_EQ(got, want) << "arity " << arity << " seed " << seed;
    tuple_buf_free(&out);
    packed_free(&packed);
}

TEST(TupleBox, HoldsWhatWasAddedMinusFull)
{
    size_t refused = 0;
    for (unsigned arity = 1; arity <= 4; arity++)
        for (uint64_t seed = 1; seed <= 5; seed++)
            check_box(arity, seed, (size_t)1 << 20, &refused);
}

// A small limit: most far tuples and some near ones are refused, and what
// was accepted still comes out whole.
TEST(TupleBox, RefusesPastItsLimitAndLosesNothing)
{
    for (unsigned arity = 1; arity <= 3; arity++)
        for (uint64_t seed = 1; seed <= 5; seed++) {
            size_t refused = 0;
            check_box(arity, seed, 4096, &refused);
            EXPECT_GT(refused, 0u) << "arity " << arity << " seed " << seed;
        }
}

// Batches poured into a box (tuple_box_absorb, what an outbox buffer that
// fills beside its box does): one past the box's limit is refused whole
// and leaves the box as it was; the same batch is taken once the limit is
// raised (the box laid out again: its old bits must move with it); one far
// sparser than its tuples is refused at any limit.  What comes out is
// every tuple of the batches taken and of single adds, each once.
TEST(TupleBox, AbsorbsBatchesWithinARisingLimit)
{
    std::mt19937_64 rng(3);
    for (unsigned arity = 1; arity <= 3; arity++) {
        std::set<Tuple> taken;
        auto batch = [&](uint64_t base, uint64_t range, int n) {
            std::vector<uint64_t> b;
            for (int i = 0; i < n; i++) {
                Tuple t = random_tuple(rng, arity, base, range);
                b.insert(b.end(), t.begin(), t.end());
            }
            return b;
        };
        auto take = [&](const std::vector<uint64_t> &b) {
            for (size_t i = 0; i < b.size(); i += arity)
                taken.insert(Tuple(b.begin() + (long)i,
                                   b.begin() + (long)(i + arity)));
        };
        // a box of 4 values a column, its limit the least power of two
        // it starts within
        std::vector<uint64_t> first = batch(100, 4, 64);
        tuple_box box;
        size_t limit = 8;
        while (!tuple_box_start(&box, first.data(), 64, arity, limit))
            limit *= 2;
        take(first);
        // beside the box, many tuples that need more rows or words
        std::vector<uint64_t> wide = batch(80, arity == 1 ? 200 : 60, 4000);
        std::vector<uint64_t> copy = wide;
        const size_t rows = box.rows, used = box.used_rows;
        EXPECT_EQ(tuple_box_absorb(&box, copy.data(), 4000, 0), 4000u)
            << "arity " << arity;
        EXPECT_EQ(copy, wide) << "a batch refused whole stays as it was";
        EXPECT_EQ(box.rows, rows) << "and leaves the box as it was";
        EXPECT_EQ(box.used_rows, used);
        ASSERT_EQ(tuple_box_absorb(&box, wide.data(), 4000, 1 << 20), 0u)
            << "arity " << arity;
        take(wide);
        // single tuples inside, and a repeat
        for (int i = 0; i < 300; i++) {
            Tuple t = random_tuple(rng, arity, 85, 30);
            ASSERT_EQ(tuple_box_add(&box, t.data()), 1);
            taken.insert(t);
        }
        // a few tuples spread far: sparser than their bytes at any limit
        std::vector<uint64_t> far = batch(1u << 20, 1u << 20, 3);
        EXPECT_EQ(tuple_box_absorb(&box, far.data(), 3, (size_t)1 << 30), 3u)
            << "arity " << arity;
        tuple_buf out;
        std::memset(&out, 0, sizeof out);
        ASSERT_EQ(tuple_box_drain(&box, nullptr, 0, nullptr, &out),
                  MPI_SUCCESS);
        std::vector<Tuple> got;
        for (size_t i = 0; i < out.n; i++)
            got.emplace_back(out.data + i * arity,
                             out.data + (i + 1) * arity);
        EXPECT_EQ(got, std::vector<Tuple>(taken.begin(), taken.end()))
            << "arity " << arity;
        tuple_buf_free(&out);
    }
}

// A box started under a small limit takes new rows while its tuples pay
// for them at BOX_BYTES_PER_COLUMN bytes a column (new_row): rows of 200
// tuples in a span of 64 words are all taken, however far past the start's
// limit; rows of 40 are refused once the rows outgrow what their tuples
// pay.  Either way the box holds exactly the tuples it took.
TEST(TupleBox, TakesRowsWhileItsTuplesPayForThem)
{
    for (int per_row : {200, 40}) {
        std::mt19937_64 rng((uint64_t)per_row);
        // Rows 0 and 99 first, values 0 to 4095 (64 words a row), so that
        // the box spans every row from the start and never widens: 3,276
        // tuples, enough for a span of 6,400 words (box_area).
        std::vector<uint64_t> first;
        std::set<Tuple> taken, refused;
        for (uint64_t row : {0u, 99u})
            for (uint64_t v = 0; v < 4096; v++)
                if (v % 5 < 2) {
                    first.insert(first.end(), {row, v});
                    taken.insert({row, v});
                }
        tuple_box box;
        const size_t most_bytes = 8 * 64 * sizeof(uint64_t) + 1024;
        ASSERT_EQ(tuple_box_start(&box, first.data(), first.size() / 2, 2,
                                  most_bytes),
                  1);
        for (uint64_t row = 1; row < 99; row++)
            for (int i = 0; i < per_row; i++) {
                Tuple t = {row, rng() % 4096};
                (tuple_box_add(&box, t.data()) ? taken : refused).insert(t);
            }
        for (const auto &t : refused)
            EXPECT_EQ(taken.count(t), 0u) << "a tuple both taken and refused";
        EXPECT_EQ(tuple_box_count(&box), taken.size());
        for (const auto &t : taken)
            EXPECT_TRUE(tuple_box_has(&box, t.data()));
        size_t used_words = box.rows / 2 + 1 + box.used_rows * box.row_words;
        EXPECT_LE(used_words * sizeof(uint64_t),
                  std::max(most_bytes,
                           taken.size() * 2 * BOX_BYTES_PER_COLUMN));
        if (per_row == 200) {
            EXPECT_TRUE(refused.empty()) << refused.size() << " refused";
            EXPECT_EQ(box.used_rows, 100u);
        } else {
            EXPECT_FALSE(refused.empty());
            EXPECT_LT(box.used_rows, 100u);
        }
        tuple_box_free(&box);
    }
}

// Keys spread as a hash spreads them over ranks: of a box's rows, a rank's
// candidates hold about one in P.  Only those rows take room, and what
// comes out, drained flat or packed, is what went in.  Whether a box
// starts is still judged on all its rows: one sparser than its tuples
// flat is refused even though its held rows would take less.
TEST(TupleBox, RowsThatHoldNothingTakeNoRoom)
{
    std::mt19937_64 rng(5);
    for (int per_key : {100, 150}) {
        // 4000 keys at 63 words a row: 251,811 words from key 1 to 3997;
        // 100 tuples a key take 200,000 flat, 150 take 300,000.
        std::set<Tuple> in;
        std::vector<uint64_t> flat;
        for (uint64_t key = 0; key < 4000; key++) {
            if (key % 4 != 1) // this rank's keys: one in 4
                continue;
            for (int i = 0; i < per_key; i++) {
                Tuple t = {key, rng() % 4000};
                in.insert(t);
                flat.insert(flat.end(), t.begin(), t.end());
            }
        }
        tuple_box box;
        int started = tuple_box_start(&box, flat.data(), flat.size() / 2, 2,
                                      (size_t)1 << 30);
        if (per_key == 100) {
            EXPECT_EQ(started, 0) << "a box sparser than its tuples";
            continue;
        }
        ASSERT_EQ(started, 1);
        EXPECT_EQ(box.used_rows, 1000u);
        // every row: 63 words; only held rows' words, and the index
        EXPECT_LE(box.cap_rows, 2048u);
        EXPECT_EQ(tuple_box_count(&box), in.size());
        for (int packed = 0; packed <= 1; packed++) {
            tuple_box again;
            ASSERT_EQ(tuple_box_start(&again, flat.data(), flat.size() / 2, 2,
                                      (size_t)1 << 30),
                      1);
            std::vector<uint64_t> got;
            if (packed) {
                packed_tuples p;
                ASSERT_EQ(tuple_box_drain_packed(&again, nullptr, 0, nullptr,
                                                 &p),
                          MPI_SUCCESS);
                tuple_buf b;
                ASSERT_EQ(packed_unpack(&p, 2, &b, 0), MPI_SUCCESS);
                got.assign(b.data, b.data + b.n * 2);
                tuple_buf_free(&b);
                packed_free(&p);
            } else {
                tuple_buf b;
                std::memset(&b, 0, sizeof b);
                ASSERT_EQ(tuple_box_drain(&again, nullptr, 0, nullptr, &b),
                          MPI_SUCCESS);
                got.assign(b.data, b.data + b.n * 2);
                tuple_buf_free(&b);
            }
            EXPECT_EQ(got, flatten(in)) << (packed ? "packed" : "flat");
        }
        tuple_box_free(&box);
    }
}

// Appending to a buffer that holds tuples already keeps them in front.
// The sorted unique tuples of s as a packed set (the caller frees it).
packed_tuples pack(const std::set<Tuple> &s, unsigned arity)
{
    std::vector<uint64_t> flat = flatten(s);
    packed_tuples empty, packed;
    std::memset(&empty, 0, sizeof empty);
    EXPECT_EQ(packed_merge(&packed, &empty, flat.data(), s.size(), arity),
              MPI_SUCCESS);
    return packed;
}

struct Collected {
    std::vector<uint64_t> t;
    unsigned arity;
};

int collect_tuples(void *arg, const uint64_t *t, size_t n)
{
    auto *c = static_cast<Collected *>(arg);
    c->t.insert(c->t.end(), t, t + n * c->arity);
    return MPI_SUCCESS;
}

// A relation's full held as bits (storage.c): a box started from several
// sorted sets at once (flat and packed), asked for membership, read back
// in order, and used as full by the reduction and by a drain, all against
// std::set.
TEST(TupleBox, FullAsBitsFromSets)
{
    for (unsigned arity = 1; arity <= 4; arity++) {
        std::mt19937_64 rng(arity * 7919);
        std::set<Tuple> full, parts[3];
        for (int i = 0; i < 3000; i++) {
            Tuple t = random_tuple(rng, arity, 1000, arity == 1 ? 3000 : 9);
            if (full.insert(t).second)
                parts[rng() % 3].insert(t);
        }
        std::vector<uint64_t> flat0 = flatten(parts[0]);
        std::vector<uint64_t> flat2 = flatten(parts[2]);
        packed_tuples packed = pack(parts[1], arity);
        tuple_source src[3] = {{{flat0.data(), parts[0].size()}, nullptr},
                               {{nullptr, 0}, &packed},
                               {{flat2.data(), parts[2].size()}, nullptr}};
        uint64_t held_before = budget_held();
        tuple_box box;
        // Refused under a limit too small for its rows: left empty.
        EXPECT_EQ(tuple_box_start_sets(&box, src, 3, arity, 16, 1), 0);
        EXPECT_EQ(box.slot, nullptr);
        EXPECT_EQ(budget_held(), held_before);
        ASSERT_EQ(tuple_box_start_sets(&box, src, 3, arity, 1 << 24, 1), 1)
            << "arity " << arity;
        EXPECT_EQ(tuple_box_count(&box), full.size());
        // Membership: every tuple of full, and others in and around it.
        for (const auto &t : full)
            EXPECT_EQ(tuple_box_has(&box, t.data()), 1);
        for (int i = 0; i < 5000; i++) {
            Tuple t = random_tuple(rng, arity, 990, arity == 1 ? 3100 : 30);
            EXPECT_EQ(tuple_box_has(&box, t.data()), (int)full.count(t))
                << "arity " << arity;
        }
        // Read back: in order, each once.
        Collected each = {{}, arity};
        ASSERT_EQ(tuple_box_each(&box, collect_tuples, &each), MPI_SUCCESS);
        EXPECT_EQ(each.t, flatten(full)) << "arity " << arity;
        // full as bits with a flat run beside it, against candidates.
        std::set<Tuple> extra;
        for (int i = 0; i < 200; i++)
            extra.insert(arity == 1 ? random_tuple(rng, arity, 4100, 50)
                                    : random_tuple(rng, arity, 1012, 4));
        std::vector<uint64_t> extra_flat = flatten(extra);
        tuple_run run = {extra_flat.data(), extra.size()};
        full_set as_full = {&run, 1, nullptr, &box, nullptr};
        std::vector<uint64_t> cand;
        std::set<Tuple> want;
        for (int i = 0; i < 4000; i++) {
            Tuple t = i % 4 == 0 ? *std::next(extra.begin(),
                                              (long)(rng() % extra.size()))
                                 : random_tuple(rng, arity, 995,
                                                arity == 1 ? 3010 : 16);
            cand.insert(cand.end(), t.begin(), t.end());
            if (!full.count(t) && !extra.count(t))
                want.insert(t);
        }
        std::vector<uint64_t> c = cand;
        size_t n = tuples_reduce_in(c.data(), cand.size() / arity, arity,
                                    &as_full);
        c.resize(n * arity);
        EXPECT_EQ(c, flatten(want)) << "reduce, arity " << arity;
        c = cand;
        tuple_box cands;
        ASSERT_EQ(tuple_box_start(&cands, c.data(), cand.size() / arity,
                                  arity, 1 << 24),
                  1);
        tuple_buf out;
        std::memset(&out, 0, sizeof out);
        ASSERT_EQ(tuple_box_drain_in(&cands, &as_full, &out), MPI_SUCCESS);
        EXPECT_EQ(std::vector<uint64_t>(out.data, out.data + out.n * arity),
                  flatten(want))
            << "drain, arity " << arity;
        tuple_buf_free(&out);
        tuple_box_free(&box);
        EXPECT_EQ(budget_held(), held_before);
        packed_free(&packed);
    }
}

// A box of full may span, every row held or not, twice the words its
// tuples take flat (storage.c, BITS_SPAN_FACTOR): 100 rows of 40 words
// (4,000) against 1,500 tuples (3,000 words flat) are refused once and
// taken twice.  The factor stays with the box as it widens: with 2,100
// tuples it may double its last column (8,000 words against 8,400),
// where once it could not (4,200).  Against std::set.
TEST(TupleBox, SpanFactorBoundsAStartAndItsWidening)
{
    const unsigned arity = 2;
    std::mt19937_64 rng(29);
    std::set<Tuple> full;
    for (uint64_t row = 0; row < 100; row++) {
        full.insert(Tuple{1000 + row, 0});
        full.insert(Tuple{1000 + row, 2559});
    }
    while (full.size() < 1500)
        full.insert(Tuple{1000 + rng() % 100, rng() % 2560});
    std::vector<uint64_t> flat = flatten(full);
    tuple_source src[1] = {{{flat.data(), full.size()}, nullptr}};
    uint64_t held_before = budget_held();
    tuple_box box;
    EXPECT_EQ(tuple_box_start_sets(&box, src, 1, arity, 1 << 24, 1), 0);
    EXPECT_EQ(box.slot, nullptr);
    EXPECT_EQ(budget_held(), held_before);
    ASSERT_EQ(tuple_box_start_sets(&box, src, 1, arity, 1 << 24, 2), 1);
    EXPECT_EQ(box.rows, 100u);
    EXPECT_EQ(box.row_words, 40u);
    while (full.size() < 2100) {
        Tuple t{1000 + rng() % 100, rng() % 2560};
        if (full.insert(t).second) {
            ASSERT_EQ(tuple_box_add(&box, t.data()), 1);
        }
    }
    Tuple far{1050, 2600};
    ASSERT_EQ(tuple_box_add(&box, far.data()), 1);
    full.insert(far);
    EXPECT_GE(box.max[1], 2600u);
    EXPECT_EQ(tuple_box_count(&box), full.size());
    for (int i = 0; i < 20000; i++) {
        Tuple t{995 + rng() % 110, rng() % 2700};
        EXPECT_EQ(tuple_box_has(&box, t.data()), (int)full.count(t));
    }
    Collected each = {{}, arity};
    ASSERT_EQ(tuple_box_each(&box, collect_tuples, &each), MPI_SUCCESS);
    EXPECT_EQ(each.t, flatten(full));
    tuple_box_free(&box);
    EXPECT_EQ(budget_held(), held_before);
}

// A box widened by whole words of its last column, or in its other
// columns only, lengthens its rows in their own room (lengthen_rows): rows
// rewritten from the last to the first, their words moved up one where
// the last column now starts 64 values earlier.  What comes out is every
// tuple taken, each once, and the ledger gets back every byte noted.
TEST(TupleBox, WidensInPlaceByWholeWords)
{
    for (unsigned arity = 2; arity <= 3; arity++) {
        unsigned k = arity - 1;
        std::mt19937_64 rng(arity);
        uint64_t held_before = budget_held();
        std::set<Tuple> added;
        std::vector<uint64_t> first;
        for (int i = 0; i < 300; i++) {
            Tuple t = random_tuple(rng, arity, 10, 8);
            t[k] = 128 + rng() % 64;
            first.insert(first.end(), t.begin(), t.end());
            added.insert(t);
        }
        tuple_box box;
        ASSERT_EQ(tuple_box_start(&box, first.data(), 300, arity, 1 << 20),
                  1);
        ASSERT_EQ(box.min[k], 128u);
        // The last column 64 earlier (a word), then much later, then the
        // first column wider: three layouts, each kept in place.
        for (int phase = 0; phase < 3; phase++)
            for (int i = 0; i < 300; i++) {
                Tuple t = random_tuple(rng, arity, 10, 8);
                t[k] = phase == 0   ? 64 + rng() % 64
                       : phase == 1 ? 192 + rng() % 500
                                    : 64 + rng() % 600;
                if (phase == 2)
                    t[0] = 4 + rng() % 10;
                if (tuple_box_add(&box, t.data()))
                    added.insert(t);
            }
        EXPECT_EQ(box.min[k], 64u) << "arity " << arity;
        EXPECT_GE(box.max[k], 600u) << "arity " << arity;
        EXPECT_LT(box.min[0], 10u) << "arity " << arity;
        EXPECT_EQ(tuple_box_count(&box), added.size());
        tuple_buf out;
        std::memset(&out, 0, sizeof out);
        ASSERT_EQ(tuple_box_drain(&box, nullptr, 0, nullptr, &out),
                  MPI_SUCCESS);
        std::vector<Tuple> want(added.begin(), added.end());
        std::vector<Tuple> got;
        for (size_t i = 0; i < out.n; i++)
            got.emplace_back(out.data + i * arity,
                             out.data + (i + 1) * arity);
        EXPECT_EQ(got, want) << "arity " << arity;
        tuple_buf_free(&out);
        EXPECT_EQ(budget_held(), held_before) << "arity " << arity;
    }
}

TEST(TupleBox, DrainAppends)
{
    std::vector<uint64_t> t = {5, 7, 5, 8, 6, 7};
    tuple_box box;
    ASSERT_EQ(tuple_box_start(&box, t.data(), 3, 2, 1 << 20), 1);
    tuple_buf out;
    std::memset(&out, 0, sizeof out);
    uint64_t before[2] = {99, 99};
    ASSERT_EQ(tuple_buf_append(&out, 2, before, 1), MPI_SUCCESS);
    ASSERT_EQ(tuple_box_drain(&box, nullptr, 0, nullptr, &out), MPI_SUCCESS);
    std::vector<uint64_t> got(out.data, out.data + out.n * 2);
    EXPECT_EQ(got, (std::vector<uint64_t>{99, 99, 5, 7, 5, 8, 6, 7}));
    tuple_buf_free(&out);
}

} // namespace
