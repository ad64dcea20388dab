#!/usr/bin/env bash
# tc_vs_souffle.sh: transitive closure by compiled Soufflé (-j 2) and by
# ravel-tc (2 ranks) on the same graph, one after the other, RUNS times
# each (alternating, so a drift of the machine hits both alike); one table
# of medians: wall seconds, the time ratio ravel / Soufflé (below 1: ravel
# is faster), and the peak memory of all processes together.  Issue 15's
# measurement.  Run it on an idle machine.
#
# usage: bench/peers/tc_vs_souffle.sh BUILD_DIR OUT_DIR [GRAPH...]
#   GRAPH   names in ../shared/datasets/suitesparse/MANIFEST.tsv (default:
#           every graph whose closure has at most MAX_PATHS paths)
# Environment: RUNS (default 3), MAX_PATHS (default 100000000), RANKS
# (default 2, Soufflé's -j the same), SOUFFLE (default
# /opt/souffle/bin/souffle: build it once with ../shared/peers/souffle/build.sh).
#
# Soufflé runs ../shared/peers/souffle/tc.dl, ravel-tc's program, compiled
# once (souffle -o); its facts are the .mtx file's entries as they are
# (the ids' base does not change the closure).  Wall time: /usr/bin/time
# around each command (ravel-tc's includes mpiexec's start-up, Soufflé's
# its loading of the facts); memory: Soufflé's peak RSS (one process), and
# for ravel-tc the sum of every rank's peak (its --json
# peak_rss_bytes_total).  Both closures must have the published size, or the
# script stops.  Output: OUT_DIR/tc_vs_souffle.csv (every run, with the load
# average before it) and the table on stdout.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '9,15p' "$0" >&2; exit 2; }
build=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared
souffle=${SOUFFLE:-/opt/souffle/bin/souffle}
runs=${RUNS:-3}
ranks=${RANKS:-2}
max_paths=${MAX_PATHS:-100000000}
tc=$build/apps/tc/ravel-tc
. "$top/bench/peers/require.sh"
. "$top/bench/peers/souffle_tc.sh"
peers_require tc_vs_souffle.sh "$souffle" "$shared" "$tc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
souffle_tc_compile "$souffle" "$shared" "$work/souffle_tc" # once

mkdir -p "$out"
csv=$out/tc_vs_souffle.csv
[[ -f $csv ]] ||
  echo "graph,engine,run,paths,wall_s,peak_mib,load_before" >"$csv"

manifest=$shared/datasets/suitesparse/MANIFEST.tsv
if [[ $# -eq 0 ]]; then
  set -- $(awk -F'\t' -v m="$max_paths" '!/^#/ && $4 <= m { print $1 }' "$manifest")
fi

for graph in "$@"; do
  file=$(awk -F'\t' -v n="$graph" '$1 == n { print $2 }' "$manifest")
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$manifest")
  [[ -n $file ]] || { echo "tc_vs_souffle.sh: $graph is not in $manifest" >&2; exit 1; }
  flags=()
  base=$(awk -F'\t' -v n="$graph" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
  [[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
  facts=$work/facts
  rm -rf "$facts" "$work/souffle_out"
  mkdir -p "$work/souffle_out"
  souffle_tc_facts "$shared/datasets/suitesparse/$file" "$facts"
  for ((r = 1; r <= runs; r++)); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    "/usr/bin/time" -o "$work/time" -f '%e %M' \
      "$work/souffle_tc" -j "$ranks" -F "$facts" -D "$work/souffle_out" \
      >"$work/souffle_stdout"
    read -r wall kib <"$work/time"
    paths=$(awk '$1 == "path" { print $2 }' "$work/souffle_stdout")
    [[ $paths == "$published" ]] || {
      echo "tc_vs_souffle.sh: Soufflé's closure of $graph has '$paths' paths, published $published" >&2
      exit 1
    }
    echo "$graph,souffle,$r,$paths,$wall,$((kib / 1024)),$load" | tee -a "$csv"

    load=$(cut -d' ' -f1 /proc/loadavg)
    "/usr/bin/time" -o "$work/time" -f '%e' \
      mpiexec -n "$ranks" "$tc" --quiet --json "${flags[@]}" \
      "$shared/datasets/suitesparse/$file" >"$work/ravel_stdout" </dev/null
    wall=$(cat "$work/time")
    j=$(grep '^{' "$work/ravel_stdout")
    paths=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' <<<"$j")
    bytes=$(sed -n 's/.*"peak_rss_bytes_total": \([0-9]*\).*/\1/p' <<<"$j")
    [[ $paths == "$published" ]] || {
      echo "tc_vs_souffle.sh: ravel-tc's closure of $graph has '$paths' paths, published $published" >&2
      exit 1
    }
    echo "$graph,ravel,$r,$paths,$wall,$((bytes / 1048576)),$load" | tee -a "$csv"
  done
done

. "$top/bench/auto/median.sh"
echo
echo "| graph | paths | Soufflé -j$ranks s | ravel-tc $ranks ranks s | time ratio | Soufflé MiB | ravel MiB | memory ratio | loads before |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for graph in "$@"; do
  col() { awk -F, -v g="$graph" -v e="$1" -v c="$2" '$1 == g && $2 == e { print $c }' "$csv" | median; }
  st=$(col souffle 5) rt=$(col ravel 5) sm=$(col souffle 6) rm=$(col ravel 6)
  paths=$(awk -F, -v g="$graph" '$1 == g { print $4; exit }' "$csv")
  loads=$(awk -F, -v g="$graph" '$1 == g { printf "%s%s", s, $7; s = " " }' "$csv")
  awk -v g="$graph" -v p="$paths" -v st="$st" -v rt="$rt" -v sm="$sm" -v rm="$rm" -v l="$loads" \
    'BEGIN { printf "| %s | %d | %.2f | %.2f | %.2f | %d | %d | %.2f | %s |\n", g, p, st, rt, rt / st, sm, rm, rm / sm, l }'
done
