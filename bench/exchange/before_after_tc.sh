#!/usr/bin/env bash
# before_after_tc.sh OLD_BUILD NEW_BUILD [RUNS]: ravel-tc at 2 ranks from
# two builds of ravel (say, before and after a change to the engine), each
# with its own default exchange path, one run of each after the other in
# every round so that a drift in the machine's load hits both alike.
# Prints, per graph and backend, each build's median closure seconds,
# exchange seconds (comm_seconds) and peak RSS summed over ranks, and
# new / old.  Environment: GRAPHS (default "luxembourg_osm p2p-Gnutella04"),
# BACKENDS (default "inline-bruck auto"), RUNS rounds (default 3).
# Measure on an idle machine.
set -euo pipefail
old=${1:?usage: before_after_tc.sh OLD_BUILD NEW_BUILD [RUNS]}
new=${2:?usage: before_after_tc.sh OLD_BUILD NEW_BUILD [RUNS]}
runs=${3:-3}
graphs=${GRAPHS:-"luxembourg_osm p2p-Gnutella04"}
backends=${BACKENDS:-"inline-bruck auto"}
top=$(cd "$(dirname "$0")/../.." && pwd)
export RAVEL_MODEL=${RAVEL_MODEL:-$top/bench/results/auto/model-this-machine.json}
. "$top/bench/auto/median.sh"
. "$top/bench/exchange/graph_args.sh"
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$2"; }
for graph in $graphs; do
  graph_args "$top" before_after_tc.sh "$graph"
  echo "# $graph, $runs rounds, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((r = 1; r <= runs; r++)); do
    for b in $backends; do
      for which in old new; do
        build=$old
        [[ $which == new ]] && build=$new
        j=$(mpiexec -n 2 "$build/apps/tc/ravel-tc" --quiet --json \
              --comm="$b" "${flags[@]}" "$file" </dev/null)
        echo "$graph $b $which $(field closure_seconds "$j") $(field comm_seconds "$j") $(field peak_rss_bytes_total "$j")" >>"$samples"
      done
    done
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-14s %9s %9s %6s %9s %9s %6s %8s %8s %6s\n' backend \
    old_s new_s ratio old_xs new_xs ratio old_MB new_MB ratio
  for b in $backends; do
    row=()
    for col in 4 5 6; do
      o=$(awk -v g="$graph" -v b="$b" -v c=$col '$1 == g && $2 == b && $3 == "old" { print $c }' "$samples" | median)
      n=$(awk -v g="$graph" -v b="$b" -v c=$col '$1 == g && $2 == b && $3 == "new" { print $c }' "$samples" | median)
      if [[ $col == 6 ]]; then
        o=$(awk -v x="$o" 'BEGIN { printf "%.1f", x / 1048576 }')
        n=$(awk -v x="$n" 'BEGIN { printf "%.1f", x / 1048576 }')
      fi
      row+=("$o" "$n" "$(awk -v a="$o" -v b="$n" 'BEGIN { printf "%.3f", b / a }')")
    done
    printf '%-14s %9s %9s %6s %9s %9s %6s %8s %8s %6s\n' "$b" "${row[@]}"
  done
done
