#!/usr/bin/env bash
# alternate_tc.sh BUILD_DIR GRAPH [RUNS]: ravel-tc on one shared graph at 2
# ranks, RUNS rounds (default 7) of every backend in BACKENDS one after the
# other, so that a drift in the machine's load hits every backend alike; then
# each backend's median exchange seconds and auto's ratio to the fastest
# fixed one.  A run's exchange seconds are its iterations' (comm_seconds)
# and the edges' placement before them (move_comm_seconds), where a fixed
# backend makes its first call: shm allocates its window there, which
# auto, declining shm at first, pays inside an iteration.  An entry
# NAME@DIR in BACKENDS runs NAME from the build in DIR (another commit's
# auto beside this one's, in the same rounds); it is not a fixed backend,
# and its own ratio to the fastest is printed too.  For a graph whose backends differ by less than the run-to-run
# spread, where run_real.sh's three runs per backend decide nothing.
# Every run's closure must have the published size (MANIFEST.tsv), or the
# script stops: a fast wrong run is no measurement.
set -euo pipefail
build=${1:?usage: alternate_tc.sh BUILD_DIR GRAPH [RUNS]}
graph=${2:?usage: alternate_tc.sh BUILD_DIR GRAPH [RUNS]}
runs=${3:-7}
backends=${BACKENDS:-"vendor spread-out padded-alltoall padded-bruck two-phase-bruck pairwise inline-bruck radix-bruck shm auto"}
top=$(cd "$(dirname "$0")/../.." && pwd)
file=$top/../shared/datasets/suitesparse/$graph.mtx
[[ -f $file ]] || { echo "alternate_tc.sh: no $file" >&2; exit 1; }
flags=()
base=$(awk -F'\t' -v n="$graph" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' \
              "$top/../shared/datasets/suitesparse/MANIFEST.tsv")
[[ $base == 0 ]] && flags+=(--indices=zero-tolerant)

echo "# $graph, $runs rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
for ((r = 1; r <= runs; r++)); do
  for b in $backends; do
    name=${b%%@*} from=$build
    [[ $b == *@* ]] && from=${b#*@}
    j=$(mpiexec -n 2 "$from/apps/tc/ravel-tc" --quiet --json --comm="$name" \
          "${flags[@]}" "$file" </dev/null 2>/dev/null)
    size=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' <<<"$j")
    if [[ $size != "$published" ]]; then
      echo "alternate_tc.sh: $graph with $b: closure of '$size' paths, published $published" >&2
      exit 1
    fi
    comm=$(sed -n 's/.*"comm_seconds": \([0-9.]*\).*/\1/p' <<<"$j")
    moves=$(sed -n 's/.*"move_comm_seconds": \([0-9.]*\).*/\1/p' <<<"$j")
    echo "$b $(awk -v a="$comm" -v b="$moves" 'BEGIN { printf "%.6f", a + b }')" >>"$samples"
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
. "$top/bench/auto/median.sh"
best= best_t= auto_t=
declare -A other_t
for b in $backends; do
  all=$(awk -v b="$b" '$1 == b { printf "%s ", $2 }' "$samples")
  t=$(awk -v b="$b" '$1 == b { print $2 }' "$samples" | median)
  printf '%-16s median %.4f s   runs: %s\n' "$b" "$t" "$all"
  if [[ $b == auto ]]; then auto_t=$t; continue; fi
  if [[ $b == *@* ]]; then other_t[$b]=$t; continue; fi
  if [[ -z $best_t ]] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
    best=$b best_t=$t
  fi
done
[[ -n $auto_t ]] && awk -v a="$auto_t" -v b="$best_t" -v n="$best" \
  'BEGIN { printf "auto / fastest fixed (%s): %.3f\n", n, a / b }'
for b in "${!other_t[@]}"; do
  awk -v a="${other_t[$b]}" -v b="$best_t" -v n="$best" -v o="$b" \
    'BEGIN { printf "%s / fastest fixed (%s): %.3f\n", o, n, a / b }'
done
