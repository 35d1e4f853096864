// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites that run wheels on the real clock, through their hrtimers
 * and work items: hwtimer_realtime (timing, tickless, contexts, cancel_sync)
 * and hwtimer_concurrency (many CPUs at once, exactly-once ledgers, CPU
 * hotplug).
 *
 * Time under QEMU/TCG with KASAN and lockdep is slow and jittery, and a
 * busy host can hold a vCPU for seconds at any instruction: these cases
 * assert "never early" strictly, and lateness only as what the wheel
 * decides (its hrtimer is due no later than a timer's tick: the host
 * decides how late it then runs), reporting what they measured. They
 * wait for events, with limits that only catch a hang, rather than
 * sleep for a time and expect them to have happened.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>

#include "hwtimer_kunit_compat.h"
#include "hwtimer_kunit.h"

#define US	1000ULL
#define MS	1000000ULL

/* How long to wait for what must happen: only a hang takes that long. */
#define KT_WAIT_MS	20000

static struct kt_timer *kt_alloc(struct kunit *test, struct hwtimer_wheel *w, int n)
{
	struct kt_timer *kt = kt_kvzalloc(test, n * sizeof(*kt));
	int i;

	for (i = 0; i < n; i++)
		kt_setup(&kt[i], w);
	return kt;
}

static int kt_total_fires(struct kt_timer *kt, int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += atomic_read(&kt[i].fires);
	return sum;
}

static int kt_total_early(struct kt_timer *kt, int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += atomic_read(&kt[i].early);
	return sum;
}

/* Wait up to @ms for @n fires in total. */
static bool kt_wait_fires(struct kt_timer *kt, int n, int want, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (kt_total_fires(kt, n) < want) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(5000, 10000);
	}
	return true;
}

static struct hwt_base *kt_base(struct hwtimer_wheel *w, unsigned int cpu)
{
	return per_cpu_ptr(w->bases, cpu);
}

/*
 * The wheel's share of a timer's lateness, which does not depend on the
 * host: the timer is queued on the first tick at or after its deadline,
 * and the pass that ran it began at its base's hrtimer (or continued a
 * pass that did), which the wheel programs for its first tick with work:
 * that hrtimer was due no later than the timer's tick began. How late the
 * hrtimer and the softirq then ran is the host's.
 */
static bool kt_on_time(struct hwtimer_wheel *w, u64 deadline, u64 tick, u64 hrt_expires)
{
	u64 tick_ns = hwtimer_wheel_tick_ns(w), start = w->time.epoch_ns + tick * tick_ns;

	return start >= deadline && start - deadline < tick_ns && hrt_expires <= start;
}

static void kt_expect_on_time(struct kunit *test, struct hwtimer_wheel *w, u64 deadline,
			      u64 tick, u64 hrt_expires, int i)
{
	u64 tick_ns = hwtimer_wheel_tick_ns(w), start = w->time.epoch_ns + tick * tick_ns;

	KUNIT_EXPECT_GE_MSG(test, start, deadline, "timer %d queued on a tick before its deadline",
			    i);
	KUNIT_EXPECT_LT_MSG(test, start - deadline, tick_ns,
			    "timer %d queued on a tick %llu ns after its deadline", i,
			    start - deadline);
	KUNIT_EXPECT_LE_MSG(test, hrt_expires, start,
			    "timer %d ran in a pass whose hrtimer was due %llu ns after its tick began",
			    i, hrt_expires - start);
}

static bool kt_any_hrtimer_armed(struct hwtimer_wheel *w)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (hrtimer_active(&kt_base(w, cpu)->hrt))
			return true;
	return false;
}

/*
 * Wait up to KT_WAIT_MS for no hrtimer of @w to be armed or running: an
 * hrtimer that expired is not done until its softirq ran, which a host
 * holding that vCPU delays as long as it likes. Return: true if none is.
 */
static bool kt_wait_hrtimers_idle(struct hwtimer_wheel *w)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	while (kt_any_hrtimer_armed(w)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

/*
 * Every armed base hrtimer is queued on its own CPU: no call from another
 * CPU moved it (hrtimer_start() of a pinned hrtimer queues it on the
 * calling CPU), so each base's expiries run where its timers were started.
 */
static void kt_expect_hrtimers_home(struct kunit *test, struct hwtimer_wheel *w)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		struct hwt_base *base = kt_base(w, cpu);

		if (hrtimer_active(&base->hrt))
			KUNIT_EXPECT_EQ_MSG(test, base->hrt.base->cpu_base->cpu, cpu,
					    "the hrtimer of CPU %u's base is queued on CPU %u",
					    cpu, base->hrt.base->cpu_base->cpu);
	}
}

static unsigned int kt_nth_online_cpu(int n)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

/* ---- hwtimer_realtime ---------------------------------------------------- */

static void rt_fires_after_delay_in_softirq(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 20);
	u64 max_late = 0;
	int i;

	for (i = 0; i < 20; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, (i + 1) * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait_fires(kt, 20, 20, 5000), "only %d of 20 fired",
			      kt_total_fires(kt, 20));
	for (i = 0; i < 20; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&kt[i].fires), 1);
		KUNIT_EXPECT_GE_MSG(test, kt[i].fired_at, kt[i].t.deadline, "timer %d early", i);
		KUNIT_EXPECT_TRUE_MSG(test, kt[i].in_softirq, "timer %d not run in softirq", i);
		kt_expect_on_time(test, w, kt[i].t.deadline, kt[i].tick, kt[i].hrt_expires, i);
		max_late = max(max_late, kt[i].fired_at - kt[i].t.deadline);
	}
	kunit_info(test, "max lateness %llu us on a 1 ms tick\n", max_late / US);
}

/* The seeds' case: 125 ms delays on a 200 ms tick fire within [125, 325] ms. */
static void rt_seed_125ms_on_200ms_tick(struct kunit *test)
{
	const int n = 100000;
	const u64 tick = 200 * MS, delay = 125 * MS;
	struct hwtimer_wheel *w = kt_real_wheel(test, tick, 512, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	u64 max_late = 0, min_late = U64_MAX, over = 0;
	int i, bad = 0;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, delay, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait_fires(kt, n, n, 60000), "only %d of %d fired",
			      kt_total_fires(kt, n), n);
	KUNIT_EXPECT_EQ(test, kt_total_early(kt, n), 0);
	for (i = 0; i < n; i++) {
		u64 late = kt[i].fired_at - kt[i].t.deadline;

		max_late = max(max_late, late);
		min_late = min(min_late, late);
		if (late > tick)
			over++;
		if (!kt_on_time(w, kt[i].t.deadline, kt[i].tick, kt[i].hrt_expires) && bad++ < 3)
			kt_expect_on_time(test, w, kt[i].t.deadline, kt[i].tick,
					  kt[i].hrt_expires, i);
	}
	/*
	 * Each is queued within a tick of its deadline and runs in a pass
	 * that was due by then. Running 100k callbacks takes real time under
	 * TCG with KASAN and lockdep, on a loaded host seconds: how late they
	 * ran is reported, and bounded by the wait.
	 */
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%d timers not queued or run on time (the first above)",
			    bad);
	kunit_info(test, "%d timers: lateness %llu..%llu ms, %llu beyond one tick (burst time)\n",
		   n, min_late / MS, max_late / MS, over);
}

/* A timer of a boottime wheel: records CLOCK_BOOTTIME when it fires. */
struct kt_boot {
	struct hwtimer	t;
	u64		fired_boot;
	u64		tick;
	u64		hrt_expires;
	atomic_t	fires;
};

static void kt_boot_fn(struct hwtimer *t)
{
	struct kt_boot *b = from_hwtimer(b, t, t);
	struct hwt_base *base = kt_base(t->wheel, READ_ONCE(t->flags) & HWT_CPUMASK);

	b->fired_boot = ktime_get_boottime_ns();
	b->tick = t->expires;
	/* As kt_fn(): the expiry of the hrtimer that began the pass. */
	b->hrt_expires = ktime_to_ns(hrtimer_get_expires(&base->hrt));
	atomic_inc(&b->fires);
}

/*
 * A HWTIMER_WHEEL_BOOTTIME wheel reports CLOCK_BOOTTIME, runs its hrtimers
 * on it, and fires absolute CLOCK_BOOTTIME deadlines never early on that
 * clock. (Without a suspend the two clocks tick alike: the suspend proof
 * is the device's test.)
 */
static void rt_boottime_wheel(struct kunit *test)
{
	const int n = 10;
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, HWTIMER_WHEEL_BOOTTIME);
	struct hwtimer_wheel *mono = kt_real_wheel(test, MS, 64, 0);
	struct kt_boot *b = kunit_kcalloc(test, n, sizeof(*b), GFP_KERNEL);
	u64 dl[10], max_late = 0, exp;
	unsigned long end;
	struct hwt_base *base;
	unsigned int cpu;
	int i, j, fired = 0;

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clockid(w), (clockid_t)CLOCK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clockid(mono), (clockid_t)CLOCK_MONOTONIC);
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_EQ_MSG(test, kt_base(w, cpu)->hrt.base->clockid,
				    (clockid_t)CLOCK_BOOTTIME,
				    "CPU %u's hrtimer of a boottime wheel is on clock %d",
				    cpu, kt_base(w, cpu)->hrt.base->clockid);
		KUNIT_EXPECT_EQ(test, kt_base(mono, cpu)->hrt.base->clockid,
				(clockid_t)CLOCK_MONOTONIC);
	}
	for (i = 0; i < n; i++) {
		hwtimer_setup(&b[i].t, w, kt_boot_fn);
		dl[i] = ktime_get_boottime_ns() + 100 * MS + i * 3 * MS + i * 77 * US;
		KUNIT_ASSERT_EQ(test, hwtimer_start(&b[i].t, dl[i], HWTIMER_MODE_ABS), 0);
		KUNIT_EXPECT_EQ(test, hwtimer_expires(&b[i].t), dl[i]);
		if (i)
			continue;
		/* The first timer's base waits for a tick of the boottime epoch. */
		base = kt_base(w, b[0].t.flags & HWT_CPUMASK);
		exp = ktime_to_ns(hrtimer_get_expires(&base->hrt));
		KUNIT_EXPECT_LE_MSG(test, exp, w->time.epoch_ns + b[0].t.expires * MS,
				    "hrtimer armed after the first timer's boottime tick");
		KUNIT_EXPECT_EQ(test, (exp - w->time.epoch_ns) % MS, 0ULL);
	}
	end = jiffies + msecs_to_jiffies(KT_WAIT_MS);
	while (fired < n && time_before(jiffies, end)) {
		msleep(20);
		for (fired = 0, j = 0; j < n; j++)
			fired += atomic_read(&b[j].fires);
	}
	KUNIT_ASSERT_EQ_MSG(test, fired, n, "only %d of %d boottime timers fired", fired, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE_MSG(test, b[i].fired_boot, dl[i],
				    "timer %d fired %llu ns before its boottime deadline",
				    i, dl[i] - b[i].fired_boot);
		kt_expect_on_time(test, w, dl[i], b[i].tick, b[i].hrt_expires, i);
		if (b[i].fired_boot > dl[i])
			max_late = max(max_late, b[i].fired_boot - dl[i]);
	}
	kunit_info(test, "boottime wheel: max lateness %llu us on a 1 ms tick\n", max_late / US);
}

static void rt_idle_wheel_never_wakes(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	struct hwtimer_stats s, s0;
	bool armed;
	int cancelled;

	msleep(1000);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ_MSG(test, s.wakeups, 0ULL, "idle wheel woke %llu times in 1 s", s.wakeups);
	KUNIT_EXPECT_FALSE(test, kt_any_hrtimer_armed(w));

	/*
	 * Start and cancel: the hrtimer stays armed for the tick it was
	 * programmed for, expires there once, finds nothing, and is not
	 * armed again. (A host that holds the test for the timer's 100 ms
	 * lets it fire first: the hrtimer then expired for it, and is not
	 * armed again either.)
	 */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 100 * MS, HWTIMER_MODE_REL), 0);
	armed = kt_any_hrtimer_armed(w);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_TRUE_MSG(test, armed || s.wakeups, "the start armed no hrtimer");
	cancelled = hwtimer_cancel_sync(&kt->t);
	if (!cancelled)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 1,
				    "the timer was neither pending nor fired");
	hwtimer_wheel_stats(w, &s0);
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait_hrtimers_idle(w),
			      "hrtimer armed %d s after the only timer was cancelled",
			      KT_WAIT_MS / 1000);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_LE_MSG(test, s.wakeups - s0.wakeups, 1ULL,
			    "%llu wakeups after the only timer was %s", s.wakeups - s0.wakeups,
			    cancelled ? "cancelled" : "run");
	msleep(1000);
	hwtimer_wheel_stats(w, &s0);
	KUNIT_EXPECT_EQ_MSG(test, s0.wakeups, s.wakeups, "the idle wheel woke %llu times in 1 s",
			    s0.wakeups - s.wakeups);
}

static void rt_sparse_timer_programs_next_event(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	struct hwt_base *base;
	struct hwtimer_stats s;
	u64 exp;

	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 300 * MS, HWTIMER_MODE_REL), 0);
	base = kt_base(w, kt->t.flags & HWT_CPUMASK);
	exp = ktime_to_ns(hrtimer_get_expires(&base->hrt));
	KUNIT_EXPECT_EQ_MSG(test, (exp - w->time.epoch_ns) % MS, 0ULL,
			    "hrtimer not on a tick boundary of the epoch");
	KUNIT_EXPECT_LE_MSG(test, exp, w->time.epoch_ns + kt->t.expires * MS,
			    "hrtimer armed after the timer's tick");
	KUNIT_ASSERT_TRUE(test, kt_wait_fires(kt, 1, 1, 5000));
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->early), 0);
	/* The pass that ran it ends, and arms nothing: nothing is pending. */
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait_hrtimers_idle(w),
			      "hrtimer armed %d s after the only timer fired", KT_WAIT_MS / 1000);
	hwtimer_wheel_stats(w, &s);
	/* One wakeup per level boundary crossed, not one per tick (300). */
	KUNIT_EXPECT_LE_MSG(test, s.wakeups, (u64)w->geom.levels + 1,
			    "%llu wakeups for one timer 300 ticks away", s.wakeups);
	kunit_info(test, "one timer 300 ticks away: %llu wakeups\n", s.wakeups);
}

static void rt_periodic_self_rearm(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 16, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	/* Re-arm beyond the 16-tick span each time. */
	kt->rearms = 4;
	kt->rearm_delay = 40 * MS;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 40 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_fires(kt, 1, 5, 10000));
	msleep(100);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 5, "re-armed 4 times: 5 runs");
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->early), 0);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&kt->t));
}

struct kt_slow {
	struct hwtimer t;
	unsigned int sleep_ms;
	bool sleep;		/* msleep (process context) or mdelay */
	bool hold;		/* process context: first wait for @release */
	bool in_task;
	atomic_t started;
	atomic_t release;
	atomic_t done;
};

static void kt_slow_fn(struct hwtimer *t)
{
	struct kt_slow *s = from_hwtimer(s, t, t);
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	s->in_task = in_task();
	atomic_inc(&s->started);
	/* Still running when the test looks, however long the host held it. */
	while (s->hold && !atomic_read(&s->release) && time_before(jiffies, end))
		usleep_range(500, 1000);
	if (s->sleep)
		msleep(s->sleep_ms);
	else
		mdelay(s->sleep_ms);
	atomic_inc(&s->done);
}

static struct kt_slow *kt_slow_alloc(struct kunit *test, struct hwtimer_wheel *w,
				     unsigned int ms, bool sleep)
{
	struct kt_slow *s = kt_kvzalloc(test, sizeof(*s));

	hwtimer_setup(&s->t, w, kt_slow_fn);
	s->sleep_ms = ms;
	s->sleep = sleep;
	return s;
}

/* Wait up to KT_WAIT_MS for @s's callback to have begun @n times. */
static bool kt_wait_started_n(struct kt_slow *s, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	while (atomic_read(&s->started) < n && time_before(jiffies, end))
		usleep_range(500, 1000);
	return atomic_read(&s->started) >= n;
}

static bool kt_wait_started(struct kt_slow *s)
{
	return kt_wait_started_n(s, 1);
}

static void rt_process_context_may_sleep(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, HWTIMER_WHEEL_PROCESS);
	struct kt_slow *s = kt_slow_alloc(test, w, 5, true);
	unsigned long end;

	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, 2 * MS, HWTIMER_MODE_REL), 0);
	for (end = jiffies + msecs_to_jiffies(KT_WAIT_MS);
	     !atomic_read(&s->done) && time_before(jiffies, end);)
		usleep_range(10000, 20000);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->done), 1);
	KUNIT_EXPECT_TRUE_MSG(test, s->in_task, "process-context callback ran in interrupt");
}

/*
 * The callback holds until it is released, so that it is still running
 * when the test looks however long the host held the test; then it sleeps
 * 100 ms, which cancel_sync must wait out.
 */
static void rt_cancel_sync_waits_process(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, HWTIMER_WHEEL_PROCESS);
	struct kt_slow *s = kt_slow_alloc(test, w, 100, true);

	s->hold = true;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_started(s));
	KUNIT_EXPECT_EQ(test, hwtimer_state(&s->t), HWTIMER_RUNNING);
	atomic_set(&s->release, 1);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&s->t), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->done), 1,
			    "cancel_sync returned while the callback was still running");
}

static void rt_cancel_sync_waits_softirq(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_slow *s = kt_slow_alloc(test, w, 30, false);

	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_started(s));
	hwtimer_cancel_sync(&s->t);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->done), 1,
			    "cancel_sync returned while the callback was still running");
}

/* Two timers of one wheel, set up at two call sites: @a's callback waits for @b. */
struct kt_pair {
	struct hwtimer a;
	struct hwtimer b;
	int ret;
	atomic_t done;
};

static void kt_pair_b_fn(struct hwtimer *t) { }

static void kt_pair_a_fn(struct hwtimer *t)
{
	struct kt_pair *p = from_hwtimer(p, t, a);

	p->ret = hwtimer_cancel_sync(&p->b);
	atomic_set_release(&p->done, 1);
}

/*
 * Each hwtimer_setup() call site is a lockdep class of its own, as each
 * timer_setup()'s is: a process-context callback that cancel_syncs a timer
 * of its own wheel set up elsewhere holds one class and takes another,
 * which lockdep does not report (one class per wheel made it recursion).
 */
static void rt_callback_cancel_sync_other_site(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, HWTIMER_WHEEL_PROCESS);
	struct kt_pair *p = kt_kvzalloc(test, sizeof(*p));
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	hwtimer_setup(&p->a, w, kt_pair_a_fn);
	hwtimer_setup(&p->b, w, kt_pair_b_fn);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&p->b, 3600 * 1000 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&p->a, MS, HWTIMER_MODE_REL), 0);
	while (!atomic_read_acquire(&p->done) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p->done), 1, "the callback never finished");
	KUNIT_EXPECT_EQ_MSG(test, p->ret, 1,
			    "cancel_sync from the other timer's callback returned %d, not 1 (pending)",
			    p->ret);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&p->b));
	KUNIT_EXPECT_TRUE_MSG(test, debug_locks,
			      "lockdep is off: it reported something (dmesg), this wait or earlier");
	hwtimer_shutdown_sync(&p->a);
	hwtimer_shutdown_sync(&p->b);
}

/* One of two tasks that wait in hwtimer_cancel_sync() for one callback. */
struct kt_waiter {
	struct kt_slow *s;
	struct completion returned;
	int done_at_return;
};

static int kt_waiter_fn(void *arg)
{
	struct kt_waiter *wt = arg;

	hwtimer_cancel_sync(&wt->s->t);
	wt->done_at_return = atomic_read(&wt->s->done);
	complete(&wt->returned);
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

/* The tasks in hwtimer_cancel_sync() that wait for @base's running callback. */
static unsigned int kt_sync_waiters(struct hwt_base *base)
{
	/* Counted under the base lock, looked at without it: racy, on purpose. */
	return data_race(READ_ONCE(base->sync_waiters));
}

/*
 * Two tasks wait for the same running callback: both return once it has
 * returned, as the expiry path wakes every waiter (a flag of the base tells
 * it there are any, cleared by the last to leave). A third wait on the
 * next run finds the flag set again.
 */
static void rt_cancel_sync_two_waiters(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, HWTIMER_WHEEL_PROCESS);
	struct kt_slow *s = kt_slow_alloc(test, w, 100, true);
	struct kt_waiter *wt = kt_kvzalloc(test, 2 * sizeof(*wt));
	struct task_struct *task[2];
	struct hwt_base *base;
	unsigned int waiting;
	unsigned long end;
	int i;

	/* It runs until both tasks wait for it, however long that takes. */
	s->hold = true;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_started(s));
	base = kt_base(w, READ_ONCE(s->t.flags) & HWT_CPUMASK);
	for (i = 0; i < 2; i++) {
		wt[i].s = s;
		init_completion(&wt[i].returned);
		task[i] = kthread_run(kt_waiter_fn, &wt[i], "kt_waiter%d", i);
		if (IS_ERR(task[i])) {
			atomic_set(&s->release, 1);
			if (i)
				kthread_stop(task[0]);
			KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(task[i]));
			return;
		}
	}
	for (end = jiffies + msecs_to_jiffies(KT_WAIT_MS);
	     kt_sync_waiters(base) < 2 && time_before(jiffies, end);)
		usleep_range(500, 1000);
	waiting = kt_sync_waiters(base);
	atomic_set(&s->release, 1);
	KUNIT_EXPECT_EQ_MSG(test, waiting, 2U,
			    "%u tasks waited in hwtimer_cancel_sync() for the running callback, not 2",
			    waiting);
	for (i = 0; i < 2; i++) {
		if (!wait_for_completion_timeout(&wt[i].returned, msecs_to_jiffies(KT_WAIT_MS))) {
			/* Stuck in hwtimer_cancel_sync(): kthread_stop() would hang too. */
			KUNIT_FAIL(test, "waiter %d not woken %d s after the callback was released",
				   i, KT_WAIT_MS / 1000);
			return;
		}
		kthread_stop(task[i]);
		KUNIT_EXPECT_EQ_MSG(test, wt[i].done_at_return, 1,
				    "waiter %d returned while the callback was still running", i);
	}

	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE_MSG(test, kt_wait_started_n(s, 2), "the second run never began");
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&s->t), 0);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->done), 2,
			    "the second wait returned while the callback was still running");
}

/* A callback that re-arms itself for ever, until shut down. */
static void kt_forever_fn(struct hwtimer *t)
{
	struct kt_timer *kt = from_hwtimer(kt, t, t);

	atomic_inc(&kt->fires);
	if (hwtimer_start(t, 2 * MS, HWTIMER_MODE_REL) == -EIDRM)
		atomic_inc(&kt->early);	/* counts refused re-arms here */
}

static void rt_shutdown_stops_self_rearm(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	int fires;

	hwtimer_setup(&kt->t, w, kt_forever_fn);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 2 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_fires(kt, 1, 3, 5000));
	hwtimer_shutdown_sync(&kt->t);
	fires = atomic_read(&kt->fires);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_SHUTDOWN);
	msleep(50);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), fires, "fired after shutdown");
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt->t, MS, HWTIMER_MODE_REL), -EIDRM);
}

static void rt_destroy_waits_running_callback(struct kunit *test)
{
	struct hwtimer_wheel_config cfg = {
		.name = kt_name(test), .tick_ns = MS, .slots = 64,
		.flags = HWTIMER_WHEEL_PROCESS,
	};
	struct hwtimer_wheel *w = hwtimer_wheel_create(&cfg);
	struct kt_slow *s;
	struct kt_timer *kt;

	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	s = kt_slow_alloc(test, w, 100, true);
	kt = kt_alloc(test, w, 1);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&s->t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 100000 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_started(s));
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_destroy(w, NULL, NULL), 1UL);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->done), 1,
			    "destroy returned while a callback was running");
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&kt->t));
}

static void rt_debugfs_stats(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 3);
	char *path = kunit_kzalloc(test, 128, GFP_KERNEL);
	char *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct seq_file m = { .size = 1024, .private = w };
	struct file *f;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	m.buf = buf;
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_fires(kt, 3, 3, 5000));
	/* The file exists where the docs say (debugfs has no kernel_read). */
	snprintf(path, 128, "/sys/kernel/debug/hwtimer/%s/stats", w->name);
	f = hwt_filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		kunit_skip(test, "%s: %ld (is debugfs mounted?)", path, PTR_ERR(f));
	filp_close(f, NULL);
	/* And renders the wheel's counters. */
	KUNIT_ASSERT_EQ(test, hwt_stats_show(&m, NULL), 0);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "\nfired 3\n"), "stats: %s", buf);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "\nstarted 3\n"), "stats: %s", buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\nwakeups "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\nvisited "));
	KUNIT_EXPECT_NOT_NULL(test, strstr(buf, "\npending 0\n"));
}

struct kt_on_cpu {
	struct hwtimer *t;
	u64 delay;
	int ret;
};

static long kt_start_fn(void *arg)
{
	struct kt_on_cpu *a = arg;

	a->ret = hwtimer_modify(a->t, a->delay, HWTIMER_MODE_REL);
	return 0;
}

static int kt_modify_on(unsigned int cpu, struct hwtimer *t, u64 delay)
{
	struct kt_on_cpu a = { .t = t, .delay = delay };

	work_on_cpu(cpu, kt_start_fn, &a);
	return a.ret;
}

struct kt_many {
	struct kt_timer *kt;
	int n;
	u64 delay;
	int bad;
};

static long kt_many_fn(void *arg)
{
	struct kt_many *a = arg;
	int i;

	for (i = 0; i < a->n; i++)
		if (hwtimer_start(&a->kt[i].t, a->delay + i * MS, HWTIMER_MODE_REL))
			a->bad++;
	return 0;
}

/* Start @n timers on @cpu with delays @delay + i ms; returns the failures. */
static int kt_start_many_on(unsigned int cpu, struct kt_timer *kt, int n, u64 delay)
{
	struct kt_many a = { .kt = kt, .n = n, .delay = delay };

	work_on_cpu(cpu, kt_many_fn, &a);
	return a.bad;
}

static void rt_runs_on_starting_cpu(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		atomic_set(&kt->fires, 0);
		KUNIT_ASSERT_EQ(test, kt_modify_on(cpu, &kt->t, 3 * MS), 0);
		KUNIT_EXPECT_EQ_MSG(test, kt->t.flags & HWT_CPUMASK, cpu,
				    "timer started on CPU %u queued elsewhere", cpu);
		KUNIT_ASSERT_TRUE(test, kt_wait_fires(kt, 1, 1, 5000));
		KUNIT_EXPECT_EQ_MSG(test, kt->fired_cpu, (int)cpu, "started on %u, ran on %d",
				    cpu, kt->fired_cpu);
	}
}

/* Wait up to KT_WAIT_MS for @cpu's base of @w to have no hrtimer armed. */
static bool kt_wait_hrtimer_idle(struct hwtimer_wheel *w, unsigned int cpu)
{
	unsigned long end = jiffies + msecs_to_jiffies(KT_WAIT_MS);

	while (hrtimer_active(&kt_base(w, cpu)->hrt)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static void rt_modify_moves_to_local_cpu(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	unsigned int a = cpumask_first(cpu_online_mask);
	unsigned int b = cpumask_next(a, cpu_online_mask);
	int try, moved;

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	/*
	 * 200 ms on CPU a, then moved to CPU b, an hour away: unless the
	 * host held the test for those 200 ms and the timer fired on a
	 * first. Then it is tried again.
	 */
	for (try = 0; try < 5; try++) {
		KUNIT_ASSERT_EQ(test, kt_modify_on(a, &kt->t, 200 * MS), 0);
		KUNIT_EXPECT_EQ(test, kt->t.flags & HWT_CPUMASK, a);
		moved = kt_modify_on(b, &kt->t, 3600000 * MS);
		if (moved)
			break;
		/* Fired, and armed again on b by the modify: start over. */
		KUNIT_ASSERT_EQ(test, hwtimer_cancel_sync(&kt->t), 1);
		atomic_set(&kt->fires, 0);
	}
	KUNIT_ASSERT_EQ_MSG(test, moved, 1, "the timer fired before it could be moved, %d times",
			    try);
	KUNIT_EXPECT_EQ_MSG(test, kt->t.flags & HWT_CPUMASK, b,
			    "modify on CPU %u did not move it", b);
	KUNIT_EXPECT_EQ(test, kt_base(w, a)->npending, 0UL);
	KUNIT_EXPECT_EQ(test, kt_base(w, b)->npending, 1UL);
	kt_expect_hrtimers_home(test, w);
	/* The emptied base's hrtimer expires once at the old tick, then rests. */
	KUNIT_EXPECT_TRUE_MSG(test, kt_wait_hrtimer_idle(w, a),
			      "the emptied base's hrtimer still armed %d s after the moved timer's tick",
			      KT_WAIT_MS / 1000);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
	kt_expect_hrtimers_home(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt->t), 1);
}

/*
 * "Any context, including hard interrupts": start, modify, state and
 * cancel from a hard hrtimer callback, which runs in hardirq context on
 * PREEMPT_RT too. With sleeping base locks, RT would report a sleeping
 * lock taken in hardirq context.
 */
struct kt_hard {
	struct hrtimer hrt;
	struct hwtimer *t;
	struct completion done;
	bool in_hardirq;
	int start, modify, cancel;
	enum hwtimer_state state;
};

static enum hrtimer_restart kt_hard_fn(struct hrtimer *hrt)
{
	struct kt_hard *h = container_of(hrt, struct kt_hard, hrt);

	h->in_hardirq = in_hardirq();
	h->start = hwtimer_start(h->t, 1000 * MS, HWTIMER_MODE_REL);
	h->modify = hwtimer_modify(h->t, 2000 * MS, HWTIMER_MODE_REL);
	h->state = hwtimer_state(h->t);
	h->cancel = hwtimer_cancel(h->t);
	complete(&h->done);
	return HRTIMER_NORESTART;
}

static void rt_any_context_hardirq(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	struct kt_hard *h = kt_kvzalloc(test, sizeof(*h));
	unsigned long left;

	h->t = &kt->t;
	init_completion(&h->done);
	hwt_hrtimer_setup(&h->hrt, kt_hard_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hrtimer_start(&h->hrt, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&h->done, msecs_to_jiffies(10000));
	hrtimer_cancel(&h->hrt);
	KUNIT_ASSERT_GT_MSG(test, left, 0UL, "the hard hrtimer never ran");
	KUNIT_EXPECT_TRUE_MSG(test, h->in_hardirq, "the calls did not run in hardirq context");
	KUNIT_EXPECT_EQ_MSG(test, h->start, 0, "start from hardirq");
	KUNIT_EXPECT_EQ_MSG(test, h->modify, 1, "modify from hardirq");
	KUNIT_EXPECT_EQ_MSG(test, h->state, HWTIMER_PENDING, "state from hardirq");
	KUNIT_EXPECT_EQ_MSG(test, h->cancel, 1, "cancel from hardirq");
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
}

/*
 * PREEMPT_RT: hwtimer_cancel_sync() lends its priority to the thread
 * running the callback. The callback runs on CPU a in the softirq thread;
 * a FIFO task then spins on CPU a, which keeps that thread off the CPU; a
 * higher-priority FIFO task on CPU b calls hwtimer_cancel_sync(). The
 * callback runs until its thread runs at the waiter's priority: with
 * priority inheritance it does as soon as the waiter blocks, however long
 * the host holds either vCPU meanwhile; without, never (RT throttling may
 * lend it the CPU now and then, at its own priority), and it gives up
 * after KT_PI_SPIN_MAX_MS, as the spinner does.
 */
/* A test kthread's end: kthread_stop() must find it alive. */
static int kt_wait_for_stop(void)
{
	while (!kthread_should_stop())
		usleep_range(100, 200);
	return 0;
}

struct kt_pi {
	struct hwtimer t;
	atomic_t started;
	atomic_t spinning;
	atomic_t cancelled;
	atomic_t done;
	int waiter_prio;	/* the canceller's (kernel) priority */
	bool boosted;		/* the callback ran at it */
	bool spinner_gave_up;
	int done_at_return;
	s64 cancel_ms;
	struct completion returned;
};

#define KT_PI_SPIN_MAX_MS	10000

static void kt_pi_fn(struct hwtimer *t)
{
	struct kt_pi *pi = container_of(t, struct kt_pi, t);
	ktime_t end = ktime_add_ms(ktime_get(), KT_PI_SPIN_MAX_MS);

	atomic_set(&pi->started, 1);
	/* A lower number is a higher priority. */
	while (!(pi->boosted = current->prio <= READ_ONCE(pi->waiter_prio)) &&
	       ktime_before(ktime_get(), end))
		cpu_relax();
	atomic_set(&pi->done, 1);
}

static void kt_set_fifo(struct task_struct *p, int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};

	WARN_ON_ONCE(sched_setattr_nocheck(p, &attr));
}

static int kt_pi_spinner(void *arg)
{
	struct kt_pi *pi = arg;
	ktime_t end;

	while (!atomic_read(&pi->started) && !kthread_should_stop())
		usleep_range(100, 200);
	atomic_set(&pi->spinning, 1);
	end = ktime_add_ms(ktime_get(), KT_PI_SPIN_MAX_MS);
	while (!atomic_read(&pi->cancelled)) {
		if (ktime_after(ktime_get(), end)) {
			pi->spinner_gave_up = true;
			break;
		}
		cpu_relax();
	}
	return kt_wait_for_stop();
}

static int kt_pi_canceller(void *arg)
{
	struct kt_pi *pi = arg;
	ktime_t t0;

	while (!atomic_read(&pi->spinning)) {
		if (kthread_should_stop())
			return 0;
		usleep_range(100, 200);
	}
	/* Let the spinner take the callback's CPU. */
	usleep_range(2000, 3000);
	t0 = ktime_get();
	hwtimer_cancel_sync(&pi->t);
	pi->done_at_return = atomic_read(&pi->done);
	pi->cancel_ms = ktime_ms_delta(ktime_get(), t0);
	atomic_set(&pi->cancelled, 1);
	complete(&pi->returned);
	return kt_wait_for_stop();
}

static void rt_cancel_sync_lends_priority(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_pi *pi = kt_kvzalloc(test, sizeof(*pi));
	unsigned int a = cpumask_first(cpu_online_mask);
	unsigned int b = cpumask_next(a, cpu_online_mask);
	struct task_struct *spinner, *canceller;
	unsigned long left;

	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT only: elsewhere no task preempts a softirq callback");
	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	hwtimer_setup(&pi->t, w, kt_pi_fn);
	init_completion(&pi->returned);
	spinner = kthread_create(kt_pi_spinner, pi, "kt-pi-spin");
	KUNIT_ASSERT_FALSE(test, IS_ERR(spinner));
	canceller = kthread_create(kt_pi_canceller, pi, "kt-pi-cancel");
	if (IS_ERR(canceller)) {
		kthread_stop(spinner);
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(canceller));
		return;
	}
	kthread_bind(spinner, a);
	kthread_bind(canceller, b);
	kt_set_fifo(spinner, 60);
	kt_set_fifo(canceller, 70);
	pi->waiter_prio = canceller->prio;
	wake_up_process(spinner);
	wake_up_process(canceller);

	KUNIT_EXPECT_EQ(test, kt_modify_on(a, &pi->t, MS), 0);
	left = wait_for_completion_timeout(&pi->returned,
					   msecs_to_jiffies(KT_PI_SPIN_MAX_MS + KT_WAIT_MS));
	kthread_stop(canceller);
	kthread_stop(spinner);
	KUNIT_ASSERT_GT_MSG(test, left, 0UL, "cancel_sync never returned");
	KUNIT_EXPECT_EQ_MSG(test, pi->done_at_return, 1,
			    "cancel_sync returned while the callback was still running");
	KUNIT_EXPECT_TRUE_MSG(test, pi->boosted,
			      "the callback never ran at the priority of the task in cancel_sync (%d), which waited %lld ms%s: no priority inheritance",
			      pi->waiter_prio, pi->cancel_ms,
			      pi->spinner_gave_up ? ", until the spinner gave up" : "");
	kunit_info(test, "cancel_sync under a spinning FIFO task: %lld ms\n", pi->cancel_ms);
}

static struct kunit_case realtime_cases[] = {
	KUNIT_CASE(rt_fires_after_delay_in_softirq),
	KUNIT_CASE(rt_seed_125ms_on_200ms_tick),
	KUNIT_CASE(rt_boottime_wheel),
	KUNIT_CASE(rt_idle_wheel_never_wakes),
	KUNIT_CASE(rt_sparse_timer_programs_next_event),
	KUNIT_CASE(rt_periodic_self_rearm),
	KUNIT_CASE(rt_process_context_may_sleep),
	KUNIT_CASE(rt_cancel_sync_waits_process),
	KUNIT_CASE(rt_cancel_sync_waits_softirq),
	KUNIT_CASE(rt_cancel_sync_two_waiters),
	KUNIT_CASE(rt_callback_cancel_sync_other_site),
	KUNIT_CASE(rt_shutdown_stops_self_rearm),
	KUNIT_CASE(rt_destroy_waits_running_callback),
	KUNIT_CASE(rt_debugfs_stats),
	KUNIT_CASE(rt_runs_on_starting_cpu),
	KUNIT_CASE(rt_modify_moves_to_local_cpu),
	KUNIT_CASE(rt_any_context_hardirq),
	KUNIT_CASE(rt_cancel_sync_lends_priority),
	{}
};

static struct kunit_suite realtime_suite = {
	.name = "hwtimer_realtime",
	.exit = kt_cleanup,
	.test_cases = realtime_cases,
};

/* ---- hwtimer_concurrency -------------------------------------------------- */

/*
 * The ledger: every successful arm of a timer must end exactly one way:
 * its callback ran, a cancel returned 1, or a modify replaced it (returned
 * 1). At the end, for every timer: arms == fired + cancelled + replaced.
 */
struct cc_timer {
	struct hwtimer t;
	atomic_t arms, fired, cancelled, replaced;
	atomic_t rearm;		/* callback re-arms while this is set */
};

struct cc_ctx {
	struct cc_timer *timers;
	int ntimers;		/* the first @nshared are shared by all threads */
	int nshared;
	int per_thread;
	atomic_t stop;
	atomic_t ops;
};

/*
 * Early fires are counted by the wheel itself (stats.early), against the
 * deadline the timer had when it was taken off the wheel: here another
 * thread may already have re-armed it with a new deadline.
 */
static void cc_fn(struct hwtimer *t)
{
	struct cc_timer *ct = from_hwtimer(ct, t, t);

	atomic_inc(&ct->fired);
	if (atomic_read(&ct->rearm) && hwtimer_start(t, (1 + get_random_u32() % 5) * MS,
						     HWTIMER_MODE_REL) == 0)
		atomic_inc(&ct->arms);
}

static void cc_op(struct cc_timer *ct)
{
	u32 r = get_random_u32();
	u64 delay = (r >> 8) % (20 * MS);
	int ret;

	switch (r % 6) {
	case 0:
	case 1:
		if (hwtimer_start(&ct->t, delay, HWTIMER_MODE_REL) == 0)
			atomic_inc(&ct->arms);
		break;
	case 2:
		ret = hwtimer_modify(&ct->t, delay, HWTIMER_MODE_REL);
		if (ret >= 0)
			atomic_inc(&ct->arms);
		if (ret == 1)
			atomic_inc(&ct->replaced);
		break;
	case 3:
		if (hwtimer_cancel(&ct->t) == 1)
			atomic_inc(&ct->cancelled);
		break;
	case 4:
		if (hwtimer_cancel_sync(&ct->t) == 1)
			atomic_inc(&ct->cancelled);
		break;
	case 5:
		atomic_set(&ct->rearm, r & 0x100 ? 1 : 0);
		break;
	}
}

struct cc_thread {
	struct cc_ctx *ctx;
	int index;
	struct completion done;
};

static int cc_thread_fn(void *arg)
{
	struct cc_thread *th = arg;
	struct cc_ctx *ctx = th->ctx;

	while (!atomic_read(&ctx->stop)) {
		int i = get_random_u32() % (ctx->nshared + ctx->per_thread);

		if (i >= ctx->nshared)
			i = ctx->nshared + th->index * ctx->per_thread + (i - ctx->nshared);
		cc_op(&ctx->timers[i]);
		atomic_inc(&ctx->ops);
		if (!(atomic_read(&ctx->ops) % 64))
			cond_resched();
	}
	complete(&th->done);
	return 0;
}

static void cc_ledger_run(struct kunit *test, u32 flags, unsigned int ms)
{
	const int nthreads = num_online_cpus() + 2, nshared = 32, per_thread = 32;
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, flags);
	struct cc_thread *th = kt_kvzalloc(test, nthreads * sizeof(*th));
	struct cc_ctx *ctx = kt_kvzalloc(test, sizeof(*ctx));
	long arms = 0, ends = 0, fired = 0;
	struct hwtimer_stats s;
	unsigned long end;
	int i, bad = 0;

	ctx->nshared = nshared;
	ctx->per_thread = per_thread;
	ctx->ntimers = nshared + nthreads * per_thread;
	ctx->timers = kt_kvzalloc(test, ctx->ntimers * sizeof(*ctx->timers));
	for (i = 0; i < ctx->ntimers; i++)
		hwtimer_setup(&ctx->timers[i].t, w, cc_fn);

	for (i = 0; i < nthreads; i++) {
		struct task_struct *task;

		th[i].ctx = ctx;
		th[i].index = i;
		init_completion(&th[i].done);
		task = kthread_create(cc_thread_fn, &th[i], "hwt_cc/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
		if (i < num_online_cpus())
			kthread_bind(task, kt_nth_online_cpu(i));
		wake_up_process(task);
	}
	/*
	 * For @ms, and on until something fired: however slow the host,
	 * the ledger must see expiries.
	 */
	msleep(ms);
	for (end = jiffies + msecs_to_jiffies(KT_WAIT_MS); time_before(jiffies, end);) {
		hwtimer_wheel_stats(w, &s);
		if (s.fired)
			break;
		usleep_range(10000, 20000);
	}
	atomic_set(&ctx->stop, 1);
	for (i = 0; i < nthreads; i++)
		wait_for_completion(&th[i].done);

	/* Stop self re-arming, then settle every timer. */
	for (i = 0; i < ctx->ntimers; i++)
		atomic_set(&ctx->timers[i].rearm, 0);
	for (i = 0; i < ctx->ntimers; i++)
		if (hwtimer_cancel_sync(&ctx->timers[i].t) == 1)
			atomic_inc(&ctx->timers[i].cancelled);

	for (i = 0; i < ctx->ntimers; i++) {
		struct cc_timer *ct = &ctx->timers[i];
		int a = atomic_read(&ct->arms);
		int e = atomic_read(&ct->fired) + atomic_read(&ct->cancelled) +
			atomic_read(&ct->replaced);

		arms += a;
		ends += e;
		fired += atomic_read(&ct->fired);
		if (a != e && bad++ < 5)
			KUNIT_FAIL(test, "timer %d: %d arms, %d fired + %d cancelled + %d replaced",
				   i, a, atomic_read(&ct->fired), atomic_read(&ct->cancelled),
				   atomic_read(&ct->replaced));
	}
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ_MSG(test, s.early, 0ULL, "%llu timers fired early", s.early);
	KUNIT_EXPECT_EQ(test, s.fired, (u64)fired);
	KUNIT_EXPECT_EQ(test, s.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, arms, ends);
	KUNIT_EXPECT_GT_MSG(test, fired, 0L, "nothing fired: the test exercised no expiry");
	kunit_info(test, "%d threads, %d ops: %ld arms = %ld fired + %ld cancelled/replaced\n",
		   nthreads, atomic_read(&ctx->ops), arms, fired, ends - fired);
}

static void cc_ledger_softirq(struct kunit *test)
{
	cc_ledger_run(test, 0, 1500);
}

static void cc_ledger_process(struct kunit *test)
{
	cc_ledger_run(test, HWTIMER_WHEEL_PROCESS, 1000);
}

/* Cancels racing expiry of the same tick on another CPU: fired XOR cancelled. */
struct cc_race {
	struct cc_timer *timers;
	int n;
	int cancelled;
	struct completion done;
};

static int cc_cancel_thread(void *arg)
{
	struct cc_race *r = arg;
	int i;

	/* Expiry runs the slot last-in first-out: walk the other way. */
	for (i = 0; i < r->n; i++) {
		if (hwtimer_cancel(&r->timers[i].t) == 1) {
			atomic_inc(&r->timers[i].cancelled);
			r->cancelled++;
		}
	}
	complete(&r->done);
	return 0;
}

static void cc_cancel_races_expiry(struct kunit *test)
{
	const int n = 3000;
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct cc_race *r = kt_kvzalloc(test, sizeof(*r));
	unsigned int cpu = cpumask_last(cpu_online_mask);
	struct task_struct *task;
	int i, both = 0, neither = 0, fired = 0;
	unsigned long end;
	u64 deadline, now;

	r->n = n;
	r->timers = kt_kvzalloc(test, n * sizeof(*r->timers));
	init_completion(&r->done);
	deadline = ktime_get_ns() + 300 * MS;
	for (i = 0; i < n; i++) {
		hwtimer_setup(&r->timers[i].t, w, cc_fn);
		KUNIT_ASSERT_EQ(test, hwtimer_start(&r->timers[i].t, deadline,
						    HWTIMER_MODE_ABS), 0);
	}
	task = kthread_create(cc_cancel_thread, r, "hwt_race");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpu);
	/* Start cancelling just before the deadline, so the two overlap. */
	while ((now = ktime_get_ns()) < deadline - 3 * MS)
		usleep_range(100, 200);
	wake_up_process(task);
	wait_for_completion(&r->done);
	/* Each timer the canceller missed fired, or its callback is to run. */
	for (end = jiffies + msecs_to_jiffies(KT_WAIT_MS); time_before(jiffies, end);) {
		for (fired = 0, i = 0; i < n; i++)
			fired += atomic_read(&r->timers[i].fired);
		if (fired + r->cancelled >= n)
			break;
		usleep_range(10000, 20000);
	}
	for (fired = 0, i = 0; i < n; i++) {
		int f = atomic_read(&r->timers[i].fired), c = atomic_read(&r->timers[i].cancelled);

		fired += f;
		both += f && c;
		neither += !f && !c;
	}
	KUNIT_EXPECT_EQ_MSG(test, both, 0, "timers both fired and cancelled");
	KUNIT_EXPECT_EQ_MSG(test, neither, 0, "timers neither fired nor cancelled");
	KUNIT_EXPECT_EQ(test, fired + r->cancelled, n);
	kunit_info(test, "%d timers: %d fired, %d cancelled on CPU %u, racing %s\n", n, fired,
		   r->cancelled, cpu, fired && r->cancelled ? "yes" : "no (timing)");
}

static void cc_cancel_sync_from_other_cpu(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct kt_slow *s = kt_slow_alloc(test, w, 40, false);
	unsigned int a = cpumask_first(cpu_online_mask);
	unsigned int b = cpumask_next(a, cpu_online_mask);
	struct kt_on_cpu arg = { .t = &s->t, .delay = MS };

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	/* Arm on CPU b, wait for its callback, cancel_sync from elsewhere. */
	work_on_cpu(b, kt_start_fn, &arg);
	KUNIT_ASSERT_EQ(test, arg.ret, 0);
	KUNIT_ASSERT_TRUE(test, kt_wait_started(s));
	hwtimer_cancel_sync(&s->t);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->done), 1);
}

/*
 * The timers of a CPU going offline move to a live base and fire there,
 * each once. They are started 2 s away, long enough that none fires before
 * the CPU is gone, unless the host holds the test that long: those that
 * fired by then ran on their CPU, as they should. If all did, nothing was
 * moved, and the run is repeated once, 20 s away.
 */
static void cc_hotplug_migrates(struct kunit *test)
{
	const int n = 200;
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	unsigned int cpu = cpumask_last(cpu_online_mask);
	int i, ret, moved, try, ran_there;
	u64 delay = 2000 * MS;
	struct hwtimer_stats s;
	struct kt_timer *kt;
	bool *before;

	if (num_online_cpus() < 2 || !cpu)
		kunit_skip(test, "needs a second online CPU");
	before = kt_kvzalloc(test, n * sizeof(*before));
	for (try = 1; ; try++, delay *= 10) {
		kt = kt_alloc(test, w, n);
		KUNIT_ASSERT_EQ(test, kt_start_many_on(cpu, kt, n, delay), 0);
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ_MSG(test, kt[i].t.flags & HWT_CPUMASK, cpu,
					    "timer %d not queued on CPU %u", i, cpu);
		ret = remove_cpu(cpu);
		if (ret)
			kunit_skip(test, "CPU %u cannot go offline: %d", cpu, ret);
		/* Fired by now: on their CPU, before it went. */
		for (i = 0, moved = 0; i < n; i++) {
			before[i] = atomic_read(&kt[i].fires);
			moved += !before[i];
		}
		KUNIT_EXPECT_EQ_MSG(test, kt_base(w, cpu)->npending, 0UL,
				    "timers left on the dead CPU's base");
		KUNIT_EXPECT_TRUE(test, kt_wait_fires(kt, n, n, KT_WAIT_MS + (u32)(delay / MS)));
		ret = add_cpu(cpu);
		KUNIT_EXPECT_EQ(test, ret, 0);
		if (moved || ret || try == 2)
			break;
		kunit_info(test, "all %d timers fired before CPU %u went offline: again, %llu ms away\n",
			   n, cpu, 10 * delay / MS);
	}
	KUNIT_EXPECT_GT_MSG(test, moved, 0,
			    "every timer fired before its CPU went offline, %d times", try);
	msleep(50);
	for (i = 0, ran_there = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[i].fires), 1, "timer %d", i);
		ran_there += !before[i] && kt[i].fired_cpu == cpu;
	}
	KUNIT_EXPECT_EQ(test, kt_total_early(kt, n), 0);
	KUNIT_EXPECT_EQ_MSG(test, ran_there, 0, "timers ran on the CPU while it was offline");
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, s.fired, (u64)n * try);
}

/*
 * hwtimer_cancel() tests hwtimer_pending() without the lock. A modify
 * moving a pending timer must keep it reading as pending throughout, or a
 * cancel on another CPU returns 0 for a timer that then fires. Here the
 * timer is pending whenever the cancelling thread calls cancel: it is the
 * only one that cancels, and it re-arms right after, while a thread on
 * another CPU keeps modifying (moving) the timer.
 */
struct cc_move {
	struct hwtimer t;
	atomic_t stop;
	unsigned long cancels, misses, modifies;
};

static void cc_move_fn(struct hwtimer *t)
{
}

static int cc_move_modifier(void *arg)
{
	struct cc_move *m = arg;

	while (!atomic_read(&m->stop)) {
		hwtimer_modify(&m->t, 3600 * 1000 * MS, HWTIMER_MODE_REL);
		m->modifies++;
		if (!(m->modifies & 1023))
			cond_resched();
	}
	return kt_wait_for_stop();
}

static long cc_move_canceller(void *arg)
{
	struct cc_move *m = arg;
	ktime_t end = ktime_add_ms(ktime_get(), 2000);

	while (ktime_before(ktime_get(), end)) {
		if (hwtimer_cancel(&m->t) != 1)
			m->misses++;
		hwtimer_modify(&m->t, 3600 * 1000 * MS, HWTIMER_MODE_REL);
		m->cancels++;
		if (!(m->cancels & 1023))
			cond_resched();
	}
	atomic_set(&m->stop, 1);
	return 0;
}

static void cc_cancel_sees_moving_timer(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_real_wheel(test, MS, 64, 0);
	struct cc_move *m = kt_kvzalloc(test, sizeof(*m));
	unsigned int a = cpumask_first(cpu_online_mask);
	unsigned int b = cpumask_next(a, cpu_online_mask);
	struct task_struct *mod;

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	hwtimer_setup(&m->t, w, cc_move_fn);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&m->t, 3600 * 1000 * MS, HWTIMER_MODE_REL), 0);
	mod = kthread_create(cc_move_modifier, m, "cc-move");
	KUNIT_ASSERT_FALSE(test, IS_ERR(mod));
	kthread_bind(mod, b);
	wake_up_process(mod);
	work_on_cpu(a, cc_move_canceller, m);
	kthread_stop(mod);
	KUNIT_EXPECT_EQ_MSG(test, m->misses, 0UL,
			    "hwtimer_cancel() returned 0 %lu times (of %lu) for a pending timer that another CPU was modifying",
			    m->misses, m->cancels);
	kt_expect_hrtimers_home(test, w);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&m->t), 1);
	kunit_info(test, "%lu cancels against %lu modifies on another CPU\n", m->cancels,
		   m->modifies);
}

/*
 * The pending cap under a race. The wheel is full: its cap is CC_CAP, with
 * CC_CAP - 1 filler timers and thread A's timer pending. A (on one CPU)
 * keeps cancelling its timer and starting it again; B (on another) keeps
 * trying to start its own, which fails while A holds the one free place.
 * A's start may fail with -EBUSY only if B took that place in A's gap
 * between cancel and start.
 *
 * An increment undone after the fact (the old code) breaks this: B's
 * failing start pushes the count past the cap for a moment; if A cancels
 * and starts again within that moment, A's start fails too, with nobody
 * holding the free place: both fail.
 *
 * While A holds the place it also watches the cap's count, which must never
 * exceed the cap, not even for the moment a failing start takes: that is
 * how the old code let the race happen, and a watcher on another CPU sees
 * it far more often than the race itself.
 *
 * To tell the two apart, B numbers its calls (@b_begun before a call,
 * @b_ended after it) and, when it wins, publishes the call's number in
 * @b_win and holds its timer until A acknowledges it in @b_ack; then it
 * lets A take the place back (@a_gen) before it tries again. When A's
 * start fails, A reads @b_begun, waits for B's call in progress to end,
 * and requires a win of a call B had begun by then: B's winning start
 * charged the cap before A's start failed, so it began before A read
 * @b_begun.
 */
#define CC_CAP		4
#define CC_CAP_WAIT_MS	20000	/* a TCG vCPU can be descheduled for seconds */

struct cc_cap {
	struct hwtimer_wheel *w;
	s64 max_count;
	unsigned long looks, over;
	struct hwtimer fill[CC_CAP - 1];
	struct hwtimer a, b;
	atomic_t b_begun, b_ended, b_win, b_ack, a_gen, stop;
	unsigned long a_ok, a_busy, both;
	unsigned long b_wins, b_busy;
	int a_err, b_err;
};

static void cc_cap_fn(struct hwtimer *t)
{
}

/*
 * Spin until @v reaches @want (@eq: equals it; !@eq: is at least it), the
 * test stops (@stop), or CC_CAP_WAIT_MS pass. Return: true if it did.
 */
static bool cc_cap_await(atomic_t *v, int want, bool eq, atomic_t *stop)
{
	ktime_t end = ktime_add_ms(ktime_get(), CC_CAP_WAIT_MS);
	unsigned int spins = 0;

	for (;;) {
		int cur = atomic_read(v);

		if (eq ? cur == want : cur >= want)
			return true;
		if ((stop && atomic_read(stop)) || ktime_after(ktime_get(), end))
			return false;
		if (!(++spins & 1023))
			cond_resched();
		cpu_relax();
	}
}

static int cc_cap_b(void *arg)
{
	struct cc_cap *c = arg;
	int n, gen, ret;

	while (!atomic_read(&c->stop)) {
		n = atomic_inc_return(&c->b_begun);
		ret = hwtimer_start(&c->b, 3600 * 1000 * MS, HWTIMER_MODE_REL);
		if (!ret) {
			c->b_wins++;
			gen = atomic_read(&c->a_gen);
			atomic_set(&c->b_win, n);
			atomic_set(&c->b_ended, n);
			/* Hold the place until A has found it taken. */
			cc_cap_await(&c->b_ack, n, true, &c->stop);
			if (hwtimer_cancel(&c->b) != 1 && !c->b_err)
				c->b_err = -ENOENT;
			atomic_set(&c->b_win, 0);
			/* Let A have it again. */
			cc_cap_await(&c->a_gen, gen + 1, false, &c->stop);
		} else {
			atomic_set(&c->b_ended, n);
			if (ret == -EBUSY)
				c->b_busy++;
			else if (!c->b_err)
				c->b_err = ret;
		}
		if (!(n & 255))
			cond_resched();
	}
	return kt_wait_for_stop();
}

static long cc_cap_a(void *arg)
{
	struct cc_cap *c = arg;
	ktime_t end = ktime_add_ms(ktime_get(), 3000);
	ktime_t last = ktime_add_ms(end, CC_CAP_WAIT_MS);
	bool holding = true;
	int i, ret, begun, win;
	s64 count;

	/* 3 s, and on until B was refused at the cap: the race must happen. */
	while (ktime_before(ktime_get(), end) ||
	       (!READ_ONCE(c->b_busy) && ktime_before(ktime_get(), last))) {
		if (holding && hwtimer_cancel(&c->a) != 1) {
			c->a_err = -ENOENT;
			break;
		}
		holding = false;
		ret = hwtimer_start(&c->a, 3600 * 1000 * MS, HWTIMER_MODE_REL);
		if (!ret) {
			holding = true;
			c->a_ok++;
			atomic_inc(&c->a_gen);
			/* B's starts fail now: watch them from here. */
			for (i = 0; i < 32; i++) {
				count = atomic_long_read(&c->w->npending);
				c->looks++;
				if (count > CC_CAP)
					c->over++;
				if (count > c->max_count)
					c->max_count = count;
			}
		} else if (ret == -EBUSY) {
			/* Only a call B had begun by now can hold the place. */
			smp_rmb();
			begun = atomic_read(&c->b_begun);
			if (!cc_cap_await(&c->b_ended, begun, false, NULL)) {
				c->a_err = -ETIMEDOUT;
				break;
			}
			win = atomic_read(&c->b_win);
			if (win && win <= begun) {
				c->a_busy++;
				atomic_set(&c->b_ack, win);
				if (!cc_cap_await(&c->b_win, 0, true, NULL)) {
					c->a_err = -ETIMEDOUT;
					break;
				}
			} else {
				c->both++;
			}
		} else {
			c->a_err = ret;
			break;
		}
		if (!((c->a_ok + c->a_busy + c->both) & 255))
			cond_resched();
	}
	atomic_set(&c->stop, 1);
	if (holding)
		hwtimer_cancel(&c->a);
	return 0;
}

static void cc_cap_race_never_both_fail(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, CC_CAP);
	struct cc_cap *c = kt_kvzalloc(test, sizeof(*c));
	unsigned int a = cpumask_first(cpu_online_mask);
	unsigned int b = cpumask_next(a, cpu_online_mask);
	struct task_struct *tb;
	int i;

	if (b >= nr_cpu_ids)
		kunit_skip(test, "needs two online CPUs");
	c->w = w;
	for (i = 0; i < CC_CAP - 1; i++) {
		hwtimer_setup(&c->fill[i], w, cc_cap_fn);
		KUNIT_ASSERT_EQ(test, hwtimer_start(&c->fill[i], 3600 * 1000 * MS,
						    HWTIMER_MODE_REL), 0);
	}
	hwtimer_setup(&c->a, w, cc_cap_fn);
	hwtimer_setup(&c->b, w, cc_cap_fn);
	KUNIT_ASSERT_EQ_MSG(test, kt_modify_on(a, &c->a, 3600 * 1000 * MS), 0,
			    "A's timer did not get the cap's last free place");
	KUNIT_ASSERT_EQ_MSG(test, hwtimer_start(&c->b, MS, HWTIMER_MODE_REL), -EBUSY,
			    "a start on a wheel at its cap of %d succeeded", CC_CAP);

	tb = kthread_create(cc_cap_b, c, "hwt_cap_b");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tb));
	kthread_bind(tb, b);
	wake_up_process(tb);
	work_on_cpu(a, cc_cap_a, c);
	kthread_stop(tb);

	kunit_info(test, "A (CPU %u): %lu starts, %lu refused while B held the place, %lu refused with the place free; count above the cap in %lu of %lu looks (up to %lld); B (CPU %u): %lu wins, %lu refused\n",
		   a, c->a_ok, c->a_busy, c->both, c->over, c->looks, c->max_count,
		   b, c->b_wins, c->b_busy);
	KUNIT_EXPECT_EQ_MSG(test, c->both, 0UL,
			    "%lu of %lu starts got -EBUSY from a wheel one below its cap of %d (the other CPU's start failed too)",
			    c->both, c->a_ok + c->a_busy + c->both, CC_CAP);
	KUNIT_EXPECT_LE_MSG(test, c->max_count, (s64)CC_CAP,
			    "the cap's count was above the cap of %d (up to %lld) in %lu of %lu looks, while starts failed at it",
			    CC_CAP, c->max_count, c->over, c->looks);
	KUNIT_EXPECT_EQ_MSG(test, c->a_err, 0, "thread A stopped early: %d", c->a_err);
	KUNIT_EXPECT_EQ_MSG(test, c->b_err, 0, "thread B stopped early: %d", c->b_err);
	KUNIT_EXPECT_GT_MSG(test, c->b_busy, 0UL,
			    "B was never refused at the cap: the race was not exercised");
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&w->npending), (long)(CC_CAP - 1),
			    "the cap counts %ld timers, %d are pending",
			    atomic_long_read(&w->npending), CC_CAP - 1);
}

static struct kunit_case concurrency_cases[] = {
	KUNIT_CASE(cc_ledger_softirq),
	KUNIT_CASE(cc_ledger_process),
	KUNIT_CASE(cc_cancel_races_expiry),
	KUNIT_CASE(cc_cancel_sync_from_other_cpu),
	KUNIT_CASE(cc_hotplug_migrates),
	KUNIT_CASE(cc_cancel_sees_moving_timer),
	KUNIT_CASE(cc_cap_race_never_both_fail),
	{}
};

static struct kunit_suite concurrency_suite = {
	.name = "hwtimer_concurrency",
	.exit = kt_cleanup,
	.test_cases = concurrency_cases,
};

kunit_test_suites(&realtime_suite, &concurrency_suite);
