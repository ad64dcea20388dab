#!/usr/bin/env bash
# mpi_start.sh MPIEXEC PROBE: ravel_mpi_init (core/mpi_start.c) under
# MPICH's launcher.  Under `mpiexec -n 2` every rank is on this node, so
# each must start with HWLOC_COMPONENTS=-linux:pci, UCX_TLS=self,sysv,cma
# and UCX_SYSV_RX_BUFS_GROW=64, without UCX's InfiniBand module, and hwloc
# and UCX themselves must say they took them (hwloc's
# HWLOC_COMPONENTS_VERBOSE and UCX's info log: values they understand, not
# only ones we set); a singleton likewise, but not a process with a
# launcher's variable and no counts; a value the user set, even empty,
# must stand untouched, and a UCX_TLS of the user's keeps every module.
# The probe also checks that messages small and large, and a thousand
# waiting at once, still arrive whole.
set -euo pipefail
mpiexec=$1 probe=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "mpi_start.sh: $*" >&2; exit 1; }

# Whether UCX's InfiniBand module is mapped where nothing leaves it out:
# "loaded" when the probe's UCX has it installed, else "absent" (an MPI
# without UCX, or a UCX built without it).
ucs=$(ldd "$probe" | awk '$1 ~ /^libucs\.so/ { print $3 }')
ib=absent
[[ -n $ucs ]] && compgen -G "$(dirname "$ucs")/ucx/libuct_ib.so*" >/dev/null && ib=loaded

# expect HWLOC UCX GROW IB command...: every rank printed
# HWLOC_COMPONENTS=HWLOC UCX_TLS=UCX UCX_SYSV_RX_BUFS_GROW=GROW uct_ib=IB.
# The ranks' lines go to $scratch/out, all else the command printed (UCX
# logs to standard output) to $scratch/err.
expect() {
  local want="HWLOC_COMPONENTS=$1 UCX_TLS=$2 UCX_SYSV_RX_BUFS_GROW=$3 uct_ib=$4" ranks
  shift 4
  "$@" >"$scratch/all" 2>"$scratch/err" || die "failed: $* ($(cat "$scratch/err"))"
  grep '^rank ' "$scratch/all" >"$scratch/out" || true
  grep -v '^rank ' "$scratch/all" >>"$scratch/err" || true
  ranks=$(grep -c . "$scratch/out" || true)
  [[ $(grep -cxF -- "$want" <(sed 's/^rank [0-9]* //' "$scratch/out")) == "$ranks" &&
     $ranks -ge 1 ]] || die "$*: want '$want' on every rank, got: $(cat "$scratch/all")"
}

unset HWLOC_COMPONENTS UCX_TLS UCX_SYSV_RX_BUFS_GROW UCX_MODULES
ours=(-linux:pci self,sysv,cma 64 absent)
expect "${ours[@]}" "$mpiexec" -n 2 "$probe"
[[ $(grep -c . "$scratch/out") == 2 ]] || die "not 2 ranks: $(cat "$scratch/out")"
expect "${ours[@]}" "$probe"
# A launcher's variable without the counts (PMIx's, say): ranks may be
# spread over nodes, so the environment is left alone.
PMIX_RANK=0 expect unset unset unset $ib "$probe"

# hwloc's own word that the PCI phase was left out (phase 0x8, PCI, of the
# linux component; see hwloc's HWLOC_COMPONENTS_VERBOSE).
HWLOC_COMPONENTS_VERBOSE=1 expect "${ours[@]}" "$mpiexec" -n 2 "$probe"
grep -q "Blacklisting component .linux. phases 0x8" "$scratch/err" ||
  die "hwloc did not report leaving out linux's PCI phase: $(head -c 2000 "$scratch/err")"

# UCX's own word that it read UCX_TLS and UCX_SYSV_RX_BUFS_GROW, used
# both (it warns of a UCX_ variable it did not use) and knew every transport
# in UCX_TLS, and that a rank's peer is reached by shared memory (its tag
# lanes), when MPI runs on UCX at all (MPICH's ch4:ucx; another MPI logs
# nothing here).
UCX_LOG_LEVEL=info expect "${ours[@]}" "$mpiexec" -n 2 "$probe"
if grep -q "UCX  INFO" "$scratch/err"; then
  grep -q "UCX_\* env variables:.*UCX_SYSV_RX_BUFS_GROW=64.*UCX_TLS=self,sysv,cma" "$scratch/err" ||
    die "UCX did not report reading UCX_TLS and UCX_SYSV_RX_BUFS_GROW: $(head -c 2000 "$scratch/err")"
  ! grep -q "unused env variable" "$scratch/err" ||
    die "UCX left a variable unused: $(grep "unused env variable" "$scratch/err")"
  ! grep -q "is not available" "$scratch/err" ||
    die "UCX does not know a transport of UCX_TLS: $(grep "is not available" "$scratch/err")"
  grep -q "ep_cfg.*tag(sysv/memory" "$scratch/err" ||
    die "UCX reaches the other rank by no shared memory: $(grep ep_cfg "$scratch/err")"
else
  echo "mpi_start.sh: MPI logged nothing from UCX; UCX's checks skipped"
fi

HWLOC_COMPONENTS=linux,x86 UCX_TLS=sm expect linux,x86 sm 64 $ib "$mpiexec" -n 2 "$probe"
# (An empty UCX_TLS would stand too, but UCX then has no transport and
# MPI_Init fails.)
HWLOC_COMPONENTS= UCX_TLS=self,posix UCX_SYSV_RX_BUFS_GROW=512 \
  expect "" self,posix 512 $ib "$mpiexec" -n 2 "$probe"
# The user's UCX_MODULES stands beside the UCX_TLS set here.
UCX_MODULES='*' expect -linux:pci self,sysv,cma 64 $ib "$mpiexec" -n 2 "$probe"
echo "mpi_start.sh: ok"
