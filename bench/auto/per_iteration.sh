#!/usr/bin/env bash
# per_iteration.sh BUILD_DIR GRAPH [RUNS]: where two or more backends'
# exchanges differ, iteration by iteration.  ravel-tc on one shared graph
# at 2 ranks, RUNS rounds (default 3) of every backend in BACKENDS
# (default "pairwise shm") one after the other, each with --log; then per
# iteration the largest block and, per backend, the medians of the
# engine's exchange milliseconds (comm_seconds: packing, the backend call,
# landing) and of the backend call's alone (backend_seconds), and the sums.
# For a closure whose totals (alternate_tc.sh) differ: which iterations
# make the difference.  Every run's closure must have the published size.
# Environment: BACKENDS, RAVEL_MODEL (for auto).
set -euo pipefail
build=${1:?usage: per_iteration.sh BUILD_DIR GRAPH [RUNS]}
graph=${2:?usage: per_iteration.sh BUILD_DIR GRAPH [RUNS]}
runs=${3:-3}
backends=${BACKENDS:-"pairwise shm"}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/exchange/graph_args.sh"
. "$top/bench/auto/median.sh"
graph_args "$top" per_iteration.sh "$graph" # sets file and flags
published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' \
              "$top/../shared/datasets/suitesparse/MANIFEST.tsv")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# $graph, $runs rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
  for b in $backends; do
    mpiexec -n 2 "$build/apps/tc/ravel-tc" --quiet --json --comm="$b" \
      "${flags[@]}" --log="$work/$b.$r.csv" "$file" >"$work/out" </dev/null
    paths=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' "$work/out")
    [[ $paths == "$published" ]] || {
      echo "per_iteration.sh: $b's closure of $graph has '$paths' paths, published $published" >&2
      exit 1
    }
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# stratum,iteration,max_block_bytes,...,comm_seconds (6),...,backend_seconds (12)
iterations=$(awk -F, 'NR > 1 { n++ } END { print n }' "$work/${backends%% *}.1.csv")
head="| iteration | largest block B |"
rule="|---:|---:|"
for b in $backends; do
  head="$head $b exchange ms | $b backend ms |"
  rule="$rule---:|---:|"
done
echo "$head"
echo "$rule"
declare -A sum_c sum_b
for ((i = 1; i <= iterations; i++)); do
  line="| $i | $(awk -F, -v i="$i" 'NR == i + 1 { print $3 }' "$work/${backends%% *}.1.csv") |"
  for b in $backends; do
    c=$(for ((r = 1; r <= runs; r++)); do
          awk -F, -v i="$i" 'NR == i + 1 { print $6 * 1000 }' "$work/$b.$r.csv"
        done | median)
    k=$(for ((r = 1; r <= runs; r++)); do
          awk -F, -v i="$i" 'NR == i + 1 { print ($12 == "" ? 0 : $12) * 1000 }' "$work/$b.$r.csv"
        done | median)
    line="$line $(printf '%.3f | %.3f |' "$c" "$k")"
    sum_c[$b]=$(awk -v a="${sum_c[$b]:-0}" -v c="$c" 'BEGIN { print a + c }')
    sum_b[$b]=$(awk -v a="${sum_b[$b]:-0}" -v c="$k" 'BEGIN { print a + c }')
  done
  echo "$line"
done
line="| sum | |"
for b in $backends; do
  line="$line $(printf '%.3f | %.3f |' "${sum_c[$b]}" "${sum_b[$b]}")"
done
echo "$line"
