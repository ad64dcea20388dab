#!/usr/bin/env bash
# ravel-calibrate's command line: --help exits 0 with the usage; a bad option
# or argument exits 2, and an --output it cannot write exits 1 before
# measuring, each with exactly one message naming what is wrong (rank 0 only,
# at 1 and 3 ranks), and without a hang.
# usage: calibrate_cli.sh MPIEXEC RAVEL_CALIBRATE
set -u
mpiexec=$1 calibrate=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ravel_calibrate_cli.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
# shellcheck source=../cli_expect.sh
source "$(dirname "$0")/../cli_expect.sh"

for p in 1 3; do
  run=(timeout 60 "$mpiexec" -n "$p" "$calibrate")
  "${run[@]}" --help >"$scratch/out" 2>"$scratch/err" || die "P=$p --help: exit $?"
  grep -q "^usage: mpiexec -n P ravel-calibrate" "$scratch/out" || die "P=$p --help: $(cat "$scratch/out")"
  grep -q -- "--output=FILE" "$scratch/out" || die "P=$p --help lists no --output"
  [[ $(grep -c "^usage:" "$scratch/out") == 1 ]] || die "P=$p --help printed more than once"

  expect 2 "unknown option '--frobnicate'" ravel-calibrate -- "${run[@]}" --frobnicate
  expect 2 "unexpected argument 'stray'" ravel-calibrate -- "${run[@]}" stray
  expect 1 "/nonexistent/dir/x.json: cannot write there" ravel-calibrate -- \
    "${run[@]}" --quick --output=/nonexistent/dir/x.json
  expect 1 "$scratch: is a directory" ravel-calibrate -- \
    "${run[@]}" --quick --output="$scratch"
done
echo ok
