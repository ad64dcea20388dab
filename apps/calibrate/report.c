/* What ravel-calibrate prints, and the fit it records in the model file.
 *
 * The file keeps every measured point next to the fit, so that a later
 * reader can refit, or see why a parameter looks odd, without measuring
 * again; the loader ignores all of it. */
#include "calibrate.h"

#include <ravel/error.h>
#include <ravel/json.h>

#include <stdlib.h>

void cal_print_series(FILE *out, const char *title, const cal_series *s,
                      const char *intercept_name, const char *slope_name)
{
    fprintf(out, "\n%s\n", title);
    fprintf(out, "  %10s %14s %14s %10s\n",
            s->x_unit[0] == 'B' ? "bytes" : "messages", "measured us",
            "fitted us", "residual");
    for (size_t i = 0; i < s->n; i++) {
        double fit = s->intercept + s->slope * s->x[i];
        fprintf(out, "  %10.0f %14.4f %14.4f %9.1f%%\n", s->x[i],
                s->t[i] * 1e6, fit * 1e6, 100 * (fit - s->t[i]) / s->t[i]);
    }
    fprintf(out, "  fit: %s = %.4g s, %s = %.4g s/%s; |residual| max %.1f%%, "
            "median %.1f%%%s\n", intercept_name, s->intercept, slope_name,
            s->slope, s->x_unit, 100 * s->max_residual,
            100 * s->median_residual,
            s->fallback ? " (a fitted value was not usable: fallback used, "
                          "see fit.c)" : "");
}

void cal_print_params(FILE *out, const ravel_cost_params *m,
                      const cal_topology *t, const cal_series *pingpong,
                      const cal_series *post, const cal_series *copy)
{
    const char *pp = !pingpong->measured ? "built-in default (one rank)"
                     : t->partner_same_node ? "ping-pong, within a node"
                                            : "ping-pong, between nodes";
    fprintf(out, "\n%-15s %12s  %-6s %s\n", "parameter", "value", "unit",
            "source");
    fprintf(out, "%-15s %12.4g  %-6s %s\n", "alpha", m->alpha, "s", pp);
    fprintf(out, "%-15s %12.4g  %-6s %s\n", "beta", m->beta, "s/B", pp);
    fprintf(out, "%-15s %12.4g  %-6s %s\n", "gamma", m->gamma, "s/B",
            copy->measured ? "memcpy on rank 0" : "built-in default");
    fprintf(out, "%-15s %12.4g  %-6s %s\n", "o", m->o, "s",
            post->measured ? "zero-byte Isend/Irecv batches"
                           : "built-in default (one rank)");
    fprintf(out, "%-15s %12.4g  %-6s %s\n", "fresh", m->fresh, "s/B",
            "shared windows allocated and first written");
    fprintf(out, "%-15s %12d  %-6s %d rank%s on %d node%s\n",
            "ranks_per_node", m->ranks_per_node, "", t->size,
            t->size == 1 ? "" : "s", t->nodes, t->nodes == 1 ? "" : "s");
}

static const char *boolean(int b) { return b ? "true" : "false"; }

static void print_list(FILE *out, const double *v, size_t n)
{
    fputc('[', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%.6g", i ? ", " : "", v[i]);
    fputc(']', out);
}

static void print_series(FILE *out, const char *name, const char *method,
                         const cal_series *s)
{
    fprintf(out, "    \"%s\": {\"measured\": %s, \"method\": ", name,
            boolean(s->measured));
    ravel_json_string(out, method);
    fprintf(out, ", \"points\": %zu", s->n);
    if (s->measured) {
        fprintf(out, ",\n      \"intercept\": %.6g, \"slope\": %.6g, "
                "\"fallback\": %s,\n      \"max_rel_residual\": %.4g, "
                "\"median_rel_residual\": %.4g,\n      \"x\": ",
                s->intercept, s->slope, boolean(s->fallback),
                s->max_residual, s->median_residual);
        print_list(out, s->x, s->n);
        fputs(",\n      \"t\": ", out);
        print_list(out, s->t, s->n);
    }
    fputc('}', out);
}

int cal_extra_members(const cal_topology *t, const char *host, int quick,
                      const cal_series *pingpong, const cal_series *post,
                      const cal_series *copy, char **extra)
{
    size_t length = 0;
    char method[160];
    *extra = NULL;
    FILE *out = open_memstream(extra, &length);
    if (!out)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the fit");
    fputs("\"fit\": {\n", out);
    snprintf(method, sizeof method, "ping-pong between ranks 0 and %d (%s), "
             "one-way time, least relative squares", t->partner,
             t->partner_same_node ? "same node" : "different nodes");
    print_series(out, "alpha_beta", pingpong->measured ? method
                                    : "not measured: one rank, no partner",
                 pingpong);
    fputs(",\n", out);
    print_series(out, "gamma", "memcpy on rank 0, least relative squares",
                 copy);
    fputs(",\n", out);
    print_series(out, "o", post->measured
                               ? "batches of zero-byte Isend/Irecv, slope "
                                 "per message, least relative squares"
                               : "not measured: one rank, no partner",
                 post);
    fprintf(out, ",\n    \"quick\": %s\n  },\n", boolean(quick));
    fprintf(out, "  \"nodes\": %d,\n  \"ranks\": %d,\n  \"host\": ", t->nodes,
            t->size);
    ravel_json_string(out, host);
    fprintf(out, ",\n  \"measured\": {\"alpha\": %s, \"beta\": %s, "
            "\"gamma\": %s, \"o\": %s}", boolean(pingpong->measured),
            boolean(pingpong->measured), boolean(copy->measured),
            boolean(post->measured));
    int failed = ferror(out);
    if (fclose(out) != 0 || failed) {
        free(*extra);
        *extra = NULL;
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory for the fit");
    }
    return MPI_SUCCESS;
}
