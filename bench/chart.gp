# make bench: ours against stock, per operation, in percent.
# gnuplot -e "data='chart.dat'; out='bench.png'" chart.gp
set terminal pngcairo size 1100,800 font ",10"
set output out
set termoption noenhanced
set style data histogram
set style fill solid 0.7 border -1
set xtics rotate by -30 nomirror
set grid ytics
set key top right
set multiplot layout 2,1 title "nscaps series against stock Debian 6.12: cost per operation (ours/stock - 1)"

set title "guest instructions per operation (QEMU -icount), deterministic"
set ylabel "percent"
set style histogram clustered gap 1
set yrange [*:*]
plot data using 5:xticlabels(1) title "ours, feature unused", \
     "" using 6 title "ours, mask set"

set title "wall clock (host TSC under TCG): median of the alternate boots, bars min..max"
set style histogram errorbars gap 1 lw 1
set yrange [-20:20]
plot data using 2:3:4:xticlabels(1) title "ours, feature unused"
unset multiplot
