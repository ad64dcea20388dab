# cli_expect.sh: sourced by the command-line tests of ravel's tools.
# Needs $scratch (a temporary folder) and die().
#
#   expect STATUS PATTERN PROGRAM -- command...
# runs the command and checks its exit status, that stderr contains PATTERN,
# and that PROGRAM reported exactly one "PROGRAM: " line (rank 0 only, not
# once per rank).
: "${scratch:?cli_expect.sh needs $scratch, a temporary folder}"

expect() {
  local status=$1 pattern=$2 program=$3; shift 4
  local rc=0
  "$@" >"$scratch/out" 2>"$scratch/err" || rc=$?
  [[ $rc == "$status" ]] || die "exit $rc, not $status: $*"
  grep -q -- "$pattern" "$scratch/err" || die "no '$pattern' in: $(cat "$scratch/err")"
  [[ $(grep -c "$program: " "$scratch/err") == 1 ]] ||
    die "not exactly one message: $(cat "$scratch/err")"
}
