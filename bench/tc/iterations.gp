# N (largest block one rank sent another) and comm time per iteration of one
# engine run, from its --log CSV: the HPDC'22 paper's Figure 12.
# gnuplot -e "logfile='LOG.csv'; out='OUT.png'; title='...'" iterations.gp
set datafile separator ','
set terminal pngcairo size 1000,500 font ',11'
set output out
set title title
set xlabel 'iteration'
set ylabel 'N, largest block (KiB)'
set y2label 'comm time (ms)'
set ytics nomirror
set y2tics
set key top right
set grid
plot logfile skip 1 using 2:($3/1024) with linespoints pt 7 ps 0.5 title 'N (KiB)', \
     logfile skip 1 using 2:($6*1000) axes x1y2 with linespoints pt 5 ps 0.5 title 'comm time (ms)'
