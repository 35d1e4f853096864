/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtbench - the in-kernel benchmark of hwtimer against timer_list and
 * hrtimer. Shared by the infrastructure (hwtbench_main.c) and the
 * benchmarks (hwtbench_kernel.c).
 *
 * The three facilities are driven through the inline helpers below, which
 * take the facility as a compile-time constant wherever a hot loop calls
 * them, so a measured loop makes direct calls into each facility's own API
 * and nothing else differs between them.
 */
#ifndef _HWTBENCH_H
#define _HWTBENCH_H

#include <linux/hrtimer.h>
#include <linux/hwtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/completion.h>

#include "hwtimer_compat.h"
#include <linux/version.h>

/*
 * A kernel API difference only the benchmark meets, as those of
 * kmod/hwtimer_compat.h: 7.2 counts x86's per-CPU interrupts in an array (commit "x86/irq: Make
 * irqstats array based"): irq_stat.counts[IRQ_COUNT_APIC_TIMER] was
 * irq_stat.apic_timer_irqs.
 */
#ifdef CONFIG_X86_LOCAL_APIC
static inline unsigned int hwt_apic_timer_irqs(unsigned int cpu)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
	return per_cpu(irq_stat, cpu).counts[IRQ_COUNT_APIC_TIMER];
#else
	return per_cpu(irq_stat, cpu).apic_timer_irqs;
#endif
}
#endif


enum hwtb_fac {
	HWTB_HWT,	/* hwtimer, on the benchmark's own wheel */
	HWTB_TL,	/* timer_list: add_timer(), timer_delete(), mod_timer() */
	HWTB_HRT,	/* hrtimer, soft (softirq) mode like hwtimer's own */
	HWTB_NR_FAC,
};

/* What a timer's callback does when it fires. */
enum hwtb_cb {
	HWTB_CB_COUNT,	/* count it (a timer that was not meant to fire) */
	HWTB_CB_EXPIRE,	/* count it, time the first and the last */
	HWTB_CB_LATE,	/* count it, record its lateness in @v */
	HWTB_NR_CB,
};

/*
 * One benchmark timer of each facility: the embedded timer and one word,
 * the deadline (ns) before it fires and its lateness (ns) after.
 */
struct hwtb_hwt {
	struct hwtimer		t;
	s64			v;
};

struct hwtb_tl {
	struct timer_list	t;
	s64			v;
};

struct hwtb_hrt {
	struct hrtimer		t;
	s64			v;
};

/**
 * struct hwtb_pcpu - what the callbacks on one CPU record
 * @fired: callbacks run since the last reset
 * @expect: the value of @fired at which @last is taken
 * @first: ktime_get_ns() at the first callback
 * @last: ktime_get_ns() at callback number @expect
 *
 * Callbacks run on the CPU that started their timer (every facility is
 * used pinned), so each CPU's worker owns its own counters; they are
 * written in softirq context and read by the worker with READ_ONCE().
 */
struct hwtb_pcpu {
	u64	fired;
	u64	expect;
	u64	first;
	u64	last;
};

DECLARE_PER_CPU(struct hwtb_pcpu, hwtb_pcpu);

extern struct hwtimer_wheel *hwtb_wheel;
extern const char *const hwtb_fac_name[HWTB_NR_FAC];

void hwtb_cb_hwt_count(struct hwtimer *t);
void hwtb_cb_hwt_expire(struct hwtimer *t);
void hwtb_cb_hwt_late(struct hwtimer *t);
void hwtb_cb_tl_count(struct timer_list *t);
void hwtb_cb_tl_expire(struct timer_list *t);
void hwtb_cb_tl_late(struct timer_list *t);
enum hrtimer_restart hwtb_cb_hrt_count(struct hrtimer *t);
enum hrtimer_restart hwtb_cb_hrt_expire(struct hrtimer *t);
enum hrtimer_restart hwtb_cb_hrt_late(struct hrtimer *t);

static __always_inline size_t hwtb_size(int fac)
{
	switch (fac) {
	case HWTB_HWT:
		return sizeof(struct hwtb_hwt);
	case HWTB_TL:
		return sizeof(struct hwtb_tl);
	default:
		return sizeof(struct hwtb_hrt);
	}
}

/* The @i-th object of an array of facility @fac's timers. */
static __always_inline void *hwtb_obj(int fac, void *base, unsigned long i)
{
	return (char *)base + i * hwtb_size(fac);
}

static __always_inline s64 *hwtb_val(int fac, void *obj)
{
	switch (fac) {
	case HWTB_HWT:
		return &((struct hwtb_hwt *)obj)->v;
	case HWTB_TL:
		return &((struct hwtb_tl *)obj)->v;
	default:
		return &((struct hwtb_hrt *)obj)->v;
	}
}

static inline void hwtb_setup(int fac, void *obj, int cb)
{
	struct hwtb_hwt *h = obj;
	struct hwtb_tl *l = obj;
	struct hwtb_hrt *r = obj;

	switch (fac) {
	case HWTB_HWT:
		hwtimer_setup(&h->t, hwtb_wheel, cb == HWTB_CB_EXPIRE ? hwtb_cb_hwt_expire :
			      cb == HWTB_CB_LATE ? hwtb_cb_hwt_late : hwtb_cb_hwt_count);
		break;
	case HWTB_TL:
		timer_setup(&l->t, cb == HWTB_CB_EXPIRE ? hwtb_cb_tl_expire :
			    cb == HWTB_CB_LATE ? hwtb_cb_tl_late : hwtb_cb_tl_count,
			    TIMER_PINNED);
		break;
	default:
		hwt_hrtimer_setup(&r->t, cb == HWTB_CB_EXPIRE ? hwtb_cb_hrt_expire :
				  cb == HWTB_CB_LATE ? hwtb_cb_hrt_late : hwtb_cb_hrt_count,
				  CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
		break;
	}
}

/*
 * Start a timer that is not pending, @ns from now; @j is the same delay in
 * jiffies, rounded up, as a timer_list user would compute it beforehand.
 */
static __always_inline void hwtb_start(int fac, void *obj, u64 ns, unsigned long j)
{
	switch (fac) {
	case HWTB_HWT:
		hwtimer_start(&((struct hwtb_hwt *)obj)->t, ns, HWTIMER_MODE_REL);
		break;
	case HWTB_TL:
		((struct hwtb_tl *)obj)->t.expires = jiffies + j;
		add_timer(&((struct hwtb_tl *)obj)->t);
		break;
	default:
		hrtimer_start(&((struct hwtb_hrt *)obj)->t, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED_SOFT);
		break;
	}
}

/*
 * Start a timer for the absolute deadline @ns (CLOCK_MONOTONIC); timer_list
 * gets @j, the first jiffy that cannot come before @ns.
 */
static __always_inline void hwtb_start_abs(int fac, void *obj, u64 ns, unsigned long j)
{
	switch (fac) {
	case HWTB_HWT:
		hwtimer_start(&((struct hwtb_hwt *)obj)->t, ns, HWTIMER_MODE_ABS);
		break;
	case HWTB_TL:
		((struct hwtb_tl *)obj)->t.expires = j;
		add_timer(&((struct hwtb_tl *)obj)->t);
		break;
	default:
		hrtimer_start(&((struct hwtb_hrt *)obj)->t, ns_to_ktime(ns),
			      HRTIMER_MODE_ABS_PINNED_SOFT);
		break;
	}
}

/* Re-arm a (pending) timer @ns from now. */
static __always_inline void hwtb_modify(int fac, void *obj, u64 ns, unsigned long j)
{
	switch (fac) {
	case HWTB_HWT:
		hwtimer_modify(&((struct hwtb_hwt *)obj)->t, ns, HWTIMER_MODE_REL);
		break;
	case HWTB_TL:
		mod_timer(&((struct hwtb_tl *)obj)->t, jiffies + j);
		break;
	default:
		hrtimer_start(&((struct hwtb_hrt *)obj)->t, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED_SOFT);
		break;
	}
}

/* Cancel without waiting for a running callback. */
static __always_inline void hwtb_cancel(int fac, void *obj)
{
	switch (fac) {
	case HWTB_HWT:
		hwtimer_cancel(&((struct hwtb_hwt *)obj)->t);
		break;
	case HWTB_TL:
		timer_delete(&((struct hwtb_tl *)obj)->t);
		break;
	default:
		hrtimer_try_to_cancel(&((struct hwtb_hrt *)obj)->t);
		break;
	}
}

/* Cancel and wait for a running callback: the object may be freed after. */
static inline void hwtb_cancel_sync(int fac, void *obj)
{
	switch (fac) {
	case HWTB_HWT:
		hwtimer_cancel_sync(&((struct hwtb_hwt *)obj)->t);
		break;
	case HWTB_TL:
		timer_delete_sync(&((struct hwtb_tl *)obj)->t);
		break;
	default:
		hrtimer_cancel(&((struct hwtb_hrt *)obj)->t);
		break;
	}
}

/* ---- workers ------------------------------------------------------------ */

struct hwtb_crew;
struct hwtb_tab;

/* Idle timers per worker and facility for start+cancel pairs. */
#define HWTB_NPROBES	1024

/**
 * struct hwtb_worker - one benchmark kthread, bound to one CPU
 * @crew: the crew it belongs to
 * @task: the kthread
 * @cpu: the CPU it is bound to
 * @idx: its index in the crew
 * @objs: its timers of each facility (arrays of struct hwtb_hwt,
 *        hwtb_tl and hwtb_hrt)
 * @nobjs: how many of each
 * @probes: %HWTB_NPROBES timers of each facility that stay idle between
 *          the steps, for start+cancel pairs
 * @tab: its tables of random delays and indices (hwtbench_kernel.c)
 * @rnd: its random number state (seeded per worker: runs are repeatable)
 * @t0: when its measured work began (ktime_get_ns())
 * @t1: when it ended
 * @ops: operations done between @t0 and @t1
 * @nchunks: timed chunks of operations recorded in @tab
 * @out: step-specific results
 * @sink: where a step leaves a value it computed only to keep its work
 *        from being optimised away (per worker: no line shared with the
 *        other CPUs)
 */
struct hwtb_worker {
	struct hwtb_crew	*crew;
	struct task_struct	*task;
	unsigned int		cpu;
	unsigned int		idx;
	void			*objs[HWTB_NR_FAC];
	unsigned long		nobjs[HWTB_NR_FAC];
	void			*probes[HWTB_NR_FAC];
	struct hwtb_tab		*tab;
	struct rnd_state	rnd;
	u64			t0;
	u64			t1;
	u64			ops;
	unsigned int		nchunks;
	s64			out[6];
	u64			sink;
};

typedef void (*hwtb_step_fn)(struct hwtb_worker *w);

/**
 * struct hwtb_crew - a kthread per CPU on the first @nr online CPUs
 * @nr: number of workers
 * @fac: the facility the current benchmark drives
 * @step: what the workers run on the next hwtb_crew_run()
 * @gen: bumped by hwtb_crew_run() to start a step
 * @arrived: workers that have reached the start line of the current step
 * @left: workers still running the current step
 * @wq: workers wait here for @gen to change
 * @done: completed when @left reaches 0
 * @arg: step parameters, set by the caller of hwtb_crew_run()
 * @w: the workers
 */
struct hwtb_crew {
	unsigned int		nr;
	int			fac;
	hwtb_step_fn		step;
	unsigned long		gen;
	atomic_t		arrived;
	atomic_t		left;
	wait_queue_head_t	wq;
	struct completion	done;
	u64			arg[4];
	struct hwtb_worker	w[];
};

struct hwtb_crew *hwtb_crew_create(unsigned int nr, int fac);
void hwtb_crew_run(struct hwtb_crew *c, hwtb_step_fn step);
void hwtb_crew_destroy(struct hwtb_crew *c);
int hwtb_crew_alloc(struct hwtb_crew *c, int fac, unsigned long total, int cb);
void hwtb_crew_free(struct hwtb_crew *c, int fac);

/* ---- results ------------------------------------------------------------ */

#define HWTB_MAX_REPS	32

/* Values are recorded in thousandths, so fractions survive integer math. */
#define HWTB_MILLI	1000

void hwtb_out(const char *fmt, ...) __printf(1, 2);
void hwtb_result(const char *group, int fac, unsigned long n, const char *metric,
		 const char *unit, const s64 *milli, unsigned int cnt);
void hwtb_result_one(const char *group, int fac, unsigned long n,
		     const char *metric, const char *unit, s64 milli);
s64 hwtb_median(s64 *v, unsigned int cnt);
void hwtb_sort(s64 *v, size_t cnt);
int hwtb_run_kernel(const char *what);
int hwtb_bench_slack(void);

/* Parameters (module parameters, see hwtbench_main.c). */
extern unsigned int hwtb_reps;
extern unsigned long hwtb_calib_lines;
extern unsigned long hwtb_sizes[];
extern unsigned int hwtb_nsizes;
extern unsigned long hwtb_pairs;
extern unsigned long hwtb_expiry_n;
extern unsigned int hwtb_expiry_reps;
extern unsigned long hwtb_far_n;
extern unsigned int hwtb_window_ms;
extern unsigned int hwtb_tick_reps;
extern unsigned int hwtb_idle_ms;
extern unsigned int hwtb_idle_reps;
extern unsigned long hwtb_late_n;
extern unsigned int hwtb_late_reps;
extern unsigned int hwtb_late_revs;
extern unsigned long hwtb_scale_pairs;
extern u64 hwtb_cycle_tick_ns;
extern unsigned int hwtb_cycle_slots;
extern u64 hwtb_tick_ns;
extern unsigned int hwtb_slots;

#endif /* _HWTBENCH_H */
