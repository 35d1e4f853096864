// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the wheel's promises (hwtimer_wheel.h, "What this gives"), checked
 * against both of its users in the same way: a per-CPU wheel (a manual
 * test wheel, timers through the kernel API) and a file of the device (a
 * manual file, timeouts through the batch operations). Each case is run
 * once per user:
 *
 *  - never early, at most one tick late: every timer fires exactly at the
 *    start of the first tick at or after its deadline, once, and a
 *    cancelled one never;
 *  - bounded cascades: no timer is moved down more than once per level;
 *  - the far future costs nothing per tick: ticks that pass while timers
 *    wait far ahead move none of them.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "hwtimer_kunit_compat.h"
#include "hwtimer_dev_records.h"
#include "hwtimer_kunit.h"

/* The shortest tick a wheel takes is 10 us (HWTIMER_TICK_MIN_NS). */
#define KI_TICK		100000ULL
/* Level-0 slots of the per-CPU wheel: as many as a file's wheel has. */
#define KI_SLOTS	64

/* One user of the wheel, with @n timers numbered 0 to @n - 1. */
struct ki_ctx {
	const struct ki_user	*user;
	unsigned int		n;
	u64			*fired_at;	/* 0: not fired */
	unsigned int		*fires;
	/* The per-CPU wheel */
	struct hwtimer_wheel	*w;
	struct kt_timer		*kt;
	/* The device's file */
	struct hwtd_file	*file;
	u64			*ids;
	u64			now;
};

struct ki_user {
	const char	*name;
	void		(*create)(struct kunit *test, struct ki_ctx *c);
	/* Arm timer @i for @deadline at the current clock. */
	void		(*arm)(struct kunit *test, struct ki_ctx *c, unsigned int i, u64 deadline);
	/* Cancel timer @i; whether it was pending. */
	bool		(*cancel)(struct ki_ctx *c, unsigned int i);
	/* Re-arm pending timer @i for @deadline; whether it was pending. */
	bool		(*modify)(struct kunit *test, struct ki_ctx *c, unsigned int i,
				  u64 deadline);
	/* Set the clock to @now and run what is due, recording fires. */
	void		(*run)(struct ki_ctx *c, u64 now);
	/* Set the clock to @now for the calls that follow, running nothing. */
	void		(*set_clock)(struct ki_ctx *c, u64 now);
	/* Timers moved from one slot to another by the expiry path so far. */
	u64		(*cascaded)(struct ki_ctx *c);
	unsigned int	(*levels)(struct ki_ctx *c);
	void		(*destroy)(struct ki_ctx *c);
};

/* ---- the per-CPU wheel --------------------------------------------------- */

static void ki_cpu_fn(struct hwtimer *t)
{
	struct kt_timer *kt = from_hwtimer(kt, t, t);

	kt->fired_at = hwt_wheel_now(t->wheel);
	atomic_inc(&kt->fires);
}

static void ki_cpu_create(struct kunit *test, struct ki_ctx *c)
{
	unsigned int i;

	c->w = kt_manual_wheel(test, KI_TICK, KI_SLOTS, 0);
	c->kt = kt_kvzalloc(test, c->n * sizeof(*c->kt));
	KUNIT_ASSERT_NOT_NULL(test, c->kt);
	for (i = 0; i < c->n; i++)
		hwtimer_setup(&c->kt[i].t, c->w, ki_cpu_fn);
}

static void ki_cpu_arm(struct kunit *test, struct ki_ctx *c, unsigned int i, u64 deadline)
{
	KUNIT_ASSERT_EQ_MSG(test, hwtimer_start(&c->kt[i].t, deadline, HWTIMER_MODE_ABS), 0,
			    "start of timer %u for %llu", i, deadline);
}

static bool ki_cpu_cancel(struct ki_ctx *c, unsigned int i)
{
	return hwtimer_cancel(&c->kt[i].t) == 1;
}

static void ki_cpu_run(struct ki_ctx *c, u64 now)
{
	unsigned int i;

	/* Every CPU's base: the timers are where the test thread ran. */
	hwt_manual_advance(c->w, now);
	for (i = 0; i < c->n; i++) {
		c->fires[i] = atomic_read(&c->kt[i].fires);
		c->fired_at[i] = c->fires[i] ? c->kt[i].fired_at : 0;
	}
}

static void ki_cpu_set_clock(struct ki_ctx *c, u64 now)
{
	WRITE_ONCE(c->w->manual_now, now);
}

static u64 ki_cpu_cascaded(struct ki_ctx *c)
{
	struct hwtimer_stats s;

	hwtimer_wheel_stats(c->w, &s);
	return s.cascaded;
}

static unsigned int ki_cpu_levels(struct ki_ctx *c)
{
	return c->w->geom.levels;
}

static bool ki_cpu_modify(struct kunit *test, struct ki_ctx *c, unsigned int i, u64 deadline)
{
	int ret = hwtimer_modify(&c->kt[i].t, deadline, HWTIMER_MODE_ABS);

	KUNIT_EXPECT_GE_MSG(test, ret, 0, "modify of timer %u for %llu", i, deadline);
	return ret == 1;
}

static void ki_cpu_destroy(struct ki_ctx *c)
{
}

/* ---- the device's file ---------------------------------------------------- */

static void ki_file_create(struct kunit *test, struct ki_ctx *c)
{
	c->file = hwtd_file_create_manual(KI_TICK, 0);
	KUNIT_ASSERT_NOT_NULL(test, c->file);
	c->ids = kt_kvzalloc(test, c->n * sizeof(*c->ids));
	KUNIT_ASSERT_NOT_NULL(test, c->ids);
}

static void ki_file_arm(struct kunit *test, struct ki_ctx *c, unsigned int i, u64 deadline)
{
	struct hwtimer_arm_entry e = {
		.cookie = i, .expires_ns = deadline, .flags = HWTIMER_TIMEOUT_ABS,
	};

	KUNIT_ASSERT_EQ_MSG(test, hwtd_kunit_op(c->file, HWTIMER_IOC_ARM, &e, c->now), 0,
			    "arm of timeout %u for %llu", i, deadline);
	c->ids[i] = e.id;
}

static bool ki_file_cancel(struct ki_ctx *c, unsigned int i)
{
	struct hwtimer_cancel_entry e = { .id = c->ids[i] };

	return !hwtd_kunit_op(c->file, HWTIMER_IOC_CANCEL, &e, c->now);
}

static bool ki_file_modify(struct kunit *test, struct ki_ctx *c, unsigned int i, u64 deadline)
{
	struct hwtimer_modify_entry e = {
		.id = c->ids[i], .expires_ns = deadline, .flags = HWTIMER_TIMEOUT_ABS,
	};

	KUNIT_EXPECT_EQ_MSG(test, hwtd_kunit_op(c->file, HWTIMER_IOC_MODIFY, &e, c->now), 0,
			    "modify of timeout %u for %llu", i, deadline);
	return e.status == HWTIMER_STATUS_PENDING;
}

static void ki_file_run(struct ki_ctx *c, u64 now)
{
	struct hwtimer_expiry r[16];
	unsigned int n, k;

	hwtd_kunit_run(c->file, now);
	while ((n = hwtd_kunit_read(c->file, r, ARRAY_SIZE(r)))) {
		for (k = 0; k < n; k++) {
			c->fires[r[k].cookie]++;
			c->fired_at[r[k].cookie] = r[k].expired_ns;
		}
	}
}

static void ki_file_set_clock(struct ki_ctx *c, u64 now)
{
	c->now = now;
}

static u64 ki_file_cascaded(struct ki_ctx *c)
{
	return READ_ONCE(c->file->cascaded);
}

static unsigned int ki_file_levels(struct ki_ctx *c)
{
	return HWTD_LEVELS;
}

static void ki_file_destroy(struct ki_ctx *c)
{
	hwtd_file_destroy_manual(c->file);
}

static const struct ki_user ki_users[] = {
	{
		.name = "per-CPU wheel",
		.create = ki_cpu_create, .arm = ki_cpu_arm, .cancel = ki_cpu_cancel,
		.modify = ki_cpu_modify,
		.run = ki_cpu_run, .set_clock = ki_cpu_set_clock,
		.cascaded = ki_cpu_cascaded, .levels = ki_cpu_levels,
		.destroy = ki_cpu_destroy,
	},
	{
		.name = "device file",
		.create = ki_file_create, .arm = ki_file_arm, .cancel = ki_file_cancel,
		.modify = ki_file_modify,
		.run = ki_file_run, .set_clock = ki_file_set_clock,
		.cascaded = ki_file_cascaded, .levels = ki_file_levels,
		.destroy = ki_file_destroy,
	},
};

static void ki_user_desc(const struct ki_user *u, char *desc)
{
	strscpy(desc, u->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ki_users, ki_users, ki_user_desc);

static struct ki_ctx *ki_ctx(struct kunit *test, unsigned int n)
{
	struct ki_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->user = test->param_value;
	c->n = n;
	c->fired_at = kt_kvzalloc(test, n * sizeof(*c->fired_at));
	c->fires = kt_kvzalloc(test, n * sizeof(*c->fires));
	KUNIT_ASSERT_NOT_NULL(test, c->fired_at);
	KUNIT_ASSERT_NOT_NULL(test, c->fires);
	c->user->create(test, c);
	return c;
}

static void ki_set_now(struct ki_ctx *c, u64 now)
{
	c->now = now;
	c->user->run(c, now);
}

static int ki_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Timers over five levels, armed while the clock moves, a tenth of them
 * cancelled: the clock then visits the tick before and the tick of every
 * expiry, and each timer fires at the start of its deadline's tick, once.
 */
static void invariants_exact_and_bounded(struct kunit *test)
{
	const unsigned int n = 3000;
	struct ki_ctx *c = ki_ctx(test, n);
	const struct ki_user *u = c->user;
	u64 *dl = kt_kvzalloc(test, n * sizeof(u64));
	u64 *ticks = kt_kvzalloc(test, n * sizeof(u64));
	bool *gone = kt_kvzalloc(test, n * sizeof(bool));
	unsigned int *early_fires = kt_kvzalloc(test, n * sizeof(unsigned int));
	unsigned int i, j, k, live = 0;
	u64 now = 0, tk;

	KUNIT_ASSERT_NOT_NULL(test, dl);
	KUNIT_ASSERT_NOT_NULL(test, ticks);
	KUNIT_ASSERT_NOT_NULL(test, gone);
	KUNIT_ASSERT_NOT_NULL(test, early_fires);
	for (i = 0; i < n; i++) {
		if (i % 3 == 0) {
			now += get_random_u32() % (50 * KI_TICK);
			ki_set_now(c, now);
		}
		/* Up to 64^4 ticks ahead: levels 0 to 4 of 64 slots. */
		dl[i] = now + 1 + get_random_u64() % (64ULL * 64 * 64 * 64 * KI_TICK);
		u->arm(test, c, i, dl[i]);
	}
	for (i = 0; i < n; i += 10)
		gone[i] = u->cancel(c, i);
	/* Those that fired while the clock jumped ahead are late by the jump. */
	for (i = 0; i < n; i++)
		early_fires[i] = c->fires[i];
	for (i = 0, k = 0; i < n; i++) {
		if (!gone[i] && !c->fires[i])
			ticks[k++] = DIV_ROUND_UP_ULL(dl[i], KI_TICK);
		live += !gone[i];
	}
	sort(ticks, k, sizeof(u64), ki_cmp_u64, NULL);
	for (j = 0; j < k; j++) {
		tk = ticks[j];
		if (j && tk == ticks[j - 1])
			continue;
		if (tk * KI_TICK - 1 > now)
			ki_set_now(c, tk * KI_TICK - 1);
		ki_set_now(c, max(now, tk * KI_TICK));
		now = c->now;
	}
	for (i = 0; i < n; i++) {
		if (gone[i]) {
			KUNIT_EXPECT_EQ_MSG(test, c->fires[i], 0u,
					    "%s: timer %u fired after its cancel",
					    u->name, i);
			continue;
		}
		KUNIT_EXPECT_EQ_MSG(test, c->fires[i], 1u,
				    "%s: timer %u (deadline %llu) fired %u times",
				    u->name, i, dl[i], c->fires[i]);
		KUNIT_EXPECT_GE_MSG(test, c->fired_at[i], dl[i], "%s: timer %u fired early",
				    u->name, i);
		if (early_fires[i])
			continue;
		KUNIT_EXPECT_EQ_MSG(test, c->fired_at[i],
				    DIV_ROUND_UP_ULL(dl[i], KI_TICK) * KI_TICK,
				    "%s: timer %u (deadline %llu) did not fire at the start of its tick",
				    u->name, i, dl[i]);
	}
	KUNIT_EXPECT_LE_MSG(test, u->cascaded(c), (u64)(u->levels(c) - 1) * live,
			    "%s: %llu cascades of %u timers over %u levels", u->name,
			    u->cascaded(c), live, u->levels(c));
	u->destroy(c);
}

/*
 * Timers a million ticks ahead, in a high level's slot: the thousand ticks
 * that pass, each processed, move none of them, and fire none.
 */
static void invariants_far_future_free(struct kunit *test)
{
	const unsigned int n = 1000;
	struct ki_ctx *c = ki_ctx(test, n);
	const struct ki_user *u = c->user;
	u64 c0, t;
	unsigned int i;

	for (i = 0; i < n; i++)
		u->arm(test, c, i, (1ULL << 20) * KI_TICK + i * KI_TICK);
	c0 = u->cascaded(c);
	for (t = 1; t <= 1000; t++)
		ki_set_now(c, t * KI_TICK);
	KUNIT_EXPECT_EQ_MSG(test, u->cascaded(c), c0,
			    "%s: far-future timers moved while 1000 ticks passed", u->name);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, c->fires[i], 0u,
				    "%s: timer %u fired a million ticks early",
				    u->name, i);
	/* Their slot begins: they cascade, then fire on time. */
	ki_set_now(c, (1ULL << 20) * KI_TICK + n * KI_TICK);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, c->fires[i], 1u, "%s: timer %u", u->name, i);
	u->destroy(c);
}

/*
 * A timer pushed out a tick at a time, a thousand times, as an idle
 * timeout is on each use: it stays in its slot (hwt_can_stay()) and moves
 * once per slot it waits in, not once per modify, and fires at the tick
 * of its last deadline.
 */
static void invariants_pushed_out_moves_per_slot(struct kunit *test)
{
	struct ki_ctx *c = ki_ctx(test, 1);
	const struct ki_user *u = c->user;
	u64 dl = 100 * KI_TICK, c0;
	unsigned int k;

	u->arm(test, c, 0, dl);
	c0 = u->cascaded(c);
	for (k = 0; k < 1000; k++) {
		dl += KI_TICK;
		KUNIT_EXPECT_TRUE_MSG(test, u->modify(test, c, 0, dl),
				      "%s: modify %u found the timer not pending", u->name, k);
	}
	ki_set_now(c, dl - 1);
	KUNIT_EXPECT_EQ_MSG(test, c->fires[0], 0u, "%s: fired before its last deadline", u->name);
	ki_set_now(c, dl);
	KUNIT_EXPECT_EQ_MSG(test, c->fires[0], 1u, "%s: did not fire at its last deadline",
			    u->name);
	KUNIT_EXPECT_EQ(test, c->fired_at[0], dl);
	KUNIT_EXPECT_LE_MSG(test, u->cascaded(c) - c0, (u64)2 * (u->levels(c) - 1),
			    "%s: 1000 modifies to later ticks moved the timer %llu times",
			    u->name, u->cascaded(c) - c0);
	u->destroy(c);
}

/*
 * Timers armed while the clock moves on and nothing runs the wheel in
 * between (a device file's batches, starts between two ticks): an idle
 * wheel's clock moves up to now only past ticks before its first occupied
 * slot, which may begin well before the tick of the timer in it. Each of
 * them still fires exactly at the start of its tick.
 */
static void invariants_arm_as_clock_moves(struct kunit *test)
{
	const unsigned int n = 400;
	struct ki_ctx *c = ki_ctx(test, n);
	const struct ki_user *u = c->user;
	u64 *dl = kt_kvzalloc(test, n * sizeof(u64));
	u64 *ticks = kt_kvzalloc(test, n * sizeof(u64));
	u64 now = 0, tk;
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, dl);
	KUNIT_ASSERT_NOT_NULL(test, ticks);
	for (i = 0; i < n; i++) {
		/* Far enough to sit in a slot of level 1 or 2 at first. */
		dl[i] = now + (64 + get_random_u32() % (64 * 64 * 4)) * KI_TICK;
		u->arm(test, c, i, dl[i]);
		ticks[i] = DIV_ROUND_UP_ULL(dl[i], KI_TICK);
		now += get_random_u32() % (32 * KI_TICK);
		u->set_clock(c, now);
	}
	sort(ticks, n, sizeof(u64), ki_cmp_u64, NULL);
	for (j = 0; j < n; j++) {
		tk = ticks[j];
		if ((j && tk == ticks[j - 1]) || tk * KI_TICK <= now)
			continue;
		ki_set_now(c, tk * KI_TICK - 1);
		ki_set_now(c, tk * KI_TICK);
	}
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, c->fires[i], 1u,
				    "%s: timer %u (deadline %llu) fired %u times",
				    u->name, i, dl[i], c->fires[i]);
		KUNIT_EXPECT_GE_MSG(test, c->fired_at[i], dl[i], "%s: timer %u fired early",
				    u->name, i);
		/* Those due before the arming ended fire at the first run after. */
		if (dl[i] > now)
			KUNIT_EXPECT_EQ_MSG(test, c->fired_at[i],
					    DIV_ROUND_UP_ULL(dl[i], KI_TICK) * KI_TICK,
					    "%s: timer %u (deadline %llu) did not fire at its tick",
					    u->name, i, dl[i]);
	}
	u->destroy(c);
}

/*
 * The case the random one above can miss: a timer of tick 3000 waits in
 * a slot of level 1 that begins at tick 2944. Another is armed at 2950,
 * with nothing run since the first: the wheel's clock may move up to
 * 2950 only if no slot begins before it, and this one does. The first
 * timer still fires at 3000.
 */
static void invariants_forward_stops_at_slot_start(struct kunit *test)
{
	struct ki_ctx *c = ki_ctx(test, 2);
	const struct ki_user *u = c->user;

	u->arm(test, c, 0, 3000 * KI_TICK);
	u->set_clock(c, 2950 * KI_TICK);
	u->arm(test, c, 1, 3100 * KI_TICK);
	ki_set_now(c, 3000 * KI_TICK - 1);
	KUNIT_EXPECT_EQ_MSG(test, c->fires[0], 0u, "%s: fired before its tick", u->name);
	ki_set_now(c, 3000 * KI_TICK);
	KUNIT_EXPECT_EQ_MSG(test, c->fires[0], 1u,
			    "%s: a timer armed at a later clock lost the first one's slot",
			    u->name);
	ki_set_now(c, 3100 * KI_TICK);
	KUNIT_EXPECT_EQ_MSG(test, c->fires[1], 1u, "%s: the second did not fire", u->name);
	u->destroy(c);
}

static struct kunit_case invariants_cases[] = {
	KUNIT_CASE_PARAM(invariants_exact_and_bounded, ki_users_gen_params),
	KUNIT_CASE_PARAM(invariants_far_future_free, ki_users_gen_params),
	KUNIT_CASE_PARAM(invariants_pushed_out_moves_per_slot, ki_users_gen_params),
	KUNIT_CASE_PARAM(invariants_arm_as_clock_moves, ki_users_gen_params),
	KUNIT_CASE_PARAM(invariants_forward_stops_at_slot_start, ki_users_gen_params),
	{}
};

static struct kunit_suite invariants_suite = {
	.name = "hwtimer_invariants",
	.exit = kt_cleanup,
	.test_cases = invariants_cases,
};

kunit_test_suites(&invariants_suite);
