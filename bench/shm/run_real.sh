#!/usr/bin/env bash
# run_real.sh BUILD_DIR: shm against vendor on this machine, real MPI at 2
# ranks, in three API forms (MPI_Alltoallv's signature; ravel_exchange,
# which reads arrivals in place, on the send buffer and on outboxes the
# caller copies its blocks into, which shm holds in its shared window),
# beside memcpy of each rank's send bytes (the limit of an exchange
# through memory), N from 16 B to 4 MiB: three runs, the forms
# alternating, one CSV (bench/results/shm/a2a_2ranks.csv)
# and the table of bench/results/shm/README.md.  Run it on an idle
# machine: the load is printed before each run.  The rows' predicted_us
# are the cost model's (RAVEL_MODEL, below).
set -euo pipefail
build=${1:-build}
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/bench/results/shm
mkdir -p "$here"
csv=${CSV:-$here/a2a_2ranks.csv}
# The predictions: this machine's calibrated model (run_real.sh of
# bench/auto writes it), unless RAVEL_MODEL names another.
export RAVEL_MODEL=${RAVEL_MODEL:-$top/bench/results/auto/model-this-machine.json}
sizes=16,256,4096,16384,65536,262144,1048576,4194304
rm -f "$csv"
for run in 1 2 3; do
  for api in alltoallv exchange outbox; do
    echo "# run $run, --api=$api, load $(cut -d' ' -f1-3 /proc/loadavg)"
    mpiexec -n 2 "$build/bench/a2a/ravel-a2a" --api=$api --iters=200 \
        --warmup=50 --comm=vendor,shm,memcpy --N=$sizes --csv="$csv" |
      grep -v '^#'
  done
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
sh "$top/bench/shm/table.sh" "$csv"
