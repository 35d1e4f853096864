/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/hwtimer: a file's wheel, its clock and its driving timer (hwtimer_dev_wheel.c). */
#ifndef _HWTIMER_DEV_WHEEL_H
#define _HWTIMER_DEV_WHEEL_H

#include <linux/overflow.h>

#include "hwtimer_dev.h"
#include "hwtimer_dev_table.h"

/* Clocks */
s64 hwtd_timens_offset(bool boottime);
u64 hwtd_clock_now(const struct hwtd_file *file);

/**
 * hwtd_time_from_host() - a host time as a namespace shows it
 * @t: host ns
 * @offset: the namespace's offset
 *
 * Context: any.
 * Return: @t + @offset, within [0, KTIME_MAX]. Exact for a time that was
 * converted from that namespace.
 */
static inline u64 hwtd_time_from_host(u64 t, s64 offset)
{
	u64 r;

	if (offset >= 0) {
		if (check_add_overflow(t, (u64)offset, &r))
			return KTIME_MAX;
	} else {
		if (t < (u64)-offset)
			return 0;
		r = t - (u64)-offset;
	}
	return min_t(u64, r, KTIME_MAX);
}

/* The wheel */

/*
 * Whether pending timeout @s is due: its tick has been processed, so it
 * goes in no slot.
 */
static __always_inline bool hwtd_due(const struct hwtd_file *file,
				     const struct hwtd_timeout *s)
{
	return s->tick <= file->clk;
}

u64 hwtd_next_event(struct hwtd_file *file);
bool hwtd_wheel_start(struct hwtd_file *file, u32 idx, u64 slack, u64 now);
bool hwtd_wheel_extend(struct hwtd_file *file, u32 idx, u64 slack, u64 now);
void hwtd_wheel_rearm(struct hwtd_file *file, u32 idx, u64 slack, u64 now);

/**
 * hwtd_wheel_remove() - take a pending timeout out of the wheel
 * @file: the file
 * @idx: the timeout, in a slot or on the todo list
 *
 * A slot it leaves empty has its bit cleared.
 *
 * Context: the file lock held.
 */
static inline void hwtd_wheel_remove(struct hwtd_file *file, u32 idx)
{
	u32 emptied = hwtd_list_del(file, idx);

	if (emptied < HWTD_NSLOTS)
		__clear_bit(emptied, file->occupied);
}

/* Expiry passes (driven by hwtimer_dev_records.c) */
bool hwtd_wheel_pass_begin(struct hwtd_file *file);
void hwtd_wheel_pass_target(struct hwtd_file *file, u64 now);
u32 __hwtd_wheel_take_due(struct hwtd_file *file, unsigned int *budget, bool *done);
void hwtd_wheel_pass_end(struct hwtd_file *file, u64 now);

/**
 * hwtd_wheel_take_due() - the next timeout due up to the pass's target
 * @file: the file, in an expiry pass (hwtd_wheel_pass_begin())
 * @budget: entries this hold of the file lock may still process;
 *          decremented
 * @done: set when nothing up to the target is left
 *
 * Moves the wheel on, one next tick with work at a time, each move and
 * each timeout taken off the todo list costing one unit of *@budget:
 * timeouts of a tick that has come are due, the others go to a lower
 * level. The first due one is returned, taken out of the wheel: the
 * caller delivers its record. A periodic timeout whose record leaves
 * meanwhile is armed for a tick after the target (hwtd_wheel_rearm()),
 * so a pass takes each timeout once at most. Inline for the common case,
 * a due timeout first on the todo list: each record an expiry pass
 * delivers comes from here.
 *
 * Context: the file lock held.
 * Return: a due timeout, pending and on no list, or %HWTD_NIL: then
 * *@done says whether the pass is done, else *@budget ran out.
 */
static __always_inline u32
hwtd_wheel_take_due(struct hwtd_file *file, unsigned int *budget, bool *done)
{
	u32 idx = hwtd_list_first(file, HWTD_LIST_TODO);
	struct hwtd_timeout *s;

	hwtd_lockdep_assert(file);
	if (likely(idx != HWTD_NIL && *budget)) {
		s = hwtd_timeout_at(file, idx);
		if (likely(hwtd_due(file, s))) {
			(*budget)--;
			hwtd_list_del(file, idx);
			s->state = HWTD_PENDING;
			*done = false;
			return idx;
		}
	}
	return __hwtd_wheel_take_due(file, budget, done);
}

/* The driving timers */
void hwtd_wheel_timers_init(struct hwtd_file *file,
			    struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS],
			    hwtimer_fn_t fn);
void hwtd_wheel_configure(struct hwtd_file *file,
			  struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS],
			  unsigned int precision, unsigned int clock);
void hwtd_wheel_stop(struct hwtd_file *file);

#endif /* _HWTIMER_DEV_WHEEL_H */
