#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the benchmark VM (busybox initramfs, see bench/bench.sh).
#
# Loads hwtimer.ko and the benchmark module, runs each kernel benchmark
# through /sys/kernel/debug/hwtbench and prints its results, then runs the
# user-space benchmark. Everything goes to the serial console, which the
# host saves and hands to bench/report.pl. The "@@HWT" markers are the test
# VM's (scripts/guest-init.sh), so scripts/parse-log.awk can judge the log
# too; "@@BENCH" lines frame each benchmark for people reading it.
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/bench/hwtbench.ko,
# /hwt/bench/hwtbench-user, /hwt/bench/bench.conf (shell variables:
# KPARAMS, the benchmark module's parameters; UPARAMS, hwtbench-user's
# options; KBENCH, the kernel benchmarks to run; RUN_USER=0 skips the
# user-space one).

/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
cd /tmp || exit 1

mark() { echo "@@HWT $*"; }
ok() { mark ok "$@"; }
fail() { mark fail "$@"; }
now() { cut -d' ' -f1 /proc/uptime; }

KPARAMS=
UPARAMS=
KBENCH="info memory calib startcancel expiry tick idle scaling lateness"
RUN_USER=1
# shellcheck disable=SC1091 # written by bench/bench.sh
[ -f /hwt/bench/bench.conf ] && . /hwt/bench/bench.conf

mark "boot $(uname -r) mode=bench cpus=$(nproc)"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "I kernel $(uname -r)"
echo "I guest_cpus $(nproc)"
echo "I guest_mem_kb $(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"

# 100k timerfds need 100k file descriptors (hwtbench-user raises its own
# RLIMIT_NOFILE; the system-wide limits must allow it).
echo 2000000 >/proc/sys/fs/file-max
echo 2000000 >/proc/sys/fs/nr_open

# The write returns when the benchmark is done; it fails if the benchmark
# found an error.
run_one() {
	echo "$1" >/sys/kernel/debug/hwtbench/run
}

run_kernel() {
	local b rc
	for b in $KBENCH; do
		echo "@@BENCH begin kernel $b t=$(now)"
		run_one "$b"
		rc=$?
		if [ $rc = 0 ]; then
			ok "bench kernel $b"
		else
			fail "bench kernel $b" "exit status $rc"
		fi
		# The results of a failed run say what went wrong ("E" lines).
		cat /sys/kernel/debug/hwtbench/results
		echo "@@BENCH end kernel $b t=$(now)"
	done
}

run_user() {
	local rc
	echo "@@BENCH begin user t=$(now)"
	# shellcheck disable=SC2086 # UPARAMS is a list of options
	/hwt/bench/hwtbench-user $UPARAMS
	rc=$?
	if [ $rc = 0 ]; then ok "bench user"; else fail "bench user" "exit status $rc"; fi
	echo "@@BENCH end user t=$(now)"
}

if insmod /hwt/kmod/hwtimer.ko; then
	ok "insmod hwtimer.ko"
	# shellcheck disable=SC2086 # KPARAMS is a list of parameters
	if insmod /hwt/bench/hwtbench.ko $KPARAMS; then
		ok "insmod hwtbench.ko"
		run_kernel
		if rmmod hwtbench; then ok "rmmod hwtbench"; else fail "rmmod hwtbench" "exit status $?"; fi
	else
		fail "insmod hwtbench.ko" "exit status $?"
	fi
	[ "$RUN_USER" = 1 ] && run_user
	# The clocksource may change during the run (tsc-early to tsc).
	echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	if rmmod hwtimer; then ok "rmmod hwtimer"; else fail "rmmod hwtimer" "exit status $?"; fi
else
	fail "insmod hwtimer.ko" "exit status $?"
fi

# A debug kernel (the smoke run) also looks for leaks: kmemleak reports
# only objects older than 5 s, and a second scan drops false positives.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
	ok "kmemleak scan"
fi

mark "done"
poweroff -f
