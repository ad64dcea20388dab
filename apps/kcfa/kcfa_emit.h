/* kcfa_emit.h: printing a program back as text.
 *
 * The output parses back to the identical tree (same nodes, same names, so
 * the same ids).  Layout: a subtree of at most RAVEL_KCFA_EMIT_FLAT_NODES
 * nodes goes on one line; a larger (lam x y C) puts its body on the next
 * line, and a larger (app F A0 A1) puts A0 and A1 on lines of their own.
 * Each line is indented two spaces per nesting level, but never more than
 * RAVEL_KCFA_EMIT_MAX_INDENT spaces, so that programs nested thousands of
 * levels deep print in linear size.  Names print as symbols when they can,
 * otherwise as strings with '"' and '\' escaped. */
#ifndef RAVEL_KCFA_EMIT_H
#define RAVEL_KCFA_EMIT_H

#include <stdio.h>

#include "kcfa_program.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RAVEL_KCFA_EMIT_FLAT_NODES 7
#define RAVEL_KCFA_EMIT_MAX_INDENT 60

/* Writes "(program ...)" and a newline to out.  Returns MPI_SUCCESS,
 * MPI_ERR_NO_MEM, or MPI_ERR_IO when writing failed (messages via
 * ravel_error_set). */
int ravel_kcfa_emit(FILE *out, const ravel_kcfa_program *prog);

#ifdef __cplusplus
}
#endif
#endif
