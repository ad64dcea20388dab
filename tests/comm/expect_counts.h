// expect_counts.h: what a backend reported (ravel_comm_stats_get) against
// what the cost model counts for it (ravel_cost_counts_of), field by
// field: they must match to the byte.  The caller's SCOPED_TRACE names
// the case.
#ifndef RAVEL_TEST_EXPECT_COUNTS_H
#define RAVEL_TEST_EXPECT_COUNTS_H

#include <gtest/gtest.h>

#include "ravel/comm.h"
#include "ravel/cost_model.h"

inline void expect_counts(const ravel_comm_stats &got,
                          const ravel_cost_counts &want)
{
    EXPECT_EQ(got.messages, want.messages);
    EXPECT_EQ(got.bytes, want.bytes);
    EXPECT_EQ(got.metadata_messages, want.metadata_messages);
    EXPECT_EQ(got.metadata_bytes, want.metadata_bytes);
    EXPECT_EQ(got.posted, want.posted);
    EXPECT_EQ(got.copied, want.copied);
}

#endif
