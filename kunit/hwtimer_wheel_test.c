// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for the wheel's logic, driven by a manual clock so every
 * case is exact and fast: hwtimer_config, hwtimer_place, hwtimer_wheel.
 */
#include <linux/err.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "hwtimer_kunit.h"

#define MS	1000000ULL

static struct kt_timer *kt_alloc(struct kunit *test, struct hwtimer_wheel *w, int n)
{
	struct kt_timer *kt = kt_kvzalloc(test, n * sizeof(*kt));
	int i;

	KUNIT_ASSERT_NOT_NULL(test, kt);
	for (i = 0; i < n; i++)
		kt_setup(&kt[i], w);
	return kt;
}

/* ---- hwtimer_config ------------------------------------------------------ */

struct kt_bad_config {
	const char *desc;
	struct hwtimer_wheel_config cfg;
	int err;
};

static const struct kt_bad_config kt_bad_configs[] = {
	{ "no name", { .name = NULL, .tick_ns = MS, .slots = 64 }, -EINVAL },
	{ "empty name", { .name = "", .tick_ns = MS, .slots = 64 }, -EINVAL },
	{ "slash in name", { .name = "a/b", .tick_ns = MS, .slots = 64 }, -EINVAL },
	{ "dot name", { .name = ".", .tick_ns = MS, .slots = 64 }, -EINVAL },
	{ "dot-dot name", { .name = "..", .tick_ns = MS, .slots = 64 }, -EINVAL },
	{ "the device's debugfs name", { .name = "device", .tick_ns = MS, .slots = 64 },
	  -EEXIST },
	{ "the default wheel's name", { .name = "default", .tick_ns = MS, .slots = 64 },
	  -EEXIST },
	{ "a device wheel's name", { .name = "dev-coarse-boottime", .tick_ns = MS,
				     .slots = 64 }, -EEXIST },
	{ "name too long", { .name = "0123456789012345678901234567890123456789",
			     .tick_ns = MS, .slots = 64 }, -ENAMETOOLONG },
	{ "tick below minimum", { .name = "kbad", .tick_ns = HWTIMER_TICK_MIN_NS - 1,
				  .slots = 64 }, -ERANGE },
	{ "tick zero", { .name = "kbad", .tick_ns = 0, .slots = 64 }, -ERANGE },
	{ "tick above maximum", { .name = "kbad", .tick_ns = HWTIMER_TICK_MAX_NS + 1,
				  .slots = 64 }, -ERANGE },
	{ "tick u64 max", { .name = "kbad", .tick_ns = U64_MAX, .slots = 64 }, -ERANGE },
	{ "slots below minimum", { .name = "kbad", .tick_ns = MS,
				   .slots = HWTIMER_SLOTS_MIN - 1 }, -ERANGE },
	{ "slots above maximum", { .name = "kbad", .tick_ns = MS,
				   .slots = HWTIMER_SLOTS_MAX + 1 }, -ERANGE },
	{ "slots u32 max", { .name = "kbad", .tick_ns = MS, .slots = U32_MAX }, -ERANGE },
	{ "unknown flag", { .name = "kbad", .tick_ns = MS, .slots = 64,
			    .flags = 0x80 }, -EINVAL },
};

static void kt_bad_config_desc(const struct kt_bad_config *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_bad_config, kt_bad_configs, kt_bad_config_desc);

static void config_rejects_bad(struct kunit *test)
{
	const struct kt_bad_config *c = test->param_value;
	struct hwtimer_wheel *w = hwtimer_wheel_create(&c->cfg);

	if (!IS_ERR(w))
		hwtimer_wheel_destroy(w, NULL, NULL);
	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(w), (long)c->err,
			    "config '%s' must fail with %d", c->desc, c->err);
}

static void config_null_is_einval(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(hwtimer_wheel_create(NULL)), -EINVAL);
}

static void config_rounds_slots_up(struct kunit *test)
{
	static const u32 in[] = { 16, 17, 100, 512, 513, 65535, 65536 };
	static const u32 out[] = { 16, 32, 128, 512, 1024, 65536, 65536 };
	int i;

	for (i = 0; i < ARRAY_SIZE(in); i++) {
		struct hwtimer_wheel *w = kt_manual_wheel(test, MS, in[i], 0);

		KUNIT_EXPECT_EQ_MSG(test, hwtimer_wheel_slots(w), out[i],
				    "slots=%u must round to %u", in[i], out[i]);
		/* The top level must span the whole u64 tick range. */
		KUNIT_EXPECT_GE_MSG(test, w->geom.lvl0_bits + (w->geom.levels - 1) * HWT_LVL_BITS,
				    64u, "slots=%u: %u levels do not cover 64 bits", in[i],
				    w->geom.levels);
		KUNIT_EXPECT_LE(test, w->geom.levels, (u32)HWT_MAX_LEVELS);
		kt_destroy_all(test);
	}
}

static void config_duplicate_name(struct kunit *test)
{
	struct hwtimer_wheel_config cfg = { .name = kt_name(test), .tick_ns = MS, .slots = 64 };
	struct hwtimer_wheel *a, *b;

	a = hwtimer_wheel_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	b = hwtimer_wheel_create(&cfg);
	KUNIT_EXPECT_EQ_MSG(test, PTR_ERR_OR_ZERO(b), -EEXIST, "second wheel named %s", cfg.name);
	if (!IS_ERR(b))
		hwtimer_wheel_destroy(b, NULL, NULL);
	hwtimer_wheel_destroy(a, NULL, NULL);
	/* The name is free again once destroyed. */
	a = hwtimer_wheel_create(&cfg);
	KUNIT_EXPECT_FALSE(test, IS_ERR(a));
	if (!IS_ERR(a))
		hwtimer_wheel_destroy(a, NULL, NULL);
}

static void config_tick_bounds_accepted(struct kunit *test)
{
	struct hwtimer_wheel *w;

	w = kt_manual_wheel(test, HWTIMER_TICK_MIN_NS, HWTIMER_SLOTS_MIN, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MIN_NS);
	w = kt_manual_wheel(test, HWTIMER_TICK_MAX_NS, HWTIMER_SLOTS_MAX, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MAX_NS);
}

static void config_default_wheel(struct kunit *test)
{
	struct hwtimer_wheel *w = hwtimer_default_wheel();

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_EXPECT_STREQ(test, w->name, "default");
	KUNIT_EXPECT_GE(test, hwtimer_wheel_tick_ns(w), HWTIMER_TICK_MIN_NS);
	KUNIT_EXPECT_TRUE(test, is_power_of_2(hwtimer_wheel_slots(w)));
}

/* The clock flag: reported, and the manual test clock still drives it. */
static void config_boottime_clock(struct kunit *test)
{
	struct hwtimer_wheel_config cfg = { .tick_ns = MS, .slots = 64,
					    .flags = HWTIMER_WHEEL_BOOTTIME, .slack_ns = 7 };
	struct hwtimer_wheel *w = kt_manual_wheel_cfg(test, &cfg);
	char *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	struct seq_file m = { .size = 1024, .buf = buf, .private = w };
	struct kt_timer *kt;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clockid(w), (clockid_t)CLOCK_BOOTTIME);
	/* Debugfs shows the clock and the default slack. */
	KUNIT_ASSERT_EQ(test, hwt_stats_show(&m, NULL), 0);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(buf, "\nclock boottime\nslack_ns 7\n"),
				  "stats: %s", buf);
	kt = kt_alloc(test, w, 1);
	hwt_manual_advance(w, 7 * MS);
	KUNIT_EXPECT_EQ(test, hwt_wheel_now(w), 7 * MS);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt->t, 3 * MS, HWTIMER_MODE_REL), 0);
	hwt_manual_advance(w, 10 * MS - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
	hwt_manual_advance(w, 10 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 1);
	w = kt_manual_wheel(test, MS, 64, 0);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_clockid(w), (clockid_t)CLOCK_MONOTONIC);
}

static struct kunit_case config_cases[] = {
	KUNIT_CASE_PARAM(config_rejects_bad, kt_bad_config_gen_params),
	KUNIT_CASE(config_null_is_einval),
	KUNIT_CASE(config_rounds_slots_up),
	KUNIT_CASE(config_duplicate_name),
	KUNIT_CASE(config_tick_bounds_accepted),
	KUNIT_CASE(config_default_wheel),
	KUNIT_CASE(config_boottime_clock),
	{}
};

static struct kunit_suite config_suite = {
	.name = "hwtimer_config",
	.exit = kt_cleanup,
	.test_cases = config_cases,
};

/* ---- hwtimer_place --------------------------------------------------------- */

static void place_expiry_tick_rounds_up(struct kunit *test)
{
	struct hwt_time tm;

	hwt_time_init(&tm, 0, MS);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, 0), 0ULL);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, 1), 1ULL);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, MS - 1), 1ULL);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, MS), 1ULL);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, MS + 1), 2ULL);
	KUNIT_EXPECT_EQ(test, hwt_expiry_tick(&tm, U64_MAX), div64_u64(U64_MAX, MS) + 1);
	KUNIT_EXPECT_EQ(test, hwt_tick_start(&tm, tm.max_tick), (u64)KTIME_MAX);
	KUNIT_EXPECT_EQ(test, hwt_tick_start(&tm, 3), 3 * MS);
}

/* The level-0 slot counts place_*() tries, as a wheel has them. */
static const u32 kt_geom_slots[] = { 16, 64, 512, 65536 };

/*
 * A timer of tick @t on a wheel at @clk: less than a revolution of level 0
 * away, it is in level 0's slot of its low bits; further, its level holds
 * the highest bit in which @t and @clk differ, in the slot of its digit
 * there, which is above @clk's. Its slot begins after @clk, at or before
 * @t: at @t itself on level 0 (I1, I2).
 */
static void kt_check_place(struct kunit *test, const struct hwt_geom *g, u64 t, u64 clk)
{
	unsigned int lvl, bit = fls64(t ^ clk) - 1, idx;
	u64 start;

	idx = hwt_slot(g, t, clk, &start);
	KUNIT_EXPECT_LT(test, idx, g->nslots);
	lvl = hwt_slot_level(g, idx);
	KUNIT_EXPECT_GT_MSG(test, start, clk, "t %llu clk %llu: slot begins too early", t, clk);
	KUNIT_EXPECT_LE_MSG(test, start, t, "t %llu clk %llu: slot begins after t", t, clk);
	if (t - clk < BIT_ULL(g->lvl0_bits)) {
		KUNIT_EXPECT_EQ_MSG(test, lvl, 0u, "t %llu clk %llu: near, not on level 0", t, clk);
		KUNIT_EXPECT_EQ(test, idx, (unsigned int)(t & (BIT_ULL(g->lvl0_bits) - 1)));
		KUNIT_EXPECT_EQ(test, start, t);
		return;
	}
	KUNIT_EXPECT_NE_MSG(test, lvl, 0u, "t %llu clk %llu: far, on level 0", t, clk);
	KUNIT_EXPECT_GE_MSG(test, bit, hwt_lvl_shift(g, lvl), "t %llu clk %llu", t, clk);
	KUNIT_EXPECT_LT_MSG(test, bit, hwt_lvl_shift(g, lvl) + hwt_lvl_width(g, lvl),
			    "t %llu clk %llu", t, clk);
	KUNIT_EXPECT_GT(test, hwt_digit(g, t, lvl), hwt_digit(g, clk, lvl));
}

static void place_level_and_slot(struct kunit *test)
{
	struct hwt_geom g;
	unsigned int i, k;
	u64 clk, t;

	for (i = 0; i < ARRAY_SIZE(kt_geom_slots); i++) {
		hwt_geom_init(&g, kt_geom_slots[i]);
		KUNIT_EXPECT_EQ(test, hwt_lvl_shift(&g, g.levels - 1) + HWT_LVL_BITS >= 64, true);
		KUNIT_EXPECT_EQ(test, hwt_lvl_off(&g, 1) % 64, 0u);
		kt_check_place(test, &g, 1, 0);
		kt_check_place(test, &g, U64_MAX, 0);
		kt_check_place(test, &g, U64_MAX, U64_MAX - 1);
		for (k = 0; k < 2000; k++) {
			clk = get_random_u64() >> (get_random_u32() % 64);
			if (k & 1)
				t = clk + 1 + get_random_u32() % (2 * kt_geom_slots[i]);
			else
				t = clk + 1 + (get_random_u64() >> (get_random_u32() % 64));
			if (t <= clk)
				t = U64_MAX;
			kt_check_place(test, &g, t, clk);
		}
	}
}

/*
 * hwt_next_event() is the earliest start of an occupied slot, and
 * hwt_event_slot() finds exactly the occupied slots that begin at it.
 */
static void place_next_event_and_event_slots(struct kunit *test)
{
	enum { N = 32 };
	unsigned int i, k, j, r, lvl, found, want, slot[N];
	u64 clk, t, start[N], best, ev;
	unsigned long *occ;
	struct hwt_geom g;
	int idx;

	for (i = 0; i < ARRAY_SIZE(kt_geom_slots); i++) {
		hwt_geom_init(&g, kt_geom_slots[i]);
		occ = kunit_kcalloc(test, BITS_TO_LONGS(g.nslots), sizeof(long), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, occ);
		KUNIT_EXPECT_EQ(test, hwt_next_event(&g, occ, 12345), U64_MAX);
		for (r = 0; r < 200; r++) {
			bitmap_zero(occ, g.nslots);
			clk = get_random_u64() >> (get_random_u32() % 64);
			best = U64_MAX;
			for (k = 0; k < N; k++) {
				/* Odd rounds: around a revolution of level 0, across its end. */
				if (r & 1)
					t = clk + 1 + get_random_u32() % (2 * kt_geom_slots[i]);
				else
					t = clk + 1 + (get_random_u64() >> (get_random_u32() % 64));
				if (t <= clk)
					t = U64_MAX;
				slot[k] = hwt_slot(&g, t, clk, &start[k]);
				__set_bit(slot[k], occ);
				best = min(best, start[k]);
			}
			ev = hwt_next_event(&g, occ, clk);
			KUNIT_EXPECT_EQ_MSG(test, ev, best,
					    "slots %u clk %llu", kt_geom_slots[i], clk);
			/* The distinct slots that begin at @ev. */
			for (want = 0, k = 0; k < N; k++) {
				for (j = 0; j < k && slot[j] != slot[k]; j++)
					;
				want += j == k && start[k] == ev;
			}
			for (found = 0, lvl = 0;
			     (idx = hwt_event_slot(&g, occ, ev, &lvl)) >= 0; lvl++) {
				for (k = 0; k < N && slot[k] != idx; k++)
					;
				KUNIT_EXPECT_LT_MSG(test, k, N, "slot %d is not occupied", idx);
				if (k < N)
					KUNIT_EXPECT_EQ_MSG(test, start[k], ev,
							    "slot %d does not begin at %llu",
							    idx, ev);
				found++;
			}
			KUNIT_EXPECT_EQ_MSG(test, found, want, "slots %u clk %llu event %llu",
					    kt_geom_slots[i], clk, ev);
		}
	}
}

static struct kunit_case place_cases[] = {
	KUNIT_CASE(place_expiry_tick_rounds_up),
	KUNIT_CASE(place_level_and_slot),
	KUNIT_CASE(place_next_event_and_event_slots),
	{}
};

static struct kunit_suite place_suite = {
	.name = "hwtimer_place",
	.exit = kt_cleanup,
	.test_cases = place_cases,
};

/* ---- hwtimer_wheel: manual clock --------------------------------------------- */

/*
 * Start a timer @delay after @start, then check it is not fired just before
 * the first tick boundary at or after its deadline, and fired at it.
 */
static void kt_check_exact(struct kunit *test, struct hwtimer_wheel *w, u64 start, u64 delay)
{
	struct kt_timer *kt = kt_alloc(test, w, 1);
	u64 tick = hwtimer_wheel_tick_ns(w);
	u64 deadline, boundary;

	hwt_manual_advance(w, start);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, delay, HWTIMER_MODE_REL), 0);
	deadline = min_t(u64, start + delay, KTIME_MAX);
	boundary = hwt_expiry_tick(&w->time, deadline) * tick;
	KUNIT_ASSERT_GE(test, boundary, deadline);
	hwt_manual_advance(w, boundary - 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 0,
			    "delay %llu fired early, at %llu before its tick %llu",
			    delay, kt->fired_at, boundary);
	hwt_manual_advance(w, boundary);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 1,
			    "delay %llu did not fire at its tick boundary %llu", delay, boundary);
	KUNIT_EXPECT_GE(test, kt->fired_at, deadline);
	KUNIT_EXPECT_LT(test, kt->fired_at - deadline, tick);
}

static const u64 kt_delays[] = {
	0, 1, MS - 1, MS, MS + 1, 63 * MS, 64 * MS, 65 * MS,
	64 * 64 * MS - 1, 64 * 64 * MS, 64 * 64 * MS + 1, 100 * 64 * MS + 7,
	64ULL * 64 * 64 * MS + 3, 1000000ULL * MS, 123456789ULL * MS + 5,
};

static void kt_delay_desc(const u64 *d, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "delay %llu ns", *d);
}

KUNIT_ARRAY_PARAM(kt_delay, kt_delays, kt_delay_desc);

static void wheel_never_early_exact_tick(struct kunit *test)
{
	const u64 *delay = test->param_value;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);

	/* Starting off a tick boundary, and after the clock has run a while. */
	kt_check_exact(test, w, 12345, *delay);
	kt_check_exact(test, w, 7777 * MS + 999, *delay);
}

static void wheel_huge_delay_clamped(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 2);

	hwt_manual_advance(w, 5 * MS);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, U64_MAX, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, U64_MAX, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ_MSG(test, kt[0].t.deadline, (u64)KTIME_MAX,
			    "U64_MAX delay must clamp to KTIME_MAX, not wrap");
	KUNIT_EXPECT_EQ(test, kt[1].t.deadline, (u64)KTIME_MAX);
	hwt_manual_advance(w, 1ULL << 62);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[1].fires), 0);
	KUNIT_EXPECT_TRUE(test, hwtimer_pending(&kt[0].t));
	/* KTIME_MAX is "never": the clock cannot reach its tick boundary. */
	hwt_manual_advance(w, KTIME_MAX);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[0].t), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[1].t), 1);
}

/*
 * The lateness counters of hwtimer_wheel_stats() at their boundaries and
 * with slack (wheel_lateness_stats has the plain case), as struct
 * hwtimer_stats defines them: late is more than a tick after the
 * deadline, or, for a timer that slack put on a later tick, more than a
 * tick after that tick began; max_late_ns is measured from the deadline,
 * slack included; early stays 0. Each timer fires in a pass whose clock is
 * the advance's time.
 */
static void wheel_lateness_stats_slack(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 4);
	struct hwtimer_stats s;

	hwt_manual_advance(w, 10 * MS);
	/* 0.7 ms after its deadline: not late. */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, 12 * MS + 300000, HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 13 * MS);
	hwtimer_wheel_stats(w, &s);
	KUNIT_ASSERT_EQ(test, s.fired, 1ULL);
	KUNIT_EXPECT_EQ_MSG(test, s.late, 0ULL, "0.7 tick after the deadline counted late");
	KUNIT_EXPECT_EQ(test, s.max_late_ns, 700000ULL);
	/* Two ticks and 1 ns after it: late. */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, 14 * MS, HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 16 * MS + 1);
	hwtimer_wheel_stats(w, &s);
	KUNIT_ASSERT_EQ(test, s.fired, 2ULL);
	KUNIT_EXPECT_EQ_MSG(test, s.late, 1ULL, "2 ticks after the deadline not counted late");
	KUNIT_EXPECT_EQ(test, s.max_late_ns, 2 * MS + 1);
	/*
	 * Slack to 28 ms puts a deadline of 20 ms + 1 on tick 24 (the most
	 * trailing zeros in 21..28): 1.5 ms after that tick is late, and its
	 * lateness from the deadline is the largest yet.
	 */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[2].t, 20 * MS + 1, 8 * MS,
						  HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 24 * MS - 1);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&kt[2].fires), 0, "slack did not choose tick 24");
	hwt_manual_advance(w, 25 * MS + 500000);
	hwtimer_wheel_stats(w, &s);
	KUNIT_ASSERT_EQ(test, s.fired, 3ULL);
	KUNIT_EXPECT_EQ_MSG(test, s.late, 2ULL, "1.5 ticks after its slack tick not counted late");
	KUNIT_EXPECT_EQ(test, s.max_late_ns, 5 * MS + 499999);
	/* Tick 32 for 30 ms + 1: 0.5 ms after the tick is not late, 2.5 after D. */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[3].t, 30 * MS + 1, 8 * MS,
						  HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 32 * MS - 1);
	KUNIT_ASSERT_EQ_MSG(test, atomic_read(&kt[3].fires), 0, "slack did not choose tick 32");
	hwt_manual_advance(w, 32 * MS + 500000);
	hwtimer_wheel_stats(w, &s);
	KUNIT_ASSERT_EQ(test, s.fired, 4ULL);
	KUNIT_EXPECT_EQ_MSG(test, s.late, 2ULL,
			    "a slacked timer's lateness counted from its deadline, not its tick");
	KUNIT_EXPECT_EQ(test, s.max_late_ns, 5 * MS + 499999);
	KUNIT_EXPECT_EQ(test, s.early, 0ULL);
}

static void wheel_abs_in_past_fires_next_tick(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	hwt_manual_advance(w, 50 * MS + 10);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 3 * MS, HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 51 * MS - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
	hwt_manual_advance(w, 51 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 1,
			    "a past deadline must fire at the next tick");
}

static void wheel_start_pending_is_ealready(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 10 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt->t, 2 * MS, HWTIMER_MODE_REL), -EALREADY);
	/* The original deadline still holds. */
	hwt_manual_advance(w, 5 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
	hwt_manual_advance(w, 10 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 1);
}

static void wheel_modify(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	KUNIT_EXPECT_EQ_MSG(test, hwtimer_modify(&kt->t, 10 * MS, HWTIMER_MODE_REL), 0,
			    "modify of an idle timer arms it and returns 0");
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt->t, 3000 * MS, HWTIMER_MODE_REL), 1);
	hwt_manual_advance(w, 2999 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 0, "fired at the old deadline");
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt->t, 3500 * MS, HWTIMER_MODE_ABS), 1);
	hwt_manual_advance(w, 3499 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 0);
	hwt_manual_advance(w, 3500 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt->t, MS, HWTIMER_MODE_REL), 0);
}

/*
 * A modify whose new tick falls in the slot the timer is in leaves it
 * there (as __mod_timer() does): it still fires exactly on its new tick,
 * earlier or later in that slot, and the stats count a re-arm.
 */
static void wheel_modify_same_slot(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 2);
	struct hwtimer_stats s;
	u32 slot;

	/* Tick 200: level 1, whose slots span 64 ticks (192..255). */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, 200 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, 200 * MS, HWTIMER_MODE_REL), 0);
	slot = kt[0].t.slot;
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[0].t, 250 * MS, HWTIMER_MODE_REL), 1);
	KUNIT_EXPECT_EQ_MSG(test, kt[0].t.slot, slot, "a modify within the slot moved it");
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[1].t, 193 * MS, HWTIMER_MODE_REL), 1);
	KUNIT_EXPECT_EQ(test, kt[1].t.slot, slot);
	KUNIT_EXPECT_EQ(test, hwtimer_expires(&kt[1].t), 193 * MS);
	hwt_manual_advance(w, 193 * MS - 1);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[1].fires), 0, "fired before its new tick");
	hwt_manual_advance(w, 193 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[1].fires), 1, "missed its new, earlier tick");
	hwt_manual_advance(w, 249 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[0].fires), 0, "fired at its old tick");
	hwt_manual_advance(w, 250 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 1);
	/*
	 * A later tick, from a slot above level 0: the timer stays there
	 * (hwt_can_stay()) and its cascade places it by the new tick.
	 */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, 100 * MS, HWTIMER_MODE_REL), 0);
	slot = kt[0].t.slot;
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[0].t, 1000 * MS, HWTIMER_MODE_REL), 1);
	KUNIT_EXPECT_EQ_MSG(test, kt[0].t.slot, slot,
			    "a modify to a later tick moved the timer out of its level-1 slot");
	/* An earlier tick, in another slot: it moves. */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, 1000 * MS, HWTIMER_MODE_REL), 0);
	slot = kt[1].t.slot;
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[1].t, 100 * MS, HWTIMER_MODE_REL), 1);
	KUNIT_EXPECT_NE(test, kt[1].t.slot, slot);
	hwt_manual_advance(w, 349 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[1].fires), 1);
	hwt_manual_advance(w, 350 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[1].fires), 2, "missed its new, earlier tick");
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[0].fires), 1, "fired at its old, earlier tick");
	hwt_manual_advance(w, 1249 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 1);
	hwt_manual_advance(w, 1250 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 2);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.started, 8ULL);
	KUNIT_EXPECT_EQ(test, s.fired, 4ULL);
	KUNIT_EXPECT_EQ(test, s.pending, 0ULL);
}

/*
 * A timer whose tick was processed but whose callback has not run yet
 * (a pass stopped after a batch) sits on its base's due list, not in a
 * slot: a modify to a tick that maps to the same slot index must move
 * it, not leave it to fire now.
 */
static void wheel_modify_due_timer_moves(struct kunit *test)
{
	const int n = HWT_EXPIRE_BATCH + 8;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	unsigned int cpu;
	int i, late = -1;

	preempt_disable();
	cpu = smp_processor_id();
	for (i = 0; i < n; i++)
		hwtimer_start(&kt[i].t, 3 * MS, HWTIMER_MODE_REL);
	preempt_enable();
	WRITE_ONCE(w->manual_now, 3 * MS);
	KUNIT_ASSERT_TRUE_MSG(test, hwt_manual_run_once(w, cpu), "the burst finished in one pass");
	for (i = 0; i < n && late < 0; i++)
		if (!atomic_read(&kt[i].fires))
			late = i;
	KUNIT_ASSERT_GE(test, late, 0);
	/* Tick 3 + 64: level 0 again, the same slot index as tick 3. */
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[late].t, 64 * MS, HWTIMER_MODE_REL), 1);
	while (hwt_manual_run_once(w, cpu))
		;
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[late].fires), 0,
			    "a due timer modified to tick 67 fired at tick 3");
	hwt_manual_advance(w, 67 * MS - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[late].fires), 0);
	hwt_manual_advance(w, 67 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[late].fires), 1);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[i].fires), 1, "timer %d fired %d times",
				    i, atomic_read(&kt[i].fires));
}

static void wheel_cancel(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 2);
	struct hwtimer_stats s;

	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[0].t), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, 5 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, 5 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[0].t), 1);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&kt[0].t));
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[0].t), 0);
	hwt_manual_advance(w, 100 * MS);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[0].fires), 0, "a cancelled timer fired");
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[1].fires), 1);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_cancel(&kt[1].t), 0, "cancel after fire must say 0");
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.started, 2ULL);
	KUNIT_EXPECT_EQ(test, s.fired, 1ULL);
	KUNIT_EXPECT_EQ(test, s.cancelled, 1ULL);
	KUNIT_EXPECT_EQ(test, s.pending, 0ULL);
}

static void wheel_cancel_sync_idle_and_pending(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&kt->t), 0);
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 5000 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&kt->t), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_IDLE);
}

/*
 * A timer on the stack, with the on-stack helpers: under debugobjects
 * (CONFIG_DEBUG_OBJECTS_TIMERS) nothing is reported, neither the set up
 * on the stack nor the end of its tracking, once it fired and once it was
 * cancelled. Only EXPECTs: the timer must not be left pending when the
 * frame goes.
 */
static void wheel_on_stack_timer(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer kt = {};

	hwtimer_setup_on_stack(&kt.t, w, kt_fn);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt.t, 2 * MS, HWTIMER_MODE_REL), 0);
	hwt_manual_advance(w, 2 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt.fires), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt.t, 2 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel_sync(&kt.t), 1);
	destroy_hwtimer_on_stack(&kt.t);
}

static void wheel_shutdown_refuses_rearm(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	struct hwtimer_stats s;

	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 5 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_shutdown_sync(&kt->t), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_SHUTDOWN);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt->t, MS, HWTIMER_MODE_REL), -EIDRM);
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt->t, MS, HWTIMER_MODE_REL), -EIDRM);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.rejected, 2ULL);
	/* Setting it up again makes it usable. */
	hwtimer_setup(&kt->t, w, kt_fn);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt->t, MS, HWTIMER_MODE_REL), 0);
	hwt_manual_advance(w, 10 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt->fires), 1);
}

static void wheel_state_queries(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_IDLE);
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&kt->t));
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, 5 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_PENDING);
	KUNIT_EXPECT_TRUE(test, hwtimer_pending(&kt->t));
	hwt_manual_advance(w, 5 * MS);
	KUNIT_EXPECT_EQ(test, hwtimer_state(&kt->t), HWTIMER_IDLE);
}

/* A callback that records what hwtimer_state() says about its own timer. */
static enum hwtimer_state kt_seen_state;

static void kt_state_fn(struct hwtimer *t)
{
	kt_seen_state = hwtimer_state(t);
}

static void wheel_state_running_in_callback(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);

	hwtimer_setup(&kt->t, w, kt_state_fn);
	kt_seen_state = HWTIMER_IDLE;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, MS, HWTIMER_MODE_REL), 0);
	hwt_manual_advance(w, MS);
	KUNIT_EXPECT_EQ(test, kt_seen_state, HWTIMER_RUNNING);
}

static void wheel_rearm_beyond_span(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 16, 0);
	struct kt_timer *kt = kt_alloc(test, w, 1);
	/* Three wheel revolutions and a bit: cascades every time. */
	u64 delay = 3 * 16 * MS + 5 * MS, t = 0;
	int i;

	kt->rearms = 9;
	kt->rearm_delay = delay;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt->t, delay, HWTIMER_MODE_REL), 0);
	for (i = 1; i <= 10; i++) {
		t += delay;
		hwt_manual_advance(w, t - 1);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), i - 1, "run %d early", i);
		hwt_manual_advance(w, t);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), i, "run %d missing", i);
	}
	hwt_manual_advance(w, t + 100 * delay);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt->fires), 10, "must run exactly 10 times");
	KUNIT_EXPECT_FALSE(test, hwtimer_pending(&kt->t));
}

static void kt_count_unprocessed(struct hwtimer *t, void *arg)
{
	unsigned long *n = arg;

	/* Handed back detached: a start on the stopped wheel must fail. */
	if (!hwtimer_pending(t) && hwtimer_start(t, MS, HWTIMER_MODE_REL) == -ESHUTDOWN)
		(*n)++;
}

static void wheel_destroy_after_fired_returns_zero(struct kunit *test)
{
	struct hwtimer_wheel_config cfg = { .name = kt_name(test), .tick_ns = MS, .slots = 64 };
	struct hwtimer_wheel *w = hwt_wheel_create_manual(&cfg);
	struct kt_timer *kt;
	unsigned long n = 0;
	int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	kt = kt_alloc(test, w, 10);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, hwtimer_start(&kt[i].t, (i + 1) * MS, HWTIMER_MODE_REL), 0);
	hwt_manual_advance(w, 20 * MS);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_destroy(w, kt_count_unprocessed, &n), 0UL);
	KUNIT_EXPECT_EQ(test, n, 0UL);
}

static void wheel_destroy_hands_back_pending(struct kunit *test)
{
	struct hwtimer_wheel_config cfg = { .name = kt_name(test), .tick_ns = MS, .slots = 64 };
	struct hwtimer_wheel *w = hwt_wheel_create_manual(&cfg);
	struct kt_timer *kt;
	unsigned long n = 0;
	int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(w));
	kt = kt_alloc(test, w, 100);
	/* Spread over level 0, the due list and coarse levels. */
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, hwtimer_start(&kt[i].t, (u64)i * i * i * MS,
						    HWTIMER_MODE_REL), 0);
	/* Delays 0 and 1 ms fire at the first tick boundary; 98 stay pending. */
	hwt_manual_advance(w, MS);
	KUNIT_EXPECT_EQ(test, hwtimer_wheel_destroy(w, kt_count_unprocessed, &n), 98UL);
	KUNIT_EXPECT_EQ_MSG(test, n, 98UL,
			    "every handed-back timer must be detached and refuse a restart");
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[1].fires), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[2].fires), 0);
}

static void wheel_max_pending(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 3);
	struct kt_timer *kt = kt_alloc(test, w, 4);
	struct hwtimer_stats s;
	int i;

	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, hwtimer_start(&kt[i].t, 10 * MS, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_start(&kt[3].t, 10 * MS, HWTIMER_MODE_REL), -EBUSY,
			    "cap of 3 exceeded");
	KUNIT_EXPECT_FALSE_MSG(test, hwtimer_pending(&kt[3].t), "a rejected start changed state");
	/* Re-arming a pending timer at the cap is not a new timer. */
	KUNIT_EXPECT_EQ(test, hwtimer_modify(&kt[0].t, 20 * MS, HWTIMER_MODE_REL), 1);
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[1].t), 1);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_start(&kt[3].t, 10 * MS, HWTIMER_MODE_REL), 0,
			    "accepted after a cancel");
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt[1].t, 10 * MS, HWTIMER_MODE_REL), -EBUSY);
	hwt_manual_advance(w, 10 * MS);
	KUNIT_EXPECT_EQ(test, hwtimer_start(&kt[1].t, 10 * MS, HWTIMER_MODE_REL), 0);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.rejected, 2ULL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&w->npending), 2L);
}

/* A cap past S64_MAX is a cap no count reaches, not one every count passes. */
static void wheel_max_pending_huge(struct kunit *test)
{
	static const u64 caps[] = { U64_MAX, (u64)S64_MAX + 1, S64_MAX };
	struct hwtimer_wheel *w;
	struct kt_timer *kt;
	int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		w = kt_manual_wheel(test, MS, 64, caps[i]);
		kt = kt_alloc(test, w, 2);
		KUNIT_EXPECT_EQ_MSG(test, hwtimer_start(&kt[0].t, 10 * MS, HWTIMER_MODE_REL), 0,
				    "a cap of %llu refused the first timer", caps[i]);
		KUNIT_EXPECT_EQ_MSG(test, hwtimer_modify(&kt[1].t, 10 * MS, HWTIMER_MODE_REL), 0,
				    "a cap of %llu refused a modify that arms", caps[i]);
		hwt_manual_advance(w, 10 * MS);
		KUNIT_EXPECT_EQ(test, atomic_read(&kt[0].fires), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kt[1].fires), 1);
		KUNIT_EXPECT_EQ(test, atomic_long_read(&w->npending), 0L);
	}
}

/* 100k timers due 100 revolutions away: ticks that expire nothing visit nothing. */
static void wheel_far_future_costs_nothing_per_tick(struct kunit *test)
{
	const int n = 100000;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 512, 0);
	u64 rev = 512 * MS, step, t;
	struct kt_timer *kt = kt_alloc(test, w, n);
	struct hwtimer_stats s0, s1;
	int i, fired = 0;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, 100 * rev + (u64)(i % 512) * MS,
						    HWTIMER_MODE_REL), 0);
	hwtimer_wheel_stats(w, &s0);
	/* Walk 50 revolutions tick by tick: nothing is due. */
	for (t = MS; t <= 50 * rev; t += MS)
		hwt_manual_advance(w, t);
	hwtimer_wheel_stats(w, &s1);
	KUNIT_EXPECT_EQ_MSG(test, s1.visited - s0.visited, 0ULL,
			    "ticks with nothing due visited %llu entries",
			    s1.visited - s0.visited);
	KUNIT_EXPECT_EQ(test, s1.fired, 0ULL);
	/* And then all fire, each at most a few cascades in its life. */
	for (step = 0; step < 600; step++)
		hwt_manual_advance(w, 100 * rev + step * MS);
	hwtimer_wheel_stats(w, &s1);
	for (i = 0; i < n; i++)
		fired += atomic_read(&kt[i].fires);
	KUNIT_EXPECT_EQ(test, fired, n);
	KUNIT_EXPECT_LE_MSG(test, s1.cascaded, (u64)(w->geom.levels - 1) * n,
			    "each timer may cascade at most once per level");
	kunit_info(test, "far future: %d timers, %llu ticks with work, %llu visits, %llu cascades\n",
		   n, s1.ticks, s1.visited, s1.cascaded);
}

/*
 * Many timers in one coarse slot: the cascade that moves them down holds
 * the base lock (interrupts off) for at most HWT_LOCKED_MAX entries at a
 * time, however many there are. A user can fill one slot with hundreds of
 * thousands of /dev/hwtimer timeouts. Not more than 200000 here: setting
 * up, starting and running 500000 took 22 s of a debug kernel under TCG on
 * a quiet host, and a host ten times slower would pass the 120 s after
 * which the hung-task detector reports insmod (waiting for the case) in
 * the kernel log, which fails the run.
 */
static const int kt_cascade_sizes[] = { 10000, 100000, 200000 };

static void kt_cascade_size_desc(const int *n, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%d timers in one slot", *n);
}

KUNIT_ARRAY_PARAM(kt_cascade_size, kt_cascade_sizes, kt_cascade_size_desc);

static void wheel_cascade_bounded(struct kunit *test)
{
	const int n = *(const int *)test->param_value;
	/* Level 0 spans 64 ticks, level 1 64 slots of 64 ticks. */
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	struct hwtimer_stats s;
	int i, fired = 0, early = 0;
	u64 t0, dt;

	/* Tick 3000: level-1 slot 46, which cascades at tick 2944. */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, 3000 * MS, HWTIMER_MODE_REL), 0);
	t0 = ktime_get_ns();
	hwt_manual_advance(w, 2944 * MS);
	dt = ktime_get_ns() - t0;
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ_MSG(test, s.cascaded, (u64)n,
			    "the slot's %d timers were not all moved down", n);
	KUNIT_EXPECT_LE_MSG(test, s.max_hold, (u64)HWT_LOCKED_MAX,
			    "one hold of the base lock moved %llu of %d timers (bound %d)",
			    s.max_hold, n, HWT_LOCKED_MAX);
	KUNIT_EXPECT_EQ(test, s.fired, 0ULL);
	hwt_manual_advance(w, 3000 * MS);
	for (i = 0; i < n; i++) {
		fired += atomic_read(&kt[i].fires);
		early += atomic_read(&kt[i].early);
	}
	KUNIT_EXPECT_EQ(test, fired, n);
	KUNIT_EXPECT_EQ(test, early, 0);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ_MSG(test, s.cascaded, (u64)n, "timers cascaded more than once");
	/*
	 * The whole cascade was one hold of the lock before holds were
	 * bounded: its time is what interrupts were off for then.
	 */
	kunit_info(test, "%d timers in one slot: cascade %llu us in all, longest lock hold %llu entries (about %llu us)\n",
		   n, dt / 1000, s.max_hold, div64_u64(dt * s.max_hold, (u64)n * 1000));
}

/*
 * A pass of the expiry path stops after HWTIMER_PASS_NS once it ran a
 * callback, however many more are due, looking at the clock before every
 * HWT_EXPIRE_CHECK-th callback: slow callbacks (the device's wakeup of
 * every epoll entry a user put on a file) must not make a softirq run as
 * long as the user likes. Each callback here takes twice HWTIMER_PASS_NS, so
 * the first callback of a pass spends its budget and the pass runs
 * exactly HWT_EXPIRE_CHECK of them, on any machine: it looks at the clock
 * first before the one after those, and finds the budget spent.
 */
#define KT_SLOW_N	(2 * HWT_EXPIRE_CHECK)

struct kt_slow {
	struct hwtimer	t;
	int		*fired;
};

/*
 * Spin on local_clock(), the clock a pass measures itself with: udelay()
 * counts TSC cycles or loops, and under an emulator whose TSC was marked
 * unstable the two disagree, so a "2 ms" udelay() could look shorter than
 * HWTIMER_PASS_NS to the pass.
 */
static void kt_slow_fn(struct hwtimer *t)
{
	struct kt_slow *ks = container_of(t, struct kt_slow, t);
	u64 t0 = local_clock();

	while (local_clock() - t0 <= 2 * HWTIMER_PASS_NS)
		cpu_relax();
	(*ks->fired)++;
}

static void wheel_pass_time_bounded(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_slow *ks = kunit_kcalloc(test, KT_SLOW_N, sizeof(*ks), GFP_KERNEL);
	int i, fired = 0, first = -1, passes = 0;
	unsigned int cpu;
	bool more;

	KUNIT_ASSERT_NOT_NULL(test, ks);
	/*
	 * All on one CPU's base, whose passes run here, on the clock of this
	 * CPU (no assertion fails in between). The passes of that base
	 * alone are counted: hwtimer_wheel_stats() counts a pass of every
	 * base, those with nothing due too.
	 */
	migrate_disable();
	cpu = smp_processor_id();
	for (i = 0; i < KT_SLOW_N; i++) {
		ks[i].fired = &fired;
		hwtimer_setup(&ks[i].t, w, kt_slow_fn);
		if (hwtimer_start(&ks[i].t, 10 * MS, HWTIMER_MODE_REL))
			break;
	}
	if (i == KT_SLOW_N) {
		WRITE_ONCE(w->manual_now, 10 * MS);
		do {
			more = hwt_manual_run_once(w, cpu);
			if (!passes++)
				first = fired;
		} while (more && passes <= KT_SLOW_N);
	}
	migrate_enable();
	KUNIT_ASSERT_EQ_MSG(test, i, KT_SLOW_N, "hwtimer_start() of timer %d failed", i);
	KUNIT_EXPECT_EQ(test, fired, KT_SLOW_N);
	KUNIT_EXPECT_EQ_MSG(test, first, HWT_EXPIRE_CHECK,
			    "the first pass ran %d callbacks of %llu us each, not %d: it went on past %llu us, or stopped before its clock check",
			    first, div_u64(2 * HWTIMER_PASS_NS, NSEC_PER_USEC), HWT_EXPIRE_CHECK,
			    div_u64(HWTIMER_PASS_NS, NSEC_PER_USEC));
	KUNIT_EXPECT_EQ_MSG(test, passes, KT_SLOW_N / HWT_EXPIRE_CHECK,
			    "%d callbacks of %llu us each ran in %d passes, not %d",
			    KT_SLOW_N, div_u64(2 * HWTIMER_PASS_NS, NSEC_PER_USEC), passes,
			    KT_SLOW_N / HWT_EXPIRE_CHECK);
}

/*
 * A callback that batches work of its own (the char device's file timers)
 * stops at hwtimer_pass_end(), the end of the pass that runs it, after one
 * chunk at least. Then the pass as a whole stays bounded: it looks at the
 * clock before every HWT_EXPIRE_CHECK-th callback only, so at most
 * HWT_EXPIRE_CHECK callbacks begin past its end, each doing one chunk.
 * Usually the budget runs out in a callback and HWT_EXPIRE_CHECK - 1 more
 * begin; all HWT_EXPIRE_CHECK do when it runs out before the first of them
 * (the pass held off the CPU for HWTIMER_PASS_NS, as a host can hold a TCG
 * vCPU, before its first callback, or between a clock check that found
 * budget left and the next callback). Without the shared end, each would
 * spend a budget of its own.
 *
 * Each callback here runs until the end of its pass, so the first of a
 * pass spends the budget: every pass runs exactly HWT_EXPIRE_CHECK
 * callbacks, all but the first, at least, begun past its end.
 */
#define KT_BATCH_CHUNK_NS	(50 * NSEC_PER_USEC)

struct kt_batch {
	struct hwtimer	t;
	u64		entry;
	u64		end;
	bool		ran;
};

static void kt_batch_fn(struct hwtimer *t)
{
	struct kt_batch *kb = container_of(t, struct kt_batch, t);
	u64 t0;

	kb->entry = local_clock();
	kb->end = hwtimer_pass_end(t);
	do {
		t0 = local_clock();
		while (local_clock() - t0 <= KT_BATCH_CHUNK_NS)
			cpu_relax();
	} while (local_clock() <= kb->end);
	kb->ran = true;
}

static void wheel_pass_end_shared(struct kunit *test)
{
	const int n = 4 * HWT_EXPIRE_CHECK;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_batch *kb = kunit_kcalloc(test, n, sizeof(*kb), GFP_KERNEL);
	int i, j, late, passes = 0;
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, kb);
	/*
	 * One CPU's base for all the timers, and its local_clock() for the
	 * passes and the callbacks alike (no assertion fails in between).
	 */
	migrate_disable();
	for (i = 0; i < n; i++) {
		hwtimer_setup(&kb[i].t, w, kt_batch_fn);
		if (hwtimer_start(&kb[i].t, 10 * MS, HWTIMER_MODE_REL))
			break;
	}
	before = local_clock();
	if (i == n)
		hwt_manual_advance(w, 10 * MS);
	migrate_enable();
	KUNIT_ASSERT_EQ_MSG(test, i, n, "hwtimer_start() of timer %d failed", i);
	for (i = 0; i < n; i = j) {
		KUNIT_ASSERT_TRUE_MSG(test, kb[i].ran, "callback %d did not run", i);
		KUNIT_EXPECT_GE_MSG(test, kb[i].end, before + HWTIMER_PASS_NS,
				    "callback %d saw a pass end before the pass began", i);
		/* The callbacks of one pass share its end; count those begun past it. */
		for (j = i, late = 0; j < n && kb[j].ran && kb[j].end == kb[i].end; j++) {
			KUNIT_EXPECT_LE_MSG(test, kb[j].end - HWTIMER_PASS_NS, kb[j].entry,
					    "callback %d began before its pass did", j);
			late += kb[j].entry > kb[j].end;
		}
		KUNIT_EXPECT_EQ_MSG(test, j - i, HWT_EXPIRE_CHECK,
				    "pass %d ran %d callbacks (%d to %d), each to the pass's end: not one clock check every %d callbacks",
				    passes, j - i, i, j - 1, HWT_EXPIRE_CHECK);
		KUNIT_EXPECT_LE_MSG(test, late, HWT_EXPIRE_CHECK,
				    "a pass began %d callbacks after its budget was spent (pass %d, callbacks %d to %d)",
				    late, passes, i, j - 1);
		KUNIT_EXPECT_GE_MSG(test, late, j - i - 1,
				    "callbacks after one that ran to its pass's end began before that end (pass %d, callbacks %d to %d): the pass's end is not shared",
				    passes, i, j - 1);
		passes++;
	}
	KUNIT_EXPECT_EQ_MSG(test, passes, n / HWT_EXPIRE_CHECK,
			    "%d callbacks that each run to the pass's end ran in %d passes",
			    n, passes);
}

/* Random delays over many levels on a small wheel: every timer exact. */
static int kt_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void wheel_random_cascades_exact(struct kunit *test)
{
	const int n = 3000;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 16, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	u64 *ticks = kt_kvzalloc(test, n * sizeof(u64));
	u64 now = 0;
	int i, j, fired;

	KUNIT_ASSERT_NOT_NULL(test, ticks);
	for (i = 0; i < n; i++) {
		/* Distances of up to 16 * 64^3 ticks: levels 0 to 4. */
		u64 delay = (get_random_u32() % (16U * 64 * 64 * 64)) * MS + get_random_u32() % MS;

		if (i % 3 == 0) {
			now += get_random_u32() % (50 * MS);
			hwt_manual_advance(w, now);
		}
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, delay, HWTIMER_MODE_REL), 0);
		ticks[i] = kt[i].t.expires;
	}
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_GE_MSG(test, ticks[i] * MS, kt[i].t.deadline, "timer %d early", i);
		KUNIT_EXPECT_LT_MSG(test, ticks[i] * MS - kt[i].t.deadline, MS,
				    "timer %d more than a tick late", i);
	}
	sort(ticks, n, sizeof(u64), kt_cmp_u64, NULL);
	for (i = 0; i < n; i = j) {
		u64 tk = ticks[i];

		for (j = i; j < n && ticks[j] == tk; j++)
			;
		if (tk * MS > now) {
			hwt_manual_advance(w, tk * MS - 1);
			now = tk * MS - 1;
			for (fired = 0, j = 0; j < n; j++)
				fired += atomic_read(&kt[j].fires);
			KUNIT_ASSERT_EQ_MSG(test, fired, i, "timers fired before tick %llu", tk);
			hwt_manual_advance(w, tk * MS);
			now = tk * MS;
		}
		for (fired = 0, j = 0; j < n; j++)
			fired += atomic_read(&kt[j].fires);
		for (j = i; j < n && ticks[j] == tk; j++)
			;
		KUNIT_ASSERT_GE_MSG(test, fired, j, "timers due at tick %llu did not fire", tk);
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[i].fires), 1, "timer %d fired %d times",
				    i, atomic_read(&kt[i].fires));
}

static void wheel_burst_is_batched(struct kunit *test)
{
	const int n = 5 * HWT_EXPIRE_BATCH + 7;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	unsigned int cpu = raw_smp_processor_id();
	struct hwtimer_stats s;
	int i, passes = 1;

	/* All on one CPU's base: pin while starting. */
	preempt_disable();
	cpu = smp_processor_id();
	for (i = 0; i < n; i++)
		hwtimer_start(&kt[i].t, 3 * MS, HWTIMER_MODE_REL);
	preempt_enable();
	WRITE_ONCE(w->manual_now, 3 * MS);
	KUNIT_EXPECT_TRUE_MSG(test, hwt_manual_run_once(w, cpu),
			      "a burst of %d must not finish in one pass", n);
	hwtimer_wheel_stats(w, &s);
	/* At most a batch, and fewer if they took longer than HWTIMER_PASS_NS. */
	KUNIT_EXPECT_GE(test, s.fired, 1ULL);
	KUNIT_EXPECT_LE(test, s.fired, (u64)HWT_EXPIRE_BATCH);
	while (hwt_manual_run_once(w, cpu))
		passes++;
	passes++;
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ_MSG(test, s.fired, (u64)n, "a batched burst lost timers");
	KUNIT_EXPECT_GE(test, passes, DIV_ROUND_UP(n, HWT_EXPIRE_BATCH));
	KUNIT_EXPECT_EQ(test, s.pending, 0ULL);
}

static void wheel_lateness_stats(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 2);
	struct hwtimer_stats s;

	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[0].t, 2 * MS + 1, HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 3 * MS);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.late, 0ULL);
	KUNIT_EXPECT_EQ(test, s.max_late_ns, MS - 1);
	/* Processing 10 ticks late counts as a late fire. */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[1].t, 5 * MS, HWTIMER_MODE_ABS), 0);
	hwt_manual_advance(w, 15 * MS);
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.late, 1ULL);
	KUNIT_EXPECT_EQ(test, s.max_late_ns, 10 * MS);
}

/*
 * A periodic timer built on hwtimer_forward(): each callback moves the
 * deadline on by whole periods from the previous deadline, not from when
 * the callback runs, and counts the periods it skipped.
 */
struct kt_periodic {
	struct hwtimer t;
	u64 period;
	u64 overruns;
	int fires;
	int rearm_err;
	u64 fired_deadline[4];
};

static void kt_periodic_fn(struct hwtimer *t)
{
	struct kt_periodic *p = from_hwtimer(p, t, t);

	if (p->fires < ARRAY_SIZE(p->fired_deadline))
		p->fired_deadline[p->fires] = hwtimer_expires(t);
	p->fires++;
	p->overruns += hwtimer_forward(t, p->period);
	p->rearm_err = hwtimer_start(t, hwtimer_expires(t), HWTIMER_MODE_ABS);
}

static void wheel_forward_drift_free(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_periodic *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	hwtimer_setup(&p->t, w, kt_periodic_fn);
	p->period = 3 * MS;
	KUNIT_ASSERT_EQ(test, hwtimer_start(&p->t, 3 * MS, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_expires(&p->t), 3 * MS,
			    "hwtimer_expires() is not the deadline asked for");

	/* Half a period late: one period on, to 6 ms, not 3.5 + 3. */
	hwt_manual_advance(w, 3 * MS + MS / 2);
	KUNIT_ASSERT_EQ(test, p->fires, 1);
	KUNIT_EXPECT_EQ(test, p->fired_deadline[0], 3 * MS);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_expires(&p->t), 6 * MS,
			    "forwarded from when the callback ran (drift), not from the deadline");
	KUNIT_EXPECT_EQ(test, p->overruns, 1ULL);

	/* 7.2 ms late: the 9 and 12 ms periods are missed, next is 15 ms. */
	hwt_manual_advance(w, 13 * MS + MS / 5);
	KUNIT_ASSERT_EQ(test, p->fires, 2);
	KUNIT_EXPECT_EQ(test, p->fired_deadline[1], 6 * MS);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_expires(&p->t), 15 * MS,
			    "after missing two periods the deadline is %llu ns, not 15 ms",
			    hwtimer_expires(&p->t));
	KUNIT_EXPECT_EQ_MSG(test, p->overruns, 4ULL,
			    "hwtimer_forward() counted %llu periods in all, not 1 + 3",
			    p->overruns);

	/* Exactly on time: one period. */
	hwt_manual_advance(w, 15 * MS);
	KUNIT_ASSERT_EQ(test, p->fires, 3);
	KUNIT_EXPECT_EQ(test, hwtimer_expires(&p->t), 18 * MS);
	KUNIT_EXPECT_EQ(test, p->overruns, 5ULL);
	KUNIT_EXPECT_EQ(test, p->rearm_err, 0);

	/* A deadline that has not passed is left alone. */
	KUNIT_EXPECT_EQ(test, hwtimer_cancel(&p->t), 1);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_forward(&p->t, p->period), 0ULL,
			    "forwarded a deadline that is still ahead");
	KUNIT_EXPECT_EQ(test, hwtimer_expires(&p->t), 18 * MS);
}

static void wheel_many_same_tick(struct kunit *test)
{
	const int n = 2000;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	int i, fired = 0;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, 40 * MS, HWTIMER_MODE_ABS), 0);
	for (i = 0; i < n; i += 2)
		KUNIT_EXPECT_EQ(test, hwtimer_cancel(&kt[i].t), 1);
	hwt_manual_advance(w, 40 * MS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[i].fires), i % 2,
				    "timer %d: cancelled ones must not fire, others once", i);
		fired += atomic_read(&kt[i].fires);
	}
	KUNIT_EXPECT_EQ(test, fired, n / 2);
}

/* ---- slack ---------------------------------------------------------------- */

/* A manual wheel with a default slack. */
static struct hwtimer_wheel *kt_slack_wheel(struct kunit *test, u32 slots, u64 slack_ns)
{
	struct hwtimer_wheel_config cfg = { .tick_ns = MS, .slots = slots, .slack_ns = slack_ns };

	return kt_manual_wheel_cfg(test, &cfg);
}

/* The tick chosen: the most aligned one in the window, and no drift. */
static void wheel_slack_picks_aligned_tick(struct kunit *test)
{
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct kt_timer *kt = kt_alloc(test, w, 4);

	/* Ticks 1001..1030: 1024 has the most trailing zeros. */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[0].t, 1000 * MS + MS / 2, 30 * MS,
						  HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ(test, kt[0].t.expires, 1024ULL);
	/* A window of less than a tick: the deadline's tick. */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[1].t, 5 * MS, MS / 2, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ(test, kt[1].t.expires, 5ULL);
	/* Ticks 100..120: 112; the deadline stays what was asked for. */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[2].t, 100 * MS, 20 * MS,
						  HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, kt[2].t.expires, 112ULL);
	KUNIT_EXPECT_EQ(test, hwtimer_expires(&kt[2].t), 100 * MS);
	/* Ticks 96..100: 96 itself has the most. */
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[3].t, 96 * MS, 4 * MS, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ(test, kt[3].t.expires, 96ULL);
	hwt_manual_advance(w, 112 * MS - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[2].fires), 0);
	hwt_manual_advance(w, 112 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&kt[2].fires), 1);
	/* hwtimer_forward() works on the deadline, not the tick it fired on. */
	KUNIT_EXPECT_EQ(test, hwtimer_forward(&kt[2].t, 100 * MS), 1ULL);
	KUNIT_EXPECT_EQ_MSG(test, hwtimer_expires(&kt[2].t), 200 * MS,
			    "forward from a slack tick drifted to %llu ns",
			    hwtimer_expires(&kt[2].t));
}

/*
 * Random deadlines and slacks, over several levels: every timer fires
 * exactly once, never before its deadline and never more than its slack
 * plus a tick after it, and none counts as late.
 */
static void wheel_slack_random_bounds(struct kunit *test)
{
	const int n = 3000;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 16, 0);
	struct kt_timer *kt = kt_alloc(test, w, n);
	u64 *slack = kt_kvzalloc(test, n * sizeof(u64));
	u64 *ticks = kt_kvzalloc(test, n * sizeof(u64));
	struct hwtimer_stats s;
	u64 now = 0, last = 0;
	int i, moved = 0;

	for (i = 0; i < n; i++) {
		/* Deadlines up to 16 * 64^2 ticks away, slacks 0 to 2^k ms. */
		u64 delay = (get_random_u32() % (16U * 64 * 64)) * MS + get_random_u32() % MS;
		u64 dl;

		slack[i] = i % 7 ? get_random_u32() % ((MS << (get_random_u32() % 14)) + 1) : 0;
		if (i % 3 == 0) {
			now += get_random_u32() % (20 * MS);
			hwt_manual_advance(w, now);
		}
		dl = now + delay;
		if (i & 1)
			KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[i].t, delay, slack[i],
								  HWTIMER_MODE_REL), 0);
		else
			KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[i].t, dl, slack[i],
								  HWTIMER_MODE_ABS), 0);
		KUNIT_ASSERT_EQ(test, kt[i].t.deadline, dl);
		ticks[i] = kt[i].t.expires;
		if (ticks[i] > hwt_expiry_tick(&w->time, dl))
			moved++;
		last = max(last, ticks[i]);
	}
	/* The clock in steps that do not fall on tick boundaries. */
	while (now < last * MS) {
		now += get_random_u32() % (3 * MS) + 1;
		hwt_manual_advance(w, now);
	}
	for (i = 0; i < n; i++) {
		u64 dl = kt[i].t.deadline;

		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&kt[i].fires), 1, "timer %d fired %d times",
				    i, atomic_read(&kt[i].fires));
		KUNIT_EXPECT_GE_MSG(test, ticks[i] * MS, dl,
				    "timer %d (deadline %llu, slack %llu) queued on tick %llu: early",
				    i, dl, slack[i], ticks[i]);
		KUNIT_EXPECT_LE_MSG(test, ticks[i] * MS, dl + slack[i] + MS,
				    "timer %d (deadline %llu, slack %llu) queued on tick %llu: late",
				    i, dl, slack[i], ticks[i]);
		/* Tighter, as documented: the deadline's tick or one begun by D + S. */
		if (ticks[i] != hwt_expiry_tick(&w->time, dl))
			KUNIT_EXPECT_LE_MSG(test, ticks[i] * MS, dl + slack[i],
					    "timer %d (deadline %llu, slack %llu): tick %llu begins after the window",
					    i, dl, slack[i], ticks[i]);
		KUNIT_EXPECT_GE_MSG(test, kt[i].fired_at, dl, "timer %d fired early", i);
		/* The clock moves in steps of up to 20 ms. */
		KUNIT_EXPECT_LE_MSG(test, kt[i].fired_at, ticks[i] * MS + 20 * MS,
				    "timer %d fired after its tick", i);
	}
	hwtimer_wheel_stats(w, &s);
	KUNIT_EXPECT_EQ(test, s.early, 0ULL);
	KUNIT_EXPECT_LE(test, s.max_late_ns, (MS << 13) + 21 * MS);
	KUNIT_EXPECT_GT_MSG(test, moved, n / 4, "slack moved only %d of %d timers", moved, n);
}

/* Slack 0, given or by default, is exactly the deadline's tick. */
static void wheel_slack_zero_is_exact(struct kunit *test)
{
	const int n = 1000;
	struct hwtimer_wheel *w = kt_manual_wheel(test, MS, 64, 0);
	struct hwtimer_wheel *wd = kt_slack_wheel(test, 64, 50 * MS);
	struct kt_timer *kt = kt_alloc(test, w, n);
	struct kt_timer *kd = kt_alloc(test, wd, 4);
	int i;

	for (i = 0; i < n; i++) {
		u64 dl = (get_random_u32() % (64U * 64 * 64)) * MS + get_random_u32() % MS;

		switch (i % 4) {
		case 0:
			KUNIT_ASSERT_EQ(test, hwtimer_start(&kt[i].t, dl, HWTIMER_MODE_ABS), 0);
			break;
		case 1:
			KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kt[i].t, dl, 0,
								  HWTIMER_MODE_ABS), 0);
			break;
		case 2:
			KUNIT_ASSERT_EQ(test, hwtimer_modify_range(&kt[i].t, dl, 0,
								   HWTIMER_MODE_ABS), 0);
			break;
		default:
			KUNIT_ASSERT_EQ(test, hwtimer_modify(&kt[i].t, dl, HWTIMER_MODE_ABS), 0);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, kt[i].t.expires, hwt_expiry_tick(&w->time, dl),
				    "slack 0: deadline %llu not on its own tick", dl);
	}
	/* The wheel's default slack applies to the plain calls only. */
	KUNIT_ASSERT_EQ(test, hwtimer_start(&kd[0].t, 1000 * MS + 1, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ_MSG(test, kd[0].t.expires, 1024ULL,
			    "the default slack of 50 ms was not used");
	KUNIT_ASSERT_EQ(test, hwtimer_modify(&kd[1].t, 1000 * MS + 1, HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, kd[1].t.expires, 1024ULL);
	KUNIT_ASSERT_EQ(test, hwtimer_start_range(&kd[2].t, 1000 * MS + 1, 0, HWTIMER_MODE_ABS), 0);
	KUNIT_EXPECT_EQ_MSG(test, kd[2].t.expires, 1001ULL, "explicit slack 0 must win");
	KUNIT_ASSERT_EQ(test, hwtimer_modify_range(&kd[3].t, 1000 * MS + 1, 0,
						   HWTIMER_MODE_REL), 0);
	KUNIT_EXPECT_EQ(test, kd[3].t.expires, 1001ULL);
}

/* Step @w's clock tick by tick up to @end: ticks with work, as the wakeups. */
static u64 kt_run_ticks(struct hwtimer_wheel *w, u64 end)
{
	struct hwtimer_stats s;
	u64 t;

	for (t = MS; t <= end; t += MS)
		hwt_manual_advance(w, t);
	hwtimer_wheel_stats(w, &s);
	return s.ticks;
}

/*
 * The same deadlines, spread over 30 s, with 10% slack and without: with
 * slack the wheel has work on far fewer ticks (on a real clock, hrtimer
 * wakeups), and every timer still fires within its window.
 */
static void wheel_slack_coalesces(struct kunit *test)
{
	const int n = 3000;
	const u64 span = 30000 * MS;
	struct hwtimer_wheel *w0 = kt_manual_wheel(test, MS, 512, 0);
	struct hwtimer_wheel *w1 = kt_manual_wheel(test, MS, 512, 0);
	struct kt_timer *k0 = kt_alloc(test, w0, n);
	struct kt_timer *k1 = kt_alloc(test, w1, n);
	u64 t0, t1;
	int i, f0 = 0, f1 = 0, bad = 0;

	for (i = 0; i < n; i++) {
		u64 d = mul_u64_u32_shr(span, get_random_u32(), 32) + 1;

		KUNIT_ASSERT_EQ(test, hwtimer_start(&k0[i].t, d, HWTIMER_MODE_REL), 0);
		KUNIT_ASSERT_EQ(test, hwtimer_start_range(&k1[i].t, d, d / 10,
							  HWTIMER_MODE_REL), 0);
	}
	t0 = kt_run_ticks(w0, span + 10 * MS);
	t1 = kt_run_ticks(w1, span + span / 10 + 10 * MS);
	for (i = 0; i < n; i++) {
		f0 += atomic_read(&k0[i].fires);
		f1 += atomic_read(&k1[i].fires);
		if (k1[i].fired_at < k1[i].t.deadline ||
		    k1[i].fired_at > k1[i].t.deadline + k1[i].t.deadline / 10 + MS)
			bad++;
	}
	KUNIT_EXPECT_EQ(test, f0, n);
	KUNIT_EXPECT_EQ(test, f1, n);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "%d timers fired outside [deadline, +10%% + 1 tick]",
			    bad);
	KUNIT_EXPECT_LE_MSG(test, t1 * 10, t0,
			    "10%% slack: %llu ticks with work, without slack %llu: not 10x fewer",
			    t1, t0);
	kunit_info(test, "%d timers over 30 s: %llu ticks with work without slack, %llu with 10%% slack\n",
		   n, t0, t1);
}

static struct kunit_case wheel_cases[] = {
	KUNIT_CASE_PARAM(wheel_never_early_exact_tick, kt_delay_gen_params),
	KUNIT_CASE(wheel_huge_delay_clamped),
	KUNIT_CASE(wheel_abs_in_past_fires_next_tick),
	KUNIT_CASE(wheel_lateness_stats_slack),
	KUNIT_CASE(wheel_start_pending_is_ealready),
	KUNIT_CASE(wheel_modify),
	KUNIT_CASE(wheel_modify_same_slot),
	KUNIT_CASE(wheel_modify_due_timer_moves),
	KUNIT_CASE(wheel_cancel),
	KUNIT_CASE(wheel_cancel_sync_idle_and_pending),
	KUNIT_CASE(wheel_on_stack_timer),
	KUNIT_CASE(wheel_shutdown_refuses_rearm),
	KUNIT_CASE(wheel_state_queries),
	KUNIT_CASE(wheel_state_running_in_callback),
	KUNIT_CASE(wheel_rearm_beyond_span),
	KUNIT_CASE(wheel_destroy_after_fired_returns_zero),
	KUNIT_CASE(wheel_destroy_hands_back_pending),
	KUNIT_CASE(wheel_max_pending),
	KUNIT_CASE(wheel_max_pending_huge),
	KUNIT_CASE(wheel_far_future_costs_nothing_per_tick),
	KUNIT_CASE_PARAM(wheel_cascade_bounded, kt_cascade_size_gen_params),
	KUNIT_CASE(wheel_pass_time_bounded),
	KUNIT_CASE(wheel_pass_end_shared),
	KUNIT_CASE(wheel_random_cascades_exact),
	KUNIT_CASE(wheel_burst_is_batched),
	KUNIT_CASE(wheel_lateness_stats),
	KUNIT_CASE(wheel_many_same_tick),
	KUNIT_CASE(wheel_forward_drift_free),
	KUNIT_CASE(wheel_slack_picks_aligned_tick),
	KUNIT_CASE(wheel_slack_random_bounds),
	KUNIT_CASE(wheel_slack_zero_is_exact),
	KUNIT_CASE(wheel_slack_coalesces),
	{}
};

static struct kunit_suite wheel_suite = {
	.name = "hwtimer_wheel",
	.exit = kt_cleanup,
	.test_cases = wheel_cases,
};

kunit_test_suites(&config_suite, &place_suite, &wheel_suite);
