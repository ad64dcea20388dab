#!/usr/bin/env bash
# check_cli.sh BIN SOURCE_DIR: ravel-datalog's command line: --help, a
# missing or doubled program, directories that are not, -F/-D in Soufflé's
# short forms (separate and joined), --explain, and one error reported once
# (by rank 0) however many ranks run.
set -euo pipefail
bin=$1 src=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "check_cli: $*" >&2; exit 1; }
# expect STATUS PATTERN CMD...: CMD exits with STATUS and prints (stdout and
# stderr together) a line matching PATTERN.
expect() {
  local status=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$scratch/out" 2>&1 || rc=$?
  [[ $rc == "$status" ]] || die "'$*': exit $rc, expected $status: $(cat "$scratch/out")"
  grep -Eq -- "$pattern" "$scratch/out" ||
    die "'$*': no line matching '$pattern' in: $(cat "$scratch/out")"
}
tc=$src/examples/datalog/tc.dl
printf '1\t2\n2\t3\n' >"$scratch/edge.facts"
expect 0 '^usage: ' "$bin" --help
expect 2 'exactly one PROGRAM' mpiexec -n 2 "$bin"
expect 2 'exactly one PROGRAM' mpiexec -n 2 "$bin" "$tc" "$tc"
expect 2 '-F /nonexistent: not a directory' mpiexec -n 2 "$bin" -F /nonexistent "$tc"
expect 2 '-D .*edge.facts: not a directory' mpiexec -n 2 "$bin" -D "$scratch/edge.facts" "$tc"
expect 2 'unknown option' mpiexec -n 2 "$bin" --no-such-option "$tc"
expect 0 '^stratum 0:' "$bin" --explain "$tc"
expect 0 $'^path\t3$' mpiexec -n 2 "$bin" --quiet -F "$scratch" -D "$scratch" "$tc"
[[ $(wc -l <"$scratch/path.csv") == 3 ]] || die "path.csv: not 3 lines"
expect 0 $'^path\t3$' mpiexec -n 2 "$bin" --quiet "-F$scratch" "-D$scratch" "$tc"
# One message for the run, not one per rank.
printf '.decl r(x:number)\nr(x) :- s(x).\n' >"$scratch/bad.dl"
expect 1 "bad.dl:2:9: relation 's' is not declared" mpiexec -n 3 "$bin" "$scratch/bad.dl"
[[ $(grep -c "not declared" "$scratch/out") == 1 ]] || die "the error was reported $(grep -c "not declared" "$scratch/out") times"
echo "ravel-datalog's command line: ok"
