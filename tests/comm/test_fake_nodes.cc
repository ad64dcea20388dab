// RAVEL_NODE_SIZE's fake nodes, and shm's place on them: with every rank
// on one (real or fake) node shm delivers what vendor delivers; split into
// fake nodes it is refused on every rank with a message that says why, the
// model gives it no finite time there and auto never picks it; a bad
// RAVEL_NODE_SIZE is refused naming its value.  The variable is read when
// a communicator's context is made, so each case sets it, then duplicates
// MPI_COMM_WORLD (a fresh context).  Runs under mpiexec on several P.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_gtest_main.h"
#include "node_size_comm.h"
#include "pattern_calls.h"
#include "ravel/comm.h"
#include "ravel/cost_model.h"
#include "ravel/error.h"

namespace {

int rank_, size_;

// Runs backend `name` on comm against vendor on the same call; vendor's
// error, if it fails.
int run_against_vendor(const char *name, MPI_Comm comm, int pattern,
                       uint64_t seed, bool *same)
{
    PatternCall c =
        pattern_call(pattern_matrix(pattern, seed, size_), rank_, size_);
    std::vector<char> want(c.recvbuf.size());
    int err = ravel_alltoallv_vendor(c.sendbuf.data(), c.sc.data(),
                                     c.sd.data(), MPI_BYTE, want.data(),
                                     c.rc.data(), c.rd.data(), MPI_BYTE,
                                     comm);
    if (err != MPI_SUCCESS) // (a bad RAVEL_NODE_SIZE fails every backend)
        return err;
    err = ravel_alltoallv_lookup(name)(
        c.sendbuf.data(), c.sc.data(), c.sd.data(), MPI_BYTE,
        c.recvbuf.data(), c.rc.data(), c.rd.data(), MPI_BYTE, comm);
    *same = c.recvbuf == want && c.arrived();
    return err;
}

} // namespace

TEST(FakeNodes, ShmRunsWhereEveryRankSharesANode)
{
    // Unset, and fake nodes at least as large as the communicator.
    for (const char *value : {(const char *)nullptr, "16", "1000000"}) {
        MPI_Comm comm = comm_under(value);
        for (int pattern : kPatterns) {
            bool same = false;
            EXPECT_EQ(run_against_vendor("shm", comm, pattern, 3, &same),
                      MPI_SUCCESS)
                << ravel_error_message();
            EXPECT_TRUE(same) << "pattern " << pattern;
        }
        MPI_Comm_free(&comm);
    }
}

TEST(FakeNodes, ShmIsRefusedAcrossNodesAndAutoNeverPicksIt)
{
    MPI_Comm comm = comm_under("2");
    bool split = size_ > 2;
    for (int pattern : kPatterns) {
        bool same = false;
        int err = run_against_vendor("shm", comm, pattern, 4, &same);
        if (!split) {
            EXPECT_EQ(err, MPI_SUCCESS) << ravel_error_message();
            EXPECT_TRUE(same);
            continue;
        }
        EXPECT_EQ(err, MPI_ERR_ARG);
        std::string why = ravel_error_message();
        EXPECT_NE(why.find("backend 'shm' needs every rank of the communicator "
                           "on one node"),
                  std::string::npos)
            << why;
        EXPECT_NE(why.find("RAVEL_NODE_SIZE"), std::string::npos) << why;
        // auto still works there, and never chooses shm.
        EXPECT_EQ(run_against_vendor("auto:agree", comm, pattern, 4, &same),
                  MPI_SUCCESS)
            << ravel_error_message();
        EXPECT_TRUE(same);
        int choice = -1;
        ASSERT_EQ(ravel_comm_last_choice(comm, &choice, nullptr),
                  MPI_SUCCESS);
        ASSERT_GE(choice, 0);
        EXPECT_STRNE(ravel_alltoallv_name((size_t)choice), "shm");
        ravel_call_stats s;
        ravel_call_stats_of(size_, pattern_matrix(pattern, 4, size_).data(),
                            &s);
        double t = 0;
        ASSERT_EQ(ravel_comm_predict(comm, "shm", &s, &t), MPI_SUCCESS);
        EXPECT_TRUE(std::isinf(t)) << t;
    }
    MPI_Comm_free(&comm);
}

// Every rank waits in the same mode whatever the (fake) node sizes: a
// rank in a blocking collective and another in its nonblocking form never
// match (a node of 3 ranks on 2 cores once yielded, its neighbour of 1
// blocked, and two-level's vendor exchange across them hung).
TEST(FakeNodes, EveryRankWaitsInTheSameMode)
{
    for (const char *value : {"1", "2", "3", "4"}) {
        MPI_Comm comm = comm_under(value);
        ravel_wait_mode mode;
        ASSERT_EQ(ravel_comm_wait_mode(comm, &mode), MPI_SUCCESS);
        int mine = (int)mode, low = 0, high = 0;
        MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        EXPECT_EQ(low, high) << "RAVEL_NODE_SIZE=" << value;
        MPI_Comm_free(&comm);
    }
    unsetenv("RAVEL_NODE_SIZE");
}

TEST(FakeNodes, ABadNodeSizeIsRefusedNamingIt)
{
    for (const char *value : {"0", "-2", "two", "3x", "99999999999999"}) {
        MPI_Comm comm = comm_under(value);
        bool same = false;
        EXPECT_EQ(run_against_vendor("spread-out", comm, kUniform, 1, &same),
                  MPI_ERR_ARG)
            << value;
        std::string why = ravel_error_message();
        EXPECT_NE(why.find(std::string("RAVEL_NODE_SIZE='") + value + "'"),
                  std::string::npos)
            << why;
        MPI_Comm_free(&comm);
    }
    unsetenv("RAVEL_NODE_SIZE");
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "FakeNodes");
}
