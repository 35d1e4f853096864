/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel API differences that only hwtimer's KUnit suites meet (those
 * of kunit/ and stress/hwtimer_stress.c), keyed by LINUX_VERSION_CODE, one
 * entry per difference, naming the version and the upstream change; the
 * product's own are in kmod/hwtimer_compat.h.
 */
#ifndef _HWTIMER_KUNIT_COMPAT_H
#define _HWTIMER_KUNIT_COMPAT_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>

#include "hwtimer_compat.h"

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

#endif /* _HWTIMER_KUNIT_COMPAT_H */
