#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hwtimer test runner: everything behind `make check|selftest|run|shell`.
#
#   scripts/runner.sh check     on each test kernel of KERNELS: build all,
#                               run every test and the runner's self-tests in
#                               one VM boot, the stress smoke and the
#                               benchmark smoke; judge it all
#   scripts/runner.sh selftest  only the self-tests, on KERNEL: the runner
#                               must fail each deliberately broken fixture
#   scripts/runner.sh run       boot KERNEL with hwtimer.ko loaded, run the demo
#   scripts/runner.sh shell     boot KERNEL with hwtimer.ko loaded, interactive shell
#
# Kernels are named as scripts/kernel.sh names them (6.1, 6.12, 6.12-rt):
# KERNELS is the list check runs (default "6.1 6.12-rt"), KERNEL the one
# the other modes boot (default 6.1).
#
# Steps: install missing packages; once per run, build the modules against
# Debian's stock headers (check) and the static user-space programs; then,
# per kernel, get the cached debug kernel, build the modules against it,
# stage them into an initramfs, boot QEMU (scripts/vm-boot.sh, guest side
# scripts/guest-init.sh) and judge the log with scripts/parse-log.awk. Each
# kernel's part runs as its own process (runner.sh one MODE KERNEL), whose
# lines are prefixed with "[KERNEL] " and kept in build/vm-KERNEL/. check
# and selftest end with one line "N passed, N failed, N skipped" over all
# kernels and exit non-zero if anything failed.
#
# Environment: KERNELS, KERNEL, STRESS_SMOKE=0 and BENCH_SMOKE=0 (skip
# those parts of check), SMP, MEM, VM_TIMEOUT, UT_TIMEOUT, APPEND,
# QEMU_EXTRA, QUIET (see scripts/vm-boot.sh).
set -euo pipefail

mode=${1:?usage: runner.sh check|selftest|run|shell}
kernel=${KERNEL:-6.1}
if [ "$mode" = one ]; then
	# Internal: one kernel's part of check or selftest. The caller holds
	# the lock and has built what all kernels share.
	mode=${2:?} kernel=${3:?}
	one=1
fi
# Called from make: its flags (-j with a jobserver, -n, -s) are not for the
# builds below, which pick their own. Variables given as `make check SMP=4`
# are in the environment too, and stay.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build
# Per kernel, so that the logs of every kernel stay.
vm=$out/vm-$kernel
log=$vm/vm.log
start=$SECONDS
passed=0 failed=0 skipped=0

say() { echo "runner: $* [$((SECONDS - start)) s]" >&2; }

summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}

# A build step failed: nothing can be tested, but still end with the line.
abort() {
	echo "runner: $*" >&2
	failed=$((failed + 1))
	summary
	exit 1
}

# Copy a source subtree into a build directory. kbuild writes its objects
# next to the sources of an external module, and several kernels are built
# here (the test kernel, the stock headers) while `make` in the checkout is
# the user's own; each gets its own copy. tar keeps the mtimes, so
# unchanged files are not rebuilt.
mirror() {
	local dst=$1
	shift
	mkdir -p "$dst"
	find "$@" -type f \( -name '*.[ch]' -o -name Kbuild -o -name Makefile \) -print0 |
		tar --null -cf - -T - | tar -C "$dst" -xf -
}

# kbuild an external module tree with W=1 (and any extra make arguments);
# warnings count as a failed check. The objects of a tree that warned are
# deleted (the modules stay, to be tested), so the next run compiles and
# reports it again instead of silently reusing them.
kbuild() {
	local name=$1 kdir=$2 dir=$3 blog=$3.log
	shift 3
	if ! make -C "$kdir" M="$dir" W=1 -j"$(nproc)" "$@" modules >"$blog" 2>&1; then
		cat "$blog" >&2
		abort "$name: build failed"
	fi
	# Compiler, sparse and modpost warnings; not make's own chatter. (A
	# sparse error does not stop the build: catch it here.)
	if grep -v '^make' "$blog" | grep -E 'warning:|WARNING:|error:' >&2; then
		find "$dir" -name '*.o' -delete
		failed=$((failed + 1))
		echo "FAIL $name: the W=1 build has warnings (above)" >&2
	else
		passed=$((passed + 1))
	fi
}

# The modules a tree built, relative to it, from its modules.order (6.1
# lists .ko files, later kernels .o; paths may be absolute).
built_modules() {
	sed -e 's/\.o$/.ko/' -e "s|^$1/||" "$1/modules.order"
}

# Every module of the tree must also build warning-free (W=1, sparse)
# against every installed Debian kernel's headers (6.1, 6.12, 6.12-rt:
# scripts/deps.sh installs them), which have no KUnit. Once per run: these
# builds do not depend on the test kernel.
build_stock() {
	local trees tree
	trees=$(scripts/kdir.sh --all)
	[ -n "$trees" ] || abort "no /usr/src/linux-headers-* installed (scripts/deps.sh)"
	for tree in $trees; do
		if KBUILD_ARGS=C=2 scripts/kbuild-tree.sh "$tree" "$out/stock/$(basename "$tree")" \
			kunit samples bench stress; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "FAIL modules ($(basename "$tree"), W=1, sparse): above" >&2
		fi
		say "modules built against $(basename "$tree")"
	done
}

# The user-space programs are static and do not depend on the kernel they
# run on: one build serves every kernel. kselftest_harness.h comes from
# 6.1's source whatever the kernels: the one the tests are written
# against (6.12's compiles them too, with -Wclobbered noise from its own
# macros), and the binaries then stay the same on every kernel.
build_user() {
	local ksrc
	ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1 (scripts/deps.sh)"
	if [ "$mode" != selftest ]; then
		make -s user KSRC="$ksrc" || abort "user-space programs: build failed"
	fi
	if [ "$mode" = check ] || [ "$mode" = selftest ]; then
		make -s ut UT_DIR=scripts/selftest/ut HWT_OUT="$out/selftest" KSRC="$ksrc" ||
			abort "self-test fixture programs: build failed"
	fi
	say "user-space programs built"
}

build_product() {
	local kdir=$1

	# C=2: sparse checks every file each time, not only recompiled ones.
	mirror "$vm/kbuild" Kbuild kmod kunit samples include
	kbuild "modules (test kernel, W=1, sparse)" "$kdir" "$vm/kbuild" C=2
	say "modules built against the test kernel"
}

build_selftest() {
	local kdir=$1
	(cd scripts/selftest/kmod && mirror "$vm/selftest" .)
	kbuild "self-test fixture modules" "$kdir" "$vm/selftest"
	say "self-test fixtures built"
}

# Stage the guest's /hwt (see scripts/guest-init.sh for the layout). Only
# what the current sources build goes in, not stale files of deleted ones.
stage() {
	local root=$vm/rootfs f name
	rm -rf "$root"
	mkdir -p "$root/hwt/ut" "$root/hwt/tools" "$root/hwt/selftest/ut"
	if [ "$mode" != selftest ]; then
		for f in $(built_modules "$vm/kbuild"); do
			mkdir -p "$root/hwt/$(dirname "$f")"
			cp "$vm/kbuild/$f" "$root/hwt/$f"
		done
		for f in userspace-test/*_test.c; do
			[ -e "$f" ] || continue
			name=$(basename "$f" .c)
			cp "$out/ut/$name" "$out/ut/$name-32" "$root/hwt/ut/"
		done
		for f in tools/*.c; do
			[ -e "$f" ] || continue
			cp "$out/tools/$(basename "$f" .c)" "$root/hwt/tools/"
		done
	fi
	if [ "$mode" = check ] || [ "$mode" = selftest ]; then
		for f in $(built_modules "$vm/selftest"); do
			cp "$vm/selftest/$f" "$root/hwt/selftest/"
		done
		for f in scripts/selftest/ut/*_test.c; do
			cp "$out/selftest/ut/$(basename "$f" .c)" "$root/hwt/selftest/ut/"
		done
	fi
}

# Run the parser on one segment of the log and add up its counts.
# Prints its FAIL lines; returns the parser's status.
judge() {
	local seg=$1 need_done=$2 res rc=0
	local p f s
	res=$(awk -v seg="$seg" -v need_done="$need_done" -f scripts/parse-log.awk "$log") || rc=$?
	grep -v '^RESULT ' <<<"$res" || true
	read -r _ p f s < <(grep '^RESULT ' <<<"$res")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	return $rc
}

# One self-test: the parser, run on a fixture's segment only, must fail it
# and name the expected problem ("" for the clean fixture: must pass).
# Each assertion that holds counts as one passed test.
expect() {
	local label=$1 seg=$2 want=$3 file=${4:-$log} res rc=0
	res=$(awk -v seg="$seg" -v need_done="${need_done:-0}" -f scripts/parse-log.awk "$file") || rc=$?
	if [ -z "$want" ] && [ $rc = 0 ]; then
		echo "selftest $label: ok, passes ($(grep '^RESULT' <<<"$res"))"
	elif [ -n "$want" ] && [ $rc != 0 ] && grep -q "^FAIL.*$want" <<<"$res"; then
		echo "selftest $label: ok, fails on:"
		grep -m1 "^FAIL.*$want" <<<"$res" | sed 's/^/    /'
	else
		echo "FAIL selftest $label: expected ${want:-a pass}, the parser said (status $rc):"
		sed 's/^/    /' <<<"$res"
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + 1))
}

selftest_asserts() {
	local cut=$vm/truncated.log
	expect "failing KUnit case" selftest:kunit-fail "KUnit hwt_selftest_fail: not ok"
	expect "WARN_ON(1) in a module" selftest:warn "WARNING:"
	expect "failing user-space test" selftest:ut-fail "st_fail_test: not ok"
	expect "crashing user-space test" selftest:ut-crash "st_crash_test: exited with status 134"
	expect "leaking module" selftest:leak "unreferenced object"
	expect "clean KUnit suite and test" selftest:clean ""
	# A guest that dies half way: the same log, cut inside the clean
	# fixture, must fail both that segment and the whole run.
	sed '/@@HWT end selftest:clean/,$d' "$log" >"$cut"
	expect "guest stopped inside a test" selftest:clean "did not finish" "$cut"
	need_done=1 expect "guest never finished" main "the guest never finished" "$cut"
}

# The stress smoke (stress/stress.sh smoke, docs/security.md) boots its own
# VM with its own /init; its counts join this run's. STRESS_SMOKE=0 skips it.
stress_smoke() {
	local res last
	[ -x stress/stress.sh ] && [ "${STRESS_SMOKE:-1}" != 0 ] || return 0
	say "stress smoke (stress/stress.sh smoke, log in build/stress/smoke-$kernel/)"
	res=$vm/stress-smoke.txt
	KERNEL=$kernel stress/stress.sh smoke >"$res" 2>&1 || true
	# Its report and its failures; its own summary line is counted below.
	sed -n '/^==== stress/,$p' "$res" | sed '$d'
	grep -E '^FAIL|^stress: error' "$res" || true
	last=$(tail -n 1 "$res")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
	else
		echo "FAIL the stress smoke did not finish (see $res)"
		failed=$((failed + 1))
	fi
}

# The benchmark smoke (bench/bench.sh smoke): the benchmark code run with
# tiny N on this debug kernel, in its own boot, so that it too runs under
# lockdep, KASAN and kmemleak. It fails on errors, never on targets: one
# check. BENCH_SMOKE=0 skips it.
bench_smoke() {
	local res
	[ -x bench/bench.sh ] && [ "${BENCH_SMOKE:-1}" != 0 ] || return 0
	say "bench smoke (bench/bench.sh smoke, log in build/bench/smoke-$kernel/)"
	res=$vm/bench-smoke.txt
	if KERNEL=$kernel bench/bench.sh smoke >"$res" 2>&1; then
		echo "bench smoke: ok ($(tail -n 1 "$res"), not judged in a smoke run)"
		passed=$((passed + 1))
	else
		grep -E '^FAIL|^bench: error|^bench: FAILED' "$res" || tail -n 20 "$res"
		echo "FAIL the bench smoke (see $res)"
		failed=$((failed + 1))
	fi
}

boot() {
	local rc=0
	say "booting the VM (SMP=${SMP:-2}, time limit ${VM_TIMEOUT:-1200} s), log in $log"
	scripts/vm-boot.sh "$kdir" "$vm/rootfs" "$mode" "$log" || rc=$?
	say "VM finished (status $rc)"
	if [ $rc = 124 ]; then
		echo "FAIL the VM hit the time limit VM_TIMEOUT=${VM_TIMEOUT:-1200} s" >&2
		failed=$((failed + 1))
	elif [ $rc != 0 ]; then
		echo "FAIL QEMU exited with status $rc" >&2
		failed=$((failed + 1))
	fi
}

# Say which kernel the results come from, and check that it is the one
# asked for: its version, and PREEMPT_RT exactly for an -rt kernel (a
# stale or mislabelled cache entry must not pass for the other kernel).
check_boot() {
	local line rel model want_model=other
	line=$(grep -a -m1 '@@HWT boot ' "$log" | tr -d '\r') || true
	if [ -z "$line" ]; then
		echo "FAIL the guest never printed its boot line"
		failed=$((failed + 1))
		return
	fi
	line=${line#*@@HWT boot }
	rel=${line%% *}
	model=$(sed -n 's/.* preempt=\([^ ]*\).*/\1/p' <<<"$line")
	echo "booted: Linux $rel, preemption model ${model:-unknown}, ${line#*version=}"
	[ "$kernel" = "${kernel%-rt}" ] || want_model=rt
	if [[ $rel != "${kernel%-rt}".* ]]; then
		echo "FAIL the guest runs Linux $rel, not $kernel"
		failed=$((failed + 1))
	elif [ "$want_model" = rt ] && [ "$model" != rt ]; then
		echo "FAIL the guest's kernel is not PREEMPT_RT (preempt=$model)"
		failed=$((failed + 1))
	elif [ "$want_model" != rt ] && [ "$model" = rt ]; then
		echo "FAIL the guest's kernel is PREEMPT_RT, $kernel is not"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
}

# One kernel's part of check, selftest, run or shell.
on_kernel() {
	kdir=$(scripts/kernel.sh debug "$kernel") || abort "no $kernel debug kernel (scripts/kernel.sh debug $kernel)"
	say "test kernel $kernel: $kdir"
	mkdir -p "$vm"

	case "$mode" in
	check)
		build_product "$kdir"
		build_selftest "$kdir"
		stage
		boot
		echo "==== results ($kernel) ===="
		check_boot
		judge main 1 || true
		selftest_asserts
		echo "full log: $log"
		stress_smoke
		bench_smoke
		summary
		;;
	selftest)
		build_selftest "$kdir"
		stage
		boot
		echo "==== results ($kernel) ===="
		check_boot
		judge main 1 || true
		selftest_asserts
		summary
		;;
	run)
		build_product "$kdir"
		stage
		# The demo's output, not the kernel's; the log has everything.
		CONSOLE=${CONSOLE:-user} boot
		judge main 1 >&2 || { echo "runner: the run had problems (above), log in $log" >&2; exit 1; }
		;;
	shell)
		# An interactive session can last hours: boot from a copy of the
		# staged files and let other runs have build/ meanwhile.
		build_product "$kdir"
		stage
		rm -rf "$vm/shell-rootfs"
		cp -a "$vm/rootfs" "$vm/shell-rootfs"
		exec 8>&-
		exec scripts/vm-boot.sh "$kdir" "$vm/shell-rootfs" shell
		;;
	esac
}

# Run one kernel's part as its own process, its lines prefixed with the
# kernel's name and kept in build/vm-KERNEL/result.txt, and add its counts
# (its last line) to the run's. A process of its own also keeps `set -e` in
# force inside it, which a subshell under `||` would lose.
run_kernel() {
	local k=$1 res=$out/vm-$1/result.txt t0=$SECONDS last
	mkdir -p "$out/vm-$k"
	"$top/scripts/runner.sh" one "$mode" "$k" 2>&1 | tee "$res" | sed -u "s/^/[$k] /" || true
	last=$(tail -n 1 "$res")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
		skipped=$((skipped + BASH_REMATCH[3]))
	else
		last="did not finish (see $res)"
		failed=$((failed + 1))
	fi
	totals+=("[$k] $last ($((SECONDS - t0)) s)")
}

case "$mode" in
check | selftest | run | shell) ;;
*)
	echo "usage: runner.sh check|selftest|run|shell" >&2
	exit 2
	;;
esac

if [ -n "${one:-}" ]; then
	on_kernel
	exit 0
fi

scripts/deps.sh

# Two runs in one checkout would build into and boot from the same build/:
# the second waits for the first.
mkdir -p "$out"
exec 8>"$out/.runner.lock"
if ! flock -n 8; then
	say "waiting for another run in this checkout to finish"
	flock 8
fi

case "$mode" in
check | selftest)
	kernels=${KERNELS:-6.1 6.12-rt}
	[ "$mode" = check ] || kernels=$kernel
	say "test kernels: $kernels"
	[ "$mode" = check ] && build_stock
	build_user
	totals=()
	for k in $kernels; do
		run_kernel "$k"
	done
	echo "==== summary ===="
	printf '%s\n' "${totals[@]}"
	summary
	;;
run | shell)
	build_user
	on_kernel
	;;
esac
