// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_stress_client: a client module for the module lifecycle tests of
 * `make stress` (test only).
 *
 * At load it creates a wheel of its own and starts @ntimers timers on it
 * and @ntimers on the default wheel, with delays from 1 ms to 5 s, so that
 * some fire while it is loaded and the rest are pending when it goes. At
 * unload it destroys its wheel, shuts down its default-wheel timers and
 * checks its ledger: every start fired, was cancelled or was handed back,
 * exactly once (a WARN otherwise, which fails the run).
 *
 * With leak=1 it cancels its timers but "forgets" to destroy its wheel:
 * hwtimer must then warn loudly about that wheel and leave nothing armed.
 * With leak=2 it also leaves its own wheel's timers pending, in its module
 * data: hwtimer must destroy the wheel before that memory goes (which only
 * a hwtimer that destroys a module's wheels when the module is unloaded
 * can do). With leak=3 its init arms its own wheel's timers and then fails:
 * hwtimer must clean up after the failed load the same way. The test VM
 * expects exactly one warning for each.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/hwtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>

static unsigned int ntimers = 64;
module_param(ntimers, uint, 0444);
MODULE_PARM_DESC(ntimers, "Timers on each of the two wheels (default 64)");

static unsigned int leak;
module_param(leak, uint, 0444);
MODULE_PARM_DESC(leak, "1: do not destroy the wheel at unload; 2: nor cancel its timers; 3: fail init with them pending (default 0)");

static char *wheel_name = "hwts-client";
module_param(wheel_name, charp, 0444);
MODULE_PARM_DESC(wheel_name, "Name of the client's wheel (default hwts-client)");

struct client_timer {
	struct hwtimer	timer;
	u64		deadline;
	bool		armed;
};

static struct hwtimer_wheel *client_wheel;
static struct client_timer *timers;	/* ntimers on each wheel */
/* leak>=2: timers that outlive the exit function, until the module goes. */
static struct client_timer static_timers[2 * 16];
static atomic_t nfired = ATOMIC_INIT(0);
static atomic_t nearly = ATOMIC_INIT(0);
static unsigned int nstarted;

static void client_fn(struct hwtimer *t)
{
	struct client_timer *ct = from_hwtimer(ct, t, timer);

	if (ktime_get_ns() < ct->deadline)
		atomic_inc(&nearly);
	atomic_inc(&nfired);
}

static void client_unprocessed(struct hwtimer *t, void *arg)
{
	unsigned int *n = arg;

	(*n)++;
}

static int __init client_init(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = wheel_name,
		.tick_ns = 1000000,
		.slots = 64,
	};
	unsigned int i;
	int ret;

	if (!ntimers || ntimers > 100000 || leak > 3 ||
	    (leak >= 2 && ntimers > ARRAY_SIZE(static_timers) / 2))
		return -EINVAL;
	timers = leak >= 2 ? static_timers :
		 kvcalloc(2 * ntimers, sizeof(*timers), GFP_KERNEL);
	if (!timers)
		return -ENOMEM;
	client_wheel = hwtimer_wheel_create(&cfg);
	if (IS_ERR(client_wheel)) {
		ret = PTR_ERR(client_wheel);
		if (timers != static_timers)
			kvfree(timers);
		return ret;
	}
	for (i = 0; i < 2 * ntimers; i++) {
		struct client_timer *ct = &timers[i];
		u64 delay = 1000000ULL + get_random_u32_below(5000) * 1000000ULL;

		/* leak>=2: its own wheel's timers stay pending at unload. */
		if (leak >= 2 && i < ntimers)
			delay = 3600 * 1000000000ULL;
		/* leak=3: the load fails; only the own wheel may hold timers. */
		if (leak == 3 && i >= ntimers)
			break;

		hwtimer_setup(&ct->timer, i < ntimers ? client_wheel :
			      hwtimer_default_wheel(), client_fn);
		ct->deadline = ktime_get_ns() + delay;
		ret = hwtimer_start(&ct->timer, delay, HWTIMER_MODE_REL);
		if (ret) {
			pr_err("start %u: %d\n", i, ret);
			continue;
		}
		ct->armed = true;
		nstarted++;
	}
	pr_info("started %u timers\n", nstarted);
	if (leak == 3) {
		pr_info("failing the load with wheel %s and %u timers pending\n",
			wheel_name, nstarted);
		return -EAGAIN;
	}
	return 0;
}

static void __exit client_exit(void)
{
	unsigned int i, handed = 0, cancelled = 0;
	int ret;

	if (leak == 2) {
		/* Forget the wheel and its pending timers; stop the others. */
		for (i = ntimers; i < 2 * ntimers; i++)
			hwtimer_shutdown_sync(&timers[i].timer);
		pr_info("left wheel %s with %u timers pending\n", wheel_name, ntimers);
		return;
	}
	if (leak) {
		/* Cancel everything, forget the wheel: hwtimer must complain. */
		for (i = 0; i < 2 * ntimers; i++)
			if (hwtimer_shutdown_sync(&timers[i].timer) == 1)
				cancelled++;
	} else {
		handed = hwtimer_wheel_destroy(client_wheel, client_unprocessed,
					       &cancelled);
		if (handed != cancelled)
			pr_err("destroy returned %u, handed back %u\n", handed, cancelled);
		for (i = ntimers; i < 2 * ntimers; i++) {
			ret = hwtimer_shutdown_sync(&timers[i].timer);
			if (ret == 1)
				cancelled++;
		}
	}
	WARN(atomic_read(&nfired) + cancelled != nstarted || atomic_read(&nearly),
	     "hwtimer_stress_client: ledger: started %u, fired %d + cancelled or handed back %u, early %d\n",
	     nstarted, atomic_read(&nfired), cancelled, atomic_read(&nearly));
	pr_info("started %u fired %d cancelled or handed back %u%s\n", nstarted,
		atomic_read(&nfired), cancelled, leak ? " (wheel left behind)" : "");
	if (timers != static_timers)
		kvfree(timers);
}

module_init(client_init);
module_exit(client_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer module lifecycle test client (test only)");
MODULE_AUTHOR("hwtimer developers");
