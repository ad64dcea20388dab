/* dl_run.h: what the phases of a run share (run.c drives them): the
 * engine, each plan relation's engine handle, the symbol table. */
#ifndef RAVEL_DL_RUN_H
#define RAVEL_DL_RUN_H

#include "dl_internal.h"
#include "dl_symbols.h"

typedef struct {
    const ravel_dl_program *p;
    ravel_engine *e;
    ravel_rel *rels;   /* per plan relation */
    dl_symbols *syms;
    int rank, nranks;
} dl_run;

/* lower.c: declares every plan relation and rule on r->e.  Local. */
int dl_lower(dl_run *r);

/* facts.c: the program's string constants into the symbol table, and its
 * inline facts and .input files into the engine (this rank's share).
 * Local; every rank finds the same errors. */
int dl_load_program_symbols(dl_run *r);
int dl_load_facts(dl_run *r, const char *fact_dir);

/* output.c: writes each .output relation to a temporary file beside its
 * final name (collective), and renames them into place (rank 0) or
 * removes them. */
int dl_write_outputs(dl_run *r, MPI_Comm comm, const char *out_dir);
int dl_finish_outputs(dl_run *r, const char *out_dir, int keep);

/* Formats one value of type t into buf (at least 24 bytes for numbers);
 * symbols point into the table.  Returns the text and its length, or NULL
 * for a symbol id the table does not hold. */
const char *dl_format_value(const dl_run *r, dl_type t, uint64_t v,
                            char *buf, size_t *len);

#endif
