/* ravel-calibrate: measure the cost model's machine parameters.
 *
 *     mpiexec -n P ravel-calibrate [--output=FILE] [--quick] [--quiet]
 *
 * measures alpha and beta (ping-pong), o (batches of zero-byte messages),
 * gamma (memcpy) and the ranks per node on MPI_COMM_WORLD, and writes them
 * as a model file (comm/model/model_file.c) for --model=FILE or RAVEL_MODEL=FILE.
 * Ranks other than 0 and its partner idle at the agreement points between
 * steps.  Every failure is agreed on by all ranks before the next collective
 * step, reported once by rank 0, and every rank exits non-zero. */
#include "calibrate.h"

#include <ravel/comm.h>
#include <ravel/cost_model.h>
#include <ravel/error.h>
#include <ravel/log.h>
#include <ravel/mpi_start.h>
#include <ravel/options.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *output;
    int quick, quiet, help;
} cal_options;

static const char usage[] =
    "mpiexec -n P ravel-calibrate [--output=FILE] [--quick] [--quiet]";

static const char description[] =
    "Measures the machine parameters of ravel's cost model and writes them\n"
    "as a model file for the auto backend (--model=FILE or RAVEL_MODEL=FILE):\n"
    "  alpha, beta  ping-pong between rank 0 and a rank on another node (else\n"
    "               rank 1), 1 B to 4 MiB: one-way time = alpha + beta * bytes\n"
    "  o            zero-byte Isend/Irecv batches: CPU seconds per message\n"
    "  gamma        memcpy on rank 0, 4 KiB to 64 MiB: seconds per byte\n"
    "  fresh        shared windows allocated and first written by every rank\n"
    "               of rank 0's node, 256 KiB to 4 MiB a rank: seconds per\n"
    "               byte (what the shm backend's window costs to grow)\n"
    "  ranks_per_node  the largest number of ranks sharing a node\n"
    "With one rank, alpha, beta and o cannot be measured and the built-in\n"
    "defaults are written for them (marked \"measured\": false).  Run it with\n"
    "the ranks per node the applications will use.";

/* A model is written through FILE.tmp then renamed: fails early, before
 * minutes of measuring, when either cannot be created there. */
static int check_output(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return ravel_error_set(MPI_ERR_FILE, "--output=%s: is a directory",
                               path);
    size_t n = strlen(path);
    char *tmp = malloc(n + 5);
    if (!tmp)
        return ravel_error_set(MPI_ERR_NO_MEM, "out of memory");
    memcpy(tmp, path, n);
    memcpy(tmp + n, ".tmp", 5);
    int existed = access(tmp, F_OK) == 0, err = MPI_SUCCESS;
    FILE *f = fopen(tmp, "a"); /* "a": an existing file is not truncated */
    if (!f)
        err = ravel_error_set(MPI_ERR_FILE, "--output=%s: cannot write there "
                              "(%s: %s)", path, tmp, strerror(errno));
    else
        fclose(f);
    if (f && !existed)
        remove(tmp);
    free(tmp);
    return err;
}

/* Figures a quiet machine does not produce: a warning, not an error, since
 * they are what this machine did (and a test must not depend on load). */
#define SUSPECT_ALPHA 1e-4     /* s: 100 us is a slow network, not MPI's */
#define SUSPECT_RESIDUAL 0.5   /* median |fit - t| / t */

static void warn_if_disturbed(const char *name, const cal_series *s)
{
    if (s->measured && s->median_residual > SUSPECT_RESIDUAL)
        ravel_log_root(RAVEL_LOG_WARN, "%s: the line misses half the points "
                       "by more than %.0f%% (median residual %.0f%%): the "
                       "measurement looks disturbed (another job on these "
                       "cores?); calibrate on an otherwise idle machine",
                       name, 100 * SUSPECT_RESIDUAL,
                       100 * s->median_residual);
}

static void check_plausible(const cal_series *pingpong, const cal_series *post,
                            const cal_series *copy)
{
    if (pingpong->measured && pingpong->intercept > SUSPECT_ALPHA)
        ravel_log_root(RAVEL_LOG_WARN, "alpha = %.3g s is more than %.0f us: "
                       "with more busy ranks than cores, every message waits "
                       "for a time slice; calibrate on an otherwise idle "
                       "machine", pingpong->intercept, SUSPECT_ALPHA * 1e6);
    warn_if_disturbed("alpha, beta", pingpong);
    warn_if_disturbed("o", post);
    warn_if_disturbed("gamma", copy);
}

/* Rank 0 writes the file from what was measured. */
static int write_model(const cal_options *o, const cal_topology *t,
                       const cal_series *pingpong, const cal_series *post,
                       const cal_series *copy, const cal_series *fresh)
{
    ravel_cost_params m;
    char host[256] = "unknown", *extra = NULL;
    ravel_cost_params_default(&m);
    if (pingpong->measured) {
        m.alpha = pingpong->intercept;
        m.beta = pingpong->slope;
    }
    if (post->measured)
        m.o = post->slope;
    m.gamma = copy->slope;
    m.fresh = fresh->slope;
    m.ranks_per_node = t->ranks_per_node;
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    int err = cal_extra_members(t, host, o->quick, pingpong, post, copy,
                                &extra);
    if (err == MPI_SUCCESS)
        err = ravel_cost_model_save(o->output, &m, extra);
    free(extra);
    if (err == MPI_SUCCESS && !o->quiet) {
        cal_print_params(stdout, &m, t, pingpong, post, copy);
        printf("wrote %s\n", o->output);
    }
    return err;
}

static void print_measurements(const cal_topology *t, const cal_series *pp,
                               const cal_series *post, const cal_series *copy)
{
    char title[160];
    if (pp->measured) {
        snprintf(title, sizeof title, "alpha, beta: ping-pong between ranks "
                 "0 and %d (%s), one-way time", t->partner,
                 t->partner_same_node ? "same node" : "different nodes");
        cal_print_series(stdout, title, pp, "alpha", "beta");
    }
    if (post->measured)
        cal_print_series(stdout, "o: batches of k zero-byte Isend/Irecv, "
                         "time per batch", post, "intercept", "o");
    cal_print_series(stdout, "gamma: memcpy on rank 0, time per copy", copy,
                     "intercept", "gamma");
}

/* The steps, each followed by an agreement on failure. */
static int calibrate(const cal_options *o, MPI_Comm comm)
{
    cal_topology t;
    cal_series pingpong, post, copy, fresh;
    /* Full: 9 trials of 5 ms, about 50 ms per point.  Short trials, many of
     * them: on a shared machine a trial is either clean or hit by a
     * preemption, and the median of many skips the hit ones. */
    cal_effort effort = o->quick ? (cal_effort){0.001, 5}
                                 : (cal_effort){0.005, 9};
    int err = cal_topology_find(comm, &t);
    if (err != MPI_SUCCESS)
        return err;
    if (t.rank == 0)
        err = check_output(o->output);
    if (cal_any_failed(err != MPI_SUCCESS, comm))
        return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
    if (t.rank == 0 && !o->quiet)
        printf("ravel-calibrate: %d rank%s on %d node%s, at most %d per "
               "node%s\n", t.size, t.size == 1 ? "" : "s", t.nodes,
               t.nodes == 1 ? "" : "s", t.ranks_per_node,
               o->quick ? "; --quick: few repetitions, rough figures" : "");
    if (t.size == 1)
        ravel_log_root(RAVEL_LOG_WARN, "one rank: alpha, beta and o need a "
                       "partner and are not measured; writing the built-in "
                       "defaults for them (\"measured\": false)");
    err = cal_measure_pingpong(comm, &t, &effort, &pingpong);
    if (err == MPI_SUCCESS)
        err = cal_measure_post(comm, &t, &effort, &post);
    if (err != MPI_SUCCESS)
        return err; /* both agree on their own failures */
    if (t.rank == 0)
        err = cal_measure_memcpy(&effort, &copy);
    if (cal_any_failed(err != MPI_SUCCESS, comm))
        return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
    err = cal_measure_fresh(comm, &effort, &fresh);
    if (cal_any_failed(err != MPI_SUCCESS, comm))
        return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
    if (t.rank == 0) {
        if (!o->quiet) {
            print_measurements(&t, &pingpong, &post, &copy);
            cal_print_series(stdout, "fresh: a shared window allocated and "
                             "first written on rank 0's node, slowest rank",
                             &fresh, "intercept", "fresh");
        }
        check_plausible(&pingpong, &post, &copy);
        warn_if_disturbed("fresh", &fresh);
        err = write_model(o, &t, &pingpong, &post, &copy, &fresh);
        fflush(stdout);
    }
    if (cal_any_failed(err != MPI_SUCCESS, comm))
        return err != MPI_SUCCESS ? err : MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

static int run(const cal_options *o)
{
    MPI_Comm comm = MPI_COMM_NULL;
    /* Calibration's messages on a communicator of their own, returning
     * errors so that they can be reported. */
    int err = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (err != MPI_SUCCESS)
        ravel_error_set(err, "cannot duplicate MPI_COMM_WORLD");
    else
        err = calibrate(o, comm);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    return err == MPI_SUCCESS ? 0 : ravel_report(1, "%s",
                                                 ravel_error_message());
}

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ravel_log_set_program("ravel-calibrate");
    cal_options o = {"ravel-model.json", 0, 0, 0};
    const ravel_option options[] = {
        {"output", RAVEL_OPT_STRING, &o.output, "FILE",
         "the model file to write (default ravel-model.json)"},
        {"quick", RAVEL_OPT_FLAG, &o.quick, NULL,
         "few repetitions (a few seconds; rough figures, for tests)"},
        {"quiet", RAVEL_OPT_FLAG, &o.quiet, NULL,
         "print nothing but errors and warnings"},
        {"help", RAVEL_OPT_FLAG, &o.help, NULL, "print this help and exit"},
    };
    const size_t noptions = sizeof options / sizeof options[0];
    char err[512];
    int npos = 0, status = 0;
    if (ravel_options_parse(argc, argv, options, noptions, &npos, err,
                            sizeof err)) {
        status = ravel_report(2, "%s", err);
    } else if (o.help) {
        if (rank == 0)
            ravel_options_print_help(stdout, usage, description, options,
                                     noptions);
    } else if (npos > 0) {
        status = ravel_report(2, "unexpected argument '%s' (see --help)",
                              argv[1]);
    } else if (o.output[0] == '\0') {
        status = ravel_report(2, "--output: expected a file name");
    } else {
        status = run(&o);
    }
    MPI_Finalize();
    return status;
}
