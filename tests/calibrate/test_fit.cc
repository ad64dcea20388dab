// cal_fit (apps/calibrate/fit.c) against lines whose parameters are known:
// an exact line is recovered; points that a scheduler's time slice flattens
// (every size the same time, the failure seen at 4 ranks on 2 cores) give
// no near-zero slope but the flagged fallback, the largest point's t / x.
#include <gtest/gtest.h>
#include <mpi.h>

extern "C" {
#include "calibrate.h"
}

namespace {

cal_series line(double intercept, double slope)
{
    cal_series s = {};
    s.x_unit = "B";
    s.measured = 1;
    for (double x = 1; x <= 4194304; x *= 4)
        s.x[s.n++] = x;
    for (size_t i = 0; i < s.n; i++)
        s.t[i] = intercept + slope * s.x[i];
    return s;
}

} // namespace

TEST(CalibrateFit, RecoversAnExactLine)
{
    cal_series s = line(1e-6, 2e-10);
    cal_fit(&s, 1);
    EXPECT_EQ(s.fallback, 0);
    EXPECT_NEAR(s.intercept, 1e-6, 1e-12);
    EXPECT_NEAR(s.slope, 2e-10, 1e-16);
    EXPECT_LT(s.max_residual, 1e-9);
}

TEST(CalibrateFit, AFlatSeriesIsNotABandwidth)
{
    // Every time one 4 ms slice; the fit's slope is then what the failing
    // run got, of the order of 1e-14 s/B, positive but meaningless.
    cal_series s = line(4e-3, 2.8e-14);
    cal_fit(&s, 1);
    EXPECT_EQ(s.fallback, 1);
    // The two largest points differ by the same meaningless slope, so the
    // bound is the largest point's time charged to its bytes.
    size_t last = s.n - 1;
    EXPECT_DOUBLE_EQ(s.slope, s.t[last] / s.x[last]);
}

TEST(CalibrateFit, ANegativeSlopeFallsBack)
{
    cal_series s = line(1e-3, -1e-11);
    cal_fit(&s, 0);
    EXPECT_EQ(s.fallback, 1);
    EXPECT_GT(s.slope, 0);
}
