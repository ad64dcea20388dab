#!/usr/bin/env bash
# discover_tc.sh BUILD_DIR [RUNS]: ravel-tc at 2 ranks with the engine's two
# ways of learning receive sizes, --exchange=alltoallv (an MPI_Alltoall of
# counts, then the backend) and --exchange=discover (an allreduce, then
# ravel_exchange: the Bruck backends learn sizes with the data), the same
# backend for both, one run of each after the other in every round so that
# a drift in the machine's load hits both alike.  Prints each pair's median
# exchange seconds (ravel-tc's comm_seconds) and discover / alltoallv.
# Environment: GRAPHS (default "luxembourg_osm p2p-Gnutella04"), BACKENDS
# (default "two-phase-bruck inline-bruck vendor auto"), RUNS rounds
# (default 3).  Measure on an idle machine.
set -euo pipefail
build=${1:?usage: discover_tc.sh BUILD_DIR [RUNS]}
runs=${2:-3}
graphs=${GRAPHS:-"luxembourg_osm p2p-Gnutella04"}
backends=${BACKENDS:-"two-phase-bruck inline-bruck vendor auto"}
top=$(cd "$(dirname "$0")/../.." && pwd)
# auto decides with this machine's model where there is one.
export RAVEL_MODEL=${RAVEL_MODEL:-$top/bench/results/auto/model-this-machine.json}
. "$top/bench/auto/median.sh"
. "$top/bench/exchange/graph_args.sh"
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
for graph in $graphs; do
  graph_args "$top" discover_tc.sh "$graph"
  echo "# $graph, $runs rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((r = 1; r <= runs; r++)); do
    for b in $backends; do
      for how in alltoallv discover; do
        j=$(mpiexec -n 2 "$build/apps/tc/ravel-tc" --quiet --json \
              --comm="$b" --exchange="$how" "${flags[@]}" "$file" </dev/null)
        echo "$graph $b $how $(sed -n 's/.*"comm_seconds": \([0-9.]*\).*/\1/p' <<<"$j")" >>"$samples"
      done
    done
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-16s %12s %12s %10s\n' backend alltoallv_s discover_s ratio
  for b in $backends; do
    t_a=$(awk -v g="$graph" -v b="$b" '$1 == g && $2 == b && $3 == "alltoallv" { print $4 }' "$samples" | median)
    t_d=$(awk -v g="$graph" -v b="$b" '$1 == g && $2 == b && $3 == "discover" { print $4 }' "$samples" | median)
    awk -v b="$b" -v a="$t_a" -v d="$t_d" \
      'BEGIN { printf "%-16s %12.4f %12.4f %10.3f\n", b, a, d, d / a }'
  done
done
