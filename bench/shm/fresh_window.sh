#!/usr/bin/env bash
# fresh_window.sh [RANKS]: what a fresh shared window costs on this
# machine (bench/shm/fresh_window.c, built here with mpicc), RANKS ranks
# (default 2) on one node.  Idle machine only: the load is printed before.
set -euo pipefail
ranks=${1:-2}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 "$top/bench/shm/fresh_window.c" -o "$work/fresh_window"
echo "# $ranks ranks, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
mpiexec -n "$ranks" "$work/fresh_window"
