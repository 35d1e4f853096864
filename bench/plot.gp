# SPDX-License-Identifier: GPL-2.0
#
# Plots of the benchmark results (make bench-plot):
#
#   gnuplot -e "dir='build/bench'" bench/plot.gp
#
# reads dir/nsop.dat, dir/lateness.dat and dir/plotvars.gp (all written by
# bench/report.pl) and draws dir/benchmarks.png: start+cancel and modify
# cost against the number of pending timers, and the lateness histograms of
# the kernel and user-space runs.

if (!exists("dir")) dir = 'build/bench'
tick_ns = 0
note = ''
if (strlen(system('test -f '.dir.'/plotvars.gp && echo y')) > 0) load dir.'/plotvars.gp'

set terminal pngcairo size 1400,1000 font 'sans,10'
set output dir.'/benchmarks.png'
set multiplot layout 2,2 title 'hwtimer benchmarks (QEMU TCG: compare the ratios, not the absolute times)'.note

set style line 1 lc rgb '#1b9e77' lw 2 pt 7 ps 1
set style line 2 lc rgb '#d95f02' lw 2 pt 5 ps 1
set style line 3 lc rgb '#7570b3' lw 2 pt 9 ps 1
set style line 4 lc rgb '#e7298a' lw 2 pt 11 ps 1
set grid
set key top left

set logscale xy 10
set xlabel 'timers already pending (N)'
set ylabel 'ns per operation (median, min-max bars)'
set format x '10^{%L}'

set title 'start + cancel pair'
plot dir.'/nsop.dat' using 1:2:3:4 with yerrorlines ls 1 title 'hwtimer', \
     ''           using 1:5:6:7 with yerrorlines ls 2 title 'timer\_list', \
     ''           using 1:8:9:10 with yerrorlines ls 3 title 'hrtimer'

set title 'modify (re-arm) of a pending timer'
plot dir.'/nsop.dat' using 1:11:12:13 with yerrorlines ls 1 title 'hwtimer', \
     ''           using 1:14:15:16 with yerrorlines ls 2 title 'timer\_list', \
     ''           using 1:17:18:19 with yerrorlines ls 3 title 'hrtimer'

unset logscale y
set xlabel 'lateness (ns, log_2 bins: [x, 2x))'
set ylabel 'fraction of timers'
set key top right
if (tick_ns > 0) set arrow 1 from tick_ns, graph 0 to tick_ns, graph 1 nohead dt 2 lc rgb '#555555'
if (tick_ns > 0) set label 1 'one tick' at tick_ns, graph 0.95 offset 0.5,0

set title 'kernel lateness'
plot dir.'/lateness.dat' using 1:2 with histeps ls 1 title 'hwtimer', \
     ''               using 1:3 with histeps ls 2 title 'timer\_list', \
     ''               using 1:4 with histeps ls 3 title 'hrtimer (soft)'

unset arrow 1
unset label 1
set title 'user-space lateness (deadline to the reader having the expiration)'
plot dir.'/lateness.dat' using 1:5 with histeps ls 1 title '/dev/hwtimer read()', \
     ''               using 1:6 with histeps ls 4 title 'timerfd + epoll'

unset multiplot
