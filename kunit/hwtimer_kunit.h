/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the hwtimer KUnit suites. */
#ifndef _HWTIMER_KUNIT_H
#define _HWTIMER_KUNIT_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/hwtimer.h>

#include "hwtimer_internal.h"

/* A test timer: records how often and when (wheel clock) it fired. */
struct kt_timer {
	struct hwtimer		t;
	atomic_t		fires;
	atomic_t		early;
	u64			fired_at;
	/*
	 * The tick it fired on, and (a real wheel) the expiry of its base's
	 * hrtimer when its callback ran: when the pass that ran it was due.
	 */
	u64			tick;
	u64			hrt_expires;
	int			fired_cpu;
	bool			in_softirq;
	/* Self re-arm: this many more times, with this delay. */
	int			rearms;
	u64			rearm_delay;
};

void kt_fn(struct hwtimer *t);
void kt_setup(struct kt_timer *kt, struct hwtimer_wheel *w);

/* Unique wheel names, so suites never collide on debugfs names. */
const char *kt_name(struct kunit *test);

struct hwtimer_wheel *kt_manual_wheel(struct kunit *test, u64 tick_ns, u32 slots,
				      u64 max_pending);
struct hwtimer_wheel *kt_real_wheel(struct kunit *test, u64 tick_ns, u32 slots,
				    u32 flags);
/* A manual wheel from a full configuration; its name is set here. */
struct hwtimer_wheel *kt_manual_wheel_cfg(struct kunit *test, struct hwtimer_wheel_config *cfg);

/*
 * Wheels from kt_*_wheel() and memory from kt_kvzalloc() are KUnit
 * resources of @test: as many as a test likes, all gone when it ends.
 */
/* Destroy every wheel kt_*_wheel() made for @test; returns unprocessed. */
unsigned long kt_destroy_all(struct kunit *test);
/* Zeroed memory, freed when the test ends, after its wheels are destroyed. */
void *kt_kvzalloc(struct kunit *test, size_t size);
/* Suite .exit: destroy the test's wheels before KUnit frees its memory. */
void kt_cleanup(struct kunit *test);

#endif
