// What auto weighs before shm's window grows (comm_shm_fresh_bytes,
// alltoallv_shm.c) and what it does with it (ravel_cost_choose_renting).
//
// The fresh bytes a call would take are checked against the window's
// doubling rule written out here apart (halves of 64 KiB doubled until the
// call's stream and the half's header fit, at most the limit; the smallest
// window free), before any call and after shm's calls have grown the
// window.  Then auto on one node, on a model where shm is the fastest
// backend: with fresh shared memory priced near nothing it takes shm for
// a call that grows the window; priced at a second a byte it declines it
// for another backend, call after call, every rank alike, and moves no
// byte wrongly either way.  Runs under mpiexec on 2 and 3 ranks of one
// node (on 1 rank shm grows nothing).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mpi_gtest_main.h"
#include "ravel/comm.h"
#include "ravel/cost_model.h"
#include "ravel/error.h"

extern "C" {
#include "comm_internal.h" // comm_shm_fresh_bytes, comm_shm_header
}

namespace {

int rank_, size_;

const uint64_t kFirstHalf = 64 * 1024;

// The half a window of halves `now` (0: none) grows to for a stream of
// `stream` bytes, or 0 when it holds it; the limit's half at most.
uint64_t expected_half(uint64_t now, uint64_t stream, uint64_t header,
                       uint64_t limit)
{
    uint64_t need = header + stream;
    if (need <= now || now >= limit)
        return 0;
    uint64_t half = now ? 2 * now : kFirstHalf;
    while (half < need && half < limit)
        half *= 2;
    return half < limit ? half : limit;
}

// What comm_shm_fresh_bytes must say: the grown half, 0 for the first.
uint64_t expected_fresh(uint64_t now, uint64_t stream, uint64_t header,
                        uint64_t limit)
{
    uint64_t half = expected_half(now, stream, header, limit);
    return half > kFirstHalf ? half : 0;
}

// One call of `backend` on comm in which rank 0 sends every other rank
// `block` bytes and the others send nothing; every byte checked.
void call(MPI_Comm comm, const char *backend, int block)
{
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(backend);
    ASSERT_NE(fn, nullptr) << backend;
    std::vector<int> sc(size_, 0), sd(size_, 0), rc(size_, 0), rd(size_, 0);
    std::vector<unsigned char> send, recv(block);
    if (rank_ == 0) {
        send.resize((size_t)block * size_);
        for (int d = 1; d < size_; d++) {
            sc[d] = block;
            sd[d] = block * d;
            for (int i = 0; i < block; i++)
                send[(size_t)block * d + i] = (unsigned char)(d * 7 + i);
        }
    } else {
        rc[0] = block;
    }
    ASSERT_EQ(fn(send.data(), sc.data(), sd.data(), MPI_BYTE, recv.data(),
                 rc.data(), rd.data(), MPI_BYTE, comm),
              MPI_SUCCESS)
        << ravel_error_message();
    if (rank_ == 0)
        return;
    for (int i = 0; i < block; i++)
        ASSERT_EQ(recv[i], (unsigned char)(rank_ * 7 + i)) << "byte " << i;
}

} // namespace

TEST(ShmGrowthCharge, FreshBytesFollowTheWindowsDoubling)
{
    if (size_ < 2)
        GTEST_SKIP() << "one rank: shm has no window to grow";
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm); // a context without a window
    comm_context *ctx = nullptr;
    ASSERT_EQ(comm_context_get(comm, &ctx), MPI_SUCCESS);
    const uint64_t header = comm_shm_header(size_);
    const uint64_t limit = comm_shm_limit(size_);
    ASSERT_GE(limit, 8 * kFirstHalf) << "the tests' sizes assume 1 MiB halves";
    // No window yet: the first one's 64 KiB halves are free, more is not.
    for (uint64_t stream : {0ull, 1000ull, 60000ull, 100000ull, 300000ull,
                            3000000ull})
        EXPECT_EQ(comm_shm_fresh_bytes(ctx, stream),
                  expected_fresh(0, stream, header, limit))
            << "stream " << stream;
    EXPECT_EQ(comm_shm_fresh_bytes(ctx, 100000), 128 * 1024u);
    EXPECT_EQ(comm_shm_fresh_bytes(ctx, 3000000), limit);
    // rank 0 writes size_ - 1 blocks: its stream
    call(comm, "shm", 100000 / (size_ - 1));
    uint64_t now = expected_half(0, 100000 / (size_ - 1) * (size_ - 1),
                                 header, limit);
    for (uint64_t stream : {1000ull, 100000ull, 120000ull, 300000ull,
                            3000000ull})
        EXPECT_EQ(comm_shm_fresh_bytes(ctx, stream),
                  expected_fresh(now, stream, header, limit))
            << "after the first call, stream " << stream;
    EXPECT_EQ(comm_shm_fresh_bytes(ctx, 100000), 0u);
    call(comm, "shm", 900000 / (size_ - 1)); // grows to the limit
    EXPECT_EQ(comm_shm_fresh_bytes(ctx, 3000000), 0u) << "in rounds instead";
    EXPECT_EQ(comm_shm_fresh_bytes(ctx, 900000), 0u);
    MPI_Comm_free(&comm);
}

TEST(ShmGrowthCharge, AutoDeclinesAGrowthItsModelPricesTooHigh)
{
    if (size_ < 2)
        GTEST_SKIP() << "one rank: shm has no window to grow";
    const char *before_source = nullptr;
    const ravel_cost_params *before = nullptr;
    ASSERT_EQ(ravel_comm_model(&before, &before_source), MPI_SUCCESS);
    ravel_cost_params saved = *before;
    std::string saved_source = before_source;
    for (double fresh : {1e-30, 1.0}) {
        SCOPED_TRACE(testing::Message() << "fresh " << fresh << " s/B");
        ravel_cost_params m;
        ravel_cost_params_default(&m);
        m.gamma = 1e-18; // copies free: shm, which posts nothing, wins
        m.fresh = fresh;
        ravel_comm_set_model(&m, "test");
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        for (int round = 0; round < 3; round++) {
            call(comm, "auto", 200000);
            int choice = -1;
            ASSERT_EQ(ravel_comm_last_choice(comm, &choice, nullptr),
                      MPI_SUCCESS);
            ASSERT_GE(choice, 0);
            std::string name = ravel_alltoallv_name((size_t)choice);
            int is_shm = name == "shm", lo = 0, hi = 0;
            MPI_Allreduce(&is_shm, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&is_shm, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            EXPECT_EQ(lo, hi) << "every rank chooses alike";
            if (fresh < 1e-20)
                EXPECT_EQ(name, "shm") << "round " << round;
            else
                EXPECT_NE(name, "shm") << "round " << round;
        }
        MPI_Comm_free(&comm);
    }
    ravel_comm_set_model(&saved, saved_source.c_str());
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "test_shm_growth_charge");
}
