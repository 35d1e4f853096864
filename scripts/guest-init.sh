#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# /init of every hwtimer test VM (scripts/vm-boot.sh): it loads the modules,
# runs the tests and prints everything to the serial console, which the
# host judges with scripts/parse-log.awk. Its markers:
#
#   @@HWT boot <release> preempt=<model> ... machine=<uname -m>
#       pagesize=<bytes> version=<uname -v>  the kernel that runs
#   @@HWT ok <name>, @@HWT fail <name> <why>  a check that passed, failed
#   @@HWT ut-begin <prog>, ut-end <prog> <exit status>
#                                        a TAP program's start and end
#   @@HWT begin <segment>, end <segment> a part judged on its own: a
#                                        self-test fixture (runner-test:*), a
#                                        stress step that must warn (stress:*)
#   @@HWT done                           the guest finished; nothing hung
#
# Kernel command line: hwt.mode=check|runner-test|run|shell|stress|bench|probe
# (default check; probe: the boot line only, for scripts/lib.sh's KVM probe), hwt.timeout=<s> (per user-space program, default 600),
# hwt.nosuspend=1 (tests must not suspend the VM: HWT_NO_SUSPEND=1),
# hwt.only=GLOB[,GLOB...] (check: only the KUnit modules, test programs
# and samples whose names match, and no self-test fixtures).
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/kunit/*.ko, /hwt/samples/*.ko,
# /hwt/ut/* (TAP programs), /hwt/tools/*, /hwt/installed/* (check: built
# from `make install` alone), /hwt/runner-test/{*.ko,ut/*} (with
# a hwtimer.ko of their own) and, where staged, /hwt/stress/ and /hwt/bench/
# (guest.sh, which this script sources, its settings, modules, programs).

/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
cd /tmp || exit 1

mode=check ut_timeout=600 only=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	hwt.mode=*) mode=${arg#hwt.mode=} ;;
	hwt.timeout=*) ut_timeout=${arg#hwt.timeout=} ;;
	hwt.nosuspend=1) export HWT_NO_SUSPEND=1 ;;
	hwt.only=*) only=$(echo "${arg#hwt.only=}" | tr , ' ') ;;
	esac
done

mark() { echo "@@HWT $*"; }
ok() { mark ok "$@"; }
fail() { mark fail "$@"; }
now() { cut -d' ' -f1 /proc/uptime; }
uptime_s() { cut -d. -f1 /proc/uptime; }

# Run a command as one check named NAME; returns its status.
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

# insmod PATH [PARAMS], rmmod NAME (or the module's path), as checks.
load() {
	local m=$1
	shift
	check "insmod $(basename "$m")${1:+ $*}" insmod "$m" "$@"
}
unload() { check "rmmod $(basename "$1" .ko)" rmmod "$(basename "$1" .ko)"; }

# Whether the test NAME is to run: always, unless hwt.only= names globs
# (the runner's ONLY=, a partial run for a developer's loop).
wanted() {
	local p
	[ -z "$only" ] && return 0
	for p in $only; do
		# shellcheck disable=SC2254 # a glob, on purpose
		case "$1" in $p) return 0 ;; esac
	done
	return 1
}

# A KUnit module runs its suites while it loads; unloading it lets kmemleak
# see the end. A sample module must load and unload cleanly.
load_unload() { load "$1" && unload "$1"; }
load_all() {
	local m
	for m in "$1"/*.ko; do
		[ -e "$m" ] && wanted "$(basename "$m" .ko)" && load_unload "$m"
	done
}

# One TAP program, NAME in the log; returns its status. Its time limit comes
# from the kselftest-style "settings" file beside it: timeout_<program>=N
# (the -32 build reads its 64-bit twin's), else timeout=N, else
# hwt.timeout. Killed then (status 137), it fails.
run_ut() {
	local name=$1 prog=$2 base rc limit
	shift
	base=$(basename "$prog")
	limit=$(awk -F= -v p="timeout_${base%-32}" '
		NF == 2 && $2 ~ /^[0-9]+$/ && ($1 == p || $1 == "timeout") { v[$1] = $2 }
		END { print (p in v) ? v[p] : v["timeout"] }' "$(dirname "$prog")/settings" 2>/dev/null)
	limit=${limit:-$ut_timeout}
	mark ut-begin "$name"
	timeout -s KILL "$limit" "$@" 2>&1
	rc=$?
	[ $rc = 137 ] && echo "# $name: killed: still running after its time limit of $limit s"
	# The uptime is for people reading the log.
	mark ut-end "$name" "$rc" "t=$(now)"
	return $rc
}

# A program that cannot run here, as its one skipped result, with the
# reason (the host counts it as skipped).
skip_ut() {
	mark ut-begin "$1"
	echo "1..0 # SKIP $2"
	mark ut-end "$1" 4
}

# printk writes the serial console directly, user space through the tty
# buffer, so a kernel message can overtake text echoed just before it.
# Segments are told apart by the lines between their markers: give both
# paths time to drain at each boundary.
settle() { sleep 0.2; }

# Run "$@" in the segment NAME, judged on its own by the host.
segment() {
	local name=$1
	shift
	settle
	mark begin "$name" "t=$(now)"
	settle
	"$@"
	settle
	mark end "$name" "t=$(now)"
	settle
}

# kmemleak reports an object at a scan only if it is older than 5 s and its
# contents did not change since the previous scan: a leak shows at the
# second scan after it, at the earliest. A scan costs 9 to 12 s of TCG time
# per GB of guest memory (it walks every struct page), so a boot makes two,
# shared by everything, in the background where it can. check and
# runner-test: [main] everything else, unload; [leak] load+unload the leaky
# module; scan 1 in the background while the other fixtures run; scan 2;
# [main] report but the fixture's leak; [leak] the fixture's leak alone.
# stress, bench: everything, unload; scans 1 and 2; report.
kmemleak=/sys/kernel/debug/kmemleak
scan_pid=

# Start a scan; with an uptime, once that is 6 s in the past, so that what
# leaked then is old enough to report.
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

# kmemleak's report; with PID, split in two: WANT=1 prints the objects of
# the leaky fixture, WANT=0 all others. The fixture's object was allocated
# by task PID (its insmod: '  comm "insmod", pid 123, jiffies ...') and
# holds the text it writes (the start of the hex dump): pids wrap (6.1's
# pid_max is 4096 here), so an older task's leak may carry the same pid.
kmemleak_report() {
	if [ ! -r $kmemleak ]; then
		fail kmemleak "$kmemleak is missing (kernel without CONFIG_DEBUG_KMEMLEAK?)"
		return
	fi
	kmemleak_objects "$@"
	ok "kmemleak scan"
}

# The objects of kmemleak's report that kmemleak_report() prints.
kmemleak_objects() {
	awk -v pid="pid ${1:-none}," -v want="${2:-0}" '
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
}

# cgroup2 on /sys/fs/cgroup with the memory controller for the root's
# children: for the tests, the stress steps and the benchmarks.
memcg_mount() {
	if ! grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts; then
		mkdir -p /sys/fs/cgroup &&
			mount -t cgroup2 cgroup2 /sys/fs/cgroup || return 1
	fi
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
}

# The tests run in a non-root memory cgroup, as a service does under
# systemd: only then does 6.1 charge GFP_KERNEL_ACCOUNT allocations. This
# shell moves in, and so does every program it starts from then on.
TESTS_CG=/sys/fs/cgroup/tests
tests_memcg() {
	memcg_mount && mkdir -p $TESTS_CG && [ -f $TESTS_CG/memory.current ] &&
		echo $$ >$TESTS_CG/cgroup.procs
}

# What the host built from `make install` alone (install_stage in
# scripts/runner.sh): the sample module, built outside the tree, which
# starts its timers and waits for them while it loads, and libhwtimer(3)'s
# example, built with pkg-config. hwtimer.ko is loaded.
installed_tests() {
	local d=/hwt/installed
	if [ ! -d $d ]; then
		fail installed "$d is not staged"
		return
	fi
	[ -f $d/skip ] && return	# counted as skipped on the host
	check "insmod installed/hwtimer_sample.ko" insmod $d/hwtimer_sample.ko &&
		check "rmmod installed/hwtimer_sample.ko" rmmod hwtimer_sample
	check "installed/libhwtimer-example" $d/libhwtimer-example
}

main_tests() {
	local p
	check "tests in memory cgroup $TESTS_CG" tests_memcg
	load_all /hwt/kunit
	for p in /hwt/ut/*; do
		[ -x "$p" ] && wanted "$(basename "$p")" && run_ut "$(basename "$p")" "$p"
	done
	load_all /hwt/samples
	installed_tests
}

R=/hwt/runner-test

# One hwtimer bug that debugobjects reports (bug=free, start or setup), on
# the fixtures' own hwtimer.ko, loaded for it alone.
fixture_odebug() {
	load $R/hwtimer.ko || return
	load $R/hwt_st_odebug.ko "bug=$1" && unload $R/hwt_st_odebug.ko
	unload $R/hwtimer.ko
}

# A callback's hwtimer_cancel_sync() and hwtimer_shutdown_sync() of its own
# timer, on the fixtures' own hwtimer.ko, loaded for it alone.
fixture_selfsync() {
	load $R/hwtimer.ko || return
	load $R/hwt_st_selfsync.ko && unload $R/hwt_st_selfsync.ko
	unload $R/hwtimer.ko
}

fixture_clean() {
	load_unload $R/hwt_st_kunit_pass.ko
	run_ut st_pass_test $R/ut/st_pass_test
}

# The leaky module, with the pid of its insmod in leak_pid.
leak_start() {
	insmod $R/hwt_st_leak.ko &
	leak_pid=$!
	if wait $leak_pid; then
		ok "insmod hwt_st_leak.ko"
		unload $R/hwt_st_leak.ko
	else
		fail "insmod hwt_st_leak.ko" "exit status $?"
	fi
	t_leak=$(uptime_s)
}

# The self-test fixtures, all broken but "clean", each in a segment of its
# own; and the kmemleak scans (above).
runner_tests() {
	local n

	segment runner-test:leak leak_start
	scan_start
	segment runner-test:kunit-fail load_unload $R/hwt_st_kunit_fail.ko
	segment runner-test:warn load_unload $R/hwt_st_warn.ko
	segment runner-test:odebug-free fixture_odebug free
	segment runner-test:odebug-start fixture_odebug start
	segment runner-test:odebug-setup fixture_odebug setup
	segment runner-test:selfsync fixture_selfsync
	segment runner-test:ut-fail run_ut st_fail_test $R/ut/st_fail_test
	segment runner-test:ut-crash run_ut st_crash_test $R/ut/st_crash_test
	segment runner-test:clean fixture_clean
	scan_wait
	scan_start "$t_leak"
	scan_wait
	# A stale copy of a pointer to it can hide the fixture's leak from a
	# scan (see hwt_st_leak.c; 7.3 once reported neither allocation at the
	# second scan): scan up to three more times while it does not show.
	n=0
	while [ $n -lt 3 ] && [ -r $kmemleak ] &&
	      [ -z "$(kmemleak_objects "$leak_pid" 1)" ]; do
		scan_start
		scan_wait
		n=$((n + 1))
	done
	kmemleak_report "$leak_pid" 0
	segment runner-test:leak kmemleak_report "$leak_pid" 1
}

# For the boot line: the host checks that an -rt kernel runs PREEMPT_RT.
# debugfs names the model where it can change at boot (PREEMPT_DYNAMIC);
# otherwise the version string has it ("SMP PREEMPT_RT", "SMP PREEMPT").
preempt_model() {
	local v f=/sys/kernel/debug/sched/preempt
	v=$(uname -v)
	if [ "${v#*PREEMPT_RT}" != "$v" ]; then
		echo rt
	elif [ -r $f ]; then
		sed -n 's/.*(\([a-z]*\)).*/\1/p' $f
	elif [ "${v#*PREEMPT}" != "$v" ]; then
		echo full
	else
		echo none
	fi
}

load_hwtimer() {
	load /hwt/kmod/hwtimer.ko
	grep hwtimer /proc/modules
	grep hwtimer /proc/misc
	ls -l /dev/hwtimer
}

# The stress steps and benchmarks, where staged: stress_run, bench_run.
for f in /hwt/stress/guest.sh /hwt/bench/guest.sh; do
	# shellcheck disable=SC1090 # staged by the host
	[ -f $f ] && . $f
done

# The page size, for the boot line: AT_PAGESZ (6) of od's own auxiliary
# vector, read as 64-bit pairs (busybox has no getconf).
page_size() {
	od -A n -v -t u8 -w16 /proc/self/auxv | awk '$1 == 6 { print $2; exit }'
}

mark "boot $(uname -r) preempt=$(preempt_model) mode=$mode cpus=$(nproc) machine=$(uname -m) pagesize=$(page_size) version=$(uname -v)"
case "$mode" in
check)
	load /hwt/kmod/hwtimer.ko
	main_tests
	unload /hwt/kmod/hwtimer.ko
	# The smokes load what they need and unload it when done.
	[ -f /hwt/bench/guest.sh ] && bench_run
	[ -f /hwt/stress/guest.sh ] && stress_run
	[ -z "$only" ] && runner_tests
	;;
runner-test)
	runner_tests
	;;
stress | bench)
	if [ -f "/hwt/$mode/guest.sh" ]; then
		"${mode}_run"
	else
		fail init "hwt.mode=$mode but /hwt/$mode/guest.sh is not staged"
	fi
	# The benchmark kernel has no kmemleak; the debug kernels must.
	if [ -w $kmemleak ]; then
		scan_start "$(uptime_s)"
		scan_wait
		scan_start
		scan_wait
		kmemleak_report
	else
		echo "kmemleak: not in this kernel"
	fi
	;;
probe) ;;
run)
	load_hwtimer
	check hwtimer-demo /hwt/tools/hwtimer-demo
	unload /hwt/kmod/hwtimer.ko
	;;
shell)
	load_hwtimer
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
