#!/usr/bin/env bash
# two_builds.sh: ravel-tc or ravel-kcfa of two builds (say, before and
# after a change) on the same cases, one beside the other run by run, the
# one that goes first alternating, so that a drift of the machine hits
# both alike; one CSV line per run, then a table of medians, the ratio
# after / before and each pair's.  Run it on an idle machine.
#
# usage: bench/peers/two_builds.sh BEFORE_BUILD AFTER_BUILD CASE...
#   CASE  GRAPH:RANKS  ravel-tc on a graph of ../shared/datasets/suitesparse/
#                      MANIFEST.tsv (0-based files read with
#                      --indices=zero-tolerant, from datasets/manifest.tsv)
#         kcfa:N:K:RANKS  ravel-kcfa on the generated program of size N
# Environment: RUNS (default 3), ARGS (more arguments for every run, as
# --comm=shm; split at spaces).
#
# Wall seconds around mpiexec (its start-up included); exchange and compute
# seconds and the ranks' summed peak memory from --json (ravel-kcfa reports
# the largest rank's: times the ranks).  Every closure must
# have the published size, and every kCFA result (AEval) the same size in
# both builds (tests/kcfa checks it against a reference), or the script
# stops.
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '8,14p' "$0" >&2; exit 2; }
before=$1 after=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared
manifest=$shared/datasets/suitesparse/MANIFEST.tsv
runs=${RUNS:-3}
. "$top/bench/exchange/graph_args.sh"
for b in "$before" "$after"; do
  for app in tc/ravel-tc kcfa/ravel-kcfa; do
    [[ -x $b/apps/$app ]] ||
      { echo "two_builds.sh: no $b/apps/$app (build it first)" >&2; exit 1; }
  done
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "case,ranks,build,run,wall_s,exchange_s,compute_s,size,peak_mib,load_before"
for spec in "$@"; do
  if [[ $spec =~ ^kcfa:([0-9]+):([0-9]+):([0-9]+)$ ]]; then
    name=kcfa:${BASH_REMATCH[1]}:${BASH_REMATCH[2]} ranks=${BASH_REMATCH[3]}
    app=kcfa/ravel-kcfa field=AEval published=
    args=(--generate="${BASH_REMATCH[1]}" --k="${BASH_REMATCH[2]}")
  else
    name=${spec%%:*} ranks=${spec#*:}
    published=$(awk -F'\t' -v n="$name" '$1 == n { print $4 }' "$manifest")
    [[ -n $published && $ranks =~ ^[0-9]+$ ]] ||
      { echo "two_builds.sh: '$spec' is neither GRAPH:RANKS of $manifest nor kcfa:N:K:RANKS" >&2; exit 1; }
    graph_args "$top" two_builds.sh "$name" # sets file and flags
    app=tc/ravel-tc field=closure_size args=("${flags[@]}" "$file")
  fi
  for run in $(seq "$runs"); do
    # Odd runs before first, even runs after first: this machine's speed
    # drifts by a third within an hour, and a pair always in one order
    # hands the drift to one build (wiki-Vote's pairs read 0.72 in a
    # speeding hour, against 1.0 in order-alternated ones).
    order="before after"
    (( run % 2 == 0 )) && order="after before"
    first=1
    for which in $order; do
      build=$before
      [[ $which == after ]] && build=$after
      load=$(cut -d' ' -f1 /proc/loadavg)
      start=$EPOCHREALTIME
      # shellcheck disable=SC2086 # ARGS: words, split on purpose
      mpiexec -n "$ranks" "$build/apps/$app" --quiet --json "${args[@]}" ${ARGS:-} \
        >"$work/out.json" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
      end=$EPOCHREALTIME
      line=$(python3 - "$work/out.json" "$name" "$ranks" "$which" "$run" "$start" "$end" \
        "$field" "$published" "$load" <<'EOF'
import json, sys
path, name, ranks, which, run, start, end, field, published, load = sys.argv[1:]
d = json.load(open(path))
if published and d[field] != int(published):
    sys.exit(f"two_builds.sh: {name}: {d[field]} paths, published {published}")
peak = d.get("peak_rss_bytes_total", d["peak_rss_bytes_max"] * int(ranks))
print(f"{name},{ranks},{which},{run},{float(end) - float(start):.3f},"
      f"{d['comm_seconds']:.2f},{d['compute_seconds']:.2f},"
      f"{d[field]},{peak / 2**20:.0f},{load}")
EOF
)
      echo "$line"
      # Both builds must find the same size (kCFA has no published one).
      size=$(cut -d, -f8 <<<"$line")
      if (( first )); then want=$size first=0
      elif [[ $size != "$want" ]]; then
        echo "two_builds.sh: $name: the builds found $want and $size" >&2; exit 1
      fi
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
print("| case | ranks | before s | after s | after / before | pairs' ratios | before MiB | after MiB |")
print("|---|---:|---:|---:|---:|---|---:|---:|")
for g, p in keys:
    med = {}
    for which in ("before", "after"):
        sel = [r for r in rows if (r[0], r[1], r[2]) == (g, p, which)]
        med[which] = (statistics.median(float(r[4]) for r in sel),
                      statistics.median(float(r[8]) for r in sel))
    # Each run's after / before, the two measured one beside the other.
    wall = {(r[2], r[3]): float(r[4]) for r in rows if (r[0], r[1]) == (g, p)}
    pairs = " ".join(f"{wall[('after', n)] / wall[('before', n)]:.2f}"
                     for w, n in wall if w == "before" and ("after", n) in wall)
    print(f"| {g} | {p} | {med['before'][0]:.3f} | {med['after'][0]:.3f} | "
          f"{med['after'][0] / med['before'][0]:.2f} | {pairs} | "
          f"{med['before'][1]:.0f} | {med['after'][1]:.0f} |")
EOF
