/* Fitting t(x) = intercept + slope * x through measured points.
 *
 * Least squares on the RELATIVE error: minimise sum_i ((c + s x_i - t_i) /
 * t_i)^2, a weighted least squares with weights 1 / t_i^2.  Why not plain
 * least squares: the times span three to four orders of magnitude (a 1-byte
 * message takes about a microsecond, 4 MiB about a millisecond), and plain
 * least squares minimises absolute errors, so a 1% error at 4 MiB outweighs
 * a 100% error at 1 byte.  The intercept (alpha) would be whatever the large
 * sizes leave over: noise, often negative.  Relative error gives every size
 * one equal vote, which is also how the model is used: auto compares
 * backends on calls from a few bytes to megabytes, and what flips a choice
 * is a prediction that is off by some factor, not by some microseconds.
 * The alternative (alpha from the small sizes, beta from the large) needs a
 * threshold between them that depends on the machine; this does not.
 *
 * A side effect that suits a shared machine: a line below a point misses it
 * by at most 100%, a line above it by any factor, so the fit hugs the lower
 * envelope of the points, and interference only ever adds time.  (At load
 * 10 on 2 cores, with every small size's ping-pong at 10 ms, a time slice,
 * the fit still gave alpha = 25 us from the sizes that ran undisturbed.)
 *
 * The residuals reported are |fit - t| / t per point: how far the straight
 * line is from the machine.  A large residual at some sizes means the
 * machine is not a straight line there (an MPI protocol switch, a cache
 * level, a noisy neighbour), not that the fit failed.
 *
 * A parameter must be positive to be usable, and a slope must be resolved
 * by the data: the slope term must make at least RESOLVED_PERCENT (1%) of the
 * largest point's time.  When every point's time is one scheduler time
 * slice (4 ranks on 2 cores: 4 ms for 1 byte and for 4 MiB alike) the fit
 * gives a slope of nearly nothing, once 2.8e-14 s/B (35 TB/s), which is
 * noise, not a bandwidth; on an idle machine the smallest share is gamma's,
 * about 10% (copies leave the caches there).  When a fitted value is not
 * usable, the fallback (flagged in the file) is what the data bound
 * directly: the slope between the two largest points if that one is
 * usable, else the largest point's t / x (an upper bound: all of its time
 * charged to its size); the intercept (when it is a parameter, as alpha
 * is) the smallest point's time. */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>

enum { RESOLVED_PERCENT = 1 }; /* see the opening comment */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cal_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int cal_reps_for(double seconds, double once, int max_reps)
{
    double r = once > 0 ? seconds / once : max_reps;
    return r < 1 ? 1 : r > max_reps ? max_reps : (int)r;
}

/* The weighted normal equations of the 2-parameter line. */
static void relative_least_squares(const cal_series *s, double *c, double *k)
{
    double sw = 0, swx = 0, swxx = 0, swt = 0, swxt = 0;
    for (size_t i = 0; i < s->n; i++) {
        double w = 1.0 / (s->t[i] * s->t[i]);
        sw += w;
        swx += w * s->x[i];
        swxx += w * s->x[i] * s->x[i];
        swt += w * s->t[i];
        swxt += w * s->x[i] * s->t[i];
    }
    double det = sw * swxx - swx * swx;
    if (s->n < 2 || !(fabs(det) > 0)) {
        *k = 0;
        *c = s->n ? s->t[0] : 0;
        return;
    }
    *c = (swt * swxx - swx * swxt) / det;
    *k = (sw * swxt - swx * swt) / det;
}

/* Whether `slope` is positive and makes RESOLVED_PERCENT of the largest
 * point's time. */
static int resolved(const cal_series *s, double slope)
{
    size_t last = s->n - 1;
    return slope > 0 &&
           slope * s->x[last] >= s->t[last] * RESOLVED_PERCENT / 100.0;
}

void cal_fit(cal_series *s, int intercept_is_parameter)
{
    relative_least_squares(s, &s->intercept, &s->slope);
    s->fallback = 0;
    size_t last = s->n - 1;
    if (!resolved(s, s->slope)) {
        s->fallback = 1;
        double dx = s->n > 1 ? s->x[last] - s->x[last - 1] : 0;
        double dt = s->n > 1 ? s->t[last] - s->t[last - 1] : 0;
        double two_points = dx > 0 ? dt / dx : 0;
        s->slope = resolved(s, two_points) ? two_points
                                           : s->t[last] / s->x[last];
    }
    if (intercept_is_parameter && !(s->intercept > 0)) {
        s->fallback = 1;
        s->intercept = s->t[0];
    }
    double r[CAL_MAX_POINTS];
    s->max_residual = 0;
    for (size_t i = 0; i < s->n; i++) {
        double fit = s->intercept + s->slope * s->x[i];
        r[i] = fabs(fit - s->t[i]) / s->t[i];
        if (r[i] > s->max_residual)
            s->max_residual = r[i];
    }
    s->median_residual = s->n ? cal_median(r, s->n) : 0;
}
