/* kcfa_generate.h: the worst-case program family of issue 3.
 *
 * For N >= 1 the program (after Van Horn & Mairson, "Deciding kCFA is
 * complete for EXPTIME", ICFP'08) is
 *   (program (app (lam x k W_1) (lam u k (app (ref u) (ref u) (ref k)))
 *                 (lam na0 na1 (app (lam u0 k (app (ref u0) (ref u0) (ref k)))
 *                                   (lam u1 k (app (ref u1) (ref u1) (ref k)))
 *                                   (lam u2 k (app (ref u2) (ref u2) (ref k)))))))
 *   W_i = (app (lam f_i k (app (ref f_i) (lam x k (app (ref k) (ref x) (ref x)))
 *                   (lam na0 na1 (app (ref f_i) (lam y k (app (ref k) (ref y) (ref y)))
 *                                     (ref k)))))
 *              (lam z_i k W_{i+1})
 *              (ref k))                                   for i = 1..N
 *   W_{N+1} = (app (ref k) (lam w k (app (ref w) (ref z_N) V_{N-1})) (ref k))
 *   V_0 = (lam v na (app (ref k) (ref v) (ref v)))
 *   V_j = (lam w na (app (ref w) (ref z_j) V_{j-1}))      for j >= 1
 * with names such as f_3 and z_3.  The text is built by loops (the program
 * nests O(N) deep) and then parsed, so a generated program is numbered
 * exactly like the same text read from a file. */
#ifndef RAVEL_KCFA_GENERATE_H
#define RAVEL_KCFA_GENERATE_H

#include <stddef.h>
#include <stdint.h>

#include "kcfa_program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program's text on one line: *text is malloc'd and NUL-terminated,
 * *len excludes the NUL.  Returns MPI_SUCCESS, MPI_ERR_ARG for n == 0 or n
 * too large for the text to fit in memory, or MPI_ERR_NO_MEM, at the first
 * allocation that fails (messages via ravel_error_set). */
int ravel_kcfa_generate_text(uint64_t n, char **text, size_t *len);

/* The exact length of that text (without the NUL), 0 for n == 0 or n too
 * large.  Before writing, the text is refused when this exceeds the
 * machine's physical memory (MPI_ERR_ARG, naming the largest N that fits). */
uint64_t ravel_kcfa_generate_text_bytes(uint64_t n);

/* The program itself (its text parsed as the file "generated(N)"). */
int ravel_kcfa_generate(uint64_t n, ravel_kcfa_program *out);

#ifdef __cplusplus
}
#endif
#endif
