# make bench: ours against stock, per operation, in percent.
# gnuplot -e "data='chart.dat'; out='bench.png'" chart.gp
set terminal pngcairo size 1100,560 font ",10"
set output out
set title "nscaps series against stock Debian 6.12: cost per operation (ours/stock - 1)"
set ylabel "percent"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set xtics rotate by -30 nomirror
set grid ytics
set key top left
set yrange [-5:5]
plot data using 2:3:4:xticlabels(1) title "wall clock, median (bars: min..max)", \
     "" using 5:5:5 title "instructions (-icount)", \
     "" using 6:6:6 title "instructions, mask set"
