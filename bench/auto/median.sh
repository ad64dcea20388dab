# median.sh: sourced by the table scripts of bench/auto (POSIX sh).
# median: the median of the numbers on standard input, one per line
# ("nan" when there are none).
median() { sort -g | awk '{ v[NR] = $1 } END {
  if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
  else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
