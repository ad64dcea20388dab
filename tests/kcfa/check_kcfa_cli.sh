#!/usr/bin/env bash
# ravel-kcfa's command line end to end: --emit round trip, --output files,
# and bad input reported once (rank 0) with the right exit status.
# usage: check_kcfa_cli.sh RAVEL_KCFA MPIEXEC
set -euo pipefail
kcfa=$1 mpiexec=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=../cli_expect.sh
source "$(dirname "$0")/../cli_expect.sh"

# The generated program, emitted and read back, gives the same analysis.
"$kcfa" --generate=3 --emit >"$scratch/g3.cps"
a=$("$mpiexec" -n 2 "$kcfa" --k=2 --quiet --json --generate=3 | sed 's/"program": "[^"]*", //')
b=$("$mpiexec" -n 2 "$kcfa" --k=2 --quiet --json "$scratch/g3.cps" | sed 's/"program": "[^"]*", //')
[[ $(grep -o '"Time".*"facts": [0-9]*' <<<"$a") == $(grep -o '"Time".*"facts": [0-9]*' <<<"$b") ]] ||
  die "emitted program analyses differently: $a / $b"

# --output writes the six relations, one line per tuple.
"$mpiexec" -n 3 "$kcfa" --k=1 --quiet --generate=2 --output="$scratch/out.d" \
  --json >"$scratch/summary"
for rel in Time ReachesCfg AEval Store Step ReachesClo; do
  n=$(sed -n "s/.*\"$rel\": \([0-9]*\).*/\1/p" "$scratch/summary")
  [[ $(wc -l <"$scratch/out.d/$rel.tsv") == "$n" ]] || die "$rel.tsv has not $n lines"
done

printf '(program (app (lam x k (app (ref k) (ref x))) (ref y) (ref z)))\n' >"$scratch/bad.cps"
# N = 2^40 was accepted: its text (about 260 TiB) can fit nowhere.
expect 1 "--generate=1099511627776: the program's text alone would take [0-9]* bytes, more than this machine's [0-9]* bytes of memory; the largest N whose text fits is [0-9]*$" \
  ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=1 --generate=1099511627776
expect 1 "bad.cps:1:44: too few parts in (app ...)" ravel-kcfa -- "$mpiexec" -n 3 "$kcfa" --k=1 "$scratch/bad.cps"
expect 1 "no-such.cps" ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=1 "$scratch/no-such.cps"
# A FIFO once made every rank wait in open() for a writer, for ever.
mkfifo "$scratch/f.cps"
expect 1 "f.cps: expected a regular file, found a FIFO" ravel-kcfa -- \
  timeout 120 "$mpiexec" -n 2 "$kcfa" --k=1 "$scratch/f.cps"
expect 1 "$scratch: expected a regular file, found a directory" ravel-kcfa -- \
  "$mpiexec" -n 2 "$kcfa" --k=1 "$scratch"
expect 2 "--k=0" ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=0 --generate=1
expect 2 "exactly one of PROGRAM" ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=1
expect 2 "not a backend" ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=1 --generate=1 --comm=x
# A memory limit the analysis cannot keep: one message, from rank 0, saying
# which rank, iteration and buffer needed how much; never a kill.
expect 1 "rank [0-9]: stratum [0-9]* iteration [0-9]*: .*over the memory limit of 2.00 MiB" \
  ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=2 --generate=40 --quiet --max-memory=2M
expect 2 "--max-memory: '1.5G' is not a size" ravel-kcfa -- \
  "$mpiexec" -n 2 "$kcfa" --k=1 --generate=1 --max-memory=1.5G
help=$("$kcfa" --help)  # whole output first: grep -q would cut the pipe
grep -q -- "--generate" <<<"$help" || die "--help lacks --generate"
echo "ravel-kcfa command line: all cases passed"
