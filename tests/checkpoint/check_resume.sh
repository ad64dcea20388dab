#!/usr/bin/env bash
# Checkpoint and resume, end to end: runs killed with SIGKILL (inside an
# exchange, halfway through writing a snapshot, between snapshots from
# outside) and resumed, on the same and on another number of ranks, must
# reach the same closure and write the same output files as a run that was
# never stopped; every kind of bad snapshot must be refused with a message
# naming the file.  The closure size is also checked against the published
# figure (MANIFEST.tsv), an oracle independent of ravel.
#
# usage: check_resume.sh tc P RAVEL_TC MPIEXEC DATASETS
#        check_resume.sh kcfa P RAVEL_KCFA MPIEXEC
#        check_resume.sh refusals RAVEL_TC RAVEL_KCFA MPIEXEC DATASETS
set -euo pipefail
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
json_field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" <<<"$2"; }

# The other rank count a resumed run uses: tuples are re-placed.
other() { [[ $1 == 2 ]] && echo 3 || echo 2; }

# run_killed WHERE:N DIR command...: the run must die of the kill.
run_killed() {
  local spec=$1 dir=$2; shift 2
  local rc=0
  RAVEL_TEST_KILL=$spec "$@" --checkpoint="$dir" --checkpoint-every=0 \
    >"$scratch/killed.out" 2>"$scratch/killed.err" || rc=$?
  [[ $rc != 0 ]] || die "RAVEL_TEST_KILL=$spec: the run was not killed"
  # The rank says so on stderr just before it raises SIGKILL
  # (relalg/snapshot/test_kill.c).  mpiexec's own summary is no oracle: it
  # names one rank's end, at times the SIGHUP of a rank it cleaned up.
  # grep reads the file itself: piped from cat under pipefail, grep -q's
  # early exit on a match can leave cat with SIGPIPE and fail the pipeline.
  grep -q -F "RAVEL_TEST_KILL=$spec: SIGKILL" "$scratch/killed.err" ||
    die "RAVEL_TEST_KILL=$spec: exit $rc but no SIGKILL: $(tail -3 "$scratch/killed.err") / stdout: $(tail -5 "$scratch/killed.out")"
}

# kill_between DIR K command...: started in its own session, the whole job
# (mpiexec and every rank) gets SIGKILL once snapshot K is complete, as a
# scheduler's wall-time limit would do it.
kill_between() {
  local dir=$1 k=$2; shift 2
  setsid "$@" --checkpoint="$dir" --checkpoint-every=0 \
    >"$scratch/killed.out" 2>"$scratch/killed.err" &
  local pid=$! waited=0
  newest() { # the newest complete snapshot's number (0: none yet)
    local m n=0 best=0
    for m in "$dir"/snapshot-*/manifest.json; do
      [[ -e $m ]] || continue
      n=${m%/manifest.json}
      n=$((10#${n##*snapshot-}))
      ((n > best)) && best=$n
    done
    echo "$best"
  }
  until (($(newest) >= k)); do
    sleep 0.05
    waited=$((waited + 1))
    ((waited < 2400)) || { kill -9 -- -"$pid"; die "no snapshot $k within 120 s"; }
    kill -0 "$pid" 2>/dev/null || die "the run ended before snapshot $k"
  done
  kill -9 -- -"$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

case $1 in
tc)
  P=$2 tc=$3 mpiexec=$4 datasets=$5
  graph=TG.cedge
  want=$(awk -F'\t' -v n="$graph" '$1 == n { print $4 }' "$datasets/MANIFEST.tsv")
  run=("$tc" --quiet --json --indices=zero-tolerant "$datasets/$graph.mtx")
  out=$("$mpiexec" -n "$P" "${run[@]}" --output="$scratch/whole.tsv")
  [[ $(json_field closure_size "$out") == "$want" ]] ||
    die "uninterrupted: closure $(json_field closure_size "$out") != published $want"
  LC_ALL=C sort "$scratch/whole.tsv" >"$scratch/whole.sorted"
  iterations=$(json_field iterations "$out")
  resume_and_compare() { # DIR RANKS WHAT
    out=$("$mpiexec" -n "$2" "${run[@]}" --resume="$1" --checkpoint="$1" \
          --output="$scratch/resumed.tsv")
    [[ $(json_field closure_size "$out") == "$want" ]] ||
      die "$3, resumed on $2 ranks: closure $(json_field closure_size "$out") != $want"
    [[ $(json_field iterations "$out") == "$iterations" ]] ||
      die "$3, resumed on $2 ranks: $(json_field iterations "$out") iterations, not $iterations"
    LC_ALL=C sort "$scratch/resumed.tsv" | cmp -s - "$scratch/whole.sorted" ||
      die "$3, resumed on $2 ranks: output differs from the uninterrupted run's"
    echo "$graph P=$P, $3, resumed on $2 ranks: $want paths, $iterations iterations, output identical"
  }
  for spec in exchange:5 exchange:31; do
    for Q in "$P" "$(other "$P")"; do
      rm -rf "$scratch/ck"
      run_killed "$spec" "$scratch/ck" "$mpiexec" -n "$P" "${run[@]}"
      resume_and_compare "$scratch/ck" "$Q" "killed in exchange ${spec#*:}"
    done
  done
  # Halfway through writing snapshot 20: that folder has no manifest; the
  # resume takes snapshot 19, which must have been left alone.
  rm -rf "$scratch/ck"
  run_killed snapshot:20 "$scratch/ck" "$mpiexec" -n "$P" "${run[@]}"
  [[ -d $scratch/ck/snapshot-000020 && ! -e $scratch/ck/snapshot-000020/manifest.json ]] ||
    die "no half-written snapshot-000020: $(ls "$scratch/ck")"
  [[ -e $scratch/ck/snapshot-000019/manifest.json ]] || die "snapshot 19 is gone"
  resume_and_compare "$scratch/ck" "$(other "$P")" "killed writing snapshot 20"
  rm -rf "$scratch/ck"
  kill_between "$scratch/ck" 25 "$mpiexec" -n "$P" "${run[@]}"
  resume_and_compare "$scratch/ck" "$P" "whole job killed after snapshot 25"
  ;;
kcfa)
  P=$2 kcfa=$3 mpiexec=$4
  run=("$kcfa" --k=2 --generate=12 --quiet --json)
  "$mpiexec" -n "$P" "${run[@]}" --output="$scratch/whole.d" >"$scratch/whole.json"
  for spec in exchange:40 snapshot:100; do
    Q=$(other "$P")
    rm -rf "$scratch/ck" "$scratch/resumed.d"
    run_killed "$spec" "$scratch/ck" "$mpiexec" -n "$P" "${run[@]}"
    "$mpiexec" -n "$Q" "${run[@]}" --resume="$scratch/ck" \
      --output="$scratch/resumed.d" >"$scratch/resumed.json"
    strip() { sed 's/"ranks": [0-9]*, //; s/, "seconds".*//' "$1"; }
    [[ $(strip "$scratch/whole.json") == $(strip "$scratch/resumed.json") ]] ||
      die "kcfa $spec: $(strip "$scratch/resumed.json") != $(strip "$scratch/whole.json")"
    for f in "$scratch"/whole.d/*.tsv; do
      cmp -s <(LC_ALL=C sort "$f") <(LC_ALL=C sort "$scratch/resumed.d/$(basename "$f")") ||
        die "kcfa $spec: $(basename "$f") differs after resuming"
    done
    echo "kcfa P=$P killed at $spec, resumed on $Q ranks: six relations identical"
  done
  ;;
refusals)
  tc=$2 kcfa=$3 mpiexec=$4 datasets=$5
  # shellcheck source=../cli_expect.sh
  source "$(dirname "$0")/../cli_expect.sh"
  run=("$tc" --quiet --indices=zero-tolerant "$datasets/TG.cedge.mtx")
  good=$scratch/good
  "$mpiexec" -n 2 "${run[@]}" --checkpoint="$good" --checkpoint-every=0 >/dev/null
  snap=$(ls -d "$good"/snapshot-*)
  fresh() { rm -rf "$scratch/bad"; cp -r "$good" "$scratch/bad"; bad=$scratch/bad/$(basename "$snap"); }
  expect 1 "^ravel-tc: cannot read the snapshot folder $scratch/none: No such" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/none"
  mkdir -p "$scratch/partial/snapshot-000003"
  expect 1 "no complete snapshot to resume from" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/partial"
  # One byte changed (to another value, whatever it was).
  flip() { # FILE OFFSET
    local b
    b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
    # shellcheck disable=SC2059
    printf "\\$(printf %o $(((b + 1) % 256)))" |
      dd of="$1" bs=1 seek="$2" conv=notrunc status=none
  }
  fresh; flip "$bad/rank-1.bin" 5000
  expect 1 "rank-1.bin: .*\(checksum mismatch\|corrupt\)" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/bad"
  fresh; truncate -s 3000 "$bad/rank-0.bin"
  expect 1 "rank-0.bin: 3000 bytes, the manifest says" ravel-tc -- \
    "$mpiexec" -n 3 "${run[@]}" --resume="$scratch/bad"
  fresh; rm "$bad/rank-1.bin"
  expect 1 "cannot open snapshot file .*rank-1.bin" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/bad"
  fresh; sed -i 's/"format_version": [0-9]*/"format_version": 99/' "$bad/manifest.json"
  expect 1 "manifest.json: snapshot format 99" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/bad"
  fresh; sed -i 's/"ranks": 2,/"ranks": 2/' "$bad/manifest.json"
  expect 1 "manifest.json:7:[0-9]*: expected" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/bad"
  fresh; sed -i 's/"program": "[0-9a-f]*"/"program": "0123456789abcdef"/' "$bad/manifest.json"
  expect 1 "manifest.json: written by another program" ravel-tc -- \
    "$mpiexec" -n 2 "${run[@]}" --resume="$scratch/bad"
  # Another program's snapshot, untouched: kcfa resuming tc's.
  expect 1 "manifest.json: written by another program" ravel-kcfa -- \
    "$mpiexec" -n 2 "$kcfa" --k=1 --generate=2 --resume="$good"
  # After every refusal the good snapshot still resumes.
  out=$("$mpiexec" -n 2 "${run[@]}" --json --resume="$good")
  want=$(awk -F'\t' '$1 == "TG.cedge" { print $4 }' "$datasets/MANIFEST.tsv")
  [[ $(json_field closure_size "$out") == "$want" ]] || die "the good snapshot no longer resumes"
  echo "bad snapshots: every kind refused with its file named; the good one still resumes"
  ;;
*)
  die "unknown case $1"
  ;;
esac
