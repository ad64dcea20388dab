#!/usr/bin/env bash
# k-CFA of the generated worst-case family for growing N and k.
#
# For each k, N doubles (1, 2, 4, ...) until a run takes longer than LIMIT
# seconds or fails; every run's summary goes to a CSV and its per-iteration
# log to logs/.  Then the largest (N, k) that finished is rerun with every
# backend, and its N and comm time per iteration are plotted (Figure 12).
#
# usage: bench/kcfa/run_kcfa_bench.sh [BUILD_DIR] [OUT_DIR]
#   RANKS=2  LIMIT=600  KS="1 2 3"  MAX_N=4096  SEARCH_BACKEND=vendor
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
out=${2:-$top/bench/results/kcfa}
ranks=${RANKS:-2}
limit=${LIMIT:-600}
ks=${KS:-"1 2 3"}
max_n=${MAX_N:-4096}
search_backend=${SEARCH_BACKEND:-vendor}
backends="vendor spread-out padded-alltoall padded-bruck two-phase-bruck"
kcfa=$build/apps/kcfa/ravel-kcfa
[[ -x $kcfa ]] || { echo "no $kcfa: build first" >&2; exit 1; }
mkdir -p "$out/logs"
csv=$out/kcfa_runs.csv
echo "N,k,backend,ranks,status,facts,AEval,Store,Step,iterations,total_s,comm_s,compute_s,peak_rss_mib_max" >"$csv"
json_field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$2"; }

# run N K BACKEND: appends a row; returns non-zero when it did not finish.
run() {
  local n=$1 k=$2 backend=$3 j rc=0
  j=$(timeout "$limit" mpiexec -n "$ranks" "$kcfa" --k="$k" --generate="$n" \
        --comm="$backend" --quiet --json \
        --log="$out/logs/N$n.k$k.$backend.csv" 2>/dev/null </dev/null) || rc=$?
  if (( rc != 0 )); then
    echo "$n,$k,$backend,$ranks,$([[ $rc == 124 ]] && echo timeout || echo failed),,,,,,,,," >>"$csv"
    tail -n 1 "$csv" >&2
    return 1
  fi
  printf '%s,%s,%s,%s,ok,%s,%s,%s,%s,%s,%s,%s,%s,%.1f\n' "$n" "$k" "$backend" \
    "$ranks" "$(json_field facts "$j")" "$(json_field AEval "$j")" \
    "$(json_field Store "$j")" "$(json_field Step "$j")" \
    "$(json_field iterations "$j")" "$(json_field seconds "$j")" \
    "$(json_field comm_seconds "$j")" "$(json_field compute_seconds "$j")" \
    "$(awk -v b="$(json_field peak_rss_bytes_max "$j")" 'BEGIN{print b/1048576}')" \
    >>"$csv"
  tail -n 1 "$csv" >&2
}

best_n=0 best_k=0 best_facts=0
for k in $ks; do
  n=1
  while (( n <= max_n )) && run "$n" "$k" "$search_backend"; do
    facts=$(tail -n 1 "$csv" | cut -d, -f6)
    if (( facts > best_facts )); then best_n=$n best_k=$k best_facts=$facts; fi
    n=$(( n * 2 ))
  done
done
echo "largest run within ${limit}s: N=$best_n k=$best_k, $best_facts facts" >&2

if (( best_n > 0 )); then
  for backend in $backends; do
    [[ $backend == "$search_backend" ]] || run "$best_n" "$best_k" "$backend" || true
  done
  if command -v gnuplot >/dev/null; then
    gnuplot -e "logfile='$out/logs/N$best_n.k$best_k.$search_backend.csv'; \
                out='$out/kcfa_iterations_N${best_n}_k${best_k}.png'; \
                title='k-CFA N=$best_n k=$best_k, $search_backend, $ranks ranks'" \
            "$top/bench/tc/iterations.gp"
  fi
fi
