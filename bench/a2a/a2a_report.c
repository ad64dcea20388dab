/* Output of ravel-a2a: a table for people, CSV for the plotting scripts. */
#include "a2a_report.h"

#include "a2a_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double a2a_prediction_error(const a2a_result *r)
{
    return r->median_us > 0.0 ? (r->predicted_us - r->median_us) / r->median_us
                              : NAN;
}

void a2a_report_header(FILE *out, const a2a_config *cfg, int P, int shared)
{
    char dist[512];
    a2a_dist_name(&cfg->dist, dist, sizeof dist);
    fprintf(out,
            "# ravel-a2a: P=%d dist=%s type=%s iters=%llu warmup=%llu "
            "seed=%llu verify=%s payload=%s\n",
            P, dist, cfg->type_name, (unsigned long long)cfg->iters,
            (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed,
            cfg->verify ? "yes" : "no", shared ? "smpi-shared" : "private");
    fprintf(out,
            "# time: slowest rank per call, median and MAD over the timed "
            "calls; msgs and bytes: sent per rank per call (mean, max)\n");
    fprintf(out, "%-16s %8s %12s %10s %10s %10s %12s %12s %12s %12s %8s\n",
            "backend", "N(B)", "median(us)", "mad(us)", "msgs", "msgs-max",
            "bytes", "bytes-max", "data-bytes", "model(us)", "error");
}

void a2a_report_row(FILE *out, const a2a_result *r)
{
    fprintf(out, "%-16s %8llu %12.2f %10.2f %10.1f %10.0f %12.0f %12.0f "
            "%12.0f %12.2f %+7.0f%%",
            r->backend, (unsigned long long)r->n_bytes, r->median_us,
            r->mad_us, r->messages_mean, r->messages_max, r->bytes_mean,
            r->bytes_max, r->data_bytes_mean, r->predicted_us,
            100.0 * a2a_prediction_error(r));
    if (r->chose)
        fprintf(out, " -> %s", r->chose);
    fprintf(out, "\n");
    fflush(out);
}

FILE *a2a_report_csv_open(const char *path)
{
    FILE *csv = fopen(path, "a");
    if (!csv)
        return NULL;
    if (ftell(csv) == 0)
        fprintf(csv, "P,backend,dist,type,N,iters,warmup,seed,verified,"
                     "median_us,mad_us,min_us,max_us,msgs_per_rank,"
                     "msgs_per_rank_max,bytes_per_rank,bytes_per_rank_max,"
                     "metadata_msgs_per_rank,data_bytes_per_rank,"
                     "predicted_us,chose,mean_us\n");
    return csv;
}

void a2a_report_csv_row(FILE *csv, const a2a_config *cfg, int P,
                        const a2a_result *r)
{
    char dist[512];
    a2a_dist_name(&cfg->dist, dist, sizeof dist);
    fprintf(csv,
            "%d,%s,%s,%s,%llu,%llu,%llu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,"
            "%.1f,%.0f,%.3f,%.1f,%.3f,%s,%.3f\n",
            P, r->backend, dist, cfg->type_name,
            (unsigned long long)r->n_bytes, (unsigned long long)cfg->iters,
            (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed,
            cfg->verify, r->median_us, r->mad_us, r->min_us, r->max_us,
            r->messages_mean, r->messages_max, r->bytes_mean, r->bytes_max,
            r->metadata_messages_mean, r->data_bytes_mean, r->predicted_us,
            r->chose ? r->chose : "", r->mean_us);
    fflush(csv);
}

void a2a_report_model_errors(FILE *out, const a2a_result *rows, size_t n)
{
    double *errors = malloc((n ? n : 1) * sizeof *errors);
    if (!errors)
        return;
    fprintf(out, "# cost model: median relative error (predicted - "
                 "measured) / measured, per backend\n");
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(rows[j].backend, rows[i].backend) == 0;
        if (seen)
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (strcmp(rows[j].backend, rows[i].backend) == 0 &&
                !isnan(a2a_prediction_error(&rows[j])))
                errors[k++] = a2a_prediction_error(&rows[j]);
        if (k)
            fprintf(out, "#   %-16s %+6.0f%% over %zu sizes\n",
                    rows[i].backend, 100.0 * a2a_median(errors, k), k);
    }
    free(errors);
}
