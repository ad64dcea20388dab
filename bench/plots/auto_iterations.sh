#!/bin/sh
# auto_iterations.sh LOGDIR GRAPH P OUT.png: the per-iteration exchange
# time of every backend's run of GRAPH at P ranks (the engine's logs
# LOGDIR/GRAPH.PP.BACKEND.csv, as bench/simgrid/tc_apps.sh and
# kcfa_apps.sh write them; GRAPH is the program's name for kcfa-k1-n16),
# and below it the backend auto chose at each iteration with the
# iteration's N.
set -eu
[ $# -eq 4 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
dir=$1 graph=$2 P=$3 out=$4
command -v gnuplot >/dev/null || { echo "auto_iterations.sh: no gnuplot" >&2; exit 1; }
auto=$dir/$graph.P$P.auto.csv
[ -f "$auto" ] || { echo "auto_iterations.sh: no $auto" >&2; exit 1; }
plots=
for f in "$dir/$graph.P$P".*.csv; do
    b=${f#"$dir/$graph.P$P."}; b=${b%.csv}
    plots="$plots${plots:+, }'$f' using 2:(\$6*1e6) every ::1 with lines title '$b'"
done
# auto's choices as numbers, in registry order.
choices=$(mktemp)
trap 'rm -f "$choices"' EXIT
awk -F, 'NR > 1 && $10 != "none" {
    i = ($10 == "vendor") ? 0 : ($10 == "spread-out") ? 1 : ($10 == "padded-alltoall") ? 2 : ($10 == "padded-bruck") ? 3 : ($10 == "two-phase-bruck") ? 4 : ($10 == "pairwise") ? 5 : 6
    print $2, i, $3 }' "$auto" >"$choices"
gnuplot <<GP
set terminal pngcairo size 1100,800 font ",10" noenhanced
set output '$out'
set multiplot layout 2,1 title "$graph, P=$P, simulated Theta-like platform (copies charged)"
set datafile separator ","
set ylabel "exchange time per iteration (us)"
set logscale y
set key outside right
plot $plots
unset logscale y
set datafile separator whitespace
set ylabel "auto's choice"
set ytics ("vendor" 0, "spread-out" 1, "padded-alltoall" 2, "padded-bruck" 3, "two-phase-bruck" 4, "pairwise" 5, "inline-bruck" 6)
set yrange [-0.5:6.5]
set y2label "N (bytes)"
set y2tics
set logscale y2
set xlabel "iteration"
plot '$choices' using 1:2 with points pt 7 ps 0.5 title "chosen", \
     '$choices' using 1:3 axes x1y2 with lines lc rgb "gray" title "N"
unset multiplot
GP
