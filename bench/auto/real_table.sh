#!/bin/sh
# real_table.sh RESULTS_DIR: the tables of bench/results/auto/README.md from
# run_real.sh's output.  ravel-a2a: per N, the median over runs of each
# backend's mean call time, the fastest fixed backend, and auto's and
# auto+hint's ratio to it.  The mean, for every backend alike: only the
# mean holds auto's agreeing calls, and set against the others' medians
# it also charged auto their tails (MEDIAN=1, and CSVs without mean_us,
# compare medians, auto's mean excepted, as the tables before 4b1b936
# did).  ravel-tc: per graph, the median over runs of each backend's
# exchange seconds (the log's sum), and auto's ratio to the fastest fixed
# backend.
set -eu
dir=${1:?usage: real_table.sh RESULTS_DIR}

. "$(dirname "$0")/median.sh"

echo "| N (B) | fastest fixed | its us | auto us (ratio) | auto:agree us (ratio) | auto+hint us (ratio) | auto chose |"
echo "|---:|---|---:|---:|---:|---:|---|"
csv=${CSV:-$dir/a2a_2ranks.csv}
# auto's time per call is its mean where the CSV has one (auto agrees at
# some calls only); a CSV from before holds auto agreeing at every call.
mean=$(head -1 "$csv" | tr ',' '\n' | grep -n '^mean_us$' | cut -d: -f1 || true)
all_means=
[ -n "$mean" ] && [ -z "${MEDIAN:-}" ] && all_means=1
for n in $(awk -F, 'NR > 1 { print $5 }' "$csv" | sort -un); do
  best= best_t= t_auto= t_auto_agree= t_auto_hint=
  for b in $(awk -F, -v n="$n" 'NR > 1 && $5 == n { print $2 }' "$csv" | sort -u); do
    col=10
    [ "$b" = auto ] && [ -n "$mean" ] && col=$mean
    [ -n "$all_means" ] && col=$mean
    t=$(awk -F, -v n="$n" -v b="$b" -v c="$col" 'NR > 1 && $5 == n && $2 == b { print $c }' "$csv" | median)
    eval "t_$(echo "$b" | tr -c 'a-z0-9\n' '_')=$t"
    case $b in auto|auto+hint|auto:agree) continue ;; esac
    if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
      best=$b best_t=$t
    fi
  done
  chose=$(awk -F, -v n="$n" 'NR > 1 && $5 == n && ($2 == "auto+hint" || $2 == "auto") { print $21 }' "$csv" | sort | uniq -c | sort -rn | awk '{ print $2; exit }')
  [ -z "$mean" ] && t_auto_agree=$t_auto t_auto=
  eval "a=\$t_auto g=\$t_auto_agree h=\$t_auto_hint"
  awk -v n="$n" -v best="$best" -v bt="$best_t" -v a="$a" -v g="$g" -v h="$h" -v c="$chose" '
    function cell(t) { return t == "" ? "-" : sprintf("%.2f (%.2f)", t, t / bt) }
    BEGIN { printf "| %d | %s | %.2f | %s | %s | %s | %s |\n", n, best, bt, cell(a), cell(g), cell(h), c }'
done

echo
echo "| graph | fastest fixed (exchange) | its exchange s | auto's exchange s | ratio | runs |"
echo "|---|---|---:|---:|---:|---:|"
runs=$(ls -d "$dir"/tc_2ranks/run* 2>/dev/null | wc -l)
cat "$dir"/tc_2ranks/run*/tc_backends.csv | awk -F, '$2 != "backend" && $2 != "skipped" { print $1 }' | sort -u |
while read -r g; do
  best= best_t= auto_t=
  for b in $(cat "$dir"/tc_2ranks/run*/tc_backends.csv | awk -F, -v g="$g" '$1 == g { print $2 }' | sort -u); do
    t=$(cat "$dir"/tc_2ranks/run*/tc_backends.csv | awk -F, -v g="$g" -v b="$b" '$1 == g && $2 == b { print $8 }' | median)
    if [ "$b" = auto ]; then auto_t=$t; continue; fi
    if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then
      best=$b best_t=$t
    fi
  done
  awk -v g="$g" -v best="$best" -v bt="$best_t" -v a="$auto_t" -v r="$runs" \
    'BEGIN { printf "| %s | %s | %.3f | %.3f | %.2f | %d |\n", g, best, bt, a, a / bt, r }'
done
