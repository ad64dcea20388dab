#!/usr/bin/env bash
# Installs ravel from BUILD_DIR into a scratch prefix outside the build tree,
# moves the prefix (installed programs must find libravel relative to
# themselves), then, in a clean environment (env -i: no LD_LIBRARY_PATH, no
# PKG_CONFIG_PATH from the caller):
#  - runs every installed program with --help, and each known one on a tiny
#    real input;
#  - builds the demo outside the tree twice -- with mpicc and pkg-config, and
#    with CMake's find_package(ravel) -- and runs both on 3 ranks (each checks
#    every backend, called by name, against vendor).
# LD_LIBRARY_PATH is never set: it would hide a missing RPATH.
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build" --prefix "$scratch/staged" >/dev/null
mv "$scratch/staged" "$scratch/prefix"
prefix=$scratch/prefix
test -f "$prefix/include/ravel/comm.h"
libdir=$(dirname "$(find "$prefix" -name 'ravel.pc' | head -n1)")/..
libdir=$(cd "$libdir" && pwd)

# clean CMD...: CMD with only PATH and HOME set.
clean() {
  env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$scratch" "$@"
}

# expect_out PATTERN CMD...: runs CMD cleanly, fails unless it exits 0 and
# its standard output matches PATTERN.
expect_out() {
  local pattern=$1 out
  shift
  echo "+ $*"
  if ! out=$(clean "$@" 2>"$scratch/stderr"); then
    echo "FAIL: '$*' exited non-zero:" >&2
    cat "$scratch/stderr" >&2
    exit 1
  fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: '$*' printed no line matching '$pattern':" >&2
    printf '%s\n' "$out" >&2
    exit 1
  fi
}

programs=("$prefix"/bin/*)
test -x "${programs[0]}"
for p in "${programs[@]}"; do
  expect_out '^usage' "$p" --help
done

bin=$prefix/bin
# Height 3: 15 vertices, 8 leaf loops; each leaf reaches itself (8), the 4
# nodes above them 2 leaves each (8), the next 2 nodes 6 each (12), the
# root 14: 42 paths.
expect_out '^closure size +42$' mpiexec -n 2 "$bin/ravel-tc" --height=3 --quiet
expect_out 'edges' mpiexec -n 2 "$bin/ravel-tc-check" --tree=3
expect_out '^Time +[0-9]+$' mpiexec -n 2 "$bin/ravel-kcfa" --k=1 --generate=1 --quiet
# A chain of 3 edges: 3 + 2 + 1 paths.
mkdir "$scratch/dl"
printf '1\t2\n2\t3\n3\t4\n' >"$scratch/dl/edge.facts"
expect_out $'^path\t6$' mpiexec -n 2 "$bin/ravel-datalog" --quiet \
           -F "$scratch/dl" -D "$scratch/dl" "$src/examples/datalog/tc.dl"
expect_out '^vendor +16 ' mpiexec -n 2 "$bin/ravel-a2a" --N=16 --iters=1 \
           --warmup=0 --verify
expect_out '' mpiexec -n 2 "$bin/alltoallv_demo" --iters=1 --max=5

# pkg-config's prefix is the configured one; point it at the scratch prefix.
flags=$(clean PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config \
        --define-variable=prefix="$prefix" --define-variable=libdir="$libdir" \
        --define-variable=includedir="$prefix/include" --cflags --libs ravel)
echo "+ mpicc alltoallv_demo.c $flags"
clean mpicc -Wall -Wextra -Werror "$src/examples/alltoallv_demo.c" $flags \
      -o "$scratch/demo_pkgconfig"
expect_out '' mpiexec -n 3 "$scratch/demo_pkgconfig" --iters=3 --max=50

clean cmake -S "$src/tests/install/consumer" -B "$scratch/consumer" \
      -DCMAKE_PREFIX_PATH="$prefix" \
      -DDEMO_SOURCE="$src/examples/alltoallv_demo.c" >/dev/null
clean cmake --build "$scratch/consumer" >/dev/null
expect_out '' mpiexec -n 3 "$scratch/consumer/consumer" --iters=3 --max=50
echo "install check: every installed program ran, and the pkg-config and" \
     "find_package(ravel) builds both ran, without LD_LIBRARY_PATH"
