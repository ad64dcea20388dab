#!/bin/sh
# table.sh: a Markdown table of a ravel-a2a CSV: median microseconds per
# backend at each (P, N), the fastest backend, and how many times faster
# two-phase Bruck is than the MPICH-default algorithm (vendor where it was
# run, else spread-out, its stand-in at scale).
#
# usage: table.sh CSV [N...]   (default N: every N in the CSV)
set -eu
if [ $# -lt 1 ]; then
    sed -n '2,7p' "$0" >&2
    exit 2
fi
csv=$1
shift
awk -F, -v keep="$*" '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
    P = $col["P"]; b = $col["backend"]; N = $col["N"]; t = $col["median_us"]
    if (keep != "" && index(" " keep " ", " " N " ") == 0) next
    key = P SUBSEP N
    if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
    time[key, b] = t
}
END {
    nb = split("vendor spread-out padded-alltoall padded-bruck two-phase-bruck", B, " ")
    printf "| P | N |"
    for (i = 1; i <= nb; i++) printf " %s |", B[i]
    printf " fastest | two-phase vs MPICH default |\n|---|---|"
    for (i = 1; i <= nb + 2; i++) printf "---|"
    printf "\n"
    for (k = 1; k <= nk; k++) {
        split(keys[k], pn, SUBSEP)
        printf "| %s | %s |", pn[1], pn[2]
        best = ""; bt = 0
        for (i = 1; i <= nb; i++) {
            if ((keys[k], B[i]) in time) {
                t = time[keys[k], B[i]] + 0
                printf " %.1f |", t
                if (B[i] != "vendor" && (best == "" || t < bt)) { best = B[i]; bt = t }
            } else printf " - |"
        }
        base = ((keys[k], "vendor") in time) ? "vendor" : "spread-out"
        ratio = "-"
        if (((keys[k], base) in time) && ((keys[k], "two-phase-bruck") in time))
            ratio = sprintf("%.2fx (vs %s)", time[keys[k], base] / time[keys[k], "two-phase-bruck"], base)
        printf " %s | %s |\n", best, ratio
    }
}' "$csv"
