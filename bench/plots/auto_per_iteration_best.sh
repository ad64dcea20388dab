#!/bin/sh
# auto_per_iteration_best.sh LOG_DIR RUN BACKEND...: from the per-iteration
# logs LOG_DIR/RUN.BACKEND.csv of one application run (bench/simgrid/
# tc_apps.sh or kcfa_apps.sh; RUN as luxembourg_osm.P256, with any suffix
# of the logs' names, as .discover, in SUFFIX), what a perfect per-call
# choice among the fixed BACKENDs would take -- the sum over iterations of
# the fastest of them at each (comm_seconds) -- against auto's run and the
# best fixed backend's, and how often the fastest backend changes from one
# iteration to the next (the study's "where the per-iteration best
# changes").  Every log must have the same iterations.
set -eu
[ $# -ge 3 ] || { echo "usage: auto_per_iteration_best.sh LOG_DIR RUN BACKEND..." >&2; exit 2; }
dir=$1 run=$2
shift 2
suffix=${SUFFIX:-}
files=
for b in "$@" auto; do
  f=$dir/$run.$b$suffix.csv
  [ -f "$f" ] || { echo "no log $f" >&2; exit 1; }
  files="$files $f"
done
# shellcheck disable=SC2086
awk -F, -v names="$* auto" '
  BEGIN { nb = split(names, name, " ") }
  FNR == 1 { file++; for (i = 1; i <= NF; i++) col[$i] = i; next }
  { t[file, FNR - 1] = $col["comm_seconds"]; n[file] = FNR - 1 }
  END {
    for (f = 2; f <= nb; f++)
      if (n[f] != n[1]) {
        printf "%s has %d iterations, %s %d\n", name[f], n[f], name[1], n[1] > "/dev/stderr"
        exit 1
      }
    best_fixed = -1
    for (f = 1; f < nb; f++) {
      s = 0
      for (i = 1; i <= n[1]; i++) s += t[f, i]
      total[f] = s
      if (best_fixed < 0 || s < total[best_fixed]) best_fixed = f
    }
    auto = 0; oracle = 0; changes = 0; prev = 0
    for (i = 1; i <= n[1]; i++) {
      auto += t[nb, i]
      w = 1
      for (f = 2; f < nb; f++) if (t[f, i] < t[w, i]) w = f
      oracle += t[w, i]
      wins[w]++
      if (prev && w != prev) changes++
      prev = w
    }
    printf "iterations %d\n", n[1]
    printf "best fixed %s %.6f s\n", name[best_fixed], total[best_fixed]
    printf "auto %.6f s (%.3f of the best fixed)\n", auto, auto / total[best_fixed]
    printf "per-iteration best %.6f s (auto takes %.3f of it)\n", oracle, auto / oracle
    printf "the fastest backend changes %d times; fastest at:", changes
    for (f = 1; f < nb; f++) if (wins[f]) printf " %s %d", name[f], wins[f]
    printf "\n"
  }' $files
