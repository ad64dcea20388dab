#!/usr/bin/env bash
# tc_apps.sh: ravel-tc itself under SimGrid SMPI on the Theta-like platform
# (copies charged), with every fixed backend and auto, on a graph of many
# small iterations and one of few big ones: the simulated exchange time of
# every iteration (the per-iteration logs) and of the whole run, and auto's
# choice per iteration.  The engine's own computation is not simulated
# (smpi/simulate-computation:no): the study is of the exchanges.
#
# usage: tc_apps.sh BUILD_SMPI OUT_DIR P GRAPH...
#   BUILD_SMPI  a build with -DRAVEL_SIMGRID=ON and target ravel-tc built
#   GRAPH       names in ../shared/datasets/suitesparse/MANIFEST.tsv
# Environment: BACKENDS, and EXCHANGE=discover to learn receive sizes
# through ravel_exchange (--exchange=discover; the rows' backend column
# then reads NAME/discover); MAX_MEMORY, each simulated rank's limit on
# its tuples (default 128M).  ravel-tc's own default, 3/4 of the host's
# available memory shared by a node's ranks, gives each of 256 simulated
# ranks some 65 MiB on this 24 GiB host: wiki-Vote at P = 256 stopped
# there (rank 52 needs 67 MiB at iteration 3) with every Bruck and padded
# backend, which earlier sessions took for a crash, their stderr unkept.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '9,19p' "$0" >&2; exit 2; }
build=$1 out=$2 P=$3
shift 3
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/simgrid/app_result.sh"
shared=$top/../shared/datasets/suitesparse
backends=${BACKENDS:-"spread-out padded-alltoall padded-bruck two-phase-bruck pairwise inline-bruck auto"}
mkdir -p "$out/logs"
csv=$out/tc_apps_P$P.csv
[ -f "$csv" ] || echo "graph,backend,P,closure_size,iterations,exchange_s,host_s" >"$csv"
for graph in "$@"; do
  file=$(awk -F'\t' -v n="$graph" '$1 == n { print $2 }' "$shared/MANIFEST.tsv")
  base=$(awk -F'\t' -v n="$graph" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
  flags=()
  [[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
  exchange=${EXCHANGE:-alltoallv} suffix=
  [[ $exchange == alltoallv ]] || suffix=/$exchange
  for backend in $backends; do
    log=$out/logs/$graph.P$P.$backend${suffix//\//.}.csv
    start=$(date +%s)
    # "--log FILE", not "--log=FILE": smpirun takes --log= as its own.
    j=$(app_result "$log" "tc_apps.sh: $graph $backend at P=$P" \
        env RAVEL_MODEL="$top/bench/simgrid/theta-model.json" \
        sh "$top/bench/simgrid/smpi_run.sh" "$build/apps/tc/ravel-tc" theta \
        "$P" 3 --quiet --json --comm="$backend" --exchange="$exchange" \
        --log "$log" --max-memory="${MAX_MEMORY:-128M}" "${flags[@]}" \
        "$shared/$file") || continue
    field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$j"; }
    echo "$graph,$backend$suffix,$P,$(field closure_size),$(field iterations),$(field comm_seconds),$(($(date +%s) - start))" |
      tee -a "$csv"
  done
done
