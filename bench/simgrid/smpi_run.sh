#!/bin/sh
# smpi_run.sh: one ravel-a2a run under SimGrid SMPI, with the settings that
# make simulated times reproducible and fit 4096 ranks in memory.
#
# usage: smpi_run.sh PROGRAM PLATFORM(flat|theta) P OS_US [ravel-a2a options]
#
#   PROGRAM   ravel-a2a built with -DRAVEL_SIMGRID=ON
#   PLATFORM  flat: one rank per host (flat.xml); theta: 64 ranks per node
#             sharing its NIC (theta.xml)
#   OS_US     per-message software overhead in microseconds: smpi/os and
#             smpi/or (blocking send/receive) are OS_US, smpi/ois (the
#             sender's cost of MPI_Isend) is OS_US too -- every backend posts
#             nonblocking sends, so ois is the one that matters for them.
#
# Settings, and what they leave out:
#   smpi/simulate-computation:no   the CPU time between MPI calls (the
#       benchmark's own loops, ravel's bookkeeping) is not simulated: runs
#       are reproducible, the host machine's speed and load do not enter.
#   RAVEL_SIM_GAMMA (seconds per byte)   ravel charges every byte it copies
#       (packing, staging, forwarding, its own block: comm/accounting.c)
#       to the simulated clock with smpi_execute, deterministically.  The
#       platform sets it: theta 3.64e-10 (theta.xml says where it comes
#       from); flat 0, free, unless the environment sets RAVEL_SIM_GAMMA.
#       Copies inside SMPI's own collectives (vendor, MPI_Alltoall of
#       padded-alltoall) stay free: SMPI does not charge them.
#   smpi/bw-factor:0:1, smpi/lat-factor:0:1   SMPI's default network model
#       multiplies latency by 1.6-11.6 and bandwidth by 0.34-1.09 depending
#       on message size (factors calibrated on one Ethernet cluster); set to
#       1 so that the platform files' latency and bandwidth are what a
#       message sees.
#   smpi/coll-selector:mpich        MPI collectives (the barrier, the
#       max-reductions, MPI_Alltoall in padded-alltoall, MPI_Alltoallv of
#       vendor) use MPICH's algorithm choices, as Cray MPICH on Theta does.
#   shared payloads (timing runs only, i.e. without --verify) ravel-a2a
#       allocates its payloads, and asks ravel to allocate the backends'
#       staging buffers (ravel_comm_share_payloads), with SMPI_SHARED_MALLOC:
#       all simulated ranks share their pages (smpi/shared-malloc: global,
#       SMPI's default), so memory does not grow with P^2.  Data is garbage
#       then; a --verify run keeps private memory.  Counts, offsets and
#       schedules are always private.  (SMPI's smpi/auto-shared-malloc-thresh,
#       sharing every malloc above a size, is not used: at P=4096 a rank's
#       arrays of P counts reach 64 KiB, and sharing them mixed the ranks'
#       counts.)
#   vm.max_map_count  SMPI maps every rank's copy of the program (about 7
#       memory maps per simulated rank) and every MiB of shared payload
#       separately.  A timing run's live payload is about 4*P*N bytes per
#       rank: at P=4096, N=2048 the runs peaked at 164,000 maps, 40 per
#       rank, where Linux's default limit (65530) made SMPI abort with
#       "Could not map folded virtual memory".  This script warns when the
#       estimate P*(8 + 4*P*N/2^20), N the largest --N (default 2048),
#       exceeds the limit (sysctl -w vm.max_map_count=... raises it).
#   maxmin/precision:1e-3   SimGrid's max-min bandwidth solver treats a
#       constraint's leftover capacity below this as zero (default 1e-5,
#       in bytes/s against link capacities of 1e10).  At P=1024 a radix-32
#       Bruck exchange left 1.09e-5 of
#       rounding residue on a saturated link, which SimGrid then refused
#       to saturate again: "Cannot saturate more a constraint that has no
#       active element", an abort after hours of host time.  1e-3 B/s is
#       still 13 orders of magnitude under any capacity here; at P=128
#       (uniform N=16,1024,2048, spread-out, inline-bruck, radix-bruck:16)
#       every simulated time is the same to the nanosecond with either.
#   RAVEL_WAIT=block                ravel waits in MPI_Waitall.  Its default
#       (auto) sees 64 ranks on a 2-core host and polls MPI_Testall, whose
#       every call SMPI charges simulated time: times become meaningless.
# Pausing a run (kill -STOP, to measure something else on this machine)
# leaves its simulated times as they are, but not during its first minute
# or so at large P: SMPI then copies the program once per rank (sendfile
# into $TMPDIR), and a signal in the middle of a copy aborts the run with
# "Error while copying ...: only N bytes copied" (seen at P = 4096).
set -eu
if [ $# -lt 4 ]; then
    sed -n '4,14p' "$0" >&2
    exit 2
fi
program=$1 platform=$2 P=$3 os_us=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
hostfile=$(mktemp "${TMPDIR:-/tmp}/ravel-smpi-hosts.XXXXXX")
trap 'rm -f "$hostfile"' EXIT
case $platform in
flat)  gamma=${RAVEL_SIM_GAMMA:-0}; i=0; while [ $i -lt "$P" ]; do echo "node-$i"; i=$((i + 1)); done ;;
theta) gamma=${RAVEL_SIM_GAMMA:-3.64e-10}; i=0; while [ $((i * 64)) -lt "$P" ]; do echo "node-$i:64"; i=$((i + 1)); done ;;
*) echo "smpi_run.sh: platform '$platform' is not flat or theta" >&2; exit 2 ;;
esac >"$hostfile"
nmax=0 shares=yes
for arg in "$@"; do
    case $arg in
    --verify) shares=no ;;
    --N=*) for n in $(echo "${arg#--N=}" | tr ',' ' '); do
               case $n in *[!0-9]*) ;; *) [ "$n" -gt "$nmax" ] && nmax=$n ;; esac
           done ;;
    esac
done
[ "$nmax" -gt 0 ] || nmax=2048
[ $shares = yes ] || nmax=0
need=$((P * (8 + 4 * P * nmax / 1048576)))
limit=$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)
if [ "$limit" -gt 0 ] && [ "$limit" -lt "$need" ]; then
    echo "smpi_run.sh: warning: P=$P may need about $need memory maps but" \
        "vm.max_map_count is $limit; if SMPI aborts with 'Could not map" \
        "folded virtual memory', raise it (sysctl -w" \
        "vm.max_map_count=$((2 * need)))" >&2
fi
os=$(awk -v u="$os_us" 'BEGIN { printf "%.9g", u * 1e-6 }')
RAVEL_WAIT=block RAVEL_SIM_GAMMA=$gamma exec smpirun -np "$P" -platform "$here/$platform.xml" \
    -hostfile "$hostfile" \
    --cfg=smpi/simulate-computation:no \
    --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
    --cfg=smpi/host-speed:1Gf --cfg=smpi/cpu-threshold:0 \
    --cfg=smpi/coll-selector:mpich \
    --cfg=smpi/os:0:"$os" --cfg=smpi/or:0:"$os" --cfg=smpi/ois:0:"$os" \
    --cfg=contexts/stack-size:256 \
    --cfg=maxmin/precision:1e-3 \
    --log=root.thres:critical \
    "$program" "$@"
