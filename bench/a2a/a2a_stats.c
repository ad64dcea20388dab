/* Median and median absolute deviation: a few slow calls (a daemon waking,
 * a page fault) move neither, unlike the mean and the standard deviation. */
#include "a2a_stats.h"

#include <math.h>
#include <stdlib.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double a2a_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double a2a_mad(double *v, double *scratch, size_t n)
{
    double m = a2a_median(v, n);
    for (size_t i = 0; i < n; i++)
        scratch[i] = fabs(v[i] - m);
    return a2a_median(scratch, n);
}
