/* Output of ravel-a2a: a table for people, CSV for the plotting scripts. */
#include "a2a_report.h"

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
    fprintf(out, "%-16s %8s %12s %10s %10s %10s %12s %12s %12s\n", "backend",
            "N(B)", "median(us)", "mad(us)", "msgs", "msgs-max", "bytes",
            "bytes-max", "data-bytes");
}

void a2a_report_row(FILE *out, const a2a_result *r)
{
    fprintf(out, "%-16s %8llu %12.2f %10.2f %10.1f %10.0f %12.0f %12.0f %12.0f\n",
            r->backend, (unsigned long long)r->n_bytes, r->median_us,
            r->mad_us, r->messages_mean, r->messages_max, r->bytes_mean,
            r->bytes_max, r->data_bytes_mean);
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
                     "metadata_msgs_per_rank,data_bytes_per_rank\n");
    return csv;
}

void a2a_report_csv_row(FILE *csv, const a2a_config *cfg, int P,
                        const a2a_result *r)
{
    char dist[512];
    a2a_dist_name(&cfg->dist, dist, sizeof dist);
    fprintf(csv,
            "%d,%s,%s,%s,%llu,%llu,%llu,%llu,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.0f,"
            "%.1f,%.0f,%.3f,%.1f\n",
            P, r->backend, dist, cfg->type_name,
            (unsigned long long)r->n_bytes, (unsigned long long)cfg->iters,
            (unsigned long long)cfg->warmup, (unsigned long long)cfg->seed,
            cfg->verify, r->median_us, r->mad_us, r->min_us, r->max_us,
            r->messages_mean, r->messages_max, r->bytes_mean, r->bytes_max,
            r->metadata_messages_mean, r->data_bytes_mean);
    fflush(csv);
}
