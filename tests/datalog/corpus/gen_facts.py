#!/usr/bin/env python3
"""Writes the generated fact files of the corpus (deterministic; the files are
committed, this script only documents how they were made).

    python3 gen_facts.py          # run from tests/datalog/corpus/

Hand-written fact files are not touched.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def write(prog, rel, rows):
    d = os.path.join(HERE, prog, "facts")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, rel + ".facts"), "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write("\t".join(str(v) for v in r) + "\n")


def digraph(seed, nodes, edges, first=0):
    rnd, out = random.Random(seed), set()
    while len(out) < edges:
        a, b = rnd.randrange(nodes), rnd.randrange(nodes)
        if a != b:
            out.add((a + first, b + first))
    return sorted(out)


def clustered(seed, clusters, per, edges_per):
    """Undirected-ish edges inside `clusters` groups of `per` nodes each."""
    rnd, out = random.Random(seed), set()
    for c in range(clusters):
        base = c * per
        while len([e for e in out if base <= e[0] < base + per]) < edges_per:
            a, b = rnd.randrange(per), rnd.randrange(per)
            if a != b:
                out.add((base + a, base + b))
    return sorted(out)


def main():
    # tc: 140 edges over 70 nodes
    write("tc", "edge", digraph(1, 70, 140))
    # tc_nonlinear: sparser, 40 edges over 30 nodes
    write("tc_nonlinear", "edge", digraph(2, 30, 40))
    # same_generation: a random tree of 64 people (child, parent)
    rnd = random.Random(3)
    write("same_generation", "parent",
          [("p%02d" % i, "p%02d" % rnd.randrange(max(1, i // 2), i)) for i in range(2, 64)])
    # andersen: pointer variables v00..v39, heap objects h00..h11
    rnd = random.Random(4)
    var = lambda: "v%02d" % rnd.randrange(40)
    heap = lambda: "h%02d" % rnd.randrange(12)
    write("andersen", "addressof", sorted({(var(), heap()) for _ in range(24)}))
    write("andersen", "assign", sorted({(var(), var()) for _ in range(30)}))
    write("andersen", "load", sorted({(var(), var()) for _ in range(12)}))
    write("andersen", "store", sorted({(var(), var()) for _ in range(12)}))
    # unreachable_negation: 60 edges over 50 nodes (node 0 is the source)
    write("unreachable_negation", "edge", digraph(5, 50, 60))
    # shortest_hops_min: 90 edges over 60 nodes
    write("shortest_hops_min", "edge", digraph(6, 60, 90))
    # connected_components / cc_negation: 6 clusters of 8 nodes, 7 edges each
    write("connected_components", "edge", clustered(7, 6, 8, 7))
    write("cc_negation", "edge", clustered(8, 5, 9, 8))
    # even_odd_paths: a bipartite part (nodes 0..13, edges only between ids of
    # different parity, so no pair is joined both ways) and a part with odd
    # cycles (nodes 14..21)
    rnd, eo = random.Random(9), set()
    while len(eo) < 22:
        a, b = rnd.randrange(14), rnd.randrange(14)
        if (a - b) % 2:
            eo.add((a, b))
    eo |= {(14, 15), (15, 16), (16, 14)} | set(digraph(13, 8, 7, first=14))
    write("even_odd_paths", "edge", sorted(eo))
    # many_strata: the numbers 1..80
    write("many_strata", "num", [(i,) for i in range(1, 81)])
    # arith_compare: the grid 0..11 x 0..11
    write("arith_compare", "pt", [(x, y) for x in range(12) for y in range(12)])
    # count_sum_grouping: sales (region, item, quantity)
    rnd = random.Random(10)
    regions = ["north", "south", "east", "west", "central"]
    items = ["apple", "pear", "plum", "fig", "kiwi", "lime", "date", "yuzu"]
    sales = {(r, i): rnd.randrange(1, 60) for r in regions for i in items if rnd.random() < 0.7}
    write("count_sum_grouping", "sale", sorted((r, i, q) for (r, i), q in sales.items()))
    # join4: a 45-edge graph over 25 nodes and node colours
    write("join4", "edge", digraph(11, 25, 45))
    rnd = random.Random(12)
    write("join4", "colour", [(n, rnd.choice(["red", "green", "blue"])) for n in range(25)])


if __name__ == "__main__":
    main()
