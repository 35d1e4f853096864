# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# The benchmarks of `make bench` and of the benchmark smoke in `make check`:
# sourced by the test VM's /init (scripts/guest-init.sh), whose helpers it
# uses (mark, ok, fail, check, load, unload, now), and run by bench_run.
#
# Loads hwtimer.ko and the benchmark module, runs each kernel benchmark
# through /sys/kernel/debug/hwtbench and prints its results, then runs the
# user-space benchmark. The host hands what is printed between
# "@@BENCH start" and "@@BENCH stop" to bench/report.pl; "@@BENCH begin/end"
# lines frame each benchmark for people reading the log.
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/bench/hwtbench.ko,
# /hwt/bench/hwtbench-user, /hwt/bench/bench.conf (shell variables:
# KPARAMS, the benchmark module's parameters; UPARAMS, hwtbench-user's
# options; KBENCH, the kernel benchmarks to run; RUN_USER=0 skips the
# user-space one).
#
# The user-space benchmark runs in a non-root memory cgroup,
# /sys/fs/cgroup/bench (cgroup v2, the memory controller enabled for the
# root's children), as services under systemd and in containers do: its
# kernel allocations are charged (memcg accounting on, as in production)
# and it reports that cgroup's memory.current and memory.stat.

KPARAMS=
UPARAMS=
KBENCH="info memory calib startcancel startidle expiry tick cycle idle scaling lateness slack"
RUN_USER=1
# shellcheck disable=SC1091 # written by the host (bench/lib.sh)
[ -f /hwt/bench/bench.conf ] && . /hwt/bench/bench.conf

# The write returns when the benchmark is done; it fails if the benchmark
# found an error.
bench_one() {
	echo "$1" >/sys/kernel/debug/hwtbench/run
}

bench_kernel() {
	local b
	for b in $KBENCH; do
		echo "@@BENCH begin kernel $b t=$(now)"
		check "bench kernel $b" bench_one "$b"
		# The results of a failed run say what went wrong ("E" lines).
		cat /sys/kernel/debug/hwtbench/results
		echo "@@BENCH end kernel $b t=$(now)"
	done
}

BENCH_CG=/sys/fs/cgroup/bench

# The benchmark's cgroup (memcg_mount: scripts/guest-init.sh).
bench_memcg() {
	memcg_mount && mkdir -p "$BENCH_CG" && [ -f "$BENCH_CG/memory.current" ]
}

bench_user() {
	echo "@@BENCH begin user t=$(now)"
	if check "bench memory cgroup $BENCH_CG" bench_memcg; then
		# shellcheck disable=SC2086 # UPARAMS is a list of options
		check "bench user" /hwt/bench/hwtbench-user $UPARAMS -c "$BENCH_CG"
		rmdir "$BENCH_CG" 2>/dev/null || true
	fi
	echo "@@BENCH end user t=$(now)"
}

bench_run() {
	echo "@@BENCH start t=$(now)"
	echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "I kernel $(uname -r)"
	echo "I guest_cpus $(nproc)"
	echo "I guest_mem_kb $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"

	# 100k timerfds need 100k file descriptors (hwtbench-user raises its
	# own RLIMIT_NOFILE; the system-wide limits must allow it).
	echo 2000000 >/proc/sys/fs/file-max
	echo 2000000 >/proc/sys/fs/nr_open

	if load /hwt/kmod/hwtimer.ko; then
		# shellcheck disable=SC2086 # KPARAMS is a list of parameters
		if load /hwt/bench/hwtbench.ko $KPARAMS; then
			bench_kernel
			unload hwtbench
		fi
		[ "$RUN_USER" = 1 ] && bench_user
		# The clocksource may change during the run (tsc-early to tsc).
		echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
		unload hwtimer
	fi
	echo "@@BENCH stop t=$(now)"
}
