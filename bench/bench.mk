# SPDX-License-Identifier: GPL-2.0
#
# Benchmark targets, included by the top-level Makefile:
#
#   make bench         boot the bench-kernel VM and run every benchmark
#                      (about 15 minutes); prints the table and the target
#                      lines, writes build/bench/results.{json,csv} and the
#                      table into docs/benchmarks.md
#   make bench-plot    draw build/bench/benchmarks.png from the results with
#                      gnuplot and copy it to docs/benchmarks.png
#   make bench-smoke   the same benchmarks with tiny N on the debug kernel
#                      (1 to 2 minutes): fails on errors, never on targets;
#                      `make check` runs the same in its one boot
#   make bench-user    only build the user-space benchmarks (hwtbench-user,
#                      hwtbench-rt, hwtbench-dev)
#   make bench-ab ALT=REV
#                      the module of this tree against that of git revision
#                      REV in one boot of the bench kernel: the user-space
#                      benchmark AB_RUNS times with each (default 6),
#                      alternating, and per figure each module's median
#                      over its runs (build/bench/ab/ab.txt); AB_UPARAMS
#                      sets hwtbench-user's options
#   make bench-icount  only the kernel benchmarks that make bench also
#                      counts in instructions, and the device's data path
#                      per entry (hwtbench-dev): one boot under QEMU
#                      -icount shift=0, where a guest ns is a guest
#                      instruction (about 2 minutes once the bench kernel
#                      is built; build/bench/icount/report.txt)
#   make bench-trace   what one start, cancel and modify of hwtimer,
#                      timer_list and hrtimer, and an expiration of the
#                      first two, execute, instruction by instruction: a
#                      debugger single-steps the bench VM
#                      (about 3 minutes; TRACE_N timers pending, default
#                      1000; build/bench/trace/report.txt)
#
# KERNEL=6.1 (default), 6.12, 6.12-rt or 7.3 picks the test kernel.
#
# See docs/benchmarks.md and bench/lib.sh.

.PHONY: bench bench-ab bench-icount bench-trace bench-plot bench-smoke bench-user

# The user-space benchmark, static (the VM has no libraries): what
# scripts/runner.sh puts into the guest. It links libhwtimer and liburing
# (liburing-dev's liburing.a: the io_uring column; URING_CFLAGS and
# URING_LIBS say where another architecture's is, scripts/fetch.sh arm64).
BENCH_BIN := $(HWT_OUT)/bench/bin
URING_CFLAGS ?=
URING_LIBS ?= -luring

bench-user: $(BENCH_BIN)/hwtbench-user $(BENCH_BIN)/hwtbench-rt $(BENCH_BIN)/hwtbench-dev

$(BENCH_BIN)/%: bench/%.c bench/uwheel.h bench/bench_random.h bench/bench_report.h $(LIB_A) $(wildcard include/uapi/linux/*.h tools/include/*.h lib/*.h) | $(KSELFTEST_H)
	@mkdir -p $(@D)
	$(USER_CC) $(USER_CFLAGS) $(URING_CFLAGS) $(USER_LDFLAGS) -o $@ $< $(LIB_A) $(URING_LIBS)

bench:
	scripts/runner.sh bench full

bench-smoke:
	scripts/runner.sh bench smoke

bench-icount:
	scripts/runner.sh bench icount

bench-trace:
	scripts/runner.sh bench trace

bench-ab:
	@test -n "$(ALT)" || { echo "bench-ab: say which revision to compare with: ALT=REV" >&2; exit 2; }
	ALT="$(ALT)" scripts/runner.sh bench ab

bench-plot:
	@test -f build/bench/nsop.dat -a -f build/bench/lateness.dat || { echo "bench-plot: no results: run make bench first" >&2; exit 1; }
	@command -v gnuplot >/dev/null || scripts/deps.sh
	gnuplot -e "dir='build/bench'" bench/plot.gp
	cp build/bench/benchmarks.png docs/benchmarks.png
