/* a2a_dist.h: how many elements rank src sends rank dst in ravel-a2a.
 *
 * Every distribution is a pure function of (seed, N, P, src, dst), so a rank
 * computes both its send row and its receive column without exchanging
 * counts, and every rank agrees on every count: at 4096 simulated ranks a
 * count exchange would itself be 16 million simulated messages.  The one
 * exception, file:PATH, holds the whole matrix on every rank (small P only).
 *
 * N is the largest block in elements (the caller divides the byte size by the
 * element size).  The distributions are those of Fan et al., HPDC'22:
 *   uniform       uniform in [0, N]                        (Section 4.1)
 *   range:R       uniform in [N - floor(N*R/100), N], 0 < R <= 100
 *   normal        mean N/2, sigma N/6, draws beyond 3 sigma redrawn
 *   power-law:B   N * B^k for the block at position k of the sender's order;
 *                 the order is a per-sender random affine permutation of the
 *                 ranks (0 < B <= 1)
 *   file:PATH     row src of a P x P matrix of counts, in elements */
#ifndef RAVEL_A2A_DIST_H
#define RAVEL_A2A_DIST_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    A2A_DIST_UNIFORM,
    A2A_DIST_RANGE,
    A2A_DIST_NORMAL,
    A2A_DIST_POWER_LAW,
    A2A_DIST_FILE
} a2a_dist_kind;

typedef struct {
    a2a_dist_kind kind;
    double range_percent; /* range:R */
    double base;          /* power-law:B */
    const char *path;     /* file:PATH, points into argv */
    uint64_t *matrix;     /* file: P*P counts, row-major, owned */
    int matrix_ranks;     /* file: P the matrix was loaded for */
} a2a_dist;

/* Parses "uniform", "range:R", "normal", "power-law:B" or "file:PATH".
 * Returns 0, or -1 with a message naming the text in err. */
int a2a_dist_parse(const char *text, a2a_dist *dist, char *err, size_t errlen);

/* For file:PATH, reads the matrix for P ranks: P lines of P non-negative
 * integers (blank lines and lines starting with '#' skipped).  A no-op for
 * the other kinds.  Returns 0, or -1 with the file, line and value at fault
 * in err. */
int a2a_dist_load(a2a_dist *dist, int P, char *err, size_t errlen);

/* Frees what a2a_dist_load allocated. */
void a2a_dist_free(a2a_dist *dist);

/* The canonical spelling of dist for tables and CSV ("range:50", ...),
 * written into buf (always terminated). */
void a2a_dist_name(const a2a_dist *dist, char *buf, size_t buflen);

/* Elements rank src sends rank dst when blocks hold at most max_elems. */
uint64_t a2a_dist_block(const a2a_dist *dist, uint64_t seed,
                        uint64_t max_elems, int P, int src, int dst);

/* The largest entry of a loaded matrix (0 for the other kinds). */
uint64_t a2a_dist_matrix_max(const a2a_dist *dist);

/* A 64-bit mixer (splitmix64's finaliser): the source of every random draw,
 * so runs are identical on every platform for a given seed. */
uint64_t a2a_mix(uint64_t x);

#endif
