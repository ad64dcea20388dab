/* ravel-kcfa: k-CFA of a continuation-passing program on the relalg engine.
 *
 *     mpiexec -n P ravel-kcfa --k=K [options] (PROGRAM | --generate=N)
 *
 * Every rank reads (or generates) the whole program: programs are small next
 * to their analysis, and identical parsing on every rank gives every rank the
 * same ids and the same errors, which rank 0 reports once. */
#include "kcfa_analysis.h"
#include "kcfa_emit.h"
#include "kcfa_facts.h"
#include "kcfa_generate.h"
#include "kcfa_output.h"
#include "kcfa_parse.h"

#include <ravel/comm.h>
#include <ravel/error.h>
#include <ravel/json.h>
#include <ravel/log.h>
#include <ravel/memory.h>
#include <ravel/options.h>
#include <ravel/timer.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    int k;
    uint64_t generate;
    const char *comm, *log, *output;
    int emit, json, quiet, no_balance, help;
    const char *model;
} kcfa_options;

static const char usage[] =
    "mpiexec -n P ravel-kcfa --k=K [options] (PROGRAM | --generate=N)";
static const char description[] =
    "k-call-sensitive control-flow analysis of a program in continuation-\n"
    "passing style, (program C) with C ::= (app A A A) and\n"
    "A ::= (lam X Y C) | (ref X), as relational rules on ravel's engine.\n"
    "--generate=N analyses the worst-case family of Van Horn & Mairson.\n"
    "Prints the size of Time, ReachesCfg, AEval, Store, Step and ReachesClo,\n"
    "the iterations and the times.";

static void print_summary(const kcfa_options *o, const char *source,
                          ravel_engine *e, const kcfa_analysis *a,
                          const uint64_t sizes[KCFA_OUTPUTS], double seconds,
                          int P)
{
    size_t nrec = 0;
    const ravel_iteration_record *rec = ravel_engine_records(e, &nrec);
    double comm = 0, compute = 0;
    uint64_t facts = 0;
    for (size_t i = 0; i < nrec; i++) {
        comm += rec[i].comm_seconds;
        compute += rec[i].compute_seconds;
    }
    for (int i = 0; i < KCFA_OUTPUTS; i++)
        facts += sizes[i];
    uint64_t peak = ravel_peak_rss_bytes(), peak_max = 0;
    ravel_comm_allreduce(&peak, &peak_max, 1, MPI_UINT64_T, MPI_MAX,
                         MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        return;
    if (o->json) {
        printf("{\"program\": ");
        ravel_json_string(stdout, source);
        printf(", \"k\": %u, \"ranks\": %d, \"comm\": ", a->k, P);
        ravel_json_string(stdout, o->comm);
        for (int i = 0; i < KCFA_OUTPUTS; i++)
            printf(", \"%s\": %" PRIu64, kcfa_output_names[i], sizes[i]);
        printf(", \"facts\": %" PRIu64 ", \"iterations\": %zu, \"seconds\": "
               "%.6f, \"comm_seconds\": %.6f, \"compute_seconds\": %.6f, "
               "\"peak_rss_bytes_max\": %" PRIu64 "}\n",
               facts, nrec, seconds, comm, compute, peak_max);
        return;
    }
    printf("program          %s\nk                %u\n", source, a->k);
    for (int i = 0; i < KCFA_OUTPUTS; i++)
        printf("%-16s %" PRIu64 "\n", kcfa_output_names[i], sizes[i]);
    printf("facts            %" PRIu64 " (the six relations)\n"
           "iterations       %zu\n"
           "total time       %.3f s\nexchange time    %.3f s\n"
           "compute time     %.3f s\npeak memory      %.1f MiB per rank "
           "(max)\ncomm backend     %s on %d ranks\n",
           facts, nrec, seconds, comm, compute, (double)peak_max / 1048576.0,
           o->comm, P);
}

static int analyse(const kcfa_options *o, const ravel_kcfa_program *prog,
                   const char *source, int rank, int P)
{
    ravel_kcfa_facts facts;
    int err = ravel_kcfa_facts_build(prog, &facts);
    if (err != MPI_SUCCESS)
        return ravel_report(1, "%s", ravel_error_message());
    double start = ravel_now();
    ravel_engine_options eo;
    ravel_engine_options_init(&eo);
    eo.comm_backend = o->comm;
    eo.model_path = o->model;
    eo.log_path = o->log;
    eo.quiet = o->quiet;
    eo.load_balance = !o->no_balance;
    ravel_engine *e = NULL;
    kcfa_analysis a;
    uint64_t sizes[KCFA_OUTPUTS] = {0};
    err = ravel_engine_create(MPI_COMM_WORLD, &eo, &e);
    if (err == MPI_SUCCESS)
        err = kcfa_analysis_declare(e, (unsigned)o->k, &facts, rank, P, &a);
    if (err == MPI_SUCCESS)
        err = ravel_run(e);
    for (int i = 0; i < KCFA_OUTPUTS && err == MPI_SUCCESS; i++)
        err = ravel_relation_size(e, a.out[i], &sizes[i]);
    double seconds = ravel_now() - start;
    if (err == MPI_SUCCESS && o->output) {
        if (rank == 0)
            mkdir(o->output, 0777); /* an existing folder is fine */
        for (int i = 0; i < KCFA_OUTPUTS && err == MPI_SUCCESS; i++)
            err = kcfa_write_relation(e, a.out[i], o->output);
    }
    if (err == MPI_SUCCESS)
        print_summary(o, source, e, &a, sizes, seconds, P);
    ravel_engine_free(e);
    ravel_kcfa_facts_free(&facts);
    return err == MPI_SUCCESS ? 0 : ravel_report(1, "%s", ravel_error_message());
}

static int run(const kcfa_options *o, const char *path, int rank, int P)
{
    ravel_kcfa_program prog;
    int err = path ? ravel_kcfa_parse_file(path, &prog, NULL)
                   : ravel_kcfa_generate(o->generate, &prog);
    if (err != MPI_SUCCESS)
        return ravel_report(1, "%s", ravel_error_message());
    int status = 0;
    if (o->emit) {
        if (rank == 0 && ravel_kcfa_emit(stdout, &prog) != MPI_SUCCESS)
            status = ravel_report(1, "%s", ravel_error_message());
    } else {
        char source[64];
        if (!path)
            snprintf(source, sizeof source, "generated N=%" PRIu64,
                     o->generate);
        status = analyse(o, &prog, path ? path : source, rank, P);
    }
    ravel_kcfa_program_free(&prog);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_log_set_program("ravel-kcfa");
    kcfa_options o = {0, 0, "vendor", NULL, NULL, 0, 0, 0, 0, 0, NULL};
    const ravel_option options[] = {
        {"k", RAVEL_OPT_INT, &o.k, "K", "context length (call sites), >= 1"},
        {"generate", RAVEL_OPT_U64, &o.generate, "N",
         "analyse the generated worst-case program of size N >= 1"},
        {"emit", RAVEL_OPT_FLAG, &o.emit, NULL,
         "print the program (re-parseable) instead of analysing it"},
        {"comm", RAVEL_OPT_STRING, &o.comm, "NAME",
         "all-to-all backend (vendor, spread-out, padded-alltoall, "
         "padded-bruck, two-phase-bruck, or auto: the one the cost model "
         "predicts fastest, per iteration); default vendor"},
        {"model", RAVEL_OPT_STRING, &o.model, "FILE",
         "cost model written by ravel-calibrate (default: $RAVEL_MODEL, "
         "else built-in)"},
        {"log", RAVEL_OPT_STRING, &o.log, "FILE.csv",
         "write the engine's per-iteration log"},
        {"output", RAVEL_OPT_STRING, &o.output, "DIR",
         "write every derived relation as DIR/NAME.tsv"},
        {"json", RAVEL_OPT_FLAG, &o.json, NULL, "print the summary as JSON"},
        {"quiet", RAVEL_OPT_FLAG, &o.quiet, NULL,
         "no per-iteration progress lines on stderr"},
        {"no-balance", RAVEL_OPT_FLAG, &o.no_balance, NULL,
         "turn off the engine's spatial load balancing"},
        {"help", RAVEL_OPT_FLAG, &o.help, NULL, "print this help and exit"},
    };
    const size_t noptions = sizeof options / sizeof options[0];
    char err[512];
    int npos = 0, status = 0;
    if (ravel_options_parse(argc, argv, options, noptions, &npos, err,
                            sizeof err))
        status = ravel_report(2, "%s", err);
    else if (o.help) {
        if (rank == 0)
            ravel_options_print_help(stdout, usage, description, options,
                                     noptions);
    } else if (npos > 1 || (npos == 1) == (o.generate != 0))
        status = ravel_report(2, "give exactly one of PROGRAM and --generate=N "
                      "(N >= 1); see --help");
    else if (!o.emit && (o.k < 1 || o.k > KCFA_MAX_K))
        status = ravel_report(2, "--k=%d: expected a context length 1..%d",
                      o.k, KCFA_MAX_K);
    else if (!ravel_alltoallv_lookup(o.comm))
        status = ravel_report(2, "--comm=%s is not a backend (see --help)",
                      o.comm);
    else
        status = run(&o, npos ? argv[1] : NULL, rank, P);
    MPI_Finalize();
    return status;
}
