// The exchange that discovers its receive counts (ravel_exchange_*), with
// every backend, against an oracle that needs no exchange at all: every
// byte is a function of (sender, receiver, position), and every block's
// length is the shape's count (exchange_cases.h), so each rank knows what
// it must find in each view.  Also: the Bruck family posts exactly its
// MPI_Alltoallv messages (no count exchange), the others exactly P - 1
// more; views survive until the next run; the send-buffer form; repeated
// runs of changing sizes on one handle.  Runs under mpiexec on several P.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <string>
#include <vector>

#include "exchange_oracle.h"
#include "mpi_gtest_main.h"
#include "ravel/comm.h"
#include "ravel/cost_model.h"
#include "ravel/error.h"

namespace {

using namespace exchange_oracle;

std::vector<std::string> backends()
{
    std::vector<std::string> names;
    for (const char *v : {"radix-bruck:3", "radix-bruck:16",
                          "padded-bruck:basic"})
        EXPECT_NE(ravel_alltoallv_lookup(v), nullptr) << v;
    for (size_t i = 0; i < ravel_alltoallv_count(); i++)
        names.push_back(ravel_alltoallv_name(i));
    return names;
}

bool discovers(const std::string &name)
{
    return name == "two-phase-bruck" || name == "inline-bruck" ||
           name.rfind("radix-bruck", 0) == 0 || name == "shm";
}

std::vector<uint64_t> matrix(int shape, uint64_t seed)
{
    std::vector<uint64_t> m((size_t)size_ * size_);
    for (int s = 0; s < size_; s++)
        for (int d = 0; d < size_; d++)
            m[(size_t)s * size_ + d] = length_of(shape, seed, s, d);
    return m;
}

} // namespace

TEST(Exchange, EveryBackendDeliversEveryBlockWithoutCounts)
{
    for (const std::string &name : backends()) {
        ravel_exchange *x = nullptr;
        ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, name.c_str(), &x),
                  MPI_SUCCESS)
            << ravel_error_message();
        // One handle, many runs: sizes change from run to run.
        for (int shape = 0; shape < SHAPE_COUNT; shape++)
            for (uint64_t seed : {1u, 2u}) {
                std::string what = name + " " + shape_names[shape] + " P=" +
                                   std::to_string(size_) + " seed " +
                                   std::to_string(seed);
                fill_outboxes(x, shape, seed);
                ravel_comm_stats_reset();
                ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS)
                    << what << ": " << ravel_error_message();
                ravel_comm_stats got = ravel_comm_stats_get();
                check_inbox(x, shape, seed, what);
                std::string used = ravel_exchange_backend(x);
                ravel_cost_counts want;
                std::vector<uint64_t> m = matrix(shape, seed);
                ASSERT_EQ(ravel_cost_counts_of(used.c_str(), size_, rank_,
                                               m.data(), &want),
                          0)
                    << used;
                // The Bruck family learns sizes on the way: exactly its
                // own messages.  The others: one count per peer more.
                uint64_t extra = discovers(used) ? 0 : (uint64_t)size_ - 1;
                EXPECT_EQ(got.messages, want.messages + extra)
                    << what << " ran " << used;
            }
        ravel_exchange_free(x);
    }
}

TEST(Exchange, ViewsLastUntilTheNextRunAndTheSendBufferFormWorks)
{
    for (const std::string &name : backends()) {
        ravel_exchange *x = nullptr;
        ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, name.c_str(), &x),
                  MPI_SUCCESS);
        fill_outboxes(x, SHAPE_RANDOM, 5);
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        // Writing the next run's outboxes leaves this run's views alone.
        fill_outboxes(x, SHAPE_SKEWED, 6);
        check_inbox(x, SHAPE_RANDOM, 5, name + " before the next run");
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        check_inbox(x, SHAPE_SKEWED, 6, name + " outboxes written early");
        ravel_exchange_release(x); // and the next run starts from nothing
        size_t none = 1;
        ravel_exchange_inbox(x, 0, &none);
        EXPECT_EQ(none, 0u) << name << " views after release";

        // The caller's buffer, blocks in reverse rank order with gaps.
        std::vector<size_t> bytes(size_), offsets(size_);
        size_t at = 0;
        for (int dst = size_ - 1; dst >= 0; dst--) {
            bytes[dst] = length_of(SHAPE_SPARSE, 7, rank_, dst);
            offsets[dst] = at;
            at += bytes[dst] + 5;
        }
        std::vector<unsigned char> buf(at + 1, 0xEE);
        for (int dst = 0; dst < size_; dst++)
            for (size_t i = 0; i < bytes[dst]; i++)
                buf[offsets[dst] + i] = byte_of(7, rank_, dst, i);
        std::vector<unsigned char> before = buf;
        ASSERT_EQ(ravel_exchange_send(x, buf.data(), bytes.data(),
                                      offsets.data()),
                  MPI_SUCCESS);
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        check_inbox(x, SHAPE_SPARSE, 7, name + " send buffer");
        EXPECT_EQ(buf, before) << name << " wrote to the send buffer";
        ravel_exchange_free(x);
    }
}

// A caller's send buffer of more than 2 GiB (the engine's rounds send a
// slice of every block of one large stream array): blocks far past INT_MAX
// but close together, then blocks further apart than an int reaches (0 and
// 2.5 GiB), empty blocks at offsets past the buffer's end.  Before, every
// backend without discovery refused both ("starts past INT_MAX bytes"),
// which stopped ravel-tc on p2p-Gnutella31 at 2 ranks.  The buffer is a
// mapping nothing touches but the blocks' pages.
TEST(Exchange, SendBufferOfMoreThanIntMaxBytes)
{
    const size_t span = (size_t)3 << 30, far = (size_t)5 << 29;
    void *map = mmap(nullptr, span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(map, MAP_FAILED);
    auto *buf = static_cast<unsigned char *>(map);
    for (int layout = 0; layout < 2; layout++) {
        const uint64_t seed = 11 + (uint64_t)layout;
        std::vector<size_t> bytes(size_), offsets(size_);
        for (int dst = 0; dst < size_; dst++) {
            bytes[dst] = length_of(SHAPE_SPARSE, seed, rank_, dst);
            // layout 0: all near 2.5 GiB; layout 1: dst 0 at 0, the others
            // from 2.5 GiB on.
            offsets[dst] = layout == 1 && dst == 0 ? 0 : far + 8192 * (size_t)dst;
            if (!bytes[dst])
                offsets[dst] = span + 12345; // never read
            for (size_t i = 0; i < bytes[dst]; i++)
                buf[offsets[dst] + i] = byte_of(seed, rank_, dst, i);
        }
        for (const std::string &name : backends()) {
            ravel_exchange *x = nullptr;
            ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, name.c_str(), &x),
                      MPI_SUCCESS);
            ASSERT_EQ(ravel_exchange_send(x, buf, bytes.data(),
                                          offsets.data()),
                      MPI_SUCCESS);
            ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS)
                << name << " layout " << layout << ": "
                << ravel_error_message();
            check_inbox(x, SHAPE_SPARSE, seed,
                        name + " layout " + std::to_string(layout));
            ravel_exchange_free(x);
        }
    }
    munmap(map, span);
}

// A rank still reading the last run's views while the others have gone on
// to the next run and written its blocks (shm writes them into a shared
// segment the reader's views point into: the other half of it).
TEST(Exchange, ViewsSurviveTheOthersStartingTheNextRun)
{
    for (const std::string &name : backends()) {
        ravel_exchange *x = nullptr;
        ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, name.c_str(), &x),
                  MPI_SUCCESS);
        for (uint64_t seed : {11u, 12u, 13u}) {
            fill_outboxes(x, SHAPE_RANDOM, seed);
            ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        }
        fill_outboxes(x, SHAPE_SKEWED, 14);
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        // Rank 0 reads late; the others start the next run at once (and
        // wait in it for rank 0).  Not a timing assertion: the pause only
        // makes the interleaving likely; the check holds in any order.
        if (rank_ == 0) {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, nullptr);
            check_inbox(x, SHAPE_SKEWED, 14, name + " read late");
        }
        fill_outboxes(x, SHAPE_RANDOM, 15);
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << name;
        check_inbox(x, SHAPE_RANDOM, 15, name + " after the late reader");
        ravel_exchange_free(x);
    }
}

// shm reads in place: given a send buffer, inside the exchange it copies
// its blocks into its segment and nothing out (S_r + Z_r bytes), and its
// views, in shared memory, cannot be handed over.  (Outboxes it holds in
// its segment already: test_shm_outboxes.cc.)
TEST(Exchange, ShmCopiesOnlyIntoItsSegment)
{
    ravel_comm_set_shm_chunk(4 << 20); // every case's blocks fit a half
    ravel_exchange *x = nullptr;
    ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, "shm", &x), MPI_SUCCESS);
    for (int shape = 0; shape < SHAPE_COUNT; shape++) {
        std::string what = std::string("shm ") + shape_names[shape];
        send_buffer buf(shape, 21);
        ASSERT_EQ(buf.send(x), MPI_SUCCESS);
        ravel_comm_stats_reset();
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << what;
        ravel_comm_stats got = ravel_comm_stats_get();
        check_inbox(x, shape, 21, what);
        uint64_t out = 0;
        for (int dst = 0; dst < size_; dst++)
            out += length_of(shape, 21, rank_, dst);
        EXPECT_EQ(got.copied, out) << what;
        EXPECT_EQ(got.posted, 0u) << what;
        size_t bytes = 1;
        void *taken = ravel_exchange_take_inbox(x, &bytes);
        if (size_ > 1) {
            EXPECT_EQ(taken, nullptr) << what;
            EXPECT_EQ(bytes, 0u) << what;
        }
        check_inbox(x, shape, 21, what + " after take_inbox");
        free(taken); // one rank: its own block, in the inbox's memory
    }
    ravel_exchange_free(x);
    ravel_comm_set_shm_chunk(0);
}

// An exchange whose largest segment needs more than a half holds goes in
// rounds, and then copies out: S_r + Z_r bytes into the segment, R_r + Z_r
// out of the segments into the inbox, whose memory the caller may take.
TEST(Exchange, ShmInRoundsCopiesOut)
{
    ravel_comm_set_shm_chunk(1024);
    ravel_exchange *x = nullptr;
    ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, "shm", &x), MPI_SUCCESS);
    for (int shape : {SHAPE_RANDOM, SHAPE_ONE_SENDER, SHAPE_SKEWED}) {
        std::string what = std::string("shm in rounds ") + shape_names[shape];
        uint64_t out = 0, in = 0, largest = 0;
        for (int peer = 0; peer < size_; peer++) {
            out += length_of(shape, 31, rank_, peer);
            in += length_of(shape, 31, peer, rank_);
        }
        MPI_Allreduce(&out, &largest, 1, MPI_UINT64_T, MPI_MAX,
                      MPI_COMM_WORLD);
        if (size_ == 1 || largest <= 1024)
            continue; // one rank copies its block; else no rounds
        send_buffer buf(shape, 31);
        ASSERT_EQ(buf.send(x), MPI_SUCCESS);
        ravel_comm_stats_reset();
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << what;
        ravel_comm_stats got = ravel_comm_stats_get();
        check_inbox(x, shape, 31, what);
        EXPECT_EQ(got.copied, out + in) << what;
        EXPECT_EQ(got.posted, 0u) << what;
        size_t bytes = 0; // the views are the inbox's, not the segments'
        void *taken = ravel_exchange_take_inbox(x, &bytes);
        if (taken) {
            EXPECT_GE(bytes, in) << what;
        }
        check_inbox(x, shape, 31, what + " after take_inbox");
        free(taken);
    }
    ravel_exchange_free(x);
    ravel_comm_set_shm_chunk(0);
}

TEST(Exchange, BadNamesAndRanksAreRefused)
{
    ravel_exchange *x = reinterpret_cast<ravel_exchange *>(1);
    EXPECT_EQ(ravel_exchange_create(MPI_COMM_WORLD, "radix-bruck:1", &x),
              MPI_ERR_ARG);
    EXPECT_EQ(x, nullptr);
    EXPECT_NE(std::string(ravel_error_message()).find("radix-bruck:1"),
              std::string::npos);
    ASSERT_EQ(ravel_exchange_create(MPI_COMM_WORLD, "vendor", &x),
              MPI_SUCCESS);
    EXPECT_EQ(ravel_exchange_outbox(x, size_, 1), nullptr);
    EXPECT_NE(std::string(ravel_error_message()).find("outbox of rank"),
              std::string::npos);
    EXPECT_EQ(ravel_exchange_outbox(x, -1, 1), nullptr);
    ravel_exchange_free(x);
    ravel_exchange_free(nullptr);
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &exchange_oracle::rank_,
                          &exchange_oracle::size_, "Exchange");
}
