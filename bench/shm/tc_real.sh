#!/usr/bin/env bash
# tc_real.sh BUILD_DIR [RUNS]: ravel-tc at 2 ranks with shm and with vendor
# on p2p-Gnutella04, wiki-Vote and fe_sphere (GRAPHS overrides), RUNS
# rounds (default 3) alternating the two, every closure checked against
# its published size; per graph and backend the median exchange seconds
# (comm_seconds, the engine's exchanges) and closure seconds (the wall
# time of the fixpoint), and shm / vendor for both.  Run it on an idle
# machine: the load is printed before and after.
set -euo pipefail
build=${1:?usage: tc_real.sh BUILD_DIR [RUNS]}
runs=${2:-3}
graphs=${GRAPHS:-"p2p-Gnutella04 wiki-Vote fe_sphere"}
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared/datasets/suitesparse
. "$top/bench/auto/median.sh"
. "$top/bench/exchange/graph_args.sh"
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for graph in $graphs; do
  graph_args "$top" tc_real.sh "$graph" # sets file and flags
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$shared/MANIFEST.tsv")
  for ((r = 1; r <= runs; r++)); do
    for b in vendor shm; do
      j=$(mpiexec -n 2 "$build/apps/tc/ravel-tc" --quiet --json --comm="$b" \
            "${flags[@]}" "$file" </dev/null 2>/dev/null)
      field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$j"; }
      if [[ $(field closure_size) != "$published" ]]; then
        echo "tc_real.sh: $graph with $b: closure of '$(field closure_size)' paths, published $published" >&2
        exit 1
      fi
      echo "$graph $b $(field comm_seconds) $(field closure_seconds)" >>"$samples"
    done
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| graph | vendor exchange s | shm exchange s | shm / vendor | vendor closure s | shm closure s | shm / vendor |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for graph in $graphs; do
  m() { awk -v g="$graph" -v b="$1" -v c="$2" '$1 == g && $2 == b { print $c }' "$samples" | median; }
  vc=$(m vendor 3) sc=$(m shm 3) vw=$(m vendor 4) sw=$(m shm 4)
  awk -v g="$graph" -v vc="$vc" -v sc="$sc" -v vw="$vw" -v sw="$sw" 'BEGIN {
    printf "| %s | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f |\n", g, vc, sc, sc / vc, vw, sw, sw / vw }'
done
echo "# every run (graph backend exchange_s closure_s):"
sed 's/^/#   /' "$samples"
