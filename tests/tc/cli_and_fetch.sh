#!/usr/bin/env bash
# The command-line faces of apps/tc's input side, run as CTest does:
#  - ravel-tc-check at P = 1 and 3: a valid file passes; a missing file, a
#    bad index and a truncated gzip stream each exit non-zero with exactly
#    one message naming the file and line, without a crash or a hang;
#  - datasets/fetch.sh: bash -n and shellcheck (when installed) clean, its
#    --check mode accepts a valid file and rejects malformed ones, and
#    --dry-run names the collection's URLs without downloading.
# usage: cli_and_fetch.sh RAVEL_TC_CHECK FETCH_SH MPIEXEC
set -u
check=$1 fetch=$2 mpiexec=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/ravel_tc_cli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n' > "$dir/good.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 7\n' > "$dir/bad_index.mtx"
printf '%%%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n' > "$dir/too_few.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n' > "$dir/array.mtx"
{ printf '%%%%MatrixMarket matrix coordinate pattern general\n900 900 90000\n'
  for ((i = 0; i < 90000; i++)); do printf '%d %d\n' $((i % 900 + 1)) $((i * 7 % 900 + 1)); done
} | gzip -c > "$dir/full.mtx.gz"
head -c "$(($(stat -c %s "$dir/full.mtx.gz") / 2))" "$dir/full.mtx.gz" > "$dir/truncated.mtx.gz"

# expect_error P FILE TEXT: one message "ravel-tc-check: FILE:...TEXT", exit 1.
expect_error() {
  local out status
  out=$(timeout 60 "$mpiexec" -n "$1" "$check" "$2" 2>&1)
  status=$?
  [[ $status -eq 1 ]] || fail "P=$1 $2: exit status $status, expected 1: $out"
  [[ $(grep -c '^ravel-tc-check: ' <<<"$out") -eq 1 ]] ||
    fail "P=$1 $2: expected one message, got: $out"
  grep -qF -- "$3" <<<"$out" || fail "P=$1 $2: message lacks '$3': $out"
}

for p in 1 3; do
  out=$(timeout 60 "$mpiexec" -n "$p" "$check" "$dir/good.mtx" 2>&1) ||
    fail "P=$p good.mtx failed: $out"
  grep -qF "3 vertices, 2 entries, 2 edges" <<<"$out" || fail "P=$p good.mtx: $out"
  out=$(timeout 60 "$mpiexec" -n "$p" "$check" "$dir/full.mtx.gz" 2>&1) ||
    fail "P=$p full.mtx.gz failed: $out"
  grep -qF "900 vertices, 90000 entries, 90000 edges" <<<"$out" || fail "P=$p full.mtx.gz: $out"
  expect_error "$p" "$dir/missing.mtx" "$dir/missing.mtx: cannot open: No such file or directory"
  expect_error "$p" "$dir/bad_index.mtx" "$dir/bad_index.mtx:4: expected a column index in 1..3, found '7'"
  expect_error "$p" "$dir/too_few.mtx" "$dir/too_few.mtx:5: expected 3 entries"
  expect_error "$p" "$dir/truncated.mtx.gz" "expected the gzip stream to continue, found it truncated"
done
timeout 60 "$mpiexec" -n 1 "$check" --symmetric=sideways "$dir/good.mtx" 2>/dev/null
[[ $? -eq 2 ]] || fail "a bad --symmetric value must exit 2"

bash -n "$fetch" || fail "bash -n $fetch"
if command -v shellcheck >/dev/null 2>&1; then
  shellcheck "$fetch" || fail "shellcheck $fetch"
fi
"$fetch" --check "$dir/good.mtx" 2 >/dev/null || fail "fetch.sh --check good.mtx"
# An index out of range is the reader's business; --check counts entries.
"$fetch" --check "$dir/bad_index.mtx" >/dev/null 2>&1 || fail "fetch.sh --check bad_index.mtx"
for f in too_few.mtx array.mtx missing.mtx; do
  "$fetch" --check "$dir/$f" >/dev/null 2>&1 && fail "fetch.sh --check $f accepted it"
done
msg=$("$fetch" --check "$dir/too_few.mtx" 2>&1)
grep -qF "too_few.mtx:5: expected 3 entries as the size line (line 2) declares, found 2" <<<"$msg" ||
  fail "fetch.sh --check too_few.mtx: $msg"
"$fetch" --check "$dir/good.mtx" 3 >/dev/null 2>&1 && fail "fetch.sh --check with a wrong manifest count"
urls=$("$fetch" --dry-run cti) || fail "fetch.sh --dry-run cti"
grep -qxF "https://sparse.tamu.edu/MM/DIMACS10/cti.tar.gz" <<<"$urls" || fail "dry-run URLs: $urls"
"$fetch" --dry-run no-such-graph >/dev/null 2>&1 && fail "fetch.sh accepted an unknown name"

[[ $failures -eq 0 ]] && echo "cli_and_fetch: all passed"
exit $((failures > 0))
