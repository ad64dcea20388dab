#!/bin/sh
# two_level_choice_table.sh REPLAY_OUT CSV...: where auto weighs two-level
# (bench/results/auto/README.md), per point of ravel-model-replay's output
# (P, distribution, N, the backend the model picks and its measured time,
# the fastest measured backend and its time), the fastest flat backend of
# the ravel-a2a CSVs and the fastest two-level one, and the pick's time
# over each: a Markdown table, then how many measured picks are within 5%
# of the fastest of all and how many are faster than the fastest flat.
set -eu
[ $# -ge 2 ] || { echo "usage: two_level_choice_table.sh REPLAY_OUT CSV..." >&2; exit 2; }
replay=$1
shift
awk -F, '
FILENAME != replay && FNR == 1 { delete col; for (i = 1; i <= NF; i++) col[$i] = i; next }
FILENAME != replay {
    b = $col["backend"]
    if (b ~ /^auto/) next
    k = $col["P"] "," $col["dist"] "," $col["N"]
    t = $col["median_us"] + 0
    if (b ~ /^two-level:/) {
        if (!(k in tl) || t < tl[k]) { tl[k] = t; tln[k] = b }
    } else if (!(k in fl) || t < fl[k]) { fl[k] = t; fln[k] = b }
    next
}
FNR == 1 || /^#/ { next }
{ k = $1 "," $2 "," $4; row[++n] = k; chose[k] = $5; chose_us[k] = $6 + 0 }
END {
    print "| P | dist | N | fastest flat | us | fastest two-level | us | auto picks | us | / fastest of all | / fastest flat |"
    print "|---:|---|---:|---|---:|---|---:|---|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
        k = row[i]; split(k, p, ",")
        if (!(k in tl)) continue
        if (!(k in fl)) { # no flat backend measured here
            printf "| %s | %s | %s | not run | | %s | %.1f | %s | %s | | |\n",
                p[1], p[2], p[3], tln[k], tl[k], chose[k],
                (chose_us[k] > 0 ? sprintf("%.1f", chose_us[k]) : "")
            continue
        }
        best = fl[k] < tl[k] ? fl[k] : tl[k]
        if (chose_us[k] > 0) {
            measured++; hit += chose_us[k] <= 1.05 * best
            faster += chose_us[k] < fl[k]
            r1 = sprintf("%.3f", chose_us[k] / best)
            r2 = sprintf("%.3f", chose_us[k] / fl[k])
            us = sprintf("%.1f", chose_us[k])
        } else { r1 = r2 = "not run"; us = "" }
        printf "| %s | %s | %s | %s | %.1f | %s | %.1f | %s | %s | %s | %s |\n",
            p[1], p[2], p[3], fln[k], fl[k], tln[k], tl[k], chose[k], us, r1, r2
    }
    printf "\n%d points with flat and two-level runs; auto'"'"'s pick measured at %d: within 5%% of the fastest of all at %d, faster than the fastest flat backend at %d.\n", both(), measured, hit, faster
}
function both(   c, i) { c = 0; for (i = 1; i <= n; i++) c += (row[i] in tl) && (row[i] in fl); return c }
' replay="$replay" "$@" "$replay"
