#!/bin/sh
# smpi_tiny.sh SOURCE_DIR BUILD_DIR: builds ravel-a2a for SimGrid SMPI and
# runs it verified on 64 simulated ranks (and the backends with sizes inline
# on 48), then once more as a timing run,
# whose payloads (ravel's staging buffers included) share their pages across
# the simulated ranks.  Sharing may change the data and nothing else: the
# timing run must report the same simulated times, messages and bytes as the
# verified run, which kept private memory.  Exit 77 (CTest's skip) when
# SimGrid is not installed.
set -eu
src=$1 build=$2
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "SKIP: SimGrid SMPI (smpicc, smpirun; Debian libsimgrid-dev) is not installed"
    exit 77
fi
cmake -S "$src" -B "$build" -DRAVEL_SIMGRID=ON -DRAVEL_WERROR=ON >/dev/null
cmake --build "$build" --target ravel-a2a -j2 >/dev/null
run() {
    sh "$src/bench/simgrid/smpi_run.sh" "$build/bench/a2a/ravel-a2a" \
        "${PLATFORM:-flat}" "$P" 0.5 \
        --N=200 --iters=1 --warmup=0 --dist=power-law:0.99 "$@"
}
# compare NAME [ravel-a2a options]: the verified run and the timing run.
compare() {
    name=$1
    shift
    verified=$build/smpi_tiny_${name}_verified.csv
    shared=$build/smpi_tiny_${name}_shared.csv
    rm -f "$verified" "$shared"
    run --verify --csv="$verified" "$@"
    run --csv="$shared" "$@" >"$build/smpi_tiny_shared.out"
    cat "$build/smpi_tiny_shared.out"
    grep -q 'payload=smpi-shared' "$build/smpi_tiny_shared.out" || {
        echo "FAIL: the timing run did not share its payloads" >&2
        exit 1
    }
    # Every column but "verified" (the 9th) must agree: exactly, but for
    # the times (median, MAD, min, max: columns 10 to 13; the mean, 22,
    # the last).  SimGrid resolves
    # event dates to 1 ns (smpirun's surf/precision:1e-9), so a call that
    # starts at another date (the verified run checks every call's data
    # between them) may end a few ns apart: pairwise's 63 dependent steps
    # at 127 us moved by 2 ns.  The times must agree to 1e-4 relative.
    cut -d, -f1-8,14-21 "$verified" >"$verified.cut"
    cut -d, -f1-8,14-21 "$shared" >"$shared.cut"
    if ! diff "$verified.cut" "$shared.cut"; then
        echo "FAIL: sharing payload pages changed what was sent" >&2
        exit 1
    fi
    paste -d, "$verified" "$shared" | awk -F, -v n="$(head -1 "$verified" | awk -F, '{ print NF }')" '
        NR > 1 { for (c = 10; c <= 22; c += c == 13 ? 9 : 1) {
                     a = $c; b = $(c + n); d = a > b ? a - b : b - a
                     if (d > 1e-4 * (a > b ? a : b)) {
                         printf "%s column %d: %s vs %s\n", $2, c, a, b; bad = 1 } } }
        END { exit bad }' || {
        echo "FAIL: sharing payload pages changed the timing" >&2
        exit 1
    }
}
P=64
compare all
# A rank count that is neither a power of 2 nor of 4: the headers of the
# backends with sizes inline then differ in length from step to step (at
# 64 ranks they never do), where SimGrid 3.32 dropped the private header of
# a message that did not start at its buffer's first byte, and the timing
# run failed with a size mismatch.
P=48
compare inline --comm=inline-bruck,radix-bruck,radix-bruck:3
# two-level on fake nodes of 10 ranks (four, and one of 8: uneven, so
# relayed once more) of the Theta-like platform's one host of 64 ranks
# (the flat platform's hosts have one rank, which fake nodes cannot
# join): its block sizes travel between the simulated ranks
# in its own arrays, never in shared pages, or the timing run would
# differ (a first version sent them through inline-bruck's staging, and
# the timing run crashed).
PLATFORM=theta RAVEL_NODE_SIZE=10 compare two_level \
    --comm=two-level:spread-out,two-level:inline-bruck --warmup=1
P=64
verified=$build/smpi_tiny_all_verified.csv shared=$build/smpi_tiny_all_shared.csv
echo "shared-payload timing run matches the verified run"

# Charged local work: with RAVEL_SIM_GAMMA, every byte ravel copies costs
# simulated time, so two-phase Bruck (which copies every block it forwards)
# takes longer than in the free run above, and by about what its copies
# cost; vendor (SMPI's own alltoallv, no ravel copy but the engine's own
# block) does not change.
charged=$build/smpi_tiny_charged.csv
rm -f "$charged"
RAVEL_SIM_GAMMA=1e-9 run --csv="$charged" >/dev/null
median() { awk -F, -v b="$2" 'NR > 1 && $2 == b { print $10 }' "$1"; }
free_tpb=$(median "$shared" two-phase-bruck) paid_tpb=$(median "$charged" two-phase-bruck)
free_v=$(median "$shared" vendor) paid_v=$(median "$charged" vendor)
awk -v f="$free_tpb" -v p="$paid_tpb" 'BEGIN { exit !(p > f) }' || {
    echo "FAIL: charged copies did not slow two-phase Bruck ($f -> $p us)" >&2
    exit 1
}
[ "$free_v" = "$paid_v" ] || {
    echo "FAIL: charged copies changed vendor's time ($free_v -> $paid_v us)" >&2
    exit 1
}
echo "charged copies: two-phase Bruck $free_tpb -> $paid_tpb us, vendor unchanged ($free_v us)"
