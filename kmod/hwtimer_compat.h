/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel API difference hwtimer and its test modules meet, in one
 * place, keyed by LINUX_VERSION_CODE. One entry per difference, naming the
 * version and the upstream change. The wrappers are hwtimer's own (hwt_*)
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
 *    kmem_cache_alloc_bulk"): a caller that takes it for a count keeps one
 *    object of each bulk allocation and leaks the rest. hwtimer makes no
 *    bulk allocation: the device keeps its timeouts in per-file slot
 *    tables.
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
 * 7.3 no longer includes the per-CPU hrtimer bases (struct hrtimer_cpu_base
 * and hrtimer_clock_base, which the KUnit tests read) from hrtimer.h:
 * commits "hrtimer: Rename hrtimer_defs.h to hrtimer_bases.h" and
 * "hrtimer: Remove inclusion of hrtimer_bases.h remove from hrtimer.h"
 * (sic).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#include <linux/hrtimer_bases.h>
#endif

/*
 * 7.3 runs kernel threads, KUnit's among them, in an empty filesystem of
 * their own (nullfs): a path names nothing there unless the thread borrows
 * init's root with scoped_with_init_fs() (commit "fs: add
 * scoped_with_init_fs()"). hwt_filp_open() opens a path as init sees it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
#include <linux/fs_struct.h>
#endif
static inline struct file *hwt_filp_open(const char *path, int flags, umode_t mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	scoped_with_init_fs()
		return filp_open(path, flags, mode);
#else
	return filp_open(path, flags, mode);
#endif
}

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
 * 6.13 made symbol namespaces strings (commit "module: Convert symbol
 * namespace to string literal"): MODULE_IMPORT_NS("NS") from then on,
 * MODULE_IMPORT_NS(NS) before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define HWT_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING")
#else
#define HWT_IMPORT_KUNIT_NS()	MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING)
#endif

/*
 * 6.18 passes the test to a KUnit parameter generator, as its first
 * parameter (commit "kunit: Pass parameterized test context to
 * generate_params()"). KUNIT_ARRAY_PARAM() follows by itself; a generator
 * written out starts its parameters with HWT_KUNIT_GEN_TEST:
 * gen(HWT_KUNIT_GEN_TEST const void *prev, char *desc).
 */
struct kunit;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define HWT_KUNIT_GEN_TEST	struct kunit *hwt_gen_test,
#else
#define HWT_KUNIT_GEN_TEST
#endif

/*
 * 7.2 counts x86's per-CPU interrupts in an array (commit "x86/irq: Make
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

/*
 * 7.3 no longer keeps a module's load parameters in struct module (commit
 * "module: Remove unnecessary module::args"): they are parsed once, after
 * the MODULE_STATE_COMING notifiers, and freed. Nothing needs them there
 * since KUnit runs a module's suites when it goes live (6.12 does, 6.1
 * still from COMING), after the parameters are set.
 */
static inline const char *hwt_module_args(const struct module *mod)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 3, 0)
	return NULL;
#else
	return mod->args;
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
