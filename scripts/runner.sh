#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hwtimer test runner, behind make check, runner-test, run, shell,
# stress and bench.
#
#   scripts/runner.sh check        each test kernel of KERNELS, one VM boot
#                                  each: every test, the runner's self-tests,
#                                  the stress and benchmark smokes
#   scripts/runner.sh runner-test  only the self-tests, on KERNEL: the runner
#                                  must fail each deliberately broken fixture
#   scripts/runner.sh run|shell    boot KERNEL with hwtimer.ko loaded, run the
#                                  demo or an interactive shell
#   scripts/runner.sh stress MODE  stress_run (stress/lib.sh) on KERNEL
#   scripts/runner.sh bench MODE   bench_run (bench/lib.sh) on KERNEL
#
# check builds, once per run, the modules against Debian's stock headers and
# the static user-space programs; then each kernel's part runs as its own
# process (runner.sh one MODE KERNEL: lines prefixed "[KERNEL] ", kept in
# build/vm-KERNEL/). check and runner-test end with one line "N passed, N
# failed, N skipped" over all kernels and fail if anything failed.
#
# Environment: KERNELS (default: default_kernels below), KERNEL (default
# 6.1), STRESS_SMOKE=0 and BENCH_SMOKE=0 (leave those parts out of check),
# ONLY=GLOB[,GLOB] (check: only the KUnit modules, test programs and
# samples so named, no fixtures or smokes: a developer's loop),
# ACCEL (auto, the default: KVM if a probe boot shows it works, else TCG;
# or tcg, kvm), PROBE_TIMEOUT, SMP,
# MEM, VM_TIMEOUT (default 1800 for check, 1200 otherwise), UT_TIMEOUT,
# APPEND, QEMU_EXTRA, QUIET (scripts/vm-boot.sh); STRESS_STEPS, STRESS_CONF,
# STRESS_PATCHES (stress/lib.sh), BENCH_ONLY, BENCH_KPARAMS, BENCH_UPARAMS,
# BENCH_KERNEL (bench/lib.sh).
set -euo pipefail
shopt -s nullglob

usage="usage: runner.sh check|runner-test|run|shell|stress MODE|bench MODE"
# The test kernels `make check` boots when neither KERNELS nor KERNEL is
# given: the one place to change the list. 6.1 is Debian 12's own kernel,
# 6.12-rt the RT one, 7.3 mainline; the cold CI run's parts are in
# docs/testing.md ("Cold CI").
default_kernels="6.1 6.12-rt 7.3"
mode=${1:?$usage}
kernel=${KERNEL:-6.1}
if [ "$mode" = one ]; then
	# Internal: one kernel's part of check or runner-test, under the
	# caller's lock, after what all kernels share is built.
	mode=${2:?} kernel=${3:?} one=1
fi
prog=runner
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
. stress/lib.sh
. bench/lib.sh

out=$top/build
vm=$out/vm-$kernel
log=$vm/vm.log
stress=0 bench=0 fixtures=0
case "$mode" in
check)
	fixtures=1
	[ "${STRESS_SMOKE:-1}" = 0 ] || stress=1
	[ "${BENCH_SMOKE:-1}" = 0 ] || bench=1
	# ONLY=GLOB[,GLOB]: a developer's partial run (guest-init.sh, wanted()).
	if [ -n "${ONLY:-}" ]; then
		fixtures=0 stress=0 bench=0
	fi
	;;
runner-test) fixtures=1 ;;
esac

# Every module must also build warning-free (W=1, sparse) against Debian's
# header trees (6.1 installed, 6.12 and 6.12-rt unpacked by
# scripts/fetch.sh), which have no KUnit, and for arm64 with 4 KiB and 64
# KiB pages: against the arm64 debug kernels (arm64_build_kernels), built
# and cached as every test kernel is (scripts/kernel.sh). Debian 12 has no
# 64 KiB arm64 kernel, so that tree is built in any case. A kernel of the
# run's list is left to its own part, which builds the same modules against
# the same tree, W=1 and sparse.
arm64_build_kernels="6.12-arm64 6.12-arm64-64k"
build_stock() {
	local trees tree name k
	scripts/fetch.sh headers >/dev/null || abort "cannot fetch Debian's 6.12 headers (scripts/fetch.sh headers)"
	trees=$(scripts/kdir.sh --all)
	[ -n "$trees" ] || abort "no Debian header trees (scripts/deps.sh, scripts/fetch.sh headers)"
	for tree in $trees; do
		name="modules ($(basename "$tree"), W=1, sparse)"
		kbuild_tree "$name" "$tree" "$out/stock/$(basename "$tree")" kunit samples bench stress ||
			fail "$name: build failed (above)"
		say "modules built against $(basename "$tree")"
	done
	for k in $arm64_build_kernels; do
		[[ " $kernels " == *" $k "* ]] && continue
		name="modules ($k debug kernel, W=1, sparse)"
		if ! tree=$(scripts/kernel.sh debug "$k"); then
			fail "$name: no $k kernel (scripts/kernel.sh debug $k, above)"
			continue
		fi
		kbuild_tree "$name" "$tree" "$out/stock/$k" kunit samples bench stress ||
			fail "$name: build failed (above)"
		say "modules built against the $k debug kernel"
	done
}

# Static, so one build serves every kernel of an architecture: ARCH
# (x86_64: build/, arm64: build/arm64/, cross-built, without the -m32
# twins; scripts/lib.sh, user_make). kselftest_harness.h is 6.1's whatever
# the kernels: the tests are written against it (6.12's compiles them too,
# with -Wclobbered noise from its macros).
build_user() {
	local arch=$1 ksrc targets=()
	ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1 (scripts/deps.sh)"
	[ "$mode" = runner-test ] || targets+=(user)
	[ $stress = 1 ] && targets+=(stress-user)
	[ $bench = 1 ] && targets+=(bench-user)
	[ ${#targets[@]} = 0 ] || user_make "$arch" "$ksrc" "${targets[@]}" ||
		abort "user-space programs ($arch): build failed"
	[ $fixtures = 0 ] || user_make "$arch" "$ksrc" ut UT_DIR=scripts/runner-test/ut \
		HWT_OUT="$(user_out "$arch")/runner-test" ||
		abort "self-test fixture programs ($arch): build failed"
	say "user-space programs built ($arch)"
}

# `make install` into $vm/install (PREFIX /usr/local) for the test kernel;
# then, from the installed files only, as a module author and a library
# user would build them: the sample module, copied out of the tree, with
# samples/out-of-tree/Kbuild (the installed header and Module.symvers), and
# the example of the installed libhwtimer(3), compiled with `pkg-config
# --cflags --libs libhwtimer` and linked static (the VM has no shared
# libraries; make lib-check links it shared too, on the host). The guest
# loads the one and runs the other (installed_tests in guest-init.sh).
# Whatever the install lacks fails a build here.
install_stage() {
	local root=$1 d=$vm/install oot=$vm/oot pc flags
	rm -rf "$d" "$oot" "$root/hwt/installed"
	mkdir -p "$oot" "$root/hwt/installed"
	if [ "$(kernel_arch "$kernel")" != x86_64 ]; then
		# make install builds libhwtimer with the host's compiler.
		echo "make install builds for the host (x86_64)" >"$root/hwt/installed/skip"
		skip "the sample module and libhwtimer(3)'s example from make install: $(kernel_arch "$kernel") kernel"
		return 0
	fi
	if ! KDIR=$kdir make -s install DESTDIR="$d" >"$vm/install.log" 2>&1; then
		cat "$vm/install.log" >&2
		fail "make install DESTDIR=$d KDIR=$kdir failed (above)"
		return 0
	fi
	pass
	cp samples/hwtimer_sample.c "$oot/"
	sed "s|/usr/local/|$d/usr/local/|g" samples/out-of-tree/Kbuild >"$oot/Kbuild"
	if make -C "$kdir" M="$oot" modules >"$oot.log" 2>&1 &&
	   ! grep -v '^make' "$oot.log" | grep -E 'warning:|WARNING:|error:' >&2; then
		cp "$oot/hwtimer_sample.ko" "$root/hwt/installed/"
		pass
	else
		cat "$oot.log" >&2
		fail "the sample module, built out of the tree from the installed files: build failed (above)"
	fi
	pc=$d/usr/local/lib/pkgconfig
	scripts/man-example.sh "$d/usr/local/share/man/man3/libhwtimer.3" >"$oot/libhwtimer-example.c"
	if flags=$(PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$d pkg-config --cflags --libs libhwtimer) &&
	   gcc -Wall -Wextra -Werror -static -o "$root/hwt/installed/libhwtimer-example" \
		"$oot/libhwtimer-example.c" $flags; then
		pass
	else
		fail "libhwtimer(3)'s example, built with pkg-config against the install: build failed (above)"
	fi
	say "built from the install: the sample module, libhwtimer(3)'s example"
}

# The documentation against the code (scripts/doc-check.sh): its programs
# and modules compile, its structures and versions agree. Once per run.
doc_check() {
	local res last
	res=$(HWT_OUT=$out scripts/doc-check.sh 2>&1) || true
	last=$(tail -n 1 <<<"$res")
	sed '$d' <<<"$res" | grep -v '^doc-check: ' || true
	add_counts "$last" || fail "scripts/doc-check.sh did not finish: $last"
	say "documentation checked ($last)"
}

# The module's sources simulated in user space against a model
# (tools/testing/sim/README): the seeds, counted as items. Once per run.
sim_check() {
	local res last
	res=$(make -s sim HWT_OUT="$out" 2>&1) || true
	last=$(tail -n 1 <<<"$res")
	sed '$d' <<<"$res" | grep -E '^(FAIL|  |shrunk|replay|sim:)' || true
	add_counts "$last" || fail "make sim did not finish: $(tail -n 3 <<<"$res")"
	say "simulation run ($last)"
}

# The modules against the test kernel (C=2: sparse checks every file each
# time), and the fixtures with a hwtimer.ko of their own (which the
# debugobjects fixture loads: runner-test needs nothing of the product),
# staged into the guest's /hwt (scripts/guest-init.sh): only what the
# current sources build, not stale files of deleted ones.
build_stage() {
	local root=$vm/rootfs dirs=(kunit samples) f
	uout=$(user_out "$(kernel_arch "$kernel")")
	[ $stress = 1 ] && dirs+=(stress)
	[ $bench = 1 ] && dirs+=(bench)
	rm -rf "$root"
	mkdir -p "$root/hwt/ut" "$root/hwt/tools" "$root/hwt/runner-test/ut"
	if [ "$mode" != runner-test ]; then
		kbuild_tree "modules (test kernel, W=1, sparse)" "$kdir" "$vm/kbuild" "${dirs[@]}" ||
			abort "modules (test kernel): build failed"
		say "modules built against the test kernel"
		stage_modules "$vm/kbuild" "$root"
		for f in userspace-test/*_test.c; do
			f=$(basename "$f" .c)
			if [ "$(kernel_arch "$kernel")" = x86_64 ]; then
				cp "$uout/ut/$f" "$uout/ut/$f-32" "$root/hwt/ut/"
			else
				cp "$uout/ut/$f" "$root/hwt/ut/"
				skip "$f-32: not built for $(kernel_arch "$kernel") (the -m32 twins test x86_64's compat ioctl path)"
			fi
		done
		# The programs' time limits (run_ut in scripts/guest-init.sh).
		cp userspace-test/settings "$root/hwt/ut/"
		for f in tools/*.c; do
			cp "$uout/tools/$(basename "$f" .c)" "$root/hwt/tools/"
		done
	fi
	if [ $fixtures = 1 ]; then
		KBUILD_ARGS='' kbuild_tree "self-test fixture modules" "$kdir" "$vm/runner-test" scripts/runner-test/kmod ||
			abort "self-test fixture modules: build failed"
		say "self-test fixtures built"
		for f in $(built_modules "$vm/runner-test"); do
			cp "$vm/runner-test/$f" "$root/hwt/runner-test/"
		done
		for f in scripts/runner-test/ut/*_test.c; do
			cp "$uout/runner-test/ut/$(basename "$f" .c)" "$root/hwt/runner-test/ut/"
		done
	fi
	[ "$mode" = check ] && install_stage "$root"
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

# One self-test: the parser, on a fixture's segment only, must fail it
# naming WANT ("" for the clean fixture: must pass); each assertion that
# holds is one pass. The parser's output stays in res.
expect() {
	local label=$1 seg=$2 want=$3 file=${4:-$log} rc=0
	res=$(parse "$file" "$seg" "${need_done:-0}") || rc=$?
	if ! verdict $rc "$res" "$want"; then
		fail "runner-test $label: expected ${want:-a pass}, the parser said (status $rc):"
		indent <<<"$res"
		return
	fi
	echo "runner-test $label: ok, $(grep -m1 "^FAIL.*$want" <<<"$res" || grep '^RESULT' <<<"$res")"
	pass
}

# A debugobjects fixture (hwt_st_odebug.ko bug=BUG) must also fail on
# nothing but debugobjects' report (the "ODEBUG:" line and the WARNING
# carrying it, "WARNING: CPU: 0 PID: 96 at lib/debugobjects.c:515 ..." or,
# since 6.19, "WARNING: lib/debugobjects.c:612 at ..., CPU#0: insmod/96"):
# hwtimer's fixup made the bug harmless, and the module's own checks of
# that, which would fail its load, passed.
expect_odebug() {
	local other
	expect "$1" "runner-test:odebug-$2" "$3"
	other=$(grep '^FAIL' <<<"$res" | grep -v -E 'ODEBUG: |WARNING: (.* at )?lib/debugobjects\.c:') || true
	if [ -n "$other" ]; then
		fail "runner-test $1: more than a debugobjects report:"
		indent <<<"$other"
	fi
}

# The fixture hwt_st_selfsync.ko must fail on hwtimer's warning for a
# callback that waits for itself (hwt_cancel_wait()) and on nothing else:
# no sleeping-in-atomic BUG, no lockdep report, no failed load.
expect_selfsync() {
	local other
	expect "$1" runner-test:selfsync "WARNING: .*hwt_cancel_wait"
	other=$(grep '^FAIL' <<<"$res" | grep -v -E 'WARNING: .*hwt_cancel_wait') || true
	if [ -n "$other" ]; then
		fail "runner-test $1: more than hwtimer's warning:"
		indent <<<"$other"
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
	expect_selfsync "cancel_sync and shutdown_sync from the timer's own callback"
	expect "clean KUnit suite and test" runner-test:clean ""
	# A guest that dies half way: the log cut inside the clean fixture must
	# fail both that segment and the whole run.
	sed '/@@HWT end runner-test:clean/,$d' "$log" >"$cut"
	expect "guest stopped inside a test" runner-test:clean "did not finish" "$cut"
	need_done=1 expect "guest never finished" main "the guest never finished" "$cut"
}

# The parser on scripts/parse-log-tests/ (as kunit_tool_test.py on its
# test_data/): NAME.log must give the RESULT line of NAME.want exactly and,
# if NAME.want has a second line, fail on it.
parser_fixtures() {
	local f result want rc ok=0 n=0
	for f in scripts/parse-log-tests/*.log; do
		result=$(sed -n 1p "${f%.log}.want")
		want=$(sed -n 2p "${f%.log}.want")
		rc=0 n=$((n + 1))
		res=$(parse "$f" main 1) || rc=$?
		if grep -qx "$result" <<<"$res" && verdict $rc "$res" "$want"; then
			pass
			ok=$((ok + 1))
		else
			fail "parse-log $(basename "$f" .log): wanted $result and ${want:+a failure on \"$want\"}${want:-a pass}, got (status $rc):"
			indent <<<"$res"
		fi
	done
	echo "parse-log fixtures: $ok of $n judged as expected"
}

# One kernel's part of check, runner-test, run or shell.
on_kernel() {
	local append=${APPEND:-} timeout=${VM_TIMEOUT:-1200}
	kdir=$(scripts/kernel.sh debug "$kernel") || abort "no $kernel debug kernel (scripts/kernel.sh debug $kernel)"
	say "test kernel $kernel: $kdir"
	pick_accel "$kdir"
	mkdir -p "$vm"
	build_stage
	case "$mode" in
	check | runner-test)
		if [ "$mode" = check ]; then
			# slub_nomerge: the stress steps read the device's own slab
			# cache's statistics. hwt.nosuspend: 6.12-rt's resume from
			# S3 under TCG often stalls (of 17 suspends measured, 7 took
			# 18 to 630 s and one never woke, with or without the HPET,
			# on either clocksource), while 6.1 resumes in under a
			# second. 7.3 stalls too, less often, between "Enabling
			# non-boot CPUs" and the kick of CPU 1, with no hwtimer.ko
			# loaded: 125 s in one check, 32 s in 1 of 8 bare suspends,
			# 4 s in 1 of 48 (timer_migration=0 did not help); a CI run
			# stalled long enough for RCU's grace-period-start WARN.
			# dev_suspend_test skips on both, saying so; 6.1 runs it.
			case $kernel in
			6.12-rt | 7.3) append="hwt.nosuspend=1 $append" ;;
			esac
			append="slub_nomerge $append" timeout=${VM_TIMEOUT:-1800}
			[ -n "${ONLY:-}" ] && append="hwt.only=$ONLY $append"
		fi
		APPEND=$append VM_TIMEOUT=$timeout boot_vm "$kdir" "$vm/rootfs" "$mode" "$log"
		echo "==== results ($kernel) ===="
		check_boot "$log" "$kernel"
		judge "$log" main 1 || true
		if [ $fixtures = 1 ]; then
			fixture_asserts
		elif [ -n "${ONLY:-}" ]; then
			echo "ONLY=$ONLY: a partial run, no verdict on the whole suite"
		fi
		[ $stress = 1 ] && stress_judge "$log"
		[ $bench = 1 ] && bench_judge "$log" "$vm/bench"
		echo "full log: $log"
		summary
		;;
	run)
		# The demo's output, not the kernel's; the log has everything.
		CONSOLE=${CONSOLE:-user} boot_vm "$kdir" "$vm/rootfs" run "$log"
		judge "$log" main 1 >&2 || { echo "runner: the run had problems (above), log in $log" >&2; exit 1; }
		;;
	shell)
		# A session can last hours: boot from a copy, and let other runs
		# have build/ meanwhile.
		rm -rf "$vm/shell-rootfs"
		cp -a "$vm/rootfs" "$vm/shell-rootfs"
		exec 8>&-
		exec scripts/vm-boot.sh "$kdir" "$vm/shell-rootfs" shell
		;;
	esac
}

# One kernel's part as its own process (which keeps `set -e` in force, as a
# subshell under `||` would not), its lines prefixed with the kernel's name
# and kept in build/vm-KERNEL/result.txt; its last line's counts add up.
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

case "$mode" in
check | runner-test | run | shell) ;;
stress | bench)
	# A run of its own, under build/stress or build/bench: no lock. The
	# benchmarks stay on TCG unless asked, so that their ratios compare
	# with earlier runs' (scripts/lib.sh, pick_accel).
	prog=$mode
	if [ "$mode" = bench ] && [ -z "${ACCEL:-}" ]; then
		export ACCEL=tcg ACCEL_WHY="make bench's default; ACCEL=auto or kvm for another"
	fi
	"${mode}_run" "${2:-}"
	exit
	;;
*)
	echo "$usage" >&2
	exit 2
	;;
esac

if [ -n "${one:-}" ]; then
	on_kernel
	exit 0
fi

# Say first which test kernels the run must build before it can boot them.
announce_builds() {
	local k todo=()
	for k in "$@"; do
		scripts/kernel.sh --cached debug "$k" >/dev/null 2>&1 || todo+=("$k")
	done
	[ ${#todo[@]} = 0 ] && return 0
	say "not built yet: the ${todo[*]} debug kernel$([ ${#todo[@]} = 1 ] || echo s), which this run builds first: 4 to 14 minutes each on two cores (longer when the host is busy), 260 to 450 MB each in ${XDG_CACHE_HOME:-~/.cache}/hwtimer, and 1.5 to 1.8 GB for a source not unpacked yet (docs/testing.md)"
}
if [ "$mode" = check ]; then
	announce_builds ${KERNELS:-$default_kernels}
else
	announce_builds "$kernel"
fi

scripts/deps.sh
# C=2 with a sparse that every kernel's headers accept (scripts/fetch.sh).
sparse=$(scripts/fetch.sh sparse) || abort "no sparse (scripts/fetch.sh sparse)"
export KBUILD_ARGS="C=2 CHECK=$sparse"

# Two runs in one checkout would share build/: the second waits.
mkdir -p "$out"
exec 8>"$out/.runner.lock"
if ! flock -n 8; then
	say "waiting for another run in this checkout to finish"
	flock 8
fi

if [ "$mode" = run ] || [ "$mode" = shell ]; then
	build_user "$(kernel_arch "$kernel")"
	on_kernel
	exit
fi
kernels=${KERNELS:-$default_kernels}
[ "$mode" = check ] || kernels=$kernel
say "test kernels: $kernels"
[ "$mode" = check ] && build_stock
# The user-space programs of each architecture the kernels run.
for a in $(for k in $kernels; do kernel_arch "$k"; done | sort -u); do
	build_user "$a"
done
[ "$mode" = check ] && doc_check
[ "$mode" = check ] && sim_check
parser_fixtures
# Once for all kernels' parts, with the first one's kernel.
kdir=$(scripts/kernel.sh debug "${kernels%% *}") || abort "no ${kernels%% *} debug kernel"
pick_accel "$kdir"
totals=()
for k in $kernels; do
	run_kernel "$k"
done
echo "==== summary ===="
printf '%s\n' "${totals[@]}"
# What failed, again at the end, where a reader of only the tail (a CI page)
# finds it: each kernel's FAIL lines and the ledgers' notes on them
# (stress_judge), at most 12 per kernel.
for k in $kernels; do
	grep -E '^(FAIL|NOTE) ' "$out/vm-$k/result.txt" 2>/dev/null |
		head -n 12 | cut -c1-300 | sed "s/^/[$k] /" || true
done
summary
