/* ravel/datalog.h: Datalog programs as text, run on the relalg engine.
 *
 * The front end goes through named phases, each in its own file and each
 * reporting its errors as "FILE:LINE:COL: what is wrong":
 *   lexer.c    text -> tokens (comments, strings, numbers, punctuation)
 *   parse.c    tokens -> syntax tree (declarations, facts, rules; a body's
 *              disjunctions expanded into one conjunctive clause each)
 *   check.c    names, arities, types, groundedness
 *   stratify.c relations -> strata (strongly connected components, in
 *              dependency order)
 *   plan.c     clauses -> binary joins through hidden relations, indexes,
 *              semi-naive versions
 *   lower.c    plan -> ravel_relation_declare / ravel_rule_* calls
 *   facts.c, output.c, symbols.c: fact files in, result files out, and the
 *              string <-> 64-bit id table behind `symbol` columns.
 *
 * The language is a subset of Soufflé's, with Soufflé's meaning for
 * everything accepted; anything outside it is refused with a message naming
 * the construct and its position, never evaluated differently.  What is
 * accepted today is listed in datalog/README.md.
 *
 * Values.  Every column holds 64 bits.  A `number` n is stored as
 * (uint64_t)n with its top bit flipped, so that the engine's unsigned
 * comparisons order numbers as signed ones; an `unsigned` is stored as is; a
 * `symbol` is XXH3-64 of its bytes, the same on every rank without a
 * dictionary exchange.  Two different strings with the same hash are an
 * error (reported when the second one is read), never merged.
 *
 * Ranks.  Every rank parses the program and reads every fact file whole (so
 * every rank knows every symbol's text and every error is found alike on
 * all ranks); each rank inserts one P-th of the facts. */
#ifndef RAVEL_DATALOG_H
#define RAVEL_DATALOG_H

#include <ravel/relalg.h>

#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ravel_dl_program ravel_dl_program;

/* Reads, parses and checks the program in `path` (local: no
 * communication).  MPI_SUCCESS, or an error code with the message
 * "path:line:col: ..." in ravel_error_message(); *out is NULL then. */
int ravel_dl_load(const char *path, ravel_dl_program **out);

/* The same from text in memory; `name` stands for the file in messages. */
int ravel_dl_load_text(const char *name, const char *text, size_t len,
                       ravel_dl_program **out);

/* Prints the plan: strata, the binary rules with their versions, the
 * relations (declared, hidden intermediate, index) and their key
 * columns. */
void ravel_dl_explain(const ravel_dl_program *p, FILE *out);

typedef struct {
    const char *fact_dir;  /* where .input relations are read; "." default */
    const char *out_dir;   /* where .output relations are written; "." */
    FILE *printsize_out;   /* where .printsize lines go (rank 0); stdout */
} ravel_dl_run_options;

void ravel_dl_run_options_init(ravel_dl_run_options *o);

/* Declares the program's relations and rules on a new engine made from
 * engine_options over comm, loads its facts, runs it to its fixed point and
 * writes its outputs (each to a temporary name, renamed into place only
 * when every output is complete: a failed run leaves no partial output
 * file).  Collective over comm; every rank returns the same code. */
int ravel_dl_run(const ravel_dl_program *p, MPI_Comm comm,
                 const ravel_engine_options *engine_options,
                 const ravel_dl_run_options *o);

void ravel_dl_free(ravel_dl_program *p);

#ifdef __cplusplus
}
#endif
#endif
