# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host's side of the stress steps (stress/guest.sh), sourced by
# scripts/runner.sh after scripts/lib.sh:
#
#   stress_run MODE         `runner.sh stress MODE`: a boot of its own, MODE
#                           full, soak, smoke or kcsan (make stress, soak,
#                           stress-smoke, check-kcsan: see stress/stress.mk)
#   stress_conf MODE        the guest's settings for a mode
#   stress_stage ROOT MODE  the stress programs, stress/guest.sh and its
#                           settings into ROOT/hwt/stress (the modules come
#                           with stage_modules); check stages the smoke
#   stress_judge LOG        the segments that must hold exactly the expected
#                           warning, and the totals of the log's ledgers,
#                           fault points, fuzzer calls and hotplug cycles
#
# stress_run judges the log as check does but for the stress:leak-*
# segments, prints the totals and ends with "N passed, N failed, N
# skipped"; results in build/stress/MODE-KERNEL/.
#
# Environment: KERNEL (6.1, the default, 6.12 or 6.12-rt), STRESS_STEPS
# (only these guest steps, e.g. "kacct faults"; default all), STRESS_CONF
# (shell assignments overriding the guest's settings, e.g.
# 'KACCT="duration_ms=60000"'), STRESS_PATCHES (patch files applied to a
# copy of the sources first, to try a proposed fix), SMP (vCPUs; default 3
# for full, 2 otherwise), MEM (default 1G), VM_TIMEOUT (seconds).

stress_all_steps="kacct drace uacct hotplug faults fuzz security lifecycle leakwarn leakpending leakinit"

stress_conf() {
	local mode=$1 steps=$stress_all_steps
	case "$mode" in
	full)
		printf '%s\n' \
			'KACCT="duration_ms=75000 extra=3 priv=4 shared=32 chaos=32 doomed_ms=300"' \
			'UACCT="-t 75 -p 3 -T 3 -c /sys/fs/cgroup/hwts-user"' \
			'UACCT32="-t 20 -p 2 -T 3 -c /sys/fs/cgroup/hwts-user"' \
			'HOTPLUG_S=60' \
			'KHOTPLUG="extra=0 doomed_ms=500"' \
			'UHOTPLUG="-p 1 -T 2"' \
			'FUZZ_S=40' \
			'LIFECYCLE_N=100' \
			'DRACE_N=600' \
			'FAULT_ARGS=""' \
			'SEC_ARGS="-m"'
		;;
	soak)
		# Until the soak's totals: 10M ledger operations
		# in the kernel and in user space each, 1M fuzzer calls, 50
		# hotplug cycles under load (hotplug first: its two ledgers
		# count towards the 10M).
		steps="hotplug kacct uacct fuzz faults drace security lifecycle leakwarn leakpending leakinit"
		printf '%s\n' \
			'KACCT="duration_ms=60000 extra=1 priv=4 shared=32 chaos=32 doomed_ms=300"' \
			'UACCT="-t 60 -p 2 -T 2 -w 1 -b 64 -c /sys/fs/cgroup/hwts-user"' \
			'UACCT32="-t 30 -p 2 -T 2 -w 1 -b 64 -c /sys/fs/cgroup/hwts-user"' \
			'HOTPLUG_S=40' \
			'KHOTPLUG="extra=0 doomed_ms=500"' \
			'UHOTPLUG="-p 1 -T 2 -w 1 -b 64"' \
			'FUZZ_S=60' \
			'LIFECYCLE_N=20' \
			'DRACE_N=600' \
			'FAULT_ARGS="-q"' \
			'SEC_ARGS=""' \
			"KACCT_MIN=${SOAK_KERNEL_OPS:-10000000}" \
			"UACCT_MIN=${SOAK_USER_OPS:-10000000}" \
			"FUZZ_MIN=${SOAK_FUZZ_CALLS:-1000000}" \
			"HOTPLUG_MIN=${SOAK_HOTPLUG:-50}"
		;;
	smoke | kcsan)
		[ "$mode" = kcsan ] && steps="kunit $steps"
		printf '%s\n' \
			'KACCT="duration_ms=4000 extra=1 doomed_ms=250"' \
			'UACCT="-t 4 -p 2 -T 2 -c /sys/fs/cgroup/hwts-user"' \
			'UACCT32="-t 2 -p 2 -T 2 -c /sys/fs/cgroup/hwts-user"' \
			'HOTPLUG_S=6' \
			'KHOTPLUG="extra=0 doomed_ms=400"' \
			'UHOTPLUG="-p 1 -T 2"' \
			'FUZZ_S=4' \
			'LIFECYCLE_N=5' \
			'DRACE_N=250' \
			'FAULT_ARGS="-q"' \
			'SEC_ARGS=""'
		;;
	*)
		echo "stress_conf: unknown mode $mode" >&2
		return 1
		;;
	esac
	echo "STEPS=\"${STRESS_STEPS:-$steps}\""
	if [ -n "${STRESS_CONF:-}" ]; then
		echo "$STRESS_CONF"
	fi
}

# The programs of `make stress-user` (stress/stress.mk); the device's own
# smoke and ioctl tests (build/ut/) run after the fuzzer as its sanity check.
# From uout (scripts/lib.sh, user_out: the kernel's architecture's).
# shellcheck disable=SC2154 # uout: scripts/lib.sh
stress_stage() {
	local root=$1 mode=$2 t
	mkdir -p "$root/hwt/stress/bin"
	cp "$uout"/stress/bin/* "$root/hwt/stress/bin/"
	for t in dev_smoke_test dev_ioctl_test; do
		[ -f "$uout/ut/$t" ] && cp "$uout/ut/$t" "$root/hwt/stress/bin/"
	done
	cp stress/guest.sh "$root/hwt/stress/guest.sh"
	stress_conf "$mode" >"$root/hwt/stress/stress.conf"
}

# A segment must fail the parser on WANT WARNINGs from hwtimer (at the
# client's unload or its own) naming the forgotten wheel, and on nothing
# else but lockdep's irq trace of them. A WARNING's first line names the
# function after "at FILE:LINE" (up to 6.18) or after "FILE:LINE at".
stress_expect_warning() {
	local log=$1 name=$2 want=${3:-1} seg probs n warn='WARNING: .* hwt_\(core_exit\|module_notify\)'
	grep -q "@@HWT begin stress:$name" "$log" || return 0
	seg=$(parse "$log" "stress:$name" || true)
	probs=$(grep '^FAIL' <<<"$seg" | grep -v -e "$warn" -e 'hardirqs last' -e 'softirqs last' || true)
	n=$(grep -c "^FAIL.*$warn" <<<"$seg" || true)
	# Not grep -q: it would stop reading, and sed's SIGPIPE fails the pipe.
	if ! sed -n "/@@HWT begin stress:$name/,/@@HWT end stress:$name/p" "$log" |
		grep "wheel 'hwts-client'" >/dev/null; then
		fail "$name: no warning about the wheel the client did not destroy"
		indent <<<"$seg"
	elif [ "$n" != "$want" ]; then
		fail "$name: $n WARNINGs from hwtimer, expected $want:"
		indent <<<"$seg"
	elif [ -n "$probs" ]; then
		fail "$name: problems besides the expected warning:"
		indent <<<"$probs"
	else
		echo "$name: ok, exactly $want expected warning(s) for a wheel its client did not destroy"
		pass
	fi
}

stress_judge() {
	stress_expect_warning "$1" leak-warn
	stress_expect_warning "$1" leak-pending
	# busybox insmod loads twice when the first load fails (finit_module,
	# then init_module): two failed loads, two warnings.
	stress_expect_warning "$1" leak-init 2
	echo "==== stress ===="
	# The ledgers' own account of a loss or a duplicate (the entry, its
	# state and id), for the summary's list of failures.
	grep -a -E '^# (lost|record of a resolved timeout|cancelled a timeout already resolved|armed entry resolved oddly|record of a failed arm|overdue|record with a bad cookie|early record)' "$1" |
		head -n 6 | sed 's/^# /NOTE ledger: /' || true
	awk '
		function add(sum,   i, kv) { for (i = 3; i <= NF; i++) { split($i, kv, "="); sum[kv[1]] += kv[2] } }
		/@@STRESS ledger / { add(k); runs++ }
		/@@STRESS uledger / { add(u); uruns++ }
		/@@STRESS faults / { add(f); fwhat = fwhat " " $3 }
		/@@STRESS fuzz / { add(z); fuzzers++ }
		/@@STRESS hotplug / { add(h) }
		/@@STRESS lifecycle / { add(l) }
		/@@STRESS step .* begin/ { sub(/t=/, "", $5); b[$3] = $5 }
		/@@STRESS step .* end/ { sub(/t=/, "", $5); d[$3] = $5 - b[$3]; order = order " " $3 }
		/@@STRESS vm_seconds / { vms = $3 }
		END {
			printf "kernel ledger (%d runs): %d operations; armed %d fired %d cancelled %d replaced %d handed back %d lost %d duplicated %d early %d\n",
				runs, k["ops"], k["armed"], k["fired"], k["cancelled"], k["replaced"], k["handed_back"], k["lost"], k["duplicated"], k["early"]
			printf "user ledger (%d runs): %d operations; armed %d read %d cancelled %d dropped by close %d lost %d duplicated %d early %d (periodic records %d)\n",
				uruns, u["ops"], u["armed"], u["read"], u["cancelled"], u["dropped"], u["lost"], u["duplicated"], u["early"], u["periodic_reads"]
			printf "fault injection: %d fault points tried, %d faults injected (%s)\n", f["points"], f["injected"], substr(fwhat, 2)
			printf "fuzzer: %d ioctl/syscalls in %d fuzzers\n", z["calls"], fuzzers
			printf "hotplug: %d offline/online cycles\n", h["cycles"]
			printf "lifecycle: %d insmod/rmmod cycles\n", l["cycles"]
			n = split(substr(order, 2), o, " ")
			line = "step seconds:"
			for (i = 1; i <= n; i++) line = line sprintf(" %s %.0f", o[i], d[o[i]])
			print line
			if (vms != "") printf "VM uptime after the steps: %.0f s\n", vms
		}
	' "$1"
}

# shellcheck disable=SC2154 # top, kernel, kdir, root: runner.sh, own_boot
stress_run() {
	# kunit/: hwtimer_stress is a KUnit suite (kunit/hwtimer_kunit_compat.h);
	# its own suites run only in the kcsan mode's step "kunit".
	local smode=${1:-smoke} flavour=debug smp=2 timeout=600 dirs=(stress kunit) judged_log
	case "$smode" in
	full) smp=3 timeout=1500 ;;
	soak) timeout=3600 ;;
	smoke) ;;
	kcsan) flavour=kcsan ;;
	*)
		echo "usage: runner.sh stress full|soak|smoke|kcsan" >&2
		exit 2
		;;
	esac
	out=$top/build/stress/$smode-$kernel
	vm=$out/vm
	log=$out/stress.log
	mkdir -p "$vm"
	PATCHES=${STRESS_PATCHES:-} own_boot "$flavour" stress-user "${dirs[@]}"
	stress_stage "$root" "$smode"
	# slub_nomerge: the device's timeout cache keeps its own slab statistics.
	# Progress: steps, failures, the summary lines.
	APPEND="slub_nomerge ${APPEND:-}" SMP=${SMP:-$smp} UT_TIMEOUT=900 \
		VM_TIMEOUT=${VM_TIMEOUT:-$timeout} PROGRESS='@@STRESS step|@@HWT (fail|done)|^not ok|BUG:|WARNING:' \
		boot_vm "$kdir" "$root" stress "$log"
	check_boot "$log" "$kernel"

	# KCSAN reports count only when they involve hwtimer code: data races
	# among the core kernel's own functions are listed, not failed.
	judged_log=$log
	if [ "$smode" = kcsan ]; then
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
			sed 's/\[ *[0-9.]*\] //' "$out/kcsan-foreign.txt" | sort | uniq -c | indent
		fi
	fi
	judge "$judged_log" main 1 || true
	stress_judge "$log"
	echo "full log: $log"
	say "done"
	summary
}
