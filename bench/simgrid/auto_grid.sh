#!/bin/sh
# auto_grid.sh: the simulated validation grid of the auto backend (issue
# 12): on the Theta-like platform with ravel's copies charged, every fixed
# backend and auto on P x N x distribution, into one CSV.  Simulated times
# are deterministic, so one timed call per point is enough.  auto runs
# twice: agreeing on each call's statistics itself (one allreduce, in its
# time), and told them (--hint-stats, rows "auto+hint"), as inside ravel's
# engine, whose count exchange carries them.
#
# usage: auto_grid.sh PROGRAM CSV [P...]
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
#   CSV      appended to (header when new)
#   P        rank counts (default 128 256 512 1024)
# Environment: NS (default 16,64,256,1024,2048), DISTS (default "uniform
# range:50 normal power-law:0.99"), COMMS (the fixed backends, default
# every one but vendor), VENDOR_MAX_P (default 128: SimGrid's
# own alltoallv posts P-1 messages 4 peers at a time, the slowest of all
# here and the costliest for the host; auto can still choose it), HOST_LOG
# (host seconds and peak memory per run).
#
# auto reads the platform's model, bench/simgrid/theta-model.json, whose
# every parameter theta.xml cites; the model is not fitted to these runs.
set -eu
if [ $# -lt 2 ]; then
    sed -n '10,22p' "$0" >&2
    exit 2
fi
program=$1 csv=$2
shift 2
[ $# -gt 0 ] || set -- 128 256 512 1024
here=$(cd "$(dirname "$0")" && pwd)
NS=${NS:-16,64,256,1024,2048}
DISTS=${DISTS:-uniform range:50 normal power-law:0.99}
VENDOR_MAX_P=${VENDOR_MAX_P:-128}
for P in "$@"; do
    comms=${COMMS:-spread-out,padded-alltoall,padded-bruck,two-phase-bruck,pairwise,inline-bruck,radix-bruck},auto
    [ "$P" -le "$VENDOR_MAX_P" ] && comms=vendor,$comms
    for dist in $DISTS; do
        start=$(date +%s)
        timer=
        [ -n "${HOST_LOG:-}" ] &&
            timer="/usr/bin/time -a -o $HOST_LOG -f theta\\t3\\t$P\\t$dist\\t$comms\\t$NS\\t%e\\t%M"
        RAVEL_MODEL="$here/theta-model.json" $timer "$here/smpi_run.sh" \
            "$program" theta "$P" 3 --comm="$comms" --N="$NS" \
            --dist="$dist" --iters=1 --warmup=0 --csv="$csv" >/dev/null
        # auto once more, told each call's statistics as the engine does.
        RAVEL_MODEL="$here/theta-model.json" "$here/smpi_run.sh" \
            "$program" theta "$P" 3 --comm=auto --hint-stats --N="$NS" \
            --dist="$dist" --iters=1 --warmup=0 --csv="$csv" >/dev/null
        echo "# auto_grid.sh: P=$P $dist done in $(($(date +%s) - start)) s" >&2
    done
done
