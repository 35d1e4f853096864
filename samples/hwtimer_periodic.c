// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer sample: a periodic timer that does not drift.
 *
 * The callback moves the deadline on with hwtimer_forward(), which adds
 * whole periods to the previous deadline (as hrtimer_forward() does), and
 * re-arms for hwtimer_expires(). However late a callback runs, the k-th
 * deadline stays start + k * period; periods missed altogether come back
 * as overruns instead of piling up. At load the module runs the timer for
 * a while on the default wheel and checks that; at unload it stops it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/hwtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>

static unsigned int period_ms = 5;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "Period in ms (default 5)");

static unsigned int run_ms = 100;
module_param(run_ms, uint, 0444);
MODULE_PARM_DESC(run_ms, "How long to run the timer at load, in ms (default 100)");

static struct hwtimer tick;
static u64 start_ns, period_ns;
/* Written by the callback only; read once it is shut down. */
static u64 fires, periods, off_grid;
/* Set by the first callback: the load waits for it. */
static atomic_t ran = ATOMIC_INIT(0);

static void tick_fn(struct hwtimer *t)
{
	atomic_set(&ran, 1);
	fires++;
	/* 1 + the periods missed since the deadline that just expired. */
	periods += hwtimer_forward(t, period_ns);
	/* Drift-free: every deadline is on the start + k * period grid. */
	if (hwtimer_expires(t) != start_ns + periods * period_ns)
		off_grid++;
	hwtimer_start(t, hwtimer_expires(t), HWTIMER_MODE_ABS);
}

static int __init periodic_init(void)
{
	unsigned int waited;
	int ret;

	if (!period_ms)
		return -EINVAL;
	period_ns = (u64)period_ms * NSEC_PER_MSEC;
	hwtimer_setup(&tick, hwtimer_default_wheel(), tick_fn);
	start_ns = ktime_get_ns();
	ret = hwtimer_start(&tick, start_ns, HWTIMER_MODE_ABS);
	if (ret)
		return ret;
	msleep(run_ms);
	/* One callback at least, however long the host held it (10 s at most). */
	for (waited = 0; !atomic_read(&ran) && waited < 10000; waited += period_ms)
		msleep(period_ms);
	/* Stops the callback re-arming, waits for it: then the counts hold. */
	hwtimer_shutdown_sync(&tick);
	pr_info("%llu callbacks over %llu periods of %u ms, %llu overruns, %llu deadlines off the grid\n",
		fires, periods, period_ms, periods - fires, off_grid);
	if (off_grid || !fires)
		return -EINVAL;
	return 0;
}

static void __exit periodic_exit(void)
{
	/* Shut down at load already; nothing is pending. */
}

module_init(periodic_init);
module_exit(periodic_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer sample: a drift-free periodic timer");
