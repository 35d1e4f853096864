# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The host's side of the benchmarks (bench/guest.sh), for bench/bench.sh
# (make bench, bench-smoke) and for the benchmark smoke that
# scripts/runner.sh runs in the boot of `make check`. Sourced after
# scripts/lib.sh, from the top of the tree.
#
#   bench_conf MODE         the guest's settings for full or smoke
#   bench_stage ROOT MODE   hwtbench-user, bench/guest.sh and its settings
#                           into ROOT/hwt/bench (the module comes with
#                           stage_modules)
#   bench_judge LOG OUT     bench/report.pl on the benchmarks' part of LOG:
#                           the table, OUT/results.{json,csv}, the targets;
#                           one check, failed on errors (never on targets)
#
# Environment: BENCH_KPARAMS (hwtbench.ko parameters), BENCH_UPARAMS
# (hwtbench-user options), BENCH_ONLY (the benchmarks to run, default all:
# "calib startcancel startidle expiry tick cycle idle scaling lateness
# slack user").

bench_conf() {
	local mode=$1 kparams uparams only kbench="info memory" b run_user=0
	case "$mode" in
	full)
		kparams="reps=5 sizes=1000,100000,1000000 pairs=50000 expiry_n=1000000 expiry_reps=3 far_n=1000000 window_ms=2000 idle_ms=5000 idle_reps=3 late_n=100000 late_reps=3 late_revs=2 scale_pairs=100000 cycle_tick_ns=20000"
		uparams="-n 100000 -r 3 -s 2000"
		;;
	smoke)
		kparams="reps=2 sizes=100,1000 pairs=2000 expiry_n=2000 expiry_reps=1 far_n=2000 window_ms=200 idle_ms=300 idle_reps=1 late_n=1000 late_reps=1 late_revs=1 scale_pairs=2000 tick_ns=1000000 slots=256 cycle_tick_ns=10000 cycle_slots=16 slack_n=2000 slack_span_ms=2000"
		uparams="-n 1000 -r 1 -s 200"
		;;
	*)
		echo "bench_conf: unknown mode $mode" >&2
		return 1
		;;
	esac
	only=${BENCH_ONLY:-calib startcancel startidle expiry tick cycle idle scaling lateness slack user}
	for b in $only; do
		if [ "$b" = user ]; then
			run_user=1
		else
			kbench="$kbench $b"
		fi
	done
	cat <<-CONF
		KPARAMS="${BENCH_KPARAMS:-$kparams}"
		UPARAMS="${BENCH_UPARAMS:-$uparams}"
		KBENCH="$kbench"
		RUN_USER=$run_user
	CONF
}

# hwtbench-user is built by `make bench-user` (bench/bench.mk).
bench_stage() {
	local root=$1 mode=$2
	mkdir -p "$root/hwt/bench"
	cp build/bench/bin/hwtbench-user bench/guest.sh "$root/hwt/bench/"
	bench_conf "$mode" >"$root/hwt/bench/bench.conf"
}

# The results go to OUT: report.txt (the table and the target lines),
# results.json, results.csv, table.md and the plot's data files.
bench_judge() {
	local log=$1 out=$2 rc=0
	mkdir -p "$out"
	# Only the benchmarks' lines: the boot may run other things that print.
	sed -n '/@@BENCH start/,/@@BENCH stop/p' "$log" >"$out/bench-part.log"
	perl bench/report.pl "$out/bench-part.log" "$out" >"$out/report.txt" || rc=$?
	if [ $rc = 0 ]; then
		echo "bench: report in $out/report.txt, $(tail -n 1 "$out/report.txt")"
		pass
	else
		cat "$out/report.txt"
		fail "bench/report.pl found errors in the benchmarks' results (status $rc, above)"
	fi
}
