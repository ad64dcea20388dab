#!/usr/bin/env bash
# End-to-end checks of ravel-tc against independent oracles.
#
#   ravel_tc_cases.sh ENV manifest NAME P BACKEND
#       closure size and depth of a shared graph against the published
#       figures in ../shared/datasets/suitesparse/MANIFEST.tsv
#   ravel_tc_cases.sh ENV default H P BACKEND
#       the default binary tree of height H against its closed form
#   ravel_tc_cases.sh ENV output NAME P
#       --output in both modes against a breadth-first search from every
#       vertex (bfs_closure), pair for pair
#   ravel_tc_cases.sh ENV tiny
#       graphs with no edges or fewer edges than ranks against BFS
#   ravel_tc_cases.sh ENV errors
#       bad options and inputs: one message, the right exit status
#   ravel_tc_cases.sh ENV memory
#       --max-memory too small: one message naming the rank, iteration,
#       relation or buffer and size; large enough: the closed-form closure
#   ravel_tc_cases.sh ENV ulimit BACKEND
#       address space capped (ulimit -v) at sizes from too small to enough:
#       a clear "out of memory" and a non-zero exit, or the right closure;
#       never a signal
#   ravel_tc_cases.sh ENV ulimit-reader
#       the same while reading a large edge list: the reader says which
#       file and line it was at
#
# ENV is "RAVEL_TC MPIEXEC DATASETS MANIFEST_TSV BFS_CLOSURE" as one
# colon-separated argument, filled in by CMake.
set -euo pipefail
IFS=: read -r ravel_tc mpiexec datasets project_manifest bfs <<<"$1"
shift
what=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

die() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=../ulimit_expect.sh
source "$(dirname "$0")/../ulimit_expect.sh"

# Flags to read a shared graph: its copy may be 0-based (datasets/manifest.tsv).
read_flags() {
  local base
  base=$(awk -F'\t' -v n="$1" '$1 == n { print $5 }' "$project_manifest")
  [[ -n $base ]] || die "$1 is not in $project_manifest"
  if [[ $base == 0 ]]; then echo "--indices=zero-tolerant"; fi
}

json_field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" <<<"$2"; }

case $what in
manifest)
  name=$1 P=$2 backend=$3
  shift 3 # the rest: more ravel-tc flags
  row=$(awk -F'\t' -v n="$name" '$1 == n' "$datasets/MANIFEST.tsv")
  [[ -n $row ]] || die "$name is not in $datasets/MANIFEST.tsv"
  want_size=$(cut -f4 <<<"$row") want_depth=$(cut -f5 <<<"$row")
  # shellcheck disable=SC2046
  out=$("$mpiexec" -n "$P" "$ravel_tc" --quiet --json --comm="$backend" \
        $(read_flags "$name") "$@" "$datasets/$name.mtx")
  size=$(json_field closure_size "$out")
  depth=$(json_field productive_iterations "$out")
  echo "$name P=$P $backend $*: closure $size (published $want_size)," \
       "iterations with new paths $depth (tc_depth $want_depth)"
  [[ $size == "$want_size" ]] || die "closure size $size != $want_size"
  [[ $depth == "$want_depth" ]] || die "depth $depth != $want_depth"
  ;;
default)
  h=$1 P=$2 backend=$3
  want=$(( (h - 1) * (1 << (h + 1)) + 2 + (1 << h) ))
  out=$("$mpiexec" -n "$P" "$ravel_tc" --quiet --json --comm="$backend" \
        --height="$h")
  size=$(json_field closure_size "$out")
  depth=$(json_field productive_iterations "$out")
  echo "default tree h=$h P=$P $backend: closure $size (closed form $want)," \
       "depth $depth (closed form $h)"
  [[ $size == "$want" ]] || die "closure size $size != $want"
  [[ $depth == "$h" ]] || die "depth $depth != $h"
  ;;
output)
  name=$1 P=$2
  "$bfs" "$datasets/$name.mtx" | LC_ALL=C sort >"$scratch/expected"
  for mode in parallel gather; do
    # shellcheck disable=SC2046
    "$mpiexec" -n "$P" "$ravel_tc" --quiet $(read_flags "$name") \
      --output="$scratch/$mode.tsv" --output-mode="$mode" \
      "$datasets/$name.mtx" >/dev/null
    LC_ALL=C sort "$scratch/$mode.tsv" >"$scratch/$mode.sorted"
    cmp -s "$scratch/expected" "$scratch/$mode.sorted" ||
      die "--output-mode=$mode: pairs differ from BFS" \
          "($(wc -l <"$scratch/$mode.sorted") vs $(wc -l <"$scratch/expected"))"
    echo "$name P=$P --output-mode=$mode: $(wc -l <"$scratch/expected") pairs" \
         "equal to BFS from every vertex"
  done
  ;;
tiny)
  # Graphs with no edges, or fewer edges than ranks: some ranks insert no
  # tuples (a memcpy from NULL once aborted the sanitized build here).
  # Closure sizes against BFS from every vertex, on 3 ranks, with a direct
  # and a Bruck backend (the fault was in the engine, before any exchange).
  P=3
  printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 0\n' \
    >"$scratch/empty.mtx"
  printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n' \
    >"$scratch/two.mtx"
  for g in empty two; do
    want=$("$bfs" "$scratch/$g.mtx" | wc -l)
    for backend in vendor two-phase-bruck; do
      out=$("$mpiexec" -n "$P" "$ravel_tc" --quiet --json --comm="$backend" \
            "$scratch/$g.mtx")
      size=$(json_field closure_size "$out")
      [[ $size == "$want" ]] || die "$g.mtx $backend: closure $size != BFS $want"
      echo "$g.mtx P=$P $backend: closure $size = BFS"
    done
  done
  ;;
errors)
  # shellcheck source=../cli_expect.sh
  source "$(dirname "$0")/../cli_expect.sh"
  printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 9\n' \
    >"$scratch/bad.mtx"
  expect 2 "not a backend" ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --comm=nope
  expect 2 "'radix-bruck:1' is not a backend: '1' is not a whole number >= 2" \
    ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --comm=radix-bruck:1
  expect 2 "--exchange=sideways: expected alltoallv or discover" ravel-tc -- \
    "$mpiexec" -n 2 "$ravel_tc" --exchange=sideways
  expect 2 "unknown option" ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --frobnicate
  expect 2 "'x' is not a whole number" ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --height=x
  expect 2 "expected 'stored' or 'both'" ravel-tc -- \
    "$mpiexec" -n 2 "$ravel_tc" --symmetric=half
  expect 1 "no-such.mtx" ravel-tc -- "$mpiexec" -n 3 "$ravel_tc" "$scratch/no-such.mtx"
  expect 1 "bad.mtx:4: expected a column index in 1..3, found '9'" ravel-tc -- \
    "$mpiexec" -n 3 "$ravel_tc" "$scratch/bad.mtx"
  # A user-facing message names what failed, not the build's source path.
  expect 1 "^ravel-tc: cannot open log '$scratch/no-dir/log.csv': No such" \
    ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --height=2 \
    --log="$scratch/no-dir/log.csv"
  ! grep -q '\.c:[0-9]' "$scratch/err" || die "source path in: $(cat "$scratch/err")"
  # A FIFO once made every rank wait in open() for a writer, for ever;
  # timeout only turns such a hang into a failure.
  mkfifo "$scratch/f.mtx"
  expect 1 "f.mtx: expected a regular file, found a FIFO" ravel-tc -- \
    timeout 120 "$mpiexec" -n 2 "$ravel_tc" "$scratch/f.mtx"
  expect 1 "$scratch: expected a regular file, found a directory" ravel-tc -- \
    "$mpiexec" -n 2 "$ravel_tc" "$scratch"
  help=$("$ravel_tc" --help)  # whole output first: grep -q would cut the pipe
  grep -q -- "--output-mode" <<<"$help" || die "--help lacks options"
  for b in vendor spread-out padded-alltoall padded-bruck two-phase-bruck \
           pairwise inline-bruck radix-bruck shm auto; do
    grep -q -- " $b[,( ]" <<<"$help" || die "--help does not name backend $b"
  done
  echo "ravel-tc errors: every case gave one message and the right status"
  ;;
memory)
  # shellcheck source=../cli_expect.sh
  source "$(dirname "$0")/../cli_expect.sh"
  # Tree of height 14: 229,378 paths, about 2 MiB of tuples a rank at P=3.
  for P in 2 3; do
    expect 1 "^ravel-tc: rank [0-9]: stratum 0 iteration [0-9]*: .*needs .* more .*over the memory limit of 1.00 MiB" \
      ravel-tc -- "$mpiexec" -n "$P" "$ravel_tc" --quiet --height=14 --max-memory=1M
    echo "P=$P --max-memory=1M: $(cat "$scratch/err")"
  done
  expect 1 "^ravel-tc: .*relation .*over the memory limit of 512 KiB" \
    ravel-tc -- "$mpiexec" -n 1 "$ravel_tc" --quiet --height=14 --max-memory=512K
  expect 2 "option --max-memory: '1.5G' is not a size" ravel-tc -- \
    "$mpiexec" -n 2 "$ravel_tc" --height=2 --max-memory=1.5G
  expect 2 "option --max-memory: '-1' is not a size" ravel-tc -- \
    "$mpiexec" -n 2 "$ravel_tc" --height=2 --max-memory=-1
  # With snapshots on, the stop says how to go on, and going on with more
  # memory reaches the closed form.
  h=14 want=$(( (14 - 1) * (1 << 15) + 2 + (1 << 14) ))
  # No --checkpoint-every: the snapshot comes from the iteration that came
  # near the limit, the one before the stop (which one stops depends on
  # how storage grows; the one before it must be the snapshot's).
  expect 1 "stratum 0 iteration [0-9]*: .*over the memory limit of 4.00 MiB .*($scratch/ck/snapshot-[0-9]*, taken after stratum 0 iteration [0-9]*, resumes the run: --resume=$scratch/ck)" \
    ravel-tc -- "$mpiexec" -n 2 "$ravel_tc" --quiet --height=$h --max-memory=4M \
    --checkpoint="$scratch/ck"
  stop=$(sed -n 's/.*stratum 0 iteration \([0-9]*\): .*over the memory limit.*/\1/p' "$scratch/err")
  taken=$(sed -n 's/.*taken after stratum 0 iteration \([0-9]*\),.*/\1/p' "$scratch/err")
  [[ -n $stop && $taken == $((stop - 1)) ]] ||
    die "stopped in iteration $stop, snapshot after $taken: $(cat "$scratch/err")"
  out=$("$mpiexec" -n 3 "$ravel_tc" --quiet --json --height=$h --max-memory=64M \
        --resume="$scratch/ck")
  [[ $(json_field closure_size "$out") == "$want" ]] ||
    die "resumed with more memory: closure $(json_field closure_size "$out") != $want"
  # Room enough: the limit changes nothing.
  h=14 want=$(( (14 - 1) * (1 << 15) + 2 + (1 << 14) ))
  for limit in 64M 1G; do
    out=$("$mpiexec" -n 3 "$ravel_tc" --quiet --json --height=$h --max-memory=$limit)
    size=$(json_field closure_size "$out")
    [[ $size == "$want" ]] || die "--max-memory=$limit: closure $size != $want"
  done
  echo "ravel-tc --max-memory: refusals clear, generous limits harmless"
  ;;
ulimit)
  backend=$1
  # Tree of height 19: 19.4 million paths, 5 s; a rank needs about 230 MiB
  # of address space at P=2.  Below that, something fails to allocate: the
  # engine, a backend's staging or MPI itself.
  h=19 want=$(( (19 - 1) * (1 << 20) + 2 + (1 << 19) ))
  # Three caps: at 110000 it fails in the first iterations (or reading the
  # edges), at 170000 in the packed relation late in the run, and 400000 is
  # room enough: there the run must finish.  (140000 and 200000 added
  # nothing the other three do not check, and 20 s of CI across backends.)
  for kib in 110000 170000 400000; do
    if ! capped_run "$kib" "$backend" "$mpiexec" -n 2 "$ravel_tc" --quiet \
         --json --comm="$backend" --height=$h; then
      [[ $kib != 400000 ]] || die "ulimit -v $kib $backend: the run did not finish"
      continue
    fi
    size=$(json_field closure_size "$(cat "$scratch/out")")
    [[ $size == "$want" ]] || die "ulimit -v $kib: closure $size != $want"
    echo "ulimit -v $kib $backend: closure $size, right"
  done
  ;;
ulimit-reader)
  # 3 million random edges (41 MB of text): under these caps no run can
  # finish (its first iteration alone needs more), so each must stop
  # cleanly; under the smallest, memory runs out in the reader.  (That cap
  # moves with what MPI maps before the first edge: at 100,000 KiB the
  # reader finished once UCX's InfiniBand modules were left out; it failed
  # there at 65,000 to 90,000 KiB, not at 95,000.)
  awk 'BEGIN { srand(3); for (i = 0; i < 3000000; i++)
               print int(rand() * 1000000) + 1, int(rand() * 1000000) + 1 }' \
    >"$scratch/big.el"
  for kib in 80000 120000 150000; do
    ! capped_run "$kib" reader "$mpiexec" -n 2 "$ravel_tc" --quiet --json \
      "$scratch/big.el" || die "ulimit -v $kib: a closure of 3 million random edges fit"
    # At the smallest cap it is the reader that fails: it names file and line.
    [[ $kib != 80000 ]] || grep -q "big.el:[0-9]*: out of memory" "$scratch/err" ||
      die "ulimit -v $kib: the reader's failure names no file and line: $(cat "$scratch/err")"
  done
  ;;
*)
  die "unknown case '$what'"
  ;;
esac
