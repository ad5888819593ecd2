# growth.gp -- draws the growth series of alea_bench (--growth FILE) on
# log-log axes: gnuplot -e "data='FILE'; out='bench/growth.svg'" bench/growth.gp
set terminal svg size 760,460 dynamic font "sans,12" background rgb "white"
set output out
set title "alea: time of a distribution against the number of dice N (dashed: in fractions)"
set logscale xy
set xlabel "N (dice)"
set ylabel "milliseconds (compile + dist, in-process)"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top left box opaque font ",10"
set xrange [8:1250]
set yrange [1e-3:3e4]
set format y "10^{%L}"
# series 0-3 in doubles, 4-6 exact fractions (dashed, 4-5 in the colour
# of their doubles: keep 0 and 4, sum 3 and 5; 6 the sum of d6)
colour(i) = i == 4 ? 1 : i == 5 ? 4 : i == 6 ? 7 : i + 1
dash(i) = i >= 4 ? 2 : 1
plot for [i=0:6] data index i using 1:2 with linespoints lw 2 pt 7 ps 0.8 \
     lc colour(i) dashtype dash(i) title columnheader(1)
