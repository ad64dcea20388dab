#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh: a few dpkg queries when
# nothing is), builds ravel with warnings as errors in build-test/ and runs
# the whole test suite.  Arguments go to ctest (e.g. -R NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAVEL_WERROR=ON \
      >/dev/null
cmake --build build-test -j "$(nproc)"
cd build-test
ctest --output-on-failure -j "$(nproc)" "$@"
