/* kcfa_output.h: the analysis' relations gathered, written and counted. */
#ifndef RAVEL_KCFA_OUTPUT_H
#define RAVEL_KCFA_OUTPUT_H

#include <ravel/relalg.h>

#include <stddef.h>
#include <stdint.h>

/* Gathers relation r on rank `root`, sorted (lexicographically) and without
 * duplicates: *rows holds *n tuples of arity words (malloc'ed; NULL on other
 * ranks).  Collective. */
int kcfa_gather_relation(ravel_engine *e, ravel_rel r, int root,
                         uint64_t **rows, size_t *n);

/* Writes relation r to DIR/NAME.tsv, one tuple a line, columns separated by
 * tabs, sorted.  Collective; rank 0 writes. */
int kcfa_write_relation(ravel_engine *e, ravel_rel r, const char *dir);

#endif
