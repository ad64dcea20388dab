#!/bin/sh
# sweep.sh: the simulated scale study of ravel-a2a, one CSV row per
# (P, backend, N), appended as soon as it is measured so that an interrupted
# sweep keeps its points.
#
# usage: sweep.sh PROGRAM PLATFORM OS_US CSV [P...]
#   PROGRAM   ravel-a2a built with -DRAVEL_SIMGRID=ON
#   PLATFORM  flat | theta (see flat.xml, theta.xml)
#   OS_US     per-message overhead in microseconds (see smpi_run.sh)
#   CSV       output file (appended; a column "platform" and "os_us" is not
#             in ravel-a2a's CSV, so each platform/overhead gets its own file)
#   P...      rank counts (default 128 256 512 1000 1024 2048 4096)
# Environment: NS (default 16,32,...,2048), DIST (default uniform),
#   ITERS (default 1: the simulation is deterministic, every call of a
#   timing run takes the same simulated time, so repeating it only costs
#   host time), VENDOR_MAX_P (default 128: vendor's MPI_Alltoallv posts all
#   its P^2 requests at once and is very slow to simulate beyond), COMMS
#   (default: the four scale backends), HOST_LOG (a file to which each run's
#   host seconds and peak memory are appended, via /usr/bin/time: platform,
#   os, P, backends, Ns, host seconds, max RSS in KiB, tab-separated).
set -eu
if [ $# -lt 4 ]; then
    sed -n '5,21p' "$0" >&2
    exit 2
fi
program=$1 platform=$2 os_us=$3 csv=$4
shift 4
[ $# -gt 0 ] || set -- 128 256 512 1000 1024 2048 4096
here=$(cd "$(dirname "$0")" && pwd)
NS=${NS:-16,32,64,128,256,512,1024,2048}
DIST=${DIST:-uniform}
ITERS=${ITERS:-1}
VENDOR_MAX_P=${VENDOR_MAX_P:-128}
for P in "$@"; do
    comms=${COMMS:-spread-out,padded-alltoall,padded-bruck,two-phase-bruck}
    [ -z "${COMMS:-}" ] && [ "$P" -le "$VENDOR_MAX_P" ] && comms=vendor,$comms
    start=$(date +%s)
    timer=
    [ -n "${HOST_LOG:-}" ] && timer="/usr/bin/time -a -o $HOST_LOG -f $platform\\t$os_us\\t$P\\t$comms\\t$NS\\t%e\\t%M"
    $timer "$here/smpi_run.sh" "$program" "$platform" "$P" "$os_us" \
        --comm="$comms" --N="$NS" --dist="$DIST" --iters="$ITERS" \
        --warmup=0 --csv="$csv"
    echo "# sweep.sh: $platform os=${os_us}us P=$P done in $(($(date +%s) - start)) s" >&2
done
