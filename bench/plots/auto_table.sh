#!/bin/sh
# auto_table.sh CSV: for every (P, distribution, N) of a ravel-a2a CSV that
# has auto and fixed backends, the fastest fixed backend, auto's choice and
# auto's time against the fastest (a Markdown table), then how many points
# auto is within 5% and 10% of the fastest.  Two rows of auto are read:
# "auto" (it agrees on the call's statistics itself: one allreduce) and
# "auto+hint" (ravel-a2a --hint-stats: told them, as inside the engine).
set -eu
[ $# -eq 1 ] || { echo "usage: auto_table.sh CSV" >&2; exit 2; }
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    key = $col["P"] SUBSEP $col["dist"] SUBSEP $col["N"]
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    t = $col["median_us"] + 0
    if ($col["backend"] == "auto") {
        auto[key] = t; chose[key] = $col["chose"]
    } else if ($col["backend"] == "auto+hint") {
        hint[key] = t; chose[key] = $col["chose"]
    } else if (!(key in best) || t < best[key]) {
        best[key] = t; winner[key] = $col["backend"]
    }
}
END {
    print "| P | dist | N | fastest fixed | its us | auto chose | auto+hint / fastest | auto / fastest |"
    print "|---:|---|---:|---|---:|---|---:|---:|"
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(k in best) || (!(k in auto) && !(k in hint))) continue
        split(k, f, SUBSEP)
        rh = (k in hint) ? sprintf("%.3f", hint[k] / best[k]) : "-"
        ra = (k in auto) ? sprintf("%.3f", auto[k] / best[k]) : "-"
        printf "| %s | %s | %s | %s | %.1f | %s | %s | %s |\n", f[1], f[2], f[3], winner[k], best[k], chose[k], rh, ra
        points++
        if (chose[k] == winner[k]) right++
        if (k in hint) { hpoints++; if (hint[k] <= 1.05 * best[k]) h5++; if (hint[k] <= 1.10 * best[k]) h10++ }
        if (k in auto) { apoints++; if (auto[k] <= 1.05 * best[k]) a5++; if (auto[k] <= 1.10 * best[k]) a10++ }
    }
    printf "\n%d points; auto chose the fastest fixed backend at %d.\n", points, right
    printf "auto+hint within 5%% of the fastest at %d of %d points, within 10%% at %d.\n", h5, hpoints, h10
    printf "auto (with its own allreduce) within 5%% at %d of %d points, within 10%% at %d.\n", a5, apoints, a10
}' "$1"
