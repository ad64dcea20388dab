#!/bin/sh
# smpi_tiny.sh SOURCE_DIR BUILD_DIR: builds ravel-a2a for SimGrid SMPI and
# runs it verified on 64 simulated ranks.  Exit 77 (CTest's skip) when
# SimGrid is not installed.
set -eu
src=$1 build=$2
if ! command -v smpicc >/dev/null 2>&1 || ! command -v smpirun >/dev/null 2>&1; then
    echo "SKIP: SimGrid SMPI (smpicc, smpirun; Debian libsimgrid-dev) is not installed"
    exit 77
fi
cmake -S "$src" -B "$build" -DRAVEL_SIMGRID=ON -DRAVEL_WERROR=ON >/dev/null
cmake --build "$build" --target ravel-a2a -j2 >/dev/null
exec sh "$src/bench/simgrid/smpi_run.sh" "$build/bench/a2a/ravel-a2a" flat 64 0.5 \
    --verify --N=200 --iters=1 --warmup=0 --dist=power-law:0.99
