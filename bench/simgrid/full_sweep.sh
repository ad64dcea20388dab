#!/bin/sh
# full_sweep.sh: the committed scale study (bench/results/a2a), cheapest
# points first so that an interrupted run still has the most useful ones.
#
# usage: full_sweep.sh PROGRAM OUTDIR
#   PROGRAM  ravel-a2a built with -DRAVEL_SIMGRID=ON
#   OUTDIR   receives flat_os0.5_uniform.csv, theta_os3_uniform.csv and
#            host.tsv (host seconds and max RSS of every smpirun; run
#            pss_sampler.sh alongside for the real memory)
#
# Host cost decides what is run where.  The Bruck backends send O(log P)
# messages per rank and are simulated at every P.  spread-out and
# padded-alltoall (MPICH's MPI_Alltoall sends P-1 messages per rank beyond
# 256-byte blocks) cost O(P^2) host time per call: about 35 s per point at
# P=512 and 5 minutes at P=1000 on the development machine, so they stop at
# P=1000 (three N) on the flat model and P=512 on the Theta-like one.  (The
# SimGrid build of ravel does not duplicate the communicator: SMPI's
# communicator creation alone took over 20 minutes at P=4096.)
set -eu
if [ $# -ne 2 ]; then
    sed -n '2,18p' "$0" >&2
    exit 2
fi
program=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export HOST_LOG="$out/host.tsv"
flat="$out/flat_os0.5_uniform.csv" theta="$out/theta_os3_uniform.csv"
all=16,32,64,128,256,512,1024,2048
three=16,256,2048
bruck=padded-bruck,two-phase-bruck
direct=spread-out,padded-alltoall
sweep() { "$here/sweep.sh" "$program" "$@"; }

NS=$all sweep flat 0.5 "$flat" 128 256 512
NS=$all sweep theta 3 "$theta" 128 256
NS=$all COMMS=$bruck sweep flat 0.5 "$flat" 1000 1024
NS=$three COMMS=$direct sweep flat 0.5 "$flat" 1000
NS=$three sweep theta 3 "$theta" 512
NS=$all COMMS=$bruck sweep flat 0.5 "$flat" 2048
NS=$three COMMS=$bruck sweep flat 0.5 "$flat" 4096
NS=$three COMMS=$bruck sweep theta 3 "$theta" 1024 4096
