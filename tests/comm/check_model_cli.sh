#!/usr/bin/env bash
# A bad cost model is refused by every tool that takes one, with one message
# naming the file and what is wrong, and a non-zero exit: through --model and
# through RAVEL_MODEL, for a missing file, a syntax error, another version,
# a missing parameter and a non-positive one.  A good model runs.
# usage: check_model_cli.sh RAVEL_TC RAVEL_KCFA RAVEL_A2A MPIEXEC
set -euo pipefail
tc=$1 kcfa=$2 a2a=$3 mpiexec=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=../cli_expect.sh
source "$(dirname "$0")/../cli_expect.sh"

model() { # model FILE BODY: a model file with the given members
  printf '{"format": "ravel-cost-model", %s, "ranks_per_node": 2}\n' "$2" >"$scratch/$1"
}
params='"alpha": 1e-6, "beta": 1e-10, "gamma": 1e-10, "o": 2e-7'
model good.json "\"version\": 1, $params"
model v2.json "\"version\": 2, $params"
model no_o.json '"version": 1, "alpha": 1e-6, "beta": 1e-10, "gamma": 1e-10'
model zero_beta.json '"version": 1, "alpha": 1e-6, "beta": 0, "gamma": 1e-10, "o": 2e-7'
printf '{"format": "ravel-cost-model",\n "version": 1,, }\n' >"$scratch/syntax.json"

declare -A want=(
  [missing.json]="missing.json: cannot open"
  [syntax.json]="syntax.json:2:15: expected a member name"
  [v2.json]="v2.json.*version"
  [no_o.json]="no_o.json.*\"o\""
  [zero_beta.json]="zero_beta.json.*\"beta\""
)
for file in "${!want[@]}"; do
  m=$scratch/$file
  expect 1 "${want[$file]}" ravel-tc -- "$mpiexec" -n 2 "$tc" --height=4 --quiet --comm=auto --model="$m"
  expect 1 "${want[$file]}" ravel-kcfa -- "$mpiexec" -n 2 "$kcfa" --k=1 --generate=2 --quiet --model="$m"
  expect 1 "${want[$file]}" ravel-a2a -- "$mpiexec" -n 2 "$a2a" --N=16 --iters=1 --comm=auto --model="$m"
  expect 1 "${want[$file]}" ravel-tc -- env RAVEL_MODEL="$m" "$mpiexec" -n 2 "$tc" --height=4 --quiet --comm=auto
done
"$mpiexec" -n 2 "$tc" --height=4 --quiet --comm=auto --model="$scratch/good.json" >/dev/null ||
  die "a good model did not run"
RAVEL_MODEL=$scratch/good.json "$mpiexec" -n 2 "$a2a" --N=16 --iters=1 --comm=auto >"$scratch/a2a.out" ||
  die "a good model did not run ravel-a2a"
grep -q -- "-> " "$scratch/a2a.out" || die "ravel-a2a does not say what auto chose"
echo "cost model refusals: all cases passed"
