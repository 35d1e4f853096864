// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer module glue: module parameters, the default wheel, and the order
 * in which the wheel core and /dev/hwtimer come up and go down.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/err.h>

#include "hwtimer_internal.h"

static ulong tick_ns = 1000000;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "Tick of the default wheel in ns (default 1000000)");

static uint slots = 512;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "Level-0 slots of the default wheel, rounded up to a power of two (default 512)");

static ulong max_pending;
module_param(max_pending, ulong, 0444);
MODULE_PARM_DESC(max_pending, "Cap on timers pending on the default wheel, 0 for none (default 0)");

static struct hwtimer_wheel *default_wheel;

/**
 * hwtimer_default_wheel - the wheel owned by the hwtimer module
 *
 * The default wheel is configured by the module parameters tick_ns, slots
 * and max_pending, runs callbacks in softirq context, serves /dev/hwtimer
 * and is there for modules that do not need a wheel of their own. It lives
 * as long as the hwtimer module, which a caller's module pins by using this
 * symbol. Never destroy it.
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

static int __init hwtimer_init(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "default",
		.tick_ns = tick_ns,
		.slots = slots,
		.max_pending = max_pending,
	};
	int ret;

	ret = hwt_core_init();
	if (ret)
		return ret;

	default_wheel = hwtimer_wheel_create(&cfg);
	if (IS_ERR(default_wheel)) {
		ret = PTR_ERR(default_wheel);
		pr_err("bad default wheel parameters tick_ns=%lu slots=%u: %d\n",
		       tick_ns, slots, ret);
		goto out_core;
	}

	ret = hwtd_init();
	if (ret)
		goto out_wheel;

	pr_info("loaded: tick %llu ns, %u slots\n", hwtimer_wheel_tick_ns(default_wheel),
		hwtimer_wheel_slots(default_wheel));
	return 0;

out_wheel:
	hwtimer_wheel_destroy(default_wheel, NULL, NULL);
out_core:
	hwt_core_exit();
	return ret;
}

static void __exit hwtimer_exit(void)
{
	unsigned long left = 0;

	hwtd_exit();
	hwtimer_wheel_destroy(default_wheel, hwt_default_unprocessed, &left);
	/* Every user of the default wheel holds a module reference. */
	WARN(left, "hwtimer: %lu timers still pending on the default wheel at unload\n", left);
	hwt_core_exit();
}

module_init(hwtimer_init);
module_exit(hwtimer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Scalable per-CPU hashed timing wheel with /dev/hwtimer");
MODULE_AUTHOR("hwtimer developers");
