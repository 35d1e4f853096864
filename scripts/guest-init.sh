#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of the hwtimer test VM (busybox initramfs built by scripts/vm-boot.sh).
#
# It loads the modules, runs the tests and prints everything to the serial
# console, which the host saves as build/vm.log and parses with
# scripts/parse-log.awk. Lines starting with "@@HWT " are for that parser:
#
#   @@HWT ok <name>                      a check that passed
#   @@HWT fail <name> <why>              a check that failed
#   @@HWT ut-begin <prog>                a TAP program starts...
#   @@HWT ut-end <prog> <exit status>    ...and ends
#   @@HWT begin <segment>                a self-test fixture's log starts...
#   @@HWT end <segment>                  ...and ends
#   @@HWT done                           the guest finished; nothing hung
#
# Kernel command line options read here:
#   hwt.mode=check|selftest|run|shell    what to do (default check)
#   hwt.timeout=<s>                      per user-space program (default 600)
#
# Guest layout: /hwt/kmod/*.ko (hwtimer.ko), /hwt/kunit/*.ko, /hwt/samples/*.ko,
# /hwt/ut/* (TAP programs), /hwt/tools/*, /hwt/selftest/{*.ko,ut/*}.

/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
cd /tmp || exit 1

mode=check
ut_timeout=600
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	hwt.mode=*) mode=${arg#hwt.mode=} ;;
	hwt.timeout=*) ut_timeout=${arg#hwt.timeout=} ;;
	esac
done

mark() { echo "@@HWT $*"; }
ok() { mark ok "$@"; }
fail() { mark fail "$@"; }

# The serial console is written by printk directly but by user space
# through the tty buffer, so a kernel message can overtake text that was
# echoed just before it. Self-test fixtures are told apart by the log lines
# between their markers, so give both paths time to drain at a boundary.
settle() { sleep 0.2; }

# insmod/rmmod one module as a counted check.
load() {
	if insmod "$1"; then ok "insmod $(basename "$1")"; else fail "insmod $(basename "$1")" "exit status $?"; return 1; fi
}
unload() {
	local mod
	mod=$(basename "$1" .ko)
	if rmmod "$mod"; then ok "rmmod $mod"; else fail "rmmod $mod" "exit status $?"; fi
}

# Run one TAP program; the host counts its results and its exit status.
# The uptime after the status is only for people reading the log.
run_ut() {
	local prog rc
	prog=$(basename "$1")
	mark ut-begin "$prog"
	timeout -s KILL "$ut_timeout" "$1" 2>&1
	rc=$?
	mark ut-end "$prog" "$rc" "t=$(cut -d' ' -f1 /proc/uptime)"
}

# KUnit runs a module's suites while it loads and prints KTAP to the kernel
# log; the host parses that. Unload it afterwards so kmemleak sees the end.
run_kunit() {
	load "$1" && unload "$1"
}

# A sample module is a test by itself: it must load and unload cleanly.
run_sample() {
	load "$1" && unload "$1"
}

# kmemleak reports an unreferenced object at a scan only if it is older
# than 5 s and its contents (checksum) did not change since the previous
# scan: a leak shows up at the second scan after it, at the earliest. A scan
# costs about 12 s of TCG time per GB of guest memory (it walks every struct
# page), so scans are shared and run in the background where they can:
#
#   check:    [main] tests, unload; scan 1 in the background while the
#             fixtures run; [leak] load+unload the leaky module; scan 2;
#             [main] report: main's leaks were seen by scans 1 and 2, the
#             fixture's leak only by 2, not reported yet; [leak] scan 3,
#             report (now with the fixture's leak).
#   selftest: [leak] load+unload; scan 1 in the background while the other
#             fixtures run; [leak] scan 2, report.
kmemleak=/sys/kernel/debug/kmemleak
scan_pid=

uptime_s() { cut -d. -f1 /proc/uptime; }

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

main_tests() {
	for m in /hwt/kunit/*.ko; do
		[ -e "$m" ] && run_kunit "$m"
	done
	for p in /hwt/ut/*; do
		[ -x "$p" ] && run_ut "$p"
	done
	for m in /hwt/samples/*.ko; do
		[ -e "$m" ] && run_sample "$m"
	done
}

# Each fixture is deliberately broken (except "clean"); the host checks that
# the parser flags each one, on that fixture's segment of the log only.
fixture() {
	local seg=selftest:$1
	shift
	settle
	mark begin "$seg" "t=$(cut -d' ' -f1 /proc/uptime)"
	settle
	"$@"
	settle
	mark end "$seg" "t=$(cut -d' ' -f1 /proc/uptime)"
}

leak_start() {
	load /hwt/selftest/hwt_st_leak.ko && unload /hwt/selftest/hwt_st_leak.ko
	t_leak=$(uptime_s)
}

leak_finish() {
	scan_start "$t_leak"
	scan_wait
	kmemleak_report
}

fixture_clean() {
	run_kunit /hwt/selftest/hwt_st_kunit_pass.ko
	run_ut /hwt/selftest/ut/st_pass_test
}

# The fixtures but the leak, which is split around the kmemleak scans.
selftests() {
	fixture kunit-fail run_kunit /hwt/selftest/hwt_st_kunit_fail.ko
	fixture warn run_sample /hwt/selftest/hwt_st_warn.ko
	fixture ut-fail run_ut /hwt/selftest/ut/st_fail_test
	fixture ut-crash run_ut /hwt/selftest/ut/st_crash_test
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

mark "boot $(uname -r) preempt=$(preempt_model) mode=$mode cpus=$(nproc) version=$(uname -v)"
case "$mode" in
check)
	load /hwt/kmod/hwtimer.ko
	main_tests
	unload /hwt/kmod/hwtimer.ko
	t_main=$(uptime_s)
	scan_start
	selftests
	scan_wait
	fixture leak leak_start
	scan_start "$t_main"
	scan_wait
	kmemleak_report
	fixture leak leak_finish
	;;
selftest)
	fixture leak leak_start
	scan_start
	selftests
	scan_wait
	fixture leak leak_finish
	;;
run)
	load /hwt/kmod/hwtimer.ko
	show_device
	if [ -x /hwt/tools/hwtimer-demo ]; then
		if /hwt/tools/hwtimer-demo; then ok hwtimer-demo; else fail hwtimer-demo "exit status $?"; fi
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
