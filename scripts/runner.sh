#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hwtimer test runner: everything behind `make check`, `runner-test`,
# `run`, `shell`, and the stress and bench targets.
#
#   scripts/runner.sh check        on each test kernel of KERNELS, in one VM
#                                  boot: every test, the runner's self-tests,
#                                  the stress smoke and the benchmark smoke;
#                                  judge it all
#   scripts/runner.sh runner-test  only the self-tests, on KERNEL: the runner
#                                  must fail each deliberately broken fixture
#   scripts/runner.sh run          boot KERNEL with hwtimer.ko loaded, run the demo
#   scripts/runner.sh shell        boot KERNEL with hwtimer.ko loaded, interactive shell
#   scripts/runner.sh stress MODE  a stress run on KERNEL, in a boot of its
#                                  own (stress_run in stress/lib.sh)
#   scripts/runner.sh bench MODE   a benchmark run on KERNEL, in a boot of
#                                  its own (bench_run in bench/lib.sh)
#
# Kernels are named as scripts/kernel.sh names them (6.1, 6.12, 6.12-rt):
# KERNELS is the list check runs (default "6.1 6.12-rt"), KERNEL the one
# the other modes boot (default 6.1).
#
# Steps of check: install missing packages; once per run, build the modules
# against Debian's stock headers and the static user-space programs; then,
# per kernel, get the cached debug kernel, build the modules against it
# (hwtimer, KUnit, samples, the stress and benchmark modules and the
# self-test fixtures), stage them into an initramfs, boot QEMU
# (scripts/vm-boot.sh; the guest's /init is scripts/guest-init.sh, which
# sources stress/guest.sh and bench/guest.sh) and judge the log: parse-log
# for everything, the fixtures one by one, the stress steps' expected
# warnings (stress/lib.sh) and the benchmarks' report (bench/lib.sh).
# Each kernel's part runs as its own process (runner.sh one MODE KERNEL),
# whose lines are prefixed with "[KERNEL] " and kept in build/vm-KERNEL/.
# check and runner-test end with one line "N passed, N failed, N skipped" over
# all kernels and exit non-zero if anything failed.
#
# Environment: KERNELS, KERNEL, STRESS_SMOKE=0 and BENCH_SMOKE=0 (leave
# those parts out of check), SMP, MEM, VM_TIMEOUT (default 1800 for check,
# 1200 otherwise), UT_TIMEOUT, APPEND, QEMU_EXTRA, QUIET (see
# scripts/vm-boot.sh); STRESS_STEPS, STRESS_CONF, STRESS_PATCHES
# (stress/lib.sh), BENCH_ONLY, BENCH_KPARAMS, BENCH_UPARAMS, BENCH_KERNEL
# (bench/lib.sh).
set -euo pipefail

mode=${1:?usage: runner.sh check|runner-test|run|shell|stress MODE|bench MODE}
kernel=${KERNEL:-6.1}
if [ "$mode" = one ]; then
	# Internal: one kernel's part of check or runner-test. The caller holds
	# the lock and has built what all kernels share.
	mode=${2:?} kernel=${3:?}
	one=1
fi
prog=runner
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
. stress/lib.sh
. bench/lib.sh

out=$top/build
# Per kernel, so that the logs of every kernel stay.
vm=$out/vm-$kernel
log=$vm/vm.log
stress=0 bench=0
if [ "$mode" = check ]; then
	[ "${STRESS_SMOKE:-1}" = 0 ] || stress=1
	[ "${BENCH_SMOKE:-1}" = 0 ] || bench=1
fi

# Every module of the tree must also build warning-free (W=1, sparse)
# against every installed Debian kernel's headers (6.1, 6.12, 6.12-rt:
# scripts/deps.sh installs them), which have no KUnit. Once per run: these
# builds do not depend on the test kernel.
build_stock() {
	local trees tree
	trees=$(scripts/kdir.sh --all)
	[ -n "$trees" ] || abort "no /usr/src/linux-headers-* installed (scripts/deps.sh)"
	for tree in $trees; do
		KBUILD_ARGS=C=2 kbuild_tree "modules ($(basename "$tree"), W=1, sparse)" \
			"$tree" "$out/stock/$(basename "$tree")" kunit samples bench stress ||
			fail "modules ($(basename "$tree"), W=1, sparse): build failed (above)"
		say "modules built against $(basename "$tree")"
	done
}

# The user-space programs are static and do not depend on the kernel they
# run on: one build serves every kernel. kselftest_harness.h comes from
# 6.1's source whatever the kernels: the one the tests are written
# against (6.12's compiles them too, with -Wclobbered noise from its own
# macros), and the binaries then stay the same on every kernel.
build_user() {
	local ksrc targets=()
	ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1 (scripts/deps.sh)"
	[ "$mode" = runner-test ] || targets+=(user)
	[ $stress = 1 ] && targets+=(stress-user)
	[ $bench = 1 ] && targets+=(bench-user)
	if [ ${#targets[@]} != 0 ]; then
		make -s "${targets[@]}" KSRC="$ksrc" || abort "user-space programs: build failed"
	fi
	if [ "$mode" = check ] || [ "$mode" = runner-test ]; then
		make -s ut UT_DIR=scripts/runner-test/ut HWT_OUT="$out/runner-test" KSRC="$ksrc" ||
			abort "self-test fixture programs: build failed"
	fi
	say "user-space programs built"
}

# The modules against the test kernel, in one tree so that the test
# modules link against hwtimer's exports. C=2: sparse checks every file
# each time, not only recompiled ones.
build_product() {
	local kdir=$1 dirs=(kunit samples)
	[ $stress = 1 ] && dirs+=(stress)
	[ $bench = 1 ] && dirs+=(bench)
	KBUILD_ARGS=C=2 kbuild_tree "modules (test kernel, W=1, sparse)" "$kdir" "$vm/kbuild" "${dirs[@]}" ||
		abort "modules (test kernel): build failed"
	say "modules built against the test kernel"
}

# The fixture modules, in one tree with a hwtimer.ko of their own (W=1, no
# sparse), which the debugobjects fixture links against and loads: so the
# fixtures need nothing of the product build, and runner-test runs without it.
build_fixtures() {
	local kdir=$1
	kbuild_tree "self-test fixture modules" "$kdir" "$vm/runner-test" scripts/runner-test/kmod ||
		abort "self-test fixture modules: build failed"
	say "self-test fixtures built"
}

# Stage the guest's /hwt (see scripts/guest-init.sh for the layout). Only
# what the current sources build goes in, not stale files of deleted ones.
stage() {
	local root=$vm/rootfs f name
	rm -rf "$root"
	mkdir -p "$root/hwt/ut" "$root/hwt/tools" "$root/hwt/runner-test/ut"
	if [ "$mode" != runner-test ]; then
		stage_modules "$vm/kbuild" "$root"
		for f in userspace-test/*_test.c; do
			[ -e "$f" ] || continue
			name=$(basename "$f" .c)
			cp "$out/ut/$name" "$out/ut/$name-32" "$root/hwt/ut/"
		done
		# The programs' time limits (run_ut in scripts/guest-init.sh).
		cp userspace-test/settings "$root/hwt/ut/"
		for f in tools/*.c; do
			[ -e "$f" ] || continue
			cp "$out/tools/$(basename "$f" .c)" "$root/hwt/tools/"
		done
	fi
	if [ "$mode" = check ] || [ "$mode" = runner-test ]; then
		for f in $(built_modules "$vm/runner-test"); do
			cp "$vm/runner-test/$f" "$root/hwt/runner-test/"
		done
		for f in scripts/runner-test/ut/*_test.c; do
			cp "$out/runner-test/ut/$(basename "$f" .c)" "$root/hwt/runner-test/ut/"
		done
	fi
	[ $stress = 1 ] && stress_stage "$root" smoke
	[ $bench = 1 ] && bench_stage "$root" smoke
	return 0
}

# Whether a parser run (status RC, output RES) judged as WANT says: a
# failure naming WANT, or a pass for an empty WANT.
verdict() {
	if [ -z "$3" ]; then
		[ "$1" = 0 ]
	else
		[ "$1" != 0 ] && grep -q "^FAIL.*$3" <<<"$2"
	fi
}

# One self-test: the parser, run on a fixture's segment only, must fail it
# and name the expected problem ("" for the clean fixture: must pass).
# Each assertion that holds counts as one passed test.
expect() {
	local label=$1 seg=$2 want=$3 file=${4:-$log} res rc=0
	res=$(awk -v seg="$seg" -v need_done="${need_done:-0}" -f scripts/parse-log.awk "$file") || rc=$?
	if ! verdict $rc "$res" "$want"; then
		fail "runner-test $label: expected ${want:-a pass}, the parser said (status $rc):"
		sed 's/^/    /' <<<"$res"
		return
	fi
	echo "runner-test $label: ok, $(grep -m1 "^FAIL.*$want" <<<"$res" || grep '^RESULT' <<<"$res")"
	pass
}

# A debugobjects fixture (hwt_st_odebug.ko bug=BUG): it must fail on its
# report, and on nothing but debugobjects' report (the "ODEBUG:" line and
# the WARNING that carries it): hwtimer's fixup made the bug harmless, and
# the module's own checks of that, which fail its load, passed.
expect_odebug() {
	local label=$1 seg=runner-test:odebug-$2 want=$3 res other
	expect "$label" "$seg" "$want"
	res=$(awk -v seg="$seg" -f scripts/parse-log.awk "$log") || true
	other=$(grep '^FAIL' <<<"$res" | grep -v -E 'ODEBUG: |WARNING: .* at lib/debugobjects\.c:') || true
	if [ -n "$other" ]; then
		fail "runner-test $label: more than a debugobjects report:"
		sed 's/^/    /' <<<"$other"
	fi
}

fixture_asserts() {
	local cut=$vm/truncated.log
	expect "failing KUnit case" runner-test:kunit-fail "KUnit hwt_fixture_fail: not ok"
	expect "WARN_ON(1) in a module" runner-test:warn "WARNING:"
	expect "failing user-space test" runner-test:ut-fail "st_fail_test: not ok"
	expect "crashing user-space test" runner-test:ut-crash "st_crash_test: exited with status 134"
	expect "leaking module" runner-test:leak "unreferenced object"
	expect_odebug "freeing a pending hwtimer" free "ODEBUG: free active"
	expect_odebug "starting a hwtimer never set up" start "ODEBUG: assert_init not available"
	expect_odebug "setting up a pending hwtimer" setup "ODEBUG: init active"
	expect "clean KUnit suite and test" runner-test:clean ""
	# A guest that dies half way: the same log, cut inside the clean
	# fixture, must fail both that segment and the whole run.
	sed '/@@HWT end runner-test:clean/,$d' "$log" >"$cut"
	expect "guest stopped inside a test" runner-test:clean "did not finish" "$cut"
	need_done=1 expect "guest never finished" main "the guest never finished" "$cut"
}

# The parser on the logs of scripts/parse-log-tests/, in the style of
# kunit_tool_test.py's test_data/: real segments of test-VM logs (a failing
# KUnit case, a WARN, a failing and a crashing user-space test, a leak, a
# debugobjects report, a clean suite, a stress load whose unselected
# cases are skipped, the stress module's checks passing and one failing,
# a suite whose init failed, a guest that never finished) and written ones (lockdep, KASAN, debugobjects running out of
# memory, a short TAP plan). Each NAME.log must give the RESULT line of
# NAME.want exactly and, if NAME.want has a second line, fail on it. On the
# host, once per run: no VM needed.
parser_fixtures() {
	local f name result want res rc ok=0 n=0
	for f in scripts/parse-log-tests/*.log; do
		name=$(basename "$f" .log)
		result=$(sed -n 1p "${f%.log}.want")
		want=$(sed -n 2p "${f%.log}.want")
		rc=0 n=$((n + 1))
		res=$(awk -v need_done=1 -f scripts/parse-log.awk "$f") || rc=$?
		if grep -qx "$result" <<<"$res" && verdict $rc "$res" "$want"; then
			pass
			ok=$((ok + 1))
		else
			fail "parse-log $name: wanted $result and ${want:+a failure on \"$want\"}${want:-a pass}, got (status $rc):"
			sed 's/^/    /' <<<"$res"
		fi
	done
	echo "parse-log fixtures: $ok of $n judged as expected"
}

# One kernel's part of check, runner-test, run or shell.
on_kernel() {
	kdir=$(scripts/kernel.sh debug "$kernel") || abort "no $kernel debug kernel (scripts/kernel.sh debug $kernel)"
	say "test kernel $kernel: $kdir"
	mkdir -p "$vm"

	case "$mode" in
	check)
		build_product "$kdir"
		build_fixtures "$kdir"
		stage
		# slub_nomerge: the stress steps read the device's own slab
		# cache's statistics. hwt.nosuspend: 6.12-rt's resume from S3
		# under TCG often stalls (of 17 suspends measured here, 7 took
		# 18 to 630 s and one never woke, with or without the HPET, on
		# either clocksource; a CI run lost 10 minutes to two), while
		# 6.1 resumes in under a second. On 6.12-rt dev_suspend_test
		# skips, saying so; the real suspend is proven on 6.1.
		case $kernel in
		6.12-rt) APPEND="hwt.nosuspend=1 ${APPEND:-}" ;;
		esac
		APPEND="slub_nomerge ${APPEND:-}" VM_TIMEOUT=${VM_TIMEOUT:-1800} \
			boot_vm "$kdir" "$vm/rootfs" check "$log"
		echo "==== results ($kernel) ===="
		check_boot "$log" "$kernel"
		judge "$log" main 1 || true
		fixture_asserts
		[ $stress = 1 ] && stress_judge "$log"
		[ $bench = 1 ] && bench_judge "$log" "$vm/bench"
		echo "full log: $log"
		summary
		;;
	runner-test)
		build_fixtures "$kdir"
		stage
		boot_vm "$kdir" "$vm/rootfs" runner-test "$log"
		echo "==== results ($kernel) ===="
		check_boot "$log" "$kernel"
		judge "$log" main 1 || true
		fixture_asserts
		summary
		;;
	run)
		build_product "$kdir"
		stage
		# The demo's output, not the kernel's; the log has everything.
		CONSOLE=${CONSOLE:-user} boot_vm "$kdir" "$vm/rootfs" run "$log"
		judge "$log" main 1 >&2 || { echo "runner: the run had problems (above), log in $log" >&2; exit 1; }
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
	if ! add_counts "$last"; then
		last="did not finish (see $res)"
		failed=$((failed + 1))
	fi
	totals+=("[$k] $last ($((SECONDS - t0)) s)")
}

# What failed, again at the end of the output, where a reader of only its
# tail (a CI page) finds it: each kernel's FAIL lines and the ledgers' notes
# on them (stress_judge), at most 12 per kernel.
list_failures() {
	local k
	for k; do
		grep -E '^(FAIL|NOTE) ' "$out/vm-$k/result.txt" 2>/dev/null |
			head -n 12 | cut -c1-300 | sed "s/^/[$k] /" || true
	done
	return 0
}

case "$mode" in
check | runner-test | run | shell) ;;
stress | bench)
	# A run of its own, under build/stress or build/bench: no lock.
	prog=$mode
	"${mode}_run" "${2:-}"
	exit
	;;
*)
	echo "usage: runner.sh check|runner-test|run|shell|stress MODE|bench MODE" >&2
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
check | runner-test)
	kernels=${KERNELS:-6.1 6.12-rt}
	[ "$mode" = check ] || kernels=$kernel
	say "test kernels: $kernels"
	[ "$mode" = check ] && build_stock
	build_user
	parser_fixtures
	totals=()
	for k in $kernels; do
		run_kernel "$k"
	done
	echo "==== summary ===="
	printf '%s\n' "${totals[@]}"
	# shellcheck disable=SC2086 # a list of names
	list_failures $kernels
	summary
	;;
run | shell)
	build_user
	on_kernel
	;;
esac
