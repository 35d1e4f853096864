// SPDX-License-Identifier: GPL-2.0
/*
 * CLOCK_BOOTTIME files across a real suspend (hwtimer(4), HWTIMER_IOC_CONFIG):
 * arm a timeout on a CLOCK_BOOTTIME file and one on a CLOCK_MONOTONIC file,
 * suspend to idle (s2idle: "freeze" in /sys/power/state) with the RTC's
 * wakealarm set to wake the system a few seconds later, and check that the
 * BOOTTIME timeout counted the suspended time and the MONOTONIC one did not.
 *
 * It suspends to RAM (S3, "deep" in /sys/power/mem_sleep) where it can,
 * else to idle (s2idle, "freeze"), and wakes by the RTC's wakealarm. QEMU
 * offers S3 and wakes a suspended VM at the RTC alarm. It cannot wake a
 * guest from s2idle: with ACPI, rtc-cmos wakes from s2idle only through
 * the ACPI RTC fixed event (cmos_wake_setup() sets rtc_wake_on(), which
 * enables ACPI_EVENT_RTC instead of making IRQ 8 a wakeup interrupt), and
 * QEMU raises that event only when it wakes a VM it holds suspended
 * (qemu_system_wakeup_request() returns at once for a running VM), which
 * s2idle is not: the guest would sleep until killed. So under a
 * hypervisor without S3 the test SKIPs instead.
 *
 * Needs root, an RTC with a wakealarm and S3 or s2idle; SKIPs, saying
 * which is missing, without them, and when HWT_NO_SUSPEND is set in its
 * environment (the runner's hwt.nosuspend=1, for a test kernel whose
 * resume stalls under TCG). The VM runs it as root.
 */
#include "kselftest_harness.h"
#include "hwtimer_test.h"

#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME 7
#endif

#define WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"
#define POWER_STATE	"/sys/power/state"

/* Seconds the RTC lets the system sleep, and the timeouts' delay. */
#define SLEEP_S		4
#define DELAY_NS	(12 * SEC)

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* Whether the first 64 KiB of @path contain @word. */
static bool file_has(const char *path, const char *word)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return false;
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return strstr(buf, word) != NULL;
}

/*
 * The harness's 30 s default is too short: on the 6.12-rt VM, bringing the
 * second vCPU back after S3 has taken from 25 to 72 s.
 */
TEST_F_TIMEOUT(hwt, boottime_counts_suspend, 600)
{
	struct hwtimer_arm_entry ab, am;
	struct hwtimer_get_entry gm, gb;
	uint64_t m0, b0, m1, b1, mg0, mg1, mfire, bfire;
	int64_t slept;
	struct hwtimer_expiry r;
	char alarm[32];
	int fb, fm, ret;
	bool deep;

	if (getuid())
		SKIP(return, "not root: cannot suspend");
	if (getenv("HWT_NO_SUSPEND"))
		SKIP(return, "HWT_NO_SUSPEND is set: the runner does not suspend this test kernel (its resume under TCG can stall for minutes; see scripts/runner.sh)");
	fb = ht_open(0);
	if (fb < 0)
		SKIP(return, "%s: %s (hwtimer.ko not loaded)", HWT_DEV, strerror(errno));
	if (access(WAKEALARM, W_OK))
		SKIP(return, "%s: %s: no RTC to wake the system", WAKEALARM, strerror(errno));
	deep = file_has(POWER_STATE, "mem") && file_has("/sys/power/mem_sleep", "deep");
	if (!deep && !file_has(POWER_STATE, "freeze"))
		SKIP(return, "%s offers neither S3 nor s2idle", POWER_STATE);
	if (!deep && file_has("/proc/cpuinfo", " hypervisor"))
		SKIP(return, "no S3, and a VM cannot wake from s2idle: QEMU raises the ACPI RTC event only for a VM it holds suspended (see the top of %s)",
		     __FILE__);
	fm = ht_open(0);
	ASSERT_LE(0, fm);
	ret = ht_config(fb, CLOCK_BOOTTIME, HWTIMER_PRECISION_DEFAULT);
	ASSERT_EQ(0, ret) TH_LOG("HWTIMER_IOC_CONFIG CLOCK_BOOTTIME: %s", strerror(-ret));

	ht_arm_entry(&ab, 1, DELAY_NS, 0, 0);
	ht_arm_entry(&am, 2, DELAY_NS, 0, 0);
	m0 = clock_ns(CLOCK_MONOTONIC);
	b0 = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(0, ht_batch(fb, HWTIMER_IOC_ARM, &ab, 1, 0, NULL, NULL));
	ASSERT_EQ(0, ht_batch(fm, HWTIMER_IOC_ARM, &am, 1, 0, NULL, NULL));

	/* Suspend to idle until the RTC wakes us SLEEP_S seconds from now. */
	ASSERT_EQ(0, write_file(WAKEALARM, "0"));
	snprintf(alarm, sizeof(alarm), "+%d", SLEEP_S);
	ASSERT_EQ(0, write_file(WAKEALARM, alarm));
	if (deep) {
		ret = write_file("/sys/power/mem_sleep", "deep");
		if (!ret)
			ret = write_file(POWER_STATE, "mem");
	} else {
		ret = write_file(POWER_STATE, "freeze");
	}
	m1 = clock_ns(CLOCK_MONOTONIC);
	b1 = clock_ns(CLOCK_BOOTTIME);
	write_file(WAKEALARM, "0");
	if (ret)
		SKIP(return, "suspend (%s) failed: %s", deep ? "mem" : "freeze", strerror(-ret));
	/*
	 * CLOCK_BOOTTIME - CLOCK_MONOTONIC grows by the time spent suspended.
	 * Signed: with no suspend, the gaps between the two clocks' reads may
	 * make it a few ns negative, which must read as "not suspended".
	 */
	slept = (int64_t)((b1 - b0) - (m1 - m0));
	TH_LOG("suspend: monotonic +%.3f s, boottime +%.3f s: %.3f s suspended",
	       (m1 - m0) / 1e9, (b1 - b0) / 1e9, slept / 1e9);
	if (slept < (int64_t)SEC)
		SKIP(return, "the system did not stay suspended (%.3f s counted as suspended; wanted ~%d s)",
		     slept / 1e9, SLEEP_S);
	/*
	 * Suspend and resume must leave the timeouts pending: under TCG,
	 * bringing the second vCPU back has taken 18 to 630 s on 6.12-rt,
	 * and once 23 s on 6.1. The test's time limit (600 s) is long
	 * enough for such a resume to end here, in a skip, not in a kill.
	 */
	if (m1 - m0 > DELAY_NS - 2 * SEC)
		SKIP(return, "suspend and resume took %.3f s of CLOCK_MONOTONIC (a stalled vCPU?): too long to tell the clocks apart with %llu s timeouts",
		     (m1 - m0) / 1e9, DELAY_NS / SEC);

	/*
	 * The MONOTONIC timeout did not count the suspended time: looked at
	 * before its deadline by that clock, it is pending, with what is left
	 * of it by that clock (between the clock reads around the call), not
	 * less by the time suspended. (A host that held the test past the
	 * deadline since the skip above leaves nothing to tell.)
	 */
	mg0 = clock_ns(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ht_get(fm, am.id, &gm));
	mg1 = clock_ns(CLOCK_MONOTONIC);
	if (mg1 < am.deadline_ns) {
		ASSERT_EQ(HWTIMER_STATUS_PENDING, gm.status)
			TH_LOG("the CLOCK_MONOTONIC timeout expired during or right after the suspend: it counted the suspended time");
		ASSERT_LE(am.deadline_ns - mg1, gm.remaining_ns)
			TH_LOG("CLOCK_MONOTONIC timeout: %.3f s left, but its deadline is %.3f s away: its remaining time shrank by the suspended span",
			       gm.remaining_ns / 1e9, (am.deadline_ns - mg1) / 1e9);
		ASSERT_GE(am.deadline_ns - mg0, gm.remaining_ns);
	}

	/* The BOOTTIME one did: it fires DELAY_NS of boottime after the arm. */
	ret = ht_get(fb, ab.id, &gb);
	ASSERT_EQ(0, ret);
	if (gb.status == HWTIMER_STATUS_PENDING)
		ASSERT_GT(DELAY_NS - slept + SEC / 2, gb.remaining_ns)
			TH_LOG("CLOCK_BOOTTIME timeout: %.3f s left after %.3f s suspended: the suspended time did not count",
			       gb.remaining_ns / 1e9, slept / 1e9);
	ASSERT_NE(0, ht_wait(fb, 3 * DELAY_NS / 1000000))
		TH_LOG("the CLOCK_BOOTTIME timeout never fired");
	ASSERT_EQ(1, ht_read(fb, &r, 1));
	mfire = clock_ns(CLOCK_MONOTONIC);
	bfire = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(ab.id, r.id);
	ASSERT_LE(ab.deadline_ns, r.expired_ns)
		TH_LOG("CLOCK_BOOTTIME timeout fired early");
	ASSERT_LE(ab.deadline_ns, bfire);
	/*
	 * It expired (the record's time, boottime since the resume minus
	 * monotonic) before the monotonic clock reached its arm plus the
	 * delay, as it would have if the suspended time did not count: the
	 * margin is the time suspended, not how late the test read it.
	 */
	ASSERT_GT(m0 + DELAY_NS, r.expired_ns - (b1 - m1))
		TH_LOG("CLOCK_BOOTTIME timeout expired %.3f s of monotonic time after its arm, as if the %.3f s suspended did not count",
		       (r.expired_ns - (b1 - m1) - m0) / 1e9, slept / 1e9);
	TH_LOG("CLOCK_BOOTTIME timeout fired after %.3f s monotonic, %.3f s boottime",
	       (mfire - m0) / 1e9, (bfire - b0) / 1e9);

	/*
	 * And the MONOTONIC one fires at its monotonic deadline, not before:
	 * pending when looked at before that.
	 */
	ASSERT_EQ(0, ht_get(fm, am.id, &gm));
	mg1 = clock_ns(CLOCK_MONOTONIC);
	if (mg1 < am.deadline_ns)
		ASSERT_EQ(HWTIMER_STATUS_PENDING, gm.status)
			TH_LOG("the CLOCK_MONOTONIC timeout expired with the BOOTTIME one: it counted the suspended time");
	ASSERT_NE(0, ht_wait(fm, 3 * DELAY_NS / 1000000));
	ASSERT_EQ(1, ht_read(fm, &r, 1));
	ASSERT_LE(am.deadline_ns, clock_ns(CLOCK_MONOTONIC));
	ASSERT_LE(am.deadline_ns, r.expired_ns);
	close(fb);
	close(fm);
}

TEST_HARNESS_MAIN
