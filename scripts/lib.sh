# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What the host side of every VM target shares: scripts/runner.sh (make
# check, runner-test, run, shell), its stress runs (stress/lib.sh: make
# stress, soak...) and its bench runs (bench/lib.sh: make bench). Sourced, after `set -euo pipefail` and with
# `prog` set to the name that prefixes messages, as
# `. "$(dirname "$0")/../scripts/lib.sh"`: it sets `top` and moves there.
#
#   say MSG                 progress, on stderr, with the seconds so far
#   pass, fail MSG          count a check; fail prints "FAIL MSG"
#   add_counts LINE         add a "N passed, N failed, N skipped" line
#   summary                 print that line for this run; false if failed
#   abort MSG               a step that everything after needs failed:
#                           count it, print the summary, exit 1
#   mirror DST PATH...      copy the sources under PATHs into a build tree
#   kbuild NAME KDIR DIR    build an external-module tree with W=1
#   kbuild_tree NAME KDIR TREE DIR...
#                           hwtimer.ko and DIRs as one external-module tree
#   built_modules TREE      the modules a tree built
#   stage_modules TREE ROOT copy them into ROOT/hwt/
#   own_boot FLAVOUR USER DIR...
#                           the build and staging of a stress or bench run
#   boot_vm KDIR ROOT MODE LOG
#                           boot the VM (scripts/vm-boot.sh) and wait
#   check_boot LOG KERNEL   say which kernel the log comes from, check it
#   judge LOG SEG NEED_DONE scripts/parse-log.awk on a part of a log

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
# Called from make: its flags (-j with a jobserver, -n, -s) are not for
# the builds here, which pick their own. Variables given as `make check
# SMP=4` are in the environment too, and stay.
unset MAKEFLAGS MFLAGS MAKELEVEL

passed=0 failed=0 skipped=0
lib_t0=$SECONDS

say() { echo "${prog:-hwtimer}: $* [$((SECONDS - lib_t0)) s]" >&2; }

pass() { passed=$((passed + 1)); }

fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

add_counts() {
	local re='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'
	[[ $1 =~ $re ]] || return 1
	passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
	skipped=$((skipped + ${BASH_REMATCH[4]:-0}))
}

summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

# Nothing can be tested, but the run still ends with its summary line.
abort() {
	echo "${prog:-hwtimer}: error: $*" >&2
	failed=$((failed + 1))
	summary || true
	exit 1
}

# Copy the sources and Kbuild files under PATHs into a build tree. kbuild
# writes its objects next to the sources of an external module, and the
# same sources are built against several kernels here, while `make` in the
# checkout is the user's own: each gets its own copy. tar keeps the mtimes,
# so unchanged files are not rebuilt.
mirror() {
	local dst=$1
	shift
	mkdir -p "$dst"
	find "$@" -type f \( -name '*.[ch]' -o -name Kbuild \) -print0 |
		tar --null -cf - -T - | tar -C "$dst" -xf -
}

# Build an external-module tree with W=1 and any further make arguments
# (C=2 for sparse). A warning, from the compiler, sparse or modpost, is a
# failed check; the modules stay, to be tested, but the objects go, so
# that the next run compiles and reports them again instead of silently
# reusing them. Returns 1 only when the build itself failed.
kbuild() {
	local name=$1 kdir=$2 dir=$3 blog=$3.log
	shift 3
	if ! make -C "$kdir" M="$dir" W=1 -j"$(nproc)" "$@" modules >"$blog" 2>&1; then
		cat "$blog" >&2
		echo "${prog:-hwtimer}: $name: build failed" >&2
		return 1
	fi
	# Not make's own chatter; a sparse error does not stop the build.
	if grep -v '^make' "$blog" | grep -E 'warning:|WARNING:|error:' >&2; then
		find "$dir" -name '*.o' -delete
		fail "$name: the W=1 build has warnings (above)"
	else
		pass
	fi
}

# hwtimer.ko together with other module directories (kunit, samples,
# bench, stress) as one external-module tree, so that modpost links them
# against hwtimer's exports. kunit/ is built only where the kernel has
# KUnit. PATCHES (a list of patch files) are applied to the copy, to try a
# proposed fix; KBUILD_ARGS are more make arguments.
kbuild_tree() {
	local name=$1 kdir=$2 tree=$3 d p
	shift 3
	mirror "$tree" kmod include "$@"
	for p in ${PATCHES:-}; do
		patch -s -p1 -d "$tree" <"$p" || { echo "${prog:-hwtimer}: patch $p does not apply" >&2; return 1; }
		say "applied $p"
	done
	{
		echo "# SPDX-License-Identifier: GPL-2.0"
		echo "obj-y += kmod/"
		for d in "$@"; do
			if [ "$d" = kunit ]; then
				echo "obj-\$(CONFIG_KUNIT) += kunit/"
			else
				echo "obj-y += $d/"
			fi
		done
	} >"$tree/Kbuild"
	# shellcheck disable=SC2086 # KBUILD_ARGS is a list of make arguments
	kbuild "$name" "$kdir" "$tree" ${KBUILD_ARGS:-}
}

# The modules a tree built, relative to it, from its modules.order (6.1
# lists .ko files, later kernels .o; paths may be absolute).
built_modules() {
	sed -e 's/\.o$/.ko/' -e "s|^$1/||" "$1/modules.order"
}

# Every module of a tree goes to the same place under the guest's /hwt:
# /hwt/kmod/hwtimer.ko, /hwt/kunit/, /hwt/samples/, /hwt/bench/, /hwt/stress/.
stage_modules() {
	local tree=$1 root=$2 f
	for f in $(built_modules "$tree"); do
		mkdir -p "$root/hwt/$(dirname "$f")"
		cp "$tree/$f" "$root/hwt/$f"
	done
}

# The build and staging of a run with a boot of its own (stress_run,
# bench_run) on `kernel`: packages, the cached FLAVOUR test kernel (sets
# kdir), hwtimer.ko and DIRs in one tree $vm/kbuild (with PATCHES applied:
# then a throw-away $vm/kbuild-patched), the user-space programs of make
# target USER, all staged into a new $vm/rootfs (sets root).
own_boot() {
	# shellcheck disable=SC2154 # vm and kernel are the caller's
	local flavour=$1 user=$2 kb=$vm/kbuild ksrc
	shift 2
	scripts/deps.sh
	kdir=$(scripts/kernel.sh "$flavour" "$kernel") || abort "no $flavour $kernel kernel"
	say "$flavour $kernel kernel $kdir"
	if [ -n "${PATCHES:-}" ]; then
		kb=$vm/kbuild-patched
		rm -rf "$kb"
	fi
	kbuild_tree "modules (W=1)" "$kdir" "$kb" "$@" || abort "module build failed"
	# kselftest.h and the harness: 6.1's on every kernel, as runner.sh
	# builds the tests (static programs, kernel independent).
	ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1"
	make -s "$user" KSRC="$ksrc" || abort "$user: build failed"
	say "modules and $user built"
	root=$vm/rootfs
	rm -rf "$root"
	stage_modules "$kb" "$root"
}

# Boot the VM on ROOT (an initramfs tree, /init is scripts/guest-init.sh)
# in hwt.mode=MODE and wait for it; the serial console goes to LOG. The
# console is echoed unless QUIET=1; with PROGRESS (an extended regular
# expression) only the lines that match it are. SMP, MEM, VM_TIMEOUT,
# UT_TIMEOUT, APPEND and QEMU_EXTRA go to scripts/vm-boot.sh. A time-out
# or a QEMU failure is a failed check.
boot_vm() {
	local kdir=$1 root=$2 mode=$3 log=$4 rc=0 pid
	say "booting the VM for $mode (SMP=${SMP:-2}, MEM=${MEM:-1G}, time limit ${VM_TIMEOUT:-1200} s), log in $log"
	: >"$log"
	if [ -n "${PROGRESS:-}" ]; then
		QUIET=1 scripts/vm-boot.sh "$kdir" "$root" "$mode" "$log" &
		pid=$!
		tail --pid=$pid -n +1 -F "$log" 2>/dev/null |
			grep --line-buffered -E "$PROGRESS" >&2 || true
		wait $pid || rc=$?
	else
		scripts/vm-boot.sh "$kdir" "$root" "$mode" "$log" || rc=$?
	fi
	say "VM finished (status $rc)"
	if [ $rc = 124 ]; then
		fail "the VM hit its time limit VM_TIMEOUT=${VM_TIMEOUT:-1200} s"
	elif [ $rc != 0 ]; then
		fail "QEMU exited with status $rc"
	fi
}

# Say which kernel a log's results come from, and check that it is the one
# asked for (a scripts/kernel.sh name): its version, and PREEMPT_RT exactly
# for an -rt kernel, so that a stale or mislabelled cache entry cannot pass
# for another kernel.
check_boot() {
	local log=$1 kernel=$2 line rel model rt=0
	line=$(grep -a -m1 '@@HWT boot ' "$log" | tr -d '\r') || true
	if [ -z "$line" ]; then
		fail "the guest never printed its boot line"
		return
	fi
	line=${line#*@@HWT boot }
	rel=${line%% *}
	model=$(sed -n 's/.* preempt=\([^ ]*\).*/\1/p' <<<"$line")
	echo "booted: Linux $rel, preemption model ${model:-unknown}, ${line#*version=}"
	[ "$kernel" = "${kernel%-rt}" ] || rt=1
	if [[ $rel != "${kernel%-rt}".* ]]; then
		fail "the guest runs Linux $rel, not $kernel"
	elif [ $rt = 1 ] && [ "$model" != rt ]; then
		fail "the guest's kernel is not PREEMPT_RT (preempt=$model)"
	elif [ $rt = 0 ] && [ "$model" = rt ]; then
		fail "the guest's kernel is PREEMPT_RT, $kernel is not"
	else
		pass
	fi
}

# scripts/parse-log.awk on one segment of a log ("main": everything outside
# the "@@HWT begin/end" segments): print its FAIL lines, add its counts.
# NEED_DONE=1: the guest must have reached "@@HWT done". Returns the
# parser's status.
judge() {
	local log=$1 seg=$2 need_done=$3 res rc=0 p f s
	res=$(awk -v seg="$seg" -v need_done="$need_done" -f scripts/parse-log.awk "$log") || rc=$?
	grep -v '^RESULT ' <<<"$res" || true
	read -r _ p f s < <(grep '^RESULT ' <<<"$res")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	return $rc
}
