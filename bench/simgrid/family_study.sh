#!/bin/sh
# family_study.sh: issue 14's simulated comparisons of the newer backends
# with the ones they refine, on the Theta-like platform with ravel's copies
# charged (smpi_run.sh), one CSV per comparison in OUT_DIR:
#   inline_vs_two_phase.csv  inline-bruck and two-phase-bruck at N <= 256
#                            (P = 512 and 1024; four distributions)
#   pairwise_vs_spread.csv   pairwise and spread-out at N >= 2048
#                            (P = 128 and 256; uniform blocks)
# Then bench/plots/family_table.sh OUT_DIR prints the ratios.
#
# usage: family_study.sh PROGRAM OUT_DIR
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
# Environment: HOST_LOG (host seconds and peak memory per run), and
# INLINE_P, PAIRWISE_P to change the rank counts.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,16p' "$0" >&2
    exit 2
fi
program=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for dist in uniform range:50 normal power-law:0.99; do
    COMMS=two-phase-bruck,inline-bruck NS=16,64,256 DIST=$dist \
        sh "$here/sweep.sh" "$program" theta 3 "$out/inline_vs_two_phase.csv" \
        ${INLINE_P:-512 1024}
done
COMMS=spread-out,pairwise NS=2048,4096,16384 DIST=uniform \
    sh "$here/sweep.sh" "$program" theta 3 "$out/pairwise_vs_spread.csv" \
    ${PAIRWISE_P:-128 256}
