/* The engine-based k-CFA (apps/kcfa/kcfa_analysis.c) against the tests'
 * reference abstract interpreter, tuple for tuple, for every relation.
 *
 * Programs: the generated worst-case family N = 1..4, and hand-written ones
 * with shadowed names (two lams binding one name), a free variable, and a
 * non-parameter variable read through a closure; each for k = 1..3.  Every
 * rank runs the analysis; rank 0 gathers each relation, runs the reference
 * and compares.
 * usage: mpiexec -n P mpi_kcfa_vs_reference BACKEND   (exit 1 on failure) */
#include "kcfa_analysis.h"
#include "kcfa_facts.h"
#include "kcfa_generate.h"
#include "kcfa_output.h"
#include "kcfa_parse.h"
#include "kcfa_reference.h"

#include <ravel/comm.h>
#include <ravel/error.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hand_written[] = {
    /* A: a continuation called with itself, forever at one call site. */
    "(program (app (lam x k (app (ref k) (ref x) (ref x)))\n"
    "              (lam a b (app (ref b) (ref a) (ref a)))\n"
    "              (lam c d (app (ref d) (ref c) (ref c)))))",
    /* B: p bound by two lams; a call on a free variable never steps. */
    "(program (app (lam f g (app (ref f) (ref g) (ref g)))\n"
    "              (lam p q (app (ref q) (ref p) (ref free)))\n"
    "              (lam p r (app (ref p) (ref r) (ref r)))))",
    /* C: an inner lam reads its outer lam's parameter (rule 5), and "x"
     * the string names the same variable as x. */
    "(program (app (lam x k (app (ref k) (lam u v (app (ref v) (ref \"x\")\n"
    "                                                    (ref u)))\n"
    "                             (ref x)))\n"
    "              (lam y z (app (ref z) (ref y) (ref y)))\n"
    "              (lam w n (app (ref w) (ref n) (ref n)))))",
};

static int failures;

static void compare(const char *what, const kcfa_reference_relation *want,
                    const uint64_t *got, size_t ngot, size_t arity)
{
    if (ngot != want->nrows) {
        fprintf(stderr, "FAIL %s %s: %zu tuples, reference %zu\n", what,
                want->name, ngot, want->nrows);
        failures++;
        return;
    }
    for (size_t i = 0; i < ngot; i++)
        if (memcmp(got + i * arity, want->rows + i * arity,
                   arity * sizeof *got) != 0) {
            fprintf(stderr, "FAIL %s %s: tuple %zu differs\n", what,
                    want->name, i);
            failures++;
            return;
        }
}

static void check(const ravel_kcfa_program *prog, unsigned k,
                  const char *backend, const char *what)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    ravel_kcfa_facts facts;
    ravel_engine_options o;
    ravel_engine_options_init(&o);
    o.comm_backend = backend;
    o.quiet = 1;
    ravel_engine *e = NULL;
    kcfa_analysis a;
    int err = ravel_kcfa_facts_build(prog, &facts);
    if (err == MPI_SUCCESS)
        err = ravel_engine_create(MPI_COMM_WORLD, &o, &e);
    if (err == MPI_SUCCESS)
        err = kcfa_analysis_declare(e, k, &facts, rank, P, &a);
    if (err == MPI_SUCCESS)
        err = ravel_run(e);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "FAIL %s: %s\n", what, ravel_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    kcfa_reference_result ref;
    if (rank == 0 && kcfa_reference_run(prog, k, &ref) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    /* The output enum and the reference's relation ids list the same
     * relations in the same order. */
    for (int i = 0; i < KCFA_OUTPUTS; i++) {
        uint64_t *rows;
        size_t n;
        kcfa_gather_relation(e, a.out[i], 0, &rows, &n);
        if (rank == 0)
            compare(what, &ref.rel[i], rows, n,
                    ravel_relation_arity(e, a.out[i]));
        free(rows);
    }
    if (rank == 0)
        kcfa_reference_free(&ref);
    ravel_engine_free(e);
    ravel_kcfa_facts_free(&facts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *backend = argc > 1 ? argv[1] : "vendor";
    int rank, checks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (unsigned k = 1; k <= 3; k++) {
        char what[96];
        for (uint64_t n = 1; n <= 4; n++) {
            ravel_kcfa_program prog;
            if (ravel_kcfa_generate(n, &prog) != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 1);
            snprintf(what, sizeof what, "generated N=%llu k=%u %s",
                     (unsigned long long)n, k, backend);
            check(&prog, k, backend, what);
            ravel_kcfa_program_free(&prog);
            checks++;
        }
        for (size_t i = 0; i < sizeof hand_written / sizeof *hand_written;
             i++) {
            ravel_kcfa_program prog;
            if (ravel_kcfa_parse_text(hand_written[i],
                                      strlen(hand_written[i]), "hand",
                                      &prog, NULL) != MPI_SUCCESS) {
                fprintf(stderr, "%s\n", ravel_error_message());
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            snprintf(what, sizeof what, "hand-written %c k=%u %s",
                     (char)('A' + i), k, backend);
            check(&prog, k, backend, what);
            ravel_kcfa_program_free(&prog);
            checks++;
        }
    }
    if (rank == 0)
        printf("k-CFA vs reference with %s: %d programs, %d failures\n",
               backend, checks, failures);
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return failures ? 1 : 0;
}
