#!/usr/bin/env bash
# datalog_vs_engines.sh: the same Datalog programs on ravel-datalog (2
# ranks), on the hand-planned apps that compute them (ravel-tc, ravel-kcfa;
# 2 ranks) and on compiled Soufflé (-j 2), one after the other, RUNS times
# each (alternating, so a drift of the machine hits all alike); one table of
# medians: wall seconds and peak memory of all processes together, and the
# ratios ravel-datalog / app and ravel-datalog / Soufflé.  Issue 16's
# performance measurement.  Run it on an idle machine.
#
# usage: bench/peers/datalog_vs_engines.sh BUILD_DIR OUT_DIR [CASE...]
#   CASE  tc:GRAPH (a graph of ../shared/datasets/suitesparse/MANIFEST.tsv)
#         or kcfa:N:K (the generated worst-case program of size N, k = K)
#         default: tc:G for every graph whose closure has at most MAX_PATHS
#         paths, and kcfa:64:1 kcfa:64:2 kcfa:64:3
# Environment: RUNS (default 3), MAX_PATHS (default 100000000), RANKS
# (default 2, Soufflé's -j the same), SOUFFLE (default
# /opt/souffle/bin/souffle: build it once with ../shared/peers/souffle/build.sh).
#
# The programs are examples/datalog/tc.dl and kcfa_k{K}.dl without their
# .output lines (the rules unchanged; .printsize kept): every engine
# evaluates and prints sizes, none writes the relations (ravel-tc and
# ravel-kcfa are run without --output).  The kCFA facts come from
# `ravel-kcfa --write-facts`; TC's are the .mtx entries as they are.  Wall
# time: bash's $EPOCHREALTIME around each command, in milliseconds
# (mpiexec's start-up included for the ravel binaries, the loading of
# facts for all).  Memory: each ravel
# rank's peak RSS (/usr/bin/time around every rank), summed; Soufflé's one
# process's.  The sizes must agree (TC: the published closure; kCFA: AEval
# equal on all three), or the script stops.  Output: OUT_DIR/datalog.csv
# (every run, with the load average before it) and the table on stdout.
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '9,16p' "$0" >&2; exit 2; }
build=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
shared=$top/../shared
souffle=${SOUFFLE:-/opt/souffle/bin/souffle}
runs=${RUNS:-3}
ranks=${RANKS:-2}
max_paths=${MAX_PATHS:-100000000}
datalog=$build/apps/datalog/ravel-datalog
tc=$build/apps/tc/ravel-tc
kcfa=$build/apps/kcfa/ravel-kcfa
. "$top/bench/peers/require.sh"
peers_require datalog_vs_engines.sh "$souffle" "$shared" "$datalog" "$tc" "$kcfa"

manifest=$shared/datasets/suitesparse/MANIFEST.tsv
if [[ $# -eq 0 ]]; then
  set -- $(awk -F'\t' -v m="$max_paths" '!/^#/ && $4 <= m { print "tc:" $1 }' "$manifest") \
         kcfa:64:1 kcfa:64:2 kcfa:64:3
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
csv=$out/datalog.csv
[[ -f $csv ]] || echo "case,engine,run,size,wall_s,peak_mib,load_before" >"$csv"

# The evaluation-only program of example NAME, and Soufflé's binary of it
# (compiled once per program: the generated C++ is what its users run).
program() {
  local name=$1
  if [[ ! -f $work/$name.dl ]]; then
    sed '/^\.output/d' "$top/examples/datalog/$name.dl" >"$work/$name.dl"
    "$souffle" -o "$work/souffle_$name" "$work/$name.dl"
  fi
}

# ravel RANKS-rank run of CMD...: wall seconds to $work/wall, the sum of
# the ranks' peak RSS (KiB) to $work/kib, stdout to $work/stdout.
# Wall seconds since $1 (an $EPOCHREALTIME), to the millisecond:
# /usr/bin/time's %e has centiseconds, a fifth of the smallest runs.
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'; }

run_ravel() {
  rm -f "$work"/rss.*
  local t0=$EPOCHREALTIME
  mpiexec -n "$ranks" sh -c \
    'exec /usr/bin/time -o "$0/rss.$PMI_RANK" -f %M "$@"' "$work" "$@" \
    >"$work/stdout" </dev/null
  elapsed "$t0" >"$work/wall"
  cat "$work"/rss.* | awk '{ s += $1 } END { print s }' >"$work/kib"
}

run_souffle() { # BINARY FACT_DIR
  local t0=$EPOCHREALTIME
  /usr/bin/time -o "$work/time" -f '%M' "$1" -j "$ranks" -F "$2" \
    -D "$work" >"$work/stdout"
  elapsed "$t0" >"$work/wall"
  cat "$work/time" >"$work/kib"
}

record() { # CASE ENGINE RUN SIZE LOAD
  echo "$1,$2,$3,$4,$(cat "$work/wall"),$(($(cat "$work/kib") / 1024)),$5" | tee -a "$csv"
}

size_of() { # RELATION: from "NAME<TAB>n" lines, or ravel-kcfa's "NAME   n"
  awk -v r="$1" '$1 == r { print $2 }' "$work/stdout" | head -n 1
}

for case in "$@"; do
  IFS=: read -r kind a b <<<"$case"
  case $kind in
  tc)
    file=$(awk -F'\t' -v n="$a" '$1 == n { print $2 }' "$manifest")
    want=$(awk -F'\t' -v n="$a" '$1 == n { print $4 }' "$manifest")
    [[ -n $file ]] || { echo "datalog_vs_engines.sh: $a is not in $manifest" >&2; exit 1; }
    flags=()
    base=$(awk -F'\t' -v n="$a" '$1 == n { print $5 }' "$top/datasets/manifest.tsv")
    [[ $base == 0 ]] && flags+=(--indices=zero-tolerant)
    facts=$work/facts.$a
    mkdir -p "$facts"
    awk '/^%/ { next } !seen { seen = 1; next } { print $1 "\t" $2 }' \
      "$shared/datasets/suitesparse/$file" >"$facts/edge.facts"
    program tc
    rel=path app=("$tc" --quiet --json "${flags[@]}" "$shared/datasets/suitesparse/$file")
    dl=$work/tc.dl sbin=$work/souffle_tc
    ;;
  kcfa)
    facts=$work/facts.kcfa$a
    [[ -d $facts ]] || mpiexec -n 1 "$kcfa" --generate="$a" --write-facts="$facts" >/dev/null
    program "kcfa_k$b"
    want= rel=AEval app=("$kcfa" --generate="$a" --k="$b" --quiet)
    dl=$work/kcfa_k$b.dl sbin=$work/souffle_kcfa_k$b
    ;;
  *) echo "datalog_vs_engines.sh: case '$case': expected tc:GRAPH or kcfa:N:K" >&2; exit 2 ;;
  esac
  for ((r = 1; r <= runs; r++)); do
    for engine in datalog app souffle; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      case $engine in
      datalog) run_ravel "$datalog" --quiet -F "$facts" -D "$work" "$dl"; n=$(size_of "$rel") ;;
      app)
        run_ravel "${app[@]}"
        if [[ $kind == tc ]]; then
          n=$(sed -n 's/.*"closure_size": \([0-9]*\).*/\1/p' "$work/stdout")
        else
          n=$(size_of "$rel")
        fi ;;
      souffle) run_souffle "$sbin" "$facts"; n=$(size_of "$rel") ;;
      esac
      [[ -n $want ]] || want=$n
      [[ $n == "$want" ]] || {
        echo "datalog_vs_engines.sh: $case on $engine: $rel has '$n' tuples, expected $want" >&2
        exit 1
      }
      record "$case" "$engine" "$r" "$n" "$load"
    done
  done
done

. "$top/bench/auto/median.sh"
echo
echo "| case | size | ravel-datalog s | app s | Soufflé -j$ranks s | datalog / app | datalog / Soufflé | datalog MiB | app MiB | Soufflé MiB | datalog / app memory | loads before |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for case in "$@"; do
  col() { awk -F, -v k="$case" -v e="$1" -v c="$2" '$1 == k && $2 == e { print $c }' "$csv" | median; }
  dt=$(col datalog 5) at=$(col app 5) st=$(col souffle 5)
  dm=$(col datalog 6) am=$(col app 6) sm=$(col souffle 6)
  size=$(awk -F, -v k="$case" '$1 == k { print $4; exit }' "$csv")
  loads=$(awk -F, -v k="$case" '$1 == k && $2 == "datalog" { printf "%s%s", s, $7; s = " " }' "$csv")
  awk -v k="$case" -v n="$size" -v dt="$dt" -v at="$at" -v st="$st" -v dm="$dm" -v am="$am" -v sm="$sm" -v l="$loads" \
    'BEGIN { printf "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %d | %d | %.2f | %s |\n", k, n, dt, at, st, dt / at, dt / st, dm, am, sm, dm / am, l }'
done
