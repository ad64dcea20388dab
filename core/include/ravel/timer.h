/* ravel/timer.h: a monotonic wall clock in seconds. */
#ifndef RAVEL_TIMER_H
#define RAVEL_TIMER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC); never goes
 * backwards.  A function, not an inline, so that the caller's feature-test
 * macros do not matter. */
double ravel_now(void);

#ifdef __cplusplus
}
#endif
#endif
