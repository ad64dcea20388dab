#!/bin/sh
# auto_apps_table.sh LOG_DIR RUN...: one Markdown row per application run
# of bench/simgrid/tc_apps.sh or kcfa_apps.sh (RUN = the logs' prefix, as
# wiki-Vote.P128 or kcfa-k1-n16.P128), from the per-iteration logs: for
# every fixed backend and auto, the simulated seconds summed over the
# iterations, twice.  "exchange" is the engine's whole exchange (its count
# exchange, in which auto's statistics travel, plus the backend call);
# "backend" is the backend call alone, the part auto's choice changes.
# The last columns: auto against the best fixed backend on each measure.
# LOG_DIR may be a colon-separated list, searched in order for each log
# (a later study's runs first, then the earlier one's); BACKENDS (auto
# last) chooses the columns.
set -eu
[ $# -ge 2 ] || { echo "usage: auto_apps_table.sh LOG_DIR[:LOG_DIR...] RUN..." >&2; exit 2; }
dirs=$1
shift
backends=${BACKENDS:-"spread-out padded-alltoall padded-bruck two-phase-bruck auto"}
find_log() { # RUN BACKEND: the first LOG_DIR holding its log
  old_ifs=$IFS IFS=:
  for d in $dirs; do
    if [ -f "$d/$1.$2.csv" ]; then IFS=$old_ifs; echo "$d/$1.$2.csv"; return; fi
  done
  IFS=$old_ifs
  echo "no log $1.$2.csv in $dirs" >&2
  return 1
}
printf '| run | iterations |'
for b in $backends; do printf ' %s |' "$b"; done
echo ' auto / best fixed: exchange | backend |'
printf '|---|---:|'
for b in $backends; do printf -- '---:|'; done
echo '---:|---:|'
for run in "$@"; do
  for b in $backends; do
    f=$(find_log "$run" "$b") || exit 1
    awk -F, -v b="$b" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      { x += $c["comm_seconds"]; y += $c["backend_seconds"]; n++ }
      END { printf "%s %d %.4f %.4f\n", b, n, x, y }' "$f"
  done | awk -v run="$run" '
    { name[NR] = $1; it = $2; x[NR] = $3; y[NR] = $4
      if ($1 == "auto") { ax = $3; ay = $4 }
      else { if (bx == "" || $3 < bx) bx = $3; if (by == "" || $4 < by) by = $4 } }
    END { printf "| %s | %d |", run, it
          for (i = 1; i <= NR; i++) printf " %.4f (%.4f) |", x[i], y[i]
          printf " %.3f | %.3f |\n", ax / bx, ay / by }'
done
