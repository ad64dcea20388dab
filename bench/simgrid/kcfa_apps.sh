#!/usr/bin/env bash
# kcfa_apps.sh: ravel-kcfa itself under SimGrid SMPI on the Theta-like
# platform (copies charged), with every fixed backend and auto, on the
# generated worst-case program: the simulated exchange time of every
# iteration (the per-iteration logs) and of the whole run, and auto's choice
# per iteration.  As tc_apps.sh: the engine's own computation is not
# simulated (smpi/simulate-computation:no), the study is of the exchanges.
#
# usage: kcfa_apps.sh BUILD_SMPI OUT_DIR P K N
#   BUILD_SMPI  a build with -DRAVEL_SIMGRID=ON and target ravel-kcfa built
#   K, N        --k=K --generate=N
set -euo pipefail
[ $# -eq 5 ] || { sed -n '9,11p' "$0" >&2; exit 2; }
build=$1 out=$2 P=$3 k=$4 n=$5
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/bench/simgrid/app_result.sh"
backends=${BACKENDS:-"spread-out padded-alltoall padded-bruck two-phase-bruck pairwise inline-bruck auto"}
mkdir -p "$out/logs"
csv=$out/kcfa_apps_P$P.csv
[ -f "$csv" ] || echo "program,backend,P,facts,iterations,exchange_s,host_s" >"$csv"
name=kcfa-k$k-n$n
for backend in $backends; do
  log=$out/logs/$name.P$P.$backend.csv
  start=$(date +%s)
  # "--log FILE", not "--log=FILE": smpirun takes --log= as its own.
  j=$(app_result "$log" "kcfa_apps.sh: $name $backend at P=$P" \
      env RAVEL_MODEL="$top/bench/simgrid/theta-model.json" \
      sh "$top/bench/simgrid/smpi_run.sh" "$build/apps/kcfa/ravel-kcfa" theta \
      "$P" 3 --quiet --json --k="$k" --generate="$n" --comm="$backend" \
      --log "$log") || continue
  field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$j"; }
  echo "$name,$backend,$P,$(field facts),$(field iterations),$(field comm_seconds),$(($(date +%s) - start))" |
    tee -a "$csv"
done
