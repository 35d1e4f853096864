#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the hwtimer test VM (busybox initramfs built by scripts/vm-boot.sh),
# for every use of it: make check, runner-test, run, shell, stress and
# bench (scripts/runner.sh).
#
# It loads the modules, runs the tests and prints everything to the serial
# console, which the host saves and parses with scripts/parse-log.awk.
# Lines starting with "@@HWT " are for that parser:
#
#   @@HWT boot <release> preempt=<model> ...  the kernel that runs
#   @@HWT ok <name>                      a check that passed
#   @@HWT fail <name> <why>              a check that failed
#   @@HWT ut-begin <prog>                a TAP program starts...
#   @@HWT ut-end <prog> <exit status>    ...and ends
#   @@HWT begin <segment>                a part of the log judged on its
#   @@HWT end <segment>                  own starts and ends: a self-test
#                                        fixture (runner-test:*), a stress
#                                        step that must warn (stress:*)
#   @@HWT done                           the guest finished; nothing hung
#
# Kernel command line options read here:
#   hwt.mode=check|runner-test|run|shell|stress|bench   what to do (default check)
#   hwt.timeout=<s>                      per user-space program (default 600)
#   hwt.nosuspend=1                      tests must not suspend the VM
#                                        (exported as HWT_NO_SUSPEND=1)
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/kunit/*.ko, /hwt/samples/*.ko,
# /hwt/ut/* (TAP programs), /hwt/tools/*, /hwt/runner-test/{*.ko,ut/*} (with
# a hwtimer.ko of their own); and,
# where the host staged them, the stress steps (/hwt/stress/guest.sh, with
# stress.conf, the modules and bin/) and the benchmarks
# (/hwt/bench/guest.sh, with bench.conf, hwtbench.ko and hwtbench-user),
# which this script sources.

/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
cd /tmp || exit 1

mode=check
ut_timeout=600
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	hwt.mode=*) mode=${arg#hwt.mode=} ;;
	hwt.timeout=*) ut_timeout=${arg#hwt.timeout=} ;;
	hwt.nosuspend=1) export HWT_NO_SUSPEND=1 ;;
	esac
done

mark() { echo "@@HWT $*"; }
ok() { mark ok "$@"; }
fail() { mark fail "$@"; }
now() { cut -d' ' -f1 /proc/uptime; }
uptime_s() { cut -d. -f1 /proc/uptime; }

# The serial console is written by printk directly but by user space
# through the tty buffer, so a kernel message can overtake text that was
# echoed just before it. Segments are told apart by the log lines between
# their markers, so give both paths time to drain at a boundary.
settle() { sleep 0.2; }

# Run a command as one counted check, named NAME; returns its status.
check() {
	local name=$1 rc
	shift
	if "$@"; then
		ok "$name"
	else
		rc=$?
		fail "$name" "exit status $rc"
		return $rc
	fi
}

# insmod PATH [PARAMS], rmmod NAME (or the module's path) as checks.
load() {
	local m=$1
	shift
	check "insmod $(basename "$m")${1:+ $*}" insmod "$m" "$@"
}
unload() {
	check "rmmod $(basename "$1" .ko)" rmmod "$(basename "$1" .ko)"
}

# Run one TAP program, named NAME in the log; the host counts its results
# and its exit status. The uptime after the status is only for people
# reading the log. Returns the program's status.
#
# Its time limit: from the kselftest-style "settings" file beside it,
# timeout_<program>=N (the -32 build reads its 64-bit twin's), else
# timeout=N, else hwt.timeout. A program still running then is killed
# (status 137), which fails it.
run_ut() {
	local name=$1 rc prog=$2 base settings limit=
	shift
	base=$(basename "$prog")
	base=${base%-32}
	settings=$(dirname "$prog")/settings
	if [ -r "$settings" ]; then
		limit=$(sed -n "s/^timeout_$base=\([0-9][0-9]*\)\$/\1/p" "$settings" | tail -n 1)
		[ -n "$limit" ] ||
			limit=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$settings" | tail -n 1)
	fi
	limit=${limit:-$ut_timeout}
	mark ut-begin "$name"
	timeout -s KILL "$limit" "$@" 2>&1
	rc=$?
	[ $rc = 137 ] && echo "# $name: killed: still running after its time limit of $limit s"
	mark ut-end "$name" "$rc" "t=$(now)"
	return $rc
}

# KUnit runs a module's suites while it loads and prints KTAP to the kernel
# log; the host parses that. Unload it afterwards so kmemleak sees the end.
# A sample module is a test by itself: it must load and unload cleanly.
load_unload() {
	load "$1" && unload "$1"
}

# kmemleak reports an unreferenced object at a scan only if it is older
# than 5 s and its contents (checksum) did not change since the previous
# scan: a leak shows up at the second scan after it, at the earliest. A scan
# costs about 9 to 12 s of TCG time per GB of guest memory (it walks every
# struct page), so one boot makes as few as it can, shared by everything it
# runs, and runs them in the background where it can:
#
#   check:    [main] tests, benchmarks, stress steps, unload; [leak]
#             load+unload the leaky module; scan 1 in the background while
#             the other fixtures run; scan 2; [main] report, but the
#             fixture's leak; [leak] report of the fixture's leak alone:
#             the object the leaky module's insmod allocated (kmemleak
#             names the task, "pid N") with the text the module writes
#             (see kmemleak_report_pid). Every other object goes to
#             main's report.
#   runner-test: [leak] load+unload; scan 1 in the background while the other
#             fixtures run; [leak] scan 2, report.
#   stress, bench: everything, unload; scans 1 and 2; report.
kmemleak=/sys/kernel/debug/kmemleak
scan_pid=

# Start a scan; scan_wait waits for it. With an uptime argument, first wait
# until it is 6 s in the past, so what leaked then is old enough to report.
scan_start() {
	while [ "$(uptime_s)" -lt $((${1:-0} + 6)) ]; do
		sleep 1
	done
	if [ -w $kmemleak ]; then
		echo scan >$kmemleak &
		scan_pid=$!
	fi
}

scan_wait() {
	[ -n "$scan_pid" ] && wait "$scan_pid"
	scan_pid=
}

kmemleak_report() {
	if [ -r $kmemleak ]; then
		cat $kmemleak
		ok "kmemleak scan"
	else
		fail kmemleak "$kmemleak is missing (kernel without CONFIG_DEBUG_KMEMLEAK?)"
	fi
}

# kmemleak's report split in two: WANT=1 prints the objects of the leaky
# fixture, WANT=0 all the others. The fixture's object is the one both
# allocated by task PID (its insmod: '  comm "insmod", pid 123, jiffies
# ...') and holding the text it writes ("hwtimer runner self-test: leaked
# on purpose", the start of the hex dump): pids wrap (6.1's pid_max is
# 4096 here), so an older task's leak may carry the same pid, and must
# still go to the main report.
kmemleak_report_pid() {
	local pid=$1 want=$2
	if [ -r $kmemleak ]; then
		awk -v pid="pid $pid," -v want="$want" '
			function flush(  ours) {
				ours = index(obj, pid) > 0 && index(obj, "hwtimer runner s") > 0 &&
					index(obj, "elf-test: leaked") > 0
				if (obj != "" && ours == want)
					printf "%s", obj
				obj = ""
			}
			/^unreferenced object/ { flush() }
			{ obj = obj $0 "\n" }
			END { flush() }
		' $kmemleak
		ok "kmemleak scan"
	else
		fail kmemleak "$kmemleak is missing (kernel without CONFIG_DEBUG_KMEMLEAK?)"
	fi
}

# The two scans and the report, when the kernel has kmemleak at all (the
# benchmark kernel has not; the debug kernels of check and runner-test must).
kmemleak_final() {
	local t
	[ -w $kmemleak ] || { echo "kmemleak: not in this kernel"; return; }
	t=$(uptime_s)
	scan_start "$t"
	scan_wait
	scan_start
	scan_wait
	kmemleak_report
}

# cgroup2 on /sys/fs/cgroup (unless it is there) with the memory controller
# for the root's children: what the tests, the stress steps and the
# benchmarks need before they make a memory cgroup.
memcg_mount() {
	if ! grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts; then
		mkdir -p /sys/fs/cgroup &&
			mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	fi
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
}

# The tests run in a non-root memory cgroup, as a service does under systemd
# or in a container: only then does 6.1 charge GFP_KERNEL_ACCOUNT
# allocations, so the device's accounting paths run as in production. This
# shell moves into it, and every program it starts from now on is charged
# there.
TESTS_CG=/sys/fs/cgroup/tests
tests_memcg() {
	memcg_mount && mkdir -p $TESTS_CG && [ -f $TESTS_CG/memory.current ] &&
		echo $$ >$TESTS_CG/cgroup.procs
}

main_tests() {
	local m p
	check "tests in memory cgroup $TESTS_CG" tests_memcg
	for m in /hwt/kunit/*.ko; do
		[ -e "$m" ] && load_unload "$m"
	done
	for p in /hwt/ut/*; do
		[ -x "$p" ] && run_ut "$(basename "$p")" "$p"
	done
	for m in /hwt/samples/*.ko; do
		[ -e "$m" ] && load_unload "$m"
	done
}

# Each fixture is deliberately broken (except "clean"); the host checks that
# the parser flags each one, on that fixture's segment of the log only.
fixture() {
	local seg=runner-test:$1
	shift
	settle
	mark begin "$seg" "t=$(now)"
	settle
	"$@"
	settle
	mark end "$seg" "t=$(now)"
}

leak_start() {
	load_unload /hwt/runner-test/hwt_st_leak.ko
	t_leak=$(uptime_s)
}

# leak_start, with the pid of the insmod whose module leaks in leak_pid.
leak_start_pid() {
	insmod /hwt/runner-test/hwt_st_leak.ko &
	leak_pid=$!
	if wait $leak_pid; then
		ok "insmod hwt_st_leak.ko"
		unload /hwt/runner-test/hwt_st_leak.ko
	else
		fail "insmod hwt_st_leak.ko" "exit status $?"
	fi
	t_leak=$(uptime_s)
}

leak_finish() {
	scan_start "$t_leak"
	scan_wait
	kmemleak_report
}

fixture_clean() {
	load_unload /hwt/runner-test/hwt_st_kunit_pass.ko
	run_ut st_pass_test /hwt/runner-test/ut/st_pass_test
}

# One hwtimer bug that debugobjects reports (bug=free, start or setup), on
# the hwtimer.ko built with the fixture, loaded for it alone.
fixture_odebug() {
	load /hwt/runner-test/hwtimer.ko || return
	load /hwt/runner-test/hwt_st_odebug.ko "bug=$1" && unload /hwt/runner-test/hwt_st_odebug.ko
	unload /hwt/runner-test/hwtimer.ko
}

# The fixtures but the leak, which is split around the kmemleak scans.
runner_tests() {
	fixture kunit-fail load_unload /hwt/runner-test/hwt_st_kunit_fail.ko
	fixture warn load_unload /hwt/runner-test/hwt_st_warn.ko
	fixture odebug-free fixture_odebug free
	fixture odebug-start fixture_odebug start
	fixture odebug-setup fixture_odebug setup
	fixture ut-fail run_ut st_fail_test /hwt/runner-test/ut/st_fail_test
	fixture ut-crash run_ut st_crash_test /hwt/runner-test/ut/st_crash_test
	fixture clean fixture_clean
}

# The preemption model, for the boot line: the host checks that an -rt
# test kernel really runs PREEMPT_RT. debugfs names the current model
# where it can change at boot (PREEMPT_DYNAMIC); otherwise the version
# string carries the configured one ("SMP PREEMPT_RT", "SMP PREEMPT").
preempt_model() {
	local f=/sys/kernel/debug/sched/preempt
	case "$(uname -v)" in
	*PREEMPT_RT*) echo rt ;;
	*)
		if [ -r $f ]; then
			sed -n 's/.*(\([a-z]*\)).*/\1/p' $f
		else
			case "$(uname -v)" in
			*PREEMPT*) echo full ;;
			*) echo none ;;
			esac
		fi
		;;
	esac
}

show_device() {
	grep hwtimer /proc/modules
	grep hwtimer /proc/misc
	ls -l /dev/hwtimer
}

# The stress steps and the benchmarks, where the host staged them: they
# define stress_run and bench_run.
have_stress=0
have_bench=0
# shellcheck disable=SC1091 # staged by the host
[ -f /hwt/stress/guest.sh ] && . /hwt/stress/guest.sh && have_stress=1
# shellcheck disable=SC1091 # staged by the host
[ -f /hwt/bench/guest.sh ] && . /hwt/bench/guest.sh && have_bench=1

mark "boot $(uname -r) preempt=$(preempt_model) mode=$mode cpus=$(nproc) version=$(uname -v)"
case "$mode" in
check)
	load /hwt/kmod/hwtimer.ko
	main_tests
	unload /hwt/kmod/hwtimer.ko
	# The smoke runs of the benchmarks and of the stress steps, each
	# loading what it needs and unloading it when done.
	[ $have_bench = 1 ] && bench_run
	[ $have_stress = 1 ] && stress_run
	fixture leak leak_start_pid
	scan_start
	runner_tests
	scan_wait
	scan_start "$t_leak"
	scan_wait
	kmemleak_report_pid "$leak_pid" 0
	fixture leak kmemleak_report_pid "$leak_pid" 1
	;;
runner-test)
	fixture leak leak_start
	scan_start
	runner_tests
	scan_wait
	fixture leak leak_finish
	;;
stress | bench)
	if [ "$mode" = stress ] && [ $have_stress = 1 ]; then
		stress_run
	elif [ "$mode" = bench ] && [ $have_bench = 1 ]; then
		bench_run
	else
		fail init "hwt.mode=$mode but /hwt/$mode/guest.sh is not staged"
	fi
	kmemleak_final
	;;
run)
	load /hwt/kmod/hwtimer.ko
	show_device
	if [ -x /hwt/tools/hwtimer-demo ]; then
		check hwtimer-demo /hwt/tools/hwtimer-demo
	else
		echo "hwtimer is loaded and /dev/hwtimer registered; tools/hwtimer-demo.c is not written yet"
	fi
	unload /hwt/kmod/hwtimer.ko
	;;
shell)
	load /hwt/kmod/hwtimer.ko
	show_device
	echo "Test files are under /hwt. Leave with 'exit' (or Ctrl-A x)."
	# cttyhack gives the shell a controlling tty, so Ctrl-C works.
	setsid cttyhack sh -l
	;;
*)
	fail init "unknown hwt.mode=$mode"
	;;
esac
mark "done"
poweroff -f
