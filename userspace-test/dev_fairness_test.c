// SPDX-License-Identifier: GPL-2.0
/*
 * What one file's expiry work may cost everyone else (hwtimer(4),
 * EXPIRY WORK; docs/security.md).
 *
 * The scenario: a file with HWT_FLOOD periodic timeouts whose period is
 * one tick, armed on CPU 0, and a ring that a thread on CPU 1 empties as
 * fast as it can by storing the head, with no system call. Each period
 * then asks the kernel for HWT_FLOOD expiries, more than a TCG guest (and
 * than many a real CPU) can do in a tick, for as long as the thread runs.
 * While it does:
 *
 *  - a write to /proc/sys/vm/stat_refresh, which waits for a work item on
 *    every CPU (schedule_on_each_cpu()), completes: the flooded file's
 *    work does not hold up CPU 0's per-CPU work;
 *  - another file's HWT_FLOOD one-shot timeouts, armed on CPU 0, expire,
 *    none of them long after its deadline;
 *  - the flooded file's expiry time (fdinfo expiry_ns) grows no faster
 *    than the clock: one pass at a time, on one CPU at a time;
 *  - no periodic timeout expires more than once per period.
 *
 * The time limits here catch work that never ends or waits behind
 * another's; they are many times what a slow, loaded TCG host needs, so
 * that the verdict does not depend on the machine.
 */
#include <pthread.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#define HWT_FLOOD		16384
/* A hang, not a slow machine: see above. */
#define HWT_LATE_LIMIT_NS	(3 * 1000 * MS)
#define HWT_REFRESH_LIMIT_MS	20000
#define HWT_FLOOD_MS		3000

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

struct drain {
	struct ht_ring *ring;
	bool stop;
	uint64_t taken;		/* records consumed */
	int err;
};

/* Empty the ring by storing the head, without a system call. */
static void *drain_fn(void *arg)
{
	struct drain *d = arg;
	uint32_t head, tail;

	if (pin_to(1)) {
		d->err = errno;
		return NULL;
	}
	head = __atomic_load_n(d->ring->head, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&d->stop, __ATOMIC_RELAXED)) {
		tail = ht_ring_tail(d->ring);
		__atomic_store_n(&d->taken, d->taken + (uint32_t)(tail - head), __ATOMIC_RELAXED);
		head = tail;
		__atomic_store_n(d->ring->head, head, __ATOMIC_RELEASE);
	}
	return NULL;
}

struct refresh {
	bool done;
	int err;
	uint64_t ns;
};

/* schedule_on_each_cpu(): a work item on each CPU, waited for. */
static void *refresh_fn(void *arg)
{
	struct refresh *r = arg;
	uint64_t t0 = now_ns();

	if (write_file("/proc/sys/vm/stat_refresh", "1\n"))
		r->err = errno;
	r->ns = now_ns() - t0;
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Arm @n timeouts on @fd, @delay from now, periodic with @period or not. */
static int arm_many(int fd, unsigned int n, uint64_t delay, uint64_t period)
{
	static struct hwtimer_arm_entry e[HWTIMER_BATCH_MAX];
	unsigned int i, k, m;
	int ret;

	for (i = 0; i < n; i += m) {
		m = n - i < HWTIMER_BATCH_MAX ? n - i : HWTIMER_BATCH_MAX;
		for (k = 0; k < m; k++)
			ht_arm_entry(&e[k], i + k, delay, period, 0);
		ret = ht_batch(fd, HWTIMER_IOC_ARM, e, m, 0, NULL, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

TEST_F_TIMEOUT(hwt, periodic_flood_leaves_others_alone, 180)
{
	static struct hwtimer_expiry recs[HWT_FLOOD];
	uint64_t tick = self->info.tick_ns, late, max_late = 0, wall, cpu, t0, t1;
	uint64_t taken0, taken;
	long long e0, e1;
	struct drain d = { 0 };
	struct refresh r = { 0 };
	struct ht_ring ring;
	pthread_t drainer, refresher;
	bool root = geteuid() == 0, have_refresh;
	int other, got, n, i;

	HWT_NEED_DEV();
	NEED_TIME32();
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin_to(0)) TH_LOG("pin to CPU 0: %s", strerror(errno));
	ASSERT_EQ(0, ht_ring_setup(self->fd, 65536, &ring));
	/*
	 * The ring is emptied from before the first record: a ring that
	 * filled while the flood was armed would leave the kernel a record
	 * of each timeout to hold, and nothing more to do.
	 */
	d.ring = &ring;
	ASSERT_EQ(0, pthread_create(&drainer, NULL, drain_fn, &d));
	ASSERT_EQ(0, arm_many(self->fd, HWT_FLOOD, tick, tick));

	/* The flood runs: its passes never rest for more than a tick. */
	usleep(HWT_FLOOD_MS * 1000 / 3);
	e0 = ht_fdinfo(self->fd, "expiry_ns");
	t0 = now_ns();
	taken0 = __atomic_load_n(&d.taken, __ATOMIC_RELAXED);

	/* Per-CPU work still runs on every CPU. */
	have_refresh = root && access("/proc/sys/vm/stat_refresh", W_OK) == 0;
	if (!have_refresh)
		TH_LOG("no write to /proc/sys/vm/stat_refresh (not root, or no such file)");
	if (have_refresh)
		ASSERT_EQ(0, pthread_create(&refresher, NULL, refresh_fn, &r));

	/* Another file's one-shot timeouts, on CPU 0 too. */
	other = ht_open(0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, arm_many(other, HWT_FLOOD, 100 * MS, 0));
	for (got = 0; got < HWT_FLOOD; got += n) {
		n = ht_read_n(other, recs + got, HWT_FLOOD - got);
		ASSERT_LT(0, n) TH_LOG("%d of %d one-shot timeouts expired", got, HWT_FLOOD);
	}
	for (i = 0; i < HWT_FLOOD; i++) {
		late = recs[i].expired_ns - recs[i].deadline_ns;
		if (late > max_late)
			max_late = late;
	}
	TH_LOG("the other file's timeouts: at most %llu us late",
	       (unsigned long long)max_late / 1000);
	EXPECT_GE(HWT_LATE_LIMIT_NS, max_late)
		TH_LOG("a one-shot timeout expired %llu ms late beside the flood",
		       (unsigned long long)max_late / MS);
	close(other);

	if (have_refresh) {
		for (i = 0; i < HWT_REFRESH_LIMIT_MS / 10 &&
			    !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); i++)
			usleep(10000);
		EXPECT_TRUE(__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			TH_LOG("a write to stat_refresh still waits after %d ms: a CPU's per-CPU work is stuck",
			       HWT_REFRESH_LIMIT_MS);
	}

	while (now_ns() - t0 < HWT_FLOOD_MS * MS)
		usleep(10000);
	e1 = ht_fdinfo(self->fd, "expiry_ns");
	t1 = now_ns();
	taken = __atomic_load_n(&d.taken, __ATOMIC_RELAXED) - taken0;
	wall = t1 - t0;
	EXPECT_LE(0, e0) TH_LOG("no expiry_ns in fdinfo");
	cpu = e0 < 0 ? 0 : e1 - e0;
	TH_LOG("the flooded file: %llu ms of expiry work in %llu ms, %llu records",
	       (unsigned long long)cpu / MS, (unsigned long long)wall / MS,
	       (unsigned long long)taken);
	/* One CPU at most, give or take the two CPUs' clocks. */
	EXPECT_GE(wall + 50 * MS, cpu)
		TH_LOG("%llu ms of expiry work in %llu ms", (unsigned long long)cpu / MS,
		       (unsigned long long)wall / MS);
	/* One expiry per timeout per period, at most (two partial periods). */
	EXPECT_GE((wall / tick + 2) * HWT_FLOOD, taken);
	EXPECT_LT(0, taken) TH_LOG("the flood never expired");

	__atomic_store_n(&d.stop, true, __ATOMIC_RELAXED);
	ASSERT_EQ(0, pthread_join(drainer, NULL));
	ASSERT_EQ(0, d.err) TH_LOG("drain thread: %s", strerror(d.err));
	if (have_refresh) {
		ASSERT_EQ(0, pthread_join(refresher, NULL));
		ASSERT_EQ(0, r.err) TH_LOG("stat_refresh: %s", strerror(r.err));
		TH_LOG("stat_refresh took %llu ms beside the flood",
		       (unsigned long long)r.ns / MS);
	}
}

TEST_HARNESS_MAIN
