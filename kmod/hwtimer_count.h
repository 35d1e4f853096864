/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A count with a cap, shared by the per-CPU layer (a wheel's max_pending)
 * and any other cap of the module, as hwtimer_wheel.h is: arithmetic on
 * the caller's storage, nothing of either layer's state.
 */
#ifndef _HWTIMER_COUNT_H
#define _HWTIMER_COUNT_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * One more on @count unless that would take it past @cap. The count never
 * exceeds the cap, not even for a moment, so a caller that fails at the
 * cap cannot make a concurrent one below it fail (as an increment undone
 * after the fact would). A cap past LONG_MAX is never reached: the count
 * is never negative. No ordering is needed: the count guards nothing but
 * the cap, so the relaxed load and a failed cmpxchg are enough, and the
 * decrements that give a unit back are unordered.
 */
static inline bool hwt_count_inc_below(atomic_long_t *count, unsigned long cap)
{
	long c = atomic_long_read(count);

	do {
		if ((unsigned long)c >= cap)
			return false;
	} while (!atomic_long_try_cmpxchg(count, &c, c + 1));
	return true;
}

#endif /* _HWTIMER_COUNT_H */
