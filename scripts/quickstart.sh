#!/usr/bin/env bash
# Installs what is missing, builds ravel (optimised) in build/, and runs its
# main job, transitive closure, on its embedded default graph.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
ranks=${RAVEL_RANKS:-2}
echo "+ mpiexec -n $ranks build/apps/tc/ravel-tc"
mpiexec -n "$ranks" build/apps/tc/ravel-tc
