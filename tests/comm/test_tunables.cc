// The shm tunables read from the environment: a size is taken, a value
// that is no size (or too small) falls back to the default, and the
// outboxes' limit is never below the chunk.  The expected numbers are
// written out here, not read from the code's constants.
#include <gtest/gtest.h>

#include <cstdlib>

#include "ravel/comm.h"

namespace {

// Sets (or unsets, for nullptr) both variables and forgets the values
// read so far, so that the next reads take the environment again.
void environment(const char *chunk, const char *outboxes)
{
    for (auto [name, value] : {std::pair{"RAVEL_SHM_CHUNK", chunk},
                               std::pair{"RAVEL_SHM_OUTBOXES", outboxes}})
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    ravel_comm_set_shm_chunk(0);
    ravel_comm_set_shm_outboxes(0);
}

} // namespace

TEST(Tunables, ShmDefaults)
{
    environment(nullptr, nullptr);
    EXPECT_EQ(ravel_comm_shm_chunk(), 1u << 20);
    EXPECT_EQ(ravel_comm_shm_outboxes(), 16u << 20);
}

TEST(Tunables, ShmSizesFromTheEnvironment)
{
    environment("4M", "64M");
    EXPECT_EQ(ravel_comm_shm_chunk(), 4u << 20);
    EXPECT_EQ(ravel_comm_shm_outboxes(), 64u << 20);
    environment("65536", "2048");
    EXPECT_EQ(ravel_comm_shm_chunk(), 65536u);
    // The outboxes' limit never below the chunk.
    EXPECT_EQ(ravel_comm_shm_outboxes(), 65536u);
    environment(nullptr, nullptr);
}

TEST(Tunables, ShmValuesThatAreNoSizeFallBack)
{
    environment("lots", "12");
    EXPECT_EQ(ravel_comm_shm_chunk(), 1u << 20);
    EXPECT_EQ(ravel_comm_shm_outboxes(), 16u << 20);
    environment(nullptr, nullptr);
}

TEST(Tunables, ShmValuesSetInTheProgramWin)
{
    environment("4M", "64M");
    ravel_comm_set_shm_chunk(8192);
    ravel_comm_set_shm_outboxes(3 << 20);
    EXPECT_EQ(ravel_comm_shm_chunk(), 8192u);
    EXPECT_EQ(ravel_comm_shm_outboxes(), 3u << 20);
    ravel_comm_set_shm_outboxes(100); // raised to the least, 1024
    EXPECT_EQ(ravel_comm_shm_outboxes(), 8192u); // then to the chunk
    environment(nullptr, nullptr);
}
