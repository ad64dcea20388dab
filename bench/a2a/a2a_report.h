/* a2a_report.h: ravel-a2a's results as a table on stdout and as CSV rows.
 * Called on rank 0 only. */
#ifndef RAVEL_A2A_REPORT_H
#define RAVEL_A2A_REPORT_H

#include "a2a_config.h"

#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *backend;
    uint64_t n_bytes;     /* the N of this row: largest block in bytes */
    double median_us, mad_us, min_us, max_us; /* of the slowest rank's times */
    double mean_us;       /* their mean: what a run of these calls takes per
                             call, when calls differ (auto agreeing at some
                             calls only) */
    double messages_mean, messages_max; /* per rank and call */
    double bytes_mean, bytes_max;       /* per rank and call, padding incl. */
    double metadata_messages_mean;      /* per rank and call */
    double data_bytes_mean;             /* the exchange's own, per rank */
    double predicted_us;  /* the cost model's time (auto: of its choice) */
    const char *chose;    /* auto: the backend it called; else NULL */
} a2a_result;

/* The relative error of a prediction: (predicted - median) / median. */
double a2a_prediction_error(const a2a_result *r);

/* The closing lines: the model's median relative error per backend, over
 * the rows of the run (rows[0..n)). */
void a2a_report_model_errors(FILE *out, const a2a_result *rows, size_t n);

/* The run's parameters and the table's header. */
void a2a_report_header(FILE *out, const a2a_config *cfg, int P, int shared);

void a2a_report_row(FILE *out, const a2a_result *r);

/* Opens path for appending; writes the CSV header when the file is empty.
 * Returns NULL (errno set) on failure. */
FILE *a2a_report_csv_open(const char *path);

/* One CSV row; flushed at once so a long sweep keeps what it measured. */
void a2a_report_csv_row(FILE *csv, const a2a_config *cfg, int P,
                        const a2a_result *r);

#endif
