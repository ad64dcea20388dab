/* ravel-datalog: a Datalog program as text, run on the relalg engine.
 *
 *     mpiexec -n P ravel-datalog [options] [-F FACT_DIR] [-D OUT_DIR] PROGRAM.dl
 *
 * Every rank reads the program and the fact files (ravel/datalog.h says
 * why); rank 0 reports errors and prints .printsize lines. */
#include "engine_cli.h"

#include <ravel/datalog.h>
#include <ravel/error.h>
#include <ravel/log.h>
#include <ravel/mpi_start.h>
#include <ravel/options.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    engine_cli engine;
    const char *fact_dir, *out_dir;
    int explain, help;
} datalog_options;

static const char usage[] =
    "mpiexec -n P ravel-datalog [options] [-F FACT_DIR] [-D OUT_DIR] "
    "PROGRAM.dl";
static const char description[] =
    "Evaluates a Datalog program in Souffle's syntax on ravel's distributed\n"
    "engine: .input relations are read from FACT_DIR/NAME.facts (tab-\n"
    "separated), .output relations written to OUT_DIR/NAME.csv, .printsize\n"
    "relations' sizes printed.  The subset of Souffle accepted is listed in\n"
    "datalog/README.md; anything else is refused with its position.\n"
    "-F DIR and -D DIR are short for --fact-dir=DIR and --output-dir=DIR.";

/* Souffle's -F DIR / -D DIR (and -FDIR) as the long options the option
 * parser knows; argv keeps its storage (the values point into it). */
static void translate_short(int argc, char **argv, char *scratch[2])
{
    static char fact[] = "--fact-dir", out[] = "--output-dir";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return;
        int f = !strncmp(argv[i], "-F", 2), d = !strncmp(argv[i], "-D", 2);
        if (!f && !d)
            continue;
        if (argv[i][2] == '\0') {
            argv[i] = f ? fact : out;
            continue;
        }
        /* -FDIR: "--fact-dir=" + DIR */
        size_t n = strlen(argv[i] + 2) + 16;
        scratch[d] = malloc(n);
        if (!scratch[d])
            continue;
        snprintf(scratch[d], n, "%s=%s", f ? fact : out, argv[i] + 2);
        argv[i] = scratch[d];
    }
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int run(const datalog_options *o, const char *path)
{
    ravel_dl_program *p;
    if (ravel_dl_load(path, &p))
        return ravel_report(1, "%s", ravel_error_message());
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (o->explain) {
        if (rank == 0)
            ravel_dl_explain(p, stdout);
        ravel_dl_free(p);
        return 0;
    }
    ravel_engine_options eo;
    ravel_engine_options_init(&eo);
    engine_cli_apply(&o->engine, &eo);
    ravel_dl_run_options ro;
    ravel_dl_run_options_init(&ro);
    ro.fact_dir = o->fact_dir;
    ro.out_dir = o->out_dir;
    int rc = ravel_dl_run(p, MPI_COMM_WORLD, &eo, &ro);
    ravel_dl_free(p);
    return rc ? ravel_report(1, "%s", ravel_error_message()) : 0;
}

int main(int argc, char **argv)
{
    ravel_mpi_init(&argc, &argv);
    ravel_log_set_program("ravel-datalog");
    char *scratch[2] = {NULL, NULL};
    translate_short(argc, argv, scratch);
    datalog_options o = {.fact_dir = ".", .out_dir = "."};
    engine_cli_init(&o.engine);
    ravel_option options[32];
    size_t noptions = engine_cli_options(
        &o.engine, "write the engine's per-iteration log", options);
    const ravel_option own[] = {
        {"fact-dir", RAVEL_OPT_STRING, &o.fact_dir, "DIR",
         "where .input relations' fact files are (default .)"},
        {"output-dir", RAVEL_OPT_STRING, &o.out_dir, "DIR",
         "where .output relations are written (default .)"},
        {"explain", RAVEL_OPT_FLAG, &o.explain, NULL,
         "print the plan (strata, rules, indexes, keys) and exit"},
        {"help", RAVEL_OPT_FLAG, &o.help, NULL, "print this help and exit"},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        options[noptions++] = own[i];
    char err[512];
    int npos = 0, status = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (ravel_options_parse(argc, argv, options, noptions, &npos, err,
                            sizeof err))
        status = ravel_report(2, "%s", err);
    else if (o.help) {
        if (rank == 0)
            ravel_options_print_help(stdout, usage, description, options,
                                     noptions);
    } else if (npos != 1)
        status = ravel_report(2, "give exactly one PROGRAM.dl; see --help");
    else if ((status = engine_cli_check(&o.engine)) != 0)
        ;
    else if (!o.explain && !is_directory(o.fact_dir))
        status = ravel_report(2, "-F %s: not a directory", o.fact_dir);
    else if (!o.explain && !is_directory(o.out_dir))
        status = ravel_report(2, "-D %s: not a directory", o.out_dir);
    else
        status = run(&o, argv[1]);
    free(scratch[0]);
    free(scratch[1]);
    MPI_Finalize();
    return status;
}
