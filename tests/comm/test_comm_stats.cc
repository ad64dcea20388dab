// What each backend sends, per rank, against the closed forms of its cost
// model.  Runs under mpiexec; every rank runs every test in the same order.
//
//   spread-out, vendor, one message per non-empty block to another rank,
//   pairwise            carrying exactly that block
//   padded-alltoall     P-1 messages of M bytes (M = the largest block)
//   padded-bruck        ceil(log2 P) messages carrying, in all,
//                       sum_{b=1}^{P-1} popcount(b) blocks of M bytes
//   two-phase-bruck     2 ceil(log2 P) messages: ceil(log2 P) of metadata
//                       (8 bytes per block moved) and as many of data that
//                       carry exactly the forwarded bytes
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "exchange_cases.h"
#include "mpi_gtest_main.h"
#include "ravel/comm.h"

namespace {

int rank_, size_;

int ceil_log2(int P)
{
    int s = 0;
    while ((1 << s) < P)
        s++;
    return s;
}

uint64_t popcount_sum(int P)
{
    uint64_t sum = 0;
    for (int b = 1; b < P; b++)
        sum += (uint64_t)__builtin_popcount((unsigned)b);
    return sum;
}

// Bytes rank src sends rank dst: the same matrix on every rank.
int block(exchange_shape shape, uint64_t seed, int src, int dst)
{
    return case_count(shape, seed, src, dst, size_, 100);
}

struct Exchange {
    std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
    std::vector<char> sendbuf, recvbuf;
};

Exchange make_exchange(exchange_shape shape, uint64_t seed)
{
    Exchange x;
    int P = size_;
    x.sendcounts.resize(P);
    x.sdispls.resize(P);
    x.recvcounts.resize(P);
    x.rdispls.resize(P);
    int out = 0, in = 0;
    for (int p = 0; p < P; p++) {
        x.sendcounts[p] = block(shape, seed, rank_, p);
        x.recvcounts[p] = block(shape, seed, p, rank_);
        x.sdispls[p] = out;
        x.rdispls[p] = in;
        out += x.sendcounts[p];
        in += x.recvcounts[p];
    }
    x.sendbuf.assign((size_t)out + 1, 'x');
    x.recvbuf.assign((size_t)in + 1, 0);
    return x;
}

ravel_comm_stats run(const char *backend, Exchange &x)
{
    ravel_alltoallv_fn fn = ravel_alltoallv_lookup(backend);
    ravel_comm_stats_reset();
    int err = fn(x.sendbuf.data(), x.sendcounts.data(), x.sdispls.data(),
                 MPI_BYTE, x.recvbuf.data(), x.recvcounts.data(),
                 x.rdispls.data(), MPI_BYTE, MPI_COMM_WORLD);
    EXPECT_EQ(err, MPI_SUCCESS) << backend;
    return ravel_comm_stats_get();
}

uint64_t global_max_block(exchange_shape shape, uint64_t seed)
{
    uint64_t M = 0;
    for (int s = 0; s < size_; s++)
        for (int d = 0; d < size_; d++)
            M = std::max<uint64_t>(M, (uint64_t)block(shape, seed, s, d));
    return M;
}

const exchange_shape kShapes[] = {SHAPE_RANDOM, SHAPE_SPARSE, SHAPE_SKEWED,
                                  SHAPE_ONE_SENDER};

} // namespace

TEST(CommStats, DirectExchangesSendOneMessagePerNonEmptyBlock)
{
    for (const char *backend : {"spread-out", "vendor", "pairwise"})
        for (exchange_shape shape : kShapes) {
            Exchange x = make_exchange(shape, 7);
            uint64_t messages = 0, bytes = 0;
            for (int p = 0; p < size_; p++)
                if (p != rank_ && x.sendcounts[p] > 0) {
                    messages++;
                    bytes += (uint64_t)x.sendcounts[p];
                }
            ravel_comm_stats s = run(backend, x);
            EXPECT_EQ(s.messages, messages) << backend << " " << shape;
            EXPECT_EQ(s.bytes, bytes) << backend << " " << shape;
            EXPECT_EQ(s.metadata_messages, 0u);
        }
}

TEST(CommStats, PaddedAlltoallSendsPMinusOneMaxBlocks)
{
    for (exchange_shape shape : kShapes) {
        Exchange x = make_exchange(shape, 11);
        uint64_t M = global_max_block(shape, 11);
        ravel_comm_stats s = run("padded-alltoall", x);
        EXPECT_EQ(s.messages, M ? (uint64_t)(size_ - 1) : 0u) << shape;
        EXPECT_EQ(s.bytes, M * (uint64_t)(size_ - 1)) << shape;
    }
}

TEST(CommStats, PaddedBruckSendsLogPMessagesOfPopcountBlocks)
{
    for (exchange_shape shape : kShapes) {
        Exchange x = make_exchange(shape, 13);
        uint64_t M = global_max_block(shape, 13);
        ravel_comm_stats s = run("padded-bruck", x);
        uint64_t steps = M ? (uint64_t)ceil_log2(size_) : 0;
        EXPECT_EQ(s.messages, steps) << shape;
        EXPECT_EQ(s.bytes, M * popcount_sum(size_)) << shape;
    }
}

TEST(CommStats, TwoPhaseBruckSendsMetadataThenExactlyTheForwardedBytes)
{
    const int P = size_;
    for (exchange_shape shape : kShapes) {
        Exchange x = make_exchange(shape, 17);
        ravel_comm_stats s = run("two-phase-bruck", x);
        uint64_t steps = (uint64_t)ceil_log2(P);
        EXPECT_EQ(s.messages, 2 * steps) << shape;
        EXPECT_EQ(s.metadata_messages, steps) << shape;
        EXPECT_EQ(s.metadata_bytes, 8 * popcount_sum(P)) << shape;
        // This rank forwards, at step k, the block sitting in slot j (bit k
        // of j set), which left its source (j mod 2^k) ranks back.
        uint64_t forwarded = 0;
        for (int k = 0; (1 << k) < P; k++)
            for (int j = 1; j < P; j++)
                if ((j >> k) & 1) {
                    int src = ((rank_ - (j & ((1 << k) - 1))) % P + P) % P;
                    forwarded += (uint64_t)block(shape, 17, src, (src + j) % P);
                }
        EXPECT_EQ(s.bytes - s.metadata_bytes, forwarded) << shape;
        // Summed over ranks: every block travels popcount(distance) hops.
        uint64_t mine = s.bytes - s.metadata_bytes, all = 0, hops = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        for (int a = 0; a < P; a++)
            for (int b = 0; b < P; b++)
                hops += (uint64_t)block(shape, 17, a, b) *
                        (uint64_t)__builtin_popcount((unsigned)((b - a + P) % P));
        EXPECT_EQ(all, hops) << shape;
    }
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "CommStats");
}
