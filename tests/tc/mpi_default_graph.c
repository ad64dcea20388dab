/* The generated default graph over P ranks: the shares add up to the whole
 * tree (count and the multiset of edges, against a tree built here), every
 * rank agrees on the totals, and bad heights fail on every rank.
 * usage: mpiexec -n P mpi_default_graph */
#include "default_graph.h"
#include "edge_checksum.h"
#include "tc_test_util.h"

#include "ravel/error.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void check_height(unsigned h)
{
    ravel_tc_graph g;
    int rc = ravel_tc_default_graph(h, MPI_COMM_WORLD, &g);
    TC_EXPECT(rc == MPI_SUCCESS, "height %u: %s", h, ravel_error_message());
    if (rc != MPI_SUCCESS)
        return;
    uint64_t local[2] = {g.nedges, 0}, sum[2];
    for (size_t i = 0; i < g.nedges; i++)
        local[1] += tc_mix_edge(g.edges[2 * i], g.edges[2 * i + 1]);
    MPI_Allreduce(local, sum, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);

    uint64_t vertices = ((uint64_t)2 << h) - 1, first_leaf = vertices / 2;
    uint64_t expected = 0, count = 0;
    for (uint64_t v = 0; v < first_leaf; v++, count += 2)
        expected += tc_mix_edge(v, 2 * v + 1) + tc_mix_edge(v, 2 * v + 2);
    for (uint64_t leaf = first_leaf; leaf < vertices; leaf++, count++)
        expected += tc_mix_edge(leaf, leaf);
    TC_EXPECT(sum[0] == count && g.edges_total == count &&
                  g.entries_read == count,
              "height %u: %llu edges over the ranks, expected %llu", h,
              (unsigned long long)sum[0], (unsigned long long)count);
    TC_EXPECT(sum[1] == expected, "height %u: not the tree's edges", h);
    TC_EXPECT(g.vertex_count == vertices, "height %u: vertex count", h);
    TC_EXPECT(g.format == RAVEL_TC_FORMAT_GENERATED, "height %u: format", h);
    ravel_tc_graph_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (unsigned h = 1; h <= 14; h++)
        check_height(h);
    unsigned bad[] = {0, RAVEL_TC_MAX_HEIGHT + 1};
    for (size_t i = 0; i < 2; i++) {
        ravel_tc_graph g;
        int rc = ravel_tc_default_graph(bad[i], MPI_COMM_WORLD, &g);
        TC_EXPECT(rc == MPI_ERR_ARG &&
                      strstr(ravel_error_message(), "expected a tree height"),
                  "height %u accepted or wrong message '%s'", bad[i],
                  ravel_error_message());
    }
    return tc_test_finish(argv[0]);
}
