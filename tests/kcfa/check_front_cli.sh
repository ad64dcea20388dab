#!/bin/sh
# The ravel-kcfa-front command line: --emit output reads back to the same
# facts, the counts match the family's closed forms (N = 3: 32 + 24N nodes,
# 7 + 6N lams, 8 + 6N apps, 17 + 12N refs, 12 + 2N names), and bad input or
# bad usage fails with a message naming the position.
set -u
tool="$1"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tool" --help > "$dir/help" || fail "--help exited non-zero"
grep -q -- "--generate=N" "$dir/help" || fail "--help does not list --generate"

"$tool" --generate=3 --emit > "$dir/g3.kcfa" || fail "--generate=3 --emit"
printf 'nodes\t104\nnames\t18\nProg\t1\nLam\t25\nApp\t26\nVar\t53\n' \
    > "$dir/want"
"$tool" --generate=3 > "$dir/from_generate" || fail "--generate=3"
"$tool" "$dir/g3.kcfa" > "$dir/from_file" || fail "reading the emitted file"
cmp -s "$dir/want" "$dir/from_generate" || fail "facts of --generate=3"
cmp -s "$dir/want" "$dir/from_file" || fail "facts of the emitted program"

printf '(program\n  (app (ref f) (ref x)))\n' > "$dir/bad.kcfa"
"$tool" "$dir/bad.kcfa" 2> "$dir/err" && fail "a malformed program was accepted"
grep -q "bad.kcfa:2:23: too few parts in (app ...)" "$dir/err" ||
    fail "unexpected message: $(cat "$dir/err")"

"$tool" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no program should exit 2"
"$tool" --generate=0 > /dev/null 2>&1; [ $? -eq 2 ] || fail "--generate=0"
"$tool" --generate=x > /dev/null 2>&1; [ $? -eq 2 ] || fail "--generate=x"
"$tool" "$dir/missing.kcfa" 2> "$dir/err"; [ $? -eq 1 ] || fail "missing file"
grep -q "missing.kcfa: cannot open" "$dir/err" || fail "missing-file message"
# A failed allocation ends the generation at once, with the sizes.  Not
# under AddressSanitizer (RAVEL_SANITIZED, scripts/test-sanitize.sh): it
# reserves terabytes of address space, which ulimit -v refuses first.
if [ -z "${RAVEL_SANITIZED:-}" ]; then
    (ulimit -v 300000 && "$tool" --generate=3000000 > /dev/null 2> "$dir/err")
    [ $? -eq 1 ] || fail "--generate=3000000 under ulimit -v should exit 1"
    grep -q -- "--generate=3000000: out of memory for the program text (705444757 bytes) after [0-9]* bytes" "$dir/err" ||
        fail "out-of-memory message: $(cat "$dir/err")"
fi
echo "ok"
