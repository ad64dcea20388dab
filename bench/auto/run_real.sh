#!/usr/bin/env bash
# run_real.sh BUILD_DIR: auto against every fixed backend on this machine,
# real MPI at 2 ranks: calibrate, then ravel-a2a from 16 B to 4 MiB (three
# runs, auto agreeing and told), then three runs of ravel-tc on the shared
# graphs up to MAX_PATHS paths with every backend, and the tables of
# bench/results/auto/README.md (real_table.sh).  Run it on an idle machine.
# A2A_ONLY=1 stops after ravel-a2a (and CSV= names its file).
set -euo pipefail
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/bench/results/auto
mkdir -p "$here"
model=$here/model-this-machine.json
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
mpiexec -n 2 "$build/apps/calibrate/ravel-calibrate" --output="$model"
export RAVEL_MODEL=$model
csv=${CSV:-$here/a2a_2ranks.csv}
fixed_backends() {
  echo vendor,spread-out,padded-alltoall,padded-bruck,two-phase-bruck,pairwise,inline-bruck,radix-bruck,shm
}
rm -f "$csv"
for run in 1 2 3; do
  echo "# ravel-a2a run $run, load $(cut -d' ' -f1-3 /proc/loadavg)"
  # Every fixed backend, auto as a plain caller gets it and auto:agree (an
  # allreduce every call).  On a direct exchange auto agrees again once
  # its calls add up to 50 agreements' predicted time (about one call in
  # 40 to 50 here, AUTO_AGREEMENT_SHARE): 510 timed calls hold some ten of
  # those cycles, so auto's mean, which the table reads, holds its
  # agreements in proportion (34 calls, as before 94ee2d2 lengthened the
  # cycle from 17, held one or none).
  mpiexec -n 2 "$build/bench/a2a/ravel-a2a" --iters=510 \
      --comm="$(fixed_backends),auto,auto:agree" \
      --N=16,256,4096,65536,1048576,4194304 --csv="$csv"
  mpiexec -n 2 "$build/bench/a2a/ravel-a2a" --comm=auto --hint-stats \
      --iters=510 --N=16,256,4096,65536,1048576,4194304 --csv="$csv"
done
if [ -n "${A2A_ONLY:-}" ]; then
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
# Three runs of every graph with every backend: at 2 ranks the backends
# differ by about the run-to-run noise, so one run each decides nothing.
for run in 1 2 3; do
  echo "# ravel-tc run $run, load $(cut -d' ' -f1-3 /proc/loadavg)"
  BACKENDS="$(fixed_backends | tr ',' ' ') auto" \
  MAX_PATHS=${MAX_PATHS:-25000000} \
    bash "$top/bench/tc/run_tc_bench.sh" "$build" "$here/tc_2ranks/run$run"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
sh "$top/bench/auto/real_table.sh" "$here"
