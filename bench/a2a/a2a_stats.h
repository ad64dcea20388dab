/* a2a_stats.h: robust summaries of timed calls (median and MAD). */
#ifndef RAVEL_A2A_STATS_H
#define RAVEL_A2A_STATS_H

#include <stddef.h>

/* Median of v[0..n), n >= 1; sorts v in place. */
double a2a_median(double *v, size_t n);

/* Median absolute deviation from the median of v[0..n): the median of
 * |v[i] - median|.  Sorts v and uses scratch[0..n). */
double a2a_mad(double *v, double *scratch, size_t n);

#endif
