#!/usr/bin/perl
# SPDX-License-Identifier: GPL-2.0
#
# The report of `make bench-ab` (bench/lib.sh, mode ab): the benchmarks'
# part of the log, in which bench/guest.sh ran hwtbench-user once after
# each "@@BENCH ab variant=new|alt" line, with this tree's module (new) or
# revision ALT's (alt) loaded. For every figure ("R group facility n
# metric unit median ..." lines), each variant's median over its runs and
# their range, new over alt, and the same ratio after dividing each run's
# figure by the in-process wheel's in that run (uwheel, same group, n and
# metric): the wheel does no kernel work, so what moves it is the host,
# and the second ratio takes that out. Peers' rows (io_uring, timerfd)
# are printed too: a change to the module should not move them, and how
# far they moved says how far to trust the device's ratios.
#
#   perl bench/ab.pl bench-part.log
#
# Exit status 1 when the log has no run of one of the two variants.
use strict;
use warnings;

my ($variant, $run) = (undef, -1);
my (%val, %runvar, %keys);

while (<>) {
	if (/^\@\@BENCH ab variant=(new|alt)\b/) {
		$variant = $1;
		$runvar{++$run} = $variant;
		next;
	}
	next unless defined $variant;
	next unless /^R (\S+) (\S+) (\d+) (\S+) (\S+) (\S+)/;
	my ($group, $fac, $n, $metric, $unit, $median) = ($1, $2, $3, $4, $5, $6);
	my $key = "$group|$n|$metric|$unit";
	$val{$run}{$key}{$fac} = $median;
	$keys{$key}{$fac} = 1;
}

my %count;
$count{$_}++ for values %runvar;
unless ($count{new} && $count{alt}) {
	print STDERR "ab.pl: no runs of ", ($count{new} ? 'alt' : 'new'), " in the log\n";
	exit 1;
}

sub median {
	my @v = sort { $a <=> $b } @_;
	return undef unless @v;
	return @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2;
}

sub fmt {
	my ($v) = @_;
	return '-' unless defined $v;
	return sprintf('%.0f', $v) if abs($v) >= 100;
	return sprintf('%.3g', $v);
}

# The figures of facility $fac for $key, per variant: raw and over uwheel.
sub series {
	my ($key, $fac, $want) = @_;
	my (@raw, @norm);
	for my $r (sort { $a <=> $b } keys %runvar) {
		next unless $runvar{$r} eq $want;
		my $v = $val{$r}{$key}{$fac};
		next unless defined $v;
		push @raw, $v;
		my $w = $val{$r}{$key}{uwheel};
		push @norm, $v / $w if defined $w && $w > 0;
	}
	return (\@raw, \@norm);
}

printf "A/B: %d runs of this tree's module (new), %d of the alternative (alt), alternating\n\n",
	$count{new}, $count{alt};
print "| group | N | metric | unit | facility | new median [min-max] | alt median [min-max] | new/alt | new/alt over uwheel |\n";
print "|---|---|---|---|---|---|---|---|---|\n";
for my $key (sort keys %keys) {
	my ($group, $n, $metric, $unit) = split /\|/, $key;
	for my $fac (sort keys %{$keys{$key}}) {
		next if $fac eq 'uwheel';
		my ($rn, $nn) = series($key, $fac, 'new');
		my ($ra, $na) = series($key, $fac, 'alt');
		next unless @$rn && @$ra;
		my ($mn, $ma) = (median(@$rn), median(@$ra));
		my ($qn, $qa) = (median(@$nn), median(@$na));
		my @sn = sort { $a <=> $b } @$rn;
		my @sa = sort { $a <=> $b } @$ra;
		printf "| %s | %s | %s | %s | %s | %s [%s-%s] | %s [%s-%s] | %s | %s |\n",
			$group, $n, $metric, $unit, $fac,
			fmt($mn), fmt($sn[0]), fmt($sn[-1]), fmt($ma), fmt($sa[0]), fmt($sa[-1]),
			$ma ? sprintf('%.3f', $mn / $ma) : '-',
			defined $qn && defined $qa && $qa ? sprintf('%.3f', $qn / $qa) : '-';
	}
}
