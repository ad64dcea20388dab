// The zero-rotation Bruck schedule (comm/bruck_schedule.h) against a literal
// simulation of the classical algorithm, for every P up to 64.
//
// The simulation moves labelled blocks (source, destination) the way Bruck
// et al. describe it: rotate each rank's buffer so slot j holds the block for
// rank + j, at step k send every slot with bit k set to rank + 2^k (which
// stores it in the same slot), then undo the rotation.  The schedule's
// formulas, which the backends use instead of moving data, must agree with it
// at every step, and every block must end at its destination.
#include <gtest/gtest.h>

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
