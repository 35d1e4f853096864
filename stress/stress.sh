#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stress runner: everything behind `make stress`, `make stress-smoke` and
# `make check-kcsan` (see stress/stress.mk).
#
#   stress/stress.sh full     every stress item at length (about 10 minutes)
#   stress/stress.sh soak     the same, repeated until 10M ledger operations
#                             in the kernel and in user space each, 1M
#                             fuzzer calls and 50 hotplug cycles (about 30
#                             minutes; make soak)
#   stress/stress.sh smoke    a short version of each item (1 to 2 minutes);
#                             `make check` runs the same in its one boot
#   stress/stress.sh kcsan    the KUnit suites and the smoke run on the KCSAN
#                             kernel (scripts/kcsan.config)
#
# Steps: install missing packages, get the cached test kernel
# (scripts/kernel.sh debug, or kcsan), build hwtimer.ko and the stress
# modules in one external-module tree with W=1 (warnings fail the run), build
# the static user-space stress programs (64-bit and -m32), stage an initramfs
# whose /init (scripts/guest-init.sh, hwt.mode=stress) runs the steps of
# stress/guest.sh, boot QEMU (TCG), then judge the log:
#   - scripts/parse-log.awk on everything but the expected-warning segments:
#     every TAP result and guest check, and any WARNING, BUG, lockdep,
#     KASAN, KCSAN or kmemleak report fails the run;
#   - the stress:leak-* segments must each hold the one warning hwtimer.ko
#     gives for a wheel a client never destroyed, and nothing else.
# It prints the ledger totals, fault points, fuzzer calls and hotplug cycles
# and ends with "N passed, N failed, N skipped"; the exit status is 0 only
# if nothing failed.
#
# Environment: KERNEL (the test kernel as scripts/kernel.sh names it: 6.1,
# the default, 6.12 or 6.12-rt; results in build/stress/MODE-KERNEL/),
# STRESS_STEPS and STRESS_CONF (see stress/lib.sh), STRESS_PATCHES (patch
# files applied to a copy of the sources first, to try a proposed fix), SMP
# (vCPUs; default 3 for full, 2 otherwise), MEM (default 1G), VM_TIMEOUT
# (seconds).
set -euo pipefail

mode=${1:-smoke}
kernel=${KERNEL:-6.1}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Called from make: its flags are not for the builds below.
unset MAKEFLAGS MFLAGS MAKELEVEL
prog=stress
. scripts/lib.sh
. stress/lib.sh

case "$mode" in
full)
	flavour=debug
	smp=${SMP:-3}
	timeout=${VM_TIMEOUT:-1500}
	;;
soak)
	flavour=debug
	smp=${SMP:-2}
	timeout=${VM_TIMEOUT:-3600}
	;;
smoke)
	flavour=debug
	smp=${SMP:-2}
	timeout=${VM_TIMEOUT:-600}
	;;
kcsan)
	flavour=kcsan
	smp=${SMP:-2}
	timeout=${VM_TIMEOUT:-600}
	;;
*)
	echo "usage: stress.sh full|soak|smoke|kcsan" >&2
	exit 2
	;;
esac

out=$top/build/stress/$mode-$kernel
vm=$out/vm
log=$out/stress.log
mkdir -p "$vm"

scripts/deps.sh
kdir=$(scripts/kernel.sh "$flavour" "$kernel") || abort "no $flavour $kernel kernel"
say "$flavour $kernel kernel $kdir"

# ---- build -------------------------------------------------------------------

# hwtimer.ko, the stress modules (and, for kcsan, the KUnit module) in one
# external-module tree; STRESS_PATCHES are applied to a throw-away copy.
kb=$vm/kbuild
dirs=(stress)
[ "$mode" = kcsan ] && dirs+=(kunit)
if [ -n "${STRESS_PATCHES:-}" ]; then
	kb=$vm/kbuild-patched
	rm -rf "$kb"
fi
PATCHES=${STRESS_PATCHES:-} kbuild_tree "modules (W=1)" "$kdir" "$kb" "${dirs[@]}" ||
	abort "module build failed"
say "modules built"

# kselftest_harness.h for the device's tests: 6.1's on every kernel, as
# scripts/runner.sh builds them (static programs, kernel independent).
ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1"
make -s stress-user KSRC="$ksrc" || abort "user-space programs: build failed"
say "user-space programs built"

# ---- stage and boot ------------------------------------------------------------

root=$vm/rootfs
rm -rf "$root"
stage_modules "$kb" "$root"
stress_stage "$root" "$mode"

# slub_nomerge: the device's timeout cache keeps its own slab statistics.
# Progress: steps, failures, the summary lines.
APPEND="slub_nomerge ${APPEND:-}" SMP=$smp VM_TIMEOUT=$timeout UT_TIMEOUT=900 \
	PROGRESS='@@STRESS step|@@HWT (fail|done)|^not ok|BUG:|WARNING:' \
	boot_vm "$kdir" "$root" stress "$log"

# ---- judge -------------------------------------------------------------------

check_boot "$log" "$kernel"

# KCSAN reports only count when they involve hwtimer code: data races the
# instrumented core kernel reports among its own functions are listed, not
# failed (they are not ours to fix).
judged_log=$log
if [ "$mode" = kcsan ]; then
	judged_log=$out/stress.filtered.log
	awk -v foreign="$out/kcsan-foreign.txt" '
		function flush(  i, ours) {
			ours = 0
			for (i = 1; i <= n; i++)
				if (buf[i] ~ /hwt|hwtimer|\[hwtimer/)
					ours = 1
			for (i = 1; i <= n; i++) {
				if (ours)
					print buf[i]
				else if (i == 2)
					print "KCSAN report outside hwtimer: " buf[i] > foreign
			}
			n = 0
		}
		/====================/ && n == 0 { inrep = 1 }
		inrep { buf[++n] = $0; if (n > 1 && $0 ~ /====================/) { flush(); inrep = 0 }; next }
		{ print }
		END { if (n) flush() }
	' "$log" >"$judged_log"
	: >>"$out/kcsan-foreign.txt"
	if [ -s "$out/kcsan-foreign.txt" ]; then
		echo "stress: KCSAN reports in code that is not hwtimer's (not failed):"
		sed 's/\[ *[0-9.]*\] //' "$out/kcsan-foreign.txt" | sort | uniq -c | sed 's/^/    /'
	fi
fi

judge "$judged_log" main 1 || true
stress_judge "$log"
echo "full log: $log"
say "done"
summary
