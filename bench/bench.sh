#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark runner: everything behind `make bench` and `make bench-smoke`.
#
#   bench/bench.sh full    the real run: the non-debug bench kernel, full N
#                          (about 15 minutes on 2 cores); results in
#                          build/bench/, table also into docs/benchmarks.md
#   bench/bench.sh smoke   tiny N on the debug kernel, so the benchmark code
#                          itself runs under lockdep, KASAN and kmemleak
#                          (1 to 2 minutes); results in
#                          build/bench/smoke-KERNEL/. `make check` runs the
#                          same in its one boot.
#
# KERNEL picks the test kernel as scripts/kernel.sh names it: 6.1 (default),
# 6.12 or 6.12-rt. docs/benchmarks.md holds the 6.1 figures (Debian 12's
# kernel): a full run on another kernel keeps its results in
# build/bench/full-KERNEL/ and leaves the documentation alone.
#
# Steps: install missing packages, get the cached kernel (scripts/kernel.sh),
# build hwtimer.ko and hwtbench.ko in one external-module tree with W=1
# (warnings are errors), build the static user-space benchmark, stage an
# initramfs whose /init (scripts/guest-init.sh, hwt.mode=bench) runs
# bench/guest.sh, boot QEMU (TCG), judge the log like `make check` does
# (scripts/parse-log.awk: any WARNING, BUG, lockdep or KASAN report, leak
# or failed step is an error), and hand the benchmarks' lines to
# bench/report.pl for the table, the JSON and CSV files and the targets.
#
# Exit status: 0 when everything ran, missed targets included; 1 on any
# error. The last line is "bench: N of M targets met".
#
# Environment: BENCH_KERNEL (kernel flavour, default bench for full, debug
# for smoke), BENCH_KPARAMS, BENCH_UPARAMS and BENCH_ONLY (see
# bench/lib.sh), SMP (vCPUs, default 2), MEM (default 2G), VM_TIMEOUT
# (seconds).
set -euo pipefail

mode=${1:-full}
kernel=${KERNEL:-6.1}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Called from make: its flags are not for the builds below.
unset MAKEFLAGS MFLAGS MAKELEVEL
prog=bench
. scripts/lib.sh
. bench/lib.sh

case "$mode" in
full)
	flavour=${BENCH_KERNEL:-bench}
	out=$top/build/bench
	[ "$kernel" = 6.1 ] || out=$top/build/bench/full-$kernel
	timeout=${VM_TIMEOUT:-2400}
	;;
smoke)
	flavour=${BENCH_KERNEL:-debug}
	out=$top/build/bench/smoke-$kernel
	timeout=${VM_TIMEOUT:-900}
	;;
*)
	echo "usage: bench.sh full|smoke" >&2
	exit 2
	;;
esac

vm=$out/vm
log=$out/bench.log
mkdir -p "$vm"

scripts/deps.sh
kdir=$(scripts/kernel.sh "$flavour" "$kernel") || abort "no $flavour $kernel kernel"
say "$flavour $kernel kernel $kdir"

# hwtimer.ko and hwtbench.ko in one external-module tree.
kb=$vm/kbuild
kbuild_tree "modules (W=1)" "$kdir" "$kb" bench || abort "module build failed"
make -s bench-user || abort "hwtbench-user: build failed"
say "modules and hwtbench-user built"

root=$vm/rootfs
rm -rf "$root"
stage_modules "$kb" "$root"
bench_stage "$root" "$mode"

# Under TCG the guest kernel finds the vCPUs' TSCs "unsynchronized" and
# falls back to the HPET, whose every read is an emulated MMIO access: a
# clock read then costs a hundred times what it costs on hardware, where
# the TSC is the clocksource, and that would distort every comparison
# between a facility that reads the clock per operation (hwtimer, hrtimer)
# and one that does not (timer_list). QEMU derives the guest TSC from the
# host's monotonic clock, so trusting it is sound.
# Progress: the start and end of each benchmark, and failures.
APPEND="tsc=reliable ${APPEND:-}" MEM=${MEM:-2G} VM_TIMEOUT=$timeout \
	PROGRESS='@@BENCH|@@HWT (fail|done)|^E |hwtbench: .*done' \
	boot_vm "$kdir" "$root" bench "$log"

# The same judgement as `make check`: kernel problems and failed steps;
# then the report.
check_boot "$log" "$kernel" >&2
judge "$log" main 1 >&2 || true
bench_judge "$log" "$out" >&2

errors=$failed
if [ "$mode" = full ] && [ "$kernel" = 6.1 ] && [ "$errors" = 0 ] && [ -f docs/benchmarks.md ]; then
	# The latest table goes into the documentation, between its markers.
	TABLE=$out/table.md perl -0pi -e '
		BEGIN { local $/; open(my $f, "<", $ENV{TABLE}) or die "$ENV{TABLE}: $!"; $t = <$f>; }
		s/(<!-- bench-table-begin -->\n).*?(<!-- bench-table-end -->)/$1$t$2/s
	' docs/benchmarks.md
	say "table written into docs/benchmarks.md (make bench-plot draws the plot)"
fi

if [ "$errors" != 0 ]; then
	cat "$out/report.txt"
	echo "bench: FAILED ($(summary || true); errors above; full log: $log)" >&2
	exit 1
fi
# Last, so that it ends with the targets and "bench: N of M targets met".
cat "$out/report.txt"
