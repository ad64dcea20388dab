#!/usr/bin/env bash
# Installs ravel from BUILD_DIR into a scratch prefix, then builds the demo
# outside the tree twice -- with mpicc and pkg-config, and with CMake's
# find_package(ravel) -- and runs both on 3 ranks (each checks every backend,
# called by name, against vendor).
# usage: check_install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/ravel/comm.h"
libdir=$(dirname "$(find "$prefix" -name 'ravel.pc' | head -n1)")/..
export PKG_CONFIG_PATH=$libdir/pkgconfig
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# pkg-config's prefix is the configured one; point it at the scratch prefix.
flags=$(pkg-config --define-variable=prefix="$prefix" \
        --define-variable=libdir="$libdir" \
        --define-variable=includedir="$prefix/include" --cflags --libs ravel)
echo "+ mpicc alltoallv_demo.c $flags"
mpicc -Wall -Wextra -Werror "$src/examples/alltoallv_demo.c" $flags \
      -o "$scratch/demo_pkgconfig"
mpiexec -n 3 "$scratch/demo_pkgconfig" --iters=3 --max=50

cmake -S "$src/tests/install/consumer" -B "$scratch/consumer" \
      -DCMAKE_PREFIX_PATH="$prefix" \
      -DDEMO_SOURCE="$src/examples/alltoallv_demo.c" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
mpiexec -n 3 "$scratch/consumer/consumer" --iters=3 --max=50
echo "install check: pkg-config and find_package(ravel) builds both ran"
