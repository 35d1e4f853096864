// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench "slack": what slack saves in wakeups.
 *
 * N idle-connection timeouts with delays spread uniformly over a span
 * (default 100000 over 30 s) are started three times, all in the same
 * window: on a hwtimer wheel without slack, on a hwtimer wheel with
 * hwtimer_start_range() and a slack of slack_pct (default 10) percent of
 * each delay, and as timer_list timers with the same deadlines (whose
 * wheel trades up to 12.5% lateness for fewer wakeups on its own). The
 * two wheels have the benchmark wheel's tick and slot count.
 *
 * Wakeups, counted separately for each set although they run at once:
 *   hwtimer     the wheel's own counter (hwtimer_wheel_stats() wakeups):
 *               runs of its expiry path, one per hrtimer expiry, re-arms
 *               after a full batch included
 *   timer_list  per CPU, the jiffies on which at least one callback of the
 *               set ran: the timer softirq runs that served it (a softirq
 *               run that catches up several jiffies counts once)
 * Each is reported per second of the window (from the first start to the
 * last callback). The TIMER_SOFTIRQ count of /proc/softirqs over the
 * window is printed as a reference: it includes every other kernel timer.
 *
 * Also checked: every timer fires once, never before its deadline; the
 * slack set's worst lateness beyond deadline + slack is reported.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "hwtbench.h"

static unsigned long hwtb_slack_n = 100000;
module_param_named(slack_n, hwtb_slack_n, ulong, 0644);
MODULE_PARM_DESC(slack_n, "Timeouts per set in the slack run (default 100000)");

static unsigned int hwtb_slack_span_ms = 30000;
module_param_named(slack_span_ms, hwtb_slack_span_ms, uint, 0644);
MODULE_PARM_DESC(slack_span_ms, "Delays of the slack run spread over this many ms (default 30000)");

static unsigned int hwtb_slack_pct = 10;
module_param_named(slack_pct, hwtb_slack_pct, uint, 0644);
MODULE_PARM_DESC(slack_pct, "Slack of the slack run, in percent of each delay (default 10)");

enum { HWTB_S0, HWTB_S1, HWTB_STL, HWTB_NSETS };

/* A hwtimer of the run: @slack is its allowed lateness in ns. */
struct hwtb_slack_hwt {
	struct hwtimer	t;
	u64		slack;
	int		set;
};

struct hwtb_slack_tl {
	struct timer_list	t;
	u64			deadline;
};

/* Per CPU and set: written by the callbacks, read by the run with READ_ONCE(). */
struct hwtb_slack_pcpu {
	u64		fired[HWTB_NSETS];
	u64		early[HWTB_NSETS];
	u64		max_over;	/* worst ns beyond deadline + slack (slack set) */
	u64		tl_wakeups;	/* jiffies with a timer_list callback */
	unsigned long	tl_last_j;	/* the jiffy of the last one */
};

static DEFINE_PER_CPU(struct hwtb_slack_pcpu, hwtb_slack_pcpu);

static void hwtb_slack_hwt_fn(struct hwtimer *t)
{
	struct hwtb_slack_hwt *h = container_of(t, struct hwtb_slack_hwt, t);
	struct hwtb_slack_pcpu *p = this_cpu_ptr(&hwtb_slack_pcpu);
	u64 now = ktime_get_ns(), dl = hwtimer_expires(t);

	if (now < dl)
		WRITE_ONCE(p->early[h->set], p->early[h->set] + 1);
	else if (h->set == HWTB_S1 && now - dl > h->slack &&
		 now - dl - h->slack > p->max_over)
		WRITE_ONCE(p->max_over, now - dl - h->slack);
	WRITE_ONCE(p->fired[h->set], p->fired[h->set] + 1);
}

static void hwtb_slack_tl_fn(struct timer_list *t)
{
	struct hwtb_slack_tl *l = container_of(t, struct hwtb_slack_tl, t);
	struct hwtb_slack_pcpu *p = this_cpu_ptr(&hwtb_slack_pcpu);
	unsigned long j = jiffies;

	if (!p->fired[HWTB_STL] || j != p->tl_last_j) {
		WRITE_ONCE(p->tl_wakeups, p->tl_wakeups + 1);
		p->tl_last_j = j;
	}
	if (ktime_get_ns() < l->deadline)
		WRITE_ONCE(p->early[HWTB_STL], p->early[HWTB_STL] + 1);
	WRITE_ONCE(p->fired[HWTB_STL], p->fired[HWTB_STL] + 1);
}

/* The sum over CPUs of a counter at byte offset @off of struct hwtb_slack_pcpu. */
static u64 hwtb_slack_sum(size_t off)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*(u64 *)((char *)per_cpu_ptr(&hwtb_slack_pcpu, cpu) + off));
	return n;
}

#define HWTB_FIRED(set)		hwtb_slack_sum(offsetof(struct hwtb_slack_pcpu, fired[set]))
#define HWTB_EARLY(set)		hwtb_slack_sum(offsetof(struct hwtb_slack_pcpu, early[set]))
#define HWTB_TL_WAKEUPS()	hwtb_slack_sum(offsetof(struct hwtb_slack_pcpu, tl_wakeups))

static u64 hwtb_slack_softirqs(void)
{
	unsigned int cpu;
	u64 n = 0;

	for_each_possible_cpu(cpu)
		n += kstat_softirqs_cpu(TIMER_SOFTIRQ, cpu);
	return n;
}

static struct hwtimer_wheel *hwtb_slack_wheel(const char *name)
{
	struct hwtimer_wheel_config cfg = {
		.name = name,
		.tick_ns = hwtimer_wheel_tick_ns(hwtb_wheel),
		.slots = hwtimer_wheel_slots(hwtb_wheel),
	};

	return hwtimer_wheel_create(&cfg);
}

/* Per second of @ns, in thousandths. */
static s64 hwtb_slack_rate(u64 count, u64 ns)
{
	return ns ? div64_u64(count * HWTB_MILLI * NSEC_PER_SEC, ns) : 0;
}

/*
 * The slack run. Return: 0; -EIO after an "E" line when a timer did not
 * fire or fired early (hwtb_run_kernel() reports it); another errno.
 */
int hwtb_bench_slack(void)
{
	const unsigned long n = hwtb_slack_n;
	const u64 span = (u64)hwtb_slack_span_ms * NSEC_PER_MSEC;
	struct hwtimer_wheel *w[2] = { NULL, NULL };
	struct hwtb_slack_hwt *h[2] = { NULL, NULL };
	struct hwtb_slack_tl *l = NULL;
	struct hwtimer_stats st[2];
	u64 t0, t1, end, sirq0, sirq1, max_over = 0, wk[2], tlwk, early;
	unsigned long i;
	struct rnd_state rnd;
	unsigned int cpu;
	int s, ret = 0;

	if (!n || !span)
		return -EINVAL;
	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(&hwtb_slack_pcpu, cpu), 0, sizeof(struct hwtb_slack_pcpu));
	prandom_seed_state(&rnd, 0x736c61636bULL);

	w[0] = hwtb_slack_wheel("hwtbench-noslack");
	w[1] = IS_ERR(w[0]) ? w[0] : hwtb_slack_wheel("hwtbench-slack");
	if (IS_ERR(w[0]) || IS_ERR(w[1])) {
		ret = PTR_ERR(IS_ERR(w[0]) ? w[0] : w[1]);
		goto out;
	}
	h[0] = kvcalloc(n, sizeof(*h[0]), GFP_KERNEL);
	h[1] = kvcalloc(n, sizeof(*h[1]), GFP_KERNEL);
	l = kvcalloc(n, sizeof(*l), GFP_KERNEL);
	if (!h[0] || !h[1] || !l) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		for (s = 0; s < 2; s++) {
			hwtimer_setup(&h[s][i].t, w[s], hwtb_slack_hwt_fn);
			h[s][i].set = s;
		}
		timer_setup(&l[i].t, hwtb_slack_tl_fn, TIMER_PINNED);
	}

	hwtb_out("I slack_pct %u\n", hwtb_slack_pct);
	hwtb_out("I slack_span_ms %u\n", hwtb_slack_span_ms);
	sirq0 = hwtb_slack_softirqs();
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		/* Delays in [1 tick, span): the same deadline for all three. */
		u64 d = max(mul_u64_u32_shr(span, prandom_u32_state(&rnd), 32),
			    hwtimer_wheel_tick_ns(w[0]));
		u64 now = ktime_get_ns();
		unsigned long j = jiffies;

		h[1][i].slack = div_u64(d * hwtb_slack_pct, 100);
		hwtimer_start(&h[0][i].t, now + d, HWTIMER_MODE_ABS);
		hwtimer_start_range(&h[1][i].t, now + d, h[1][i].slack, HWTIMER_MODE_ABS);
		l[i].deadline = now + d;
		/* The first jiffy that cannot begin before the deadline. */
		l[i].t.expires = j + 1 + DIV_ROUND_UP_ULL(d, TICK_NSEC);
		add_timer(&l[i].t);
		if (!(i & 255))
			cond_resched();
	}

	/* All due by span + slack; then a generous margin for emulation. */
	end = t0 + span + div_u64(span * hwtb_slack_pct, 100) + 20 * NSEC_PER_SEC;
	while (HWTB_FIRED(HWTB_S0) < n || HWTB_FIRED(HWTB_S1) < n || HWTB_FIRED(HWTB_STL) < n) {
		if (ktime_get_ns() > end || signal_pending(current))
			break;
		msleep_interruptible(50);
	}
	t1 = ktime_get_ns();
	sirq1 = hwtb_slack_softirqs();

	for (s = 0; s < HWTB_NSETS; s++) {
		u64 f = HWTB_FIRED(s);

		if (f != n) {
			hwtb_out("E slack: set %d: %llu of %lu timers fired\n", s, f, n);
			ret = -EIO;
		}
	}
	for (s = 0; s < 2; s++) {
		hwtimer_wheel_stats(w[s], &st[s]);
		wk[s] = st[s].wakeups;
	}
	tlwk = HWTB_TL_WAKEUPS();
	for_each_possible_cpu(cpu)
		max_over = max(max_over, READ_ONCE(per_cpu_ptr(&hwtb_slack_pcpu, cpu)->max_over));
	early = HWTB_EARLY(HWTB_S0) + HWTB_EARLY(HWTB_S1);
	if (early) {
		hwtb_out("E slack: %llu hwtimer timers fired before their deadline\n", early);
		ret = -EIO;
	}

	hwtb_result_one("slack", HWTB_HWT, n, "wakeups_per_s", "wakeups/s",
			hwtb_slack_rate(wk[1], t1 - t0));
	hwtb_result_one("slack", HWTB_TL, n, "wakeups_per_s", "wakeups/s",
			hwtb_slack_rate(tlwk, t1 - t0));
	hwtb_result_one("slack", HWTB_HWT, n, "wakeups_per_s_no_slack", "wakeups/s",
			hwtb_slack_rate(wk[0], t1 - t0));
	hwtb_result_one("slack", HWTB_HWT, n, "wakeups", "wakeups", wk[1] * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_TL, n, "wakeups", "wakeups", tlwk * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_HWT, n, "wakeups_no_slack", "wakeups",
			wk[0] * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_HWT, n, "ticks_with_work", "ticks",
			st[1].ticks * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_HWT, n, "ticks_with_work_no_slack", "ticks",
			st[0].ticks * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_HWT, n, "early", "timers",
			HWTB_EARLY(HWTB_S1) * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_TL, n, "early", "timers",
			HWTB_EARLY(HWTB_STL) * HWTB_MILLI);
	hwtb_result_one("slack", HWTB_HWT, n, "max_late_beyond_slack", "ns",
			max_over * HWTB_MILLI);
	hwtb_result_one("slack", -1, n, "timer_softirqs_per_s_all_timers", "softirqs/s",
			hwtb_slack_rate(sirq1 - sirq0, t1 - t0));
	hwtb_out("N slack: %lu timeouts over %u ms, %u%% slack, one window of %llu ms\n",
		 n, hwtb_slack_span_ms, hwtb_slack_pct, div_u64(t1 - t0, NSEC_PER_MSEC));
	hwtb_out("N slack: hwtimer wakeups (wheel counter) %llu with slack, %llu without\n",
		 wk[1], wk[0]);
	hwtb_out("N slack: timer_list wakeups (jiffies with a callback, per CPU) %llu\n", tlwk);

out:
	for (s = 0; s < 2; s++) {
		if (h[s] && !IS_ERR_OR_NULL(w[s])) {
			for (i = 0; i < n; i++) {
				hwtimer_cancel_sync(&h[s][i].t);
				if (!(i & 1023))
					cond_resched();
			}
		}
	}
	if (l) {
		for (i = 0; i < n; i++) {
			timer_delete_sync(&l[i].t);
			if (!(i & 1023))
				cond_resched();
		}
	}
	for (s = 0; s < 2; s++)
		if (!IS_ERR_OR_NULL(w[s]))
			hwtimer_wheel_destroy(w[s], NULL, NULL);
	kvfree(h[0]);
	kvfree(h[1]);
	kvfree(l);
	return ret;
}
