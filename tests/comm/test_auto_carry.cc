// auto's agreement carried along an exchange (comm_carry, alltoallv_auto.c).
//
// Part 1, the dissemination: every backend that carries is run with the
// carry asked for, and the statistics it ends with must equal, on every
// rank, those ravel_call_stats_of computes sequentially from the whole
// matrix (which every rank here can build), and the data must arrive as
// sent.  Backends that carry nothing must say so (but on one rank ravel's
// own know the whole call).
//
// Part 2, auto's use of it: over a sequence of calls, every rank makes the
// same choice; a call that carried chose what the model picks for the
// latest call whose statistics every rank knew, any other what it picks
// for its own; what auto remembers is that call's true statistics; a call
// on a direct exchange leaves its statistics unknown, for 64 calls at the
// most; a pattern that holds on a
// carrying backend is carried, and one that alternates between backends
// never is.  Runs under mpiexec on many P (the digits of P in each radix
// decide which windows the dissemination completes).
#include <gtest/gtest.h>
#include <cstdlib>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "mpi_gtest_main.h"
#include "pattern_calls.h"
#include "ravel/comm.h"
#include "ravel/cost_model.h"

extern "C" {
#include "comm_internal.h" // to ask one named backend to carry
}

namespace {

int rank_, size_;

void expect_stats_eq(const ravel_call_stats &got, const ravel_call_stats &want)
{
    EXPECT_EQ(got.P, want.P);
    EXPECT_EQ(got.max_block, want.max_block);
    EXPECT_EQ(got.max_send, want.max_send);
    EXPECT_EQ(got.max_recv, want.max_recv);
    EXPECT_EQ(got.total, want.total);
    EXPECT_EQ(got.nonempty, want.nonempty);
    EXPECT_EQ(got.max_nonempty_send, want.max_nonempty_send);
    EXPECT_EQ(got.max_nonempty_recv, want.max_nonempty_recv);
    EXPECT_EQ(got.max_self, want.max_self);
}

bool same_on_every_rank(int v)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

const char *const kCarrying[] = {
    "two-phase-bruck", "inline-bruck",       "radix-bruck:2",
    "radix-bruck:3",   "radix-bruck",        "radix-bruck:5",
    "radix-bruck:16",  "radix-bruck:1000",   "padded-bruck",
    "padded-bruck:basic", "padded-alltoall"};
const char *const kNotCarrying[] = {"vendor", "spread-out", "pairwise"};

// Whether auto's pick carries its statistics (shm, on one node only, does
// not either).
bool carries(const std::string &pick)
{
    for (const char *b : kNotCarrying)
        if (pick == b)
            return false;
    return pick != "shm";
}

// The name of what the model picks for matrix m on this machine's layout.
std::string model_pick(const ravel_cost_params &model,
                       const std::vector<uint64_t> &m)
{
    ravel_cost_params p = model;
    comm_context *ctx = nullptr;
    EXPECT_EQ(comm_context_get(MPI_COMM_WORLD, &ctx), MPI_SUCCESS);
    p.ranks_per_node = ctx->node_ranks; // what auto sees
    ravel_call_stats s;
    ravel_call_stats_of(size_, m.data(), &s);
    return ravel_cost_choose(&p, &s, nullptr);
}

std::string last_choice()
{
    int choice = -1;
    EXPECT_EQ(ravel_comm_last_choice(MPI_COMM_WORLD, &choice, nullptr),
              MPI_SUCCESS);
    return choice >= 0 ? ravel_alltoallv_name((size_t)choice) : "none";
}

} // namespace

TEST(AutoCarry, EveryCarryingBackendEndsWithTheWholeMatrixsStatistics)
{
    comm_context *ctx = nullptr;
    ASSERT_EQ(comm_context_get(MPI_COMM_WORLD, &ctx), MPI_SUCCESS);
    for (const char *backend : kCarrying)
        for (int pattern : kPatterns)
            for (uint64_t seed : {3u, 8u}) {
                SCOPED_TRACE(std::string(backend) + " pattern " +
                             std::to_string(pattern) + " seed " +
                             std::to_string(seed) + " P=" +
                             std::to_string(size_) + " rank " +
                             std::to_string(rank_));
                std::vector<uint64_t> m = pattern_matrix(pattern, seed, size_);
                PatternCall c = pattern_call(m, rank_, size_);
                ctx->carry_wanted = 1;
                int err = c.run(backend);
                ctx->carry_wanted = 0;
                ASSERT_EQ(err, MPI_SUCCESS);
                EXPECT_TRUE(c.arrived());
                ASSERT_TRUE(ctx->carry.done);
                ravel_call_stats want;
                ravel_call_stats_of(size_, m.data(), &want);
                expect_stats_eq(ctx->carry.agreed, want);
            }
}

TEST(AutoCarry, DirectExchangesCarryNothing)
{
    comm_context *ctx = nullptr;
    ASSERT_EQ(comm_context_get(MPI_COMM_WORLD, &ctx), MPI_SUCCESS);
    for (const char *backend : kNotCarrying) {
        PatternCall c =
            pattern_call(pattern_matrix(SHAPE_RANDOM, 4, size_), rank_, size_);
        ctx->carry.done = 0;
        ctx->carry_wanted = 1;
        int err = c.run(backend);
        ctx->carry_wanted = 0;
        ASSERT_EQ(err, MPI_SUCCESS) << backend;
        EXPECT_TRUE(c.arrived()) << backend;
        // One rank knows its whole call, except inside MPI's own (vendor).
        bool alone = size_ == 1 && std::string(backend) != "vendor";
        EXPECT_EQ(ctx->carry.done, alone) << backend;
    }
}

// The sequence: runs of one pattern, then alternations.  Checked call by
// call against the model's pick on the whole matrices.
TEST(AutoCarry, AutoChoosesFromTheLastCallOnlyWhileThePatternHolds)
{
    // A model where posting a message costs a millisecond: a Bruck
    // exchange (2 ceil(log2 P) posts) beats a direct one (2 (P-1)) from 4
    // ranks on, except on an all-zero matrix, where a direct exchange
    // posts nothing.  Then the built-in model.
    ravel_cost_params cpu, builtin;
    ravel_cost_params_default(&builtin);
    cpu = builtin;
    cpu.o = 1e-3;
    std::vector<std::vector<uint64_t>> seq;
    for (int i = 0; i < 5; i++)
        seq.push_back(pattern_matrix(SHAPE_RANDOM, 11, size_));
    for (int i = 0; i < 3; i++)
        seq.push_back(pattern_matrix(kUniform, 0, size_));
    for (int i = 0; i < 6; i++)
        seq.push_back(
            pattern_matrix(i % 2 ? SHAPE_ALL_ZERO : SHAPE_RANDOM, 5, size_));
    // A pattern that holds on a direct exchange (which carries nothing) and
    // is predicted to take no time: 64 calls on the last agreed statistics
    // at the most, then an agreeing one.  On up to 3 ranks, long enough to
    // hold a whole such run after a run begun by the calls before it (there
    // every pattern here runs on a direct exchange, and a run on patterns
    // that take an agreement's time each ends after 50 calls, the budget);
    // on more ranks, where each call checks its agreement across many
    // oversubscribed ranks, 20 calls (runs of up to 64 still checked).
    const bool long_run = size_ <= 3;
    for (int i = 0; i < (long_run ? 140 : 20); i++)
        seq.push_back(pattern_matrix(SHAPE_ALL_ZERO, 0, size_));
    for (const ravel_cost_params *model : {&cpu, &builtin}) {
        ravel_comm_set_model(model, "test"); // a new model: a new memory
        // The latest call whose statistics every rank knew.
        std::vector<uint64_t> basis =
            pattern_matrix(SHAPE_ALL_ZERO, 0, size_);
        PatternCall reset = pattern_call(basis, rank_, size_);
        ASSERT_EQ(reset.run("auto:agree"), MPI_SUCCESS);
        int carried_calls = 0, carrying_picks = 0, blind_run = 0;
        int longest_blind_run = 0;
        for (size_t i = 0; i < seq.size(); i++) {
            SCOPED_TRACE("call " + std::to_string(i) + " P=" +
                         std::to_string(size_) + " rank " +
                         std::to_string(rank_));
            PatternCall c = pattern_call(seq[i], rank_, size_);
            ASSERT_EQ(c.run("auto"), MPI_SUCCESS);
            EXPECT_TRUE(c.arrived());
            int known = 0, carried = 0;
            ravel_call_stats s;
            ASSERT_EQ(ravel_comm_auto_memory(MPI_COMM_WORLD, &known, &s,
                                             &carried),
                      MPI_SUCCESS);
            std::string chose = last_choice();
            EXPECT_TRUE(same_on_every_rank(carried));
            EXPECT_TRUE(same_on_every_rank(known));
            int choice = -1;
            ravel_comm_last_choice(MPI_COMM_WORLD, &choice, nullptr);
            EXPECT_TRUE(same_on_every_rank(choice));
            EXPECT_EQ(chose, model_pick(*model, carried ? basis : seq[i]))
                << "carried " << carried;
            if (known) // else a direct exchange carried none
                basis = seq[i];
            ravel_call_stats want;
            ravel_call_stats_of(size_, basis.data(), &want);
            expect_stats_eq(s, want);
            blind_run = known ? 0 : blind_run + 1;
            EXPECT_LE(blind_run, 64);
            longest_blind_run = std::max(longest_blind_run, blind_run);
            carried_calls += carried;
            // The first run: its third call on may carry, and does when
            // the backend of the run carries.
            if (i >= 2 && i < 5) {
                bool picks_carrier = carries(model_pick(*model, seq[i]));
                carrying_picks += picks_carrier;
                if (picks_carrier) {
                    EXPECT_TRUE(carried);
                }
            }
            // The alternation: its second call may run the first's pick
            // (the lag), none after it when the two picks differ and one
            // of them carries (two direct exchanges learn nothing of the
            // change, and carry on blind by design).
            std::string pick8 = model_pick(*model, seq[8]),
                        pick9 = model_pick(*model, seq[9]);
            if (i >= 10 && i < 14 && pick8 != pick9 &&
                (carries(pick8) || carries(pick9))) {
                EXPECT_FALSE(carried);
            }
        }
        if (carrying_picks > 0) {
            EXPECT_GT(carried_calls, 0);
        }
        if (model == &cpu && size_ >= 2) { // all-zero: spread-out
            EXPECT_EQ(model_pick(cpu, seq.back()), "spread-out");
            if (long_run) {
                EXPECT_EQ(longest_blind_run, 64);
            }
        }
        if (model == &cpu && size_ >= 4) { // the test tests something
            EXPECT_GT(carrying_picks, 0);
            EXPECT_NE(model_pick(cpu, seq[8]), model_pick(cpu, seq[9]));
        }
    }
    ravel_cost_params_default(&builtin);
    ravel_comm_set_model(&builtin, "built-in");
}

int main(int argc, char **argv)
{
    return mpi_gtest_main(argc, argv, &rank_, &size_, "AutoCarry");
}
