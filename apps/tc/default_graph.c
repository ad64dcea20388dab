/* The default graph: a complete binary tree with looped leaves, generated in
 * parallel from closed forms (see default_graph.h for the formulas). */
#include "default_graph.h"

#include "input_error.h"

#include "ravel/memory.h"

#include <stdlib.h>
#include <string.h>

uint64_t ravel_tc_tree_vertex_count(unsigned height)
{
    return ((uint64_t)2 << height) - 1;
}

static uint64_t leaves(unsigned height) { return (uint64_t)1 << height; }

static uint64_t tree_edges(unsigned height)
{
    return ravel_tc_tree_vertex_count(height) - 1;
}

uint64_t ravel_tc_tree_edge_count(unsigned height)
{
    return tree_edges(height) + leaves(height);
}

uint64_t ravel_tc_tree_closure_size(unsigned height)
{
    /* (h-1) 2^(h+1) + 2, written so that h = 0 stays unsigned-safe. */
    uint64_t descendants = (uint64_t)height * ((uint64_t)2 << height) + 2 -
                           ((uint64_t)2 << height);
    return descendants + leaves(height);
}

unsigned ravel_tc_tree_closure_depth(unsigned height)
{
    return height > 0 ? height : 1; /* h = 0: one vertex and its loop */
}

void ravel_tc_tree_edge(unsigned height, uint64_t i, uint64_t *src,
                        uint64_t *dst)
{
    if (i < tree_edges(height)) {
        *dst = i + 1;
        *src = i / 2; /* the parent of v is (v - 1) / 2 */
    } else {
        *src = *dst = tree_edges(height) - leaves(height) + 1 +
                      (i - tree_edges(height));
    }
}

int ravel_tc_default_graph(unsigned height, MPI_Comm comm,
                           ravel_tc_graph *graph)
{
    ravel_tc_input_error err;
    memset(&err, 0, sizeof err);
    memset(graph, 0, sizeof *graph);
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);

    uint64_t *edges = NULL;
    uint64_t total = 0, begin = 0, end = 0;
    size_t bytes = 0;
    if (height < 1 || height > RAVEL_TC_MAX_HEIGHT) {
        ravel_tc_input_error_at(&err, MPI_ERR_ARG, 0,
                                "expected a tree height in 1..%u, found %u",
                                RAVEL_TC_MAX_HEIGHT, height);
    } else {
        total = ravel_tc_tree_edge_count(height);
        uint64_t share = total / (uint64_t)nranks;
        uint64_t extra = total % (uint64_t)nranks, r = (uint64_t)rank;
        begin = r * share + (r < extra ? r : extra);
        end = begin + share + (r < extra ? 1 : 0);
        if (end > begin &&
            (end - begin > SIZE_MAX ||
             ravel_mul_size((size_t)(end - begin), 2 * sizeof(uint64_t),
                            &bytes) ||
             !(edges = malloc(bytes))))
            ravel_tc_input_error_at(&err, MPI_ERR_NO_MEM, 0,
                                    "out of memory for %llu edges",
                                    (unsigned long long)(end - begin));
    }
    int rc = ravel_tc_input_error_agree(&err, "default graph", comm);
    if (rc != MPI_SUCCESS) {
        free(edges);
        return rc;
    }
    for (uint64_t i = begin; i < end; i++)
        ravel_tc_tree_edge(height, i, &edges[2 * (i - begin)],
                           &edges[2 * (i - begin) + 1]);
    graph->edges = edges;
    graph->nedges = (size_t)(end - begin);
    graph->vertex_count = ravel_tc_tree_vertex_count(height);
    graph->entries_read = total;
    graph->edges_total = total;
    graph->format = RAVEL_TC_FORMAT_GENERATED;
    return MPI_SUCCESS;
}
