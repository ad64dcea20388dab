#!/usr/bin/env bash
# Transitive closure of every shared graph with every comm backend, at 2
# ranks: a CSV row per (graph, backend), and a plot of N (the largest block
# one rank sent another) and comm time per iteration for one graph, like
# Figure 12 of the HPDC'22 paper.
#
# usage: bench/tc/run_tc_bench.sh [BUILD_DIR] [OUT_DIR]
#   RANKS=2  MAX_PATHS=100000000  BACKENDS="vendor spread-out ..."
#   PLOT_GRAPH=p2p-Gnutella04  PLOT_BACKEND=two-phase-bruck
# Graphs whose published closure exceeds MAX_PATHS are listed as skipped,
# for time: the two largest (870-885 million paths) take about 7 minutes
# per backend on one rank (README: "Transitive closure").
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
out=${2:-$top/bench/results/tc}
ranks=${RANKS:-2}
max_paths=${MAX_PATHS:-100000000}
backends=${BACKENDS:-"vendor spread-out padded-alltoall padded-bruck two-phase-bruck"}
plot_graph=${PLOT_GRAPH:-p2p-Gnutella04}
plot_backend=${PLOT_BACKEND:-two-phase-bruck}
shared=$top/../shared/datasets/suitesparse
manifest=$top/datasets/manifest.tsv
tc=$build/apps/tc/ravel-tc
[[ -x $tc ]] || { echo "no $tc: build first" >&2; exit 1; }
mkdir -p "$out/logs"

csv=$out/tc_backends.csv
echo "graph,backend,ranks,closure_size,published,iterations,total_s,comm_s,compute_s,peak_rss_mib_max" >"$csv"
json_field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$2"; }

grep -v '^#' "$shared/MANIFEST.tsv" | while IFS=$'\t' read -r name file _ tc_size _ _; do
  if (( tc_size > max_paths )); then
    echo "$name,skipped,$ranks,,$tc_size,,,,," >>"$csv"  # over MAX_PATHS
    echo "skip $name: $tc_size paths > MAX_PATHS=$max_paths" >&2
    continue
  fi
  flags=()
  base=$(awk -F'\t' -v n="$name" '$1 == n { print $5 }' "$manifest")
  [[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
  for backend in $backends; do
    log=$out/logs/$name.$backend.csv
    j=$(mpiexec -n "$ranks" "$tc" --quiet --json --comm="$backend" \
          --log="$log" "${flags[@]}" "$shared/$file" </dev/null)  # mpiexec forwards stdin
    size=$(json_field closure_size "$j")
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%.1f\n' "$name" "$backend" "$ranks" \
      "$size" "$tc_size" "$(json_field iterations "$j")" \
      "$(json_field closure_seconds "$j")" "$(json_field comm_seconds "$j")" \
      "$(json_field compute_seconds "$j")" \
      "$(awk -v b="$(json_field peak_rss_bytes_max "$j")" 'BEGIN{print b/1048576}')" \
      >>"$csv"
    tail -n 1 "$csv" >&2
    [[ $size == "$tc_size" ]] || echo "WRONG closure size for $name" >&2
  done
done

# Figure 12: N and comm time of every iteration of one run.
log=$out/logs/$plot_graph.$plot_backend.csv
if [[ -f $log ]] && command -v gnuplot >/dev/null; then
  gnuplot -e "logfile='$log'; out='$out/tc_iterations_${plot_graph}.png'; \
              title='$plot_graph, $plot_backend, $ranks ranks'" \
          "$top/bench/tc/iterations.gp"
fi
echo "wrote $csv" >&2
