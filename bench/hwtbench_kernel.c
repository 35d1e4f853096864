// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench: the kernel-side benchmarks. Each one runs the same work through
 * hwtimer, timer_list and hrtimer, in the same boot, with one worker
 * kthread bound to each CPU; the facilities take turns repetition by
 * repetition, so a change of load on the host hits all three alike.
 *
 *   startcancel  start+cancel pairs and modifies with N timers pending
 *                (random delays of 1 to 100 wheel revolutions); the bytes
 *                allocated per pending timer
 *   startidle    start+cancel pairs with nothing else pending on the CPU,
 *                and with one timer pending
 *   expiry       N timers due at the same tick, and spread over one
 *                revolution: first to last callback, longest stall, CPU
 *                time (softirq included) per expiration
 *   tick         per-tick cost with N far-future timers (1 to 2 hours)
 *   cycle        hwtimer's wheel work per tick over a full level-2
 *                rotation, on a wheel with a short tick (a simulated hour)
 *   idle         wheel wakeups with nothing pending and with one timer an
 *                hour away
 *   scaling      start+cancel throughput on 1 CPU and on all CPUs at once
 *   lateness     lateness of N timers with random delays
 *   memory       sizeof the embedded timer structs
 *
 * hrtimers are used in soft (softirq) mode, where hwtimer runs its own
 * callbacks and timer_list runs its, so all three expire in the same
 * context. All three are used pinned (TIMER_PINNED, HRTIMER_MODE_*_PINNED;
 * hwtimer always queues on the local CPU), so a callback runs on the CPU
 * of the worker that started its timer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kernel_stat.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <asm/hardirq.h>

#include "hwtbench.h"

/* Random delays and indices, drawn beforehand so the loops do not. */
#define HWTB_TAB	4096
#define HWTB_IDX	65536
/* How far each repetition of the modify loop moves in the delay table. */
#define HWTB_MOD_STRIDE	1031

/*
 * The start+cancel and modify loops are timed in chunks of %HWTB_CHUNK
 * operations; the cost of an operation is the median chunk's, so a chunk
 * during which the host descheduled the emulator's vCPU thread (on a busy
 * 2-core host, often) does not count. The mean is reported as well.
 */
#define HWTB_CHUNK	1024
#define HWTB_MAX_CHUNKS	1024

struct hwtb_tab {
	u64		ns[HWTB_TAB];
	unsigned long	j[HWTB_TAB];
	u32		idx[HWTB_IDX];
	u64		chunk[HWTB_MAX_CHUNKS];
};

/* Probe period of the stall measurement in the expiry runs. */
#define HWTB_PROBE_NS	(1000 * NSEC_PER_USEC)

/* Gaps above this in a spinning loop count as time taken from it. */
#define HWTB_SPIN_GAP_NS	2000

/* Attempts at an expiry run whose timers were not all started in time. */
#define HWTB_EXPIRY_TRIES	3

/* Per-start cost assumed before one was measured, to place deadlines. */
#define HWTB_START_GUESS_NS	5000

/* Lateness histogram: bin k counts lateness in [2^k, 2^(k+1)) ns. */
#define HWTB_HIST_BINS	40

static unsigned int hwtb_errors;
/* Measured ns per start of each facility, from the last population. */
static u64 hwtb_start_ns[HWTB_NR_FAC];
/* How long the last expiry run of each facility took to start its timers. */
static u64 hwtb_pop_ns[HWTB_NR_FAC];

/* Record an error: an "E" line in the results and the kernel log. */
static __printf(1, 2) void hwtb_error(const char *fmt, ...)
{
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hwtb_errors++;
	hwtb_out("E %s\n", buf);
	pr_err("%s\n", buf);
}

static u64 hwtb_rev_ns(void)
{
	return hwtimer_wheel_tick_ns(hwtb_wheel) * hwtimer_wheel_slots(hwtb_wheel);
}

static u64 hwtb_tick(void)
{
	return hwtimer_wheel_tick_ns(hwtb_wheel);
}

static u64 hwtb_rand64(struct rnd_state *s)
{
	u64 hi = prandom_u32_state(s);

	return hi << 32 | prandom_u32_state(s);
}

/* A uniform random number in [@lo, @hi). */
static u64 hwtb_uniform(struct rnd_state *s, u64 lo, u64 hi)
{
	return lo + mul_u64_u64_shr(hwtb_rand64(s), hi - lo, 64);
}

/* A delay in jiffies that is at least @ns. */
static unsigned long hwtb_jiffies(u64 ns)
{
	return DIV_ROUND_UP_ULL(ns, TICK_NSEC);
}

/*
 * The first jiffy that certainly begins at or after @deadline, given that
 * jiffies was @j when the clock read @now: jiffy j began at most a tick
 * before now.
 */
static unsigned long hwtb_jiffy_at(u64 deadline, u64 now, unsigned long j)
{
	return j + 1 + (deadline > now ? hwtb_jiffies(deadline - now) : 0);
}

/*
 * CPU time @cpu has spent on anything but idling, in ns, and in @irq the
 * part in hard and soft interrupts. With CONFIG_IRQ_TIME_ACCOUNTING the
 * interrupt time is exact (accounted at each exit); task time is sampled
 * at the tick, as /proc/stat's. Softirqs run by ksoftirqd count as softirq.
 */
static u64 hwtb_busy_ns(unsigned int cpu, u64 *irq)
{
	const u64 *s = kcpustat_cpu(cpu).cpustat;

	*irq = READ_ONCE(s[CPUTIME_IRQ]) + READ_ONCE(s[CPUTIME_SOFTIRQ]);
	return *irq + READ_ONCE(s[CPUTIME_USER]) + READ_ONCE(s[CPUTIME_NICE]) +
	       READ_ONCE(s[CPUTIME_SYSTEM]);
}

/*
 * Run @body(FAC, @w) with the crew's facility FAC as a compile-time
 * constant: both are inlined, so each facility gets its own copy of the
 * loop with direct calls into its API.
 */
static __always_inline void hwtb_dispatch(struct hwtb_worker *w,
					  void (*body)(int fac, struct hwtb_worker *w))
{
	switch (w->crew->fac) {
	case HWTB_HWT:
		body(HWTB_HWT, w);
		break;
	case HWTB_TL:
		body(HWTB_TL, w);
		break;
	default:
		body(HWTB_HRT, w);
		break;
	}
}

/* ---- steps run by the workers ------------------------------------------ */

/* Fill the delay tables: delays in [arg[0], arg[1]), indices below nobjs. */
static void hwtb_fill_tab(struct hwtb_worker *w, int fac)
{
	struct hwtb_crew *c = w->crew;
	struct hwtb_tab *tab = w->tab;
	unsigned long n = max(w->nobjs[fac], 1UL);
	unsigned int i;

	for (i = 0; i < HWTB_TAB; i++) {
		tab->ns[i] = hwtb_uniform(&w->rnd, c->arg[0], c->arg[1]);
		tab->j[i] = hwtb_jiffies(tab->ns[i]);
	}
	for (i = 0; i < HWTB_IDX; i++)
		tab->idx[i] = hwtb_uniform(&w->rnd, 0, n);
}

/* Start every timer with a random delay in [arg[0], arg[1]). */
static __always_inline void hwtb_populate(int fac, struct hwtb_worker *w)
{
	struct hwtb_crew *c = w->crew;
	unsigned long i, n = w->nobjs[fac];

	hwtb_fill_tab(w, fac);
	w->t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		u64 d = hwtb_uniform(&w->rnd, c->arg[0], c->arg[1]);

		hwtb_start(fac, hwtb_obj(fac, w->objs[fac], i), d, hwtb_jiffies(d));
		if (!(i & 1023))
			cond_resched();
	}
	w->t1 = ktime_get_ns();
	w->ops = n;
}

static void hwtb_step_populate(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_populate);
}

/* After operation @i: close the chunk if it is complete. */
static __always_inline void hwtb_chunk(struct hwtb_worker *w, unsigned long i, u64 *t)
{
	u64 now;

	if ((i & (HWTB_CHUNK - 1)) != HWTB_CHUNK - 1)
		return;
	now = ktime_get_ns();
	if (w->nchunks < HWTB_MAX_CHUNKS)
		w->tab->chunk[w->nchunks++] = now - *t;
	cond_resched();
	*t = ktime_get_ns();
}

/*
 * arg[2] start+cancel pairs on the idle probe timers; with @clock, a
 * clock read (ktime_get_ns()) before each start.
 */
static __always_inline void __hwtb_do_pairs(int fac, struct hwtb_worker *w, bool clock)
{
	struct hwtb_tab *tab = w->tab;
	unsigned long i, m = w->crew->arg[2];
	void *p = w->probes[fac];
	u64 t, sum = 0;

	w->nchunks = 0;
	w->t0 = ktime_get_ns();
	t = w->t0;
	for (i = 0; i < m; i++) {
		void *o = hwtb_obj(fac, p, i & (HWTB_NPROBES - 1));
		unsigned int k = i & (HWTB_TAB - 1);

		if (clock)
			sum += ktime_get_ns();
		hwtb_start(fac, o, tab->ns[k], tab->j[k]);
		hwtb_cancel(fac, o);
		hwtb_chunk(w, i, &t);
	}
	w->t1 = ktime_get_ns();
	w->ops = m;
	/* Used, so that no compiler drops the reads. */
	if (clock)
		WRITE_ONCE(w->sink, sum);
}

static __always_inline void hwtb_do_pairs(int fac, struct hwtb_worker *w)
{
	__hwtb_do_pairs(fac, w, false);
}

static void hwtb_step_pairs(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_do_pairs);
}

/*
 * timer_list's pairs with a clock read before each start: what a caller
 * pays who has a nanosecond deadline and a timer_list, and what
 * hwtimer_start() pays for its relative deadline. TCG prices a clock read
 * inside such a path unlike in a loop of clock reads alone (the calib
 * row): the pair with it is the peer that shows what hwtimer's pair costs
 * besides its clock read.
 */
static void hwtb_step_pairs_clock(struct hwtb_worker *w)
{
	__hwtb_do_pairs(HWTB_TL, w, true);
}

/*
 * arg[2] modifies of random pending timers to random new delays. The
 * delays are taken from arg[3] on in the delay table: each repetition
 * passes another arg[3], so that it does not re-arm a timer to the delay
 * the same index gave it one repetition before. With that, a timer
 * modified once per repetition (at 100k and 1M pending) would come back
 * to the slot or bucket it is in, and every repetition after the first
 * would measure the same-slot shortcut rather than a random re-arm.
 */
static __always_inline void hwtb_mods(int fac, struct hwtb_worker *w)
{
	struct hwtb_tab *tab = w->tab;
	unsigned long i, m = w->crew->arg[2], off = w->crew->arg[3];
	void *p = w->objs[fac];
	u64 t;

	w->nchunks = 0;
	w->t0 = ktime_get_ns();
	t = w->t0;
	for (i = 0; i < m; i++) {
		unsigned int k = (i + off) & (HWTB_TAB - 1);

		hwtb_modify(fac, hwtb_obj(fac, p, tab->idx[i & (HWTB_IDX - 1)]),
			    tab->ns[k], tab->j[k]);
		hwtb_chunk(w, i, &t);
	}
	w->t1 = ktime_get_ns();
	w->ops = m;
}

static void hwtb_step_modify(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_mods);
}

/*
 * Where a timer is on its wheel: its slot (hwtimer) or the index of its
 * bucket (timer_list). A modify that leaves it there took the same-slot
 * shortcut (__mod_timer()'s, and hwt_arm()'s), or found it unchanged.
 * hrtimer has none.
 */
static __always_inline u32 hwtb_where(int fac, void *obj)
{
	switch (fac) {
	case HWTB_HWT:
		return READ_ONCE(((struct hwtb_hwt *)obj)->t.slot);
	case HWTB_TL:
		return READ_ONCE(((struct hwtb_tl *)obj)->t.flags) >> TIMER_ARRAYSHIFT;
	default:
		return 0;
	}
}

/*
 * arg[2] modifies as hwtb_mods(), each timed alone between two clock
 * reads, and told apart by whether the timer stayed where it was: out[0]
 * and out[1] sum the time and count of those that moved, out[2] and out[3]
 * of those that stayed, out[4] the time of as many empty pairs of clock
 * reads (the stamps' own cost). Exact in instructions under -icount.
 */
static __always_inline void hwtb_modsplit(int fac, struct hwtb_worker *w)
{
	struct hwtb_tab *tab = w->tab;
	unsigned long i, m = w->crew->arg[2], off = w->crew->arg[3];
	void *p = w->objs[fac];

	memset(w->out, 0, sizeof(w->out));
	for (i = 0; i < m; i++) {
		unsigned int k = (i + off) & (HWTB_TAB - 1);
		void *o = hwtb_obj(fac, p, tab->idx[i & (HWTB_IDX - 1)]);
		u32 where = hwtb_where(fac, o);
		bool stayed;
		u64 t0, t1;

		t0 = ktime_get_ns();
		hwtb_modify(fac, o, tab->ns[k], tab->j[k]);
		t1 = ktime_get_ns();
		stayed = fac != HWTB_HRT && hwtb_where(fac, o) == where;
		w->out[stayed ? 2 : 0] += t1 - t0;
		w->out[stayed ? 3 : 1]++;
		t0 = ktime_get_ns();
		t1 = ktime_get_ns();
		w->out[4] += t1 - t0;
		if ((i & (HWTB_CHUNK - 1)) == HWTB_CHUNK - 1)
			cond_resched();
	}
	w->ops = m;
}

static void hwtb_step_modsplit(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_modsplit);
}

/*
 * The modify rows of hwtb_modsplit()'s run: ns per modify that moved the
 * timer ("moved") and that left it in its slot ("same_slot"), each less
 * an empty pair of clock reads, and the share that stayed (per mille;
 * not for hrtimer, which has no slots).
 */
static void hwtb_modsplit_results(struct hwtb_crew *c, int fac, unsigned long n)
{
	s64 sum[2] = { 0, 0 }, cnt[2] = { 0, 0 }, stamp = 0;
	unsigned int i, k;

	for (i = 0; i < c->nr; i++) {
		for (k = 0; k < 2; k++) {
			sum[k] += c->w[i].out[2 * k];
			cnt[k] += c->w[i].out[2 * k + 1];
		}
		stamp += c->w[i].out[4];
	}
	stamp = div64_s64(stamp * HWTB_MILLI, max(cnt[0] + cnt[1], 1LL));
	if (cnt[0])
		hwtb_result_one("modify", fac, n, "moved", "ns",
				div64_s64(sum[0] * HWTB_MILLI, cnt[0]) - stamp);
	if (cnt[1])
		hwtb_result_one("modify", fac, n, "same_slot", "ns",
				div64_s64(sum[1] * HWTB_MILLI, cnt[1]) - stamp);
	if (fac != HWTB_HRT)
		hwtb_result_one("modify", fac, n, "same_slot_share", "per_mille",
				div64_s64(cnt[1] * HWTB_MILLI * HWTB_MILLI,
					  max(cnt[0] + cnt[1], 1LL)));
}

/* Cancel every timer, waiting for running callbacks. */
static __always_inline void hwtb_teardown(int fac, struct hwtb_worker *w)
{
	unsigned long i, n = w->nobjs[fac];

	w->t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		hwtb_cancel_sync(fac, hwtb_obj(fac, w->objs[fac], i));
		if (!(i & 1023))
			cond_resched();
	}
	w->t1 = ktime_get_ns();
	w->ops = n;
}

static void hwtb_step_teardown(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_teardown);
}

static void hwtb_pcpu_reset(struct hwtb_worker *w, u64 expect)
{
	struct hwtb_pcpu *pc = per_cpu_ptr(&hwtb_pcpu, w->cpu);

	/* The worker runs on pc's CPU; keep its callbacks out meanwhile. */
	local_bh_disable();
	pc->fired = 0;
	pc->expect = expect;
	pc->first = 0;
	pc->last = 0;
	local_bh_enable();
}

/*
 * Expiry: start every timer for deadline arg[0] + i * arg[1] / n (from t0
 * to t1), then
 * turn into a SCHED_FIFO probe that asks to wake every millisecond and
 * records how late it got the CPU (a softirq run delays it), until every
 * callback ran or the clock passes arg[2].
 * out[0..3]: first callback, last callback, longest stall, callbacks run;
 * out[4], out[5]: the CPU's busy and interrupt time from the end of the
 * starts to the end of the wait (ns).
 */
static __always_inline void hwtb_expire(int fac, struct hwtb_worker *w)
{
	struct hwtb_pcpu *pc = per_cpu_ptr(&hwtb_pcpu, w->cpu);
	struct hwtb_crew *c = w->crew;
	unsigned long i, n = w->nobjs[fac];
	u64 now, next, stall = 0, busy0, irq0, irq1;
	unsigned long j0;
	ktime_t exp;

	hwtb_pcpu_reset(w, n);
	now = ktime_get_ns();
	j0 = jiffies;
	w->t0 = now;
	for (i = 0; i < n; i++) {
		u64 dl = c->arg[0] + (c->arg[1] ? div64_u64(c->arg[1] * i, n) : 0);

		hwtb_start_abs(fac, hwtb_obj(fac, w->objs[fac], i), dl,
			       hwtb_jiffy_at(dl, now, j0));
		if (!(i & 1023))
			cond_resched();
	}
	w->t1 = ktime_get_ns();
	busy0 = hwtb_busy_ns(w->cpu, &irq0);

	sched_set_fifo_low(current);
	next = w->t1 + HWTB_PROBE_NS;
	while (READ_ONCE(pc->fired) < n) {
		exp = ns_to_ktime(next);
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout_range(&exp, 0, HRTIMER_MODE_ABS);
		now = ktime_get_ns();
		if (now > next && now - next > stall)
			stall = now - next;
		if (now > c->arg[2])
			break;
		next += HWTB_PROBE_NS;
		if (next <= now)
			next = now + HWTB_PROBE_NS;
	}
	sched_set_normal(current, 0);
	w->out[4] = hwtb_busy_ns(w->cpu, &irq1) - busy0;
	w->out[5] = irq1 - irq0;

	w->out[0] = READ_ONCE(pc->first);
	w->out[1] = READ_ONCE(pc->last);
	w->out[2] = stall;
	w->out[3] = READ_ONCE(pc->fired);
	w->ops = n;
}

static void hwtb_step_expire(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_expire);
}

/*
 * Lateness: start every timer for now + a random delay in [1, arg[0]] ns,
 * remember its deadline, wait until all fired (or the clock passes arg[1]).
 * out[3]: callbacks run.
 */
static __always_inline void hwtb_late(int fac, struct hwtb_worker *w)
{
	struct hwtb_pcpu *pc = per_cpu_ptr(&hwtb_pcpu, w->cpu);
	struct hwtb_crew *c = w->crew;
	unsigned long i, n = w->nobjs[fac];

	hwtb_pcpu_reset(w, n);
	for (i = 0; i < n; i++) {
		void *o = hwtb_obj(fac, w->objs[fac], i);
		u64 d = hwtb_uniform(&w->rnd, 1, c->arg[0] + 1);
		u64 now = ktime_get_ns();
		unsigned long j = jiffies;

		*hwtb_val(fac, o) = now + d;
		hwtb_start_abs(fac, o, now + d, hwtb_jiffy_at(now + d, now, j));
		if (!(i & 1023))
			cond_resched();
	}
	while (READ_ONCE(pc->fired) < n && ktime_get_ns() < c->arg[1])
		schedule_timeout_interruptible(msecs_to_jiffies(20));
	w->out[3] = READ_ONCE(pc->fired);
}

static void hwtb_step_late(struct hwtb_worker *w)
{
	hwtb_dispatch(w, hwtb_late);
}

/*
 * Spin for arg[0] ns reading the clock; sum the gaps longer than
 * %HWTB_SPIN_GAP_NS: the time interrupts, softirqs and other tasks took
 * from this CPU. out[0]: that sum.
 */
static void hwtb_step_spin(struct hwtb_worker *w)
{
	u64 start = ktime_get_ns(), prev = start, end = start + w->crew->arg[0];
	u64 now, stolen = 0;

	do {
		now = ktime_get_ns();
		if (now - prev > HWTB_SPIN_GAP_NS)
			stolen += now - prev;
		prev = now;
	} while (now < end);
	w->t0 = start;
	w->t1 = now;
	w->out[0] = stolen;
}

/* ---- helpers for the controller ----------------------------------------- */

static s64 hwtb_ns_per_op(struct hwtb_crew *c);

/*
 * ns per operation, in thousandths: the median chunk's over all workers
 * (the mean when the loops were too short for a chunk).
 */
static s64 hwtb_ns_per_op_median(struct hwtb_crew *c)
{
	unsigned int i, k, cnt = 0;
	s64 *v, med;

	for (i = 0; i < c->nr; i++)
		cnt += c->w[i].nchunks;
	if (!cnt)
		return hwtb_ns_per_op(c);
	v = kvmalloc_array(cnt, sizeof(*v), GFP_KERNEL);
	if (!v)
		return hwtb_ns_per_op(c);
	cnt = 0;
	for (i = 0; i < c->nr; i++) {
		for (k = 0; k < c->w[i].nchunks; k++)
			v[cnt++] = c->w[i].tab->chunk[k];
	}
	med = hwtb_median(v, cnt);
	kvfree(v);
	return div64_s64(med * HWTB_MILLI, HWTB_CHUNK);
}

/* Mean ns per operation over the workers, in thousandths. */
static s64 hwtb_ns_per_op(struct hwtb_crew *c)
{
	u64 ns = 0, ops = 0;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		ns += c->w[i].t1 - c->w[i].t0;
		ops += c->w[i].ops;
	}
	return ops ? div64_u64(ns * HWTB_MILLI, ops) : 0;
}

/* Operations per second of the whole crew, first start to last end. */
static s64 hwtb_throughput(struct hwtb_crew *c)
{
	u64 t0 = U64_MAX, t1 = 0, ops = 0;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		t0 = min(t0, c->w[i].t0);
		t1 = max(t1, c->w[i].t1);
		ops += c->w[i].ops;
	}
	return t1 > t0 ? div64_u64(ops * NSEC_PER_SEC, t1 - t0) * HWTB_MILLI : 0;
}

static int hwtb_tabs(struct hwtb_crew *c)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		if (c->w[i].tab)
			continue;
		c->w[i].tab = kvmalloc(sizeof(*c->w[i].tab), GFP_KERNEL);
		if (!c->w[i].tab)
			return -ENOMEM;
	}
	return 0;
}

static struct hwtb_crew *hwtb_crew_get(unsigned int nr)
{
	struct hwtb_crew *c = hwtb_crew_create(nr, HWTB_HWT);

	if (IS_ERR(c))
		return c;
	if (hwtb_tabs(c)) {
		hwtb_crew_destroy(c);
		return ERR_PTR(-ENOMEM);
	}
	return c;
}

/* Bytes the kernel holds in slab caches, and in all, right now. */
static void hwtb_mem(s64 *slab, s64 *used)
{
	*slab = (s64)(global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
		      global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B)) * PAGE_SIZE;
	*used = -(s64)global_zone_page_state(NR_FREE_PAGES) * PAGE_SIZE;
}

static u64 hwtb_timer_irqs(void)
{
	u64 n = 0;
#ifdef CONFIG_X86_LOCAL_APIC
	unsigned int cpu;

	for_each_online_cpu(cpu)
		n += hwt_apic_timer_irqs(cpu);
#endif
	return n;
}

/* Milli-units of @num / @den. */
static s64 hwtb_ratio_milli(u64 num, u64 den)
{
	return den ? div64_u64(num * HWTB_MILLI, den) : 0;
}

/* ---- the benchmarks ----------------------------------------------------- */

/* Keeps the calibration loops from being optimised away. */
static u64 hwtb_sink;

/* The calib rows, in the order printed (see hwtb_bench_calib()). */
enum {
	HWTB_C_KTIME,		/* ktime_get_ns(): CLOCK_MONOTONIC */
	HWTB_C_LOCAL_CLOCK,	/* local_clock(): the scheduler's clock */
	HWTB_C_JIFFIES,		/* a read of jiffies */
	HWTB_C_DIV64,		/* div64_u64() */
	HWTB_C_LOCK,		/* spin_lock_irqsave() + unlock on a spinlock_t */
	HWTB_C_RAW_LOCK,	/* the same on a raw_spinlock_t (the base locks) */
	HWTB_C_RAW_LOCK_IRQ,	/* raw_spin_unlock_irq() + raw_spin_lock_irq() */
	HWTB_C_IRQ_SAVE,	/* local_irq_save() + local_irq_restore() */
	HWTB_C_PREEMPT,		/* preempt_disable() + preempt_enable() */
	HWTB_C_RCU,		/* rcu_read_lock() + rcu_read_unlock() */
	HWTB_C_ATOMIC,		/* atomic64_inc() on a line no other CPU writes */
	HWTB_C_CMPXCHG,		/* atomic64_try_cmpxchg() likewise */
	HWTB_C_PERCPU,		/* this_cpu_inc() */
	HWTB_C_HLIST,		/* hlist_add_head() + __hlist_del() on a hot head */
	HWTB_C_MISS,		/* a dependent load from a line not in any cache */
	HWTB_C_HRTIMER,		/* hrtimer_start() + hrtimer_try_to_cancel() */
	HWTB_C_CALL,		/* a call of a function that is not inlined, and its return */
	HWTB_C_MEMCPY,		/* memcpy() of 64 bytes, the length known at run time */
	HWTB_C_WORDS,		/* the same 64 bytes in eight 8-byte moves */
	HWTB_NR_CALIB,
};

static const char *const hwtb_calib_name[HWTB_NR_CALIB] = {
	[HWTB_C_KTIME] = "ktime_get_ns",
	[HWTB_C_LOCAL_CLOCK] = "local_clock",
	[HWTB_C_JIFFIES] = "jiffies",
	[HWTB_C_DIV64] = "div64_u64",
	[HWTB_C_LOCK] = "spin_lock_irqsave",
	[HWTB_C_RAW_LOCK] = "raw_spin_lock_irqsave",
	[HWTB_C_RAW_LOCK_IRQ] = "raw_spin_unlock_lock_irq",
	[HWTB_C_IRQ_SAVE] = "local_irq_save",
	[HWTB_C_PREEMPT] = "preempt_disable_enable",
	[HWTB_C_RCU] = "rcu_read_lock_unlock",
	[HWTB_C_ATOMIC] = "atomic64_inc",
	[HWTB_C_CMPXCHG] = "atomic64_try_cmpxchg",
	[HWTB_C_PERCPU] = "this_cpu_inc",
	[HWTB_C_HLIST] = "hlist_add_del",
	[HWTB_C_MISS] = "cache_miss",
	[HWTB_C_HRTIMER] = "hrtimer_start_cancel",
	[HWTB_C_CALL] = "call_return",
	[HWTB_C_MEMCPY] = "memcpy_64",
	[HWTB_C_WORDS] = "copy_64_words",
};

struct hwtb_line {
	struct hwtb_line	*next;
	u8			pad[L1_CACHE_BYTES - sizeof(void *)];
};

/*
 * A random cycle through @n cache lines (Sattolo's algorithm), so that
 * every load depends on the one before and lands on a line, and mostly a
 * page, not touched for a long time.
 */
static struct hwtb_line *hwtb_chase_build(unsigned long n)
{
	struct hwtb_line *l = vmalloc(array_size(n, sizeof(*l)));
	struct rnd_state rnd;
	u32 *perm;
	unsigned long i;

	perm = kvmalloc_array(n, sizeof(*perm), GFP_KERNEL);
	if (!l || !perm) {
		vfree(l);
		kvfree(perm);
		return NULL;
	}
	prandom_seed_state(&rnd, 0x63616c69ULL);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		u32 j = prandom_u32_state(&rnd) % i;

		swap(perm[i], perm[j]);
		if (!(i & 65535))
			cond_resched();
	}
	for (i = 0; i < n; i++)
		l[perm[i]].next = &l[perm[(i + 1) % n]];
	kvfree(perm);
	return l;
}

static enum hrtimer_restart hwtb_calib_hrt_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

/* The call_return row's function: a call and a return, nothing else. */
static noinline u64 hwtb_calib_call(u64 x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

/* The calib rows' per-CPU counter and hrtimer (static: debugobjects). */
static DEFINE_PER_CPU(u64, hwtb_calib_pcpu);
static struct hrtimer hwtb_calib_hrt;
static atomic64_t hwtb_calib_atom;

/* Chunks of the calib loops: each row's value is its median chunk's. */
#define HWTB_CALIB_CHUNKS	100

/*
 * Time @m runs of @stmt in %HWTB_CALIB_CHUNKS chunks, and put the median
 * chunk's cost per run, in thousandths of a ns, into @v: a chunk during
 * which the host descheduled the vCPU does not count, as in the pair
 * loops. The loop's own cost (a compare and an increment) is included.
 */
#define HWTB_CALIB_TIME(v, m, stmt)					\
	do {								\
		static s64 _ch[HWTB_CALIB_CHUNKS];			\
		unsigned int _i, _c, _m = (m) / HWTB_CALIB_CHUNKS;	\
									\
		for (_c = 0; _c < HWTB_CALIB_CHUNKS; _c++) {		\
			u64 _t0 = ktime_get_ns();			\
									\
			for (_i = 0; _i < _m; _i++) {			\
				stmt;					\
			}						\
			_ch[_c] = div_u64((ktime_get_ns() - _t0) * HWTB_MILLI, _m); \
		}							\
		*(v) = hwtb_median(_ch, HWTB_CALIB_CHUNKS);		\
	} while (0)

/*
 * What the emulator makes of the primitives the facilities are built from,
 * each in ns per use including its loop: the clocks, jiffies, a 64-bit
 * division, lock rounds, interrupt and preemption toggles, an RCU read
 * section, atomics, a per-CPU counter, list operations, a cache miss, an
 * hrtimer start+cancel, a function call and two ways of copying 64 bytes.
 * The breakdown in docs/benchmarks.md prices each facility's steps in these.
 */
static int hwtb_bench_calib(void)
{
	static s64 v[HWTB_NR_CALIB][HWTB_MAX_REPS];
	const unsigned int m = 100000;
	unsigned long flags;
	spinlock_t lock;	/* uncontended: only its cost matters */
	raw_spinlock_t raw;
	struct hlist_head head = HLIST_HEAD_INIT;
	struct hlist_node node, other;
	struct hwtb_line *chase, *p;
	struct hrtimer *hrt = &hwtb_calib_hrt;
	atomic64_t *atom = &hwtb_calib_atom;
	unsigned int r, k;
	u64 acc = 0, d = hwtb_tick();
	u64 src[8] = { 1 }, dst[8];
	size_t len = sizeof(src);
	s64 c;

	chase = hwtb_chase_build(max(hwtb_calib_lines, 2UL));
	if (!chase)
		return -ENOMEM;
	p = chase;
	spin_lock_init(&lock);
	raw_spin_lock_init(&raw);
	hlist_add_head(&other, &head);
	hwt_hrtimer_setup(hrt, hwtb_calib_hrt_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL_PINNED_SOFT);
	for (r = 0; r < hwtb_reps; r++) {
		HWTB_CALIB_TIME(&v[HWTB_C_KTIME][r], m, acc += ktime_get_ns());
		HWTB_CALIB_TIME(&v[HWTB_C_LOCAL_CLOCK][r], m, acc += local_clock());
		HWTB_CALIB_TIME(&v[HWTB_C_JIFFIES][r], m, acc += READ_ONCE(jiffies));
		HWTB_CALIB_TIME(&v[HWTB_C_DIV64][r], m,
				acc += div64_u64(acc | BIT_ULL(40), d + (_i & 1)));
		HWTB_CALIB_TIME(&v[HWTB_C_LOCK][r], m,
				spin_lock_irqsave(&lock, flags); acc++;
				spin_unlock_irqrestore(&lock, flags));
		HWTB_CALIB_TIME(&v[HWTB_C_RAW_LOCK][r], m,
				raw_spin_lock_irqsave(&raw, flags); acc++;
				raw_spin_unlock_irqrestore(&raw, flags));
		/* As the expiry paths do around each callback. */
		raw_spin_lock_irq(&raw);
		HWTB_CALIB_TIME(&v[HWTB_C_RAW_LOCK_IRQ][r], m,
				raw_spin_unlock_irq(&raw); acc++; raw_spin_lock_irq(&raw));
		raw_spin_unlock_irq(&raw);
		HWTB_CALIB_TIME(&v[HWTB_C_IRQ_SAVE][r], m,
				local_irq_save(flags); acc++; local_irq_restore(flags));
		HWTB_CALIB_TIME(&v[HWTB_C_PREEMPT][r], m,
				preempt_disable(); acc++; preempt_enable());
		HWTB_CALIB_TIME(&v[HWTB_C_RCU][r], m,
				rcu_read_lock(); acc++; rcu_read_unlock());
		HWTB_CALIB_TIME(&v[HWTB_C_ATOMIC][r], m, atomic64_inc(atom));
		c = atomic64_read(atom);
		HWTB_CALIB_TIME(&v[HWTB_C_CMPXCHG][r], m,
				acc += atomic64_try_cmpxchg(atom, &c, c + 1));
		HWTB_CALIB_TIME(&v[HWTB_C_PERCPU][r], m, this_cpu_inc(hwtb_calib_pcpu));
		HWTB_CALIB_TIME(&v[HWTB_C_HLIST][r], m,
				hlist_add_head(&node, &head); __hlist_del(&node));
		HWTB_CALIB_TIME(&v[HWTB_C_MISS][r], m, p = READ_ONCE(p->next));
		/* Far away: it never fires, as a wheel's base hrtimer mostly. */
		HWTB_CALIB_TIME(&v[HWTB_C_HRTIMER][r], m,
				hrtimer_start(hrt, ns_to_ktime(3600 * NSEC_PER_SEC),
					      HRTIMER_MODE_REL_PINNED_SOFT);
				hrtimer_try_to_cancel(hrt));
		HWTB_CALIB_TIME(&v[HWTB_C_CALL][r], m, acc = hwtb_calib_call(acc));
		/* The length as the compiler cannot know it: a string move. */
		asm volatile("" : "+r" (len));
		HWTB_CALIB_TIME(&v[HWTB_C_MEMCPY][r], m,
				memcpy(dst, src, len); src[0] += dst[7]);
		HWTB_CALIB_TIME(&v[HWTB_C_WORDS][r], m,
				for (k = 0; k < 8; k++) {
					memcpy(&dst[k], &src[k], 8);
					barrier();
				}
				src[0] += dst[7]);
		cond_resched();
	}
	hrtimer_cancel(hrt);
	WRITE_ONCE(hwtb_sink, acc + (unsigned long)p + atomic64_read(atom) + src[0] +
		   per_cpu(hwtb_calib_pcpu, raw_smp_processor_id()));
	vfree(chase);
	for (k = 0; k < HWTB_NR_CALIB; k++)
		hwtb_result("calib", -1, 0, hwtb_calib_name[k], "ns", v[k], hwtb_reps);
	return 0;
}

static void hwtb_bench_memory(void)
{
	hwtb_result_one("memory", HWTB_HWT, 0, "sizeof", "bytes",
			sizeof(struct hwtimer) * HWTB_MILLI);
	hwtb_result_one("memory", HWTB_TL, 0, "sizeof", "bytes",
			sizeof(struct timer_list) * HWTB_MILLI);
	hwtb_result_one("memory", HWTB_HRT, 0, "sizeof", "bytes",
			sizeof(struct hrtimer) * HWTB_MILLI);
}

/*
 * Start+cancel pairs and modifies with N timers pending, for each N: all
 * three facilities are populated, then take turns rep by rep.
 */
/*
 * @total timers of each facility, spread over the crew's CPUs, started
 * with random delays of 1 to 100 wheel revolutions.
 */
static int hwtb_crew_populate(struct hwtb_crew *c, unsigned long total)
{
	u64 rev = hwtb_rev_ns();
	int fac, ret;

	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		ret = hwtb_crew_alloc(c, fac, total, HWTB_CB_COUNT);
		if (ret)
			return ret;
		c->fac = fac;
		c->arg[0] = rev;
		c->arg[1] = 100 * rev;
		hwtb_crew_run(c, hwtb_step_populate);
	}
	return 0;
}

/* Cancel and free every facility's timers. */
static void hwtb_crew_clear(struct hwtb_crew *c)
{
	int fac;

	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		c->fac = fac;
		hwtb_crew_run(c, hwtb_step_teardown);
		hwtb_crew_free(c, fac);
	}
}

/* The median pair of hwtb_step_pairs_clock() in each of hwtb_reps runs. */
static void hwtb_pairs_clock_reps(struct hwtb_crew *c, s64 *pair)
{
	unsigned int r;

	c->fac = HWTB_TL;
	for (r = 0; r < hwtb_reps; r++) {
		hwtb_crew_run(c, hwtb_step_pairs_clock);
		pair[r] = hwtb_ns_per_op_median(c);
	}
}

static int hwtb_bench_startcancel(void)
{
	/* Static, as all the tables below: runs are serialised by hwtb_mutex. */
	static s64 pair[HWTB_NR_FAC][HWTB_MAX_REPS], mod[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 pmean[HWTB_NR_FAC][HWTB_MAX_REPS], mmean[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 pclk[HWTB_MAX_REPS];
	unsigned int s, r, nr = num_online_cpus();
	u64 rev = hwtb_rev_ns();
	struct hwtb_crew *c;
	int fac, ret = 0;

	c = hwtb_crew_get(nr);
	if (IS_ERR(c))
		return PTR_ERR(c);

	for (s = 0; s < hwtb_nsizes; s++) {
		unsigned long n = hwtb_sizes[s];
		struct hwtimer_stats st0, st1;
		u64 t0, t1;

		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			s64 slab0, used0, slab1, used1;

			ret = hwtb_crew_alloc(c, fac, n, HWTB_CB_COUNT);
			if (ret)
				goto out;
			c->fac = fac;
			c->arg[0] = rev;
			c->arg[1] = 100 * rev;
			hwtb_mem(&slab0, &used0);
			hwtb_crew_run(c, hwtb_step_populate);
			hwtb_mem(&slab1, &used1);
			hwtb_start_ns[fac] = div64_u64(c->w[0].t1 - c->w[0].t0,
						       max(c->w[0].ops, 1ULL));
			if (s == hwtb_nsizes - 1 && n) {
				hwtb_result_one("memory", fac, n, "slab_per_timer", "bytes",
						div64_s64((slab1 - slab0) * HWTB_MILLI, n));
				hwtb_result_one("memory", fac, n, "kmem_per_timer", "bytes",
						div64_s64((used1 - used0) * HWTB_MILLI, n));
			}
		}

		hwtimer_wheel_stats(hwtb_wheel, &st0);
		t0 = ktime_get_ns();
		c->arg[2] = hwtb_pairs;
		for (r = 0; r < hwtb_reps; r++) {
			for (fac = 0; fac < HWTB_NR_FAC; fac++) {
				c->fac = fac;
				hwtb_crew_run(c, hwtb_step_pairs);
				pair[fac][r] = hwtb_ns_per_op_median(c);
				pmean[fac][r] = hwtb_ns_per_op(c);
			}
		}
		hwtb_pairs_clock_reps(c, pclk);
		for (r = 0; r < hwtb_reps; r++) {
			/* Another stretch of the delay table each repetition. */
			c->arg[3] = r * HWTB_MOD_STRIDE;
			for (fac = 0; fac < HWTB_NR_FAC; fac++) {
				c->fac = fac;
				hwtb_crew_run(c, hwtb_step_modify);
				mod[fac][r] = hwtb_ns_per_op_median(c);
				mmean[fac][r] = hwtb_ns_per_op(c);
			}
		}
		t1 = ktime_get_ns();
		hwtimer_wheel_stats(hwtb_wheel, &st1);
		/* One more modify run, split by where the timer went. */
		c->arg[3] = hwtb_reps * HWTB_MOD_STRIDE;
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			c->fac = fac;
			hwtb_crew_run(c, hwtb_step_modsplit);
			hwtb_modsplit_results(c, fac, n);
		}

		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			hwtb_result("startcancel", fac, n, "pair", "ns", pair[fac], hwtb_reps);
			hwtb_result("startcancel", fac, n, "pair_mean", "ns", pmean[fac],
				    hwtb_reps);
			hwtb_result("modify", fac, n, "modify", "ns", mod[fac], hwtb_reps);
			hwtb_result("modify", fac, n, "modify_mean", "ns", mmean[fac],
				    hwtb_reps);
		}
		hwtb_result("startcancel", HWTB_TL, n, "pair_clock", "ns", pclk, hwtb_reps);
		/* Cascades while N timers of 1..100 revolutions stay pending. */
		hwtb_result_one("startcancel", HWTB_HWT, n, "visited_per_tick", "entries",
				hwtb_ratio_milli(st1.visited - st0.visited,
						 div64_u64(t1 - t0, hwtb_tick())));

		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			c->fac = fac;
			hwtb_crew_run(c, hwtb_step_teardown);
			hwtb_crew_free(c, fac);
		}
	}
out:
	hwtb_crew_destroy(c);
	return ret;
}

/*
 * Start+cancel pairs with nothing else pending on the CPU (k = 0) and with
 * one timer pending there (k = 1). With nothing pending, a cancel empties
 * hwtimer's base, which cancels the base's hrtimer, and the next start
 * programs it again; timer_list and hrtimer keep the kernel's own timers
 * (the tick, the watchdogs) on their bases, as in any real system.
 */
static int hwtb_bench_startidle(void)
{
	static s64 pair[2][HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 pmean[2][HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 pclk[2][HWTB_MAX_REPS];
	unsigned int k, r, nr = num_online_cpus();
	struct hwtb_crew *c;
	int fac, ret = 0;

	c = hwtb_crew_get(nr);
	if (IS_ERR(c))
		return PTR_ERR(c);

	for (k = 0; k < 2; k++) {
		ret = hwtb_crew_populate(c, k * nr);
		if (ret)
			goto out;
		c->arg[2] = hwtb_pairs;
		for (r = 0; r < hwtb_reps; r++) {
			for (fac = 0; fac < HWTB_NR_FAC; fac++) {
				c->fac = fac;
				hwtb_crew_run(c, hwtb_step_pairs);
				pair[k][fac][r] = hwtb_ns_per_op_median(c);
				pmean[k][fac][r] = hwtb_ns_per_op(c);
			}
		}
		hwtb_pairs_clock_reps(c, pclk[k]);
		/* N is per CPU here: what else is pending on the CPU's base. */
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			hwtb_result("startcancel_idle", fac, k, "pair", "ns", pair[k][fac],
				    hwtb_reps);
			hwtb_result("startcancel_idle", fac, k, "pair_mean", "ns",
				    pmean[k][fac], hwtb_reps);
		}
		hwtb_result("startcancel_idle", HWTB_TL, k, "pair_clock", "ns", pclk[k],
			    hwtb_reps);
		hwtb_crew_clear(c);
	}
out:
	hwtb_crew_destroy(c);
	return ret;
}

/*
 * Where to put the deadline so that starting @n_per_cpu timers is done by
 * then: after the time the last expiry run of @fac took to start them, or
 * else after an estimate from the start+cancel run.
 */
static u64 hwtb_deadline_after(int fac, unsigned long n_per_cpu)
{
	u64 per = hwtb_start_ns[fac] ? hwtb_start_ns[fac] : HWTB_START_GUESS_NS;
	u64 pop = hwtb_pop_ns[fac] ? hwtb_pop_ns[fac] : 2 * per * n_per_cpu;

	return ktime_get_ns() + pop + pop / 4 + 300 * NSEC_PER_MSEC;
}

/*
 * Gather an expiry run's results. Return: false if starting the timers
 * ended after their deadline (some may have fired meanwhile, so the run
 * does not measure what it should).
 */
static bool hwtb_expiry_collect(struct hwtb_crew *c, int fac, u64 deadline,
				s64 *span, s64 *stall, s64 *cpu, s64 *irq,
				const char *what)
{
	u64 first = U64_MAX, last = 0, fired = 0, n = 0, ready = 0, pop = 0;
	u64 busy = 0, irqs = 0;
	s64 st = 0;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		struct hwtb_worker *w = &c->w[i];

		fired += w->out[3];
		n += w->ops;
		ready = max(ready, w->t1);
		pop = max(pop, w->t1 - w->t0);
		/* When each CPU's callbacks ran, from the deadline, for readers. */
		hwtb_out("D expiry %s %s cpu %u: %s %lld us, %s %lld us, %s %lld us\n",
			 what, hwtb_fac_name[fac], w->cpu, "first callback after the deadline",
			 div_s64(w->out[0] - (s64)deadline, NSEC_PER_USEC),
			 "last", div_s64(w->out[1] - (s64)deadline, NSEC_PER_USEC),
			 "longest stall", div_s64(w->out[2], NSEC_PER_USEC));
		if (w->out[3]) {
			first = min_t(u64, first, w->out[0]);
			last = max_t(u64, last, w->out[1]);
		}
		st = max(st, w->out[2]);
		busy += w->out[4];
		irqs += w->out[5];
	}
	/* CPU time per expiration, every CPU, softirq and interrupts included. */
	*cpu = hwtb_ratio_milli(busy, max(n, 1ULL));
	*irq = hwtb_ratio_milli(irqs, max(n, 1ULL));
	if (fired != n)
		hwtb_error("expiry %s %s: %llu of %llu callbacks ran", what,
			   hwtb_fac_name[fac], fired, n);
	*span = last > first && fired == n ? (last - first) * HWTB_MILLI : 0;
	hwtb_pop_ns[fac] = pop;
	*stall = st * HWTB_MILLI;
	if (ready <= deadline)
		return true;
	hwtb_out("N expiry %s %s: starting the timers ended %llu us after their deadline\n",
		 what, hwtb_fac_name[fac], div_u64(ready - deadline, NSEC_PER_USEC));
	return false;
}

static int hwtb_bench_expiry(void)
{
	static s64 span[2][HWTB_NR_FAC][HWTB_MAX_REPS], stall[2][HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 cpu[2][HWTB_NR_FAC][HWTB_MAX_REPS], irq[2][HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 passes[2][HWTB_MAX_REPS];
	static const char *const what[2] = { "same_tick", "spread" };
	unsigned int r, v, nr = num_online_cpus();
	unsigned long n = hwtb_expiry_n;
	u64 rev = hwtb_rev_ns();
	struct hwtb_crew *c;
	int fac, ret = 0;

	c = hwtb_crew_get(nr);
	if (IS_ERR(c))
		return PTR_ERR(c);
	memset(hwtb_pop_ns, 0, sizeof(hwtb_pop_ns));
	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		ret = hwtb_crew_alloc(c, fac, n, HWTB_CB_EXPIRE);
		if (ret)
			goto out;
	}

	for (r = 0; r < hwtb_expiry_reps; r++) {
		for (v = 0; v < 2; v++) {
			for (fac = 0; fac < HWTB_NR_FAC; fac++) {
				u64 dl = hwtb_deadline_after(fac, c->w[0].nobjs[fac]);

				struct hwtimer_stats st0, st1;
				unsigned int try;

				/* A run whose deadline came too soon is run again. */
				for (try = 0; try < HWTB_EXPIRY_TRIES; try++) {
					if (try)
						dl = hwtb_deadline_after(fac, c->w[0].nobjs[fac]);
					c->fac = fac;
					c->arg[0] = dl;
					c->arg[1] = v ? rev : 0;
					c->arg[2] = dl + c->arg[1] + 120 * NSEC_PER_SEC;
					hwtimer_wheel_stats(hwtb_wheel, &st0);
					hwtb_crew_run(c, hwtb_step_expire);
					hwtimer_wheel_stats(hwtb_wheel, &st1);
					if (hwtb_expiry_collect(c, fac, dl, &span[v][fac][r],
								&stall[v][fac][r], &cpu[v][fac][r],
								&irq[v][fac][r], what[v]))
						break;
				}
				if (fac == HWTB_HWT)
					passes[v][r] = (st1.wakeups - st0.wakeups) * HWTB_MILLI;
			}
		}
	}
	for (v = 0; v < 2; v++) {
		/* Runs of hwtimer's expiry path: it yields every HWT_EXPIRE_BATCH. */
		hwtb_result("expiry", HWTB_HWT, n, v ? "spread_wakeups" : "same_tick_wakeups",
			    "wakeups", passes[v], hwtb_expiry_reps);
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			hwtb_result("expiry", fac, n, v ? "spread_first_to_last" :
				    "same_tick_first_to_last", "ns", span[v][fac],
				    hwtb_expiry_reps);
			hwtb_result("expiry", fac, n, v ? "spread_longest_stall" :
				    "same_tick_longest_stall", "ns", stall[v][fac],
				    hwtb_expiry_reps);
			hwtb_result("expiry", fac, n, v ? "spread_cpu_per_expiry" :
				    "same_tick_cpu_per_expiry", "ns", cpu[v][fac],
				    hwtb_expiry_reps);
			hwtb_result("expiry", fac, n, v ? "spread_irq_per_expiry" :
				    "same_tick_irq_per_expiry", "ns", irq[v][fac],
				    hwtb_expiry_reps);
		}
	}
out:
	hwtb_crew_destroy(c);
	return ret;
}

/*
 * Per-tick cost: N timers 1 to 2 hours away and nothing due. Entries the
 * wheel visits per elapsed tick (hwtimer's counters), and CPU time taken
 * from a spinning worker per tick, against the same window with nothing
 * pending.
 */
static int hwtb_bench_tick(void)
{
	static s64 base[HWTB_MAX_REPS], stolen[HWTB_NR_FAC][HWTB_MAX_REPS];
	unsigned int reps = hwtb_tick_reps;
	static s64 extra[HWTB_MAX_REPS];
	static s64 visited[HWTB_MAX_REPS], wakeups[HWTB_MAX_REPS];
	unsigned int r, i, nr = num_online_cpus();
	u64 win = (u64)hwtb_window_ms * NSEC_PER_MSEC;
	u64 ticks = max(div64_u64(win, hwtb_tick()), 1ULL) * nr;
	unsigned long n = hwtb_far_n;
	struct hwtb_crew *c;
	int fac, ret = 0;

	c = hwtb_crew_get(nr);
	if (IS_ERR(c))
		return PTR_ERR(c);
	c->arg[0] = win;
	for (r = 0; r < reps; r++) {
		u64 sum = 0;

		hwtb_crew_run(c, hwtb_step_spin);
		for (i = 0; i < nr; i++)
			sum += c->w[i].out[0];
		base[r] = div64_u64(sum * HWTB_MILLI, ticks);
	}
	hwtb_result("tick", -1, 0, "stolen_per_tick", "ns", base, reps);

	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		s64 bmed;

		ret = hwtb_crew_alloc(c, fac, n, HWTB_CB_COUNT);
		if (ret)
			goto out;
		c->fac = fac;
		c->arg[0] = 3600 * NSEC_PER_SEC;
		c->arg[1] = 7200 * NSEC_PER_SEC;
		hwtb_crew_run(c, hwtb_step_populate);
		c->arg[0] = win;
		for (r = 0; r < reps; r++) {
			struct hwtimer_stats st0, st1;
			u64 sum = 0, t0, t1;

			hwtimer_wheel_stats(hwtb_wheel, &st0);
			t0 = ktime_get_ns();
			hwtb_crew_run(c, hwtb_step_spin);
			t1 = ktime_get_ns();
			hwtimer_wheel_stats(hwtb_wheel, &st1);
			for (i = 0; i < nr; i++)
				sum += c->w[i].out[0];
			stolen[fac][r] = div64_u64(sum * HWTB_MILLI, ticks);
			/* Per tick of one CPU's base: the counters sum the bases. */
			t1 = max(div64_u64(t1 - t0, hwtb_tick()), 1ULL) * nr;
			visited[r] = hwtb_ratio_milli(st1.visited - st0.visited, t1);
			wakeups[r] = hwtb_ratio_milli(st1.wakeups - st0.wakeups, t1);
		}
		memcpy(extra, base, sizeof(extra));
		bmed = hwtb_median(extra, reps);
		for (r = 0; r < reps; r++)
			extra[r] = stolen[fac][r] - bmed;
		hwtb_result("tick", fac, n, "stolen_per_tick", "ns", stolen[fac], reps);
		hwtb_result("tick", fac, n, "extra_per_tick", "ns", extra, reps);
		if (fac == HWTB_HWT) {
			hwtb_result("tick", fac, n, "visited_per_tick", "entries", visited,
				    reps);
			hwtb_result("tick", fac, n, "wakeups_per_tick", "wakeups", wakeups,
				    reps);
		}
		hwtb_crew_run(c, hwtb_step_teardown);
		hwtb_crew_free(c, fac);
	}
out:
	hwtb_crew_destroy(c);
	return ret;
}

/* The wheel of the cascade-cycle run (hwtb_bench_cycle()). */
static struct hwtimer_wheel *hwtb_cycle_wheel;

/*
 * Set up every hwtimer of the worker on the cycle wheel and start it
 * arg[0] + a random number in [0, arg[1]) ticks from now.
 */
static void hwtb_step_cycle_start(struct hwtb_worker *w)
{
	struct hwtb_hwt *o = w->objs[HWTB_HWT];
	u64 tick = hwtimer_wheel_tick_ns(hwtb_cycle_wheel);
	unsigned long i, n = w->nobjs[HWTB_HWT];

	hwtb_pcpu_reset(w, n);
	w->t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		u64 d = w->crew->arg[0] + hwtb_uniform(&w->rnd, 0, w->crew->arg[1]);

		hwtimer_setup(&o[i].t, hwtb_cycle_wheel, hwtb_cb_hwt_count);
		hwtimer_start(&o[i].t, d * tick, HWTIMER_MODE_REL);
		if (!(i & 1023))
			cond_resched();
	}
	w->t1 = ktime_get_ns();
}

/* Sleep until every timer of the worker fired or the clock passes arg[2]. */
static void hwtb_step_cycle_wait(struct hwtb_worker *w)
{
	struct hwtb_pcpu *pc = per_cpu_ptr(&hwtb_pcpu, w->cpu);

	while ((READ_ONCE(pc->fired) < w->nobjs[HWTB_HWT] ||
		ktime_get_ns() < w->crew->arg[3]) && ktime_get_ns() < w->crew->arg[2])
		schedule_timeout_interruptible(msecs_to_jiffies(20));
	w->out[3] = READ_ONCE(pc->fired);
}

/*
 * The far-future tick over a full level-2 cascade cycle. The real wheel's
 * level 2 turns once in slots * 64 * 64 ticks (2.3 hours with a 4 ms tick
 * and 512 slots), too long to wait for; its work per tick depends on the
 * timers' distances in ticks, not on the tick's length. So the run uses a
 * second wheel with the same number of slots and a short tick
 * (cycle_tick_ns): far_n timers are started (level 2) with random
 * distances of a half to a whole level-2 rotation (1.2 to 2.3 hours with a
 * 4 ms tick: "1 to 2 hours away"), and the wheel runs for one full
 * rotation of level 2 and until all have fired. Every timer is cascaded
 * down and expired in that time: entries visited, cascaded and fired per
 * elapsed tick of one base, amortised over the whole cycle.
 */
static int hwtb_bench_cycle(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "hwtbench-cycle",
		.tick_ns = hwtb_cycle_tick_ns,
		.slots = hwtb_cycle_slots ? hwtb_cycle_slots : hwtb_slots,
	};
	unsigned int i, nr = num_online_cpus();
	struct hwtimer_stats st0, st1;
	u64 rot, tick, t0, t1, ticks, fired = 0;
	struct hwtb_crew *c;
	int ret;

	hwtb_cycle_wheel = hwtimer_wheel_create(&cfg);
	if (IS_ERR(hwtb_cycle_wheel)) {
		ret = PTR_ERR(hwtb_cycle_wheel);
		hwtb_cycle_wheel = NULL;
		return ret;
	}
	tick = hwtimer_wheel_tick_ns(hwtb_cycle_wheel);
	/* Level 2 spans slots * 64 * 64 ticks: its full rotation. */
	rot = (u64)hwtimer_wheel_slots(hwtb_cycle_wheel) * 64 * 64;
	c = hwtb_crew_get(nr);
	if (IS_ERR(c)) {
		ret = PTR_ERR(c);
		goto out_wheel;
	}
	ret = hwtb_crew_alloc(c, HWTB_HWT, hwtb_far_n, HWTB_CB_COUNT);
	if (ret)
		goto out;
	c->arg[0] = rot / 2;
	c->arg[1] = rot - rot / 2;
	hwtimer_wheel_stats(hwtb_cycle_wheel, &st0);
	t0 = ktime_get_ns();
	hwtb_crew_run(c, hwtb_step_cycle_start);
	c->arg[3] = t0 + rot * tick;
	c->arg[2] = c->arg[3] + 2 * rot * tick + 120 * NSEC_PER_SEC;
	hwtb_crew_run(c, hwtb_step_cycle_wait);
	t1 = ktime_get_ns();
	hwtimer_wheel_stats(hwtb_cycle_wheel, &st1);
	for (i = 0; i < nr; i++)
		fired += c->w[i].out[3];
	if (fired != hwtb_far_n)
		hwtb_error("cycle: %llu of %lu callbacks ran", fired, hwtb_far_n);
	/* Per tick of one CPU's base: the counters sum the bases. */
	ticks = max(div64_u64(t1 - t0, tick), 1ULL) * nr;
	hwtb_out("I cycle_tick_ns %llu\nI cycle_ticks %llu\n", tick, div64_u64(t1 - t0, tick));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "visited_per_tick", "entries",
			hwtb_ratio_milli(st1.visited - st0.visited, ticks));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "cascaded_per_tick", "entries",
			hwtb_ratio_milli(st1.cascaded - st0.cascaded, ticks));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "fired_per_tick", "timers",
			hwtb_ratio_milli(st1.fired - st0.fired, ticks));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "cascades_per_timer", "moves",
			hwtb_ratio_milli(st1.cascaded - st0.cascaded, hwtb_far_n));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "wakeups_per_tick", "wakeups",
			hwtb_ratio_milli(st1.wakeups - st0.wakeups, ticks));
	hwtb_result_one("cycle", HWTB_HWT, hwtb_far_n, "max_hold", "entries",
			st1.max_hold * HWTB_MILLI);
out:
	hwtb_crew_destroy(c);
out_wheel:
	if (hwtimer_wheel_destroy(hwtb_cycle_wheel, NULL, NULL))
		hwtb_error("cycle: timers were left on the wheel");
	hwtb_cycle_wheel = NULL;
	return ret;
}

/* One idle window: hwtimer wheel wakeups and local timer interrupts. */
static void hwtb_idle_window(s64 *wakeups, s64 *irqs)
{
	struct hwtimer_stats st0, st1;
	u64 i0, i1;

	hwtimer_wheel_stats(hwtb_wheel, &st0);
	i0 = hwtb_timer_irqs();
	msleep_interruptible(hwtb_idle_ms);
	i1 = hwtb_timer_irqs();
	hwtimer_wheel_stats(hwtb_wheel, &st1);
	*wakeups = (st1.wakeups - st0.wakeups) * HWTB_MILLI;
	*irqs = (i1 - i0) * HWTB_MILLI;
}

static int hwtb_bench_idle(void)
{
	s64 wk[HWTB_MAX_REPS], irq[HWTB_MAX_REPS];
	unsigned int r, reps = hwtb_idle_reps;
	struct hwtb_hwt *h;
	struct hwtb_tl *l;
	struct hwtb_hrt *t;
	void *one[HWTB_NR_FAC];
	int fac, ret = 0;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!h || !l || !t) {
		ret = -ENOMEM;
		goto out;
	}
	one[HWTB_HWT] = h;
	one[HWTB_TL] = l;
	one[HWTB_HRT] = t;

	for (r = 0; r < reps; r++)
		hwtb_idle_window(&wk[r], &irq[r]);
	hwtb_result("idle", HWTB_HWT, 0, "wakeups_nothing_pending", "wakeups", wk, reps);
	hwtb_result("idle", -1, 0, "timer_irqs_nothing_pending", "irqs", irq, reps);
	/* What a wheel that ticks whether or not it has work would cost. */
	hwtb_result_one("idle", -1, 0, "ticking_wheel_wakeups", "wakeups",
			div64_u64((u64)hwtb_idle_ms * NSEC_PER_MSEC, hwtb_tick()) *
			HWTB_MILLI);

	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		hwtb_setup(fac, one[fac], HWTB_CB_COUNT);
		hwtb_start(fac, one[fac], 3600 * NSEC_PER_SEC,
			   hwtb_jiffies(3600 * NSEC_PER_SEC));
		for (r = 0; r < reps; r++)
			hwtb_idle_window(&wk[r], &irq[r]);
		hwtb_cancel_sync(fac, one[fac]);
		if (fac == HWTB_HWT)
			hwtb_result("idle", fac, 1, "wakeups_one_timer_1h", "wakeups", wk, reps);
		hwtb_result("idle", fac, 1, "timer_irqs_one_timer_1h", "irqs", irq, reps);
	}
out:
	kfree(h);
	kfree(l);
	kfree(t);
	return ret;
}

/* The CPU counts the scaling run compares with one: 2, 4, 8... and all. */
static unsigned int hwtb_next_k(unsigned int k, unsigned int nr)
{
	return k >= nr ? nr + 1 : min(2 * k, nr);
}

/* The primitives the scaling run compares on 1 and on k CPUs at once. */
enum { HWTB_SP_CLOCK, HWTB_SP_LOCK, HWTB_SP_JIFFIES, HWTB_NR_SP };

static const char *const hwtb_sp_name[HWTB_NR_SP] = {
	[HWTB_SP_CLOCK] = "ktime_get_ns_speedup",
	[HWTB_SP_LOCK] = "raw_spin_lock_irqsave_speedup",
	[HWTB_SP_JIFFIES] = "jiffies_speedup",
};

/*
 * arg[2] uses of primitive arg[3] (HWTB_SP_*), for the scaling run's
 * reference rows: a clock read, a round of a lock of the worker's own (as
 * a base lock is) and a jiffies read. What does not scale here does not
 * scale for any facility built on it.
 */
static void hwtb_step_prim(struct hwtb_worker *w)
{
	unsigned long i, m = w->crew->arg[2];
	raw_spinlock_t lock;
	unsigned long flags;
	u64 acc = 0;

	raw_spin_lock_init(&lock);
	w->t0 = ktime_get_ns();
	for (i = 0; i < m; i++) {
		switch (w->crew->arg[3]) {
		case HWTB_SP_CLOCK:
			acc += ktime_get_ns();
			break;
		case HWTB_SP_LOCK:
			raw_spin_lock_irqsave(&lock, flags);
			acc++;
			raw_spin_unlock_irqrestore(&lock, flags);
			break;
		default:
			acc += READ_ONCE(jiffies);
			break;
		}
	}
	w->t1 = ktime_get_ns();
	w->ops = m;
	WRITE_ONCE(hwtb_sink, acc);
}

/* Start+cancel throughput of 1, 2, 4... CPUs and of all of them. */
static int hwtb_bench_scaling(void)
{
	static s64 thr[HWTB_NR_FAC][HWTB_MAX_REPS], base[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 cost[HWTB_NR_FAC][HWTB_MAX_REPS], cost1[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 speed[HWTB_MAX_REPS];
	unsigned int nr = num_online_cpus(), k, r, p;
	struct hwtb_crew *one, *c = NULL;
	u64 rev = hwtb_rev_ns();
	int fac, ret = 0;

	one = hwtb_crew_get(1);
	if (IS_ERR(one))
		return PTR_ERR(one);

	for (k = 2; k <= nr; k = hwtb_next_k(k, nr)) {
		c = hwtb_crew_get(k);
		if (IS_ERR(c)) {
			ret = PTR_ERR(c);
			break;
		}
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			ret = hwtb_crew_alloc(one, fac, hwtb_sizes[0], HWTB_CB_COUNT);
			if (!ret)
				ret = hwtb_crew_alloc(c, fac, hwtb_sizes[0] * k, HWTB_CB_COUNT);
			if (ret)
				goto out;
		}
		/* Some timers pending on every CPU, as in real use. */
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			struct hwtb_crew *cc[2] = { one, c };
			int i;

			for (i = 0; i < 2; i++) {
				cc[i]->fac = fac;
				cc[i]->arg[0] = rev;
				cc[i]->arg[1] = 100 * rev;
				cc[i]->arg[2] = hwtb_scale_pairs;
				hwtb_crew_run(cc[i], hwtb_step_populate);
			}
		}
		/* Alternate 1 and k CPUs, rep by rep, facility by facility. */
		for (r = 0; r < hwtb_reps; r++) {
			for (fac = 0; fac < HWTB_NR_FAC; fac++) {
				one->fac = fac;
				hwtb_crew_run(one, hwtb_step_pairs);
				base[fac][r] = hwtb_throughput(one);
				cost1[fac][r] = hwtb_ns_per_op_median(one);
				c->fac = fac;
				hwtb_crew_run(c, hwtb_step_pairs);
				thr[fac][r] = hwtb_throughput(c);
				cost[fac][r] = hwtb_ns_per_op_median(c);
			}
		}
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			for (r = 0; r < hwtb_reps; r++)
				speed[r] = base[fac][r] ?
					   div64_s64(thr[fac][r] * HWTB_MILLI, base[fac][r]) : 0;
			hwtb_result("scaling", fac, k, "speedup", "x", speed, hwtb_reps);
			/*
			 * The same from the median chunk's cost per operation:
			 * k CPUs at once against one, when each CPU was not
			 * descheduled by the host.
			 */
			for (r = 0; r < hwtb_reps; r++)
				speed[r] = cost[fac][r] ?
					   div64_s64(k * cost1[fac][r] * HWTB_MILLI,
						     cost[fac][r]) : 0;
			hwtb_result("scaling", fac, k, "speedup_from_op_cost", "x", speed,
				    hwtb_reps);
			hwtb_result("scaling", fac, k, "throughput", "pairs/s", thr[fac],
				    hwtb_reps);
			if (k == 2)
				hwtb_result("scaling", fac, 1, "throughput", "pairs/s",
					    base[fac], hwtb_reps);
		}
		/* The same for the primitives underneath, alternating likewise. */
		for (p = 0; p < HWTB_NR_SP; p++) {
			for (r = 0; r < hwtb_reps; r++) {
				one->arg[2] = hwtb_scale_pairs;
				one->arg[3] = p;
				hwtb_crew_run(one, hwtb_step_prim);
				c->arg[2] = hwtb_scale_pairs;
				c->arg[3] = p;
				hwtb_crew_run(c, hwtb_step_prim);
				speed[r] = hwtb_ratio_milli(hwtb_throughput(c),
							    hwtb_throughput(one));
			}
			hwtb_result("scaling", -1, k, hwtb_sp_name[p], "x", speed, hwtb_reps);
		}
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			hwtb_crew_free(one, fac);
			hwtb_crew_free(c, fac);
		}
		hwtb_crew_destroy(c);
		c = NULL;
	}
out:
	if (!IS_ERR_OR_NULL(c))
		hwtb_crew_destroy(c);
	hwtb_crew_destroy(one);
	return ret;
}

/*
 * Lateness of late_n timers of each facility with random delays over
 * late_revs revolutions, reported as @group; the histograms only with
 * @hist.
 */
static int hwtb_lateness_run(const char *group, bool hist_out)
{
	static s64 p50[HWTB_NR_FAC][HWTB_MAX_REPS], p99[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 mx[HWTB_NR_FAC][HWTB_MAX_REPS], early[HWTB_NR_FAC][HWTB_MAX_REPS];
	static s64 t50[HWTB_MAX_REPS], t99[HWTB_MAX_REPS], tmx[HWTB_MAX_REPS];
	static u64 hist[HWTB_NR_FAC][HWTB_HIST_BINS + 1];
	static s64 wearly[HWTB_MAX_REPS];
	unsigned int r, i, nr = num_online_cpus();
	unsigned long n = hwtb_late_n, k, m;
	u64 span = hwtb_late_revs * hwtb_rev_ns();
	struct hwtb_crew *c;
	s64 *all;
	int fac, ret = 0;

	if (!n)
		return 0;
	all = kvmalloc_array(n, sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	c = hwtb_crew_get(nr);
	if (IS_ERR(c)) {
		kvfree(all);
		return PTR_ERR(c);
	}
	memset(hist, 0, sizeof(hist));
	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		ret = hwtb_crew_alloc(c, fac, n, HWTB_CB_LATE);
		if (ret)
			goto out;
	}

	for (r = 0; r < hwtb_late_reps; r++) {
		for (fac = 0; fac < HWTB_NR_FAC; fac++) {
			struct hwtimer_stats st0, st1;
			u64 fired = 0;

			c->fac = fac;
			c->arg[0] = span;
			c->arg[1] = ktime_get_ns() + span + 120 * NSEC_PER_SEC;
			hwtimer_wheel_stats(hwtb_wheel, &st0);
			hwtb_crew_run(c, hwtb_step_late);
			hwtimer_wheel_stats(hwtb_wheel, &st1);
			/* The wheel's own count of early fires, as a cross-check. */
			if (fac == HWTB_HWT)
				wearly[r] = (st1.early - st0.early) * HWTB_MILLI;
			m = 0;
			for (i = 0; i < nr; i++) {
				struct hwtb_worker *w = &c->w[i];

				fired += w->out[3];
				for (k = 0; k < w->nobjs[fac]; k++)
					all[m++] = *hwtb_val(fac, hwtb_obj(fac, w->objs[fac], k));
			}
			if (fired != n) {
				hwtb_error("%s %s: %llu of %lu callbacks ran", group,
					   hwtb_fac_name[fac], fired, n);
				m = 0;
			}
			hwtb_sort(all, m);
			early[fac][r] = 0;
			for (k = 0; k < m && all[k] < 0; k++)
				early[fac][r] += HWTB_MILLI;
			for (k = 0; k < m; k++) {
				s64 v = all[k];

				hist[fac][v <= 0 ? 0 : min(fls64(v), HWTB_HIST_BINS)]++;
			}
			p50[fac][r] = m ? all[m / 2] * HWTB_MILLI : 0;
			p99[fac][r] = m ? all[m * 99 / 100] * HWTB_MILLI : 0;
			mx[fac][r] = m ? all[m - 1] * HWTB_MILLI : 0;
		}
	}

	for (fac = 0; fac < HWTB_NR_FAC; fac++) {
		u64 tick = hwtb_tick();

		for (r = 0; r < hwtb_late_reps; r++) {
			t50[r] = div64_s64(p50[fac][r], tick);
			t99[r] = div64_s64(p99[fac][r], tick);
			tmx[r] = div64_s64(mx[fac][r], tick);
		}
		hwtb_result(group, fac, n, "p50", "ns", p50[fac], hwtb_late_reps);
		hwtb_result(group, fac, n, "p99", "ns", p99[fac], hwtb_late_reps);
		hwtb_result(group, fac, n, "max", "ns", mx[fac], hwtb_late_reps);
		hwtb_result(group, fac, n, "p50_ticks", "ticks", t50, hwtb_late_reps);
		hwtb_result(group, fac, n, "p99_ticks", "ticks", t99, hwtb_late_reps);
		hwtb_result(group, fac, n, "max_ticks", "ticks", tmx, hwtb_late_reps);
		hwtb_result(group, fac, n, "early", "timers", early[fac], hwtb_late_reps);
		if (fac == HWTB_HWT)
			hwtb_result(group, fac, n, "early_wheel_counter", "timers", wearly,
				    hwtb_late_reps);
		/* Bin 0: not late at all (or early); bin k: [2^(k-1), 2^k) ns. */
		for (k = 0; hist_out && k <= HWTB_HIST_BINS; k++) {
			if (hist[fac][k])
				hwtb_out("H kernel %s %lu %llu %llu\n", hwtb_fac_name[fac], k,
					 k ? 1ULL << (k - 1) : 0, hist[fac][k]);
		}
	}
out:
	hwtb_crew_destroy(c);
	kvfree(all);
	return ret;
}

/* A CPU-bound kernel thread, as a busy user thread competes for its CPU. */
static int hwtb_hog_fn(void *data)
{
	while (!kthread_should_stop()) {
		cpu_relax();
		cond_resched();
	}
	return 0;
}

/*
 * Lateness with the CPUs idle but for the benchmark ("lateness"), then
 * with a CPU-bound thread of normal priority on every CPU competing
 * ("lateness_loaded"): on PREEMPT_RT every facility's callbacks here run
 * in the softirq thread, which those threads delay.
 */
static int hwtb_bench_lateness(void)
{
	struct task_struct **hog;
	unsigned int cpu, nh = 0;
	int ret;

	ret = hwtb_lateness_run("lateness", true);
	if (ret)
		return ret;
	hog = kcalloc(nr_cpu_ids, sizeof(*hog), GFP_KERNEL);
	if (!hog)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct task_struct *t = kthread_create_on_cpu(hwtb_hog_fn, NULL, cpu, "hwtbhog/%u");

		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto out;
		}
		hog[nh++] = t;
		wake_up_process(t);
	}
	ret = hwtb_lateness_run("lateness_loaded", false);
out:
	while (nh)
		kthread_stop(hog[--nh]);
	kfree(hog);
	return ret;
}

/* ---- the entry point ---------------------------------------------------- */

/* ---- trace: one call at a time, for a debugger to single-step -------- */

/*
 * The debugger's handshake (make bench-trace, bench/trace.py): it stops at
 * each call of hwtb_trace_mark(), steps through what follows up to the
 * next one, and once it has what it wants makes one call return true,
 * which ends the benchmark. The mark is noinline and empty, so that the
 * steps between two marks hold one call of the API each, and the few
 * instructions of the loop around it.
 */
static noinline bool hwtb_trace_mark(int fac, int step)
{
	bool stop = false;

	asm volatile("" : "+r" (stop) : "r" (fac), "r" (step) : "memory");
	return stop;
}

static __always_inline bool hwtb_trace_one(int fac, struct hwtb_worker *w, unsigned int i)
{
	struct hwtb_tab *tab = w->tab;
	void *o = hwtb_obj(fac, w->probes[fac], 0);
	unsigned int k = i & (HWTB_TAB - 1), km = (i + HWTB_MOD_STRIDE) & (HWTB_TAB - 1);
	void *m = o;
	bool stop;

	/* A random pending timer to a random delay, as hwtb_mods() does. */
	if (w->nobjs[fac])
		m = hwtb_obj(fac, w->objs[fac], tab->idx[i & (HWTB_IDX - 1)]);
	stop = hwtb_trace_mark(fac, 0);
	hwtb_start(fac, o, tab->ns[k], tab->j[k]);
	stop |= hwtb_trace_mark(fac, 1);
	hwtb_cancel(fac, o);
	stop |= hwtb_trace_mark(fac, 2);
	hwtb_modify(fac, m, tab->ns[km], tab->j[km]);
	stop |= hwtb_trace_mark(fac, 3);
	if (m == o)
		hwtb_cancel(fac, o);
	return stop;
}

/*
 * Until the debugger says stop, or HWTB_TRACE_S seconds: a start, a cancel
 * and a modify of each facility, every 50 ms; then hwtb_trace_expire().
 */
#define HWTB_TRACE_S	600

/*
 * Then HWTB_TRACE_EXP probe timers of hwtimer and as many of timer_list,
 * all due at one tick three ticks ahead, for the debugger to step through
 * their expiry loops from one callback to the next.
 */
#define HWTB_TRACE_EXP	32

static void hwtb_trace_expire(struct hwtb_worker *w)
{
	u64 d = ktime_get_ns() + 3 * hwtb_tick();
	unsigned long j = jiffies + hwtb_jiffies(3 * hwtb_tick());
	unsigned int k;
	int fac;

	for (fac = HWTB_HWT; fac <= HWTB_TL; fac++)
		for (k = 0; k < HWTB_TRACE_EXP; k++)
			hwtb_start_abs(fac, hwtb_obj(fac, w->probes[fac], k), d, j);
	msleep(1000);
	for (fac = HWTB_HWT; fac <= HWTB_TL; fac++)
		for (k = 0; k < HWTB_TRACE_EXP; k++)
			hwtb_cancel_sync(fac, hwtb_obj(fac, w->probes[fac], k));
}

static void hwtb_step_trace(struct hwtb_worker *w)
{
	unsigned int i;

	for (i = 0; i < HWTB_TRACE_S * 20; i++) {
		bool stop = hwtb_trace_one(HWTB_HWT, w, i);

		stop |= hwtb_trace_one(HWTB_TL, w, i);
		stop |= hwtb_trace_one(HWTB_HRT, w, i);
		if (stop)
			break;
		msleep(50);
	}
	w->ops = i;
	hwtb_trace_expire(w);
}

/*
 * With hwtb_sizes[0] timers of each facility pending on each CPU: marks
 * between the API calls for make bench-trace (bench/trace.py), which counts
 * what each call executes. Not part of "all": it waits for a debugger.
 */
static int hwtb_bench_trace(void)
{
	unsigned long n = hwtb_nsizes ? hwtb_sizes[0] : 0;
	struct hwtb_crew *c;
	int ret;

	c = hwtb_crew_get(num_online_cpus());
	if (IS_ERR(c))
		return PTR_ERR(c);
	ret = hwtb_crew_populate(c, n);
	if (!ret) {
		/* The debugger takes the addresses from /proc/kallsyms (guest.sh). */
		pr_info("@@TRACE ready, %lu pending\n", n);
		hwtb_crew_run(c, hwtb_step_trace);
		pr_info("@@TRACE end after %llu rounds\n", c->w[0].ops);
		hwtb_crew_clear(c);
	}
	hwtb_crew_destroy(c);
	return ret;
}

static void hwtb_info(void)
{
	hwtb_out("I cpus %u\n", num_online_cpus());
	hwtb_out("I hz %u\n", HZ);
	hwtb_out("I tick_ns %llu\n", hwtb_tick());
	hwtb_out("I slots %u\n", hwtimer_wheel_slots(hwtb_wheel));
	hwtb_out("I revolution_ns %llu\n", hwtb_rev_ns());
	hwtb_out("I reps %u\n", hwtb_reps);
}

static const struct {
	const char *name;
	int (*fn)(void);
} hwtb_benches[] = {
	{ "calib", hwtb_bench_calib },
	{ "startcancel", hwtb_bench_startcancel },
	{ "startidle", hwtb_bench_startidle },
	{ "expiry", hwtb_bench_expiry },
	{ "tick", hwtb_bench_tick },
	{ "cycle", hwtb_bench_cycle },
	{ "idle", hwtb_bench_idle },
	{ "scaling", hwtb_bench_scaling },
	{ "lateness", hwtb_bench_lateness },
	{ "slack", hwtb_bench_slack },
};

/**
 * hwtb_run_kernel - run one benchmark, or all of them
 * @what: a benchmark's name, "memory", "info" or "all"
 *
 * Context: process context, under the results mutex.
 * Return: 0, -EINVAL for an unknown name, -EIO if a benchmark found an
 * error (its "E" line says which), or another negative errno.
 */
int hwtb_run_kernel(const char *what)
{
	bool all = !strcmp(what, "all");
	unsigned int i;
	int ret = -EINVAL;
	u64 t0;

	hwtb_errors = 0;
	if (all || !strcmp(what, "info")) {
		hwtb_info();
		ret = 0;
	}
	if (all || !strcmp(what, "memory")) {
		hwtb_bench_memory();
		ret = 0;
	}
	if (!strcmp(what, "trace"))
		ret = hwtb_bench_trace();
	for (i = 0; i < ARRAY_SIZE(hwtb_benches); i++) {
		if (!all && strcmp(what, hwtb_benches[i].name))
			continue;
		t0 = ktime_get_ns();
		pr_info("%s: running\n", hwtb_benches[i].name);
		ret = hwtb_benches[i].fn();
		pr_info("%s: done in %llu ms (%d)\n", hwtb_benches[i].name,
			div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC), ret);
		if (ret) {
			hwtb_error("%s failed: %d", hwtb_benches[i].name, ret);
			break;
		}
	}
	if (!ret && hwtb_errors)
		ret = -EIO;
	return ret;
}
