// The zero-rotation Bruck schedule (comm/bruck/bruck_schedule.h) against a literal
// simulation of the classical algorithm, for every P up to 64.
//
// The simulation moves labelled blocks (source, destination) the way Bruck
// et al. describe it: rotate each rank's buffer so slot j holds the block for
// rank + j, at step k send every slot with bit k set to rank + 2^k (which
// stores it in the same slot), then undo the rotation.  The schedule's
// formulas, which the backends use instead of moving data, must agree with it
// at every step, and every block must end at its destination.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bruck_schedule.h"

namespace {

struct Block {
    int src = -1, dst = -1;
};

using Buffers = std::vector<std::vector<Block>>; // [rank][slot]

Buffers rotated_start(int P)
{
    Buffers b(P, std::vector<Block>(P));
    for (int r = 0; r < P; r++)
        for (int j = 0; j < P; j++)
            b[r][j] = {r, (r + j) % P};
    return b;
}

void simulate_step(Buffers &b, int P, int k)
{
    Buffers next = b;
    for (int r = 0; r < P; r++) {
        int to = (r + (1 << k)) % P;
        for (int j = 0; j < P; j++)
            if ((j >> k) & 1)
                next[to][j] = b[r][j];
    }
    b = next;
}

int brute_force_steps(int P)
{
    int steps = 0;
    for (long reach = 1; reach < P; reach *= 2)
        steps++;
    return steps;
}

} // namespace

TEST(BruckSchedule, StepsAreCeilLog2)
{
    for (int P = 1; P <= 64; P++)
        EXPECT_EQ(ravel_bruck_steps(P), brute_force_steps(P)) << "P=" << P;
    EXPECT_EQ(ravel_bruck_steps(4096), 12);
    EXPECT_EQ(ravel_bruck_steps(1000), 10);
}

TEST(BruckSchedule, MatchesLiteralSimulation)
{
    for (int P = 1; P <= 64; P++) {
        Buffers b = rotated_start(P);
        int steps = ravel_bruck_steps(P);
        for (int k = 0; k <= steps; k++) {
            // Before step k, the formulas say what every slot holds.
            for (int r = 0; r < P; r++)
                for (int j = 1; j < P; j++) {
                    int src, dst;
                    ravel_bruck_block_at(r, j, k, P, &src, &dst);
                    ASSERT_EQ(src, b[r][j].src) << "P=" << P << " k=" << k
                                                << " rank=" << r << " j=" << j;
                    ASSERT_EQ(dst, b[r][j].dst) << "P=" << P << " k=" << k;
                    EXPECT_EQ(ravel_bruck_is_original(j, k), src == r)
                        << "P=" << P << " k=" << k << " j=" << j;
                }
            if (k == steps)
                break;
            // Which slots move at step k.
            std::vector<int> positions(P);
            int n = ravel_bruck_step_positions(P, k, positions.data());
            std::vector<int> expected;
            for (int j = 1; j < P; j++)
                if ((j >> k) & 1)
                    expected.push_back(j);
            ASSERT_EQ(n, (int)expected.size()) << "P=" << P << " k=" << k;
            for (int i = 0; i < n; i++)
                EXPECT_EQ(positions[i], expected[i]);
            EXPECT_LE(n, ravel_bruck_max_step_positions(P));
            simulate_step(b, P, k);
        }
        // After the last step, slot j of rank r holds the block from r - j
        // for r: the backends write it to the receive slot of r - j.
        for (int r = 0; r < P; r++)
            for (int j = 1; j < P; j++) {
                EXPECT_EQ(b[r][j].dst, r) << "P=" << P;
                EXPECT_EQ(b[r][j].src, ((r - j) % P + P) % P) << "P=" << P;
            }
    }
}

TEST(BruckSchedule, LastHopIsHighestBit)
{
    for (int P = 2; P <= 64; P++) {
        Buffers b = rotated_start(P);
        std::vector<int> last_moved(P, -1);
        for (int k = 0; k < ravel_bruck_steps(P); k++) {
            for (int j = 1; j < P; j++)
                if ((j >> k) & 1)
                    last_moved[j] = k;
            simulate_step(b, P, k);
        }
        for (int j = 1; j < P; j++)
            EXPECT_EQ(ravel_bruck_last_step(j), last_moved[j])
                << "P=" << P << " j=" << j;
    }
}

// ---- radix r ----------------------------------------------------------------
//
// The same literal simulation in base r: at round k, every slot whose base-r
// digit k is d (1 <= d < r) goes to rank + d r^k, all digits at once.

namespace {

int brute_force_digit(int j, int r, int k)
{
    for (int i = 0; i < k; i++)
        j /= r;
    return j % r;
}

void simulate_round(Buffers &b, int P, int r, int k)
{
    Buffers next = b;
    long stride = 1;
    for (int i = 0; i < k; i++)
        stride *= r;
    for (int x = 0; x < P; x++)
        for (int j = 1; j < P; j++) {
            int d = brute_force_digit(j, r, k);
            if (d)
                next[(x + d * stride) % P][j] = b[x][j];
        }
    b = next;
}

const int kRadices[] = {2, 3, 4, 5, 7, 8, 16, 100};

} // namespace

TEST(RadixSchedule, RoundsAreCeilLogR)
{
    for (int r : kRadices)
        for (int P = 1; P <= 64; P++) {
            int rounds = 0;
            for (long reach = 1; reach < P; reach *= r)
                rounds++;
            EXPECT_EQ(ravel_radix_rounds(P, r), rounds) << "P=" << P
                                                        << " r=" << r;
        }
    EXPECT_EQ(ravel_radix_rounds(4096, 4), 6);
    EXPECT_EQ(ravel_radix_rounds(1000, 10), 3);
    EXPECT_EQ(ravel_radix_rounds(1001, 10), 4);
}

TEST(RadixSchedule, RadixTwoIsBruck)
{
    for (int P = 1; P <= 64; P++) {
        ASSERT_EQ(ravel_radix_rounds(P, 2), ravel_bruck_steps(P));
        for (int k = 0; k < ravel_bruck_steps(P); k++)
            EXPECT_EQ(ravel_radix_positions(P, 2, k, 1, nullptr),
                      ravel_bruck_step_positions(P, k, nullptr));
        EXPECT_EQ(ravel_radix_max_positions(P, 2),
                  ravel_bruck_max_step_positions(P));
        for (int j = 1; j < P; j++)
            EXPECT_EQ(ravel_radix_last_round(j, 2), ravel_bruck_last_step(j));
    }
}

TEST(RadixSchedule, MatchesLiteralSimulation)
{
    for (int r : kRadices)
        for (int P = 1; P <= 40; P++) {
            Buffers b = rotated_start(P);
            int rounds = ravel_radix_rounds(P, r);
            std::vector<int> last_moved(P, -1);
            int seen_most = 0;
            for (int k = 0; k <= rounds; k++) {
                for (int x = 0; x < P; x++)
                    for (int j = 1; j < P; j++) {
                        int src, dst;
                        ravel_radix_block_at(x, j, k, r, P, &src, &dst);
                        ASSERT_EQ(src, b[x][j].src)
                            << "P=" << P << " r=" << r << " k=" << k
                            << " rank=" << x << " j=" << j;
                        ASSERT_EQ(dst, b[x][j].dst) << "P=" << P << " r=" << r;
                        EXPECT_EQ(ravel_radix_is_original(j, r, k), src == x)
                            << "P=" << P << " r=" << r << " k=" << k;
                    }
                if (k == rounds)
                    break;
                int most = ravel_radix_max_positions(P, r);
                std::vector<int> round(P), first(r + 1);
                ravel_radix_round_positions(P, r, k, round.data(),
                                            first.data());
                EXPECT_EQ(first[1], 0);
                for (int d = 1; d < r; d++) {
                    std::vector<int> positions(P);
                    int n = ravel_radix_positions(P, r, k, d,
                                                  positions.data());
                    std::vector<int> expected;
                    for (int j = 1; j < P; j++)
                        if (brute_force_digit(j, r, k) == d) {
                            expected.push_back(j);
                            last_moved[j] = k;
                        }
                    ASSERT_EQ(n, (int)expected.size())
                        << "P=" << P << " r=" << r << " k=" << k << " d=" << d;
                    for (int i = 0; i < n; i++)
                        EXPECT_EQ(positions[i], expected[i]);
                    // The closed-form count and the one-pass grouping.
                    EXPECT_EQ(ravel_radix_count(P, r, k, d), n)
                        << "P=" << P << " r=" << r << " k=" << k << " d=" << d;
                    ASSERT_EQ(first[d + 1] - first[d], n)
                        << "P=" << P << " r=" << r << " k=" << k << " d=" << d;
                    for (int i = 0; i < n; i++)
                        EXPECT_EQ(round[first[d] + i], expected[i]);
                    EXPECT_LE(n, most);
                    seen_most = std::max(seen_most, n);
                }
                for (int j = 1; j < P; j++)
                    EXPECT_EQ(ravel_radix_digit(j, r, k),
                              brute_force_digit(j, r, k));
                simulate_round(b, P, r, k);
            }
            for (int x = 0; x < P; x++)
                for (int j = 1; j < P; j++) {
                    EXPECT_EQ(b[x][j].dst, x) << "P=" << P << " r=" << r;
                    EXPECT_EQ(b[x][j].src, ((x - j) % P + P) % P);
                }
            for (int j = 1; j < P; j++)
                EXPECT_EQ(ravel_radix_last_round(j, r), last_moved[j])
                    << "P=" << P << " r=" << r << " j=" << j;
            EXPECT_EQ(ravel_radix_max_positions(P, r), seen_most)
                << "P=" << P << " r=" << r;
        }
}
