#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# Turn the benchmark VM's serial log into the results: a table on stdout
# (also OUT/table.md), OUT/results.json, OUT/results.csv, the gnuplot data
# files OUT/nsop.dat and OUT/lateness.dat, and the target lines.
#
#   bench/report.pl LOG OUT
#
# With ICOUNT_LOG, the log of the instruction-count boot (bench/lib.sh,
# bench_icount_boot): an instruction table, the device's data path per
# entry (bench/hwtbench-dev.c), and the kernel API targets' figures in
# instructions on their lines. With ICOUNT_ONLY too, only those tables
# (make bench-icount).
#
# The log lines it reads (from hwtbench.ko and hwtbench-user):
#   R group facility n metric unit median min max reps    a measured figure
#   H scope facility bin low_ns count                     lateness histogram
#   I key value                                           about the run
#   E text                                                an error
#   N text                                                a note (printed)
#   D text                                                a detail (JSON only)
#
# Every figure is put next to its anchor, the same measurement through
# timer_list and hrtimer (kernel) or, in user space, timerfd (one per
# timeout), a pool of timerfds, timerfd with edge-triggered epoll and an
# in-process timing wheel (uwheel), from the same boot, as a ratio:
# hwtimer's value / the anchor's.
#
# Exit status: 0, or 1 if the log has errors or lacks results. A missed
# target is reported, not an error.
use strict;
use warnings;
use JSON::PP;

my ($log, $out) = @ARGV;
die "usage: report.pl LOG OUT\n" unless defined $out;

my (%info, @order, %res, %hist, @errors, @notes, @details);

open(my $fh, '<', $log) or die "report.pl: $log: $!\n";
while (my $line = <$fh>) {
	$line =~ s/\r//g;
	chomp $line;
	if ($line =~ /^R (\S+) (\S+) (\d+) (\S+) (\S+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (\d+)\s*$/) {
		my %r = (group => $1, facility => $2, n => $3 + 0, metric => $4,
			 unit => $5, median => $6 + 0, min => $7 + 0, max => $8 + 0,
			 reps => $9 + 0);
		my $key = "$1|$2|$3|$4";
		push @order, $key unless exists $res{$key};
		$res{$key} = \%r;
	} elsif ($line =~ /^H (\S+) (\S+) (\d+) (\d+) (\d+)\s*$/) {
		$hist{"$1 $2"}{$3} = { low => $4 + 0, count => $5 + 0 };
	} elsif ($line =~ /^I (\S+) (.*?)\s*$/) {
		$info{$1} = $2;
	} elsif ($line =~ /^E (.*?)\s*$/) {
		push @errors, $1;
	} elsif ($line =~ /^N (.*?)\s*$/) {
		push @notes, $1;
	} elsif ($line =~ /^D (.*?)\s*$/) {
		push @details, $1;
	}
}
close($fh);

push @errors, "no results in $log" unless @order;

# The same kernel benchmarks from the instruction-count boot (bench/lib.sh,
# bench_icount_boot): there a guest ns is a guest instruction. Only their
# R lines are read; its errors are the judge's (check lines).
my %ires;
if ($ENV{ICOUNT_LOG}) {
	open(my $ifh, '<', $ENV{ICOUNT_LOG}) or die "report.pl: $ENV{ICOUNT_LOG}: $!\n";
	while (my $line = <$ifh>) {
		$line =~ s/\r//g;
		next unless $line =~ /^R (\S+) (\S+) (\d+) (\S+) \S+ (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (\d+)\s*$/;
		$ires{"$1|$2|$3|$4"} = { median => $5 + 0, min => $6 + 0, max => $7 + 0, reps => $8 + 0 };
	}
	close($ifh);
}
sub iget {
	my $r = $ires{join('|', @_)};
	return $r ? $r->{median} : undef;
}

sub get {
	my ($group, $fac, $n, $metric) = @_;
	my $r = $res{"$group|$fac|$n|$metric"};
	return $r ? $r->{median} : undef;
}

# The figure's value over its anchor's (same group, n and metric).
sub ratio {
	my ($r, $anchor) = @_;
	my $a = $res{"$r->{group}|$anchor|$r->{n}|$r->{metric}"};
	return undef unless $a && $a->{median} != 0;
	return $r->{median} / $a->{median};
}

sub num {
	my ($v) = @_;
	return '-' unless defined $v;
	my $a = abs($v);
	return sprintf('%.0f', $v) if $a >= 1000;
	return sprintf('%.1f', $v) if $a >= 10;
	return sprintf('%.2f', $v) if $a >= 0.1 || $a == 0;
	return sprintf('%.3f', $v);
}

sub cell {
	my ($r) = @_;
	return '-' unless $r;
	return num($r->{median}) if $r->{reps} < 2 || $r->{min} == $r->{max};
	return sprintf('%s [%s-%s]', num($r->{median}), num($r->{min}), num($r->{max}));
}

sub human_n {
	my ($n) = @_;
	return ($n / 1000000) . 'M' if $n >= 1000000 && $n % 1000000 == 0;
	return ($n / 1000) . 'k' if $n >= 1000 && $n % 1000 == 0;
	return $n;
}

my @kfac = qw(hwtimer timer_list hrtimer);
# User space: the device through libhwtimer and its ring (hwtimer), through
# plain ioctl()/read() (hwtimer_raw) and one entry per ioctl; the kernel
# peers (timerfd in its forms, io_uring); the in-process wheel.
my @ufac = qw(hwtimer hwtimer_raw hwtimer_single timerfd timerfd_pool timerfd_epoll
	      timerfd_epollet io_uring uwheel);
my @ufac_title = ('hwtimer (libhwtimer, ring)', 'hwtimer (ioctl, read)', 'hwtimer (1 per ioctl)',
		  'timerfd', 'timerfd pool', 'timerfd+epoll', 'timerfd pool+epoll ET', 'io_uring',
		  'in-process wheel');
# The anchors of the user-space ratios.
my @uanchor = qw(timerfd timerfd_pool timerfd_epollet io_uring uwheel);
my @uanchor_title = qw(hwt/timerfd hwt/pool hwt/pool+ET hwt/io_uring hwt/wheel);
my %is_kfac = map { $_ => 1 } @kfac;

# Rows of the kernel table and of the user table, in the order measured.
my (@krows, @urows, @orows, @wrows, %seen);
for my $key (@order) {
	my $r = $res{$key};
	my $row = "$r->{group}|$r->{n}|$r->{metric}";
	next if $seen{$row}++;
	if ($r->{facility} eq '-') {
		push @orows, $r;
	} elsif ($r->{group} =~ /^wake_/) {
		push @wrows, $row;
	} elsif ($r->{group} =~ /^user_/) {
		push @urows, $row unless $r->{group} eq 'user_scale';
	} else {
		push @krows, $row;
	}
}

# The user-space tables: every measurement at N, and the scale benchmark,
# each operation's cost at each number pending.
sub user_tables {
	my ($t) = @_;
	if (@urows) {
		push @$t, '';
		push @$t, '| user space | N | metric | unit | ' . join(' | ', @ufac_title, @uanchor_title) . ' |';
		push @$t, '|' . ('---|' x (4 + @ufac + @uanchor));
		for my $row (@urows) {
			my ($g, $n, $m) = split /\|/, $row;
			my %c = map { $_ => $res{"$g|$_|$n|$m"} } @ufac;
			my ($any) = grep { defined } values %c;
			my $h = $c{hwtimer};
			push @$t, sprintf('| %s | %s | %s | %s | %s |', $g =~ s/^user_//r, human_n($n),
				$m, $any->{unit}, join(' | ', (map { cell($c{$_}) } @ufac),
				map { $h ? num(ratio($h, $_)) : '-' } @uanchor));
		}
	}
	my @sn = sort { $a <=> $b } keys %{{ map { $res{$_}{n} => 1 } grep { /^user_scale\|/ } keys %res }};
	return unless @sn;
	push @$t, '';
	push @$t, '| user scale, ns per operation | ' . join(' | ', map { human_n($_) . ' pending' } @sn)
		. ' | ' . human_n($sn[-1]) . '/' . human_n($sn[0]) . ' |';
	push @$t, '|' . ('---|' x (2 + @sn));
	for my $m (qw(arm modify_random cancel_random)) {
		for my $fac (@ufac) {
			my @c = map { $res{"user_scale|$fac|$_|$m"} } @sn;
			next unless grep { defined } @c;
			my ($lo, $hi) = ($c[0], $c[-1]);
			push @$t, sprintf('| %s %s | %s | %s |', $fac, $m, join(' | ', map { cell($_) } @c),
				$lo && $hi && $lo->{median} ? num($hi->{median} / $lo->{median}) : '-');
		}
	}
}

my @table;
my $cs = $info{clocksource} // 'unknown';
my $cpus = $info{cpus} // $info{guest_cpus} // '?';
push @table, "Measured in QEMU with TCG emulation ($cpus vCPUs, clocksource $cs, tick "
	. ($info{tick_ns} // '?') . " ns, " . ($info{slots} // '?') . " slots): absolute"
	. " times under emulation mean little; compare the ratios, each against an anchor"
	. " measured in the same boot. Cells: median [min-max] over the repetitions.";
push @table, '';
push @table, '| benchmark | N | metric | unit | hwtimer | timer_list | hrtimer | hwt/timer_list | hwt/hrtimer |';
push @table, '|---|---|---|---|---|---|---|---|---|';
for my $row (@krows) {
	my ($g, $n, $m) = split /\|/, $row;
	my %c = map { $_ => $res{"$g|$_|$n|$m"} } @kfac;
	my ($any) = grep { defined } values %c;
	my $h = $c{hwtimer};
	# startcancel_idle: N is what else is pending on each CPU.
	my $nn = $g eq 'startcancel_idle' ? "$n/CPU" : $n ? human_n($n) : '-';
	push @table, sprintf('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', $g, $nn, $m, $any->{unit}, cell($h), cell($c{timer_list}),
		cell($c{hrtimer}), $h ? num(ratio($h, 'timer_list')) : '-',
		$h ? num(ratio($h, 'hrtimer')) : '-');
}
user_tables(\@table);
push @table, wake_table(@wrows);
# Instructions per operation (ICOUNT_LOG): each kernel API figure next to
# timer_list's, the difference, and what a clock read and a division cost
# in the same units.
sub icount_table {
	return () unless %ires;
	my @in = sort { $a <=> $b } keys %{{ map { (split /\|/)[2] => 1 } grep { /^startcancel\|hwtimer\|/ } keys %ires }};
	# pair_clock: hwtimer's pair against timer_list's with a clock read.
	my @rows = ((map { [ 'startcancel', $_, 'pair', human_n($_) ] } @in),
		    (map { [ 'startcancel_idle', $_, 'pair', "$_/CPU" ] } (0, 1)),
		    (map { [ 'startcancel', $_, 'pair_clock', human_n($_) ] } @in),
		    (map { [ 'startcancel_idle', $_, 'pair_clock', "$_/CPU" ] } (0, 1)),
		    (map { [ 'modify', $_, 'modify', human_n($_) ] } @in),
		    (map { my $mn = $_; map { [ 'modify', $mn, $_, human_n($mn) ] } qw(moved same_slot) } @in),
		    (map { my $en = $_; map { [ 'expiry', $en, "${_}_cpu_per_expiry", human_n($en) ] }
			   qw(same_tick spread) }
		     sort { $a <=> $b } keys %{{ map { (split /\|/)[2] => 1 } grep { /^expiry\|hwtimer\|/ } keys %ires }}));
	my @t = ('', 'Instructions executed per operation: the same kernel benchmarks in a boot where QEMU '
		 . 'counts one guest ns per guest instruction (`-icount shift=0`, one vCPU). Memory '
		 . 'latency is not counted. A clock read (`ktime_get_ns()`) is '
		 . num(iget('calib', '-', 0, 'ktime_get_ns')) . ' instructions, `local_clock()` '
		 . num(iget('calib', '-', 0, 'local_clock')) . ', a `div64_u64()` call '
		 . num(iget('calib', '-', 0, 'div64_u64')) . ', a raw irqsave lock round '
		 . num(iget('calib', '-', 0, 'raw_spin_lock_irqsave')) . '. The pair_clock rows hold '
		 . "hwtimer's pair against timer_list's with a clock read before each start.", '',
		 '| instructions | N | metric | hwtimer | timer_list | hrtimer | hwt/timer_list | hwt - timer_list |',
		 '|---|---|---|---|---|---|---|---|');
	for my $r (@rows) {
		my ($g, $n, $m, $nn) = @$r;
		my ($h, $l, $hr) = map { iget($g, $_, $n, $m) } @kfac;
		($h, $l, $hr) = (iget($g, 'hwtimer', $n, 'pair'), $l, undef) if $m eq 'pair_clock';
		next unless defined $h && ($m ne 'pair_clock' || defined $l);
		push @t, sprintf('| %s | %s | %s | %s | %s | %s | %s | %s |', $g, $nn, $m, num($h), num($l),
				 num($hr), defined $l && $l ? num($h / $l) : '-',
				 defined $l ? sprintf('%+.0f', $h - $l) : '-');
	}
	return (@t, icount_dev_table());
}

# /dev/hwtimer's data path per entry, from the same boot (bench/hwtbench-dev.c):
# each operation at each number pending, in the kernel alone and with the
# system call or interrupt that enters it, shared by a batch; then what
# those entries cost alone.
sub icount_dev_table {
	my @dn = sort { $a <=> $b } keys %{{ map { (split /\|/)[2] => 1 } grep { /^dev\|hwtimer\|/ } keys %ires }};
	return () unless @dn;
	my ($k, $rounds, $passes) = map { iget('dev', '-', 0, $_) } qw(batch rounds passes);
	$_ //= '?' for ($k, $rounds, $passes);
	my @ops = (
		[ 'arm', 'ARM of a timeout at a random delay' ],
		[ 'modify', 'MODIFY of a random pending timeout to a random delay' ],
		[ 'cancel', 'CANCEL of a random pending timeout' ],
		[ 'deliver', "delivery: the expiry pass expires a due timeout and writes its record into the mmap'd ring" ],
		[ 'cascade', "a cascade: the pass moves a due timeout's level-1 bucket to level 0 first (per level above 0 it waited in)" ],
		[ 'deliver_queue', 'the same, a file without a ring: the pass queues the record for read()' ],
		[ 'read', 'read() of a queued record' ],
	);
	my @fixed = (
		[ 'ioctl_empty', 'an empty ioctl() (an unknown command: ENOTTY), per call' ],
		[ 'read_empty', 'an empty read() (O_NONBLOCK, nothing queued: EAGAIN), per call' ],
		[ 'pass_one', 'an expiry pass with one record, interrupt to return, per pass' ],
	);
	my @t = ('', "/dev/hwtimer's data path in instructions per entry, from user space in the same "
		 . "boot (hwtbench-dev), with N timeouts pending in the file, in batches of $k entries. "
		 . "ARM, MODIFY, CANCEL: the median ioctl() of $rounds, timed around the call, less an "
		 . "empty ioctl() timed the same way, over $k: the batch's own work shared out, the "
		 . 'system call not. Delivery: the CPU time of the interrupt that ran the expiry pass '
		 . "(the gap in a user-space loop of clock reads that holds the records' expired_ns), "
		 . "median of $passes, less that of a pass with one record, over " . ($k =~ /^\d+$/ ? $k - 1 : '?')
		 . ', the deadline two ticks ahead (level 0 of the file\'s wheel); cascade: the same '
		 . 'with the deadline 100 ticks ahead (level 1), less the pass from level 0, over '
		 . "$k. read(): one call taking the pass's records, less an empty read(), over "
		 . "$k. With its entry: the same not less the empty call or the one-record pass.", '',
		 '| device, instructions | N | per entry, in the kernel | per entry, with its entry |',
		 '|---|---|---|---|');
	for my $op (@ops) {
		for my $n (@dn) {
			my $v = iget('dev', 'hwtimer', $n, $op->[0]);
			next unless defined $v;
			push @t, sprintf('| %s | %s | %s | %s |', $op->[1], human_n($n), num($v),
					 num(iget('dev', 'hwtimer', $n, "$op->[0]_with_entry")));
		}
	}
	for my $f (@fixed) {
		for my $n (@dn) {
			my $v = iget('dev', 'hwtimer', $n, $f->[0]);
			push @t, sprintf('| %s | %s | %s | - |', $f->[1], human_n($n), num($v)) if defined $v;
		}
	}
	return @t;
}

# A target's figure in instructions, for its line: hwtimer's over
# timer_list's, and the difference next to a clock read's.
sub icount_shown {
	my ($g, $n, $m) = @_;
	my ($h, $l) = map { iget($g, $_, $n, $m) } qw(hwtimer timer_list);
	my $c = iget('calib', '-', 0, 'ktime_get_ns');
	return '' unless defined $h && defined $l && $l;
	return sprintf('; in instructions %s (%.0f against %.0f, %+.0f; a clock read %s)',
		       num($h / $l), $h, $l, $h - $l, num($c));
}

# hwtimer's pair over timer_list's pair with a clock read before each
# start (pair_clock, hwtbench_kernel.c): what the pair costs besides the
# clock read its relative deadline needs, both priced inside the path.
sub clock_shown {
	my ($g, $n) = @_;
	my $h = get($g, 'hwtimer', $n, 'pair');
	my $c = get($g, 'timer_list', $n, 'pair_clock');
	return '' unless defined $h && defined $c && $c;
	return sprintf('; against timer_list with a clock read %s (%.0f ns against %.0f%s)',
		       num($h / $c), $h, $c, clock_icount($g, $n));
}

# The same two in instructions, when the instruction-count boot ran.
sub clock_icount {
	my ($g, $n) = @_;
	my ($h, $c) = (iget($g, 'hwtimer', $n, 'pair'), iget($g, 'timer_list', $n, 'pair_clock'));
	return '' unless defined $h && defined $c;
	return sprintf('; in instructions %.0f against %.0f', $h, $c);
}

if ($ENV{ICOUNT_ONLY}) {
	my @t = icount_table();
	push @errors, "no instruction counts in $ENV{ICOUNT_LOG}" unless @t;
	print join("\n", @t), "\n";
	print "error: $_\n" for @errors;
	exit(@errors ? 1 : 0);
}

if (@orows) {
	push @table, '';
	push @table, '| reference | metric | unit | value |';
	push @table, '|---|---|---|---|';
	push @table, sprintf('| %s | %s | %s | %s |', $_->{group}, $_->{metric}, $_->{unit},
		cell($_)) for @orows;
}
push @table, icount_table();

# ---- targets ---------------------------------------------------------------

my @targets;
sub target {
	my ($name, $value, $op, $goal, $shown) = @_;
	my $met = 0;
	if (defined $value) {
		$met = $op eq '<=' ? $value <= $goal : $op eq '>=' ? $value >= $goal :
		       $op eq '<' ? $value < $goal : $value == $goal;
	}
	push @targets, { name => $name, value => $value, op => $op, goal => $goal,
			 met => $met ? JSON::PP::true : JSON::PP::false,
			 shown => $shown // (defined $value ? num($value) : 'no-data') };
}

sub div {
	my ($a, $b) = @_;
	return undef unless defined $a && defined $b && $b != 0;
	return $a / $b;
}

my @sizes = sort { $a <=> $b } map { $res{$_}{n} } grep { /^startcancel\|hwtimer\|\d+\|pair$/ } keys %res;
my $big = $sizes[-1] // 0;
my $bn = human_n($big);
my $sc_tl = div(get('startcancel', 'hwtimer', $big, 'pair'), get('startcancel', 'timer_list', $big, 'pair'));
target("start+cancel\@${bn}_pending/timer_list", $sc_tl, '<=', 0.8,
       defined $sc_tl ? num($sc_tl) . icount_shown('startcancel', $big, 'pair')
       . clock_shown('startcancel', $big) : undef);
{
	# The pair besides its clock read, against timer_list's pair with one,
	# in the same boot.
	my $v = div(get('startcancel', 'hwtimer', $big, 'pair'),
		    get('startcancel', 'timer_list', $big, 'pair_clock'));
	target("start+cancel\@${bn}_pending/timer_list_with_a_clock_read", $v, '<=', 1.0,
	       defined $v ? sprintf('%s (%.0f ns against %.0f; timer_list without it %.0f%s)', num($v),
				    get('startcancel', 'hwtimer', $big, 'pair'),
				    get('startcancel', 'timer_list', $big, 'pair_clock'),
				    get('startcancel', 'timer_list', $big, 'pair'),
				    clock_icount('startcancel', $big)) : undef);
}
{
	# At most timer_list's cost, with hwtimer's p99 lateness within a tick
	# (timer_list's is tens of ticks).
	my ($ln) = map { $res{$_}{n} } grep { /^lateness\|hwtimer\|\d+\|p99_ticks$/ } keys %res;
	my $p99 = defined $ln ? get('lateness', 'hwtimer', $ln, 'p99_ticks') : undef;
	my $tlp99 = defined $ln ? get('lateness', 'timer_list', $ln, 'p99_ticks') : undef;
	target("start+cancel\@${bn}_pending/timer_list_with_p99_lateness<=1tick", $sc_tl, '<=', 1.0,
	       defined $sc_tl ? sprintf('%s (p99 lateness %s ticks, timer_list %s)', num($sc_tl),
					num($p99), num($tlp99)) : undef);
	$targets[-1]{met} = JSON::PP::false unless defined $p99 && $p99 <= 1;
}
target("start+cancel\@${bn}_pending/hrtimer",
	div(get('startcancel', 'hwtimer', $big, 'pair'), get('startcancel', 'hrtimer', $big, 'pair')),
	'<=', 0.5);
{
	# Nothing else pending on the CPU (N = 0), and one timer (N = 1): the
	# worse of the two.
	my @r = map { div(get('startcancel_idle', 'hwtimer', $_, 'pair'),
			  get('startcancel_idle', 'timer_list', $_, 'pair')) } (0, 1);
	my $worst = (grep { !defined } @r) ? undef : ($r[0] > $r[1] ? $r[0] : $r[1]);
	target('start+cancel_nothing_else_pending/timer_list', $worst, '<=', 1.2,
	       defined $worst ? sprintf('%s (N=0 %s, N=1 %s)', num($worst), num($r[0]), num($r[1]))
	       . icount_shown('startcancel_idle', $r[0] > $r[1] ? 0 : 1, 'pair')
	       . clock_shown('startcancel_idle', $r[0] > $r[1] ? 0 : 1) : undef);
}
my ($en) = map { $res{$_}{n} } grep { /^expiry\|hwtimer\|\d+\|same_tick_first_to_last$/ } keys %res;
$en //= 0;
{
	my $ex = div(get('expiry', 'hwtimer', $en, 'same_tick_first_to_last'),
		     get('expiry', 'timer_list', $en, 'same_tick_first_to_last'));
	my $st = div(get('expiry', 'hwtimer', $en, 'same_tick_longest_stall'),
		     get('expiry', 'timer_list', $en, 'same_tick_longest_stall'));
	my $cpu = div(get('expiry', 'hwtimer', $en, 'same_tick_cpu_per_expiry'),
		      get('expiry', 'timer_list', $en, 'same_tick_cpu_per_expiry'));
	target('expiry_of_' . human_n($en) . '_due/timer_list_with_stall<=1/10', $ex, '<=', 1.0,
	       defined $ex ? sprintf('%s (longest stall %s of timer_list\'s; CPU per expiry %s)',
				     num($ex), num($st), num($cpu))
	       . icount_shown('expiry', $en, 'same_tick_cpu_per_expiry') : undef);
	$targets[-1]{met} = JSON::PP::false unless defined $st && $st <= 0.1;
}
my ($cn) = map { $res{$_}{n} } grep { /^cycle\|hwtimer\|\d+\|visited_per_tick$/ } keys %res;
{
	my $v = defined $cn ? get('cycle', 'hwtimer', $cn, 'visited_per_tick') : undef;
	my $c = defined $cn ? get('cycle', 'hwtimer', $cn, 'cascaded_per_tick') : undef;
	target('far_future_tick_full_cascade_cycle_visits', $v, '<=', 2,
	       defined $v ? sprintf('%s (cascaded %s per tick)', num($v), num($c)) : undef);
}
target('idle_wakeups_nothing_pending', get('idle', 'hwtimer', 0, 'wakeups_nothing_pending'), '==', 0);
# timer_list's own scaling, 1.9x; the clock read's own scaling in the
# same boot is shown with it.
{
	my $sp = get('scaling', 'hwtimer', 2, 'speedup');
	my $tl = get('scaling', 'timer_list', 2, 'speedup');
	my $ck = get('scaling', '-', 2, 'ktime_get_ns_speedup');
	target('2cpu_scaling', $sp, '>=', 1.9,
	       defined $sp ? sprintf('%s (timer_list %s, a clock read alone %s)', num($sp), num($tl),
				     num($ck)) : undef);
}
kernel_targets_25($big, $en);
wake_targets();

# The kernel API at timer_list's cost at every N, modify, and the whole
# CPU cost of an expiration.
sub kernel_targets_25 {
	my ($big, $en) = @_;
	my $bn = human_n($big);

	my $t25 = sub {
		my ($name, $g, $n, $m) = @_;
		my $v = div(get($g, 'hwtimer', $n, $m), get($g, 'timer_list', $n, $m));
		target($name, $v, '<=', 1.0, defined $v ? num($v) . icount_shown($g, $n, $m)
		       . ($m eq 'pair' ? clock_shown($g, $n) : '') : undef);
	};
	for my $n (grep { $_ && $_ != $big } @sizes) {
		$t25->('start+cancel@' . human_n($n) . '_pending/timer_list', 'startcancel', $n, 'pair');
	}
	$t25->("modify\@${bn}_pending/timer_list", 'modify', $big, 'modify');
	$t25->('expiry_cpu_per_expiration/timer_list', 'expiry', $en, 'same_tick_cpu_per_expiry');
}

# Wake-up lateness (bench/hwtbench-rt.c): /dev/hwtimer against timerfd,
# idle and loaded, with the difference in ticks of the device's wheel.
sub wake_table {
	my @rows = @_;
	my $tick = $info{wake_tick_ns};
	return () unless @rows;
	my @t = ('', '| wake-up lateness | rounds | metric | unit | hwtimer | timerfd | hwt - timerfd, ticks |',
		 '|---|---|---|---|---|---|---|');
	for my $row (@rows) {
		my ($g, $n, $m) = split /\|/, $row;
		my ($h, $t) = map { $res{"$g|$_|$n|$m"} } qw(hwtimer timerfd);
		my $any = $h // $t;
		my $d = $h && $t && $tick && $any->{unit} eq 'ns' ?
			num(($h->{median} - $t->{median}) / $tick) : '-';
		push @t, sprintf('| %s | %s | %s | %s | %s | %s | %s |', $g =~ s/^wake_//r,
				 human_n($n), $m, $any->{unit}, cell($h), cell($t), $d);
	}
	return @t;
}

# Where the device's expiry and timerfd's both run in the softirq
# thread (PREEMPT_RT), a thread waiting on the device wakes at most a tick
# of its wheel later than one waiting on a timerfd, at the 99th
# percentile: idle and with CPU-bound threads competing, the worse of the
# two.
sub wake_targets {
	my ($n) = map { $res{$_}{n} } grep { /^wake_idle\|hwtimer\|\d+\|p99$/ } keys %res;
	my $tick = $info{wake_tick_ns};
	return unless defined $n && $tick;
	my %over;
	for my $p (qw(idle loaded)) {
		my ($h, $t) = map { get("wake_$p", $_, $n, 'p99') } qw(hwtimer timerfd);
		$over{$p} = defined $h && defined $t ? ($h - $t) / $tick : undef;
	}
	my $worst = (grep { !defined } values %over) ? undef :
		    ($over{idle} > $over{loaded} ? $over{idle} : $over{loaded});
	target('wake_p99_over_timerfd_p99_in_ticks', $worst, '<=', 1,
	       defined $worst ? sprintf('%s (idle %s, loaded %s; %s, tick %s ns)', num($worst),
				     num($over{idle}), num($over{loaded}), $info{kernel} // '?',
				     $tick) : undef);
}

# Early fires: the worst repetition of each check, added up.
my @early = grep { defined } map { $res{$_} } grep {
	/^lateness\|hwtimer\|\d+\|early(_wheel_counter)?$/ ||
	/^user_lateness\|hwtimer\|\d+\|early(_kernel)?$/ ||
	/^wake_\w+\|hwtimer\|\d+\|early$/ || /^lateness_loaded\|hwtimer\|\d+\|early(_wheel_counter)?$/
} keys %res;
my $early;
$early += $_->{max} for @early;
target('early_fires', $early, '==', 0);

my $sz = get('memory', 'hwtimer', 0, 'sizeof');
my ($alloc) = map { $res{$_} } grep { /^memory\|hwtimer\|\d+\|slab_per_timer$/ } keys %res;
my ($kmem) = map { $res{$_} } grep { /^memory\|hwtimer\|\d+\|kmem_per_timer$/ } keys %res;
{
	# "Allocates nothing": under a byte per timer, which is the vmstat
	# counters' own drift at a million timers.
	my $bytes = defined $alloc ? $alloc->{median} : undef;
	$bytes = $kmem->{median} if defined $kmem && defined $bytes && $kmem->{median} > $bytes;
	my $ok = defined $sz && defined $bytes && $bytes < 1;
	target('sizeof_hwtimer_and_alloc_per_timer', defined $sz ? $sz : undef, '<=', 64,
	       defined $sz ? sprintf('%d B (allocates %s B/timer)', $sz, num($bytes)) : undef);
	$targets[-1]{met} = JSON::PP::false unless $ok;
	$targets[-1]{alloc_per_timer} = $bytes;
}
# The user-space targets. N is the benchmark's -n; the
# kernel peers are what a program would use instead of the device: timerfd
# (one per timeout, or a pool re-armed with timerfd_settime()) and io_uring
# timeouts. "The best kernel peer" is the cheapest of them in that boot.
sub user_targets {
	my $un = $info{user_n} // 0;
	my $unh = human_n($un);
	# Speed-ups: the anchor's cost over hwtimer's.
	my $speedup = sub {
		my ($g, $anchor, $m) = @_;
		return div(get($g, $anchor, $un, $m), get($g, 'hwtimer', $un, $m));
	};
	# The best peer's figure over hwtimer's, shown with both.
	my $vs_best = sub {
		my ($name, $g, $m, $goal, @peers) = @_;
		my ($best) = sort { $a->[1] <=> $b->[1] }
			     grep { defined $_->[1] } map { [ $_, get($g, $_, $un, $m) ] } @peers;
		my $h = get($g, 'hwtimer', $un, $m);
		my $v = $best ? div($best->[1], $h) : undef;
		target($name, $v, '>=', $goal, defined $v ?
		       sprintf('%s (hwtimer %s ns, best peer %s %s ns)', num($v), num($h),
			       $best->[0], num($best->[1])) : undef);
	};

	# Against the best kernel peer, random deadlines and victims.
	$vs_best->("user_arm_${unh}_random_vs_best_kernel_peer", 'user_arm', 'arm', 10,
		   qw(timerfd timerfd_pool io_uring));
	$vs_best->("user_cancel_${unh}_random_victims_vs_best_kernel_peer", 'user_cancel_random',
		   'cancel', 10, qw(timerfd_pool io_uring));
	$vs_best->("user_modify_${unh}_random_victims_vs_best_kernel_peer", 'user_modify_random',
		   'modify', 10, qw(timerfd_pool io_uring));
	$vs_best->("user_delivery_${unh}_system_cpu_per_expiration_vs_best_kernel_peer",
		   'user_deliver', 'cpu_per_expiry', 10, qw(timerfd_epoll timerfd_epollet io_uring));

	# Against the timerfd a program would use.
	target("user_arm_${unh}_random_speedup_vs_pooled_timerfd_settime",
		$speedup->('user_arm', 'timerfd_pool', 'arm'), '>=', 10);
	target("user_delivery_${unh}_speedup_vs_epollET+read",
		$speedup->('user_deliver', 'timerfd_epollet', 'deliver'), '>=', 10);
	target("user_lifecycle_${unh}_speedup_vs_timerfd_lifecycle",
		$speedup->('user_lifecycle', 'timerfd', 'lifecycle'), '>=', 10);
	# 10x: below it is the physical floor, one io_uring NOP per timeout
	# already costs 10x the wheel's operation.
	target("user_lifecycle_${unh}_cost/in-process_wheel",
		div(get('user_lifecycle', 'hwtimer', $un, 'lifecycle'),
		    get('user_lifecycle', 'uwheel', $un, 'lifecycle')), '<=', 10);
	target("user_modify_${unh}_speedup_vs_timerfd_settime",
		$speedup->('user_modify', 'timerfd_pool', 'modify'), '>=', 10);

	# In a non-root memory cgroup, the kernel memory charged to it
	# (memory.stat "kernel") per pending timeout, against timerfd and
	# io_uring.
	my $h = get('user_mem', 'hwtimer', $un, 'memcg_kernel_per_timeout');
	for my $peer ([ 'timerfd', 0.125 ], [ 'io_uring', 0.25 ]) {
		my $p = get('user_mem', $peer->[0], $un, 'memcg_kernel_per_timeout');
		my $r = div($h, $p);
		target("user_memcg_kernel_memory_per_timeout/$peer->[0]", $r, '<=', $peer->[1],
		       defined $r ? sprintf('%s (%s B against %s B)', num($r), num($h), num($p)) : undef);
	}
	target('user_memory_per_timeout/timerfd',
		div(get('user_mem', 'hwtimer', $un, 'mem_per_timeout'),
		    get('user_mem', 'timerfd', $un, 'mem_per_timeout')), '<=', 0.25);

	# The device's cost per operation stays flat, from the
	# smallest number pending to the largest (1k and 1M in make bench).
	my @sn = sort { $a <=> $b } map { $res{$_}{n} } grep { /^user_scale\|hwtimer\|\d+\|arm$/ } keys %res;
	my ($lo, $hi) = ($sn[0] // 0, $sn[-1] // 0);
	for my $m (qw(arm cancel_random modify_random)) {
		my ($a, $b) = (get('user_scale', 'hwtimer', $hi, $m), get('user_scale', 'hwtimer', $lo, $m));
		my $r = @sn > 1 ? div($a, $b) : undef;
		target("user_${m}_at_" . human_n($hi) . '_vs_' . human_n($lo) . '_pending', $r, '<=', 1.3,
		       defined $r ? sprintf('%s (%s ns against %s ns)', num($r), num($a), num($b)) : undef);
	}
}

user_targets();

# Slack: hwtimer wheel wakeups/s with 10% slack against none and
# against timer_list's for the same deadlines (hwtbench_slack.c).
my ($sln) = map { $res{$_}{n} } grep { /^slack\|hwtimer\|\d+\|wakeups_per_s$/ } keys %res;
$sln //= 0;
target('slack_wakeups_vs_no_slack',
	div(get('slack', 'hwtimer', $sln, 'wakeups_per_s_no_slack'), get('slack', 'hwtimer', $sln, 'wakeups_per_s')),
	'>=', 10);
target('slack_wakeups_vs_timer_list',
	div(get('slack', 'hwtimer', $sln, 'wakeups_per_s'), get('slack', 'timer_list', $sln, 'wakeups_per_s')),
	'<', 1.0);

my $met = grep { $_->{met} } @targets;

# ---- files -----------------------------------------------------------------

mkdir $out unless -d $out;

my @json_res;
for my $key (@order) {
	my %r = %{$res{$key}};
	if ($is_kfac{$r{facility}}) {
		$r{vs_timer_list} = ratio(\%r, 'timer_list');
		$r{vs_hrtimer} = ratio(\%r, 'hrtimer');
	} elsif ($r{group} =~ /^user_/) {
		$r{"vs_$_"} = ratio(\%r, $_) for qw(timerfd timerfd_pool timerfd_epoll timerfd_epollet io_uring uwheel);
	}
	push @json_res, \%r;
}
my %json_hist;
for my $k (sort keys %hist) {
	$json_hist{$k} = [ map { { bin => $_ + 0, low_ns => $hist{$k}{$_}{low}, count => $hist{$k}{$_}{count} } }
			   sort { $a <=> $b } keys %{$hist{$k}} ];
}
my %json = (
	note => 'QEMU TCG emulation: absolute times mean little; compare the ratios (vs_*), '
		. 'each against an anchor measured in the same boot',
	info => \%info, results => \@json_res, lateness_histograms => \%json_hist,
	targets => [ map { { name => $_->{name}, value => $_->{value}, op => $_->{op},
			     goal => $_->{goal}, met => $_->{met},
			     (exists $_->{alloc_per_timer} ? (alloc_per_timer => $_->{alloc_per_timer}) : ()) } } @targets ],
	targets_met => $met + 0, targets_total => scalar(@targets),
	errors => \@errors, notes => \@notes, details => \@details,
);
open(my $jf, '>', "$out/results.json") or die "$out/results.json: $!\n";
print $jf JSON::PP->new->canonical->pretty->encode(\%json);
close($jf);

open(my $cf, '>', "$out/results.csv") or die "$out/results.csv: $!\n";
my @vs = qw(vs_timer_list vs_hrtimer vs_timerfd vs_timerfd_pool vs_timerfd_epoll vs_timerfd_epollet vs_uwheel vs_io_uring);
print $cf join(',', qw(group facility n metric unit median min max reps), @vs), "\n";
for my $r (@json_res) {
	print $cf join(',', (map { $r->{$_} } qw(group facility n metric unit median min max reps)),
		       map { defined $r->{$_} ? sprintf('%.4f', $r->{$_}) : '' } @vs), "\n";
}
close($cf);

# ns per operation against N, for the plot.
open(my $nf, '>', "$out/nsop.dat") or die "$out/nsop.dat: $!\n";
print $nf "# N, then median min max of: start+cancel hwtimer timer_list hrtimer, modify hwtimer timer_list hrtimer\n";
for my $n (@sizes) {
	my @f;
	for my $gm (['startcancel', 'pair'], ['modify', 'modify']) {
		for my $fac (@kfac) {
			my $r = $res{"$gm->[0]|$fac|$n|$gm->[1]"};
			push @f, $r ? ($r->{median}, $r->{min}, $r->{max}) : ('NaN') x 3;
		}
	}
	print $nf join(' ', $n, @f), "\n";
}
close($nf);

# Lateness histograms as fractions of the timers, by the bin's low edge.
my @hcols = ('kernel hwtimer', 'kernel timer_list', 'kernel hrtimer', 'user hwtimer', 'user timerfd_epoll');
my %bins;
my %tot;
for my $c (@hcols) {
	for my $b (keys %{$hist{$c} // {}}) {
		$bins{$b} = $hist{$c}{$b}{low};
		$tot{$c} += $hist{$c}{$b}{count};
	}
}
open(my $lf, '>', "$out/lateness.dat") or die "$out/lateness.dat: $!\n";
print $lf "# bin low_ns, then the fraction of timers in [low, 2*low) ns late: ", join(', ', @hcols), "\n";
for my $b (sort { $a <=> $b } keys %bins) {
	next unless $b;		# bin 0: not late at all; the tables count early fires
	print $lf join(' ', $bins{$b}, map {
		my $h = $hist{$_} && $hist{$_}{$b};
		$h && $tot{$_} ? sprintf('%.6f', $h->{count} / $tot{$_}) : 0
	} @hcols), "\n";
}
close($lf);

# Values the plot needs.
open(my $pf, '>', "$out/plotvars.gp") or die "$out/plotvars.gp: $!\n";
printf $pf "tick_ns = %d\n", $info{tick_ns} // 0;
printf $pf "note = \"\\n%s vCPUs, clocksource %s, kernel %s\"\n", $cpus, $cs, $info{kernel} // '?';
close($pf);

# ---- stdout -----------------------------------------------------------------

my @tlines = map {
	sprintf('target %s: %s %s %s %s', $_->{name}, $_->{shown}, $_->{op}, $_->{goal},
		$_->{met} ? 'met' : 'MISSED')
} @targets;

open(my $tf, '>', "$out/table.md") or die "$out/table.md: $!\n";
print $tf join("\n", @table), "\n";
close($tf);

# The targets as README.md shows them.
open(my $gf, '>', "$out/targets.md") or die "$out/targets.md: $!\n";
print $gf "| target (`make bench`) | measured | goal | |\n|---|---|---|---|\n";
printf $gf "| `%s` | %s | %s %s | %s |\n", $_->{name}, $_->{shown}, $_->{op}, $_->{goal},
	$_->{met} ? 'met' : 'MISSED' for @targets;
print $gf "\n$met of ", scalar(@targets), " met.\n";
close($gf);

print join("\n", @table), "\n\n";
print "note: $_\n" for @notes;
print "error: $_\n" for @errors;
print "results: $out/results.json $out/results.csv $out/table.md $out/targets.md\n";
print "$_\n" for @tlines;
print "bench: $met of ", scalar(@targets), " targets met\n";
exit(@errors ? 1 : 0);
