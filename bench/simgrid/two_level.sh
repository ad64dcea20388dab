#!/bin/sh
# two_level.sh: two-level against the flat backends on the Theta-like
# platform (64 ranks a node sharing one interface, ravel's copies charged;
# theta.xml cites every parameter), uniform blocks, into one CSV (issue 17).
#
# usage: two_level.sh PROGRAM CSV [P...]
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
#   CSV      appended to (header when new)
#   P        rank counts (default 512 1024)
# Environment: NS (default 16,256,2048), FLAT (the flat backends, default
# spread-out,two-phase-bruck,inline-bruck,radix-bruck:8; "none" to skip),
# TWO_LEVEL (default two-level:spread-out,two-level:two-phase-bruck,
# two-level:inline-bruck; "none" to skip), DIST (default uniform), HOST_LOG
# (host seconds and peak memory per run).
#
# Under SMPI two-level's node steps are what they are on a real node:
# copies into and out of the node's segments, each charged at the
# platform's gamma, and one allreduce and one barrier, simulated as
# messages at its intra-node cost.  (SimGrid's MPI_Win_shared_query gives
# a rank only its own segment, so the node's ranks learn their segments'
# addresses by one allgather when the window is made:
# comm/backends/alltoallv_two_level.c.)  Each two-level run has one
# untimed call first, which makes its node and column communicators and
# its window (once per communicator, like shm's); simulated times are
# deterministic, so one timed call per point.
set -eu
if [ $# -lt 2 ]; then
    sed -n '6,14p' "$0" >&2
    exit 2
fi
program=$1 csv=$2
shift 2
[ $# -gt 0 ] || set -- 512 1024
here=$(cd "$(dirname "$0")" && pwd)
NS=${NS:-16,256,2048}
FLAT=${FLAT:-spread-out,two-phase-bruck,inline-bruck,radix-bruck:8}
TWO_LEVEL=${TWO_LEVEL:-two-level:spread-out,two-level:two-phase-bruck,two-level:inline-bruck}
DIST=${DIST:-uniform}
export RAVEL_MODEL="$here/theta-model.json"

run() {
    P=$1 what=$2
    shift 2
    timer=
    [ -n "${HOST_LOG:-}" ] &&
        timer="/usr/bin/time -a -o $HOST_LOG -f theta\\t3\\t$P\\t$DIST\\t$what\\t$NS\\t%e\\t%M"
    $timer "$here/smpi_run.sh" "$program" theta "$P" 3 --N="$NS" \
        --dist="$DIST" --csv="$csv" "$@" >/dev/null
}

for P in "$@"; do
    start=$(date +%s)
    [ "$FLAT" = none ] || run "$P" "$FLAT" --comm="$FLAT" --iters=1 --warmup=0
    [ "$TWO_LEVEL" = none ] ||
        run "$P" "$TWO_LEVEL" --comm="$TWO_LEVEL" --iters=1 --warmup=1
    echo "# two_level.sh: P=$P done in $(($(date +%s) - start)) s" >&2
done
