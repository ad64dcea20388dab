/* ravel-model-replay: what auto would choose at every point of a measured
 * ravel-a2a grid, without running it again.
 *
 * A simulated grid is deterministic and its fixed backends do not depend
 * on the cost model, so a change to the model can be judged on the grid
 * already measured: rebuild each point's block matrix from ravel-a2a's
 * distribution (a pure function of seed, N, P, source and destination),
 * take its statistics, evaluate the model, and look up the measured time
 * of the backend it picks against the fastest measured one.  What this
 * leaves out is auto's own overhead (its agreement, or the statistics it
 * carries); the grid's auto rows measure that.  Run it in the build the
 * CSV was measured with: under SimGrid (smpirun -np 1) the model
 * describes SimGrid's collectives, in a normal build MPICH's.
 *
 * Reads CSVs written by ravel-a2a --csv; rows of auto are ignored. */
#include "a2a_dist.h"

#include <ravel/cost_model.h>
#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ROWS = 1 << 16, FIELD = 64 };

typedef struct {
    int P;
    char backend[FIELD], dist[FIELD], type[FIELD];
    unsigned long long N, seed;
    double median_us;
} row;

static const char USAGE[] =
    "usage: ravel-model-replay --model=FILE [--ranks-per-node=Q] [--within=F]\n"
    "                          [--errors] CSV...\n"
    "\n"
    "For every point (P, distribution, type, N, seed) of the ravel-a2a CSVs,\n"
    "the backend the cost model in FILE picks (as auto does), the measured\n"
    "time of that backend and of the fastest fixed backend measured there.\n"
    "A point whose pick was not measured is reported and counted as a\n"
    "miss.  --within=F (default 1.05): the ratio counted as a hit.\n"
    "--ranks-per-node=Q: the node layout of the measured runs (default the\n"
    "model file's; ravel takes it from the communicator at run time).\n"
    "--errors: instead, every measured row with the model's prediction\n"
    "and their ratio (predicted / measured).\n"
    "Run under smpirun -np 1 when the CSVs are simulated.\n";

/* Splits line at commas into at most n fields; returns the count. */
static int split(char *line, char **field, int n)
{
    int k = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, ",\n", &save); t && k < n;
         t = strtok_r(NULL, ",\n", &save))
        field[k++] = t;
    return k;
}

/* Appends the fixed-backend rows of one CSV; returns -1 with a message. */
static int read_csv(const char *path, row *rows, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "ravel-model-replay: cannot open %s\n", path);
        return -1;
    }
    char line[1024];
    unsigned long lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (strncmp(line, "P,", 2) == 0 || line[0] == '\n')
            continue;
        char *fld[32];
        int k = split(line, fld, 32);
        if (k < 10) {
            fprintf(stderr, "ravel-model-replay: %s:%lu: %d fields, "
                            "expected ravel-a2a's CSV\n", path, lineno, k);
            fclose(f);
            return -1;
        }
        /* auto's rows; and radix 2, inline-bruck's schedule, is not a
         * radix auto weighs (cost_model.c's more_radices) */
        if (strncmp(fld[1], "auto", 4) == 0 ||
            strcmp(fld[1], "radix-bruck:2") == 0)
            continue;
        if (*n == MAX_ROWS) {
            fprintf(stderr, "ravel-model-replay: %s:%lu: more than %d rows\n",
                    path, lineno, MAX_ROWS);
            fclose(f);
            return -1;
        }
        row *r = &rows[(*n)++];
        r->P = atoi(fld[0]);
        /* radix 4 is the registry's radix-bruck, under either name */
        snprintf(r->backend, FIELD, "%s",
                 strcmp(fld[1], "radix-bruck:4") == 0 ? "radix-bruck"
                                                      : fld[1]);
        snprintf(r->dist, FIELD, "%s", fld[2]);
        snprintf(r->type, FIELD, "%s", fld[3]);
        r->N = strtoull(fld[4], NULL, 10);
        r->seed = strtoull(fld[7], NULL, 10);
        r->median_us = atof(fld[9]);
        if (r->P < 1 || !(r->median_us >= 0.0)) {
            fprintf(stderr, "ravel-model-replay: %s:%lu: P %s or time %s "
                            "out of range\n", path, lineno, fld[0], fld[9]);
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

static int same_point(const row *a, const row *b)
{
    return a->P == b->P && a->N == b->N && a->seed == b->seed &&
           strcmp(a->dist, b->dist) == 0 && strcmp(a->type, b->type) == 0;
}

/* The statistics ravel-a2a's call had at this point. */
static int point_stats(const row *r, ravel_call_stats *s)
{
    a2a_dist dist;
    char err[256];
    if (a2a_dist_parse(r->dist, &dist, err, sizeof err) != 0 ||
        a2a_dist_load(&dist, r->P, err, sizeof err) != 0) {
        fprintf(stderr, "ravel-model-replay: %s\n", err);
        return -1;
    }
    uint64_t elem = strcmp(r->type, "byte") == 0 ? 1 : sizeof(double);
    uint64_t *sizes = malloc(sizeof *sizes * (size_t)r->P * (size_t)r->P);
    if (!sizes) {
        a2a_dist_free(&dist);
        return -1;
    }
    for (int src = 0; src < r->P; src++)
        for (int dst = 0; dst < r->P; dst++)
            sizes[(size_t)src * r->P + dst] =
                elem * a2a_dist_block(&dist, r->seed, r->N / elem, r->P, src,
                                      dst);
    ravel_call_stats_of(r->P, sizes, s);
    free(sizes);
    a2a_dist_free(&dist);
    return 0;
}

/* The latest row of `backend` at r's point (later CSVs win). */
static const row *measured(const row *rows, size_t n, const row *r,
                           const char *backend)
{
    const row *found = NULL;
    for (size_t i = 0; i < n; i++)
        if (same_point(&rows[i], r) && strcmp(rows[i].backend, backend) == 0)
            found = &rows[i];
    return found;
}

/* Every row's prediction against its measurement.  A point's rows come
 * one after another in ravel-a2a's CSVs: its matrix is rebuilt once. */
static int print_errors(const ravel_cost_params *m, const row *rows, size_t n)
{
    printf("P,dist,type,N,backend,measured_us,predicted_us,ratio\n");
    ravel_call_stats s;
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || !same_point(&rows[i - 1], &rows[i])) &&
            point_stats(&rows[i], &s) != 0)
            return 1;
        double t = 1e6 * ravel_cost_predict(rows[i].backend, m, &s);
        printf("%d,%s,%s,%llu,%s,%.3f,%.3f,%.3f\n", rows[i].P, rows[i].dist,
               rows[i].type, rows[i].N, rows[i].backend, rows[i].median_us, t,
               t / rows[i].median_us);
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *model = NULL;
    double within = 1.05;
    int first_csv = argc, errors = 0, per_node = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--model=", 8) == 0)
            model = argv[i] + 8;
        else if (strncmp(argv[i], "--within=", 9) == 0)
            within = atof(argv[i] + 9);
        else if (strncmp(argv[i], "--ranks-per-node=", 17) == 0)
            per_node = atoi(argv[i] + 17);
        else if (strcmp(argv[i], "--errors") == 0)
            errors = 1;
        else if (strcmp(argv[i], "--help") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "ravel-model-replay: unknown option %s\n%s",
                    argv[i], USAGE);
            return 2;
        } else {
            first_csv = i;
            break;
        }
    }
    if (!model || first_csv == argc || within < 1.0 || per_node < 0) {
        fputs(USAGE, stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int status = 1;
    ravel_cost_params m;
    row *rows = malloc(sizeof *rows * MAX_ROWS);
    size_t n = 0;
    if (!rows)
        goto out;
    if (ravel_cost_model_load(model, &m) != MPI_SUCCESS) {
        fprintf(stderr, "ravel-model-replay: %s\n", ravel_error_message());
        goto out;
    }
    if (per_node > 0)
        m.ranks_per_node = per_node;
    for (int i = first_csv; i < argc; i++)
        if (read_csv(argv[i], rows, &n) != 0)
            goto out;
    if (errors) {
        status = print_errors(&m, rows, n);
        goto out;
    }
    printf("P,dist,type,N,chose,chose_us,best,best_us,ratio\n");
    int points = 0, hits = 0;
    for (size_t i = 0; i < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = same_point(&rows[j], &rows[i]);
        if (seen)
            continue;
        ravel_call_stats s;
        if (point_stats(&rows[i], &s) != 0)
            goto out;
        const char *chose = ravel_cost_choose(&m, &s, NULL);
        const row *best = NULL;
        for (size_t j = 0; j < n; j++) {
            const row *b = measured(rows, n, &rows[i], rows[j].backend);
            if (same_point(&rows[j], &rows[i]) && b == &rows[j] &&
                (!best || b->median_us < best->median_us))
                best = b;
        }
        const row *got = measured(rows, n, &rows[i], chose);
        double ratio = !got ? -1.0
                       : best->median_us > 0.0 ? got->median_us / best->median_us
                                               : 1.0;
        points++;
        hits += got && ratio <= within;
        printf("%d,%s,%s,%llu,%s,%.3f,%s,%.3f,%.3f\n", rows[i].P,
               rows[i].dist, rows[i].type, rows[i].N, chose, got ? got->median_us : -1.0, best->backend,
               best->median_us, ratio);
    }
    printf("# %d of %d points within %.2f of the fastest measured backend\n",
           hits, points, within);
    status = 0;
out:
    free(rows);
    MPI_Finalize();
    return status;
}
