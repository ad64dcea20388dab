#!/usr/bin/env bash
# Builds ravel with warnings as errors in build-test/ and runs the whole test
# suite.  Assumes the packages of scripts/install-deps.sh are installed.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAVEL_WERROR=ON \
      >/dev/null
cmake --build build-test -j "$(nproc)"
cd build-test
ctest --output-on-failure -j "$(nproc)" "$@"
