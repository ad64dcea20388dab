/* apps/calibrate: what ravel-calibrate's parts share.
 *
 * Each measurement (measure_*.c) fills a series of (x, seconds) points, the
 * median of several trials each; fit.c fits a line through them; report.c
 * prints the series and writes the fit into the model file's extra members.
 * topology.c finds the nodes and the ping-pong partner. */
#ifndef RAVEL_CALIBRATE_H
#define RAVEL_CALIBRATE_H

#include <ravel/cost_model.h>

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

/* How long to measure: one trial of one point lasts about `trial_seconds`,
 * and a point is the median of `trials` trials. */
typedef struct {
    double trial_seconds;
    int trials;
} cal_effort;

#define CAL_MAX_POINTS 24

/* A measured line t(x) = intercept + slope * x. */
typedef struct {
    const char *x_unit;          /* "B" or "msg", for the tables */
    int measured;                /* 0: not measured (no partner) */
    size_t n;                    /* points */
    double x[CAL_MAX_POINTS];    /* bytes, or messages per batch */
    double t[CAL_MAX_POINTS];    /* median seconds */
    double intercept, slope;     /* the fit (fit.c) */
    int fallback;                /* the fit was not usable; see fit.c */
    double max_residual;         /* max |fit - t| / t over the points */
    double median_residual;      /* median of the same */
} cal_series;

/* Where the ranks are (topology.c). */
typedef struct {
    int rank, size;
    int nodes;          /* distinct shared-memory nodes */
    int ranks_per_node; /* the largest node's ranks */
    int partner;        /* rank 0's ping-pong partner, -1 when P = 1 */
    int partner_same_node;
} cal_topology;

int cal_topology_find(MPI_Comm comm, cal_topology *t);

/* Any rank's failure, agreed on by all: returns 1 when `failed` is set on
 * some rank (or the agreement itself fails), else 0.  Called before every
 * collective step, so that no rank waits for one that has given up. */
int cal_any_failed(int failed, MPI_Comm comm);

/* Measurements.  Each returns MPI_SUCCESS or an error with
 * ravel_error_message() set; the MPI calls of the pairwise ones abort the
 * job on failure (see measure_pingpong.c). */
int cal_measure_pingpong(MPI_Comm comm, const cal_topology *t,
                         const cal_effort *e, cal_series *s);
int cal_measure_post(MPI_Comm comm, const cal_topology *t,
                     const cal_effort *e, cal_series *s);
int cal_measure_memcpy(const cal_effort *e, cal_series *s);
/* Collective on comm: every node's ranks allocate and write shared
 * windows; rank 0's series is its node's. */
int cal_measure_fresh(MPI_Comm comm, const cal_effort *e, cal_series *s);

/* The median of v[0..n) (n >= 1); reorders v. */
double cal_median(double *v, size_t n);

/* Repetitions of an operation that took `once` seconds so that a trial
 * lasts about `seconds`: at least 1, at most max_reps. */
int cal_reps_for(double seconds, double once, int max_reps);

/* Fits s->intercept and s->slope by least relative squares and fills the
 * residuals (fit.c).  The slope is always a model parameter and is made
 * positive; the intercept only when intercept_is_parameter. */
void cal_fit(cal_series *s, int intercept_is_parameter);

/* Rank 0's MPI failure in a pairwise protocol: the peer is blocked in a
 * call that will never complete, so the job cannot end cleanly. */
void cal_abort_on_mpi_error(int err, const char *what);

/* ---- report.c: what is printed and what goes into the file ------------ */

/* One series as a table: x, measured and fitted time (in microseconds) and
 * the relative residual per point, then the fit. */
void cal_print_series(FILE *out, const char *title, const cal_series *s,
                      const char *intercept_name, const char *slope_name);

/* The four parameters, where each came from, and the nodes. */
void cal_print_params(FILE *out, const ravel_cost_params *m,
                      const cal_topology *t, const cal_series *pingpong,
                      const cal_series *post, const cal_series *copy);

/* The model file's extra members (fit, nodes, ranks, host, measured), in a
 * string the caller frees.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int cal_extra_members(const cal_topology *t, const char *host, int quick,
                      const cal_series *pingpong, const cal_series *post,
                      const cal_series *copy, char **extra);

#endif
