/* kcfa_reference.h: the tests' reference k-CFA, a direct worklist abstract
 * interpreter over the syntax tree.
 *
 * It computes, for a context length k >= 1, exactly the six relations that
 * issue 3's five rules define, and shares no code with any engine rule set
 * (it uses only the front end's parser and id numbering).  The engine-based
 * analysis is checked against it tuple for tuple.
 *
 * Contexts are written out as k columns of call-site (app node) ids.  The
 * columns of each relation, in order (tau, tau', tau2, tauf each k columns):
 *   Time         tau                              k
 *   ReachesCfg   s, tau                           1 + k
 *   AEval        s, tau, l, tau'                  2 + 2k
 *   Store        x, tau, l, tau'                  2 + 2k
 *   Step         a, tau, body, tau2, l, tauf      3 + 3k
 *   ReachesClo   l, tau'                          1 + k
 * Rows are row-major, sorted lexicographically, without duplicates. */
#ifndef KCFA_REFERENCE_H
#define KCFA_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kcfa_program.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    KCFA_REF_TIME,
    KCFA_REF_REACHES_CFG,
    KCFA_REF_AEVAL,
    KCFA_REF_STORE,
    KCFA_REF_STEP,
    KCFA_REF_REACHES_CLO,
    KCFA_REF_NRELATIONS
} kcfa_reference_relation_id;

typedef struct {
    const char *name; /* "Time", "ReachesCfg", "AEval", ... */
    size_t arity;     /* columns per row, as in the table above */
    uint64_t *rows;   /* nrows * arity values */
    size_t nrows;
} kcfa_reference_relation;

typedef struct {
    size_t k;
    kcfa_reference_relation rel[KCFA_REF_NRELATIONS]; /* by relation id */
} kcfa_reference_result;

/* Runs the analysis.  Returns 0, or -1 (with a message on stderr) for
 * k == 0 or when memory runs out; *out is zeroed on failure. */
int kcfa_reference_run(const ravel_kcfa_program *prog, size_t k,
                       kcfa_reference_result *out);

void kcfa_reference_free(kcfa_reference_result *result);

/* One line per relation: "<name>\t<rows>". */
void kcfa_reference_print_sizes(FILE *out, const kcfa_reference_result *r);

#ifdef __cplusplus
}
#endif
#endif
