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
#                          build/bench/smoke-KERNEL/
#
# KERNEL picks the test kernel as scripts/kernel.sh names it: 6.1 (default),
# 6.12 or 6.12-rt. docs/benchmarks.md holds the 6.1 figures (Debian 12's
# kernel): a full run on another kernel keeps its results in
# build/bench/full-KERNEL/ and leaves the documentation alone.
#
# Steps: install missing packages, get the cached kernel (scripts/kernel.sh),
# build hwtimer.ko and hwtbench.ko in one external-module tree with W=1
# (warnings are errors), build the static user-space benchmark, stage an
# initramfs whose /init is bench/guest-init.sh, boot QEMU (TCG), judge the
# log like `make check` does (scripts/parse-log.awk: any WARNING, BUG,
# lockdep or KASAN report, leak or failed step is an error), and hand it to
# bench/report.pl for the table, the JSON and CSV files and the targets.
#
# Exit status: 0 when everything ran, missed targets included; 1 on any
# error. The last line is "bench: N of M targets met".
#
# Environment: BENCH_KERNEL (kernel flavour, default bench for full, debug
# for smoke), BENCH_KPARAMS (hwtbench.ko parameters), BENCH_UPARAMS
# (hwtbench-user options), SMP (vCPUs, default 2), MEM (default 2G),
# VM_TIMEOUT (seconds), BENCH_ONLY (the benchmarks to run, default all:
# "calib startcancel expiry tick idle scaling lateness user").
set -euo pipefail

mode=${1:-full}
kernel=${KERNEL:-6.1}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$SECONDS

say() { echo "bench: $* [$((SECONDS - start)) s]" >&2; }
die() { echo "bench: error: $*" >&2; exit 1; }

case "$mode" in
full)
	flavour=${BENCH_KERNEL:-bench}
	out=$top/build/bench
	[ "$kernel" = 6.1 ] || out=$top/build/bench/full-$kernel
	kparams=${BENCH_KPARAMS:-"reps=5 sizes=1000,100000,1000000 pairs=50000 expiry_n=1000000 expiry_reps=3 far_n=1000000 window_ms=2000 idle_ms=5000 idle_reps=3 late_n=100000 late_reps=3 late_revs=2 scale_pairs=100000"}
	uparams=${BENCH_UPARAMS:-"-n 100000 -r 3 -s 2000"}
	timeout=${VM_TIMEOUT:-2400}
	;;
smoke)
	flavour=${BENCH_KERNEL:-debug}
	out=$top/build/bench/smoke-$kernel
	kparams=${BENCH_KPARAMS:-"reps=2 sizes=100,1000 pairs=2000 expiry_n=2000 expiry_reps=1 far_n=2000 window_ms=200 idle_ms=300 idle_reps=1 late_n=1000 late_reps=1 late_revs=1 scale_pairs=2000 tick_ns=1000000 slots=256"}
	uparams=${BENCH_UPARAMS:-"-n 1000 -r 1 -s 200"}
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
kdir=$(scripts/kernel.sh "$flavour" "$kernel")
say "$flavour $kernel kernel $kdir"

# hwtimer.ko and hwtbench.ko in one external-module tree.
kb=$vm/kbuild
scripts/kbuild-tree.sh "$kdir" "$kb" bench || die "module build failed"
say "modules built"

${CC:-gcc} -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -D_GNU_SOURCE \
	-I"$top/include/uapi" -static -o "$out/hwtbench-user" bench/hwtbench-user.c ||
	die "hwtbench-user build failed"

root=$vm/rootfs
rm -rf "$root"
mkdir -p "$root/hwt/kmod" "$root/hwt/bench"
cp "$kb/kmod/hwtimer.ko" "$root/hwt/kmod/"
cp "$kb/bench/hwtbench.ko" "$out/hwtbench-user" "$root/hwt/bench/"
only=${BENCH_ONLY:-calib startcancel expiry tick idle scaling lateness user}
kbench="info memory"
for b in $only; do
	[ "$b" = user ] || kbench="$kbench $b"
done
run_user=0
case " $only " in *" user "*) run_user=1 ;; esac
cat >"$root/hwt/bench/bench.conf" <<EOF
KPARAMS="$kparams"
UPARAMS="$uparams"
KBENCH="$kbench"
RUN_USER=$run_user
EOF

# Under TCG the guest kernel finds the vCPUs' TSCs "unsynchronized" and
# falls back to the HPET, whose every read is an emulated MMIO access: a
# clock read then costs a hundred times what it costs on hardware, where
# the TSC is the clocksource, and that would distort every comparison
# between a facility that reads the clock per operation (hwtimer, hrtimer)
# and one that does not (timer_list). QEMU derives the guest TSC from the
# host's monotonic clock, so trusting it is sound.
append="tsc=reliable ${APPEND:-}"

# Boot through scripts/vm-boot.sh, with this /init; 2G by default.
boot() {
	GUEST_INIT=$top/bench/guest-init.sh QUIET=1 VM_TIMEOUT=$timeout MEM=${MEM:-2G} \
		APPEND="$append" scripts/vm-boot.sh "$kdir" "$root" bench "$log"
}

say "booting the VM (SMP=${SMP:-2}, time limit $timeout s), log in $log"
: >"$log"
rc=0
boot &
pid=$!
# Show progress: the start and end of each benchmark, and failures.
tail --pid=$pid -n +1 -F "$log" 2>/dev/null |
	grep --line-buffered -E '@@BENCH|@@HWT (fail|done)|^E |hwtbench: .*done' >&2 || true
wait $pid || rc=$?
say "VM finished (status $rc)"

errors=0
if [ $rc = 124 ]; then
	echo "bench: error: the VM hit the time limit of $timeout s" >&2
	errors=1
elif [ $rc != 0 ]; then
	echo "bench: error: QEMU exited with status $rc" >&2
	errors=1
fi

# The same judgement as `make check`: kernel problems and failed steps.
if ! judged=$(awk -v need_done=1 -f scripts/parse-log.awk "$log"); then
	grep -v '^RESULT ' <<<"$judged" >&2 || true
	echo "bench: error: the guest log has problems (above)" >&2
	errors=1
fi

report_rc=0
perl bench/report.pl "$log" "$out" >"$out/report.txt" || report_rc=$?
[ $report_rc = 0 ] || errors=1

if [ "$mode" = full ] && [ "$kernel" = 6.1 ] && [ $errors = 0 ] && [ -f docs/benchmarks.md ]; then
	# The latest table goes into the documentation, between its markers.
	TABLE=$out/table.md perl -0pi -e '
		BEGIN { local $/; open(my $f, "<", $ENV{TABLE}) or die "$ENV{TABLE}: $!"; $t = <$f>; }
		s/(<!-- bench-table-begin -->\n).*?(<!-- bench-table-end -->)/$1$t$2/s
	' docs/benchmarks.md
	say "table written into docs/benchmarks.md (make bench-plot draws the plot)"
fi

if [ $errors != 0 ]; then
	cat "$out/report.txt"
	echo "bench: FAILED (errors above; full log: $log)" >&2
	exit 1
fi
# Last, so that it ends with the targets and "bench: N of M targets met".
cat "$out/report.txt"
