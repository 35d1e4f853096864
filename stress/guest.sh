# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
#
# The stress steps (make stress, soak, stress-smoke, check-kcsan and the
# smoke in make check): sourced by scripts/guest-init.sh, whose helpers it
# uses, and run by stress_run. It also prints "@@STRESS <key> <value>"
# lines, which the host sums up (stress/lib.sh), and the segments
# stress:leak-*, which must each hold exactly the expected warning.
#
# Steps (STEPS): kacct, drace, uacct, hotplug, faults, fuzz, security,
# lifecycle, leakwarn, leakpending, leakinit, kunit, and wake (a
# measurement, not in the default list); see step_<name> below.
#
# Soak (make soak): the *_MIN settings make kacct, uacct, fuzz and hotplug
# repeat their runs until the log's totals reach them (ledger operations,
# fuzzer calls, hotplug cycles; the hotplug step's ledgers count too), at
# most SOAK_MAX_RUNS runs each. 0 (the default) runs once.
#
# Guest layout: /hwt/kmod/hwtimer.ko, /hwt/stress/*.ko, /hwt/stress/bin/*,
# /hwt/kunit/*.ko (check-kcsan), /hwt/stress/stress.conf (shell variables:
# STEPS, and the durations, see stress/lib.sh).

# Defaults: the smoke run. stress.conf overrides them.
STEPS="kacct drace uacct hotplug faults fuzz security lifecycle leakwarn leakpending leakinit"
KACCT="duration_ms=3000"
DRACE_N=250
UACCT="-t 3"
UACCT32="-t 2"
HOTPLUG_S=4
FUZZ_S=5
LIFECYCLE_N=5
FAULT_ARGS=""
SEC_ARGS=""
# step wake: runs of stress/hwtwake.c, each N:EPOLLS:DUPS[:drain]
WAKE_RUNS="4096:8:128 4096:8:128:drain 10000:8:128"
KACCT_MIN=0
UACCT_MIN=0
FUZZ_MIN=0
HOTPLUG_MIN=0
SOAK_MAX_RUNS=200
# shellcheck disable=SC1091 # written by the host (stress/lib.sh)
[ -f /hwt/stress/stress.conf ] && . /hwt/stress/stress.conf

B=/hwt/stress/bin
S=/hwt/stress/hwtimer_stress.ko
C=/hwt/stress/hwtimer_stress_client.ko
mods_up() { load /hwt/kmod/hwtimer.ko; }
mods_down() { unload hwtimer; }
# acct's settings without spaces: "a=1 b=2" -> "a=1,b=2".
commas() { echo "$*" | tr ' ' ,; }

# One load of the stress module, hwtimer_stress.ko run=RUN [PARAM=VALUE...]:
# its KUnit suite runs the case RUN while insmod waits (the others are
# skipped as "not selected", which the host does not count). Then the
# module goes and the run's summary lines ("# acct: ledger armed=...") are
# printed from dmesg for stats_from. Non-zero if a load or unload failed.
kstress() {
	local run=$1 rc=0
	shift
	dmesg -c >/dev/null
	load $S "run=$run" "$@" || rc=1
	unload $S || rc=1
	dmesg | sed -n 's/^.*    # [a-z]*: \(ledger\|faults\) /\1 /p'
	return $rc
}

# The summary lines of runs' outputs, as @@STRESS lines, kept for soak_total.
stats_from() {
	sed -n 's/^\(ledger\|faults\|fuzz\|uledger\|hotplug\) /@@STRESS \1 /p' "$@" |
		tee -a /tmp/stress.totals
}

# The sum of KEY= over the summary lines of KIND so far.
soak_total() {
	awk -v kind="$1" -v key="$2" '
		$2 == kind { for (i = 3; i <= NF; i++) if (index($i, key "=") == 1) s += substr($i, length(key) + 2) }
		END { printf "%d\n", s }
	' /tmp/stress.totals 2>/dev/null || echo 0
}

# Runs "$@" (a step's run) until the total KEY of KIND reaches MIN, at
# least once, at most SOAK_MAX_RUNS times.
soak_repeat() {
	local kind=$1 key=$2 min=$3 runs=0 rc=0
	shift 3
	while :; do
		"$@" || rc=1
		runs=$((runs + 1))
		[ "$(soak_total "$kind" "$key")" -ge "$min" ] && break
		if [ $runs -ge "$SOAK_MAX_RUNS" ]; then
			fail "soak: $kind $key" "$(soak_total "$kind" "$key") < $min after $runs runs"
			break
		fi
	done
	[ "$min" -gt 0 ] && echo "soak: $kind $key=$(soak_total "$kind" "$key") in $runs runs (wanted $min)"
	return $rc
}

# Run "$@" into /tmp/NAME.out, then print it and its summary lines.
captured() {
	local out=/tmp/$1.out rc
	shift
	"$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	stats_from "$out"
	return $rc
}
# A run of the stress module (kstress RUN ...), of a TAP program (run_ut).
ktap_run() { captured "kstress-$1" kstress "$@"; }
utap_run() { captured "$1" run_ut "$@"; }
# The -m32 twin of a program, where the host built one (x86_64); elsewhere
# a skip that says why.
utap_run32() {
	if [ -x "$2" ]; then
		utap_run "$@"
	else
		skip_ut "$1" "no -m32 build for $(uname -m): the compat ioctl path is x86_64's here"
	fi
}

step_kacct() {
	# shellcheck disable=SC2086 # KACCT is a list of settings
	soak_repeat ledger ops "$KACCT_MIN" ktap_run acct "acct=$(commas $KACCT)"
}

# Destroy a wheel every few ms while every thread moves its far-future timers
# between CPUs with modify: the race between a modify that migrates a pending
# timer and destroy.
step_drace() {
	ktap_run drace "drace_cycles=$DRACE_N"
}

# The user-space ledger, 64-bit (repeated in a soak), then one -m32 run.
step_uacct() {
	soak_repeat uledger ops "$UACCT_MIN" utap_run hwtstress-user $B/hwtstress-user $UACCT
	utap_run32 hwtstress-user-32 $B/hwtstress-user-32 $UACCT32
}

# Toggle CPUs 1.. offline and online while both stress loads run.
step_hotplug() {
	soak_repeat hotplug cycles "$HOTPLUG_MIN" hotplug_run
}

# shellcheck disable=SC2086 # KHOTPLUG and UHOTPLUG are lists of settings
hotplug_run() {
	local cpus cycles=0 rounds=0 end c kpid upid
	cpus=$(ls -d /sys/devices/system/cpu/cpu[1-9]* 2>/dev/null)
	if [ -z "$cpus" ]; then
		echo "hotplug: only one CPU, skipped"
		return
	fi
	kstress acct "acct=$(commas duration_ms=$((HOTPLUG_S * 1000 + 1000)) $KHOTPLUG)" >/tmp/kh.out 2>&1 &
	kpid=$!
	run_ut hwtstress-user-hotplug $B/hwtstress-user -t $((HOTPLUG_S + 1)) $UHOTPLUG >/tmp/uh.out 2>&1 &
	upid=$!
	end=$(($(uptime_s) + HOTPLUG_S))
	# HOTPLUG_S seconds, and one round at least, however slow the host.
	while [ "$(uptime_s)" -lt $end ] || [ $rounds = 0 ]; do
		rounds=$((rounds + 1))
		for c in $cpus; do
			[ -w "$c/online" ] || continue
			if echo 0 >"$c/online" && sleep 0.1 && echo 1 >"$c/online"; then
				cycles=$((cycles + 1))
			else
				fail "hotplug $(basename "$c")" "offline/online failed"
				echo 1 >"$c/online"
			fi
			sleep 0.2
		done
	done
	wait $kpid
	wait $upid
	cat /tmp/kh.out /tmp/uh.out
	stats_from /tmp/kh.out /tmp/uh.out
	for c in $cpus; do
		[ "$(cat "$c/online" 2>/dev/null || echo 1)" = 1 ] || fail "hotplug $(basename "$c")" "left offline"
	done
	if [ $cycles -gt 0 ]; then ok "hotplug: $cycles offline/online cycles"; else fail hotplug "no cycle"; fi
	echo "hotplug cycles=$cycles" | stats_from
}

step_faults() {
	ktap_run faults
	utap_run hwtfault $B/hwtfault $FAULT_ARGS
	utap_run32 hwtfault-32 $B/hwtfault-32 -q $FAULT_ARGS
}

P=/sys/module/hwtimer/parameters
set_caps() {
	echo "$1" >$P/file_cap
	echo "$2" >$P/global_cap
	echo "$3" >$P/user_cap
}

# Low caps: the fuzzer arms thousands of timeouts per call, and the caps'
# error paths get fuzzed too. Both fuzzers run as root, so the per-user cap
# is the one they reach (hwtsec covers global_cap). Both ABIs at once, each
# for FUZZ_S seconds, then the sanity checks.
step_fuzz() {
	local caps t
	caps=$(cat $P/file_cap $P/global_cap $P/user_cap)
	set_caps 4096 16384 12288
	soak_repeat fuzz calls "$FUZZ_MIN" fuzz_run
	# shellcheck disable=SC2086 # three numbers
	set_caps $caps
	utap_run hwtfuzz-sanity $B/hwtfuzz -S
	for t in "$B"/dev_*_test; do
		[ -x "$t" ] && run_ut "$(basename "$t")" "$t"
	done
}

fuzz_run() {
	local p64 rc=0
	run_ut hwtfuzz $B/hwtfuzz -t "$FUZZ_S" >/tmp/fuzz64.out 2>&1 &
	p64=$!
	utap_run32 hwtfuzz-32 $B/hwtfuzz-32 -t "$FUZZ_S" || rc=1
	wait $p64 || rc=1
	cat /tmp/fuzz64.out
	stats_from /tmp/fuzz64.out
	return $rc
}

step_security() {
	# shellcheck disable=SC2086 # SEC_ARGS is a list of options
	utap_run hwtsec $B/hwtsec $SEC_ARGS
}

# The expiry softirq with many epoll watches of one file (docs/security.md,
# CPU): prints the longest HRTIMER softirq of each run. A measurement: it
# fails only if a run does not complete.
step_wake() {
	local run
	for run in $WAKE_RUNS; do
		# shellcheck disable=SC2046 # split N:EPOLLS:DUPS[:drain]
		check "hwtwake $run" $B/hwtwake $(echo "$run" | tr : ' ')
	done
}

# No hwtimer hrtimer is armed (/proc/timer_list names them while loaded).
no_hrtimer() {
	local n
	n=$(grep -c hwt_hrtimer_fn /proc/timer_list)
	if [ "$n" = 0 ]; then ok "$1"; else fail "$1" "$n hrtimers armed"; fi
}

# As no_hrtimer, once those armed before have expired: wait until none is
# armed, up to 30 s. An hrtimer left for a tick up to 5 s away expires
# there once and is not armed again, but only when its CPU runs its
# softirq, which a busy host can hold back: sleeping 6 s and looking was
# not enough.
no_hrtimer_soon() {
	local i=0
	while grep -q hwt_hrtimer_fn /proc/timer_list && [ $i -lt 300 ]; do
		usleep 100000
		i=$((i + 1))
	done
	no_hrtimer "$1"
}

# The expiry times of the armed hrtimers of hwtimer's bases, one per line
# (/proc/timer_list: the line after the callback's says "# expires at
# SOFT-HARD nsecs").
hwt_hrtimers() {
	awk '/hwt_hrtimer_fn/ { getline; print $4 }' /proc/timer_list | sort
}

# No hrtimer armed since BEFORE (a list from hwt_hrtimers): a base whose
# timers went keeps its hrtimer for the tick it was armed for (it expires
# there once, finds nothing and is not armed again: KUnit
# rt_idle_wheel_never_wakes), but nothing may arm one anew.
no_new_hrtimer() {
	local new
	new=$(hwt_hrtimers | grep -vxF -e "${2:-none}" || true)
	if [ -z "$new" ]; then ok "$1"; else fail "$1" "armed since: $(echo $new)"; fi
}

# Wait until process PID has a hwtimer file open with N timeouts pending
# (its fdinfo says "pending: N"), at most 20 s; non-zero if it never did.
holds_pending() {
	local i=0
	while ! grep -qs "^pending:[[:space:]]*$2\$" /proc/"$1"/fdinfo/*; do
		[ $i -ge 200 ] && return 1
		usleep 100000
		i=$((i + 1))
	done
}

# insmod/rmmod hwtimer.ko LIFECYCLE_N times with a client's timers pending
# in between; rmmod refused while an fd is open or a client is loaded.
step_lifecycle() {
	local i bad=0 fd_pid armed
	mods_down
	for i in $(seq 1 "$LIFECYCLE_N"); do
		insmod /hwt/kmod/hwtimer.ko || { bad=$((bad + 1)); continue; }
		insmod $C ntimers=32 || bad=$((bad + 1))
		[ $((i % 10)) = 1 ] && usleep 50000
		if rmmod hwtimer 2>/dev/null; then
			fail "lifecycle $i" "hwtimer unloaded under its client"
			bad=$((bad + 1))
		fi
		rmmod hwtimer_stress_client || bad=$((bad + 1))
		rmmod hwtimer || bad=$((bad + 1))
	done
	if [ $bad = 0 ]; then ok "lifecycle: $LIFECYCLE_N insmod/rmmod cycles with a client's timers pending"; else fail lifecycle "$bad failed steps"; fi
	echo "@@STRESS lifecycle cycles=$LIFECYCLE_N"

	insmod /hwt/kmod/hwtimer.ko
	# An open fd pins the module: rmmod fails once the holder has its file
	# open with its 4 timeouts armed; killing the holder (it would hold it
	# for a minute) closes it.
	$B/hwtstress-user -H 60 &
	fd_pid=$!
	holds_pending $fd_pid 4 ||
		fail "lifecycle: the fd holder" "no file of it with 4 timeouts pending after 20 s"
	armed=$(hwt_hrtimers)
	if rmmod hwtimer 2>/dev/null; then
		fail "lifecycle: rmmod with an fd open" "it was unloaded"
		insmod /hwt/kmod/hwtimer.ko
	else
		ok "lifecycle: rmmod refused while an fd is open"
	fi
	kill $fd_pid
	wait $fd_pid
	no_new_hrtimer "lifecycle: closing the fd arms no hrtimer (tickless)" "$armed"
	check "lifecycle: rmmod once the fd is closed" rmmod hwtimer
	mods_up
}

# The leak steps: a fresh hwtimer.ko, a client that misbehaves (LEAK_BODY),
# hwtimer's unload, in the segment stress:NAME (its warnings are expected,
# the rest of the log must stay clean). Anything left armed would fire into
# unloaded code, and hwtimer must load again afterwards.
leak_segment() {
	mods_down
	segment "stress:$1" leak_body "$2"
	mods_up
}
leak_body() {
	insmod /hwt/kmod/hwtimer.ko
	"$1"
	rmmod hwtimer
	sleep 1
}

# leak=1: a client cancels its timers but forgets its wheel: one warning
# when the client goes, and no hrtimer armed for the forgotten wheel.
# leak=2: it leaves its wheel with timers pending in its module data:
# hwtimer destroys a module's wheels when the module goes (the module
# notifier), before that memory is freed: one warning, nothing armed.
leak_client() {
	insmod $C "leak=$1" ntimers=16
	usleep 20000
	rmmod hwtimer_stress_client
}
# The client's other half of its timers was on the default wheel, up to 5 s
# away: that base keeps its hrtimer until the tick it was armed for, which
# then finds nothing and is not armed again (so the checks wait for it).
leak_warn() {
	leak_client 1
	no_hrtimer_soon "leak-warn: the forgotten wheel has no hrtimer armed"
}
leak_pending() {
	leak_client 2
	no_hrtimer_soon "leak-pending: nothing armed once the client is gone"
}

# leak=3: a client's init creates a wheel, arms timers on it and fails. The
# failed load goes through the same notifier: one warning per load, and
# busybox insmod tries finit_module, then init_module: two failed loads.
leak_init() {
	if insmod $C leak=3 ntimers=16; then
		fail "leak-init: the client's failing init loaded"
		rmmod hwtimer_stress_client
	fi
	sleep 1
	no_hrtimer "leak-init: nothing armed after the failed load"
}

step_leakwarn() { leak_segment leak-warn leak_warn; }
step_leakpending() { leak_segment leak-pending leak_pending; }
step_leakinit() { leak_segment leak-init leak_init; }
step_kunit() { load_all /hwt/kunit; }

# Every step of STEPS, with hwtimer.ko loaded (the stress module is loaded
# by each run of it). The /init then looks for leaks.
stress_run() {
	local s t0 d
	echo "@@STRESS steps $STEPS"
	t0=$(now)
	memcg_mount
	for d in /sys/kernel/debug/failslab /sys/kernel/debug/fail_usercopy; do
		[ -d $d ] || continue
		echo 0 >$d/verbose
		echo 0 >$d/probability
	done
	[ -w /sys/kernel/debug/failslab/ignore-gfp-wait ] &&
		echo N >/sys/kernel/debug/failslab/ignore-gfp-wait
	# Stress programs run as nobody too and need their files readable.
	chmod 755 /hwt /hwt/stress $B 2>/dev/null
	mods_up
	for s in $STEPS; do
		echo "@@STRESS step $s begin t=$(now)"
		"step_$s"
		echo "@@STRESS step $s end t=$(now)"
	done
	mods_down
	echo "@@STRESS vm_seconds $(now) (steps from $t0)"
}
