#!/usr/bin/env bash
# Builds the libFuzzer targets (clang 14, with ASan and UBSan) in build-fuzz/
# and runs each for FUZZ_SECONDS (default 45) from its seed corpus,
# tests/fuzz/corpus/<target>/ (read, never written: new inputs go to a
# scratch folder).  A crash fails the script and leaves the input in
# build-fuzz/crashes/<target>/: add it to tests/fuzz/regressions/<target>/,
# where ctest replays it in every build (tests/fuzz/CMakeLists.txt), then fix
# the bug.  usage: scripts/fuzz.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(mtx_reader edge_reader kcfa_parser datalog_parser); fi
seconds=${FUZZ_SECONDS:-45}
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAVEL_WERROR=ON -DRAVEL_FUZZ=ON \
  >/dev/null
cmake --build build-fuzz -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# MPICH's own allocations at MPI_Init outlive it: see test-sanitize.sh.
export LSAN_OPTIONS=suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# One target per core at a time: each libFuzzer run is single-threaded, so
# on 2 cores the four targets take 90 s of wall time, not 180,
# with the same number of executions each.
fuzz_one() {
  local t=$1
  mkdir -p "$scratch/$t" "build-fuzz/crashes/$t"
  # -seed=1: the same run each time on the same code.
  if ! build-fuzz/tests/fuzz/fuzz_"$t" -max_total_time="$seconds" -seed=1 \
       -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
       -dict="tests/fuzz/$t.dict" \
       -artifact_prefix="build-fuzz/crashes/$t/" -print_final_stats=1 \
       "$scratch/$t" "tests/fuzz/corpus/$t" 2>"$scratch/$t.log"; then
    touch "$scratch/$t.failed"
  fi
}
jobs_at_once=$(nproc)
running=0
for t in "${targets[@]}"; do
  echo "fuzz $t for ${seconds}s"
  fuzz_one "$t" &
  running=$((running + 1))
  if ((running >= jobs_at_once)); then wait -n || true; running=$((running - 1)); fi
done
wait
status=0
for t in "${targets[@]}"; do
  if [[ -e "$scratch/$t.failed" ]]; then
    tail -n 60 "$scratch/$t.log" >&2
    echo "fuzz $t: FAILED, input(s) in build-fuzz/crashes/$t/" >&2
    status=1
  else
    echo -n "fuzz $t: "
    grep -E "stat::number_of_executed_units|stat::new_units_added" \
      "$scratch/$t.log" | tr '\n' ' '
    echo
  fi
done
exit $status
