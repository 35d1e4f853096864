/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel API difference hwtimer and its test modules meet, in one
 * place, keyed by LINUX_VERSION_CODE. One entry per difference, naming the
 * version and the upstream change. The wrappers are hwtimer's own (hwt_*)
 * rather than upstream names defined here: stable series backport new
 * helpers, and a second definition of an upstream name would then clash.
 *
 * Built and tested: 6.1 (Debian 12), 6.12 and 6.12 PREEMPT_RT. Read only
 * (checked against torvalds/linux, not built here): 6.13 to 6.18.
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
 */
#ifndef _HWTIMER_COMPAT_H
#define _HWTIMER_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>

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

#endif /* _HWTIMER_COMPAT_H */
