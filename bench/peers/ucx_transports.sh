#!/usr/bin/env bash
# ucx_transports.sh: the start-up time of an MPI program that does nothing
# (bench/peers/mpi_empty.c) under each UCX_TLS value given, run by run in
# turn (a drift of the machine hits all alike), with hwloc's PCI phase left
# out in all (as ravel's programs start on one node, core/mpi_start.c);
# medians of the wall seconds.  "default" stands for UCX_TLS unset.  Also
# prints, for each value, the lanes UCX chose to reach the other rank
# (UCX_LOG_LEVEL=info): what the messages would travel by.  Run it on an
# idle machine.
#
# usage: bench/peers/ucx_transports.sh [UCX_TLS...]
#   (default: default self,sysv,cma self,sysv,posix,cma ^tcp)
# Environment: RUNS (default 21), RANKS (default 2).
set -euo pipefail
[[ ${1:-} != -h && ${1:-} != --help ]] || { sed -n '2,14p' "$0"; exit 0; }
[[ $# -gt 0 ]] || set -- default self,sysv,cma self,sysv,posix,cma ^tcp
top=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-21}
ranks=${RANKS:-2}
. "$top/bench/auto/median.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 "$top/bench/peers/mpi_empty.c" -o "$work/empty"
export HWLOC_COMPONENTS=-linux:pci

# run TLS [VAR=VALUE...]: the empty program under UCX_TLS=TLS ("default":
# unset), output to $work/out; a run longer than 10 s is a hang.
run() {
  local tls=$1; shift
  if [[ $tls == default ]]; then
    env -u UCX_TLS "$@" timeout 10 mpiexec -n "$ranks" "$work/empty"
  else
    env UCX_TLS="$tls" "$@" timeout 10 mpiexec -n "$ranks" "$work/empty"
  fi >"$work/out" 2>&1 || { cat "$work/out" >&2; echo "ucx_transports.sh: UCX_TLS=$tls failed" >&2; exit 1; }
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "ucx_tls\trun\twall_s\n" >"$work/runs.tsv"
for ((r = 1; r <= runs; r++)); do
  for tls in "$@"; do
    t0=$EPOCHREALTIME
    run "$tls"
    t1=$EPOCHREALTIME
    printf "%s\t%d\t%s\n" "$tls" "$r" \
      "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')" >>"$work/runs.tsv"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
cat "$work/runs.tsv"

echo
echo "| UCX_TLS | empty MPI program, $ranks ranks, median s | lanes to the other rank (UCX's log) |"
echo "|---|---:|---|"
for tls in "$@"; do
  m=$(awk -F'\t' -v t="$tls" '$1 == t { print $3 }' "$work/runs.tsv" | median)
  run "$tls" UCX_LOG_LEVEL=info
  lanes=$(grep -o 'ep_cfg\[[0-9]*\]: tag([^)]*)' "$work/out" | grep -v self | head -1 | sed 's/.*: //')
  echo "| $tls | $m | ${lanes:-none logged} |"
done
