#!/bin/sh
# family_table.sh OUT_DIR: the ratio tables of family_study.sh's CSVs
# (simulated microseconds per call; a ratio below 1: the newer backend wins).
set -eu
dir=${1:?usage: family_table.sh OUT_DIR}
ratio_table() { # CSV NEW OLD
    echo "| P | dist | N (B) | $3 us | $2 us | $2 / $3 |"
    echo "|---:|---|---:|---:|---:|---:|"
    awk -F, -v new="$2" -v old="$3" '
        NR > 1 { t[$1 "," $3 "," $5 "," $2] = $10; k[$1 "," $3 "," $5] = 1 }
        END { for (p in k) {
                  split(p, f, ",")
                  a = t[p "," old]; b = t[p "," new]
                  if (a != "" && b != "")
                      printf "| %d | %s | %d | %.1f | %.1f | %.3f |\n",
                             f[1], f[2], f[3], a, b, b / a } }' "$1" |
        sort -t'|' -k2,2n -k3,3 -k4,4n
}
[ -f "$dir/inline_vs_two_phase.csv" ] &&
    ratio_table "$dir/inline_vs_two_phase.csv" inline-bruck two-phase-bruck
echo
[ -f "$dir/pairwise_vs_spread.csv" ] &&
    ratio_table "$dir/pairwise_vs_spread.csv" pairwise spread-out
exit 0
