#!/usr/bin/env python3
"""tc_candidates.py GRAPH.mtx: how many candidate tuples semi-naive
transitive closure makes per iteration, against how many are new.

path(x,z) :- path(x,y), edge(y,z), evaluated on each iteration's delta:
every (x,y) of the delta meets every edge (y,z), so an iteration makes
sum over the delta of outdeg(y) candidates, most of them paths already
known or made twice.  Counted here with one bitset per source vertex,
apart from ravel's engine (an independent count, for issue 15's
profile).  Matrix Market coordinate files, 0- or 1-based (the ids are
used as written; the base does not change the counts).  Memory: n^2
bits, fine up to some 30,000 vertices.
"""
import sys


def read_edges(path):
    edges = []
    header_seen = False
    with open(path) as f:
        for line in f:
            if line.startswith('%'):
                continue
            parts = line.split()
            if len(parts) < 2:
                continue
            if not header_seen:  # rows, columns, entries
                header_seen = True
                continue
            edges.append((int(parts[0]), int(parts[1])))
    return edges


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    edges = read_edges(sys.argv[1])
    n = max(max(a, b) for a, b in edges) + 1
    succ = [0] * n
    outdeg = [0] * n
    for a, b in edges:
        if not (succ[a] >> b) & 1:
            succ[a] |= 1 << b
            outdeg[a] += 1
    reach = list(succ)
    delta = list(succ)
    total_candidates = 0
    print('iteration,candidates,new,candidates_per_new')
    iteration = 1
    while True:
        iteration += 1
        candidates = 0
        new_delta = [0] * n
        for x in range(n):
            d = delta[x]
            made = 0
            while d:
                low = d & -d
                y = low.bit_length() - 1
                d ^= low
                candidates += outdeg[y]
                made |= succ[y]
            new_delta[x] = made & ~reach[x]
        new = 0
        for x in range(n):
            if new_delta[x]:
                reach[x] |= new_delta[x]
                new += bin(new_delta[x]).count('1')
        total_candidates += candidates
        print('%d,%d,%d,%.1f' % (iteration, candidates, new,
                                 candidates / new if new else 0.0))
        delta = new_delta
        if new == 0:
            break
    paths = sum(bin(r).count('1') for r in reach)
    print('# paths %d, candidates %d, %.1f per path'
          % (paths, total_candidates, total_candidates / paths))


if __name__ == '__main__':
    main()
