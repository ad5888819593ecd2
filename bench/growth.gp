# growth.gp -- draws the growth series of alea_bench (--growth FILE) on
# log-log axes: gnuplot -e "data='FILE'; out='bench/growth.svg'" bench/growth.gp
set terminal svg size 760,460 dynamic font "sans,12" background rgb "white"
set output out
set title "alea: time of an exact distribution against the number of dice N"
set logscale xy
set xlabel "N (dice)"
set ylabel "milliseconds (compile + dist, in-process)"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key bottom right box opaque
set xrange [8:1250]
set format y "10^{%L}"
plot for [i=0:3] data index i using 1:2 with linespoints lw 2 pt 7 ps 0.8 title columnheader(1)
