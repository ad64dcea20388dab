#!/bin/sh
# plot.sh: PNG plots of a ravel-a2a CSV with gnuplot, after Fan et al.,
# HPDC'22:
#   PREFIX_time_vs_N_P<P>.png  time against N for each backend, one plot
#                              per P (the paper's Figure 6)
#   PREFIX_time_vs_P_N<N>.png  time against P at a fixed N (Figure 7)
#   PREFIX_winner.png          the backend with the lowest median time at
#                              each (N, P), vendor excluded since it is only
#                              run at small P (Figure 9)
#
# usage: plot.sh CSV PREFIX [TITLE]
# Environment: FIXED_NS (default "256 2048"): the N of the time-vs-P plots.
set -eu
if [ $# -lt 2 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
csv=$1 prefix=$2 title=${3:-$(basename "$csv" .csv)}
FIXED_NS=${FIXED_NS:-256 2048}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ravel-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
backends="vendor spread-out padded-alltoall padded-bruck two-phase-bruck"

# Columns of the CSV (by name, so a reordered header still works).
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
cP=$(col P) cB=$(col backend) cN=$(col N) cT=$(col median_us)

# One data file per (backend) with "P N time" lines.
for b in $backends; do
    awk -F, -v b="$b" -v cP="$cP" -v cB="$cB" -v cN="$cN" -v cT="$cT" \
        'NR > 1 && $cB == b { print $cP, $cN, $cT }' "$csv" | sort -n -k1,1 -k2,2 >"$tmp/$b.dat"
done
Ps=$(awk -F, -v c="$cP" 'NR > 1 { print $c }' "$csv" | sort -nu)

plot_lines() { # $1: output, $2: title, $3: xlabel, $4: x column, $5: filter
    {
        echo "set terminal pngcairo size 800,560 noenhanced"
        echo "set output '$1'"
        echo "set title '$2'"
        echo "set xlabel '$3'; set ylabel 'median time per call (us)'"
        echo "set logscale x 2; set logscale y; set grid; set key top left"
        printf "plot "
        sep=""
        for b in $backends; do
            awk "$5" "$tmp/$b.dat" >"$tmp/$b.sel"
            [ -s "$tmp/$b.sel" ] || continue
            printf "%s'%s' using %s:3 with linespoints title '%s'" "$sep" "$tmp/$b.sel" "$4" "$b"
            sep=", "
        done
        echo
    } >"$tmp/plot.gp"
    gnuplot "$tmp/plot.gp"
}

for P in $Ps; do
    plot_lines "${prefix}_time_vs_N_P$P.png" "$title: P = $P" \
        "N: largest block (bytes)" 2 "\$1 == $P"
done
for N in $FIXED_NS; do
    plot_lines "${prefix}_time_vs_P_N$N.png" "$title: N = $N bytes" \
        "P: ranks" 1 "\$2 == $N"
done

# The winner at each (N, P) among the backends run at every P, at the
# points where all four were measured.
for b in spread-out padded-alltoall padded-bruck two-phase-bruck; do
    awk -v b="$b" '{ print $1, $2, $3, b }' "$tmp/$b.dat"
done | sort -k1,1n -k2,2n -k3,3g | awk '
    # only the points where all four backends were measured
    { key = $1 " " $2; n[key]++; if (!(key in best)) { best[key] = $4 " " $3; order[++k] = key } }
    END { for (i = 1; i <= k; i++) if (n[order[i]] == 4) print order[i], best[order[i]] }' \
    >"$tmp/winner.dat"
cp "$tmp/winner.dat" "${prefix}_winner.txt"
{
    echo "set terminal pngcairo size 800,560 noenhanced"
    echo "set output '${prefix}_winner.png'"
    echo "set title '$title: fastest backend (vendor excluded)'"
    echo "set xlabel 'N: largest block (bytes)'; set ylabel 'P: ranks'"
    echo "set logscale x 2; set logscale y 2; set grid; set key outside right"
    echo "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05"
    printf "plot "
    sep=""
    pt=5
    for b in spread-out padded-alltoall padded-bruck two-phase-bruck; do
        printf "%s'%s' using 2:(stringcolumn(3) eq '%s' ? \$1 : 1/0) with points pt %d ps 2.5 title '%s'" \
            "$sep" "$tmp/winner.dat" "$b" "$pt" "$b"
        sep=", "
        pt=$((pt + 2))
    done
    echo
} >"$tmp/winner.gp"
gnuplot "$tmp/winner.gp"
