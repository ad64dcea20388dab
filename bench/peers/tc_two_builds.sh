#!/usr/bin/env bash
# tc_two_builds.sh: ravel-tc of two builds (say, before and after a change)
# on the same graphs and rank counts, alternating run by run so that a drift
# of the machine hits both alike; one CSV line per run, then a table of
# medians and the ratio after / before.  Run it on an idle machine.
#
# usage: bench/peers/tc_two_builds.sh BEFORE_BUILD AFTER_BUILD GRAPH:RANKS...
#   GRAPH   a name in ../shared/datasets/suitesparse/MANIFEST.tsv (0-based
#           files are read with --indices=zero-tolerant, from
#           datasets/manifest.tsv)
# Environment: RUNS (default 3).
#
# Wall seconds around mpiexec (its start-up included); exchange and compute
# seconds and the ranks' summed peak memory from ravel-tc's --json.  Every
# closure must have the published size, or the script stops.
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '7,11p' "$0" >&2; exit 2; }
before=$1 after=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared
manifest=$shared/datasets/suitesparse/MANIFEST.tsv
runs=${RUNS:-3}
. "$top/bench/exchange/graph_args.sh"
for b in "$before" "$after"; do
  [[ -x $b/apps/tc/ravel-tc ]] ||
    { echo "tc_two_builds.sh: no $b/apps/tc/ravel-tc (build it first)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "graph,ranks,build,run,wall_s,exchange_s,compute_s,paths,peak_mib,load_before"
for spec in "$@"; do
  graph=${spec%%:*} ranks=${spec#*:}
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$manifest")
  [[ -n $published && $ranks =~ ^[0-9]+$ ]] ||
    { echo "tc_two_builds.sh: '$spec' is not GRAPH:RANKS of $manifest" >&2; exit 1; }
  graph_args "$top" tc_two_builds.sh "$graph" # sets file and flags
  for run in $(seq "$runs"); do
    for which in before after; do
      build=$before
      [[ $which == after ]] && build=$after
      load=$(cut -d' ' -f1 /proc/loadavg)
      start=$EPOCHREALTIME
      mpiexec -n "$ranks" "$build/apps/tc/ravel-tc" --quiet --json "${flags[@]}" \
        "$file" >"$work/out.json" 2>"$work/err" ||
        { cat "$work/err" >&2; exit 1; }
      end=$EPOCHREALTIME
      python3 - "$work/out.json" "$graph" "$ranks" "$which" "$run" "$start" "$end" \
        "$published" "$load" <<'EOF'
import json, sys
path, graph, ranks, which, run, start, end, published, load = sys.argv[1:]
d = json.load(open(path))
if d["closure_size"] != int(published):
    sys.exit(f"tc_two_builds.sh: {graph}: {d['closure_size']} paths, "
             f"published {published}")
print(f"{graph},{ranks},{which},{run},{float(end) - float(start):.2f},"
      f"{d['comm_seconds']:.2f},{d['compute_seconds']:.2f},"
      f"{d['closure_size']},{d['peak_rss_bytes_total'] / 2**20:.0f},{load}")
EOF
    done
  done
done | tee "$work/runs.csv"
python3 - "$work/runs.csv" <<'EOF'
import statistics, sys
rows = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
keys = []
for r in rows:
    if (r[0], r[1]) not in keys:
        keys.append((r[0], r[1]))
print()
print("| graph | ranks | before s | after s | after / before | before MiB | after MiB |")
print("|---|---:|---:|---:|---:|---:|---:|")
for g, p in keys:
    med = {}
    for which in ("before", "after"):
        sel = [r for r in rows if (r[0], r[1], r[2]) == (g, p, which)]
        med[which] = (statistics.median(float(r[4]) for r in sel),
                      statistics.median(float(r[8]) for r in sel))
    print(f"| {g} | {p} | {med['before'][0]:.2f} | {med['after'][0]:.2f} | "
          f"{med['after'][0] / med['before'][0]:.2f} | {med['before'][1]:.0f} | "
          f"{med['after'][1]:.0f} |")
EOF
