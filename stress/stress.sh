#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stress runner: everything behind `make stress`, `make stress-smoke` and
# `make check-kcsan` (see stress/stress.mk).
#
#   stress/stress.sh full     every stress item at length (about 10 minutes)
#   stress/stress.sh smoke    a short version of each item (1 to 2 minutes)
#   stress/stress.sh kcsan    the KUnit suites and the smoke run on the KCSAN
#                             kernel (scripts/kcsan.config)
#
# Steps: install missing packages, get the cached test kernel
# (scripts/kernel.sh debug, or kcsan), build hwtimer.ko and the stress
# modules in one external-module tree with W=1 (warnings fail the run), build
# the static user-space stress programs (64-bit and -m32), stage an initramfs
# whose /init is stress/guest-init.sh, boot QEMU (TCG), then judge the log:
#   - scripts/parse-log.awk on everything but the expected-warning segment:
#     every TAP result and guest check, and any WARNING, BUG, lockdep,
#     KASAN, KCSAN or kmemleak report fails the run;
#   - the stress:leak-* segments must each hold the one warning hwtimer.ko
#     gives for a wheel a client never destroyed, and nothing else.
# It prints the ledger totals, fault points, fuzzer calls and hotplug cycles
# and ends with "N passed, N failed"; the exit status is 0 only if nothing
# failed.
#
# Environment: KERNEL (the test kernel as scripts/kernel.sh names it: 6.1,
# the default, 6.12 or 6.12-rt; results in build/stress/MODE-KERNEL/),
# STRESS_STEPS (run only these guest steps, e.g. "kacct faults"; the default
# is all), STRESS_CONF (shell assignments that override the guest's
# settings, see stress/guest-init.sh), STRESS_PATCHES (patch files applied
# to a copy of the sources first, to try a proposed fix), SMP (vCPUs;
# default 3 for full, 2 otherwise), MEM (default 1G), VM_TIMEOUT (seconds),
# KEEP_LOG.
set -euo pipefail

mode=${1:-smoke}
kernel=${KERNEL:-6.1}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$SECONDS
passed=0 failed=0 skipped=0

say() { echo "stress: $* [$((SECONDS - start)) s]" >&2; }

summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

abort() {
	echo "stress: error: $*" >&2
	failed=$((failed + 1))
	summary
	exit 1
}

all_steps="kacct drace uacct hotplug faults fuzz security lifecycle leakwarn leakpending leakinit"
case "$mode" in
full)
	flavour=debug
	smp=${SMP:-3}
	timeout=${VM_TIMEOUT:-1500}
	conf=(
		"STEPS=\"$all_steps\""
		'KACCT="duration_ms=75000 extra=3 priv=4 shared=32 chaos=32 doomed_ms=300"'
		'UACCT="-t 75 -p 3 -T 3 -c /sys/fs/cgroup/hwts-user"'
		'HOTPLUG_S=60'
		'KHOTPLUG="extra=0 doomed_ms=500"'
		'UHOTPLUG="-p 1 -T 2"'
		'FUZZ_S=40'
		'LIFECYCLE_N=100'
		'DRACE_N=600'
		'FAULT_ARGS=""'
		'SEC_ARGS="-m"'
	)
	;;
smoke | kcsan)
	flavour=debug
	smp=${SMP:-2}
	timeout=${VM_TIMEOUT:-600}
	steps=$all_steps
	if [ "$mode" = kcsan ]; then
		flavour=kcsan
		steps="kunit $all_steps"
	fi
	conf=(
		"STEPS=\"$steps\""
		'KACCT="duration_ms=4000 extra=1 doomed_ms=250"'
		'UACCT="-t 4 -p 2 -T 2 -c /sys/fs/cgroup/hwts-user"'
		'HOTPLUG_S=6'
		'KHOTPLUG="extra=0 doomed_ms=400"'
		'UHOTPLUG="-p 1 -T 2"'
		'FUZZ_S=4'
		'LIFECYCLE_N=5'
		'DRACE_N=250'
		'FAULT_ARGS="-q"'
		'SEC_ARGS=""'
	)
	;;
*)
	echo "usage: stress.sh full|smoke|kcsan" >&2
	exit 2
	;;
esac
[ -n "${STRESS_STEPS:-}" ] && conf[0]="STEPS=\"$STRESS_STEPS\""
# STRESS_CONF: more shell assignments for the guest, e.g. 'KACCT="duration_ms=60000"'.
[ -n "${STRESS_CONF:-}" ] && conf+=("$STRESS_CONF")

out=$top/build/stress/$mode-$kernel
vm=$out/vm
log=$out/stress.log
mkdir -p "$vm"

scripts/deps.sh
kdir=$(scripts/kernel.sh "$flavour" "$kernel") || abort "no $flavour $kernel kernel"
# kselftest_harness.h for the device's tests: 6.1's on every kernel, as
# scripts/runner.sh builds them (static programs, kernel independent).
ksrc=$(scripts/kernel.sh source 6.1) || abort "no linux-source-6.1"
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
PATCHES=${STRESS_PATCHES:-} scripts/kbuild-tree.sh "$kdir" "$kb" "${dirs[@]}" ||
	abort "module build failed"
passed=$((passed + 1))
say "modules built (W=1 clean)"

bin=$out/bin
mkdir -p "$bin"
cflags=(-O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -D_GNU_SOURCE -pthread -I"$top/include/uapi" -static)
for p in hwtstress-user hwtfault hwtfuzz hwtsec hwtwake; do
	[ -f "stress/$p.c" ] || continue
	${CC:-gcc} "${cflags[@]}" -o "$bin/$p" "stress/$p.c" || abort "$p: build failed"
done
for p in hwtfuzz hwtfault; do
	[ -f "stress/$p.c" ] || continue
	${CC:-gcc} -m32 "${cflags[@]}" -o "$bin/$p-32" "stress/$p.c" || abort "$p -m32: build failed"
done
# The device's own tests, as the sanity check after the fuzzer.
for t in dev_smoke_test dev_ioctl_test; do
	[ -f "userspace-test/$t.c" ] && [ -f "$ksrc/tools/testing/selftests/kselftest_harness.h" ] || continue
	${CC:-gcc} "${cflags[@]}" -Wno-error -I"$ksrc/tools/testing/selftests" \
		-o "$bin/$t" "userspace-test/$t.c" || abort "$t: build failed"
done
passed=$((passed + 1))
say "user-space programs built"

# ---- stage and boot ------------------------------------------------------------

root=$vm/rootfs
rm -rf "$root"
mkdir -p "$root/hwt/kmod" "$root/hwt/stress/bin" "$root/hwt/kunit"
cp "$kb/kmod/hwtimer.ko" "$root/hwt/kmod/"
cp "$kb"/stress/*.ko "$root/hwt/stress/"
cp "$bin"/* "$root/hwt/stress/bin/"
if [ "$mode" = kcsan ]; then
	cp "$kb"/kunit/*.ko "$root/hwt/kunit/" 2>/dev/null || true
fi
printf '%s\n' "${conf[@]}" >"$root/hwt/stress/stress.conf"

# slub_nomerge: the device's timeout cache keeps its own slab statistics.
append="slub_nomerge ${APPEND:-}"

# scripts/vm-boot.sh, with this /init.
boot() {
	GUEST_INIT=$top/stress/guest-init.sh QUIET=1 SMP=$smp VM_TIMEOUT=$timeout \
		UT_TIMEOUT=900 APPEND="$append" scripts/vm-boot.sh "$kdir" "$root" stress "$log"
}

say "booting the VM (SMP=$smp, time limit $timeout s), log in $log"
: >"$log"
rc=0
boot &
pid=$!
# Progress: steps, failures, the summary lines.
tail --pid=$pid -n +1 -F "$log" 2>/dev/null |
	grep --line-buffered -E '@@STRESS step|@@HWT (fail|done)|^not ok|BUG:|WARNING:' >&2 || true
wait $pid || rc=$?
say "VM finished (status $rc)"
if [ $rc = 124 ]; then
	echo "FAIL the VM hit the time limit of $timeout s" >&2
	failed=$((failed + 1))
elif [ $rc != 0 ]; then
	echo "FAIL QEMU exited with status $rc" >&2
	failed=$((failed + 1))
fi

# ---- judge -------------------------------------------------------------------

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

res=$(awk -v seg=main -v need_done=1 -f scripts/parse-log.awk "$judged_log") || true
grep -v '^RESULT ' <<<"$res" || true
set -- $(grep '^RESULT ' <<<"$res")
passed=$((passed + $2)) failed=$((failed + $3)) skipped=$((skipped + $4))

# The expected warnings: a segment must fail the parser on WANT WARNINGs
# from hwtimer (at the client's unload or at its own) naming the forgotten
# wheel, and on nothing else.
expect_warning() {
	local name=$1 want=${2:-1} seg probs n
	grep -q "@@HWT begin stress:$name" "$log" || return 0
	seg=$(awk -v seg="stress:$name" -f scripts/parse-log.awk "$log" || true)
	# The WARN's own lines: its header and lockdep's irq trace of it.
	probs=$(grep '^FAIL' <<<"$seg" | grep -v -e 'WARNING: CPU: .* hwt_\(core_exit\|module_notify\)' \
		-e 'hardirqs last' -e 'softirqs last' || true)
	n=$(grep -c '^FAIL.*WARNING: CPU: .* hwt_\(core_exit\|module_notify\)' <<<"$seg" || true)
	# Not grep -q: it would stop reading, and sed's SIGPIPE fails the pipe.
	if ! sed -n "/@@HWT begin stress:$name/,/@@HWT end stress:$name/p" "$log" |
		grep "wheel 'hwts-client'" >/dev/null; then
		echo "FAIL $name: no warning about the wheel the client did not destroy"
		sed 's/^/    /' <<<"$seg"
		failed=$((failed + 1))
	elif [ "$n" != "$want" ]; then
		echo "FAIL $name: $n WARNINGs from hwtimer, expected $want:"
		sed 's/^/    /' <<<"$seg"
		failed=$((failed + 1))
	elif [ -n "$probs" ]; then
		echo "FAIL $name: problems besides the expected warning:"
		sed 's/^/    /' <<<"$probs"
		failed=$((failed + 1))
	else
		echo "$name: ok, exactly $want expected warning(s) for a wheel its client did not destroy"
		passed=$((passed + 1))
	fi
}
expect_warning leak-warn
expect_warning leak-pending
# busybox insmod loads twice when the first load fails (finit_module, then
# init_module): two failed loads, two warnings.
expect_warning leak-init 2

# ---- report ------------------------------------------------------------------

echo "==== stress ($mode) ===="
awk '
	/@@STRESS ledger / {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); k[kv[1]] += kv[2] }
		runs++
	}
	/@@STRESS uledger / {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); u[kv[1]] += kv[2] }
		uruns++
	}
	/@@STRESS faults / {
		for (i = 4; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "points") fp += kv[2]; if (kv[1] == "injected") finj += kv[2] }
		fwhat = fwhat " " $3
	}
	/@@STRESS fuzz / {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "calls") calls += kv[2] }
		fuzzers++
	}
	/@@STRESS hotplug / { split($3, kv, "="); hp += kv[2] }
	/@@STRESS lifecycle / { split($3, kv, "="); lc += kv[2] }
	/@@STRESS step .* begin/ { sub(/t=/, "", $5); b[$3] = $5 }
	/@@STRESS step .* end/ { sub(/t=/, "", $5); d[$3] = $5 - b[$3]; order = order " " $3 }
	/@@STRESS vm_seconds / { vms = $3 }
	END {
		printf "kernel ledger (%d runs): armed %d fired %d cancelled %d replaced %d handed back %d lost %d duplicated %d early %d\n",
			runs, k["armed"], k["fired"], k["cancelled"], k["replaced"], k["handed_back"], k["lost"], k["duplicated"], k["early"]
		printf "user ledger (%d runs): armed %d read %d cancelled %d dropped by close %d lost %d duplicated %d early %d (periodic records %d)\n",
			uruns, u["armed"], u["read"], u["cancelled"], u["dropped"], u["lost"], u["duplicated"], u["early"], u["periodic_reads"]
		printf "fault injection: %d fault points tried, %d faults injected (%s)\n", fp, finj, substr(fwhat, 2)
		printf "fuzzer: %d ioctl/syscalls in %d fuzzers\n", calls, fuzzers
		printf "hotplug: %d offline/online cycles\n", hp
		printf "lifecycle: %d insmod/rmmod cycles\n", lc
		n = split(substr(order, 2), o, " ")
		line = "step seconds:"
		for (i = 1; i <= n; i++) line = line sprintf(" %s %.0f", o[i], d[o[i]])
		print line
		if (vms != "") printf "VM uptime at the end: %.0f s\n", vms
	}
' "$log"
echo "full log: $log"
say "done"
summary
