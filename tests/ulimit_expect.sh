# ulimit_expect.sh: sourced by the tests that run ravel's programs with
# their address space capped (ulimit -v).  Needs $scratch and die().
#
#   capped_run KIB LABEL command...
# runs the command under `ulimit -v KIB`.  Returns 0 when it succeeded
# (its stdout is in $scratch/out for the caller to check against an
# oracle); returns 1 when it failed cleanly: a non-zero exit below 128 and
# a message saying that memory ran out (ravel's "out of memory", or the MPI
# library's own when MPI itself cannot allocate).  A signal (segfault,
# an abort without a word, the OOM killer) fails the test: it is the
# failure these tests exist for.
: "${scratch:?ulimit_expect.sh needs $scratch, a temporary folder}"

# ravel's words, then MPICH's and UCX's when MPI itself cannot allocate.
OOM_WORDS="out of memory|No resources|failed to allocate|Cannot allocate memory"

capped_run() {
  local kib=$1 label=$2; shift 2
  local rc=0
  (ulimit -v "$kib" && "$@") >"$scratch/out" 2>"$scratch/err" || rc=$?
  [[ $rc != 0 ]] || return 0
  ((rc < 128)) || die "ulimit -v $kib $label: exit $rc: $(cat "$scratch/err")"
  ! grep -Eq "Segmentation|Bus error|core dumped|Killed|signal" "$scratch/err" ||
    die "ulimit -v $kib $label: crashed: $(cat "$scratch/err")"
  grep -Eq "$OOM_WORDS" "$scratch/err" ||
    die "ulimit -v $kib $label: exit $rc without saying why: $(cat "$scratch/err")"
  echo "ulimit -v $kib $label: exit $rc: $(grep -m1 -E "$OOM_WORDS" "$scratch/err")"
  return 1
}
