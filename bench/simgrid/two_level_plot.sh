#!/bin/sh
# two_level_plot.sh CSV PNG: time per call against N, one panel per P, of
# the fastest flat backend at each N and of each two-level variant, from
# two_level.sh's CSV (gnuplot).
set -eu
[ $# -eq 2 ] || { echo "usage: two_level_plot.sh CSV PNG" >&2; exit 2; }
csv=$1 png=$2
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# Rows "P N series time", the fastest flat backend as series "flat".
awk -F, 'NR > 1 {
    if ($2 ~ /^two-level:/) print $1, $5, $2, $10
    else if (!(($1, $5) in best) || $10 < best[$1, $5]) best[$1, $5] = $10
} END { for (k in best) { split(k, pn, SUBSEP); print pn[1], pn[2], "flat", best[k] } }' \
    "$csv" | sort -k1,1n -k3,3 -k2,2n >"$dat"
Ps=$(awk '{ print $1 }' "$dat" | sort -un | tr '\n' ' ')
series=$(awk '{ print $3 }' "$dat" | sort -u | tr '\n' ' ')
np=$(echo $Ps | wc -w)
{
    echo "set terminal pngcairo size $((420 * np)),400"
    echo "set output '$png'"
    echo "set logscale xy; set xlabel 'N, largest block (bytes)'; set ylabel 'us per call (simulated)'"
    echo "set key bottom right; set grid"
    echo "set multiplot layout 1,$np"
    for P in $Ps; do
        echo "set title 'P = $P, 64 ranks a node (Theta-like)'"
        printf "plot"
        sep=""
        for s in $series; do
            label=$s
            [ "$s" = flat ] && label="fastest flat backend"
            printf "%s '%s' using (\$1==%s && strcol(3) eq '%s' ? \$2 : 1/0):4 with linespoints title '%s'" \
                "$sep" "$dat" "$P" "$s" "$label"
            sep=","
        done
        echo
    done
    echo "unset multiplot"
} | gnuplot
