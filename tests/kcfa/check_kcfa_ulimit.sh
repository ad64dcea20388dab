#!/usr/bin/env bash
# ravel-kcfa with its address space capped (ulimit -v), from too small for
# MPI itself to enough: a clean stop saying memory ran out, or the analysis
# of the independent reference interpreter (kcfa_reference_sizes), relation
# for relation; never a signal.
# usage: check_kcfa_ulimit.sh RAVEL_KCFA MPIEXEC KCFA_REFERENCE_SIZES
set -euo pipefail
kcfa=$1 mpiexec=$2 reference=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=../ulimit_expect.sh
source "$(dirname "$0")/../ulimit_expect.sh"

"$reference" 1 --generate=32 >"$scratch/want"
# N = 32, k = 1: 314,805 facts in 830 iterations, some 26 MiB a rank.
# Below about 75 MB MPI itself cannot start (MPICH's own fatal error from
# MPI_Init or MPI_Comm_dup, in words that vary with where it broke), so the
# caps start where ravel's allocations are what fails.
for kib in 80000 100000 200000; do
  capped_run "$kib" kcfa "$mpiexec" -n 2 "$kcfa" --generate=32 --k=1 --quiet \
    --json || continue
  while read -r rel n; do
    got=$(sed -n "s/.*\"$rel\": \([0-9]*\).*/\1/p" "$scratch/out")
    [[ $got == "$n" ]] || die "ulimit -v $kib: $rel has $got tuples, the reference $n"
  done <"$scratch/want"
  echo "ulimit -v $kib kcfa: every relation as the reference's"
done
