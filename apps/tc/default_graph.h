/* default_graph.h: the graph ravel-tc runs on when given none.
 *
 * A complete binary tree of height h (levels 0..h, heap-numbered: vertex v
 * has children 2v+1 and 2v+2), its edges pointing from parent to child, with
 * a self-loop on every leaf.  Why this shape: its closure has a closed form,
 * every path is found exactly once by the tree edges while the leaf loops
 * re-derive known paths at every iteration (so an engine must deduplicate
 * against the full relation, not just the new tuples), and the number of
 * semi-naive iterations grows with h while the closure stays moderate.
 *
 *   vertices            V(h) = 2^(h+1) - 1
 *   edges               E(h) = (2^(h+1) - 2) tree edges + 2^h leaf loops
 *   closure size        C(h) = (h-1) 2^(h+1) + 2 + 2^h
 *       (a vertex at depth k reaches its 2^(h-k+1) - 2 proper descendants;
 *        summed over the 2^k vertices of each depth: (h-1) 2^(h+1) + 2; and
 *        each leaf reaches itself through its loop: 2^h)
 *   closure depth       D(h) = h  (h >= 1): the longest shortest path among
 *       the closure's pairs, root to leaf.  Semi-naive evaluation that
 *       starts from path = edge finds paths of length k at iteration k, so
 *       it derives new paths in D(h) iterations and finds none in one more.
 *
 * The default, h = 19: V = 1,048,575, E = 1,572,862, C = 19,398,658,
 * D = 19. */
#ifndef RAVEL_TC_DEFAULT_GRAPH_H
#define RAVEL_TC_DEFAULT_GRAPH_H

#include "graph_input.h"

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RAVEL_TC_DEFAULT_HEIGHT 19u
#define RAVEL_TC_MAX_HEIGHT 40u /* keeps every count below 2^64 */

uint64_t ravel_tc_tree_vertex_count(unsigned height);
uint64_t ravel_tc_tree_edge_count(unsigned height);
uint64_t ravel_tc_tree_closure_size(unsigned height);
unsigned ravel_tc_tree_closure_depth(unsigned height);

/* The i-th edge of the tree of height h, for i < ravel_tc_tree_edge_count:
 * tree edges first (edge i enters vertex i + 1), then the leaf loops. */
void ravel_tc_tree_edge(unsigned height, uint64_t i, uint64_t *src,
                        uint64_t *dst);

/* Collective: fills *graph like ravel_tc_graph_read, each rank generating
 * its own contiguous share of the edge indices (no communication but the
 * agreement on errors).  Heights 1..RAVEL_TC_MAX_HEIGHT; other heights and
 * out-of-memory give MPI_ERR_ARG / MPI_ERR_NO_MEM on every rank with
 * ravel_error_message() set.  Free with ravel_tc_graph_free. */
int ravel_tc_default_graph(unsigned height, MPI_Comm comm,
                           ravel_tc_graph *graph);

#ifdef __cplusplus
}
#endif
#endif
