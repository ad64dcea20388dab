/* kcfa_facts.h: a program's input relations as flat uint64 tables.
 *
 * The analysis rules start from four relations (issue 3):
 *     Prog(e)              the top expression (always node 0)
 *     Lam(l, x, y, body)   one row per lam node
 *     App(a, f, a0, a1)    one row per app node
 *     Var(r, x)            one row per ref node
 * Node and name ids are those of kcfa_program.h (preorder node ids, then
 * name ids).  Each table is row-major: row i of Lam is lam[4*i .. 4*i+4),
 * and rows are in increasing order of their first column, so every table is
 * sorted and free of duplicates. */
#ifndef RAVEL_KCFA_FACTS_H
#define RAVEL_KCFA_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "kcfa_program.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RAVEL_KCFA_PROG_ARITY 1
#define RAVEL_KCFA_LAM_ARITY 4
#define RAVEL_KCFA_APP_ARITY 4
#define RAVEL_KCFA_VAR_ARITY 2

typedef struct {
    uint64_t prog[RAVEL_KCFA_PROG_ARITY]; /* one row: e */
    uint64_t *lam;                        /* nlam rows of (l, x, y, body) */
    size_t nlam;
    uint64_t *app; /* napp rows of (a, f, a0, a1) */
    size_t napp;
    uint64_t *var; /* nvar rows of (r, x) */
    size_t nvar;
} ravel_kcfa_facts;

/* Builds the tables of `prog`.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM (with
 * the message set by ravel_error_set); on failure *out is left zeroed. */
int ravel_kcfa_facts_build(const ravel_kcfa_program *prog,
                           ravel_kcfa_facts *out);

/* Writes the tables as DIR/Prog.facts, Lam.facts, App.facts and Var.facts
 * (one row a line, columns separated by tabs: the fact files of Datalog's
 * .input, for ravel-datalog and Soufflé).  DIR must exist.  Returns
 * MPI_SUCCESS, or MPI_ERR_IO / MPI_ERR_ARG with a message naming the file;
 * no complete-looking file is left behind by a failed write. */
int ravel_kcfa_facts_write(const ravel_kcfa_facts *facts, const char *dir);

/* Frees the tables and zeroes *facts; safe on a zeroed struct. */
void ravel_kcfa_facts_free(ravel_kcfa_facts *facts);

#ifdef __cplusplus
}
#endif
#endif
