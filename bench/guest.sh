# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# The benchmarks of `make bench` and of the benchmark smoke in `make check`:
# sourced by scripts/guest-init.sh, whose helpers it uses (check, load,
# unload, now, memcg_mount), and run by bench_run. Each kernel benchmark
# runs through /sys/kernel/debug/hwtbench, then the user-space one. The
# host gives what is printed between "@@BENCH start" and "@@BENCH stop" to
# bench/report.pl; "@@BENCH begin/end" frame each benchmark for readers.
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/bench/hwtbench.ko,
# /hwt/bench/hwtbench-user, /hwt/bench/hwtbench-rt, /hwt/bench/hwtbench-dev,
# /hwt/bench/bench.conf (KPARAMS, the module's parameters; UPARAMS,
# hwtbench-user's options; WPARAMS, hwtbench-rt's; DPARAMS, hwtbench-dev's;
# KBENCH, the kernel benchmarks; RUN_USER=0 and RUN_WAKE=0 skip the
# user-space ones, RUN_DEV=1 runs hwtbench-dev (the device's data path per
# entry, after the kernel benchmarks); AB_RUNS, in `make bench-ab`, the
# runs of the user-space benchmark with each of /hwt/kmod/hwtimer.ko and
# /hwt/kmod/hwtimer-alt.ko, alternating: "@@BENCH ab variant=new|alt"
# before each).
#
# The user-space benchmark runs in a non-root memory cgroup,
# /sys/fs/cgroup/bench, as services under systemd and in containers do:
# its kernel allocations are charged, and it reports the cgroup's
# memory.current and memory.stat.

KPARAMS=
UPARAMS=
WPARAMS=
DPARAMS=
KBENCH="info memory calib startcancel startidle expiry tick cycle idle scaling lateness slack"
RUN_USER=1
RUN_WAKE=1
RUN_DEV=0
AB_RUNS=0
# shellcheck disable=SC1091 # written by the host (bench/lib.sh)
[ -f /hwt/bench/bench.conf ] && . /hwt/bench/bench.conf
BENCH_CG=/sys/fs/cgroup/bench

# The write returns when the benchmark is done, and fails if it found an
# error.
bench_one() { echo "$1" >/sys/kernel/debug/hwtbench/run; }
bench_memcg() { memcg_mount && mkdir -p "$BENCH_CG" && [ -f "$BENCH_CG/memory.current" ]; }
clocksource() { echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"; }

# make bench-ab: the user-space benchmark AB_RUNS times with each module,
# in the order new alt alt new, new alt alt new...: neither module runs
# first or last more often in a pair of runs, so a drift of the host over
# the boot weighs on both alike.
bench_ab() {
	local r=0 v
	while [ $r -lt $((2 * AB_RUNS)) ]; do
		case $((r % 4)) in
		0 | 3) v=new ;;
		*) v=alt ;;
		esac
		unload hwtimer
		if [ $v = new ]; then
			load /hwt/kmod/hwtimer.ko || return
		else
			load /hwt/kmod/hwtimer-alt.ko || return
		fi
		echo "@@BENCH ab variant=$v"
		# shellcheck disable=SC2086 # UPARAMS is a list of options
		check "bench user ($v)" /hwt/bench/hwtbench-user $UPARAMS -c "$BENCH_CG"
		r=$((r + 1))
	done
}

bench_run() {
	local b
	echo "@@BENCH start t=$(now)"
	clocksource
	echo "I kernel $(uname -r)"
	echo "I guest_cpus $(nproc)"
	echo "I guest_mem_kb $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
	# 100k timerfds need as many file descriptors (hwtbench-user raises
	# its own RLIMIT_NOFILE within these).
	echo 2000000 >/proc/sys/fs/file-max
	echo 2000000 >/proc/sys/fs/nr_open
	if load /hwt/kmod/hwtimer.ko; then
		# shellcheck disable=SC2086 # KPARAMS is a list of parameters
		if load /hwt/bench/hwtbench.ko $KPARAMS; then
			for b in $KBENCH; do
				echo "@@BENCH begin kernel $b t=$(now)"
				# make bench-trace: the modules' symbols, for its report.
				[ "$b" = trace ] &&
					grep -E '\[(hwtimer|hwtbench)\]' /proc/kallsyms | sed 's/^/@@KSYM /'
				check "bench kernel $b" bench_one "$b"
				# A failed run's results say what went wrong ("E" lines).
				cat /sys/kernel/debug/hwtbench/results
				echo "@@BENCH end kernel $b t=$(now)"
			done
			unload hwtbench
		fi
		if [ "$RUN_DEV" = 1 ]; then
			# The device's data path, per entry (in instructions
			# under make bench-icount).
			echo "@@BENCH begin dev t=$(now)"
			# shellcheck disable=SC2086 # DPARAMS is a list of options
			check "bench dev" /hwt/bench/hwtbench-dev $DPARAMS
			echo "@@BENCH end dev t=$(now)"
		fi
		if [ "$RUN_WAKE" = 1 ]; then
			# Wake-up lateness, device against timerfd, idle and loaded.
			echo "@@BENCH begin wake t=$(now)"
			# shellcheck disable=SC2086 # WPARAMS is a list of options
			check "bench wake" /hwt/bench/hwtbench-rt $WPARAMS
			echo "@@BENCH end wake t=$(now)"
		fi
		if [ "$RUN_USER" = 1 ]; then
			echo "@@BENCH begin user t=$(now)"
			if check "bench memory cgroup $BENCH_CG" bench_memcg; then
				if [ "$AB_RUNS" -gt 0 ]; then
					bench_ab
				else
					# shellcheck disable=SC2086 # UPARAMS is a list of options
					check "bench user" /hwt/bench/hwtbench-user $UPARAMS -c "$BENCH_CG"
				fi
				rmdir "$BENCH_CG" 2>/dev/null || true
			fi
			echo "@@BENCH end user t=$(now)"
		fi
		# The clocksource may change during the run (tsc-early to tsc).
		clocksource
		unload hwtimer
	fi
	echo "@@BENCH stop t=$(now)"
}
