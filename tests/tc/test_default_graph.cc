// The default graph's closed forms against a breadth-first search from every
// vertex of a tree built here independently (heap numbering, parent -> child
// edges, a loop on every leaf), for small heights of the same family.
#include "default_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace {

using Edge = std::pair<uint64_t, uint64_t>;

std::vector<Edge> independent_tree(unsigned height)
{
    std::vector<Edge> edges;
    const uint64_t first_leaf = (uint64_t{1} << height) - 1;
    const uint64_t vertices = (uint64_t{2} << height) - 1;
    for (uint64_t v = 0; v < first_leaf; v++) {
        edges.emplace_back(v, 2 * v + 1);
        edges.emplace_back(v, 2 * v + 2);
    }
    for (uint64_t leaf = first_leaf; leaf < vertices; leaf++)
        edges.emplace_back(leaf, leaf);
    return edges;
}

// Closure size (pairs joined by a path of length >= 1) and the longest
// shortest such path, by BFS from every vertex.
std::pair<uint64_t, uint64_t> bfs_closure(uint64_t vertices,
                                          const std::vector<Edge> &edges)
{
    std::vector<std::vector<uint64_t>> out(vertices);
    for (const Edge &e : edges)
        out[e.first].push_back(e.second);
    uint64_t size = 0, depth = 0;
    std::vector<uint64_t> dist(vertices);
    for (uint64_t s = 0; s < vertices; s++) {
        std::fill(dist.begin(), dist.end(), 0); // 0: not reached yet
        std::vector<uint64_t> frontier = out[s];
        for (uint64_t v : frontier)
            dist[v] = 1;
        frontier.erase(std::unique(frontier.begin(), frontier.end()),
                       frontier.end());
        while (!frontier.empty()) {
            std::vector<uint64_t> next;
            for (uint64_t u : frontier)
                for (uint64_t v : out[u])
                    if (dist[v] == 0) {
                        dist[v] = dist[u] + 1;
                        next.push_back(v);
                    }
            frontier.swap(next);
        }
        for (uint64_t v = 0; v < vertices; v++)
            if (dist[v] > 0) {
                size++;
                depth = std::max(depth, dist[v]);
            }
    }
    return {size, depth};
}

TEST(DefaultGraph, ClosedFormsMatchBreadthFirstSearch)
{
    for (unsigned h = 1; h <= 11; h++) {
        SCOPED_TRACE(h);
        std::vector<Edge> edges = independent_tree(h);
        const uint64_t vertices = (uint64_t{2} << h) - 1;
        ASSERT_EQ(ravel_tc_tree_vertex_count(h), vertices);
        ASSERT_EQ(ravel_tc_tree_edge_count(h), edges.size());
        std::pair<uint64_t, uint64_t> bfs = bfs_closure(vertices, edges);
        EXPECT_EQ(ravel_tc_tree_closure_size(h), bfs.first);
        EXPECT_EQ(ravel_tc_tree_closure_depth(h), bfs.second);
    }
}

TEST(DefaultGraph, GeneratedEdgesAreTheTree)
{
    for (unsigned h = 1; h <= 12; h++) {
        SCOPED_TRACE(h);
        std::vector<Edge> expected = independent_tree(h);
        std::vector<Edge> got;
        for (uint64_t i = 0; i < ravel_tc_tree_edge_count(h); i++) {
            uint64_t s = 0, d = 0;
            ravel_tc_tree_edge(h, i, &s, &d);
            got.emplace_back(s, d);
        }
        std::sort(expected.begin(), expected.end());
        std::sort(got.begin(), got.end());
        EXPECT_EQ(got, expected);
    }
}

TEST(DefaultGraph, DefaultHeightNumbers)
{
    // The numbers default_graph.h documents for the default height.
    EXPECT_EQ(ravel_tc_tree_vertex_count(RAVEL_TC_DEFAULT_HEIGHT), 1048575u);
    EXPECT_EQ(ravel_tc_tree_edge_count(RAVEL_TC_DEFAULT_HEIGHT), 1572862u);
    EXPECT_EQ(ravel_tc_tree_closure_size(RAVEL_TC_DEFAULT_HEIGHT), 19398658u);
    EXPECT_EQ(ravel_tc_tree_closure_depth(RAVEL_TC_DEFAULT_HEIGHT), 19u);
    // The largest height keeps the counts exact (no wrap-around).
    const unsigned h = RAVEL_TC_MAX_HEIGHT;
    EXPECT_EQ(ravel_tc_tree_closure_size(h),
              (uint64_t{h} - 1) * (uint64_t{2} << h) + 2 + (uint64_t{1} << h));
}

} // namespace
