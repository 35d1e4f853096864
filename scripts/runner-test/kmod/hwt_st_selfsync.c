// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a callback that calls hwtimer_cancel_sync() and
 * hwtimer_shutdown_sync() on its own timer, on a softirq wheel and on a
 * process-context one. The kernel-doc promises -EDEADLK, a warning, and the
 * timer left as it was. The runner must fail the segment on that warning
 * ("waits for its own callback", WARN_ONCE: one for all four calls) and on
 * nothing else: no "sleeping function called from invalid context" from
 * the softirq callback, no lockdep report of the wheel's map taken twice.
 * The module checks the return values, and that the timer was neither
 * cancelled nor shut down (its callback re-arms it), and fails to load if
 * not.
 */
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hwtimer.h>
#include <linux/module.h>
#include <linux/time64.h>

struct hwt_st_self {
	struct hwtimer		timer;
	struct completion	done;
	int			cancel;
	int			shutdown;
	int			rearm;
};

static struct hwt_st_self hwt_st_selves[2];

static void hwt_st_self_fn(struct hwtimer *timer)
{
	struct hwt_st_self *s = container_of(timer, struct hwt_st_self, timer);

	s->cancel = hwtimer_cancel_sync(timer);
	s->shutdown = hwtimer_shutdown_sync(timer);
	/* Neither call did anything: the timer is not shut down. */
	s->rearm = hwtimer_start(timer, 3600 * NSEC_PER_SEC, HWTIMER_MODE_REL);
	complete(&s->done);
}

static int hwt_st_self_run(struct hwt_st_self *s, u32 flags)
{
	struct hwtimer_wheel_config cfg = {
		.name = flags ? "st_self_process" : "st_self_softirq",
		.tick_ns = NSEC_PER_MSEC,
		.slots = 64,
		.flags = flags,
	};
	struct hwtimer_wheel *w = hwtimer_wheel_create(&cfg);
	unsigned long left;
	int ret = 0, c;

	if (IS_ERR(w))
		return PTR_ERR(w);
	init_completion(&s->done);
	hwtimer_setup(&s->timer, w, hwt_st_self_fn);
	ret = hwtimer_start(&s->timer, NSEC_PER_MSEC, HWTIMER_MODE_REL);
	if (!ret && !wait_for_completion_timeout(&s->done, 10 * HZ)) {
		pr_err("%s: the callback did not run\n", cfg.name);
		ret = -ETIMEDOUT;
	}
	if (!ret && (s->cancel != -EDEADLK || s->shutdown != -EDEADLK || s->rearm)) {
		pr_err("%s: from its own callback cancel_sync %d, shutdown_sync %d (want %d), then start %d (want 0)\n",
		       cfg.name, s->cancel, s->shutdown, -EDEADLK, s->rearm);
		ret = -EINVAL;
	}
	/* The re-arm is pending; from process context the cancel works. */
	c = hwtimer_cancel_sync(&s->timer);
	if (!ret && c != 1) {
		pr_err("%s: cancel_sync of the re-armed timer: %d, want 1\n", cfg.name, c);
		ret = -EINVAL;
	}
	left = hwtimer_wheel_destroy(w, NULL, NULL);
	if (left) {
		pr_err("%s: destroy handed back %lu timers\n", cfg.name, left);
		ret = -EINVAL;
	}
	return ret;
}

static int __init hwt_st_selfsync_init(void)
{
	int ret = hwt_st_self_run(&hwt_st_selves[0], 0);

	if (!ret)
		ret = hwt_st_self_run(&hwt_st_selves[1], HWTIMER_WHEEL_PROCESS);
	return ret;
}

static void __exit hwt_st_selfsync_exit(void)
{
}

module_init(hwt_st_selfsync_init);
module_exit(hwt_st_selfsync_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: cancel_sync from a timer's own callback");
