#!/usr/bin/env bash
# launch_floor.sh: the wall time any MPI program pays before its first
# tuple, beside ravel-tc's and compiled Soufflé's whole runs on small
# graphs.  Issue 15 asks ravel-tc on 2 ranks for at most half of Soufflé's
# time on every graph; on the smallest closures Soufflé's whole run is a
# few hundredths of a second, and this prints what lies under the MPI
# side's: `mpiexec -n RANKS true` (the launcher alone), an MPI program that
# only initialises, reduces once and finalises (bench/peers/mpi_empty.c),
# the same program started as ravel's programs start MPI on one node
# (HWLOC_COMPONENTS=-linux:pci UCX_TLS=self,sysv,cma, core/mpi_start.c),
# then ravel-tc and Soufflé (-j RANKS) on each GRAPH.  RUNS rounds, the five
# one after the other in each (a drift of the machine hits all alike);
# medians of the wall seconds (bash's EPOCHREALTIME around each command:
# /usr/bin/time's hundredths are too coarse here).  Both closures must
# have the published size, or the script stops.  Run it on an idle
# machine.
#
# usage: bench/peers/launch_floor.sh BUILD_DIR [GRAPH...]
#   GRAPH   a graph of ../shared/datasets/suitesparse (default: the four
#           smallest closures, OL.cedge wing TG.cedge cal.cedge)
# Environment: RUNS (default 5), RANKS (default 2), SOUFFLE (default
# /opt/souffle/bin/souffle: build it once with ../shared/peers/souffle/build.sh).
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '18,22p' "$0" >&2; exit 2; }
build=$1
shift
[[ $# -gt 0 ]] || set -- OL.cedge wing TG.cedge cal.cedge
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared
souffle=${SOUFFLE:-/opt/souffle/bin/souffle}
runs=${RUNS:-5}
ranks=${RANKS:-2}
tc=$build/apps/tc/ravel-tc
manifest=$shared/datasets/suitesparse/MANIFEST.tsv
. "$top/bench/peers/require.sh"
. "$top/bench/peers/souffle_tc.sh"
. "$top/bench/exchange/graph_args.sh"
. "$top/bench/auto/median.sh"
peers_require launch_floor.sh "$souffle" "$shared" "$tc"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 "$top/bench/peers/mpi_empty.c" -o "$work/empty"
souffle_tc_compile "$souffle" "$shared" "$work/souffle_tc"

# Runs the command, its output to $work/out; prints its wall seconds.
timed() {
  local t0=$EPOCHREALTIME
  "$@" >"$work/out" 2>"$work/err" </dev/null ||
    { cat "$work/err" >&2; exit 1; }
  local t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "graph,what,run,wall_s" >"$work/runs.csv"
for graph in "$@"; do
  graph_args "$top" launch_floor.sh "$graph" # sets file and flags
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$manifest")
  rm -rf "$work/facts" "$work/souffle_out"
  mkdir -p "$work/souffle_out"
  souffle_tc_facts "$file" "$work/facts"
  for ((r = 1; r <= runs; r++)); do
    echo "$graph,launcher,$r,$(timed mpiexec -n "$ranks" true)" >>"$work/runs.csv"
    echo "$graph,mpi,$r,$(timed mpiexec -n "$ranks" "$work/empty")" >>"$work/runs.csv"
    echo "$graph,mpi_one_node,$r,$(HWLOC_COMPONENTS=-linux:pci UCX_TLS=self,sysv,cma timed mpiexec -n "$ranks" "$work/empty")" >>"$work/runs.csv"
    s=$(timed mpiexec -n "$ranks" "$tc" --quiet --json "${flags[@]}" "$file")
    paths=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' "$work/out")
    [[ $paths == "$published" ]] || {
      echo "launch_floor.sh: ravel-tc's closure of $graph has '$paths' paths, published $published" >&2
      exit 1
    }
    echo "$graph,ravel,$r,$s" >>"$work/runs.csv"
    s=$(timed "$work/souffle_tc" -j "$ranks" -F "$work/facts" -D "$work/souffle_out")
    paths=$(awk '$1 == "path" { print $2 }' "$work/out")
    [[ $paths == "$published" ]] || {
      echo "launch_floor.sh: Soufflé's closure of $graph has '$paths' paths, published $published" >&2
      exit 1
    }
    echo "$graph,souffle,$r,$s" >>"$work/runs.csv"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$work/runs.csv"

echo
echo "| graph | paths | mpiexec -n $ranks true s | MPI program s | MPI program, started as ravel's s | ravel-tc $ranks ranks s | Soufflé -j$ranks s | half of Soufflé's s | MPI program, started as ravel's / half of Soufflé's | ravel-tc / Soufflé |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for graph in "$@"; do
  published=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$manifest")
  m() { awk -F, -v g="$graph" -v w="$1" '$1 == g && $2 == w { print $4 }' "$work/runs.csv" | median; }
  l=$(m launcher) e=$(m mpi) n=$(m mpi_one_node) t=$(m ravel) s=$(m souffle)
  awk -v g="$graph" -v p="$published" -v l="$l" -v e="$e" -v n="$n" -v t="$t" -v s="$s" \
    'BEGIN { printf "| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.1f | %.2f |\n",
             g, p, l, e, n, t, s, s / 2, n / (s / 2), t / s }'
done
