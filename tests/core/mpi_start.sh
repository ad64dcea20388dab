#!/usr/bin/env bash
# mpi_start.sh MPIEXEC PROBE: ravel_mpi_init (core/mpi_start.c) under
# MPICH's launcher.  Under `mpiexec -n 2` every rank is on this node, so
# each must start with HWLOC_COMPONENTS=-linux:pci and UCX_TLS=self,sysv,cma,
# and hwloc and UCX themselves must say they took them (hwloc's
# HWLOC_COMPONENTS_VERBOSE and UCX's info log: values they understand, not
# only ones we set); a singleton likewise, but not a process with a
# launcher's variable and no counts; a value the user set, even empty,
# must stand untouched.  The probe also checks that messages small and
# large still arrive whole.
set -euo pipefail
mpiexec=$1 probe=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "mpi_start.sh: $*" >&2; exit 1; }

# expect HWLOC UCX command...: every rank printed HWLOC_COMPONENTS=HWLOC
# UCX_TLS=UCX.  The ranks' lines go to $scratch/out, all else the command
# printed (UCX logs to standard output) to $scratch/err.
expect() {
  local want="HWLOC_COMPONENTS=$1 UCX_TLS=$2" ranks; shift 2
  "$@" >"$scratch/all" 2>"$scratch/err" || die "failed: $* ($(cat "$scratch/err"))"
  grep '^rank ' "$scratch/all" >"$scratch/out" || true
  grep -v '^rank ' "$scratch/all" >>"$scratch/err" || true
  ranks=$(grep -c . "$scratch/out" || true)
  [[ $(grep -cxF -- "$want" <(sed 's/^rank [0-9]* //' "$scratch/out")) == "$ranks" &&
     $ranks -ge 1 ]] || die "$*: want '$want' on every rank, got: $(cat "$scratch/all")"
}

unset HWLOC_COMPONENTS UCX_TLS
expect -linux:pci self,sysv,cma "$mpiexec" -n 2 "$probe"
[[ $(grep -c . "$scratch/out") == 2 ]] || die "not 2 ranks: $(cat "$scratch/out")"
expect -linux:pci self,sysv,cma "$probe"
# A launcher's variable without the counts (PMIx's, say): ranks may be
# spread over nodes, so the environment is left alone.
PMIX_RANK=0 expect unset unset "$probe"

# hwloc's own word that the PCI phase was left out (phase 0x8, PCI, of the
# linux component; see hwloc's HWLOC_COMPONENTS_VERBOSE).
HWLOC_COMPONENTS_VERBOSE=1 expect -linux:pci self,sysv,cma "$mpiexec" -n 2 "$probe"
grep -q "Blacklisting component .linux. phases 0x8" "$scratch/err" ||
  die "hwloc did not report leaving out linux's PCI phase: $(head -c 2000 "$scratch/err")"

# UCX's own word that it read UCX_TLS and knew every transport in it, and
# that a rank's peer is reached by shared memory (its tag lanes), when MPI
# runs on UCX at all (MPICH's ch4:ucx; another MPI logs nothing here).
UCX_LOG_LEVEL=info expect -linux:pci self,sysv,cma "$mpiexec" -n 2 "$probe"
if grep -q "UCX  INFO" "$scratch/err"; then
  grep -q "UCX_\* env variables:.*UCX_TLS=self,sysv,cma" "$scratch/err" ||
    die "UCX did not report reading UCX_TLS: $(head -c 2000 "$scratch/err")"
  ! grep -q "is not available" "$scratch/err" ||
    die "UCX does not know a transport of UCX_TLS: $(grep "is not available" "$scratch/err")"
  grep -q "ep_cfg.*tag(sysv/memory" "$scratch/err" ||
    die "UCX reaches the other rank by no shared memory: $(grep ep_cfg "$scratch/err")"
else
  echo "mpi_start.sh: MPI logged nothing from UCX; UCX's checks skipped"
fi

HWLOC_COMPONENTS=linux,x86 UCX_TLS=sm expect linux,x86 sm "$mpiexec" -n 2 "$probe"
# (An empty UCX_TLS would stand too, but UCX then has no transport and
# MPI_Init fails.)
HWLOC_COMPONENTS= UCX_TLS=self,posix expect "" self,posix "$mpiexec" -n 2 "$probe"
echo "mpi_start.sh: ok"
