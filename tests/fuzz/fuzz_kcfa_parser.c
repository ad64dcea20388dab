/* Fuzz target of the kCFA program parser (apps/kcfa/lexer.c, parse.c).
 *
 * Oracle, besides the sanitizers: a program that parses is printed by
 * ravel_kcfa_emit and parsed again to the same numbers of nodes, names,
 * lams, apps and refs; a failure gives a position inside the input and a
 * message. */
#include "kcfa_emit.h"
#include "kcfa_parse.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "oracle failed: %s\n", what);
        abort();
    }
}

static size_t lines_in(const uint8_t *data, size_t size)
{
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    return lines;
}

static void check_round_trip(const ravel_kcfa_program *p)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    check(out && ravel_kcfa_emit(out, p) == MPI_SUCCESS, "emit succeeds");
    fclose(out);
    ravel_kcfa_program again;
    check(ravel_kcfa_parse_text(text, len, "emitted", &again, NULL) ==
              MPI_SUCCESS,
          "the emitted program parses");
    check(again.nnodes == p->nnodes && again.nnames == p->nnames &&
              again.nlam == p->nlam && again.napp == p->napp &&
              again.nref == p->nref,
          "the emitted program has the same shape");
    ravel_kcfa_program_free(&again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ravel_kcfa_program p;
    ravel_kcfa_parse_error err;
    int rc = ravel_kcfa_parse_text((const char *)data, size, "fuzz", &p, &err);
    if (rc == MPI_SUCCESS) {
        check_round_trip(&p);
        ravel_kcfa_program_free(&p);
    } else if (rc == MPI_ERR_OTHER) {
        check(err.message[0] != '\0', "a failure has a message");
        check(err.line >= 1 && err.line <= lines_in(data, size),
              "a failure's line is in the input");
    }
    return 0;
}
