#!/usr/bin/env bash
# Builds ravel with AddressSanitizer and UBSan in build-asan/ and runs the
# test suite there; any memory error, leak or undefined behaviour fails the
# test it happens in.  Arguments go to ctest (e.g. -R NAME).
#
# Compiler: clang 14, not gcc.  Its UBSan checks more of what ravel's
# buffers and counts can get wrong -- pointer arithmetic on a null pointer
# ("applying zero offset to null pointer", which gcc does not check: a
# sendbuf of NULL with zero counts is legal MPI) -- and it is the compiler
# the libFuzzer targets need anyway (scripts/fuzz.sh), so CI needs one
# sanitizer toolchain, not two.  MPICH itself is not instrumented: its
# memory is outside what ASan checks, and leaks inside it are suppressed
# (tests/sanitize/lsan.supp, each entry with the stack that justified it).
#
# Left out (ctest -LE):
#   install  builds programs with mpicc (gcc, no sanitizer runtime) against
#            the sanitized libravel, which cannot load without that runtime
#            first; it tests packaging, and scripts/test.sh runs it.
#   smpi     configures a separate SimGrid build with smpicc and its own
#            flags: nothing in it would be sanitized.
#   heavy    the transitive closures of the larger shared graphs and of the
#            height-19 default tree (tests/tc/CMakeLists.txt): benchmarks in
#            all but name, 1-3 minutes each under ASan on 2 cores, which
#            would take the pass past its budget.  The smaller graphs run
#            the same engine and backends under ASan.
#   ulimit   runs under ulimit -v, which AddressSanitizer cannot: its shadow
#            memory alone reserves terabytes of address space.
#   long     what the README's command leaves out (tests/CMakeLists.txt):
#            mostly the larger rank counts and graphs of tests whose smaller
#            ones the quick suite runs, the same code paths oversubscribed;
#            under ASan they took the pass, and .ci/run, past its budget
#            (about 12 of .ci/run's 40 minutes).
# and by name (ctest -E), for the same reason (CI was at 35 minutes on the
# AMD EPYC machine of 2026-11-27; this saves about 3):
#   6 ranks and more   oversubscribed 3 to 8 times, and each rank two to
#            three times slower under ASan; the same tests run at 1-5 ranks
#            here (5: three Bruck steps) and at every count without ASan.
#   kcfa.vs_reference  but auto: the backends are checked under ASan by the
#            comm tests; auto here runs the engine on the kCFA programs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
CC=clang-14 CXX=clang++-14 cmake -S . -B build-asan \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAVEL_WERROR=ON -DRAVEL_SANITIZE=ON \
  >/dev/null
cmake --build build-asan -j "$(nproc)"
supp=$PWD/tests/sanitize/lsan.supp
# mpiexec passes the environment on to every rank.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export RAVEL_SANITIZED=1 # tests that cannot run under ASan skip themselves
export LSAN_OPTIONS=suppressions=$supp:print_suppressions=0
cd build-asan
ctest --output-on-failure -j "$(nproc)" -LE '^(install|smpi|heavy|ulimit|long)$' \
  -E '\.np([6-9]|[1-9][0-9])$|^kcfa\.vs_reference\.(vendor|two-phase-bruck|radix-bruck:3)\.' \
  "$@"
