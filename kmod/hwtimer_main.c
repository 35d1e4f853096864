// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer module glue: module parameters, the default wheel, and the order
 * in which the wheel core, the default wheel and /dev/hwtimer come up and
 * go down. /dev/hwtimer gets the ticks and slots of its wheels from here
 * (hwtd_init()) and owns them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/err.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer_internal.h"
#include "hwtimer_dev.h"

static ulong tick_ns = 1000000;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "Tick of the default wheel in ns (default 1000000)");

static uint slots = 512;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "Level-0 slots of the default wheel, rounded up to a power of two (default 512)");

static ulong max_pending;
module_param(max_pending, ulong, 0444);
MODULE_PARM_DESC(max_pending, "Cap on timers pending on the default wheel, 0 for none (default 0)");

static ulong fine_tick_ns = 100000;
module_param(fine_tick_ns, ulong, 0444);
MODULE_PARM_DESC(fine_tick_ns, "Tick of the fine-precision wheel of /dev/hwtimer in ns (default 100000)");

static uint fine_slots = 512;
module_param(fine_slots, uint, 0444);
MODULE_PARM_DESC(fine_slots, "Level-0 slots of the fine-precision wheel (default 512)");

static ulong coarse_tick_ns = 10000000;
module_param(coarse_tick_ns, ulong, 0444);
MODULE_PARM_DESC(coarse_tick_ns, "Tick of the coarse-precision wheel of /dev/hwtimer in ns (default 10000000)");

static uint coarse_slots = 512;
module_param(coarse_slots, uint, 0444);
MODULE_PARM_DESC(coarse_slots, "Level-0 slots of the coarse-precision wheel (default 512)");

/* The module's own wheel, for modules that need none of their own. */
static struct hwtimer_wheel *default_wheel;

/**
 * hwtimer_default_wheel - the wheel owned by the hwtimer module
 *
 * The default wheel is configured by the module parameters tick_ns, slots
 * and max_pending, runs callbacks in softirq context, and is there for
 * modules that do not need a wheel of their own. It lives as long as the
 * hwtimer module, which a caller's module pins by using this symbol. Never
 * destroy it. (/dev/hwtimer has wheels of its own, with the same tick and
 * slots at its default precision.)
 *
 * Context: any.
 * Return: the default wheel.
 */
struct hwtimer_wheel *hwtimer_default_wheel(void)
{
	return default_wheel;
}
EXPORT_SYMBOL_GPL(hwtimer_default_wheel);

static void hwt_default_unprocessed(struct hwtimer *timer, void *arg)
{
	unsigned long *n = arg;

	(*n)++;
}

static void hwt_default_wheel_destroy(void)
{
	unsigned long left = 0;

	hwtimer_wheel_destroy(default_wheel, hwt_default_unprocessed, &left);
	/* Every user of the default wheel holds a module reference. */
	WARN(left, "hwtimer: %lu timers still pending on the default wheel at unload\n",
	     left);
	default_wheel = NULL;
}

static int hwt_default_wheel_create(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "default",
		.tick_ns = tick_ns,
		.slots = slots,
		.max_pending = max_pending,
	};
	struct hwtimer_wheel *w = hwtimer_wheel_create(&cfg);

	if (IS_ERR(w)) {
		pr_err("bad parameters of wheel %s: tick_ns=%llu slots=%u: %ld\n",
		       cfg.name, cfg.tick_ns, cfg.slots, PTR_ERR(w));
		return PTR_ERR(w);
	}
	default_wheel = w;
	return 0;
}

static int __init hwtimer_init(void)
{
	const struct hwtd_wheel_params dev_params = {
		.tick_ns = {
			[HWTIMER_PRECISION_DEFAULT] = tick_ns,
			[HWTIMER_PRECISION_FINE] = fine_tick_ns,
			[HWTIMER_PRECISION_COARSE] = coarse_tick_ns,
		},
		.slots = {
			[HWTIMER_PRECISION_DEFAULT] = slots,
			[HWTIMER_PRECISION_FINE] = fine_slots,
			[HWTIMER_PRECISION_COARSE] = coarse_slots,
		},
	};
	int ret;

	ret = hwt_core_init();
	if (ret)
		return ret;

	ret = hwt_default_wheel_create();
	if (ret)
		goto out_core;

	ret = hwtd_init(&dev_params);
	if (ret)
		goto out_wheel;

	pr_info("loaded: tick %llu ns, %u slots\n",
		hwtimer_wheel_tick_ns(hwtimer_default_wheel()),
		hwtimer_wheel_slots(hwtimer_default_wheel()));
	return 0;

out_wheel:
	hwt_default_wheel_destroy();
out_core:
	hwt_core_exit();
	return ret;
}

static void __exit hwtimer_exit(void)
{
	hwtd_exit();
	hwt_default_wheel_destroy();
	hwt_core_exit();
}

module_init(hwtimer_init);
module_exit(hwtimer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Scalable per-CPU hashed timing wheel with /dev/hwtimer");
MODULE_AUTHOR("hwtimer developers");
/* The project's one version: dkms.conf, libhwtimer (lib/lib.mk) and the pages too. */
MODULE_VERSION("1.0.0");
