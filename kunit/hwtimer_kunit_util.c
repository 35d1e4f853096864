// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the hwtimer KUnit suites. */
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "hwtimer_compat.h"
#include "hwtimer_kunit.h"

void kt_fn(struct hwtimer *t)
{
	struct kt_timer *kt = from_hwtimer(kt, t, t);

	kt->fired_at = hwt_wheel_now(t->wheel);
	if (kt->fired_at < t->deadline)
		atomic_inc(&kt->early);
	kt->fired_cpu = raw_smp_processor_id();
	kt->in_softirq = in_serving_softirq();
	atomic_inc(&kt->fires);
	if (kt->rearms > 0) {
		kt->rearms--;
		hwtimer_start(t, kt->rearm_delay);
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

#define KT_MAX_WHEELS 8
#define KT_MAX_ALLOCS 8

struct kt_wheels {
	struct hwtimer_wheel *w[KT_MAX_WHEELS];
	int n;
	void *mem[KT_MAX_ALLOCS];
	int nmem;
};

static struct kt_wheels *kt_wheels(struct kunit *test)
{
	if (!test->priv)
		test->priv = kunit_kzalloc(test, sizeof(struct kt_wheels), GFP_KERNEL);
	return test->priv;
}

static struct hwtimer_wheel *kt_keep(struct kunit *test, struct hwtimer_wheel *w)
{
	struct kt_wheels *ws = kt_wheels(test);

	KUNIT_ASSERT_NOT_NULL(test, ws);
	KUNIT_ASSERT_NOT_ERR_OR_NULL_MSG(test, w, "wheel creation failed: %ld", PTR_ERR(w));
	KUNIT_ASSERT_LT(test, ws->n, KT_MAX_WHEELS);
	ws->w[ws->n++] = w;
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

void *kt_kvzalloc(struct kunit *test, size_t size)
{
	struct kt_wheels *ws = kt_wheels(test);
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, ws);
	KUNIT_ASSERT_LT(test, ws->nmem, KT_MAX_ALLOCS);
	p = kvzalloc(size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "no memory for %zu bytes", size);
	ws->mem[ws->nmem++] = p;
	return p;
}

int kt_init(struct kunit *test)
{
	/* Parameterised runs share one struct kunit: start each afresh. */
	test->priv = NULL;
	return 0;
}

unsigned long kt_destroy_all(struct kunit *test)
{
	struct kt_wheels *ws = test->priv;
	unsigned long n = 0;

	if (!ws)
		return 0;
	while (ws->n > 0)
		n += hwtimer_wheel_destroy(ws->w[--ws->n], NULL, NULL);
	return n;
}

void kt_cleanup(struct kunit *test)
{
	struct kt_wheels *ws = test->priv;

	if (!ws)
		return;
	kt_destroy_all(test);
	while (ws->nmem > 0)
		kvfree(ws->mem[--ws->nmem]);
}

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for hwtimer");
HWT_IMPORT_KUNIT_NS();
