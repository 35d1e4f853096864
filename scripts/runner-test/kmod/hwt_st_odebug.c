// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: commits, at load, one of the three hwtimer bugs
 * that debugobjects reports (CONFIG_DEBUG_OBJECTS_TIMERS, which the test
 * kernels have), chosen by bug=:
 *
 *   free   kfree() of an object whose timer is pending
 *   start  hwtimer_start() of a timer never set up
 *   setup  hwtimer_setup() of a pending timer
 *
 * The runner must fail each on its "ODEBUG:" report, and on nothing else:
 * hwtimer's fixups must make the bug harmless. The module checks that they
 * did (the start was refused, nothing is left pending on its wheel, the
 * wheel's destroy hands nothing back) and fails to load if not.
 */
#include <linux/errno.h>
#include <linux/hwtimer.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "the bug to commit: free, start or setup");

struct hwt_st_obj {
	struct hwtimer	timer;
	unsigned long	payload;
};

static void hwt_st_odebug_fn(struct hwtimer *timer)
{
}

/* Commit the bug on @w. Returns 0 if hwtimer made it safe. */
static int hwt_st_commit(struct hwtimer_wheel *w)
{
	struct hwt_st_obj *o = kzalloc(sizeof(*o), GFP_KERNEL);
	int ret;

	if (!o)
		return -ENOMEM;
	if (!strcmp(bug, "free")) {
		hwtimer_setup(&o->timer, w, hwt_st_odebug_fn);
		ret = hwtimer_start(&o->timer, 3600 * NSEC_PER_SEC, HWTIMER_MODE_REL);
		/* The bug: it is pending. The fixup cancels it. */
		kfree(o);
		return ret;
	}
	if (!strcmp(bug, "start")) {
		/* The bug: never set up. The fixup makes the start fail. */
		ret = hwtimer_start(&o->timer, NSEC_PER_SEC, HWTIMER_MODE_REL);
		if (ret != -EIDRM) {
			pr_err("start of a timer never set up: %d, not -EIDRM\n", ret);
			ret = -EINVAL;
		} else {
			ret = 0;
		}
		kfree(o);
		return ret;
	}
	if (!strcmp(bug, "setup")) {
		hwtimer_setup(&o->timer, w, hwt_st_odebug_fn);
		ret = hwtimer_start(&o->timer, 3600 * NSEC_PER_SEC, HWTIMER_MODE_REL);
		/* The bug: it is pending. The fixup cancels it first. */
		hwtimer_setup(&o->timer, w, hwt_st_odebug_fn);
		if (!ret && hwtimer_state(&o->timer) != HWTIMER_IDLE) {
			pr_err("a pending timer set up again is not idle\n");
			ret = -EINVAL;
		}
		kfree(o);
		return ret;
	}
	kfree(o);
	pr_err("bug=%s: want free, start or setup\n", bug);
	return -EINVAL;
}

static int __init hwt_st_odebug_init(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "st_odebug",
		.tick_ns = NSEC_PER_MSEC,
		.slots = 64,
	};
	struct hwtimer_wheel *w = hwtimer_wheel_create(&cfg);
	struct hwtimer_stats s;
	unsigned long left;
	int ret;

	if (IS_ERR(w))
		return PTR_ERR(w);
	ret = hwt_st_commit(w);
	hwtimer_wheel_stats(w, &s);
	if (s.pending) {
		pr_err("bug=%s: %llu timers left pending\n", bug, s.pending);
		ret = -EINVAL;
	}
	left = hwtimer_wheel_destroy(w, NULL, NULL);
	if (left) {
		pr_err("bug=%s: destroy handed back %lu timers\n", bug, left);
		ret = -EINVAL;
	}
	return ret;
}

static void __exit hwt_st_odebug_exit(void)
{
}

module_init(hwt_st_odebug_init);
module_exit(hwt_st_odebug_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: bugs debugobjects reports");
