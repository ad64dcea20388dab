#!/bin/sh
# family_study.sh: issue 14's simulated comparisons of the newer backends
# with the ones they refine, on the Theta-like platform with ravel's copies
# charged (smpi_run.sh), one CSV per comparison in OUT_DIR:
#   inline_vs_two_phase.csv  inline-bruck and two-phase-bruck at N <= 256
#                            (P = 512 and 1024; four distributions)
#   pairwise_vs_spread.csv   pairwise and spread-out at N >= 2048
#                            (P = 128 and 256; uniform blocks)
#   radix.csv                radix-bruck at r = 2, 4, 8, 16, 32 on the
#                            paper's grid (P = 128, 256, 512; N = 16 to
#                            2048; uniform and power-law blocks)
#   padded.csv               the padding backends with each uniform
#                            exchange: padded-alltoall (MPI_Alltoall),
#                            padded-bruck:basic (rotations), padded-bruck
#                            (none); P = 128, 256, 512, N = 16 to 256
# Then bench/plots/family_table.sh OUT_DIR prints the ratios.  STUDIES
# (default "inline pairwise radix padded") picks some of them.
#
# usage: family_study.sh PROGRAM OUT_DIR
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
# Environment: HOST_LOG (host seconds and peak memory per run), and
# INLINE_P, PAIRWISE_P, RADIX_P, PADDED_P to change the rank counts.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,22p' "$0" >&2
    exit 2
fi
program=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
# The model column: the platform's own parameters (theta-model.json).
RAVEL_MODEL=${RAVEL_MODEL:-$here/theta-model.json}
export RAVEL_MODEL
mkdir -p "$out"
studies=${STUDIES:-inline pairwise radix padded}
case " $studies " in *" inline "*)
for dist in uniform range:50 normal power-law:0.99; do
    COMMS=two-phase-bruck,inline-bruck NS=16,64,256 DIST=$dist \
        sh "$here/sweep.sh" "$program" theta 3 "$out/inline_vs_two_phase.csv" \
        ${INLINE_P:-512 1024}
done ;;
esac
case " $studies " in *" pairwise "*)
COMMS=spread-out,pairwise NS=2048,4096,16384 DIST=uniform \
    sh "$here/sweep.sh" "$program" theta 3 "$out/pairwise_vs_spread.csv" \
    ${PAIRWISE_P:-128 256} ;;
esac
case " $studies " in *" radix "*)
for dist in uniform power-law:0.99; do
    COMMS=radix-bruck:2,radix-bruck:4,radix-bruck:8,radix-bruck:16,radix-bruck:32 \
        NS=16,64,256,1024,2048 DIST=$dist \
        sh "$here/sweep.sh" "$program" theta 3 "$out/radix.csv" \
        ${RADIX_P:-128 256 512}
done ;;
esac
case " $studies " in *" padded "*)
COMMS=padded-alltoall,padded-bruck:basic,padded-bruck NS=16,64,256 \
    DIST=uniform sh "$here/sweep.sh" "$program" theta 3 "$out/padded.csv" \
    ${PADDED_P:-128 256 512} ;;
esac
