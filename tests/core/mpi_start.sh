#!/usr/bin/env bash
# mpi_start.sh MPIEXEC PROBE: ravel_mpi_init (core/mpi_start.c) under
# MPICH's launcher.  Under `mpiexec -n 2` every rank is on this node, so
# each must start with HWLOC_COMPONENTS=-linux:pci, and hwloc itself must
# say it left Linux's PCI phase out (its HWLOC_COMPONENTS_VERBOSE report:
# the value is one hwloc understands, not only one we set); a singleton
# likewise, but not a process with a launcher's variable and no counts; a
# value the user set, even empty, must stand untouched.
set -euo pipefail
mpiexec=$1 probe=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "mpi_start.sh: $*" >&2; exit 1; }

# expect WANT command...: every rank printed HWLOC_COMPONENTS=WANT.
expect() {
  local want=$1 ranks; shift
  "$@" >"$scratch/out" 2>"$scratch/err" || die "failed: $* ($(cat "$scratch/err"))"
  ranks=$(grep -c . "$scratch/out")
  [[ $(grep -cxF -- "$(printf 'HWLOC_COMPONENTS=%s' "$want")" \
        <(sed 's/^rank [0-9]* //' "$scratch/out")) == "$ranks" && $ranks -ge 1 ]] ||
    die "$*: want HWLOC_COMPONENTS=$want on every rank, got: $(cat "$scratch/out")"
}

unset HWLOC_COMPONENTS
expect -linux:pci "$mpiexec" -n 2 "$probe"
[[ $(grep -c . "$scratch/out") == 2 ]] || die "not 2 ranks: $(cat "$scratch/out")"
expect -linux:pci "$probe"
# A launcher's variable without the counts (PMIx's, say): ranks may be
# spread over nodes, so the environment is left alone.
PMIX_RANK=0 expect unset "$probe"

# hwloc's own word that the PCI phase was left out (phase 0x8, PCI, of the
# linux component; see hwloc's HWLOC_COMPONENTS_VERBOSE).
HWLOC_COMPONENTS_VERBOSE=1 expect -linux:pci "$mpiexec" -n 2 "$probe"
grep -q "Blacklisting component .linux. phases 0x8" "$scratch/err" ||
  die "hwloc did not report leaving out linux's PCI phase: $(head -c 2000 "$scratch/err")"

HWLOC_COMPONENTS=linux,x86 expect linux,x86 "$mpiexec" -n 2 "$probe"
HWLOC_COMPONENTS= expect "" "$mpiexec" -n 2 "$probe"
echo "mpi_start.sh: ok"
