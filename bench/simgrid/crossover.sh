#!/bin/sh
# crossover.sh: how the winner moves as a message gets costlier.  Runs the
# four scale backends at one P on one platform for several per-message
# overheads (smpi/os = smpi/or = smpi/ois), one CSV per overhead.
#
# usage: crossover.sh PROGRAM PLATFORM P OUTDIR [OS_US...]
# Environment: NS (default 16,256,2048), DIST (default uniform).
set -eu
if [ $# -lt 4 ]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
program=$1 platform=$2 P=$3 outdir=$4
shift 4
[ $# -gt 0 ] || set -- 0 0.5 2 5 10
here=$(cd "$(dirname "$0")" && pwd)
for os in "$@"; do
    "$here/smpi_run.sh" "$program" "$platform" "$P" "$os" \
        --comm=spread-out,padded-alltoall,padded-bruck,two-phase-bruck \
        --N="${NS:-16,256,2048}" --dist="${DIST:-uniform}" --iters=1 \
        --warmup=0 --csv="$outdir/crossover_${platform}_P${P}_os${os}.csv"
done
