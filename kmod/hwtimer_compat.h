/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel API difference hwtimer meets, in one place, keyed by
 * LINUX_VERSION_CODE; those only the test modules meet are next to them
 * (kunit/hwtimer_kunit_compat.h, bench/hwtbench.h). One entry per
 * difference, naming the version and the upstream change. The wrappers are hwtimer's own (hwt_*)
 * rather than upstream names defined here: stable series backport new
 * helpers, and a second definition of an upstream name would then clash.
 *
 * Built and tested: 6.1 (Debian 12), 6.12 and 6.12 PREEMPT_RT, 7.3
 * (Debian's linux-source-7.3, scripts/fetch.sh). Between 6.12 and 7.3 each
 * entry was read in upstream's history, and only 7.3 is built.
 *
 * Differences that need no wrapper, because hwtimer avoids the old form:
 *  - 6.12 removed no_llseek (commit "fs: remove no_llseek"): the device
 *    calls stream_open(), which already makes lseek() fail with -ESPIPE on
 *    every version, and sets no .llseek.
 *  - 6.15 removed del_timer() and del_timer_sync() (renamed timer_delete()
 *    and timer_delete_sync() in 6.2, backported to Debian's 6.1): the bench
 *    module uses only the new names.
 *  - 6.16 renamed from_timer() to timer_container_of(): nothing here uses
 *    either; hwtimer callbacks use from_hwtimer(), timer_list callbacks of
 *    the bench module container_of().
 *  - 6.10 changed __assign_str() to take one argument: the tracepoints
 *    assign no strings.
 *  - 7.2 made kmem_cache_alloc_bulk() return bool, true when it allocated
 *    all objects, where it returned their number (commit "mm/slab: improve
 *    kmem_cache_alloc_bulk"): nothing here calls it; the device keeps its
 *    timeouts in per-file tables of pages.
 */
#ifndef _HWTIMER_COMPAT_H
#define _HWTIMER_COMPAT_H

#include <linux/fs.h>
#include <linux/hardirq.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/workqueue.h>

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the rest
 * (commit "hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()");
 * 6.15 removed hrtimer_init().
 */
static inline void hwt_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock_id, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock_id, mode);
#else
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
#endif
}

/*
 * A workqueue says whether it is per-CPU or unbound: 6.17 added WQ_PERCPU
 * (commit "workqueue: Add new WQ_PERCPU flag"), and 7.2 warns at
 * alloc_workqueue() when neither flag is given (commit "workqueue: Add
 * warnings and ensure one among WQ_PERCPU or WQ_UNBOUND is present").
 * Before 6.17, per-CPU is what no flag means.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define HWT_WQ_PERCPU	WQ_PERCPU
#else
#define HWT_WQ_PERCPU	0
#endif

/*
 * 6.9 added BH workqueues (commit "workqueue: Implement BH workqueues to
 * eventually replace tasklets"): system_bh_wq runs a work item in softirq
 * context on the CPU that queued it, and tasklets are on their way out.
 * struct hwt_bh is a work item there, a tasklet before. Either way an
 * item queued on a CPU that goes offline runs on another one (tasklets
 * move in takeover_tasklets(), BH work in workqueue_softirq_dead()).
 */
struct hwt_bh;
typedef void (*hwt_bh_fn_t)(struct hwt_bh *bh);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
struct hwt_bh {
	struct work_struct	work;
	hwt_bh_fn_t		fn;
};

static inline void hwt_bh_run(struct work_struct *work)
{
	struct hwt_bh *bh = container_of(work, struct hwt_bh, work);

	bh->fn(bh);
}

static inline void hwt_bh_init(struct hwt_bh *bh, hwt_bh_fn_t fn)
{
	bh->fn = fn;
	INIT_WORK(&bh->work, hwt_bh_run);
}

static inline void hwt_bh_queue(struct hwt_bh *bh)
{
	queue_work(system_bh_wq, &bh->work);
}

/* Process context: it is not queued or running when this returns. */
static inline void hwt_bh_kill(struct hwt_bh *bh)
{
	cancel_work_sync(&bh->work);
}
#else
struct hwt_bh {
	struct tasklet_struct	tasklet;
	hwt_bh_fn_t		fn;
};

static inline void hwt_bh_run(struct tasklet_struct *t)
{
	struct hwt_bh *bh = container_of(t, struct hwt_bh, tasklet);

	bh->fn(bh);
}

static inline void hwt_bh_init(struct hwt_bh *bh, hwt_bh_fn_t fn)
{
	bh->fn = fn;
	tasklet_setup(&bh->tasklet, hwt_bh_run);
}

static inline void hwt_bh_queue(struct hwt_bh *bh)
{
	tasklet_schedule(&bh->tasklet);
}

static inline void hwt_bh_kill(struct hwt_bh *bh)
{
	tasklet_kill(&bh->tasklet);
}
#endif

/*
 * 6.3 made vma->vm_flags const, to be changed under the VMA lock only
 * through vm_flags_set() and friends (commit "mm: introduce vma->vm_flags
 * wrapper functions"); before, a driver's ->mmap sets them directly.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define hwt_vm_flags_set(vma, flags)	vm_flags_set(vma, flags)
#else
#define hwt_vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

#endif /* _HWTIMER_COMPAT_H */
