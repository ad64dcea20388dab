// two-level:INNER on RAVEL_NODE_SIZE's fake nodes: every inner backend
// delivers what vendor delivers on every pattern, whatever the node sizes
// (even, uneven, one rank, all ranks); across nodes a rank sends one
// message per other node, not per other rank; names that cannot work are
// refused.  Runs under mpiexec on P = 1 .. 12.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_gtest_main.h"
#include "node_size_comm.h"
#include "pattern_calls.h"
#include "ravel/comm.h"
#include "ravel/error.h"

namespace {

int rank_, size_;

const char *const kInner[] = {"vendor",          "spread-out",
                              "pairwise",        "padded-bruck",
                              "two-phase-bruck", "inline-bruck",
                              "radix-bruck:3",   "auto"};

} // namespace

TEST(TwoLevel, DeliversWhatVendorDeliversOnEveryNodeLayout)
{
    for (const char *nodes : {(const char *)nullptr, "1", "2", "3", "4"}) {
        MPI_Comm comm = comm_under(nodes);
        for (const char *inner : kInner) {
            std::string name = std::string("two-level:") + inner;
            ravel_alltoallv_fn fn = ravel_alltoallv_lookup(name.c_str());
            ASSERT_NE(fn, nullptr) << ravel_error_message();
            for (int pattern : kPatterns)
                for (uint64_t seed : {1, 2}) {
                    PatternCall c = pattern_call(
                        pattern_matrix(pattern, seed, size_), rank_, size_);
                    std::vector<char> want(c.recvbuf.size());
                    ASSERT_EQ(ravel_alltoallv_vendor(
                                  c.sendbuf.data(), c.sc.data(), c.sd.data(),
                                  MPI_BYTE, want.data(), c.rc.data(),
                                  c.rd.data(), MPI_BYTE, comm),
                              MPI_SUCCESS);
                    ASSERT_EQ(fn(c.sendbuf.data(), c.sc.data(), c.sd.data(),
                                 MPI_BYTE, c.recvbuf.data(), c.rc.data(),
                                 c.rd.data(), MPI_BYTE, comm),
                              MPI_SUCCESS)
                        << name << ": " << ravel_error_message();
                    EXPECT_TRUE(c.recvbuf == want && c.arrived())
                        << name << " nodes of " << (nodes ? nodes : "all")
                        << ", pattern " << pattern << ", seed " << seed;
                }
        }
        MPI_Comm_free(&comm);
    }
    unsetenv("RAVEL_NODE_SIZE");
}

// With spread-out across nodes and every block non-empty (40 bytes), on
// n nodes of k ranks a rank sends exactly one message to each other node's
// rank of its slot, carrying the k blocks of its node's ranks for that
// rank: n - 1 messages of 40 k bytes, where flat spread-out sends P - 1.
// Within its node it sends none: the sizes and blocks go through the
// node's shared window.
TEST(TwoLevel, SendsOneMessagePerOtherNode)
{
    for (int k = 1; k <= 4; k++) {
        if (size_ % k != 0)
            continue;
        std::string value = std::to_string(k);
        MPI_Comm comm = comm_under(value.c_str());
        PatternCall c =
            pattern_call(pattern_matrix(kUniform, 1, size_), rank_, size_);
        ravel_alltoallv_fn fn = ravel_alltoallv_lookup("two-level:spread-out");
        ASSERT_NE(fn, nullptr);
        // The first call makes the communicators and the window.
        ASSERT_EQ(fn(c.sendbuf.data(), c.sc.data(), c.sd.data(), MPI_BYTE,
                     c.recvbuf.data(), c.rc.data(), c.rd.data(), MPI_BYTE,
                     comm),
                  MPI_SUCCESS);
        ravel_comm_stats_reset();
        ASSERT_EQ(fn(c.sendbuf.data(), c.sc.data(), c.sd.data(), MPI_BYTE,
                     c.recvbuf.data(), c.rc.data(), c.rd.data(), MPI_BYTE,
                     comm),
                  MPI_SUCCESS);
        ravel_comm_stats s = ravel_comm_stats_get();
        const uint64_t n = (uint64_t)(size_ / k);
        EXPECT_EQ(s.messages, n - 1) << "nodes of " << k;
        EXPECT_EQ(s.bytes, (n - 1) * 40 * (uint64_t)k) << "nodes of " << k;
        EXPECT_EQ(s.posted, 2 * (n - 1)) << "nodes of " << k;
        EXPECT_TRUE(c.arrived());
        MPI_Comm_free(&comm);
    }
    unsetenv("RAVEL_NODE_SIZE");
}

TEST(TwoLevel, NamesThatCannotWorkAreRefused)
{
    struct {
        const char *name, *says;
    } cases[] = {
        {"two-level:shm", "shm runs within one node"},
        {"two-level:two-level:vendor", "cannot run inside itself"},
        {"two-level:nope", "'nope' is not a backend"},
        {"two-level:", "its inner backend is not one"},
    };
    for (const auto &c : cases) {
        EXPECT_EQ(ravel_alltoallv_lookup(c.name), nullptr) << c.name;
        std::string why = ravel_error_message();
        EXPECT_NE(why.find(c.name), std::string::npos) << why;
        EXPECT_NE(why.find(c.says), std::string::npos) << why;
    }
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "TwoLevel");
}
