/* ravel-kcfa-front: the k-CFA application's front end on its own.
 *
 * Reads a program (a file, or the generated worst-case family) and either
 * prints it back (--emit) or prints the sizes of its fact tables (--facts,
 * the default).  The engine-based analysis (--k, --comm, --log, --output,
 * --json) builds on the same library, ravel_kcfa_front. */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "kcfa_emit.h"
#include "kcfa_facts.h"
#include "kcfa_generate.h"
#include "kcfa_parse.h"
#include "ravel/error.h"
#include "ravel/options.h"

static const char usage[] = "ravel-kcfa-front [options] (PROGRAM | --generate=N)";
static const char description[] =
    "Reads a continuation-passing program, (program (app A A A)) with\n"
    "A ::= (lam X Y C) | (ref X), or generates the worst-case family, and\n"
    "prints its fact-table sizes or (with --emit) the program itself.";

static int print_facts(const ravel_kcfa_program *prog)
{
    ravel_kcfa_facts facts;
    int rc = ravel_kcfa_facts_build(prog, &facts);
    if (rc != MPI_SUCCESS)
        return rc;
    printf("nodes\t%zu\nnames\t%zu\nProg\t1\nLam\t%zu\nApp\t%zu\nVar\t%zu\n",
           prog->nnodes, prog->nnames, facts.nlam, facts.napp, facts.nvar);
    ravel_kcfa_facts_free(&facts);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    uint64_t generate = 0;
    int emit = 0, facts = 0, help = 0, npos = 0;
    const ravel_option options[] = {
        {"generate", RAVEL_OPT_U64, &generate, "N",
         "analyse the generated worst-case program of size N (N >= 1)"},
        {"emit", RAVEL_OPT_FLAG, &emit, NULL,
         "print the program (re-parseable) instead of its facts"},
        {"facts", RAVEL_OPT_FLAG, &facts, NULL,
         "print the sizes of the fact tables (the default)"},
        {"help", RAVEL_OPT_FLAG, &help, NULL, "print this help"},
    };
    size_t noptions = sizeof options / sizeof options[0];
    char err[256];
    if (ravel_options_parse(argc, argv, options, noptions, &npos, err,
                            sizeof err) != 0) {
        fprintf(stderr, "ravel-kcfa-front: %s\n", err);
        return 2;
    }
    if (help) {
        ravel_options_print_help(stdout, usage, description, options,
                                 noptions);
        return 0;
    }
    if ((npos == 1) == (generate != 0) || npos > 1) {
        fprintf(stderr, "ravel-kcfa-front: give exactly one of PROGRAM and "
                        "--generate=N (N >= 1); see --help\n");
        return 2;
    }
    ravel_kcfa_program prog;
    int rc = npos == 1 ? ravel_kcfa_parse_file(argv[1], &prog, NULL)
                       : ravel_kcfa_generate(generate, &prog);
    if (rc == MPI_SUCCESS) {
        rc = emit ? ravel_kcfa_emit(stdout, &prog) : print_facts(&prog);
        ravel_kcfa_program_free(&prog);
    }
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "ravel-kcfa-front: %s\n", ravel_error_message());
        return 1;
    }
    return 0;
}
