// shm's outboxes written in place: an exchange handle of backend shm hands
// out its outboxes' room in the rank's segment of the node's shared window,
// so that the run copies nothing.  Checked against the oracle of
// exchange_oracle.h (bytes every rank computes for itself), on a fresh
// communicator per test (a window of its own): the run after a warm-up
// copies no byte; every way the placed outboxes can be in the way (another
// handle's run, an MPI_Alltoallv-form call, a growth of the window, a call
// in rounds, a send buffer instead) moves them out first and loses
// nothing; the call after a failed one still waits for its writers; and
// ravel_exchange_outboxes_fit tells truly whether they would go in place.
// Runs under mpiexec on several P.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "exchange_oracle.h"
#include "mpi_gtest_main.h"
#include "ravel/comm.h"
#include "ravel/error.h"

namespace {

using namespace exchange_oracle;

// Bytes src sends dst.
using lengths = std::function<size_t(int src, int dst)>;

lengths of_shape(int shape, uint64_t seed)
{
    return [=](int src, int dst) { return length_of(shape, seed, src, dst); };
}

// Fills the outboxes from `len`, in up to three appends per destination,
// destinations interleaved (the rooms are handed out in that order).
void fill(ravel_exchange *x, const lengths &len, uint64_t seed)
{
    std::vector<size_t> done(size_, 0);
    for (int part = 0; part < 3; part++)
        for (int d = 0; d < size_; d++) {
            int dst = (rank_ + d) % size_;
            size_t all = len(rank_, dst), left = all - done[dst];
            size_t n = part == 2 ? left : (left + 1) / 2;
            if (n == 0)
                continue;
            auto *p = static_cast<unsigned char *>(
                ravel_exchange_outbox(x, dst, n));
            ASSERT_NE(p, nullptr) << ravel_error_message();
            for (size_t i = 0; i < n; i++)
                p[i] = byte_of(seed, rank_, dst, done[dst] + i);
            done[dst] += n;
        }
}

void check(const ravel_exchange *x, const lengths &len, uint64_t seed,
           const std::string &what)
{
    for (int src = 0; src < size_; src++) {
        size_t got = 0;
        auto *p = static_cast<const unsigned char *>(
            ravel_exchange_inbox(x, src, &got));
        ASSERT_EQ(got, len(src, rank_)) << what << " from rank " << src;
        for (size_t i = 0; i < got; i++)
            if (p[i] != byte_of(seed, src, rank_, i)) {
                ADD_FAILURE() << what << " from rank " << src << ": byte "
                              << i << " differs";
                return;
            }
    }
}

// One run of handle x on outboxes from `len`, checked.
void run_checked(ravel_exchange *x, const lengths &len, uint64_t seed,
                 const std::string &what)
{
    fill(x, len, seed);
    ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS)
        << what << ": " << ravel_error_message();
    check(x, len, seed, what);
}

// A communicator of its own (its own context and window) for one test.
struct fresh_comm {
    MPI_Comm comm;
    fresh_comm() { MPI_Comm_dup(MPI_COMM_WORLD, &comm); }
    ~fresh_comm() { MPI_Comm_free(&comm); }
};

// x filled from (lx, sx), then y from (ly, sy); runs x first or y first,
// each checked.
void fill_both_run_in_order(ravel_exchange *x, const lengths &lx,
                            uint64_t sx, ravel_exchange *y,
                            const lengths &ly, uint64_t sy, bool x_first)
{
    fill(x, lx, sx);
    fill(y, ly, sy);
    for (bool run_x : {x_first, !x_first}) {
        std::string what = std::string(run_x ? "x" : "y") + " run " +
                           (run_x == x_first ? "first" : "second");
        ravel_exchange *h = run_x ? x : y;
        ASSERT_EQ(ravel_exchange_run(h), MPI_SUCCESS)
            << what << ": " << ravel_error_message();
        check(h, run_x ? lx : ly, run_x ? sx : sy, what);
    }
}

uint64_t sent_bytes(const lengths &len)
{
    uint64_t n = 0;
    for (int dst = 0; dst < size_; dst++)
        n += len(rank_, dst);
    return n;
}

} // namespace

// The second run of the same sizes finds every outbox written in place:
// no byte copied, no message posted, the views in the senders' segments.
TEST(ShmOutboxes, TheRunAfterAWarmUpCopiesNothing)
{
    fresh_comm c;
    ravel_exchange *x = nullptr;
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
    for (int shape = 0; shape < SHAPE_COUNT; shape++) {
        std::string what = std::string("shm outboxes ") + shape_names[shape];
        lengths len = of_shape(shape, 41 + (uint64_t)shape);
        run_checked(x, len, 41, what + " warm-up");
        fill(x, len, 42);
        ravel_comm_stats_reset();
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << what;
        ravel_comm_stats got = ravel_comm_stats_get();
        check(x, len, 42, what);
        // One rank has no window: its own block goes into the inbox.
        EXPECT_EQ(got.copied, size_ == 1 ? len(0, 0) : 0u) << what;
        EXPECT_EQ(got.posted, 0u) << what;
        size_t bytes = 0;
        void *taken = ravel_exchange_take_inbox(x, &bytes);
        if (size_ > 1) {
            EXPECT_EQ(taken, nullptr) << what << ": views in the window";
        }
        free(taken);
    }
    ravel_exchange_free(x);
}

// Placed outboxes in the way of another call are moved out first: an
// MPI_Alltoallv-form call and another handle's run between the filling
// and the run, and another handle's run before this one's.
TEST(ShmOutboxes, OtherCallsMoveThemOutFirst)
{
    fresh_comm c;
    ravel_exchange *x = nullptr, *y = nullptr;
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &y), MPI_SUCCESS);
    lengths a = of_shape(SHAPE_RANDOM, 51), b = of_shape(SHAPE_SKEWED, 52);
    run_checked(x, a, 1, "x warm-up");
    run_checked(y, b, 2, "y warm-up");

    // x placed, then an MPI_Alltoallv-form shm call on the communicator.
    fill(x, a, 3);
    std::vector<int> sc(size_), sd(size_), rc(size_), rd(size_);
    int s_at = 0, r_at = 0;
    for (int p = 0; p < size_; p++) {
        sc[p] = (int)b(rank_, p), sd[p] = s_at, s_at += sc[p];
        rc[p] = (int)b(p, rank_), rd[p] = r_at, r_at += rc[p];
    }
    std::vector<unsigned char> sbuf(s_at + 1), rbuf(r_at + 1);
    for (int p = 0; p < size_; p++)
        for (int i = 0; i < sc[p]; i++)
            sbuf[sd[p] + i] = byte_of(4, rank_, p, (size_t)i);
    ASSERT_EQ(ravel_alltoallv_shm(sbuf.data(), sc.data(), sd.data(),
                                  MPI_BYTE, rbuf.data(), rc.data(),
                                  rd.data(), MPI_BYTE, c.comm),
              MPI_SUCCESS)
        << ravel_error_message();
    for (int p = 0; p < size_; p++)
        for (int i = 0; i < rc[p]; i++)
            ASSERT_EQ(rbuf[rd[p] + i], byte_of(4, p, rank_, (size_t)i))
                << "alltoallv from rank " << p << " byte " << i;
    ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << ravel_error_message();
    check(x, a, 3, "x after an alltoallv call");

    // x placed, y fills (no room: x holds the half) and runs first; then
    // both filled again, x first (in place), then y.
    fill_both_run_in_order(x, a, 5, y, b, 6, false);
    fill_both_run_in_order(x, b, 7, y, a, 8, true);

    // A send buffer instead: the placed outboxes are discarded.
    fill(x, a, 9);
    send_buffer buf(SHAPE_SPARSE, 10);
    ASSERT_EQ(buf.send(x), MPI_SUCCESS);
    ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << ravel_error_message();
    check_inbox(x, SHAPE_SPARSE, 10, "x send buffer after outboxes");
    run_checked(x, a, 11, "x outboxes after a send buffer");
    ravel_exchange_free(y);
    ravel_exchange_free(x);
}

// One rank's outboxes outgrow the half while the others' are in place:
// the window grows (the placed ones moved out first), and the next runs
// place them all in the grown window.
TEST(ShmOutboxes, AGrowthMovesThemOutFirst)
{
    fresh_comm c;
    ravel_exchange *x = nullptr;
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
    lengths small = of_shape(SHAPE_SPARSE, 61);
    // Rank 0 sends 200 KB to each rank: past the first window's 64 KiB.
    lengths big = [&](int src, int dst) {
        return src == 0 ? (size_t)200000 + (size_t)dst : small(src, dst);
    };
    run_checked(x, small, 1, "small");
    run_checked(x, small, 2, "small, in place");
    run_checked(x, big, 3, "rank 0 grows");
    fill(x, big, 4);
    ravel_comm_stats_reset();
    ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS) << ravel_error_message();
    ravel_comm_stats got = ravel_comm_stats_get();
    check(x, big, 4, "after the growth");
    EXPECT_EQ(got.copied, size_ == 1 ? big(0, 0) : 0u)
        << "after the growth, every outbox in place";
    ravel_exchange_free(x);
}

// Outboxes the window may not grow to hold (halves of at most 1 KiB) go
// in rounds, copied in and out; ranks whose outboxes fit are moved out of
// the window first.  Nothing is lost, on any shape, in any order.
TEST(ShmOutboxes, OutboxesPastTheLimitGoInRounds)
{
    ravel_comm_set_shm_chunk(1024);
    ravel_comm_set_shm_outboxes(1024);
    {
        fresh_comm c;
        ravel_exchange *x = nullptr;
        ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
        for (int shape = 0; shape < SHAPE_COUNT; shape++)
            for (uint64_t seed : {71u, 72u}) {
                lengths len = of_shape(shape, seed);
                std::string what = std::string("limited ") +
                                   shape_names[shape] + " seed " +
                                   std::to_string(seed);
                run_checked(x, len, seed, what);
                // A rank's blocks near the limit: in place or not, by rank.
                lengths edge = [&](int src, int dst) {
                    return src % 2 ? (size_t)300 + (size_t)dst
                                   : len(src, dst) / 8;
                };
                run_checked(x, edge, seed + 100, what + " near the limit");
            }
        // Every rank over the limit: rounds, nothing in place.
        lengths big = of_shape(SHAPE_RANDOM, 73);
        if (sent_bytes(big) > 1024) {
            fill(x, big, 74);
            ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS)
                << ravel_error_message();
            check(x, big, 74, "over the limit");
        }
        ravel_exchange_free(x);
    }
    ravel_comm_set_shm_outboxes(0);
    ravel_comm_set_shm_chunk(0);
}

// A call every rank fails (rank 0's block sizes overflow 64 bits; the
// others' outboxes are written) takes its number: the next call waits for
// every writer.  Before, it took the failed call's number again, so its
// wait passed at once on the failed call's publications: rank 0 read the
// last rank's half before that rank wrote it, and found the failed call's
// blocks (the last rank writes late here, so that the wrong order is what
// happens, not only what may).
TEST(ShmOutboxes, TheCallAfterAFailedOneWaitsForItsWriters)
{
    fresh_comm c;
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    ravel_exchange *x = nullptr;
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
    lengths len = of_shape(SHAPE_RANDOM, 81);
    run_checked(x, len, 1, "before the failure");
    run_checked(x, len, 2, "before the failure, in place");
    std::vector<size_t> huge(size_, (size_t)1 << 63), at(size_, 0);
    static const char byte = 0;
    if (rank_ == 0)
        ASSERT_EQ(ravel_exchange_send(x, &byte, huge.data(), at.data()),
                  MPI_SUCCESS);
    else
        fill(x, len, 3);
    if (size_ > 1) {
        EXPECT_NE(ravel_exchange_run(x), MPI_SUCCESS) << "overflowing sizes";
    }
    if (rank_ == size_ - 1 && size_ > 1) {
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, nullptr);
    }
    run_checked(x, len, 4, "after the failure");
    ravel_exchange_free(x);
}

// ravel_exchange_outboxes_fit answers for the window as it is: outboxes it
// says fit are all written in place (the run copies nothing), ones it says
// do not are not (the run copies them in); never for another backend, nor
// for one rank.
TEST(ShmOutboxes, FitSaysWhetherTheyGoInPlaceWithoutGrowing)
{
    fresh_comm c;
    ravel_exchange *x = nullptr, *v = nullptr;
    ASSERT_EQ(ravel_exchange_create(c.comm, "shm", &x), MPI_SUCCESS);
    ASSERT_EQ(ravel_exchange_create(c.comm, "vendor", &v), MPI_SUCCESS);
    // Each rank's outboxes, one call each, in rank order (as the engine).
    auto run_sized = [&](size_t each, uint64_t seed, const std::string &what,
                         int fits) {
        lengths len = [=](int src, int dst) {
            return src == dst ? 0 : each + (size_t)src;
        };
        std::vector<size_t> bytes(size_);
        for (int d = 0; d < size_; d++)
            bytes[d] = len(rank_, d);
        EXPECT_EQ(ravel_exchange_outboxes_fit(v, bytes.data()), 0) << what;
        int fit = ravel_exchange_outboxes_fit(x, bytes.data());
        if (fits >= 0) {
            EXPECT_EQ(fit, size_ == 1 ? 0 : fits) << what;
        }
        for (int d = 0; d < size_; d++) {
            if (!bytes[d])
                continue;
            auto *p = static_cast<unsigned char *>(
                ravel_exchange_outbox(x, d, bytes[d]));
            ASSERT_NE(p, nullptr) << ravel_error_message();
            for (size_t i = 0; i < bytes[d]; i++)
                p[i] = byte_of(seed, rank_, d, i);
        }
        ravel_comm_stats_reset();
        ASSERT_EQ(ravel_exchange_run(x), MPI_SUCCESS)
            << what << ": " << ravel_error_message();
        uint64_t copied = ravel_comm_stats_get().copied;
        check(x, len, seed, what);
        if (size_ > 1 && fit) {
            EXPECT_EQ(copied, 0u) << what << ": said to fit, copied";
        }
        if (size_ > 1 && !fit) {
            EXPECT_GT(copied, 0u) << what << ": said not to fit, in place";
        }
    };
    run_sized(100, 51, "before the window exists", 0);
    run_sized(100, 52, "small", 1);
    run_sized(100, 53, "small again", 1);
    // More than any half the window has without growing for outboxes.
    run_sized(ravel_comm_shm_chunk() + 4096, 54, "past the chunk", 0);
    run_sized(100, 55, "small after", -1);
    ravel_exchange_free(v);
    ravel_exchange_free(x);
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &exchange_oracle::rank_,
                          &exchange_oracle::size_, "ShmOutboxes");
}
