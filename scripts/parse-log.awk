#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
#
# Judge one segment of the hwtimer test VM's serial log (the "@@HWT"
# markers are described in scripts/guest-init.sh).
#
#   awk -f parse-log.awk [-v seg=NAME] [-v need_done=1] build/vm-6.1/vm.log
#
# seg: "main" (default) is every line outside the "@@HWT begin/end"
# segments, another NAME the lines between "@@HWT begin NAME" and "@@HWT end
# NAME". need_done=1 fails a log without "@@HWT done". Counted:
#   - KUnit cases (a suite's KTAP results one level in); a parameter counts
#     through its case, but in check_suites (stress/hwtimer_stress.c: one
#     parameter per check), where it counts and its case does not; a case
#     skipped "not selected" (hwtimer_stress.ko runs only its run= case)
#     does not count; a suite failing before its cases is one failure;
#   - user-space TAP between "@@HWT ut-begin" and "@@HWT ut-end PROG
#     STATUS"; a program that crashes, exits non-zero without a failing
#     result, or prints fewer results than its plan is one more failure;
#   - the guest's "@@HWT ok/fail" checks;
#   - kernel reports (WARNING, BUG, lockdep, KASAN, kmemleak, debugobjects,
#     list corruption, oops, panic...): one failure in all, their lines
#     printed; a clean log is one pass.
# Output: "FAIL file:line: text" per failure with context lines ("  | ..."),
# last "RESULT <passed> <failed> <skipped>"; exit status 1 if anything
# failed. POSIX awk (Debian's default is mawk).

BEGIN {
	if (seg == "")
		seg = "main"
	cur = "main"
	npass = nfail = nskip = kprob = ctxleft = open_suites = 0
	ctxbudget = 200		# cap on all context lines printed
	ut = ""			# the user-space program running
	check_suites = " hwtimer_stress "
	pcase = ""		# a check suite's parameterised case running
}

function report(lineno, text) { printf "FAIL %s:%d: %s\n", FILENAME, lineno, text }
function bad(text) { nfail++; report(NR, text) }
function context(text) { if (ctxbudget-- > 0) printf "  | %s\n", text }
function flush_context(buf_n, buf,   i) { for (i = 1; i <= buf_n; i++) context(buf[i]) }
function is_skip(text) { return text ~ /#[ \t]*[Ss][Kk][Ii][Pp]/ }
# A passed or skipped TAP result.
function tally(text) { if (is_skip(text)) nskip++; else npass++ }

# A failed KUnit result, with what the test printed since the last one
# (the "EXPECTATION FAILED" lines).
function kfail(text) {
	suite_fail++
	bad(text)
	flush_context(kbuf_n, kbuf)
}

# Judge the program itself once its results are in; status "": it never
# finished.
function ut_finish(status,   why) {
	why = ""
	if (status == "")
		why = "did not finish (no ut-end marker)"
	else if (status != 0 && status != 4 && ut_fail == 0)	# 4: KSFT_SKIP
		why = "exited with status " status (status + 0 > 128 ? " (killed by signal " status - 128 ")" : "")
	if (ut_plan >= 0 && ut_n < ut_plan)
		why = why (why == "" ? "" : ", ") sprintf("printed %d of %d planned results", ut_n, ut_plan)
	if (ut_plan < 0 && ut_n == 0 && why == "")
		why = "printed no TAP results"
	if (ut_plan == 0 && ut_n == 0 && why == "") {
		nskip++
	} else if (why != "") {
		bad(ut ": " why)
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
	} else if (f[1] == "end") {
		if (cur == seg)
			seen_end = 1
		cur = "main"
	} else if (f[1] == "done") {
		seen_done = 1
	} else if (cur != seg) {
	} else if (f[1] == "ok") {
		npass++
	} else if (f[1] == "fail") {
		bad("guest check failed: " substr(m, 6))
	} else if (f[1] == "ut-begin") {
		if (ut != "")
			ut_finish("")
		ut = f[2]
		ut_plan = -1
		ut_n = ut_fail = utbuf_n = 0
	} else if (f[1] == "ut-end" && ut != "") {
		ut_finish(f[3])
	}
	# Kernel output the console glued to the marker, before or after it
	# ("@@HWT ok insmod x.ko[  1.2] WARNING: ..."): judged below.
	if (match(substr(line, 1, p - 1), /\[ *[0-9]+\.[0-9]+\] /))
		line = substr(line, RSTART, p - RSTART)
	else if (match(m, /\[ *[0-9]+\.[0-9]+\] /))
		line = substr(m, RSTART)
	else
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

# Context after a kernel problem (the call trace...).
ctxleft > 0 {
	context(line)
	if (--ctxleft == 0 || line ~ /---\[ end /)
		ctxleft = 0
}

# Kernel reports: the headers of the kernel's own, on kernel lines but
# their KTAP (test names and messages may say anything), and kmemleak's
# report, which user space prints.
ktext != "" && ktext !~ /^ *(#|(not )?ok [0-9])/ &&
    (ktext ~ /WARNING:|BUG:|BUG [^ ]+ \(|kernel BUG|Kernel panic|Oops|general protection fault|Unable to handle|KASAN:|UBSAN:/ ||
    ktext ~ /possible recursive locking|possible circular locking|inconsistent lock state|suspicious RCU usage|INFO: |DEBUG_LOCKS_WARN_ON|locking correctness validator|lockdep is turned off/ ||
    ktext ~ /ODEBUG|list_add corruption|list_del corruption|refcount_t:|soft lockup|hard LOCKUP|detected stall/) ||
    line ~ /^unreferenced object/ {
	if (++kprob <= 50)
		report(NR, line)
	if (ctxleft == 0)
		ctxleft = 25
}

# KUnit.
kernel && body ~ /^# Subtest: / && depth == 1 {
	open_suites++
	suite = substr(body, 12)
	suite_fail = kbuf_n = 0
	pcase = ""
	next
}
kernel && body ~ /^# Subtest: / && depth == 2 && open_suites > 0 &&
    index(check_suites, " " suite " ") > 0 {
	pcase = substr(body, 12)
	pcase_fail = kbuf_n = 0
	next
}
# The check case's own result: only a failure none of its parameters had.
kernel && tapline && depth == 1 && pcase != "" {
	if (body ~ /^not ok/ && pcase_fail == 0)
		kfail("KUnit " suite ": " body)
	pcase = ""
	kbuf_n = 0
	next
}
kernel && tapline && depth == 0 && open_suites > 0 {
	open_suites--
	pcase = ""
	if (body ~ /^not ok/ && suite_fail == 0 && !is_skip(body))
		kfail("KUnit suite failed outside its cases: " body)
	kbuf_n = 0
	next
}
# A suite whose suite_init failed prints no subtest header, only its
# result, after KUnit's "# failed to initialize" line.
kernel && tapline && depth == 0 && body ~ /^not ok/ && !is_skip(body) {
	bad("KUnit suite failed before its cases: " body)
	context(prev_kline)
	next
}
# A case's result, or a check suite's parameter's.
kernel && tapline && (depth == 1 || depth == 2 && pcase != "") {
	if (body ~ /^not ok/ && depth == 2) {
		pcase_fail++
		kfail("KUnit " suite ": " pcase ": " body)
	} else if (body ~ /^not ok/) {
		kfail("KUnit " suite ": " body)
	} else if (depth == 2 || body !~ /#[ \t]*[Ss][Kk][Ii][Pp][ \t]+not selected/) {
		tally(body)
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
	ut_n++
	if (body ~ /^not ok/) {
		ut_fail++
		bad(ut ": " body)
		flush_context(utbuf_n, utbuf)
	} else {
		tally(body)
	}
	utbuf_n = 0
	next
}
!kernel && ut != "" && utbuf_n < 30 { utbuf[++utbuf_n] = line }

END {
	if (ut != "")
		ut_finish("")
	if (open_suites > 0)
		bad("KUnit suite " suite " never finished")
	if (seg != "main" && !seen_begin)
		bad("segment " seg " is not in the log")
	else if (seg != "main" && !seen_end)
		bad("segment " seg " did not finish")
	if (need_done && seen_done)
		npass++
	else if (need_done)
		bad("the guest never finished (no \"@@HWT done\": hang, panic or timeout)")
	if (kprob > 0)
		nfail++
	else
		npass++
	if (kprob > 50)
		report(NR, "... " kprob - 50 " more kernel log problem lines not shown")
	printf "RESULT %d %d %d\n", npass, nfail, nskip
	exit nfail > 0
}
