#!/usr/bin/env bash
# What checkpointing costs: ravel-tc on a shared graph at P ranks, side by
# side in one run, REPS times each: without snapshots, with the default
# (one snapshot, at the end of the stratum), and with a snapshot after every
# iteration (--checkpoint-every=0).  Prints the median closure time of each,
# the overhead ratios, and per snapshot its size on disk and the time it
# took (the engine's own log lines), into OUT (a CSV) and on stdout.
#
# usage: run_checkpoint_bench.sh BUILD [GRAPH] [P] [REPS] [OUT]
#   defaults: p2p-Gnutella04, 2 ranks, 3 repetitions,
#   bench/results/checkpoint/checkpoint_cost.csv.  Snapshots go to a
#   temporary folder on the file system of $TMPDIR (default /tmp).
set -euo pipefail
build=${1:?usage: run_checkpoint_bench.sh BUILD [GRAPH] [P] [REPS] [OUT]}
graph=${2:-p2p-Gnutella04} P=${3:-2} reps=${4:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${5:-$top/bench/results/checkpoint/checkpoint_cost.csv}
shared=$top/../shared/datasets/suitesparse
tc=$build/apps/tc/ravel-tc
base=$(awk -F'\t' -v n="$graph" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
flags=()
[[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$(dirname "$out")"
echo "graph,P,mode,rep,closure_s,closure_size,snapshots,snapshot_bytes_max,snapshot_s_sum,snapshot_s_max" >"$out"
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$2"; }
echo "# $(date -u +%FT%TZ) $(uptime)" >&2
for rep in $(seq "$reps"); do
  for mode in none end every; do
    ck=()
    case $mode in
      end) ck=(--checkpoint="$scratch/ck") ;;
      every) ck=(--checkpoint="$scratch/ck" --checkpoint-every=0) ;;
    esac
    rm -rf "$scratch/ck"
    j=$(mpiexec -n "$P" "$tc" --json "${ck[@]}" "${flags[@]}" \
        "$shared/$graph.mtx" 2>"$scratch/err" | grep '^{')
    # "snapshot DIR: stratum S after iteration I, SIZE (N bytes) in T s"
    read -r n bytes_max s_sum s_max < <(
      sed -n 's/.*snapshot .*(\([0-9]*\) bytes) in \([0-9.]*\) s$/\1 \2/p' "$scratch/err" |
      awk '{ n++; if ($1 > b) b = $1; s += $2; if ($2 > m) m = $2 }
           END { printf "%d %d %.3f %.3f\n", n, b, s, m }')
    line="$graph,$P,$mode,$rep,$(field closure_seconds "$j"),$(field closure_size "$j"),$n,$bytes_max,$s_sum,$s_max"
    echo "$line" >>"$out"
    echo "$line"
  done
done
echo "# $(date -u +%FT%TZ) $(uptime)" >&2
awk -F, 'NR > 1 { t[$3] = t[$3] " " $5; n[$3] = $7; b[$3] = $8; s[$3] = s[$3] " " $9 }
  function median(list,   a, k, i, j, x) {
    k = split(list, a, " ")
    for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    base = median(t["none"])
    printf "median closure seconds: none %.2f, end %.2f (x%.3f), every %.2f (x%.3f)\n",
      base, median(t["end"]), median(t["end"]) / base, median(t["every"]), median(t["every"]) / base
    printf "every iteration: %d snapshots, the largest %.1f MiB, %.2f s of snapshots in all (median)\n",
      n["every"], b["every"] / 1048576, median(s["every"])
    printf "end only: %d snapshot of %.1f MiB, %.2f s (median)\n",
      n["end"], b["end"] / 1048576, median(s["end"])
  }' "$out"
