#!/bin/sh
# family_table.sh OUT_DIR: the ratio tables of family_study.sh's CSVs
# (simulated microseconds per call; a ratio below 1: the newer backend, or
# the best radix, wins).
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
echo
[ -f "$dir/padded.csv" ] &&
    ratio_table "$dir/padded.csv" padded-bruck padded-bruck:basic &&
    echo && ratio_table "$dir/padded.csv" padded-bruck padded-alltoall
echo
# radix-bruck: the best radix at each point against radix 2 (and what the
# model, with the platform's parameters, predicted for each: its best).
[ -f "$dir/radix.csv" ] && {
    echo "| P | dist | N (B) | radix 2 us | best r | its us | best / radix 2 | model's best r |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|"
    awk -F, '
        NR == 1 { for (c = 1; c <= NF; c++) col[$c] = c; next }
        { split($col["backend"], b, ":"); r = b[2]
          k = $col["P"] "," $col["dist"] "," $col["N"]
          t = $col["median_us"]; m = $col["predicted_us"]; key[k]++
          if (r == 2) two[k] = t
          if (!(k in best) || t < best[k]) { best[k] = t; br[k] = r }
          if (!(k in mbest) || m < mbest[k]) { mbest[k] = m; mr[k] = r } }
        END { for (k in key) { if (key[k] < 5) continue # not every r yet
                  split(k, f, ",")
                  printf "| %d | %s | %d | %.1f | %d | %.1f | %.3f | %d |\n",
                         f[1], f[2], f[3], two[k], br[k], best[k],
                         best[k] / two[k], mr[k] } }' "$dir/radix.csv" |
        sort -t'|' -k2,2n -k3,3 -k4,4n
}
exit 0
