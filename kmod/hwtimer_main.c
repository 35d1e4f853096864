// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer module glue: module parameters, the default wheel and the other
 * wheels of /dev/hwtimer, and the order in which the wheel core and
 * /dev/hwtimer come up and go down.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/err.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer_internal.h"

static ulong tick_ns = 1000000;
module_param(tick_ns, ulong, 0444);
MODULE_PARM_DESC(tick_ns, "Tick of the default wheel in ns (default 1000000)");

static uint slots = 512;
module_param(slots, uint, 0444);
MODULE_PARM_DESC(slots, "Level-0 slots of the default wheel, rounded up to a power of two (default 512)");

static ulong max_pending;
module_param(max_pending, ulong, 0444);
MODULE_PARM_DESC(max_pending, "Cap on timers pending on each wheel of the module, 0 for none (default 0)");

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

/*
 * The wheels of /dev/hwtimer, by precision (HWTIMER_PRECISION_*) and
 * clock: all created at load, so that a bad parameter fails the load and
 * choosing one never fails; an idle wheel costs its memory only (no tick).
 * The default-precision CLOCK_MONOTONIC one is the default wheel. Written
 * before the device is registered, read-only afterwards.
 */
static struct hwtimer_wheel *dev_wheels[HWT_DEV_PRECISIONS][HWT_DEV_CLOCKS];

/**
 * hwtimer_default_wheel - the wheel owned by the hwtimer module
 *
 * The default wheel is configured by the module parameters tick_ns, slots
 * and max_pending, runs callbacks in softirq context, serves the files of
 * /dev/hwtimer left at the default precision and clock, and is there for
 * modules that do not need a wheel of their own. It lives
 * as long as the hwtimer module, which a caller's module pins by using this
 * symbol. Never destroy it.
 *
 * Context: any.
 * Return: the default wheel.
 */
struct hwtimer_wheel *hwtimer_default_wheel(void)
{
	return dev_wheels[HWTIMER_PRECISION_DEFAULT][0];
}
EXPORT_SYMBOL_GPL(hwtimer_default_wheel);

/**
 * hwt_dev_wheel - the wheel of /dev/hwtimer for a precision and clock
 * @precision: %HWTIMER_PRECISION_DEFAULT, _FINE or _COARSE
 * @clock: 0 for CLOCK_MONOTONIC, 1 for CLOCK_BOOTTIME
 *
 * Context: any, once the module is loaded.
 * Return: the wheel, or NULL for an argument out of range or a clock that
 * has no wheel.
 */
struct hwtimer_wheel *hwt_dev_wheel(unsigned int precision, unsigned int clock)
{
	if (precision >= HWT_DEV_PRECISIONS || clock >= HWT_DEV_CLOCKS)
		return NULL;
	return dev_wheels[precision][clock];
}

static void hwt_default_unprocessed(struct hwtimer *timer, void *arg)
{
	unsigned long *n = arg;

	(*n)++;
}

/* Destroy the wheels of /dev/hwtimer; the default one last. */
static void hwt_dev_wheels_destroy(void)
{
	unsigned long left;
	int p, c;

	for (p = HWT_DEV_PRECISIONS - 1; p >= 0; p--) {
		for (c = HWT_DEV_CLOCKS - 1; c >= 0; c--) {
			if (!dev_wheels[p][c])
				continue;
			left = 0;
			hwtimer_wheel_destroy(dev_wheels[p][c], hwt_default_unprocessed, &left);
			/* Every user of these wheels holds a module reference. */
			WARN(left, "hwtimer: %lu timers still pending on wheel %d/%d at unload\n",
			     left, p, c);
			dev_wheels[p][c] = NULL;
		}
	}
}

static int hwt_dev_wheels_create(void)
{
	static const char * const names[HWT_DEV_PRECISIONS][HWT_DEV_CLOCKS] = {
		[HWTIMER_PRECISION_DEFAULT] = { "default", "dev-boottime" },
		[HWTIMER_PRECISION_FINE] = { "dev-fine", "dev-fine-boottime" },
		[HWTIMER_PRECISION_COARSE] = { "dev-coarse", "dev-coarse-boottime" },
	};
	const u64 ticks[HWT_DEV_PRECISIONS] = {
		[HWTIMER_PRECISION_DEFAULT] = tick_ns,
		[HWTIMER_PRECISION_FINE] = fine_tick_ns,
		[HWTIMER_PRECISION_COARSE] = coarse_tick_ns,
	};
	const u32 nslots[HWT_DEV_PRECISIONS] = {
		[HWTIMER_PRECISION_DEFAULT] = slots,
		[HWTIMER_PRECISION_FINE] = fine_slots,
		[HWTIMER_PRECISION_COARSE] = coarse_slots,
	};
	struct hwtimer_wheel_config cfg = { .max_pending = max_pending };
	struct hwtimer_wheel *w;
	int p, c;

	for (p = 0; p < HWT_DEV_PRECISIONS; p++) {
		for (c = 0; c < HWT_DEV_CLOCKS; c++) {
			cfg.name = names[p][c];
			cfg.tick_ns = ticks[p];
			cfg.slots = nslots[p];
			cfg.flags = c ? HWTIMER_WHEEL_BOOTTIME : 0;
			w = hwtimer_wheel_create(&cfg);
			if (IS_ERR(w)) {
				pr_err("bad parameters of wheel %s: tick_ns=%llu slots=%u: %ld\n",
				       cfg.name, cfg.tick_ns, cfg.slots, PTR_ERR(w));
				hwt_dev_wheels_destroy();
				return PTR_ERR(w);
			}
			dev_wheels[p][c] = w;
		}
	}
	return 0;
}

static int __init hwtimer_init(void)
{
	int ret;

	ret = hwt_core_init();
	if (ret)
		return ret;

	ret = hwt_dev_wheels_create();
	if (ret)
		goto out_core;

	ret = hwtd_init();
	if (ret)
		goto out_wheel;

	pr_info("loaded: tick %llu ns, %u slots\n",
		hwtimer_wheel_tick_ns(hwtimer_default_wheel()),
		hwtimer_wheel_slots(hwtimer_default_wheel()));
	return 0;

out_wheel:
	hwt_dev_wheels_destroy();
out_core:
	hwt_core_exit();
	return ret;
}

static void __exit hwtimer_exit(void)
{
	hwtd_exit();
	hwt_dev_wheels_destroy();
	hwt_core_exit();
}

module_init(hwtimer_init);
module_exit(hwtimer_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Scalable per-CPU hashed timing wheel with /dev/hwtimer");
MODULE_AUTHOR("hwtimer developers");
