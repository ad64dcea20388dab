// The exchange's streams (relalg/exchange_streams.c): what an outbox sends
// another rank, read back by the receiver, against std::set (sorted, each
// tuple once).  Outboxes are filled with repeats in any order, partly
// sealed on the way (as push_compacting does when a buffer fills), for
// arities 1 to 8 and values of few bits (packed segments are shorter) and
// of 64 (raw ones are); a stream cut short or with a word overwritten is
// refused or read without reading past its end (the sanitizer build
// checks that), never trusted blindly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include <mpi.h> // before the C block: mpi.h brings C++ declarations

extern "C" {
#include "ravel/error.h"
#include "relalg_internal.h"
}

namespace {

using Tuple = std::vector<uint64_t>;

// A bare engine of two ranks (this one 0) with one relation per arity
// given: enough for the outbox and the streams, nothing else.
struct Engine {
    ravel_engine e;
    std::vector<relation> rels;

    explicit Engine(const std::vector<unsigned> &arities)
        : rels(arities.size())
    {
        std::memset(&e, 0, sizeof e);
        for (size_t i = 0; i < arities.size(); i++) {
            std::memset(&rels[i], 0, sizeof rels[i]);
            rels[i].arity = arities[i];
        }
        e.rels = rels.data();
        e.nrels = rels.size();
        e.size = 2;
        e.rank = 0;
        e.outbox_slots = 2 * rels.size();
        size_t n = e.outbox_slots * (size_t)e.size;
        e.outbox = static_cast<tuple_buf *>(calloc(n, sizeof(tuple_buf)));
        e.outbox_packed =
            static_cast<packed_tuples *>(calloc(n, sizeof(packed_tuples)));
        e.outbox_box =
            static_cast<tuple_box **>(calloc(n, sizeof(tuple_box *)));
    }
    ~Engine()
    {
        for (size_t i = 0; i < e.outbox_slots * (size_t)e.size; i++) {
            tuple_buf_free(&e.outbox[i]);
            packed_free(&e.outbox_packed[i]);
        }
        for (relation &r : rels) {
            tuple_buf_free(&r.full);
            tuple_filter_free(&r.filter);
            packed_free(&r.packed);
        }
        free(e.outbox);
        free(e.outbox_packed);
        free(e.outbox_box); /* the tests make no box */
    }
    unsigned arity(size_t slot) const { return rels[slot / 2].arity; }
};

// Gives r the full a receiver holds: flat (sorted: a std::set's order)
// and packed parts, disjoint.
void hold_in_full(relation *r, const std::set<Tuple> &flat,
                  const std::set<Tuple> &packed)
{
    unsigned a = r->arity;
    for (const Tuple &h : flat)
        ASSERT_EQ(tuple_buf_push(&r->full, a, h.data()), MPI_SUCCESS);
    std::vector<uint64_t> fp;
    for (const Tuple &h : packed)
        fp.insert(fp.end(), h.begin(), h.end());
    packed_tuples none = {};
    ASSERT_EQ(packed_merge(&r->packed, &none, fp.data(), packed.size(), a),
              MPI_SUCCESS);
}

// Reads every segment of the stream, tuples per slot; false (with the
// error) when a segment is refused.
bool read_stream(const ravel_engine *e, const std::vector<uint64_t> &s,
                 std::vector<std::vector<Tuple>> *got)
{
    got->assign(e->outbox_slots, {});
    const uint64_t *in = s.data(), *end = s.data() + s.size();
    while (in < end) {
        stream_segment sg;
        if (exchange_next_segment(e, 1, &in, end, &sg) != MPI_SUCCESS)
            return false;
        unsigned a = e->rels[sg.slot / 2].arity;
        std::vector<uint64_t> flat(sg.n * a + 1);
        uint64_t kept;
        if (exchange_unpack_segment(e, &sg, flat.data(), &kept) !=
            MPI_SUCCESS)
            return false;
        for (uint64_t i = 0; i < kept; i++)
            (*got)[sg.slot].emplace_back(flat.begin() + i * a,
                                         flat.begin() + (i + 1) * a);
    }
    return true;
}

TEST(ExchangeStreams, WhatIsSentIsWhatArrivesOnceAndSorted)
{
    std::mt19937_64 rng(15);
    const std::vector<unsigned> arities = {1, 2, 3, 8};
    for (unsigned bits : {6u, 20u, 64u}) {
        for (int round = 0; round < 4; round++) {
            Engine x(arities);
            std::vector<std::set<Tuple>> want(x.e.outbox_slots);
            for (size_t slot = 0; slot < x.e.outbox_slots; slot++) {
                unsigned a = x.arity(slot);
                size_t n = (size_t)(rng() % 3000) * (slot % 3);
                tuple_buf *b = outbox_at(&x.e, slot, 1);
                uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
                Tuple t(a);
                for (size_t i = 0; i < n; i++) {
                    if (i % 3 != 2 || want[slot].empty()) // repeats too
                        for (auto &v : t)
                            v = rng() & mask;
                    ASSERT_EQ(tuple_buf_push(b, a, t.data()), MPI_SUCCESS);
                    want[slot].insert(t);
                    if (i == n / 2 && round % 2) { // sealed half way
                        ASSERT_EQ(exchange_seal_outbox(&x.e, slot, 1, 1),
                                  MPI_SUCCESS);
                    }
                }
                ASSERT_EQ(exchange_seal_outbox(&x.e, slot, 1, 0),
                          MPI_SUCCESS);
            }
            std::vector<uint64_t> stream(exchange_stream_words(&x.e, 1) + 1);
            exchange_write_stream(&x.e, 1, stream.data());
            stream.pop_back();
            std::vector<std::vector<Tuple>> got;
            ASSERT_TRUE(read_stream(&x.e, stream, &got))
                << ravel_error_message();
            size_t raw_words = 0;
            for (size_t slot = 0; slot < x.e.outbox_slots; slot++) {
                std::vector<Tuple> w(want[slot].begin(), want[slot].end());
                EXPECT_EQ(got[slot], w) << "slot " << slot << " bits " << bits;
                raw_words += w.empty() ? 0 : 2 + w.size() * x.arity(slot);
            }
            // Each segment takes the shorter form: never longer than raw,
            // and much shorter where values have few bits.
            EXPECT_LE(stream.size(), raw_words);
            if (bits == 6 && raw_words > 0) {
                EXPECT_LT(stream.size() * 3, raw_words);
            }
            // Everything left the outbox.
            for (size_t slot = 0; slot < x.e.outbox_slots; slot++) {
                EXPECT_EQ(outbox_at(&x.e, slot, 1)->n, 0u);
                EXPECT_EQ(outbox_packed_at(&x.e, slot, 1)->n, 0u);
            }
        }
    }
}

// A packed segment lands without the tuples its relation's full already
// holds (flat or packed: the receiver's), decoded a chunk at a time; a raw
// one lands whole (promotion drops those).
TEST(ExchangeStreams, APackedSegmentLandsWithoutWhatFullHolds)
{
    std::mt19937_64 rng(17);
    for (unsigned bits : {6u, 64u}) {
        Engine x({2, 8});
        std::vector<std::set<Tuple>> want(x.e.outbox_slots);
        for (size_t slot = 0; slot < x.e.outbox_slots; slot += 2) {
            unsigned a = x.arity(slot);
            uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
            std::set<Tuple> sent, in_flat, in_packed;
            Tuple t(a);
            for (size_t i = 0; i < 20000; i++) {
                for (auto &v : t)
                    v = rng() & mask;
                ASSERT_EQ(tuple_buf_push(outbox_at(&x.e, slot, 1), a,
                                         t.data()),
                          MPI_SUCCESS);
                sent.insert(t);
                if (rng() % 4 == 0) // held by the receiver, half packed
                    (rng() % 2 ? in_flat : in_packed).insert(t);
            }
            for (size_t i = 0; i < 3000; i++) { // held, not sent
                for (auto &v : t)
                    v = rng() & mask;
                if (!in_flat.count(t))
                    in_packed.insert(t);
            }
            ASSERT_EQ(exchange_seal_outbox(&x.e, slot, 1, 0), MPI_SUCCESS);
            hold_in_full(&x.rels[slot / 2], in_flat, in_packed);
            ASSERT_FALSE(HasFatalFailure());
            for (const Tuple &u : sent)
                if (bits == 64 || (!in_flat.count(u) && !in_packed.count(u)))
                    want[slot].insert(u);
        }
        std::vector<uint64_t> stream(exchange_stream_words(&x.e, 1));
        exchange_write_stream(&x.e, 1, stream.data());
        std::vector<std::vector<Tuple>> got;
        ASSERT_TRUE(read_stream(&x.e, stream, &got)) << ravel_error_message();
        for (size_t slot = 0; slot < x.e.outbox_slots; slot++)
            EXPECT_EQ(got[slot],
                      std::vector<Tuple>(want[slot].begin(), want[slot].end()))
                << "slot " << slot << " bits " << bits;
    }
}

TEST(ExchangeStreams, ADamagedStreamIsRefusedNotOverrun)
{
    std::mt19937_64 rng(16);
    Engine x({2, 3});
    for (size_t slot = 0; slot < x.e.outbox_slots; slot++) {
        unsigned a = x.arity(slot);
        Tuple t(a);
        for (int i = 0; i < 700; i++) {
            for (auto &v : t)
                v = rng() % 5000;
            ASSERT_EQ(tuple_buf_push(outbox_at(&x.e, slot, 1), a, t.data()),
                      MPI_SUCCESS);
        }
        ASSERT_EQ(exchange_seal_outbox(&x.e, slot, 1, 0), MPI_SUCCESS);
    }
    std::vector<uint64_t> stream(exchange_stream_words(&x.e, 1));
    exchange_write_stream(&x.e, 1, stream.data());
    std::vector<std::vector<Tuple>> got;
    ASSERT_TRUE(read_stream(&x.e, stream, &got));
    // Where the segments end, read independently of the reader's sizes:
    // packed ones from their header (3 words, heads, bytes), raw ones
    // from theirs.
    std::set<size_t> ends;
    int packed = 0;
    for (size_t at = 0; at < stream.size();) {
        size_t slot = stream[at] & ~(1ull << 63);
        unsigned a = x.arity(slot);
        uint64_t n = stream[at + 1];
        if (stream[at] >> 63) {
            at += 3 + (n + PACKED_BLOCK - 1) / PACKED_BLOCK * a +
                  (stream[at + 2] + 7) / 8;
            packed++;
        } else {
            at += 2 + n * a;
        }
        ends.insert(at);
    }
    EXPECT_EQ(packed, 4); // every segment: 700 tuples of small values
    // Cut short inside a segment: refused (a copy on the heap lets the
    // sanitizer see any read past its end).
    for (size_t len = 1; len < stream.size(); len++) {
        std::vector<uint64_t> cut(stream.begin(), stream.begin() + len);
        EXPECT_EQ(read_stream(&x.e, cut, &got), ends.count(len) == 1)
            << "cut at " << len << " of " << stream.size();
    }
    // Any one word overwritten: read or refused, within the stream.
    for (size_t at = 0; at < stream.size(); at++) {
        std::vector<uint64_t> bad = stream;
        bad[at] = rng();
        (void)read_stream(&x.e, bad, &got);
        bad[at] = stream[at] ^ (1ull << 63);
        (void)read_stream(&x.e, bad, &got);
    }
}

// Promotion (storage.c) gathers the candidates that came raw (searched
// against full there) and those that came checked (a box's drain, packed
// segments: without full's tuples, each piece sorted) into one new delta:
// against std::set, every candidate not in full once, sorted, whether the
// checked ones are one piece or several, overlap the raw ones or not.
TEST(ExchangeStreams, PromotionKeepsEachNewCandidateOnce)
{
    std::mt19937_64 rng(19);
    for (unsigned a : {1u, 2u, 3u}) {
        for (int shape = 0; shape < 8; shape++) {
            Engine x({a});
            relation *r = &x.rels[0];
            uint64_t mask = shape % 2 ? 63 : 4095; // dense or sparse
            std::set<Tuple> full, flat_part, packed_part, want;
            Tuple t(a);
            for (int i = 0; i < 3000; i++) {
                for (auto &v : t)
                    v = rng() & mask;
                (rng() % 2 ? flat_part : packed_part).insert(t);
            }
            for (const Tuple &h : packed_part)
                flat_part.erase(h);
            hold_in_full(r, flat_part, packed_part);
            ASSERT_FALSE(HasFatalFailure());
            full = flat_part;
            full.insert(packed_part.begin(), packed_part.end());
            // Raw candidates: repeats, some held (none when shape & 4).
            size_t raw = shape & 4 ? 0 : 5000;
            for (size_t i = 0; i < raw; i++) {
                for (auto &v : t)
                    v = rng() & mask;
                ASSERT_EQ(tuple_buf_push(&r->incoming, a, t.data()),
                          MPI_SUCCESS);
                if (!full.count(t))
                    want.insert(t);
            }
            // Checked ones: pieces sorted, without full's tuples (one
            // piece when shape & 2), some also among the raw ones.
            int pieces = shape & 2 ? 1 : 3;
            for (int p = 0; p < pieces; p++) {
                std::set<Tuple> piece;
                for (int i = 0; i < 2000; i++) {
                    for (auto &v : t)
                        v = rng() & mask;
                    if (!full.count(t))
                        piece.insert(t);
                }
                for (const Tuple &u : piece) {
                    ASSERT_EQ(tuple_buf_push(&r->incoming_checked, a,
                                             u.data()),
                              MPI_SUCCESS);
                    want.insert(u);
                }
            }
            uint64_t n = 0;
            ASSERT_EQ(storage_promote(&x.e, r, &n), MPI_SUCCESS)
                << ravel_error_message();
            std::vector<Tuple> got;
            for (size_t i = 0; i < r->delta.n; i++)
                got.emplace_back(r->delta.data + i * a,
                                 r->delta.data + (i + 1) * a);
            std::vector<Tuple> w(want.begin(), want.end());
            EXPECT_EQ(got, w) << "arity " << a << " shape " << shape;
            EXPECT_EQ(n, w.size());
            EXPECT_EQ(r->incoming.n, 0u);
            EXPECT_EQ(r->incoming_checked.n, 0u);
            tuple_buf_free(&r->delta);
            for (unsigned i = 0; i < r->nruns; i++)
                tuple_buf_free(&r->runs[i]);
            tuple_buf_free(&r->incoming);
            tuple_buf_free(&r->incoming_checked);
        }
    }
}

} // namespace
