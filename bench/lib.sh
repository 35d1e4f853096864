# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host's side of the benchmarks (bench/guest.sh), sourced by
# scripts/runner.sh after scripts/lib.sh:
#
#   bench_run MODE          `runner.sh bench MODE`: a boot of its own, MODE
#                           full (the non-debug bench kernel, full N;
#                           results in build/bench/, the tables also into
#                           docs/benchmarks.md, the targets into README.md),
#                           smoke (tiny N on the debug
#                           kernel; build/bench/smoke-KERNEL/) or ab (the
#                           bench kernel, this tree's module against
#                           revision ALT's; build/bench/ab/) or icount (the
#                           kernel benchmarks and the device's data path
#                           counted in instructions; build/bench/icount/):
#                           make bench, bench-smoke,
#                           bench-ab, bench-icount (bench/bench.mk)
#   bench_conf MODE         the guest's settings for a mode
#   bench_stage ROOT MODE   hwtbench-user, bench/guest.sh and its settings
#                           into ROOT/hwt/bench (the module comes with
#                           stage_modules); check stages the smoke
#   bench_judge LOG OUT     bench/report.pl on the benchmarks' part of LOG:
#                           the table, OUT/results.{json,csv}, the targets;
#                           one check, failed on errors (never on targets);
#                           with ICOUNT_LOG, the instruction counts too
#   bench_icount_boot OUT   the kernel benchmarks again in a boot where a
#                           guest ns is a guest instruction (QEMU -icount):
#                           OUT/bench.log; run by full and icount
#
# bench_run judges the log as check does, then with bench/report.pl. Its
# status is 1 on any error, 0 otherwise (missed targets included); the last
# line is "bench: N of M targets met". A full run on another kernel than
# 6.1 keeps its results in build/bench/full-KERNEL/, out of the docs.
#
# Environment: KERNEL (6.1, the default, 6.12 or 6.12-rt), BENCH_KERNEL
# (kernel flavour, default bench for full, debug for smoke), BENCH_KPARAMS
# (hwtbench.ko parameters), BENCH_UPARAMS (hwtbench-user options; in
# mode ab, AB_UPARAMS), BENCH_DPARAMS (hwtbench-dev options), ALT and
# AB_RUNS (mode ab: the revision, the runs of each module),
# BENCH_ONLY (the benchmarks to run, default all: "calib startcancel
# startidle expiry tick cycle idle scaling lateness slack wake user"; "dev",
# the device's data path per entry, runs where asked and in the
# instruction-count boot), SMP (vCPUs, default 2), MEM (default 2G),
# VM_TIMEOUT (seconds).

# A perl program for -0pi: replace what lies between the lines
# <!-- $MARK-begin --> and <!-- $MARK-end --> with the file $TABLE.
# shellcheck disable=SC2016 # perl's variables
put_between='
	BEGIN { local $/; open(my $f, "<", $ENV{TABLE}) or die "$ENV{TABLE}: $!"; $t = <$f>; }
	s/(<!-- \Q$ENV{MARK}\E-begin -->\n).*?(<!-- \Q$ENV{MARK}\E-end -->)/$1$t$2/s or die "no $ENV{MARK} markers\n";
'

bench_conf() {
	local mode=$1 kparams uparams wparams dparams='' only kbench="info memory" b
	local run_user=0 run_wake=0 run_dev=0
	local ab_runs=0
	case "$mode" in
	full)
		kparams="reps=5 sizes=1000,100000,1000000 pairs=50000 expiry_n=1000000 expiry_reps=3 far_n=1000000 window_ms=2000 idle_ms=5000 idle_reps=3 late_n=100000 late_reps=3 late_revs=2 scale_pairs=100000 cycle_tick_ns=20000"
		uparams="-n 100000 -r 3 -s 2000 -S 1000,100000,1000000 -b 2000 -U 100000"
		wparams="-n 2000 -r 3 -d 10000"
		;;
	smoke)
		kparams="reps=2 calib_lines=16384 sizes=100,1000 pairs=2000 expiry_n=2000 expiry_reps=1 far_n=2000 window_ms=200 idle_ms=300 idle_reps=1 late_n=1000 late_reps=1 late_revs=1 scale_pairs=2000 tick_ns=1000000 slots=256 cycle_tick_ns=10000 cycle_slots=16 slack_n=2000 slack_span_ms=2000"
		uparams="-n 1000 -r 1 -s 200 -S 100,1000 -b 200 -k 64"
		wparams="-n 100 -r 1 -d 2000"
		;;
	icount)
		# Instructions, not time: QEMU's -icount shift=0 advances the
		# guest's clock (its TSC included) by 1 ns per guest
		# instruction, so every "ns" of these kernel benchmarks is an
		# instruction executed. One vCPU: with two, the clock would
		# count the other's instructions too. hwtbench-dev counts the
		# device's data path per entry the same way, from user space.
		kparams="reps=3 sizes=1000,100000,1000000 pairs=50000 expiry_n=1000000 expiry_reps=2"
		uparams='' wparams=''
		dparams="-S 1000,100000 -r 3 -k 1024 -c 16 -p 5"
		BENCH_ONLY="calib startcancel startidle expiry dev"
		;;
	trace)
		# One vCPU, the timers pending on it: sizes[0] (TRACE_N).
		kparams="reps=1 sizes=${TRACE_N:-1000}"
		uparams='' wparams=''
		BENCH_ONLY="trace"
		;;
	ab)
		# The user-space benchmark only, one repetition a run, the
		# scale benchmark at 100k: what the A/B boots of
		# docs/benchmarks.md ran. No kernel benchmark.
		kparams="reps=3"
		uparams=${AB_UPARAMS:-"-n 100000 -r 1 -t -s 0 -S 100000 -U 0 -R 1"}
		wparams=
		ab_runs=${AB_RUNS:-6}
		BENCH_ONLY=user
		;;
	*)
		echo "bench_conf: unknown mode $mode" >&2
		return 1
		;;
	esac
	only=${BENCH_ONLY:-calib startcancel startidle expiry tick cycle idle scaling lateness slack wake user}
	for b in $only; do
		case "$b" in
		user) run_user=1 ;;
		wake) run_wake=1 ;;
		dev) run_dev=1 ;;
		*) kbench="$kbench $b" ;;
		esac
	done
	cat <<-CONF
		KPARAMS="${BENCH_KPARAMS:-$kparams}"
		UPARAMS="${BENCH_UPARAMS:-$uparams}"
		WPARAMS="${BENCH_WPARAMS:-$wparams}"
		DPARAMS="${BENCH_DPARAMS:-$dparams}"
		KBENCH="$kbench"
		RUN_USER=$run_user
		RUN_WAKE=$run_wake
		RUN_DEV=$run_dev
		AB_RUNS=$ab_runs
	CONF
}

# hwtbench-user, hwtbench-rt and hwtbench-dev are built by `make
# bench-user` (bench/bench.mk) into uout (scripts/lib.sh, user_out: the
# kernel's architecture's).
# shellcheck disable=SC2154 # uout: scripts/lib.sh
bench_stage() {
	mkdir -p "$1/hwt/bench"
	cp "$uout"/bench/bin/hwtbench-user "$uout"/bench/bin/hwtbench-rt "$uout"/bench/bin/hwtbench-dev \
		bench/guest.sh "$1/hwt/bench/"
	bench_conf "$2" >"$1/hwt/bench/bench.conf"
}

# Into OUT: report.txt (the table and the target lines), results.json,
# results.csv, table.md, targets.md and the plot's data files.
bench_judge() {
	local log=$1 out=$2 rc=0
	mkdir -p "$out"
	# Only the benchmarks' lines: the boot may run other things that print.
	sed -n '/@@BENCH start/,/@@BENCH stop/p' "$log" >"$out/bench-part.log"
	if [ -n "${ICOUNT_LOG:-}" ]; then
		sed -n '/@@BENCH start/,/@@BENCH stop/p' "$ICOUNT_LOG" >"$out/icount-part.log"
		export ICOUNT_LOG=$out/icount-part.log
	fi
	perl bench/report.pl "$out/bench-part.log" "$out" >"$out/report.txt" || rc=$?
	if [ $rc = 0 ]; then
		echo "bench: report in $out/report.txt, $(tail -n 1 "$out/report.txt")"
		pass
	else
		cat "$out/report.txt"
		fail "bench/report.pl found errors in the benchmarks' results (status $rc, above)"
	fi
}

# The instruction-count boot (modes full and icount): the kernel
# benchmarks that compare with timer_list, and the device's data path per
# entry (hwtbench-dev), in a VM whose clock counts guest instructions
# (-icount shift=0, 1 ns each; sleep=off lets an idle guest skip ahead).
# TCG prices a clock read, a lock round and a
# memory access unlike hardware; an instruction count prices none of them,
# and does not depend on the host's load. Caches and memory latency are
# not modelled: a cache miss counts as one instruction.
# shellcheck disable=SC2154 # kdir, root: own_boot; kernel: runner.sh
bench_icount_boot() {
	local out=$1
	mkdir -p "$out"
	bench_conf icount >"$root/hwt/bench/bench.conf"
	ACCEL=tcg SMP=1 QEMU_EXTRA="-icount shift=0,sleep=off ${QEMU_EXTRA:-}" \
		APPEND="tsc=reliable ${APPEND:-}" MEM=${MEM:-2G} VM_TIMEOUT=${VM_TIMEOUT:-1800} \
		PROGRESS='@@BENCH (begin|stop)|@@HWT (fail|done)|^E ' \
		boot_vm "$kdir" "$root" bench "$out/bench.log"
	check_boot "$out/bench.log" "$kernel" >&2
	judge "$out/bench.log" main 1 >&2 || true
}

# The address of module function NAME in the guest, from LOG's "@@KSYM"
# lines (bench/guest.sh prints the modules' /proc/kallsyms).
ksym() {
	sed -n "s/.*@@KSYM \([0-9a-f]*\) [tT] $1\s.*/\1/p" "$2" | head -n 1
}

# Mode trace: boot with QEMU's gdb stub on one vCPU, run the "trace"
# benchmark, and let bench/trace.py single-step one round of it; then
# bench/trace-report.py counts what each call executed into OUT/report.txt.
# shellcheck disable=SC2154 # kdir, root: own_boot; kernel: runner.sh
bench_trace_boot() {
	local out=$1 port=${TRACE_PORT:-12345} pid mark rc=0
	command -v gdb >/dev/null || abort "bench trace: no gdb (scripts/deps.sh installs it)"
	log=$out/bench.log
	rm -f "$out/trace.txt"
	# -icount: the guest's clock counts instructions, not the host's time
	# that each single step takes; else the expiry path's time budget
	# would end its pass after a few stepped callbacks.
	ACCEL=tcg SMP=1 QEMU_EXTRA="-icount shift=0,sleep=off -gdb tcp:127.0.0.1:$port ${QEMU_EXTRA:-}" \
		APPEND="tsc=reliable ${APPEND:-}" MEM=${MEM:-1G} VM_TIMEOUT=${VM_TIMEOUT:-1500} \
		PROGRESS='@@BENCH (begin|stop)|@@TRACE|@@HWT (fail|done)|^E ' \
		boot_vm "$kdir" "$root" bench "$log" &
	pid=$!
	# The guest says when the timers are pending; the addresses come from
	# its /proc/kallsyms (bench/guest.sh prints the modules' symbols).
	for _ in $(seq 1200); do
		grep -aq '@@TRACE ready' "$log" 2>/dev/null && break
		kill -0 $pid 2>/dev/null || break
		sleep 1
	done
	mark=$(ksym hwtb_trace_mark "$log")
	if [ -n "$mark" ]; then
		TRACE_PORT=$port TRACE_MARK=$mark TRACE_OUT=$out/trace.txt \
			TRACE_CB_HWT=$(ksym hwtb_cb_hwt_count "$log") \
			TRACE_CB_TL=$(ksym hwtb_cb_tl_count "$log") \
			timeout 900 gdb -nx -batch -x bench/trace.py >"$out/gdb.log" 2>&1 || rc=$?
		tail -n 3 "$out/gdb.log" >&2
		[ $rc = 0 ] || fail "bench trace: gdb failed (status $rc, $out/gdb.log)"
	else
		fail "bench trace: no hwtb_trace_mark in the guest's symbols"
	fi
	wait $pid || true
	check_boot "$log" "$kernel" >&2
	judge "$log" main 1 >&2 || true
	if [ -s "$out/trace.txt" ]; then
		python3 bench/trace-report.py "$out/trace.txt" "$kdir/System.map" "$log" \
			>"$out/report.txt" || fail "bench/trace-report.py failed"
		cat "$out/report.txt"
	fi
	[ "$failed" = 0 ] || { echo "bench trace: FAILED ($(summary || true))" >&2; exit 1; }
	echo "bench trace: $out/report.txt"
}

# Mode ab: revision ALT's module, built against the bench kernel KDIR in
# TREE, into ROOT/hwt/kmod/hwtimer-alt.ko (bench/guest.sh alternates it
# with this tree's hwtimer.ko).
# shellcheck disable=SC2154 # top: runner.sh
bench_stage_alt() {
	local kdir=$1 tree=$2 root=$3
	rm -rf "$tree"
	mkdir -p "$tree"
	git -C "$top" archive "$ALT" kmod include | tar -C "$tree" -xf - ||
		abort "bench ab: cannot export kmod/ and include/ of $ALT"
	make -C "$kdir" M="$tree/kmod" -j"$(nproc)" modules >"$tree.log" 2>&1 || {
		cat "$tree.log" >&2
		abort "bench ab: the module of $ALT does not build against $kdir"
	}
	cp "$tree/kmod/hwtimer.ko" "$root/hwt/kmod/hwtimer-alt.ko"
	say "module of $ALT ($(git -C "$top" rev-parse --short "$ALT")) built, staged as hwtimer-alt.ko"
}

# Mode ab: bench/ab.pl on the benchmarks' part of LOG, into OUT/ab.txt.
# shellcheck disable=SC2154 # failed: scripts/lib.sh
bench_ab_report() {
	local log=$1 out=$2 rc=0
	sed -n '/@@BENCH start/,/@@BENCH stop/p' "$log" >"$out/bench-part.log"
	perl bench/ab.pl "$out/bench-part.log" >"$out/ab.txt" || rc=$?
	cat "$out/ab.txt"
	if [ $rc != 0 ] || [ "$failed" != 0 ]; then
		echo "bench ab: FAILED ($(summary || true); full log: $log)" >&2
		exit 1
	fi
	echo "bench ab: new = this tree, alt = $ALT; $out/ab.txt"
}

# shellcheck disable=SC2154 # top, kernel, kdir, root: runner.sh, own_boot
bench_run() {
	local bmode=${1:-full} flavour=${BENCH_KERNEL:-debug} timeout=900
	case "$bmode" in
	full)
		flavour=${BENCH_KERNEL:-bench} out=$top/build/bench timeout=2400
		[ "$kernel" = 6.1 ] || out=$top/build/bench/full-$kernel
		;;
	smoke) out=$top/build/bench/smoke-$kernel ;;
	icount)
		flavour=${BENCH_KERNEL:-bench} out=$top/build/bench/icount
		[ "$kernel" = 6.1 ] || out=$top/build/bench/icount-$kernel
		;;
	trace)
		flavour=${BENCH_KERNEL:-bench} out=$top/build/bench/trace
		[ "$kernel" = 6.1 ] || out=$top/build/bench/trace-$kernel
		;;
	ab)
		flavour=${BENCH_KERNEL:-bench} out=$top/build/bench/ab timeout=5400
		git -C "$top" rev-parse --verify -q "${ALT:-}^{commit}" >/dev/null ||
			abort "bench ab: ALT=${ALT:-} is not a revision of this repository"
		;;
	*)
		echo "usage: runner.sh bench full|smoke|ab|icount|trace" >&2
		exit 2
		;;
	esac
	vm=$out/vm
	log=$out/bench.log
	mkdir -p "$vm"
	own_boot "$flavour" bench-user bench
	bench_stage "$root" "$bmode"
	if [ "$bmode" = icount ]; then
		bench_icount_boot "$out"
		sed -n '/@@BENCH start/,/@@BENCH stop/p' "$out/bench.log" >"$out/bench-part.log"
		ICOUNT_ONLY=1 ICOUNT_LOG=$out/bench-part.log perl bench/report.pl "$out/bench-part.log" \
			"$out" >"$out/report.txt" || fail "bench/report.pl found errors in $out/bench.log"
		cat "$out/report.txt"
		[ "$failed" = 0 ] || { echo "bench icount: FAILED ($(summary || true))" >&2; exit 1; }
		return
	fi
	if [ "$bmode" = trace ]; then
		bench_trace_boot "$out"
		return
	fi
	[ "$bmode" = ab ] && bench_stage_alt "$kdir" "$vm/alt" "$root"

	# tsc=reliable: under TCG the guest finds the vCPUs' TSCs
	# "unsynchronized" and falls back to the HPET, an emulated MMIO read a
	# hundred times a hardware clock read, which would distort every
	# comparison between a facility that reads the clock per operation
	# (hwtimer, hrtimer) and one that does not (timer_list). QEMU derives
	# the guest TSC from the host's monotonic clock: trusting it is sound.
	# Progress: each benchmark's start and end, and failures.
	APPEND="tsc=reliable ${APPEND:-}" MEM=${MEM:-2G} VM_TIMEOUT=${VM_TIMEOUT:-$timeout} \
		PROGRESS='@@BENCH|@@HWT (fail|done)|^E |hwtbench: .*done' \
		boot_vm "$kdir" "$root" bench "$log"
	check_boot "$log" "$kernel" >&2
	judge "$log" main 1 >&2 || true
	# The same kernel benchmarks counted in instructions (BENCH_ICOUNT=0
	# skips it; so does a run of other benchmarks only).
	if [ "$bmode" = full ] && [ "${BENCH_ICOUNT:-1}" != 0 ] &&
		[[ " ${BENCH_ONLY:-startcancel} " == *" startcancel "* ]]; then
		bench_icount_boot "$out/icount"
		export ICOUNT_LOG=$out/icount/bench.log
	fi
	if [ "$bmode" = ab ]; then
		bench_ab_report "$log" "$out"
		return
	fi
	bench_judge "$log" "$out" >&2

	if [ "$bmode" = full ] && [ "$kernel" = 6.1 ] && [ "$failed" = 0 ] && [ -f docs/benchmarks.md ]; then
		# The latest figures go into the documentation, between markers:
		# the tables into docs/benchmarks.md, the targets into README.md.
		TABLE=$out/table.md MARK=bench-table perl -0pi -e "$put_between" docs/benchmarks.md
		TABLE=$out/targets.md MARK=bench-targets perl -0pi -e "$put_between" README.md
		say "tables written into docs/benchmarks.md, targets into README.md (make bench-plot draws the plot)"
	fi
	# The report last, so that the output ends with "bench: N of M targets met".
	cat "$out/report.txt"
	if [ "$failed" != 0 ]; then
		echo "bench: FAILED ($(summary || true); errors above; full log: $log)" >&2
		exit 1
	fi
}
