#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Parse the serial log of the hwtimer test VM (see scripts/guest-init.sh for
# the "@@HWT" markers) and judge one segment of it.
#
#   awk -f parse-log.awk [-v seg=NAME] [-v need_done=1] build/vm.log
#
# seg: "main" (default) is every line outside "@@HWT begin/end" fixture
# segments; any other name selects the lines between "@@HWT begin NAME" and
# "@@HWT end NAME". need_done=1 fails the run when "@@HWT done" is missing.
#
# It counts:
#   - KUnit test cases from the KTAP in the kernel log ("[  1.2]     ok 3
#     name"): a suite's cases are indented one level; deeper levels are the
#     parameters of a parameterised case, which count through their case,
#     but in the suites of check_suites, whose parameterised cases are the
#     checks of a run (stress/hwtimer_stress.c: one parameter per check),
#     where each parameter is one result and its case none (a failing
#     parameter is the failure; a case with no parameters counts nothing);
#     a case skipped as "not selected" (a load of stress/hwtimer_stress.ko
#     runs only the cases its run= parameter names) is not counted at all;
#     a suite that fails before its cases (its suite_init) is one failure;
#   - TAP results of user-space programs, between "@@HWT ut-begin" and
#     "@@HWT ut-end PROG STATUS"; a program that crashes, exits non-zero
#     without a failing result, or prints fewer results than its plan
#     counts as one more failure;
#   - "@@HWT ok/fail" checks of the guest (module load and unload...);
#   - the kernel log itself: any WARNING, BUG, lockdep, KASAN, kmemleak,
#     debugobjects or list corruption report, oops or panic is one failure
#     (and its lines are printed); a clean log is one pass.
#
# Output: "FAIL file:line: text" for each failure, followed by context lines
# ("  | ..."), and last "RESULT <passed> <failed> <skipped>". Exit status 1
# when anything failed. POSIX awk (Debian's default is mawk).

BEGIN {
	if (seg == "")
		seg = "main"
	cur = "main"
	npass = nfail = nskip = 0
	kprob = 0		# kernel log problem lines in the segment
	ctxleft = 0		# context lines still to print after a problem
	ctxbudget = 200		# cap on all context lines printed
	open_suites = 0
	ut = ""			# the user-space program running, if any
	# Suites whose parameters count one by one (see above).
	check_suites = " hwtimer_stress "
	pcase = ""		# their parameterised case running, if any
}

function report(lineno, text) {
	printf "FAIL %s:%d: %s\n", FILENAME, lineno, text
}

function context(text) {
	if (ctxbudget-- > 0)
		printf "  | %s\n", text
}

# Print what the test printed since its previous result, e.g. the KUnit
# "EXPECTATION FAILED" lines, then forget it.
function flush_context(buf_n, buf,   i) {
	for (i = 1; i <= buf_n; i++)
		context(buf[i])
}

# "ok 3 name # SKIP why" -> 1 if it carries a SKIP directive
function is_skip(text) {
	return text ~ /#[ \t]*[Ss][Kk][Ii][Pp]/
}

# A program's results are in; judge the program itself. status is its exit
# status, or "" when it never finished.
function ut_finish(lineno, status,   res, why) {
	res = ut_pass + ut_fail + ut_skip
	why = ""
	if (status == "")
		why = "did not finish (no ut-end marker)"
	# 4 is KSFT_SKIP: every test of the program skipped.
	else if (status != 0 && status != 4 && ut_fail == 0)
		why = "exited with status " status (status + 0 > 128 ? " (killed by signal " status - 128 ")" : "")
	if (ut_plan >= 0 && res < ut_plan)
		why = why (why == "" ? "" : ", ") sprintf("printed %d of %d planned results", res, ut_plan)
	if (ut_plan < 0 && res == 0 && why == "")
		why = "printed no TAP results"
	if (ut_plan == 0 && res == 0 && why == "") {
		nskip++
	} else if (why != "") {
		nfail++
		report(lineno, ut ": " why)
		flush_context(utbuf_n, utbuf)
	}
	ut = ""
}

{
	sub(/\r+$/, "")
	line = $0
}

# Markers may follow stray kernel output on the same line: look anywhere.
(p = index(line, "@@HWT ")) > 0 {
	m = substr(line, p + 6)
	split(m, f, " ")
	if (f[1] == "begin") {
		cur = f[2]
		if (cur == seg)
			seen_begin = 1
		next
	}
	if (f[1] == "end") {
		if (cur == seg)
			seen_end = 1
		cur = "main"
		next
	}
	if (f[1] == "done") {
		seen_done = 1
		next
	}
	if (cur != seg)
		next
	if (f[1] == "ok") {
		npass++
	} else if (f[1] == "fail") {
		nfail++
		report(NR, "guest check failed: " substr(m, 6))
	} else if (f[1] == "ut-begin") {
		if (ut != "")
			ut_finish(NR, "")
		ut = f[2]
		ut_plan = -1
		ut_pass = ut_fail = ut_skip = 0
		utbuf_n = 0
	} else if (f[1] == "ut-end") {
		if (ut != "")
			ut_finish(NR, f[3])
	}
	next
}

cur != seg { next }

{
	# A kernel line starts with its printk time stamp; one can also land in
	# the middle of a user-space line when the console interleaves them.
	kernel = 0
	msg = line
	ktext = ""
	if (match(line, /\[ *[0-9]+\.[0-9]+\] /)) {
		ktext = substr(line, RSTART + RLENGTH)
		if (RSTART == 1) {
			kernel = 1
			msg = ktext
		}
	}
	gsub(/\t/, "    ", msg)	# KTAP nests by four spaces (old KUnit: a tab)
	body = msg
	sub(/^ +/, "", body)
	indent = length(msg) - length(body)
	depth = int(indent / 4)
	tapline = body ~ /^(not )?ok [0-9]+/
}

# The kernel line before this one, as context of a suite failing early.
kernel && !tapline { prev_kline = line }

# Context printing after a kernel problem (the call trace etc.).
ctxleft > 0 {
	context(line)
	if (--ctxleft == 0 || line ~ /---\[ end /)
		ctxleft = 0
}

# The kernel log checks, on kernel lines but their KTAP (test names and
# messages may say anything), and on kmemleak's report, which user space
# prints. Patterns are the headers of the kernel's own reports. What user
# space prints cannot trigger them.
ktext != "" && ktext !~ /^ *(#|(not )?ok [0-9])/ &&
    (ktext ~ /WARNING:|BUG:|BUG [^ ]+ \(|kernel BUG|Kernel panic|Oops|general protection fault|Unable to handle|KASAN:|UBSAN:/ ||
    ktext ~ /possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|INFO: |DEBUG_LOCKS_WARN_ON|locking correctness validator|lockdep is turned off/ ||
    ktext ~ /ODEBUG|list_add corruption|list_del corruption|refcount_t:|soft lockup|hard LOCKUP|detected stall/) ||
    line ~ /^unreferenced object/ {
	kprob++
	if (kprob <= 50)
		report(NR, line)
	if (ctxleft == 0)
		ctxleft = 25
}

# KUnit (KTAP in the kernel log).
kernel && body ~ /^# Subtest: / && depth == 1 {
	open_suites++
	suite = substr(body, 12)
	suite_fail = 0
	kbuf_n = 0
	pcase = ""
	next
}
# A parameterised case of a suite whose parameters count: its header.
kernel && body ~ /^# Subtest: / && depth == 2 && open_suites > 0 &&
    index(check_suites, " " suite " ") > 0 {
	pcase = substr(body, 12)
	pcase_fail = 0
	kbuf_n = 0
	next
}
kernel && tapline && depth == 2 && pcase != "" {
	if (body ~ /^not ok/) {
		nfail++
		suite_fail++
		pcase_fail++
		report(NR, "KUnit " suite ": " pcase ": " body)
		flush_context(kbuf_n, kbuf)
	} else if (is_skip(body)) {
		nskip++
	} else {
		npass++
	}
	kbuf_n = 0
	next
}
# Its case's own result: counted through its parameters, unless it failed
# with none of them failing.
kernel && tapline && depth == 1 && pcase != "" {
	if (body ~ /^not ok/ && pcase_fail == 0) {
		nfail++
		suite_fail++
		report(NR, "KUnit " suite ": " body)
		flush_context(kbuf_n, kbuf)
	}
	pcase = ""
	kbuf_n = 0
	next
}
kernel && tapline && depth == 0 && open_suites > 0 {
	open_suites--
	pcase = ""
	if (body ~ /^not ok/ && suite_fail == 0 && !is_skip(body)) {
		nfail++
		report(NR, "KUnit suite failed outside its cases: " body)
		flush_context(kbuf_n, kbuf)
	}
	kbuf_n = 0
	next
}
# A suite whose suite_init failed prints no subtest header, only its
# result, after KUnit's "# failed to initialize" line.
kernel && tapline && depth == 0 && body ~ /^not ok/ && !is_skip(body) {
	nfail++
	report(NR, "KUnit suite failed before its cases: " body)
	context(prev_kline)
	next
}
kernel && tapline && depth == 1 {
	if (body ~ /^not ok/) {
		nfail++
		suite_fail++
		report(NR, "KUnit " suite ": " body)
		flush_context(kbuf_n, kbuf)
	} else if (is_skip(body)) {
		if (body !~ /#[ \t]*[Ss][Kk][Ii][Pp][ \t]+not selected/)
			nskip++
	} else {
		npass++
	}
	kbuf_n = 0
	next
}
kernel && open_suites > 0 {
	if (kbuf_n < 30)
		kbuf[++kbuf_n] = line
	next
}

# TAP of a user-space program.
!kernel && ut != "" && body ~ /^1\.\.[0-9]+/ {
	ut_plan = substr(body, 4) + 0
	next
}
!kernel && ut != "" && tapline && indent == 0 {
	if (body ~ /^not ok/) {
		nfail++
		ut_fail++
		report(NR, ut ": " body)
		flush_context(utbuf_n, utbuf)
	} else if (is_skip(body)) {
		nskip++
		ut_skip++
	} else {
		npass++
		ut_pass++
	}
	utbuf_n = 0
	next
}
!kernel && ut != "" {
	if (utbuf_n < 30)
		utbuf[++utbuf_n] = line
}

END {
	if (ut != "")
		ut_finish(NR, "")
	if (open_suites > 0) {
		nfail++
		report(NR, "KUnit suite " suite " never finished")
	}
	if (seg != "main" && !seen_begin) {
		nfail++
		report(NR, "segment " seg " is not in the log")
	} else if (seg != "main" && !seen_end) {
		nfail++
		report(NR, "segment " seg " did not finish")
	}
	if (need_done) {
		if (seen_done) {
			npass++
		} else {
			nfail++
			report(NR, "the guest never finished (no \"@@HWT done\": hang, panic or timeout)")
		}
	}
	if (kprob > 0) {
		nfail++
		if (kprob > 50)
			report(NR, "... " kprob - 50 " more kernel log problem lines not shown")
	} else {
		npass++
	}
	printf "RESULT %d %d %d\n", npass, nfail, nskip
	exit nfail > 0
}
