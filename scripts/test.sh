#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh: a few dpkg queries when
# nothing is), builds ravel with warnings as errors in build-test/ and runs
# the test suite but the tests labelled `long` (large rank counts of the
# costliest tests: tests/CMakeLists.txt), which .ci/run runs after it.
# RAVEL_TESTS=long runs only those, RAVEL_TESTS=all everything.
# Arguments go to ctest (e.g. -R NAME).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAVEL_WERROR=ON \
      >/dev/null
cmake --build build-test -j "$(nproc)"
cd build-test
case "${RAVEL_TESTS:-quick}" in
  quick) which=(-LE '^long$') ;;
  long) which=(-L '^long$') ;;
  all) which=() ;;
  *) echo "test.sh: RAVEL_TESTS='$RAVEL_TESTS' is not quick, long or all" >&2
     exit 2 ;;
esac
ctest --output-on-failure -j "$(nproc)" "${which[@]}" "$@"
