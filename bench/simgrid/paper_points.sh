#!/bin/sh
# paper_points.sh: the points Fan et al. (HPDC'22) report on Theta, re-run
# on the Theta-like platform with ravel's copies charged (RAVEL_SIM_GAMMA,
# set by smpi_run.sh) and, for comparison, with copies free.
#
# usage: paper_points.sh PROGRAM CSV_CHARGED CSV_FREE
set -eu
[ $# -eq 3 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
program=$1 charged=$2 free=$3
here=$(cd "$(dirname "$0")" && pwd)
comms=spread-out,padded-alltoall,padded-bruck,two-phase-bruck,auto
point() { # P N
    for mode in charged free; do
        csv=$charged gamma=
        [ $mode = free ] && csv=$free gamma=0
        RAVEL_SIM_GAMMA=${gamma:-3.64e-10} RAVEL_MODEL="$here/theta-model.json" \
            "$here/smpi_run.sh" "$program" theta "$1" 3 --comm="$comms" \
            --N="$2" --iters=1 --warmup=0 --csv="$csv" >/dev/null
        echo "# paper_points.sh: P=$1 N=$2 $mode done" >&2
    done
}
point 512 256
point 1024 16
