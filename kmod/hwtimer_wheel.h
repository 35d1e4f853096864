/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timing wheel, written once: its time, its geometry, where a timer
 * goes, which tick has work next, and how the wheel's clock moves. The
 * per-CPU bases (hwtimer_wheel.c) run it, and so may a user of the API
 * that keeps wheels of its own, driven by a struct hwtimer
 * (docs/design.md). Each stores its timers as it likes (the bases: a
 * struct hwtimer embedded in its user's object, on hlists) and moves its
 * own entries, with the functions below deciding where to.
 *
 * Ticks
 * -----
 * Tick T begins at epoch + T * tick_ns on the wheel's clock
 * (struct hwt_time). A deadline D expires at tick hwt_expiry_tick(D), the
 * first tick that begins at or after D: never before D, at most one tick
 * after it. Every time is counted from the epoch, so nothing drifts
 * however long a wheel runs. A timer with slack S may take any tick from
 * that one to the last that begins by D + S; it takes the one with the
 * most trailing zero bits (hwt_window_tick()), which timers whose windows
 * overlap tend to share.
 *
 * Slots and levels
 * ----------------
 * Level 0 has 2^b slots of one tick each (b = lvl0_bits); each level
 * above it has 64 slots, each 64 times as wide as a slot of the level
 * below. With 2^b slots at level 0, level l >= 1 covers tick bits
 * [b + 6 (l - 1), b + 6 l), and there are as many levels as it takes to
 * cover all 64 bits:
 *
 *   level-0 slots   level-1 slot    level-2 slot    levels
 *   16              16 ticks        1024 ticks      11
 *   64              64 ticks        4096 ticks      11
 *   512             512 ticks       32768 ticks     11
 *   65536           65536 ticks     4194304 ticks   9
 *
 * The wheel's clock, clk, is the last tick processed: every timer queued
 * has a tick t > clk. A timer less than 2^b ticks away goes to level 0,
 * to the slot of t's low b bits, as timer.c's first level: the ticks
 * clk + 1 to clk + 2^b - 1 each have a slot of their own there, clk's own
 * slot being the one left out. A timer further away goes to the level of
 * the highest bit in which t and clk differ, and there to
 * the slot of t's digit at that level (hwt_slot()): the "hashed
 * hierarchical" placement of Varghese and Lauck, as William Ahern's
 * timeout.c does it. t and clk agree above that level and t's digit is the
 * greater, so the slot's range of ticks begins after clk, at t with the
 * bits below the level cleared (its start). As clk moves towards that
 * start, t and clk keep agreeing above the level and differing in it, so
 * the slot stays right for t. Two things follow, on which everything
 * below rests:
 *
 *  (I1) every occupied slot of level l >= 1 holds a digit greater than
 *       clk's digit at l, and begins after clk; an occupied slot of level
 *       0 begins at the one tick after clk and less than 2^b ticks away
 *       whose low bits are its index;
 *  (I2) a timer in a slot of level l >= 1 has t at or after the slot's
 *       start; a timer in a slot of level 0 has t equal to it.
 *
 * Level 0 by distance means a timer less than a revolution of level 0
 * away never cascades, however its tick falls against the boundaries of
 * level 1: a wheel whose timers are mostly that near (a retransmit, a
 * lease renewed often) expires each from the slot it was placed in.
 *
 * Next event and advance
 * ----------------------
 * The next tick with work is the earliest start of an occupied slot
 * (hwt_next_event()): by (I1), at level 0 it is found from clk's digit on,
 * around once; at level l >= 1 in clk's rotation of that level, from one
 * bitmap word; and a level whose first boundary
 * after clk is not before the best start found cannot improve on it. The
 * wheel's clock then moves to that tick, ev: the slots beginning at ev
 * (hwt_event_slot(), at most one per level) are emptied. A level-0 slot's
 * timers are due at ev (I2); those of a higher level are re-queued
 * relative to the new clock: due if t == ev, else in a slot of a lower
 * level, since t and ev now agree at the level they were in. A cascade
 * never fills the slot it empties (a timer placed now is not due at ev, so
 * not in ev's level-0 slot, and has a digit greater than ev's at a higher
 * level, by (I1)), so it can stop after any timer and go on later. The
 * ticks between two events have nothing to do and are never visited. An
 * idle wheel's clock moves up to now (hwt_forward()) only past ticks
 * before its next event, so timers armed next are placed relative to the
 * present.
 *
 * The driver
 * ----------
 * Something outside the wheel runs its passes at the right time: a per-CPU
 * base's hrtimer, or the struct hwtimer that drives a user's wheel. Each
 * keeps
 *
 *  (I3) whenever the wheel is not in a pass, its driver is armed for a
 *       tick at or before the start of the earliest occupied slot, or
 *       (a struct hwtimer driver) for a tick that has begun: that pass is
 *       due, and it runs the wheel through every slot that has begun.
 *
 * The slot's start, not the tick of the timer that made it occupied: a
 * timer may stay in its slot when a modify gives it an earlier tick of the
 * same slot (hwt_can_stay()), and nothing re-arms the driver then. So a
 * far timer wakes its driver once per level it cascades through. A pass
 * that ends arms the driver for hwt_next_event(); a placement arms it when
 * the slot it filled begins before the driver's tick. Kernels built with
 * CONFIG_DEBUG_OBJECTS_TIMERS check (I3) after every operation
 * (hwt_driver_late()).
 *
 * What this gives
 * ---------------
 *  - Never early: a timer fires at the processing of its tick t, which
 *    begins at or after its deadline, and t is never changed to an
 *    earlier tick: a timer armed for a tick already processed goes on the
 *    next one (clk + 1).
 *  - At most one tick late, without slack: t is the first tick at or
 *    after the deadline, and the wheel processes tick t once it has begun
 *    (plus the latency of whatever runs the wheel).
 *  - Bounded cascades: a timer moves to a lower level at each cascade,
 *    so at most once per level in its life, unless a modify leaves it in
 *    its slot for a later tick (hwt_can_stay()): then once more per slot
 *    it waits in, not per modify.
 *  - The far future costs nothing per tick: a tick visits only the slots
 *    that begin at it, and a timer many revolutions away sits in a high
 *    level's slot until its start comes.
 */
#ifndef _HWTIMER_WHEEL_H
#define _HWTIMER_WHEEL_H

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/types.h>

/* Every level above 0 has 64 slots: one bitmap word. */
#define HWT_LVL_BITS		6
#define HWT_LVL_SIZE		BIT(HWT_LVL_BITS)
#define HWT_LVL_MASK		(HWT_LVL_SIZE - 1)

/*
 * The shape of a wheel (struct hwt_geom), each member's formula once, as
 * constant expressions: for hwt_geom_init(), and for a wheel whose shape
 * is fixed at compile time, which sizes its arrays with them. With 2^@bits
 * slots at level 0, as many levels as it takes to cover the 64 tick bits;
 * level 1 begins after level 0's slots rounded up to whole bitmap words,
 * so that it starts one; every level above 0 has a word of slots.
 */
#define HWT_GEOM_LEVELS(bits)	(1 + DIV_ROUND_UP(64 - (bits), HWT_LVL_BITS))
#define HWT_GEOM_LVL1_OFF(bits)	(((1U << (bits)) + HWT_LVL_MASK) & ~HWT_LVL_MASK)
#define HWT_GEOM_NSLOTS(lvl1_off, levels)	((lvl1_off) + ((levels) - 1) * HWT_LVL_SIZE)

/* With 16 slots at level 0, the fewest. */
#define HWT_MAX_LEVELS		HWT_GEOM_LEVELS(4)

/**
 * struct hwt_time - the ticks of a wheel on its clock
 * @epoch_ns: the time tick 0 begins, ns of the wheel's clock
 * @tick_ns: the length of a tick, ns
 * @max_tick: (KTIME_MAX - @epoch_ns) / @tick_ns: that tick and the later
 *            ones begin at KTIME_MAX for hwt_tick_start()
 */
struct hwt_time {
	u64	epoch_ns;
	u64	tick_ns;
	u64	max_tick;
};

static inline void hwt_time_init(struct hwt_time *tm, u64 epoch_ns, u64 tick_ns)
{
	tm->epoch_ns = epoch_ns;
	tm->tick_ns = tick_ns;
	tm->max_tick = epoch_ns > (u64)KTIME_MAX ? 0 :
		       div64_u64((u64)KTIME_MAX - epoch_ns, tick_ns);
}

/* The tick that contains @now: every tick up to it has begun. */
static __always_inline u64 hwt_now_tick(const struct hwt_time *tm, u64 now)
{
	if (now <= tm->epoch_ns)
		return 0;
	return div64_u64(now - tm->epoch_ns, tm->tick_ns);
}

/* The first tick that begins at or after @deadline. */
static __always_inline u64 hwt_expiry_tick(const struct hwt_time *tm, u64 deadline)
{
	u64 d, q;

	if (deadline <= tm->epoch_ns)
		return 0;
	d = deadline - tm->epoch_ns;
	q = div64_u64(d, tm->tick_ns);
	if (q * tm->tick_ns < d)
		q++;
	return q;
}

/* When tick @tick begins, clamped to KTIME_MAX. */
static inline u64 hwt_tick_start(const struct hwt_time *tm, u64 tick)
{
	if (tick >= tm->max_tick)
		return KTIME_MAX;
	return tm->epoch_ns + tick * tm->tick_ns;
}

/*
 * Among the ticks from @lo to @last, the one with the most trailing zero
 * bits; @first (the first tick at or after the deadline, at most @lo) when
 * the window is empty. That tick is unique, and the same for every window
 * that contains it and no tick with more trailing zeros, so timers whose
 * windows overlap tend to share it; and the starts of the wheel's slots,
 * where cascades wake it, are such ticks too.
 */
static inline u64 hwt_window_tick(u64 first, u64 lo, u64 last)
{
	unsigned int h;

	if (last < lo)
		return first;
	if (last == lo)
		return lo;
	/*
	 * The highest bit in which @lo and @last differ is 0 in @lo and 1 in
	 * @last: @last with the bits below it cleared is in the window, and
	 * only @lo itself can have more trailing zeros.
	 */
	h = fls64(lo ^ last) - 1;
	if (!lo || __ffs64(lo) > h)
		return lo;
	return last & ~((1ULL << h) - 1);
}

/*
 * The tick of a timer whose deadline @deadline has @first as its first
 * tick, that may fire up to @slack ns late, the wheel's next tick to
 * process being @lo or later: @first without slack, else the tick of the
 * window [max(@first, @lo), the last tick that begins by @deadline +
 * @slack] that hwt_window_tick() picks. Never before @first, so never
 * early.
 */
static __always_inline u64 hwt_slack_tick(const struct hwt_time *tm, u64 deadline,
					  u64 first, u64 slack, u64 lo)
{
	if (!slack)
		return first;
	return hwt_window_tick(first, max(first, lo),
			       hwt_now_tick(tm, deadline + min(slack, U64_MAX - deadline)));
}

/*
 * The periods of @period ns (at least 1) that ended after a periodic
 * deadline @deadline, by @now: those a timer that fires at @deadline's
 * first period end after @now missed. 0 when @now is not after @deadline.
 */
static inline u64 hwt_periods_missed(u64 deadline, u64 period, u64 now)
{
	return now > deadline ? div64_u64(now - deadline, period) : 0;
}

/*
 * The periodic re-arm: set *@next to the first end of a period of @period
 * ns (at least 1) from @deadline that comes after @now, @deadline plus
 * whole periods (so a periodic timer does not drift however late it runs),
 * U64_MAX if that overflows.
 *
 * Return: the periods missed (hwt_periods_missed()).
 */
static inline u64 hwt_period_forward(u64 deadline, u64 period, u64 now, u64 *next)
{
	u64 missed = hwt_periods_missed(deadline, period, now), delta;

	if (check_mul_overflow(missed + 1, period, &delta) ||
	    check_add_overflow(deadline, delta, next))
		*next = U64_MAX;
	return missed;
}

/**
 * struct hwt_geom - the shape of a wheel
 * @lvl0_bits: log2 of level 0's slots
 * @lvl0_slots: level 0's slots, 2^@lvl0_bits
 * @levels: levels, the top one reaching bit 63
 * @lvl1_off: index of level 1's first slot: level 0's slots, at least 64,
 *            so that each level above starts a bitmap word
 * @nslots: slots over all levels
 */
struct hwt_geom {
	u32	lvl0_bits;
	u32	lvl0_slots;
	u32	levels;
	u32	lvl1_off;
	u32	nslots;
};

/* The geometry of a wheel with @slots (a power of two) slots at level 0. */
static inline void hwt_geom_init(struct hwt_geom *g, u32 slots)
{
	g->lvl0_bits = ilog2(slots);
	g->lvl0_slots = slots;
	g->levels = HWT_GEOM_LEVELS(g->lvl0_bits);
	g->lvl1_off = HWT_GEOM_LVL1_OFF(g->lvl0_bits);
	g->nslots = HWT_GEOM_NSLOTS(g->lvl1_off, g->levels);
}

/* The lowest tick bit level @lvl covers. */
static __always_inline unsigned int hwt_lvl_shift(const struct hwt_geom *g, unsigned int lvl)
{
	return lvl ? g->lvl0_bits + (lvl - 1) * HWT_LVL_BITS : 0;
}

/* The number of tick bits level @lvl covers. */
static __always_inline unsigned int hwt_lvl_width(const struct hwt_geom *g, unsigned int lvl)
{
	return lvl ? HWT_LVL_BITS : g->lvl0_bits;
}

/* The index of level @lvl's first slot. */
static __always_inline unsigned int hwt_lvl_off(const struct hwt_geom *g, unsigned int lvl)
{
	return lvl ? g->lvl1_off + (lvl - 1) * HWT_LVL_SIZE : 0;
}

/* @t with the bits of level @lvl and below cleared: its rotation of @lvl. */
static __always_inline u64 hwt_rotation(const struct hwt_geom *g, u64 t, unsigned int lvl)
{
	unsigned int top = hwt_lvl_shift(g, lvl) + hwt_lvl_width(g, lvl);

	return top >= 64 ? 0 : t >> top << top;
}

/* The digit of tick @t at level @lvl. */
static __always_inline unsigned int hwt_digit(const struct hwt_geom *g, u64 t, unsigned int lvl)
{
	return (t >> hwt_lvl_shift(g, lvl)) & (BIT(hwt_lvl_width(g, lvl)) - 1);
}

/* The level of slot @idx. */
static __always_inline unsigned int hwt_slot_level(const struct hwt_geom *g, unsigned int idx)
{
	if (idx < g->lvl1_off)
		return 0;
	return (idx - g->lvl1_off) / HWT_LVL_SIZE + 1;
}

/**
 * hwt_slot() - where a timer goes
 * @g: the wheel's geometry
 * @t: the timer's tick, after @clk
 * @clk: the wheel's clock
 * @start: set to the tick the slot begins at: its next event
 *
 * Return: the slot's index.
 */
static __always_inline unsigned int hwt_slot(const struct hwt_geom *g, u64 t, u64 clk,
					     u64 *start)
{
	unsigned int up, shift;

	/*
	 * Level 0 if less than a revolution of it away, else the level of
	 * the highest bit in which @t and @clk differ (at or above
	 * lvl0_bits, as they are that far apart).
	 */
	if (t - clk < g->lvl0_slots) {
		*start = t;
		return t & (g->lvl0_slots - 1);
	}
	up = (fls64(t ^ clk) - 1 - g->lvl0_bits) / HWT_LVL_BITS;	/* level - 1 */
	shift = g->lvl0_bits + up * HWT_LVL_BITS;
	*start = t >> shift << shift;
	return g->lvl1_off + up * HWT_LVL_SIZE + ((t >> shift) & HWT_LVL_MASK);
}

/* hwt_can_stay()'s second case: a tick not earlier, in a slot above level 0. */
static __always_inline bool hwt_stay_later(const struct hwt_geom *g, unsigned int idx, u64 t,
					   u64 new)
{
	return new >= t && idx >= g->lvl1_off;
}

/*
 * Whether a pending timer in slot @idx, of tick @t, may stay there when a
 * modify gives it tick @new: the slot is the one @new would go to
 * (@new_idx), or the slot is above level 0 and @new is not earlier than
 * @t, so the slot still begins at or before @new (I2) and its cascade
 * re-places the timer by @new. A timer modified again and again to later
 * ticks (an idle timeout pushed out on each use) then moves once per slot
 * it waits in.
 */
static __always_inline bool hwt_can_stay(const struct hwt_geom *g, unsigned int idx, u64 t,
					 u64 new, unsigned int new_idx)
{
	return idx == new_idx || hwt_stay_later(g, idx, t, new);
}

/*
 * hwt_can_stay() for a caller that has not placed @new, the wheel's clock
 * being @clk: @new's slot (hwt_slot()) is found only when the second case
 * does not hold already.
 */
static __always_inline bool hwt_can_stay_at(const struct hwt_geom *g, unsigned int idx, u64 t,
					    u64 new, u64 clk)
{
	u64 start;

	return hwt_stay_later(g, idx, t, new) || hwt_slot(g, new, clk, &start) == idx;
}

/* The 64 occupancy bits of level @lvl >= 1. */
static __always_inline u64 hwt_occ_word(const struct hwt_geom *g, const unsigned long *occ,
					unsigned int lvl)
{
	unsigned int off = hwt_lvl_off(g, lvl);

#if BITS_PER_LONG == 64
	return occ[off / BITS_PER_LONG];
#else
	return (u64)occ[off / BITS_PER_LONG + 1] << 32 | occ[off / BITS_PER_LONG];
#endif
}

/**
 * hwt_next_event() - the next tick with work
 * @g: the wheel's geometry
 * @occ: its occupancy bitmap, a bit per slot
 * @clk: its clock
 *
 * The earliest start of an occupied slot (I1): at level 0 the first
 * occupied slot after @clk's digit, else the first before it, a
 * revolution on; at a level above, a slot whose digit is above @clk's
 * there. A slot being emptied at @clk's own tick is not looked at.
 *
 * Return: that tick, after @clk; U64_MAX when no slot is occupied.
 */
static inline u64 hwt_next_event(const struct hwt_geom *g, const unsigned long *occ, u64 clk)
{
	unsigned int lvl, shift, d, bit, size = BIT(g->lvl0_bits);
	u64 best = U64_MAX, first, m;

	d = clk & (size - 1);
	first = hwt_rotation(g, clk, 0);
	bit = d + 1 < size ? find_next_bit(occ, size, d + 1) : size;
	if (bit < size) {
		best = first | bit;
	} else {
		/* None in clk's rotation: the ticks after it, below clk's digit. */
		bit = find_first_bit(occ, d);
		if (bit < d)
			best = first + size + bit;
	}

	for (lvl = 1; lvl < g->levels; lvl++) {
		shift = hwt_lvl_shift(g, lvl);
		/* This level's first boundary after @clk, as for every coarser one. */
		first = hwt_rotation(g, clk, lvl - 1) + BIT_ULL(shift);
		if (first >= best || first <= clk)
			break;
		d = hwt_digit(g, clk, lvl);
		m = d == HWT_LVL_MASK ? 0 : hwt_occ_word(g, occ, lvl) & (~0ULL << (d + 1));
		if (m)
			best = min(best, hwt_rotation(g, clk, lvl) | (u64)__ffs64(m) << shift);
	}
	return best;
}

/**
 * hwt_event_slot() - the next occupied slot that begins at a tick
 * @g: the wheel's geometry
 * @occ: its occupancy bitmap
 * @clk: the wheel's clock, set to the tick: the next event it moved to
 * @lvl: the level to look from; set to the level of the slot found
 *
 * The slots that begin at @clk, at most one per level: a level's slot of
 * @clk's digit, at the levels whose boundary @clk is (every level up to
 * the first it is not). Levels from *@lvl up.
 *
 * Return: the slot's index, or -1 when none is left.
 */
static __always_inline int hwt_event_slot(const struct hwt_geom *g, const unsigned long *occ,
					  u64 clk, unsigned int *lvl)
{
	unsigned int idx;

	for (; *lvl < g->levels; (*lvl)++) {
		if (clk & (BIT_ULL(hwt_lvl_shift(g, *lvl)) - 1))
			break;
		idx = hwt_lvl_off(g, *lvl) + hwt_digit(g, clk, *lvl);
		if (test_bit(idx, occ))
			return idx;
	}
	return -1;
}

/*
 * Whether (I3) is broken: the wheel, not in a pass, has an occupied slot
 * that begins before @armed, the tick its driver is armed for (U64_MAX
 * when it is not). Checked only where HWT_CHECK_DRIVER is true: kernels
 * with CONFIG_DEBUG_OBJECTS_TIMERS, and the user-space simulation.
 */
#ifndef HWT_CHECK_DRIVER
#define HWT_CHECK_DRIVER IS_ENABLED(CONFIG_DEBUG_OBJECTS_TIMERS)
#endif
static inline bool hwt_driver_late(const struct hwt_geom *g, const unsigned long *occ, u64 clk,
				   u64 armed)
{
	return HWT_CHECK_DRIVER && armed > hwt_next_event(g, occ, clk);
}

/*
 * Move an idle wheel's clock up to @now_tick, when no work comes before it:
 * @bound is a tick at or before the wheel's next event. Only ticks with
 * nothing to do are skipped, so timers armed next are placed relative to
 * the present, at the lowest level their distance allows.
 */
static __always_inline void hwt_forward(u64 *clk, u64 now_tick, u64 bound)
{
	if (*clk < now_tick && bound > now_tick)
		*clk = now_tick;
}

#endif /* _HWTIMER_WHEEL_H */
