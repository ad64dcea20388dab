#!/usr/bin/env bash
# mpi_floor.sh: the memory any MPI program pays before its first tuple, next
# to ravel-tc's on the smallest shared graph.  Issue 15 asks ravel-tc on 2
# ranks for at most Soufflé's peak memory on every graph, small ones too;
# this prints the floor under that: the peak RSS of each rank of a program
# that only calls MPI_Init, one allreduce and MPI_Finalize
# (bench/peers/mpi_empty.c, built here with mpicc), the same program
# starting MPI as ravel's programs do (ravel_mpi_init, which sets UCX's
# and hwloc's environment for one node; linked to BUILD_DIR's libravel),
# then ravel-tc's ranks on GRAPH, then one process that does nothing
# (`true`, the floor of a single-process engine such as Soufflé).
# Peaks from /usr/bin/time around every rank (%M, KiB).
#
# usage: bench/peers/mpi_floor.sh BUILD_DIR [GRAPH]
#   GRAPH   a graph of ../shared/datasets/suitesparse (GRAPH.mtx;
#           default OL.cedge, the smallest closure)
# Environment: RANKS (default 2).
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '14,17p' "$0" >&2; exit 2; }
build=$1 graph=${2:-OL.cedge}
top=$(cd "$(dirname "$0")/../.." && pwd)
ranks=${RANKS:-2}
tc=$build/apps/tc/ravel-tc
[[ -x $tc ]] || { echo "mpi_floor.sh: no $tc (build it first)" >&2; exit 1; }
. "$top/bench/exchange/graph_args.sh"
graph_args "$top" mpi_floor.sh "$graph" # sets file and flags

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 "$top/bench/peers/mpi_empty.c" -o "$work/empty"
lib=$(find "$build" -maxdepth 2 -name libravel.so -print -quit)
[[ -n $lib ]] || { echo "mpi_floor.sh: no libravel.so in $build" >&2; exit 1; }
mpicc -O2 -DRAVEL_MPI_START -I"$top/core/include" "$top/bench/peers/mpi_empty.c" \
  -o "$work/empty_ravel" -L"$(dirname "$lib")" -lravel -Wl,-rpath,"$(dirname "$lib")"

# Each rank's peak in KiB, one per line, from /usr/bin/time -o per rank.
peaks() {
  local dir=$work/peaks.$1
  shift
  mkdir "$dir"
  mpiexec -n "$ranks" sh -c '/usr/bin/time -f %M -o "$0/$PMI_RANK" "$@"' \
    "$dir" "$@" >"$dir.log" 2>&1 || { cat "$dir.log" >&2; exit 1; }
  cat "$dir"/*
}
summary() {
  awk -v what="$1" '{ s += $1; r = r sep sprintf("%.1f", $1 / 1024); sep = " " }
    END { printf "%-34s ranks %s MiB, all %.1f MiB\n", what, r, s / 1024 }'
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
peaks empty "$work/empty" | summary "MPI_Init + allreduce ($ranks ranks)"
peaks empty_ravel "$work/empty_ravel" | summary "the same, ravel_mpi_init"
peaks tc "$tc" --quiet "${flags[@]}" "$file" | summary "ravel-tc $graph ($ranks ranks)"
/usr/bin/time -f %M -o "$work/true" true
summary "one process doing nothing" <"$work/true"
