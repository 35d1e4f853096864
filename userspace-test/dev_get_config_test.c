// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer's queries and options: HWTIMER_IOC_GET on every state of a
 * timeout, HWTIMER_IOC_CONFIG (precision and clock of a file, and what
 * INFO reports), and the slack of an arm entry (hwtimer(4)). Built 64-bit
 * and -m32 like every test.
 */
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME 7
#endif
#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A new file: default precision, CLOCK_MONOTONIC; INFO and fdinfo agree. */
TEST_F(hwt, info_default_config)
{
	HWT_NEED_DEV();
	ASSERT_TRUE(self->info.features & HWTIMER_FEAT_GET);
	ASSERT_TRUE(self->info.features & HWTIMER_FEAT_CONFIG);
	ASSERT_TRUE(self->info.features & HWTIMER_FEAT_SLACK);
	ASSERT_EQ(HWTIMER_PRECISION_DEFAULT, self->info.precision);
	ASSERT_EQ(CLOCK_MONOTONIC, self->info.clockid);
	ASSERT_EQ(0, self->info.reserved);
	ASSERT_EQ(CLOCK_MONOTONIC, ht_fdinfo(self->fd, "clockid"));
	ASSERT_EQ(0, ht_fdinfo(self->fd, "precision"));
}

/* GET of a pending one-shot timeout. */
TEST_F(hwt, get_pending)
{
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;
	uint64_t t0, t1;

	HWT_NEED_DEV();
	ht_arm_entry(&a, 0x77, HWT_FAR_NS, 0, 0);
	a.slack_ns = 3 * MS;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	t0 = now_ns();
	ASSERT_EQ(0, ht_get(self->fd, a.id, &g));
	t1 = now_ns();
	ASSERT_EQ(0, g.result);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g.status);
	ASSERT_EQ(0x77, g.cookie);
	ASSERT_EQ(a.deadline_ns, g.deadline_ns);
	ASSERT_EQ(0, g.period_ns);
	ASSERT_EQ(0, g.overrun);
	ASSERT_EQ(3 * MS, g.slack_ns);
	/* deadline - now, now taken during the call. */
	ASSERT_GE(a.deadline_ns - t0, g.remaining_ns);
	ASSERT_LE(a.deadline_ns - t1, g.remaining_ns);
	ASSERT_EQ(0, g.reserved);
	ASSERT_EQ(0, g.reserved2);
	/* A query changes nothing: the timeout is still there. */
	ASSERT_EQ(0, ht_get(self->fd, a.id, &g));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g.status);
	ASSERT_EQ(0, ht_cancel(self->fd, a.id, NULL));
}

/* GET of an expired one whose record is queued; then read, then ENOENT. */
TEST_F(hwt, get_expired_queued)
{
	struct hwtimer_get_entry g;
	struct hwtimer_expiry r;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 5, 1 * MS, 0, 0, &id));
	ASSERT_EQ(POLLIN | POLLRDNORM, ht_wait(self->fd, HWT_WAIT_MS));
	ASSERT_EQ(0, ht_get(self->fd, id, &g));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, g.status);
	ASSERT_EQ(5, g.cookie);
	ASSERT_EQ(0, g.remaining_ns);
	ASSERT_EQ(0, g.overrun);
	ASSERT_EQ(0, g.period_ns);
	ASSERT_EQ(1, ht_read(self->fd, &r, 1));
	ASSERT_EQ(r.deadline_ns, g.deadline_ns);
	/* Read: dead, as for CANCEL; the outputs are zero. */
	ASSERT_EQ(-ENOENT, ht_get(self->fd, id, &g));
	ASSERT_EQ(0, g.status);
	ASSERT_EQ(0, g.cookie);
	ASSERT_EQ(0, g.deadline_ns);
	ASSERT_EQ(0, g.remaining_ns);
	ASSERT_EQ(0, g.slack_ns);
}

/* GET of a periodic timeout: pending, then queued with overruns. */
TEST_F(hwt, get_periodic)
{
	uint64_t period = 10 * MS, first, id;
	struct hwtimer_get_entry g;
	struct hwtimer_expiry r;

	HWT_NEED_DEV();
	if (period < self->info.tick_ns)
		period = self->info.tick_ns;
	/*
	 * The first deadline far away, so that the GET right after the arm
	 * sees it pending however long the host holds the test (on 6.12-rt
	 * under TCG, a loaded host once held it for more than a 10 ms period
	 * between the two calls; 500 ms would not always do either).
	 */
	first = HWT_FAR_NS;
	ASSERT_EQ(0, ht_arm(self->fd, 6, first, period, 0, &id));
	ASSERT_EQ(0, ht_get(self->fd, id, &g));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g.status);
	ASSERT_EQ(period, g.period_ns);
	ASSERT_GE(first, g.remaining_ns);
	ASSERT_LT(0, g.remaining_ns);
	/*
	 * Then due in a period, and left unread for several after it: its
	 * record is queued once the host lets the expiry run.
	 */
	ASSERT_EQ(0, ht_modify(self->fd, id, period, period, 0, NULL));
	sleep_ns(6 * period);
	ASSERT_NE(0, ht_wait(self->fd, HWT_WAIT_MS));
	ASSERT_EQ(0, ht_get(self->fd, id, &g));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, g.status);
	ASSERT_EQ(0, g.remaining_ns);
	ASSERT_LE(1, g.overrun);
	ASSERT_EQ(1, ht_read(self->fd, &r, 1));
	ASSERT_EQ(g.deadline_ns, r.deadline_ns);
	/* The read counts at least as many overruns as GET saw before it. */
	ASSERT_LE(g.overrun, r.overrun);
	ASSERT_EQ(HWTIMER_EXPIRY_REARMED, r.flags);
	/*
	 * Re-armed for the first period after the read. Pending, unless
	 * the test was held off the CPU for a period meanwhile (it was, for
	 * over 10 ms, once on 6.12-rt under TCG): then that period expired,
	 * and GET shows it, with the same deadline, as expired.
	 */
	ASSERT_EQ(0, ht_get(self->fd, id, &g));
	ASSERT_TRUE(g.status == HWTIMER_STATUS_PENDING || g.status == HWTIMER_STATUS_EXPIRED)
		TH_LOG("status %u after the read", g.status);
	ASSERT_EQ(r.deadline_ns + (r.overrun + 1) * period, g.deadline_ns)
		TH_LOG("status %u: not the first period after the read", g.status);
}

/* Unknown, cancelled, zero ids; flags and reserved fields. */
TEST_F(hwt, get_errors)
{
	struct hwtimer_get_entry g[4];
	uint32_t done, failed;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(-ENOENT, ht_get(self->fd, 0, &g[0]));
	ASSERT_EQ(-ENOENT, ht_get(self->fd, 12345, &g[0]));
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, 0, 0, &id));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
	ASSERT_EQ(-ENOENT, ht_get(self->fd, id, &g[0]));

	ASSERT_EQ(0, ht_arm(self->fd, 1, HWT_FAR_NS, 0, 0, &id));
	memset(g, 0, sizeof(g));
	g[0].id = g[1].id = g[2].id = g[3].id = id;
	g[1].flags = 1;
	g[2].reserved = 1;
	g[3].reserved2 = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_GET, g, 4, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(1, failed);
	ASSERT_EQ(0, g[0].result);
	ASSERT_EQ(-EINVAL, g[1].result);
	ASSERT_EQ(0, g[1].status);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_GET, g, 4, HWTIMER_BATCH_CONTINUE,
			      &done, &failed));
	ASSERT_EQ(4, done);
	ASSERT_EQ(3, failed);
	ASSERT_EQ(-EINVAL, g[2].result);
	ASSERT_EQ(-EINVAL, g[3].result);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g[0].status);
	/* Header errors as for the other batches. */
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_GET, g, 0, 0, NULL, NULL));
	ASSERT_EQ(-E2BIG, ht_batch(self->fd, HWTIMER_IOC_GET, g, HWTIMER_BATCH_MAX + 1,
				   0, NULL, NULL));
}

/*
 * A GET array that runs into a read-only page: entries before it are
 * answered, the one that straddles it fails with EFAULT and is not counted.
 */
TEST_F(hwt, get_efault_straddle)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct hwtimer_get_entry *g;
	uint32_t done, failed;
	char *map;
	uint64_t id;
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, HWT_FAR_NS, 0, 0, &id));
	map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	/* Entry 2 starts 40 bytes before the read-only page. */
	g = (void *)(map + pg - 2 * sizeof(*g) - 40);
	memset(g, 0, 2 * sizeof(*g) + 40);
	for (k = 0; k < 3; k++)
		memcpy((char *)&g[k], &id, sizeof(id));	/* id is the first field */
	ASSERT_EQ(0, mprotect(map + pg, pg, PROT_READ));
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_GET, g, 3, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g[0].status);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, g[1].status);
	/* The whole array unreadable: nothing done. */
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_GET, NULL, 1, 0, NULL, NULL));
	munmap(map, 2 * pg);
}

/* CONFIG: precisions, INFO reporting them, EBUSY with timeouts. */
TEST_F(hwt, config_precision)
{
	struct hwtimer_info fine, coarse, dflt;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_FINE));
	ASSERT_EQ(0, ht_info(self->fd, &fine));
	ASSERT_EQ(HWTIMER_PRECISION_FINE, fine.precision);
	ASSERT_EQ(CLOCK_MONOTONIC, fine.clockid);
	ASSERT_EQ(1, ht_fdinfo(self->fd, "precision"));
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_COARSE));
	ASSERT_EQ(0, ht_info(self->fd, &coarse));
	ASSERT_EQ(HWTIMER_PRECISION_COARSE, coarse.precision);
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_DEFAULT));
	ASSERT_EQ(0, ht_info(self->fd, &dflt));
	ASSERT_EQ(self->info.tick_ns, dflt.tick_ns);
	ASSERT_EQ(self->info.slots, dflt.slots);
	ASSERT_EQ(0, dflt.precision);
	/* The module parameters say what each precision is. */
	if (ht_param_get("fine_tick_ns") > 0) {
		ASSERT_EQ(ht_param_get("fine_tick_ns"), fine.tick_ns);
		ASSERT_EQ(ht_param_get("coarse_tick_ns"), coarse.tick_ns);
		ASSERT_EQ(ht_param_get("tick_ns"), dflt.tick_ns);
	}
	ASSERT_GT(dflt.tick_ns, fine.tick_ns);
	ASSERT_LT(dflt.tick_ns, coarse.tick_ns);
	TH_LOG("ticks: fine %llu, default %llu, coarse %llu ns",
	       (unsigned long long)fine.tick_ns, (unsigned long long)dflt.tick_ns,
	       (unsigned long long)coarse.tick_ns);

	/* A pending timeout: EBUSY, and nothing changes. */
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, 0, 0, &id));
	ASSERT_EQ(-EBUSY, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_FINE));
	ASSERT_EQ(0, ht_info(self->fd, &dflt));
	ASSERT_EQ(0, dflt.precision);
	/* A queued record too. */
	ASSERT_EQ(0, ht_modify(self->fd, id, 0, 0, 0, NULL));
	ASSERT_EQ(-EBUSY, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_FINE));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_FINE));
	/* The shortest period is the file's tick. */
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, fine.tick_ns, 0, &id));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 1, 10000 * MS, fine.tick_ns - 1, 0, NULL));
}

TEST_F(hwt, config_invalid)
{
	struct hwtimer_config c;
	struct hwtimer_info info;
	static const int bad_clocks[] = {
		CLOCK_REALTIME, CLOCK_PROCESS_CPUTIME_ID, CLOCK_MONOTONIC_RAW,
		CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, 8, 11, -1, 1000,
	};
	unsigned int k;
	int bad = 0;

	HWT_NEED_DEV();
	for (k = 0; k < ARRAY_SIZE(bad_clocks); k++)
		if (ht_config(self->fd, bad_clocks[k], 0) != -EINVAL)
			bad = bad_clocks[k] ? bad_clocks[k] : 100;
	ASSERT_EQ(0, bad) TH_LOG("clockid %d was not refused with EINVAL", bad);
	ASSERT_EQ(-EINVAL, ht_config(self->fd, CLOCK_MONOTONIC, 3));
	ASSERT_EQ(-EINVAL, ht_config(self->fd, CLOCK_MONOTONIC, UINT32_MAX));
	for (k = 0; k < 3; k++) {
		memset(&c, 0, sizeof(c));
		c.clockid = CLOCK_MONOTONIC;
		c.precision = HWTIMER_PRECISION_FINE;
		c.reserved[k] = 1ULL << 40;
		ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_CONFIG, &c));
		ASSERT_EQ(EINVAL, errno);
	}
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_CONFIG, NULL));
	ASSERT_EQ(EFAULT, errno);
	/* Nothing changed. */
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.precision);
	ASSERT_EQ(CLOCK_MONOTONIC, info.clockid);
	ASSERT_EQ(self->info.tick_ns, info.tick_ns);
}

/*
 * Arm 16 timeouts on @fd in one call, at the absolute deadlines @first +
 * k * @step (k < 16), each with @slack; read their records and add up
 * their lateness (expired_ns - deadline_ns). 0 or -errno.
 */
static int lateness_sum(int fd, uint64_t first, uint64_t step, uint64_t slack,
			int64_t *sum)
{
	struct hwtimer_arm_entry a[16];
	struct hwtimer_expiry r[16];
	unsigned int k;
	int ret;

	for (k = 0; k < 16; k++) {
		ht_arm_entry(&a[k], k, first + k * step, 0, HWTIMER_TIMEOUT_ABS);
		a[k].slack_ns = slack;
	}
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, 16, 0, NULL, NULL);
	if (ret)
		return ret;
	ret = ht_read_n(fd, r, 16);
	if (ret != 16)
		return ret < 0 ? ret : -ETIMEDOUT;
	*sum = 0;
	for (k = 0; k < 16; k++) {
		if (r[k].expired_ns < r[k].deadline_ns)
			return -EPROTO;
		*sum += (int64_t)(r[k].expired_ns - r[k].deadline_ns);
	}
	return 0;
}

/*
 * A file's precision chooses the wheel its timeouts wait on: a coarse
 * file's expire at its ticks, never before the first tick boundary at or
 * after the deadline. Sixteen deadlines a sixteenth of a coarse tick apart
 * are that much apart from their boundaries too, whatever the wheel's
 * epoch: the waits add up to at least (0 + 1 + ... + 15) / 16 = 7.5 ticks.
 * The host's latency (1-2 ms under TCG, and whatever a busy host adds)
 * only adds to them, so the bound holds however loaded the host is. A
 * fine file's 100 us tick is below that latency: its lateness is logged,
 * not judged (the simulation checks every timeout within a tick of its
 * deadline).
 */
TEST_F(hwt, config_fine_lateness)
{
	struct hwtimer_info fine, coarse;
	int64_t late_fine, late_coarse;
	int fd2;

	HWT_NEED_DEV();
	fd2 = ht_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_FINE));
	ASSERT_EQ(0, ht_config(fd2, CLOCK_MONOTONIC, HWTIMER_PRECISION_COARSE));
	ASSERT_EQ(0, ht_info(self->fd, &fine));
	ASSERT_EQ(0, ht_info(fd2, &coarse));
	ASSERT_LT(fine.tick_ns, coarse.tick_ns);
	ASSERT_EQ(0, lateness_sum(self->fd, now_ns() + 2 * MS, fine.tick_ns / 16, 0,
				  &late_fine));
	ASSERT_EQ(0, lateness_sum(fd2, now_ns() + 2 * coarse.tick_ns, coarse.tick_ns / 16, 0,
				  &late_coarse));
	TH_LOG("lateness of 16, summed: fine (tick %llu ns) %lld ns, coarse (tick %llu ns) %lld ns",
	       (unsigned long long)fine.tick_ns, (long long)late_fine,
	       (unsigned long long)coarse.tick_ns, (long long)late_coarse);
	EXPECT_LE((int64_t)(coarse.tick_ns / 16 * 120), late_coarse)
		TH_LOG("coarse timeouts did not wait for the coarse ticks: the file is not on its precision's wheel");
	close(fd2);
}

/* Slack: accepted within bounds, reported by GET, kept by MODIFY. */
TEST_F(hwt, slack_bounds)
{
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;

	HWT_NEED_DEV();
	ht_arm_entry(&a, 1, 10000 * MS, 0, 0);
	a.slack_ns = (uint64_t)INT64_MAX + 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, a.result);
	ASSERT_EQ(0, a.id);
	a.slack_ns = 0;
	a.reserved = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	/* INT64_MAX slack on a far deadline: clamped, accepted. */
	ht_arm_entry(&a, 1, INT64_MAX / 2, 0, 0);
	a.slack_ns = INT64_MAX;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	ASSERT_EQ(0, ht_get(self->fd, a.id, &g));
	ASSERT_EQ(INT64_MAX, g.slack_ns);
	/* MODIFY keeps the slack. */
	ASSERT_EQ(0, ht_modify(self->fd, a.id, 10000 * MS, 0, 0, NULL));
	ASSERT_EQ(0, ht_get(self->fd, a.id, &g));
	ASSERT_EQ(INT64_MAX, g.slack_ns);
}

/*
 * Slack: never early, and the wheel uses it. A timeout with 20 ticks of
 * slack is queued on the tick of its window with the most trailing zero
 * bits (hwtimer_start_range()), a multiple of 16 ticks, which every
 * 20-tick window holds. Sixteen deadlines on consecutive ticks then wait
 * at least 0, 1, ..., 15 ticks past their own, whatever the wheel's epoch:
 * 120 ticks together. The host's latency only adds to that, so the bound
 * holds however loaded the host is. That each expires within slack plus a
 * tick is not judged here, where that latency adds to it: the simulation
 * checks it of every timeout.
 */
TEST_F(hwt, slack_lateness)
{
	uint64_t tick = self->info.tick_ns;
	int64_t late;

	HWT_NEED_DEV();
	ASSERT_EQ(0, lateness_sum(self->fd, now_ns() + 3 * tick, tick, 20 * tick, &late));
	TH_LOG("slack %llu ns, tick %llu ns: lateness of 16, summed: %lld ns",
	       (unsigned long long)(20 * tick), (unsigned long long)tick, (long long)late);
	EXPECT_LE((int64_t)(120 * tick), late)
		TH_LOG("the slack did not reach the wheel: timeouts expire at their deadline's tick");
}

/* A periodic timeout with slack: every period keeps it, never early. */
TEST_F(hwt, slack_periodic)
{
	uint64_t period = 10 * MS, id;
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;
	struct hwtimer_expiry r;
	unsigned int k;

	HWT_NEED_DEV();
	ht_arm_entry(&a, 1, period, period, 0);
	a.slack_ns = 5 * MS;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	id = a.id;
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
		ASSERT_LE(r.deadline_ns, r.expired_ns);
		ASSERT_EQ(0, ht_get(self->fd, id, &g));
		ASSERT_EQ(5 * MS, g.slack_ns);
	}
}

/* CONFIG CLOCK_BOOTTIME: INFO and fdinfo report it, times are boottime. */
TEST_F(hwt, config_boottime)
{
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;
	struct hwtimer_expiry r;
	struct hwtimer_info info;
	uint64_t t0, t1;
	int ret;

	HWT_NEED_DEV();
	ret = ht_config(self->fd, CLOCK_BOOTTIME, HWTIMER_PRECISION_DEFAULT);
	if (ret == -EINVAL)
		SKIP(return, "this module has no CLOCK_BOOTTIME files");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(CLOCK_BOOTTIME, info.clockid);
	ASSERT_EQ(HWTIMER_PRECISION_DEFAULT, info.precision);
	ASSERT_EQ(CLOCK_BOOTTIME, ht_fdinfo(self->fd, "clockid"));
	ht_arm_entry(&a, 1, 3 * MS, 0, 0);
	t0 = boot_ns();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	t1 = boot_ns();
	ASSERT_LE(t0 + 3 * MS, a.deadline_ns);
	ASSERT_GE(t1 + 3 * MS, a.deadline_ns);
	ASSERT_EQ(0, ht_get(self->fd, a.id, &g));
	ASSERT_EQ(a.deadline_ns, g.deadline_ns);
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_LE(r.deadline_ns, r.expired_ns);
	ASSERT_GE(boot_ns(), r.expired_ns);
	/* Absolute deadlines are boottime too. */
	ht_arm_entry(&a, 2, boot_ns() + 2 * MS, 0, HWTIMER_TIMEOUT_ABS);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL));
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_GE(boot_ns(), r.expired_ns);
	ASSERT_LE(a.deadline_ns, r.expired_ns);
	/* Back to CLOCK_MONOTONIC once empty. */
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_DEFAULT));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(CLOCK_MONOTONIC, info.clockid);
}

/*
 * In a time namespace whose CLOCK_BOOTTIME is 100000 s ahead of the host's
 * (and CLOCK_MONOTONIC not): a CLOCK_BOOTTIME file takes and gives times on
 * the namespace's boottime, converted with the boottime offset, as timerfd
 * does; GET's deadline too. Returns NULL, or what went wrong.
 */
static const char *boottime_in_namespace(char *why, size_t len)
{
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;
	struct hwtimer_expiry r;
	uint64_t before, after;
	int fd = ht_open(0);

	if (fd < 0 || ht_config(fd, CLOCK_BOOTTIME, HWTIMER_PRECISION_DEFAULT))
		return "open or CONFIG CLOCK_BOOTTIME in the namespace failed";
	before = boot_ns();
	if (before < 100000 * 1000000000ULL)
		return "CLOCK_BOOTTIME of the namespace is not 100000 s ahead";
	ht_arm_entry(&a, 1, 50 * MS, 0, 0);
	if (ht_batch(fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL))
		return "ARM failed";
	after = boot_ns();
	if (a.deadline_ns < before + 50 * MS || a.deadline_ns > after + 50 * MS) {
		snprintf(why, len, "ARM of 50 ms between %llu and %llu (namespace boottime) wrote back %llu",
			 (unsigned long long)before, (unsigned long long)after,
			 (unsigned long long)a.deadline_ns);
		return why;
	}
	if (ht_get(fd, a.id, &g) || g.deadline_ns != a.deadline_ns)
		return "GET does not report the deadline on the namespace's boottime";
	if (ht_read_n(fd, &r, 1) != 1 || r.deadline_ns != a.deadline_ns ||
	    r.expired_ns < r.deadline_ns || r.expired_ns > boot_ns())
		return "the record is not on the namespace's boottime";
	/*
	 * An absolute deadline 30 ms ahead: neither at once nor never. Due
	 * at once is a record there while the clock is still before it (a
	 * host that held the test 30 ms makes it due, not at once).
	 */
	ht_arm_entry(&a, 2, boot_ns() + 30 * MS, 0, HWTIMER_TIMEOUT_ABS);
	if (ht_batch(fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL))
		return "ARM of an absolute boottime deadline failed";
	if (ht_wait(fd, 0) && boot_ns() < a.deadline_ns)
		return "an absolute boottime deadline 30 ms ahead was due at once";
	if (ht_read_n(fd, &r, 1) != 1 || boot_ns() < a.deadline_ns)
		return "an absolute boottime deadline 30 ms ahead did not expire on time";
	close(fd);
	return NULL;
}

TEST_F(hwt, timens_boottime)
{
	char *why;
	const char *res;
	int status, pfd;
	pid_t pid;

	HWT_NEED_DEV();
	why = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(why != MAP_FAILED);
	why[0] = 0;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWTIME)) {
			snprintf(why, 4096, "skip: unshare(CLONE_NEWUSER | CLONE_NEWTIME): %s",
				 strerror(errno));
			_exit(0);
		}
		pfd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
		if (pfd < 0 || dprintf(pfd, "boottime 100000 0\n") < 0) {
			snprintf(why, 4096, "skip: /proc/self/timens_offsets: %s", strerror(errno));
			_exit(0);
		}
		close(pfd);
		pid = fork();
		if (!pid) {
			res = boottime_in_namespace(why + 2048, 2048);
			if (res)
				snprintf(why, 2048, "%s", res);
			_exit(res ? 1 : 0);
		}
		_exit(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) ?
		      WEXITSTATUS(status) : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (!strncmp(why, "skip: ", 6))
		SKIP(return, "%s", why + 6);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("in the namespace: %s", why[0] ? why : "the child died");
	munmap(why, 4096);
}

TEST_HARNESS_MAIN
