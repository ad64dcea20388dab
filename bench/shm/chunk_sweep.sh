#!/usr/bin/env bash
# chunk_sweep.sh BUILD_DIR [RUNS]: shm's rounds on this machine, 2 ranks:
# the median call time of shm in both API forms at 256 KiB, 1 MiB and
# 4 MiB blocks for halves of 256 KiB to 16 MiB (RAVEL_SHM_CHUNK), RUNS
# runs (default 3) of 100 timed calls each, the chunks alternating within
# a run.  What chose the default of comm/tunables.c.  Idle machine only:
# the load is printed before each run.
set -euo pipefail
build=${1:?usage: chunk_sweep.sh BUILD_DIR [RUNS]}
runs=${2:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/auto/median.sh"
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
chunks="256K 512K 1M 2M 4M 16M"
for ((r = 1; r <= runs; r++)); do
  echo "# run $r, load $(cut -d' ' -f1-3 /proc/loadavg)"
  for c in $chunks; do
    for api in alltoallv exchange; do
      RAVEL_SHM_CHUNK=$c mpiexec -n 2 "$build/bench/a2a/ravel-a2a" \
          --api=$api --iters=100 --warmup=30 --comm=shm \
          --N=262144,1048576,4194304 |
        awk -v c="$c" -v a="$api" '!/^#/ && NR > 1 { print c, a, $2, $3 }' \
          >>"$samples"
    done
  done
done
echo "| half (RAVEL_SHM_CHUNK) | form | 256 KiB us | 1 MiB us | 4 MiB us |"
echo "|---|---|---:|---:|---:|"
for c in $chunks; do
  for api in alltoallv exchange; do
    row="| $c | $api"
    for n in 262144 1048576 4194304; do
      t=$(awk -v c="$c" -v a="$api" -v n="$n" \
            '$1 == c && $2 == a && $3 == n { print $4 }' "$samples" | median)
      row="$row | $t"
    done
    echo "$row |"
  done
done
