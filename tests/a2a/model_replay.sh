#!/usr/bin/env bash
# ravel-model-replay rebuilds each point's block matrix from ravel-a2a's
# distribution, on one process; ravel-a2a gathers the same call's
# statistics from its ranks with MPI.  Both must give the model the same
# call: every predicted time of the replay equals the one ravel-a2a printed,
# and the replay's choice at each point equals what auto (told the
# statistics) chose in the run.
# usage: model_replay.sh RAVEL_A2A RAVEL_MODEL_REPLAY MPIEXEC MODEL
set -euo pipefail
a2a=$1 replay=$2 mpiexec=$3 model=$4
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
csv=$scratch/run.csv
for dist in uniform range:50 normal power-law:0.99; do
  for type in double byte; do
    "$mpiexec" -n 3 "$a2a" --comm=all,auto --hint-stats --N=0,16,1000,70000 \
      --iters=1 --warmup=0 --dist="$dist" --type="$type" --model="$model" \
      --csv="$csv" >/dev/null
  done
done
# ravel takes the ranks per node from the communicator: 3 here.
"$replay" --model="$model" --ranks-per-node=3 --errors "$csv" >"$scratch/errors.csv"
grep -v ',auto' "$csv" | tail -n +2 | cut -d, -f1-5,20 >"$scratch/printed"
tail -n +2 "$scratch/errors.csv" | cut -d, -f7 >"$scratch/replayed"
rows=$(wc -l <"$scratch/printed")
# 4 distributions, 2 types, 4 sizes, 9 fixed backends
[ "$rows" -eq 288 ] || die "expected 288 fixed-backend rows from ravel-a2a, found $rows"
[ "$rows" -eq "$(wc -l <"$scratch/replayed")" ] ||
  die "ravel-a2a wrote $rows rows, the replay $(wc -l <"$scratch/replayed")"
paste -d, "$scratch/printed" "$scratch/replayed" | awk -F, '
  { d = $6 - $7; if (d < 0) d = -d
    if (d > 0.0015 + 1e-6 * $6) { print "FAIL: " $0 " (printed, replayed)"; bad++ } }
  END { exit bad > 0 }' || die "the replay predicts other times"
# The choice, point by point, against auto+hint's in the run.
"$replay" --model="$model" --ranks-per-node=3 "$csv" | grep -v '^#' |
  tail -n +2 | cut -d, -f1-5 | sort >"$scratch/b"
awk -F, '$2 == "auto+hint" { print $1 "," $3 "," $4 "," $5 "," $21 }' "$csv" |
  sort >"$scratch/a"
[ "$(wc -l <"$scratch/a")" -eq 32 ] || die "expected 32 auto+hint rows"
diff "$scratch/a" "$scratch/b" >"$scratch/diff" ||
  die "replayed choices differ from auto's: $(cat "$scratch/diff")"
echo "model replay: $rows predictions and $(wc -l <"$scratch/b") choices match ravel-a2a's"
