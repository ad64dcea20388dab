// The cost model's counts (ravel_cost_counts_of) against what each
// instrumented backend really posted, sent and copied, on this rank, for
// several count patterns: they must match exactly.  Runs under mpiexec on
// P = 1..16; every rank runs every test in the same order.
//
// Also: auto (auto:agree) agrees on the same statistics and picks the same
// backend on every rank, whatever the pattern, and the statistics it agrees
// on equal ravel_call_stats_of on the whole matrix.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "expect_counts.h"
#include "mpi_gtest_main.h"
#include "pattern_calls.h"
#include "ravel/comm.h"
#include "ravel/cost_model.h"

extern "C" {
#include "comm_internal.h" // shm's window and auto's rent, for the oracle
}

namespace {

int rank_, size_;

std::vector<uint64_t> matrix(int pattern, uint64_t seed)
{
    return pattern_matrix(pattern, seed, size_);
}

using Call = PatternCall;

Call make_call(const std::vector<uint64_t> &m)
{
    return pattern_call(m, rank_, size_);
}

ravel_comm_stats run(const char *backend, Call &c)
{
    ravel_comm_stats_reset();
    int err = c.run(backend);
    EXPECT_EQ(err, MPI_SUCCESS) << backend;
    return ravel_comm_stats_get();
}

const char *const kModelled[] = {
    "vendor",          "spread-out",         "padded-alltoall",
    "padded-bruck",    "padded-bruck:basic", "padded-bruck:modified",
    "two-phase-bruck", "pairwise",           "inline-bruck",
    "radix-bruck",     "radix-bruck:2",      "radix-bruck:3",
    "radix-bruck:5",   "radix-bruck:16"};

} // namespace

TEST(CostModelCounts, EveryBackendDoesExactlyWhatTheModelCounts)
{
    for (const char *backend : kModelled)
        for (int pattern : kPatterns)
            for (uint64_t seed : {3u, 8u}) {
                std::vector<uint64_t> m = matrix(pattern, seed);
                Call c = make_call(m);
                ravel_comm_stats got = run(backend, c);
                ravel_cost_counts want;
                ASSERT_EQ(ravel_cost_counts_of(backend, size_, rank_,
                                               m.data(), &want),
                          0);
                const char *shape = pattern == kUniform ? "uniform"
                                    : pattern == kLarge ? "large"
                                                        : shape_names[pattern];
                SCOPED_TRACE(std::string(backend) + " " + shape + " P=" +
                             std::to_string(size_) + " rank " +
                             std::to_string(rank_));
                expect_counts(got, want);
            }
}

TEST(CostModelCounts, AutoIsNotDescribedButEverythingElseIs)
{
    std::vector<uint64_t> m = matrix(SHAPE_RANDOM, 1);
    ravel_cost_counts c;
    EXPECT_EQ(ravel_cost_counts_of("auto", size_, rank_, m.data(), &c), -1);
    ravel_cost_params p;
    ravel_cost_params_default(&p);
    ravel_call_stats s;
    ravel_call_stats_of(size_, m.data(), &s);
    for (size_t i = 0; i < ravel_alltoallv_count(); i++) {
        const char *name = ravel_alltoallv_name(i);
        bool is_auto = std::string(name) == "auto";
        EXPECT_EQ(ravel_cost_predict(name, &p, &s) < 0, is_auto) << name;
    }
}

TEST(CostModelCounts, AutoPicksTheSameBackendOnEveryRank)
{
    for (int pattern : kPatterns)
        for (uint64_t seed : {5u, 6u, 7u}) {
            std::vector<uint64_t> m = matrix(pattern, seed);
            Call c = make_call(m);
            ravel_call_stats s;
            ravel_call_stats_of(size_, m.data(), &s);
            // What shm's window would take to grow for this call, and the
            // rent auto has paid so far, before the call changes them.
            comm_context *ctx = nullptr;
            ASSERT_EQ(comm_context_get(MPI_COMM_WORLD, &ctx), MPI_SUCCESS);
            uint64_t fresh = size_ > 1 && ctx->node_ranks == size_
                                 ? comm_shm_fresh_bytes(ctx, s.max_send)
                                 : 0;
            double rent = ctx->shm_rent;
            // auto:agree, which agrees before every call; plain auto may
            // choose from the call before (test_auto_carry.cc).
            run("auto:agree", c);
            int choice = -2;
            double predicted = 0;
            ASSERT_EQ(ravel_comm_last_choice(MPI_COMM_WORLD, &choice,
                                             &predicted),
                      MPI_SUCCESS);
            ASSERT_GE(choice, 0);
            // What the model picks on the whole matrix, as auto should have
            // agreed on it (ranks per node: all ranks share this node),
            // renting shm's growth (ravel_cost_choose_renting).
            ravel_cost_params p;
            ravel_cost_params_default(&p);
            p.ranks_per_node = size_;
            double want_time = 0;
            const char *want = ravel_cost_choose_renting(
                &p, &s, 0, 1, fresh, &rent, &want_time);
            EXPECT_STREQ(ravel_alltoallv_name((size_t)choice), want)
                << "pattern " << pattern;
            EXPECT_DOUBLE_EQ(predicted, want_time);
            int lo = 0, hi = 0;
            MPI_Allreduce(&choice, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&choice, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            EXPECT_EQ(lo, hi) << "pattern " << pattern;
        }
}

// auto reuses its last choice for a call with the same statistics and
// model; a new model must be evaluated afresh, also where auto chooses
// from the statistics of the call before.  A latency-bound model and a
// CPU-bound one disagree at some rank counts (the test then sees a stale
// choice if there is one); each choice is checked against the model's.
TEST(CostModelCounts, AutoChoosesAfreshWhenTheModelChanges)
{
    std::vector<uint64_t> m = matrix(SHAPE_RANDOM, 9);
    ravel_call_stats s;
    ravel_call_stats_of(size_, m.data(), &s);
    ravel_cost_params base, latency, cpu;
    ravel_cost_params_default(&base);
    latency = cpu = base;
    latency.alpha = 1e-3;
    cpu.o = 1e-3;
    for (const ravel_cost_params *p : {&latency, &cpu, &latency, &base}) {
        ravel_comm_set_model(p, "test");
        Call c = make_call(m);
        run("auto:agree", c); // agreed on this matrix
        run("auto", c);       // may choose from that call's statistics
        int choice = -2;
        ASSERT_EQ(ravel_comm_last_choice(MPI_COMM_WORLD, &choice, nullptr),
                  MPI_SUCCESS);
        ravel_cost_params want_model = *p;
        want_model.ranks_per_node = size_;
        ASSERT_GE(choice, 0);
        EXPECT_STREQ(ravel_alltoallv_name((size_t)choice),
                     ravel_cost_choose(&want_model, &s, nullptr));
    }
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "CostModelCounts");
}
