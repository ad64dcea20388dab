#!/usr/bin/env bash
# ravel-a2a's command-line errors: one message naming what is wrong, exit 1.
# usage: cli_errors.sh RAVEL_A2A MPIEXEC
set -euo pipefail
a2a=$1 mpiexec=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=../cli_expect.sh
source "$(dirname "$0")/../cli_expect.sh"

run=("$mpiexec" -n 2 "$a2a" --N=8 --iters=1 --warmup=0)
# An empty name in the list is a typo, not a name to skip.
expect 1 "--comm=vendor,,vendor: backend name 2 is empty" ravel-a2a -- \
  "${run[@]}" --comm=vendor,,vendor
expect 1 "--comm=vendor,: backend name 2 is empty" ravel-a2a -- \
  "${run[@]}" --comm=vendor,
expect 1 "--comm=: backend name 1 is empty" ravel-a2a -- "${run[@]}" --comm=
expect 1 "--api=views is not one of alltoallv, exchange, outbox" ravel-a2a -- \
  "${run[@]}" --api=views
# A directory is named as such, not read as a matrix of 0 rows.
mkdir "$scratch/counts"
expect 1 "--dist=file:$scratch/counts: expected a regular file, found a directory" \
  ravel-a2a -- "${run[@]}" --dist=file:"$scratch/counts"
# A FIFO once blocked every rank in open(), waiting for a writer, for ever;
# timeout only turns such a hang into a failure.
mkfifo "$scratch/counts.fifo"
expect 1 "--dist=file:$scratch/counts.fifo: expected a regular file, found a FIFO" \
  ravel-a2a -- timeout 120 "${run[@]}" --dist=file:"$scratch/counts.fifo"
echo "ravel-a2a errors: every case gave one message and exit status 1"
