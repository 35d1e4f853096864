#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The hwtimer test runner: everything behind `make check|selftest|run|shell`.
#
#   scripts/runner.sh check     build all, run every test and the runner's
#                               self-tests in one VM boot, judge the log
#   scripts/runner.sh selftest  only the self-tests: the runner must fail
#                               each deliberately broken fixture
#   scripts/runner.sh run       boot with hwtimer.ko loaded, run the demo
#   scripts/runner.sh shell     boot with hwtimer.ko loaded, interactive shell
#
# Steps: install missing packages, get the cached debug kernel, build the
# modules against it (and, for check, against Debian's stock headers), build
# the static user-space programs, stage them into an initramfs, boot QEMU
# (scripts/vm-boot.sh, guest side scripts/guest-init.sh), then judge the log
# with scripts/parse-log.awk. check and selftest end with the line
# "N passed, N failed, N skipped" and exit non-zero if anything failed.
#
# Environment: SMP, MEM, VM_TIMEOUT, UT_TIMEOUT, APPEND, QEMU_EXTRA, QUIET
# (see scripts/vm-boot.sh).
set -euo pipefail

mode=${1:?usage: runner.sh check|selftest|run|shell}
# Called from make: its flags (-j with a jobserver, -n, -s) are not for the
# builds below, which pick their own. Variables given as `make check SMP=4`
# are in the environment too, and stay.
unset MAKEFLAGS MFLAGS MAKELEVEL
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build
vm=$out/vm
log=$out/vm.log
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

build_product() {
	local kdir=$1

	# C=2: sparse checks every file each time, not only recompiled ones.
	mirror "$vm/kbuild" Kbuild kmod kunit samples include
	kbuild "modules (test kernel, W=1, sparse)" "$kdir" "$vm/kbuild" C=2
	say "modules built against the test kernel"

	if [ "$mode" = check ]; then
		# Every module of the tree must also build warning-free (W=1,
		# sparse) against every installed Debian kernel's headers (6.1,
		# 6.12, 6.12-rt: scripts/deps.sh installs them), which have no
		# KUnit.
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
	fi

	make -s user KSRC="$kdir/source" || abort "user-space programs: build failed"
	say "user-space programs built"
}

build_selftest() {
	local kdir=$1
	(cd scripts/selftest/kmod && mirror "$vm/selftest" .)
	kbuild "self-test fixture modules" "$kdir" "$vm/selftest"
	make -s ut UT_DIR=scripts/selftest/ut HWT_OUT="$out/selftest" KSRC="$kdir/source" ||
		abort "self-test fixture programs: build failed"
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
	say "stress smoke (stress/stress.sh smoke, log in build/stress/smoke/)"
	res=$out/stress-smoke.txt
	stress/stress.sh smoke >"$res" 2>&1 || true
	sed -n '/^==== stress/,$p' "$res"
	grep -E '^FAIL|^stress: error' "$res" || true
	last=$(tail -n 1 "$res")
	if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[1])) failed=$((failed + BASH_REMATCH[2]))
	else
		echo "FAIL the stress smoke did not finish (see $res)"
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

scripts/deps.sh
kdir=$(scripts/kernel.sh debug)
say "test kernel $kdir"

# Two runs in one checkout would build into and boot from the same build/:
# the second waits for the first.
mkdir -p "$vm"
exec 8>"$out/.runner.lock"
if ! flock -n 8; then
	say "waiting for another run in this checkout to finish"
	flock 8
fi

case "$mode" in
check)
	build_product "$kdir"
	build_selftest "$kdir"
	stage
	boot
	echo "==== results ===="
	judge main 1 || true
	selftest_asserts
	echo "full log: $log"
	stress_smoke
	summary
	;;
selftest)
	build_selftest "$kdir"
	stage
	boot
	echo "==== results ===="
	judge main 1 || true
	selftest_asserts
	summary
	;;
run)
	build_product "$kdir"
	stage
	# The demo's output, not the kernel's; build/vm.log has everything.
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
*)
	echo "usage: runner.sh check|selftest|run|shell" >&2
	exit 2
	;;
esac
