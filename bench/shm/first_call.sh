#!/usr/bin/env bash
# first_call.sh BUILD_DIR [RUNS]: what shm's first exchanges cost against
# what it saves later, on closures of few and of many iterations.  ravel-tc
# at 2 ranks with shm and with spread-out on OL.cedge, cal.cedge, wing and
# luxembourg_osm (GRAPHS overrides), RUNS rounds (default 5) alternating
# the two, every closure checked against its published size.  Per graph,
# medians over the rounds of the engine's exchange seconds (comm_seconds)
# of iteration 1, of iterations 1-2 and of the whole closure, for both
# backends, and the first iteration by which shm's exchanges, summed, are
# back under spread-out's ("never": shm loses on the closure).
#
# shm's first calls create the shared window and touch its pages for the
# first time (each a page fault, microseconds apiece on this virtual
# machine): tens to hundreds of microseconds, which a closure of hundreds
# of iterations repays and one of a dozen may not.  Run it on an idle
# machine: the load is printed before and after.
set -euo pipefail
build=${1:?usage: first_call.sh BUILD_DIR [RUNS]}
runs=${2:-5}
graphs=${GRAPHS:-"OL.cedge cal.cedge wing luxembourg_osm"}
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared/datasets/suitesparse
. "$top/bench/auto/median.sh"
. "$top/bench/exchange/graph_args.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for graph in $graphs; do
  graph_args "$top" first_call.sh "$graph" # sets file and flags
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$shared/MANIFEST.tsv")
  for ((r = 1; r <= runs; r++)); do
    for b in spread-out shm; do
      log=$work/$graph.$b.$r.csv
      j=$(mpiexec -n 2 "$build/apps/tc/ravel-tc" --quiet --json --comm="$b" \
            --log="$log" "${flags[@]}" "$file" </dev/null 2>/dev/null)
      size=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' <<<"$j")
      if [[ $size != "$published" ]]; then
        echo "first_call.sh: $graph with $b: closure of '$size' paths, published $published" >&2
        exit 1
      fi
    done
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# comm_seconds is the log's 6th column; one line per iteration after the
# header.  Prints: first, first two, all, then the cumulative sums.
sums() { awk -F, 'NR > 1 { s += $6; printf "%s%.9f", (NR > 2 ? " " : ""), s } END { print "" }' "$1"; }
echo "| graph | iterations | spread-out it. 1 us | shm it. 1 us | spread-out it. 1-2 us | shm it. 1-2 us | spread-out all us | shm all us | shm repaid by iteration |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for graph in $graphs; do
  for b in spread-out shm; do
    for ((r = 1; r <= runs; r++)); do sums "$work/$graph.$b.$r.csv"; done >"$work/$b.cum"
  done
  n=$(awk '{ print NF; exit }' "$work/shm.cum")
  # Median over the rounds of each backend's cumulative sum per iteration.
  med() { # FILE COLUMN
    awk -v c="$2" '{ print $c }' "$1" | median
  }
  cols=() repaid=never
  for ((i = 1; i <= n; i++)); do
    s=$(med "$work/spread-out.cum" "$i") h=$(med "$work/shm.cum" "$i")
    if [[ $repaid == never ]] && awk -v h="$h" -v s="$s" 'BEGIN { exit !(h <= s) }'; then repaid=$i; fi
    if [[ $i == 1 || $i == 2 || $i == "$n" ]]; then cols+=("$s" "$h"); fi
  done
  # A closure whose later iterations put shm back over is not repaid.
  last_s=${cols[4]} last_h=${cols[5]}
  if awk -v h="$last_h" -v s="$last_s" 'BEGIN { exit !(h > s) }'; then repaid=never; fi
  awk -v g="$graph" -v n="$n" -v r="$repaid" -v a="${cols[0]}" -v b="${cols[1]}" \
      -v c="${cols[2]}" -v d="${cols[3]}" -v e="$last_s" -v f="$last_h" \
      'BEGIN { printf "| %s | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s |\n", g, n, a * 1e6, b * 1e6, c * 1e6, d * 1e6, e * 1e6, f * 1e6, r }'
done
