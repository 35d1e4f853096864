// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the hwtimer KUnit suites. */
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "hwtimer_kunit_compat.h"
#include "hwtimer_kunit.h"

void kt_fn(struct hwtimer *t)
{
	struct kt_timer *kt = from_hwtimer(kt, t, t);

	kt->fired_at = hwt_wheel_now(t->wheel);
	if (kt->fired_at < t->deadline)
		atomic_inc(&kt->early);
	kt->tick = t->expires;
	/*
	 * The running callback's base is the one it was queued on, whose
	 * hrtimer nothing programs while the pass runs: its expiry is the
	 * one that began the pass, or the pass this one continues.
	 */
	if (!t->wheel->manual) {
		const struct hwt_base *base = per_cpu_ptr(t->wheel->bases,
							  READ_ONCE(t->flags) & HWT_CPUMASK);

		kt->hrt_expires = ktime_to_ns(hrtimer_get_expires(&base->hrt));
	}
	kt->fired_cpu = raw_smp_processor_id();
	kt->in_softirq = in_serving_softirq();
	atomic_inc(&kt->fires);
	if (kt->rearms > 0) {
		kt->rearms--;
		hwtimer_start(t, kt->rearm_delay, HWTIMER_MODE_REL);
	}
}

void kt_setup(struct kt_timer *kt, struct hwtimer_wheel *w)
{
	memset(kt, 0, sizeof(*kt));
	hwtimer_setup(&kt->t, w, kt_fn);
}

const char *kt_name(struct kunit *test)
{
	static atomic_t seq = ATOMIC_INIT(0);

	char *name = kunit_kzalloc(test, 16, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, name);
	snprintf(name, 16, "kunit%d", atomic_inc_return(&seq));
	return name;
}

/*
 * Wheels and memory are KUnit resources of the test that made them, so a
 * test may make as many as it likes. KUnit frees resources last made
 * first, after the suite's .exit: kt_cleanup() destroys the wheels first,
 * so that no wheel outlives memory holding its timers, whatever order the
 * test made them in.
 */
static int kt_wheel_init(struct kunit_resource *res, void *wheel)
{
	res->data = wheel;
	return 0;
}

static void kt_wheel_free(struct kunit_resource *res)
{
	/* NULL once kt_destroy_all() has destroyed it. */
	hwtimer_wheel_destroy(res->data, NULL, NULL);
}

static bool kt_wheel_match(struct kunit *test, struct kunit_resource *res, void *data)
{
	return res->free == kt_wheel_free;
}

static struct hwtimer_wheel *kt_keep(struct kunit *test, struct hwtimer_wheel *w)
{
	void *res;

	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, w, "wheel creation failed: %ld", PTR_ERR(w));
	res = kunit_alloc_resource(test, kt_wheel_init, kt_wheel_free, GFP_KERNEL, w);
	if (!res)
		hwtimer_wheel_destroy(w, NULL, NULL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, res, "no memory to track a wheel");
	return w;
}

struct hwtimer_wheel *kt_manual_wheel(struct kunit *test, u64 tick_ns, u32 slots,
				      u64 max_pending)
{
	struct hwtimer_wheel_config cfg = {
		.name = kt_name(test),
		.tick_ns = tick_ns,
		.slots = slots,
		.max_pending = max_pending,
	};

	return kt_keep(test, hwt_wheel_create_manual(&cfg));
}

struct hwtimer_wheel *kt_manual_wheel_cfg(struct kunit *test, struct hwtimer_wheel_config *cfg)
{
	cfg->name = kt_name(test);
	return kt_keep(test, hwt_wheel_create_manual(cfg));
}

struct hwtimer_wheel *kt_real_wheel(struct kunit *test, u64 tick_ns, u32 slots,
				    u32 flags)
{
	struct hwtimer_wheel_config cfg = {
		.name = kt_name(test),
		.tick_ns = tick_ns,
		.slots = slots,
		.flags = flags,
	};

	return kt_keep(test, hwtimer_wheel_create(&cfg));
}

static int kt_mem_init(struct kunit_resource *res, void *size)
{
	res->data = kvzalloc(*(size_t *)size, GFP_KERNEL);
	return res->data ? 0 : -ENOMEM;
}

static void kt_mem_free(struct kunit_resource *res)
{
	kvfree(res->data);
}

void *kt_kvzalloc(struct kunit *test, size_t size)
{
	void *p = kunit_alloc_resource(test, kt_mem_init, kt_mem_free, GFP_KERNEL, &size);

	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "no memory for %zu bytes", size);
	return p;
}

unsigned long kt_destroy_all(struct kunit *test)
{
	struct kunit_resource *res;
	unsigned long n = 0;

	while ((res = kunit_find_resource(test, kt_wheel_match, NULL))) {
		n += hwtimer_wheel_destroy(res->data, NULL, NULL);
		res->data = NULL;
		kunit_remove_resource(test, res);
		kunit_put_resource(res);
	}
	return n;
}

void kt_cleanup(struct kunit *test)
{
	kt_destroy_all(test);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for hwtimer");
HWT_IMPORT_KUNIT_NS();
