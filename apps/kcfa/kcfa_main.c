/* ravel-kcfa: k-CFA of a continuation-passing program on the relalg engine.
 *
 *     mpiexec -n P ravel-kcfa --k=K [options] (PROGRAM | --generate=N)
 *
 * Every rank reads (or generates) the whole program: programs are small next
 * to their analysis, and identical parsing on every rank gives every rank the
 * same ids and the same errors, which rank 0 reports once. */
#include "engine_cli.h"
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
#include <ravel/mpi_start.h>
#include <ravel/options.h>
#include <ravel/timer.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    engine_cli engine;
    int k;
    uint64_t generate;
    const char *output, *write_facts;
    int emit, json, help;
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
    /* A resumed run's records start at its snapshot; the count does not. */
    uint64_t iterations = ravel_engine_iterations(e);
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
        ravel_json_string(stdout, o->engine.comm);
        for (int i = 0; i < KCFA_OUTPUTS; i++)
            printf(", \"%s\": %" PRIu64, kcfa_output_names[i], sizes[i]);
        printf(", \"facts\": %" PRIu64 ", \"iterations\": %" PRIu64
               ", \"seconds\": "
               "%.6f, \"comm_seconds\": %.6f, \"compute_seconds\": %.6f, "
               "\"peak_rss_bytes_max\": %" PRIu64 "}\n",
               facts, iterations, seconds, comm, compute, peak_max);
        return;
    }
    printf("program          %s\nk                %u\n", source, a->k);
    for (int i = 0; i < KCFA_OUTPUTS; i++)
        printf("%-16s %" PRIu64 "\n", kcfa_output_names[i], sizes[i]);
    printf("facts            %" PRIu64 " (the six relations)\n"
           "iterations       %" PRIu64 "\n"
           "total time       %.3f s\nexchange time    %.3f s\n"
           "compute time     %.3f s\npeak memory      %.1f MiB per rank "
           "(max)\ncomm backend     %s on %d ranks\n",
           facts, iterations, seconds, comm, compute,
           (double)peak_max / 1048576.0,
           o->engine.comm, P);
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
    engine_cli_apply(&o->engine, &eo);
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

/* The input tables as fact files, written by rank 0 into dir (made if
 * missing); every rank returns rank 0's outcome. */
static int write_facts(const ravel_kcfa_program *prog, const char *dir,
                       int rank)
{
    int err = MPI_SUCCESS;
    if (rank == 0) {
        ravel_kcfa_facts facts;
        err = ravel_kcfa_facts_build(prog, &facts);
        if (err == MPI_SUCCESS && mkdir(dir, 0777) != 0 && errno != EEXIST)
            err = ravel_error_set(MPI_ERR_IO, "%s: cannot create the "
                                  "directory: %s", dir, strerror(errno));
        if (err == MPI_SUCCESS)
            err = ravel_kcfa_facts_write(&facts, dir);
        ravel_kcfa_facts_free(&facts);
        if (err != MPI_SUCCESS)
            ravel_report(1, "%s", ravel_error_message());
    }
    MPI_Bcast(&err, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return err == MPI_SUCCESS ? 0 : 1;
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
    } else if (o->write_facts) {
        status = write_facts(&prog, o->write_facts, rank);
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
    ravel_mpi_init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_log_set_program("ravel-kcfa");
    kcfa_options o = {0};
    engine_cli_init(&o.engine);
    ravel_option options[32];
    size_t noptions = engine_cli_options(
        &o.engine, "write the engine's per-iteration log", options);
    const ravel_option own[] = {
        {"k", RAVEL_OPT_INT, &o.k, "K", "context length (call sites), >= 1"},
        {"generate", RAVEL_OPT_U64, &o.generate, "N",
         "analyse the generated worst-case program of size N >= 1"},
        {"emit", RAVEL_OPT_FLAG, &o.emit, NULL,
         "print the program (re-parseable) instead of analysing it"},
        {"output", RAVEL_OPT_STRING, &o.output, "DIR",
         "write every derived relation as DIR/NAME.tsv"},
        {"write-facts", RAVEL_OPT_STRING, &o.write_facts, "DIR",
         "write the program's input relations as DIR/Prog.facts, "
         "Lam.facts, App.facts and Var.facts (for the rules as Datalog, "
         "examples/datalog/kcfa_k*.dl) instead of analysing it"},
        {"json", RAVEL_OPT_FLAG, &o.json, NULL, "print the summary as JSON"},
        {"help", RAVEL_OPT_FLAG, &o.help, NULL, "print this help and exit"},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        options[noptions++] = own[i];
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
    else if (!o.emit && !o.write_facts && (o.k < 1 || o.k > KCFA_MAX_K))
        status = ravel_report(2, "--k=%d: expected a context length 1..%d",
                      o.k, KCFA_MAX_K);
    else if ((status = engine_cli_check(&o.engine)) != 0)
        ;
    else
        status = run(&o, npos ? argv[1] : NULL, rank, P);
    MPI_Finalize();
    return status;
}
