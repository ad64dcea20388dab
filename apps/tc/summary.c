/* The end-of-run summary of ravel-tc, as text or JSON. */
#include "summary.h"

#include <ravel/comm.h>
#include <ravel/json.h>
#include <ravel/memory.h>

#include <inttypes.h>

static void print_text(const tc_summary *s, double moves,
                       uint64_t peak_max, uint64_t peak_sum, FILE *out)
{
    const tc_closure *c = s->closure;
    fprintf(out,
            "graph             %s (%s%s%s%s)\n"
            "vertices          %" PRIu64 "\n"
            "edges read        %" PRIu64 "\n"
            "closure size      %" PRIu64 "\n"
            "iterations        %" PRIu64 " (%" PRIu64 " found new paths)\n"
            "total time        %.3f s (reading %.3f s, closure %.3f s)\n"
            "exchange time     %.3f s (and %.3f s placing the edges)\n"
            "compute time      %.3f s\n"
            "peak memory       %.1f MiB per rank (max), %.1f MiB in all\n"
            "comm backend      %s on %d ranks\n",
            s->graph_name, ravel_tc_format_name(s->graph->format),
            s->graph->field ? ", " : "",
            s->graph->field ? ravel_tc_field_name(s->graph->field) : "",
            s->graph->compressed ? ", gzip" : "", s->graph->vertex_count,
            s->graph->entries_read, c->closure_size, c->iterations,
            c->productive_iterations, s->read_seconds + c->seconds,
            s->read_seconds, c->seconds, c->comm_seconds, moves,
            c->compute_seconds, (double)peak_max / 1048576.0,
            (double)peak_sum / 1048576.0, s->comm_backend, s->ranks);
}

static void print_json(const tc_summary *s, double moves,
                       uint64_t peak_max, uint64_t peak_sum, FILE *out)
{
    const tc_closure *c = s->closure;
    fprintf(out, "{\"graph\": ");
    ravel_json_string(out, s->graph_name);
    fprintf(out, ", \"format\": \"%s\", \"vertices\": %" PRIu64
                 ", \"edges_read\": %" PRIu64 ", \"closure_size\": %" PRIu64
                 ", \"iterations\": %" PRIu64
                 ", \"productive_iterations\": %" PRIu64
                 ", \"read_seconds\": %.6f, \"closure_seconds\": %.6f"
                 ", \"comm_seconds\": %.6f, \"move_comm_seconds\": %.6f"
                 ", \"compute_seconds\": %.6f"
                 ", \"peak_rss_bytes_max\": %" PRIu64
                 ", \"peak_rss_bytes_total\": %" PRIu64 ", \"comm\": ",
            ravel_tc_format_name(s->graph->format), s->graph->vertex_count,
            s->graph->entries_read, c->closure_size, c->iterations,
            c->productive_iterations, s->read_seconds, c->seconds,
            c->comm_seconds, moves, c->compute_seconds, peak_max, peak_sum);
    ravel_json_string(out, s->comm_backend);
    fprintf(out, ", \"ranks\": %d}\n", s->ranks);
}

void tc_summary_print(const tc_summary *s, int json, FILE *out, MPI_Comm comm)
{
    uint64_t peak = ravel_peak_rss_bytes(), peak_max = 0, peak_sum = 0;
    ravel_comm_allreduce(&peak, &peak_max, 1, MPI_UINT64_T, MPI_MAX, comm);
    ravel_comm_allreduce(&peak, &peak_sum, 1, MPI_UINT64_T, MPI_SUM, comm);
    /* The slowest rank's, as the records' exchange times are. */
    double moves = 0.0;
    ravel_comm_allreduce(&s->closure->move_comm_seconds, &moves, 1,
                         MPI_DOUBLE, MPI_MAX, comm);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    if (json)
        print_json(s, moves, peak_max, peak_sum, out);
    else
        print_text(s, moves, peak_max, peak_sum, out);
    fflush(out);
}
