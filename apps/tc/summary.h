/* summary.h: what ravel-tc prints when it is done, for people or (--json)
 * for programs.  Rank 0 prints; every rank must call (peak memory is
 * reduced over ranks). */
#ifndef RAVEL_TC_SUMMARY_H
#define RAVEL_TC_SUMMARY_H

#include "closure.h"
#include "graph_input.h"

#include <stdio.h>

typedef struct {
    const char *graph_name;   /* the file, or "default (binary tree ...)" */
    const char *comm_backend;
    int ranks;
    const ravel_tc_graph *graph;
    const tc_closure *closure;
    double read_seconds;
} tc_summary;

/* Collective: reduces peak memory, then rank 0 writes to out. */
void tc_summary_print(const tc_summary *s, int json, FILE *out,
                      MPI_Comm comm);

#endif
