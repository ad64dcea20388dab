#!/bin/sh
# auto_grid.sh: the simulated validation grid of the auto backend (issue
# 12): on the Theta-like platform with ravel's copies charged, every fixed
# backend and auto on P x N x distribution, into one CSV.  Simulated times
# are deterministic, so one timed call per point is enough for a fixed
# backend.  auto runs three ways:
#   auto        as a plain MPI_Alltoallv caller gets it: it agrees on the
#               call's statistics (one allreduce) until two calls in a row
#               choose alike, then chooses from the last call's, which that
#               call agreed on along its own messages.  Two untimed calls,
#               then two timed ones: the pattern's steady state (with a
#               direct exchange chosen, which carries nothing, auto agrees
#               again once the calls since its last agreement are predicted
#               to take 20 allreduces: AUTO_ITERS timed calls, a whole
#               number of those cycles); its row's mean_us is the time per
#               call.
#   auto:agree  an allreduce before every call (one timed call).
#   auto+hint   told each call's statistics (--hint-stats), as inside
#               ravel's engine, whose count exchange carries them.
#
# usage: auto_grid.sh PROGRAM CSV [P...]
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
#   CSV      appended to (header when new)
#   P        rank counts (default 128 256 512 1024)
# Environment: NS (default 16,64,256,1024,2048), DISTS (default "uniform
# range:50 normal power-law:0.99"), COMMS (the fixed backends, default
# every one but vendor; "none" for auto only), AUTOS (default "auto
# auto:agree hint"; "none" for the fixed ones only), AUTO_ITERS (default 2; 6 covers auto's cycles of
# 1, 2 and 3 calls on a direct exchange), VENDOR_MAX_P (default 128:
# SimGrid's own alltoallv posts P-1 messages 4 peers at a time, the
# slowest of all here and the costliest for the host; auto can still
# choose it), HOST_LOG (host seconds and peak memory per run), WARMUP
# (untimed calls before the one timed call of the fixed backends and of
# auto+hint, default 0; 1 where two-level runs or may be chosen: its first
# call makes its node and column communicators, once per communicator).
#
# auto reads the platform's model, bench/simgrid/theta-model.json, whose
# every parameter theta.xml cites; the model is not fitted to these runs.
set -eu
if [ $# -lt 2 ]; then
    sed -n '21,35p' "$0" >&2
    exit 2
fi
program=$1 csv=$2
shift 2
[ $# -gt 0 ] || set -- 128 256 512 1024
here=$(cd "$(dirname "$0")" && pwd)
NS=${NS:-16,64,256,1024,2048}
DISTS=${DISTS:-uniform range:50 normal power-law:0.99}
VENDOR_MAX_P=${VENDOR_MAX_P:-128}
AUTOS=${AUTOS:-auto auto:agree hint}
[ "$AUTOS" = none ] && AUTOS=
export RAVEL_MODEL="$here/theta-model.json"

# run P DIST WHAT ravel-a2a-options...: one simulation, timed on the host.
run() {
    P=$1 dist=$2 what=$3
    shift 3
    timer=
    [ -n "${HOST_LOG:-}" ] &&
        timer="/usr/bin/time -a -o $HOST_LOG -f theta\\t3\\t$P\\t$dist\\t$what\\t$NS\\t%e\\t%M"
    $timer "$here/smpi_run.sh" "$program" theta "$P" 3 --N="$NS" \
        --dist="$dist" --csv="$csv" "$@" >/dev/null
}

for P in "$@"; do
    comms=${COMMS:-spread-out,padded-alltoall,padded-bruck,two-phase-bruck,pairwise,inline-bruck,radix-bruck}
    [ "$comms" != none ] && [ "$P" -le "$VENDOR_MAX_P" ] && comms=vendor,$comms
    for dist in $DISTS; do
        start=$(date +%s)
        [ "$comms" = none ] ||
            run "$P" "$dist" "$comms" --comm="$comms" --iters=1 \
                --warmup="${WARMUP:-0}"
        for a in $AUTOS; do
            case $a in
            auto) run "$P" "$dist" auto --comm=auto \
                      --iters="${AUTO_ITERS:-2}" --warmup=2 ;;
            hint) run "$P" "$dist" auto+hint --comm=auto --hint-stats \
                      --iters=1 --warmup="${WARMUP:-0}" ;;
            *) run "$P" "$dist" "$a" --comm="$a" --iters=1 --warmup=0 ;;
            esac
        done
        echo "# auto_grid.sh: P=$P $dist done in $(($(date +%s) - start)) s" >&2
    done
done
