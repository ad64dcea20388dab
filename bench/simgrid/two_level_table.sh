#!/bin/sh
# two_level_table.sh CSV: the Markdown table of two_level.sh's results:
# per P and N, the fastest flat backend and each two-level variant's time
# and its ratio to that fastest flat one (below 1: two-level is faster).
set -eu
[ $# -eq 1 ] || { echo "usage: two_level_table.sh CSV" >&2; exit 2; }
awk -F, 'NR > 1 {
    key = $1 "," $5
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    if ($2 ~ /^two-level:/) {
        if (!($2 in isvar)) { isvar[$2] = 1; vars[++nv] = $2 }
        tl[key, $2] = $10
    } else if (!(key in best) || $10 < best[key]) {
        best[key] = $10; bestname[key] = $2
    }
}
END {
    printf "| P | N (B) | fastest flat | us |"
    for (v = 1; v <= nv; v++) printf " %s us | ratio |", vars[v]
    printf "\n|---:|---:|---|---:|"
    for (v = 1; v <= nv; v++) printf "---:|---:|"
    printf "\n"
    for (i = 1; i <= nk; i++) {
        k = keys[i]; split(k, pn, ",")
        if (k in best) printf "| %s | %s | %s | %.1f |", pn[1], pn[2], bestname[k], best[k]
        else printf "| %s | %s | (not run) | |", pn[1], pn[2]
        for (v = 1; v <= nv; v++) {
            t = tl[k, vars[v]]
            if (t == "") printf " | |"
            else if (k in best) printf " %.1f | %.2f |", t, t / best[k]
            else printf " %.1f | |", t
        }
        printf "\n"
    }
}' "$1"
