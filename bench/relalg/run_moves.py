#!/usr/bin/env python3
"""How many times a tuple of a relation's flat part is moved by merges of
its runs, for a few run ratios: a model of storage.c's add_run and
maybe_pack fed the new tuples of each iteration of a real run.

usage: bench/relalg/run_moves.py LOG.csv RANKS [RATIO...]

LOG.csv is ravel-tc's --log (its new_tuples, summed over the ranks, are
split evenly among RANKS).  The model follows storage.c: a delta becomes a
run of its own unless the newest run is under RATIO times its size (or
FULL_RUNS_MAX runs are held), then is merged into it; a run larger than
1/RATIO of the one before is merged into that one; the flat part is packed
(and starts again empty) once it holds PACK_MIN tuples and an eighth of
the packed part.  A merge of runs of a and b tuples moves a + b: merging
from the back moves every tuple of the larger run that sorts after the
smaller one's first, nearly all of it when the new tuples are spread over
the keys, as TC's are.  It counts moves, not time: the run's --log and the
benchmarks say what they cost.
"""
import csv
import sys

FULL_RUNS_MAX = 5     # relalg_internal.h: the base run and four more
PACK_MIN = 1 << 20    # engine.c: pack_min_tuples
PACK_RATIO = 8        # storage.c


def moves(deltas, ratio):
    base, runs, packed, moved = 0, [], 0, 0
    for n in deltas:
        if n == 0:
            continue
        flat = base + sum(runs) + n
        if flat >= PACK_MIN and flat >= packed // PACK_RATIO:
            packed, base, runs = packed + flat, 0, []
            continue
        newest = runs[-1] if runs else base
        if len(runs) == FULL_RUNS_MAX - 1 or newest // ratio < n:
            moved += newest + n
            if runs:
                runs[-1] += n
            else:
                base += n
        else:
            runs.append(n)
            moved += n
        while runs:
            before = runs[-2] if len(runs) > 1 else base
            if before // ratio >= runs[-1]:
                break
            moved += before + runs[-1]
            last = runs.pop()
            if runs:
                runs[-1] += last
            else:
                base += last
    return moved


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    ranks = int(sys.argv[2])
    ratios = [int(r) for r in sys.argv[3:]] or [32, 8, 4, 2]
    with open(sys.argv[1], newline="") as f:
        deltas = [int(r["new_tuples"]) // ranks for r in csv.DictReader(f)
                  if r["new_tuples"]]
    total = sum(deltas)
    print("iterations %d, new tuples a rank %d" % (len(deltas), total))
    for ratio in ratios:
        m = moves(deltas, ratio)
        print("ratio %3d: %12d moves, %5.1f a tuple" % (ratio, m,
                                                         m / max(total, 1)))


if __name__ == "__main__":
    main()
