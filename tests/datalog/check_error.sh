#!/usr/bin/env bash
# check_error.sh BIN PROGRAM.dl FACT_DIR: runs ravel-datalog on 2 ranks on a
# program that must fail, and checks that it exits with status 1, that its
# message holds the text after "// expect: " on the program's first line
# (the file:line:col and what is wrong), and that it wrote no output file.
# A line "// env: VAR=VALUE" sets VAR for the run.
set -euo pipefail
bin=$1 program=$2 facts=$3
die() { echo "check_error: $(basename "$program"): $*" >&2; exit 1; }
expect=$(sed -n '1s|^// expect: ||p' "$program")
[[ -n $expect ]] || die "no '// expect: ' on the first line"
env_set=$(sed -n 's|^// env: \([A-Z_]*=[^ ]*\).*|\1|p' "$program")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/out"
rc=0
(cd "$(dirname "$program")" &&
  env ${env_set:+"$env_set"} mpiexec -n 2 "$bin" --quiet -F "$facts" \
    -D "$scratch/out" "$(basename "$program")") \
  >"$scratch/stdout" 2>"$scratch/stderr" || rc=$?
[[ $rc == 1 ]] || die "exit status $rc, expected 1; stderr: $(cat "$scratch/stderr")"
grep -qF -- "$expect" "$scratch/stderr" ||
  die "expected '$expect' in the message, got: $(cat "$scratch/stderr")"
leftover=$(ls -A "$scratch/out")
[[ -z $leftover ]] || die "left files in the output directory: $leftover"
echo "ok: $(head -1 "$scratch/stderr")"
