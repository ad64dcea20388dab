#!/bin/sh
# radix_plot.sh CSV PREFIX: radix-bruck's simulated time against its radix,
# one line per N, one PNG per (P, distribution): PREFIX_P<P>_<dist>.png.
# CSV: family_study.sh's radix.csv (bench/results/comm_family).
set -eu
csv=${1:?usage: radix_plot.sh CSV PREFIX} prefix=${2:?usage: radix_plot.sh CSV PREFIX}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ravel-radix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
col() { head -1 "$csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
cP=$(col P) cB=$(col backend) cD=$(col dist) cN=$(col N) cT=$(col median_us)
awk -F, -v cP="$cP" -v cD="$cD" 'NR > 1 { print $cP "," $cD }' "$csv" | sort -u |
while IFS=, read -r P dist; do
    name=$(echo "$dist" | tr ':' '_')
    plots=
    for N in $(awk -F, -v cP="$cP" -v cD="$cD" -v cN="$cN" -v P="$P" -v d="$dist" \
                   'NR > 1 && $cP == P && $cD == d { print $cN }' "$csv" | sort -nu); do
        awk -F, -v cP="$cP" -v cD="$cD" -v cN="$cN" -v cB="$cB" -v cT="$cT" \
            -v P="$P" -v d="$dist" -v N="$N" \
            'NR > 1 && $cP == P && $cD == d && $cN == N {
                 split($cB, b, ":"); print b[2], $cT }' "$csv" |
            sort -n >"$tmp/$N.dat"
        plots="$plots${plots:+, }'$tmp/$N.dat' using 1:2 with linespoints title 'N = $N B'"
    done
    gnuplot <<GP
set terminal pngcairo size 800,560 noenhanced
set output '${prefix}_P${P}_${name}.png'
set title 'radix-bruck, P = $P, $dist blocks (SMPI, Theta-like, copies charged)'
set xlabel 'radix r'; set ylabel 'median time per call (us)'
set logscale x 2; set logscale y; set key left top
plot $plots
GP
done
