# make bench, the EROFS part: in-kernel mount against FUSE, seconds.
# gnuplot -e "data='erofs-chart.dat'; out='erofs.png'" erofs_chart.gp
set terminal pngcairo size 800,500 font ",10"
set output out
set termoption noenhanced
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set grid ytics
set logscale y
set ylabel "seconds (log scale), lower is better"
set title "A verified EROFS image in a user namespace: kernel against squashfuse_ll"
plot data using 2:xticlabels(1) title "EROFS, in the kernel", \
     "" using 3 title "squashfs through FUSE (squashfuse_ll)"
