// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: each file's own timing wheel, its clock, and the one
 * hwtimer per file that drives it.
 *
 * The wheel
 * ---------
 * A file's timeouts wait in a wheel of its own (hwtimer_wheel.h, the same
 * algorithm as the per-CPU bases): 11 levels of 64 slots, each slot a
 * circular list of timeouts linked by index (hwtimer_dev_table.h), each
 * level with a bitmap word of its occupied slots. The wheel's clock @clk
 * is a tick of the per-CPU wheel of the file's precision and clock (the
 * same tick and epoch, so a tick boundary of the file is one of that
 * wheel too). When the clock moves to the next event, the slots that
 * begin at it are spliced whole, in O(1), onto the todo list
 * (hwtd_advance()), from which an expiry pass takes each timeout: due, or
 * re-placed in a lower level (hwtd_wheel_take_due()). A modify whose new
 * tick its slot still serves leaves the timeout there (hwtd_wheel_extend()).
 *
 * The driving timer
 * -----------------
 * One struct hwtimer per file (@timer), on the per-CPU wheel of the
 * file's precision and clock, is armed for the start of the earliest
 * occupied slot or earlier (@armed): (I3) of hwtimer_wheel.h. Arming a
 * timeout touches the per-CPU wheel only when the slot it fills begins
 * before @armed; cancelling never does (an expiry that finds nothing due
 * re-arms for the next tick with work). Its callback
 * runs an expiry pass, which the layer of records drives
 * (hwtimer_dev_records.c): the wheel gives it the due timeouts up to the
 * pass's target tick, and is re-armed when the pass ends.
 *
 * Clocks
 * ------
 * Every time the device takes or gives is on the file's clock, as the
 * calling task's time namespace shows it; inside, times are host times
 * of that clock (hwtd_clock_now()).
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/time_namespace.h>

#include "hwtimer_dev_table.h"
#include "hwtimer_dev_wheel.h"

/* The file's wheel: 64 slots at level 0, as hwt_geom_init(&g, 64) makes it. */
static const struct hwt_geom hwtd_geom = {
	.lvl0_bits = HWTD_LVL0_BITS,
	.lvl0_slots = BIT(HWTD_LVL0_BITS),
	.levels = HWTD_LEVELS,
	.lvl1_off = HWTD_LVL1_OFF,
	.nslots = HWTD_NSLOTS,
};

/* ---- clocks ------------------------------------------------------------------ */

/*
 * Clocks and time namespaces. Every time the device takes or gives is on
 * the file's clock (CLOCK_MONOTONIC, or CLOCK_BOOTTIME after
 * HWTIMER_IOC_CONFIG) as the calling task's time namespace shows it, the
 * clock clock_gettime() shows it; inside, deadlines are host times of that
 * clock, which the file's wheel runs on, stored unclamped. Each call
 * converts with the namespace of the task that makes it, as
 * timerfd_settime() and clock_gettime() do; records written to the ring
 * by an expiry carry the times of the namespace of the task that made the
 * ring. Limits (INT64_MAX) are checked in the caller's namespace time.
 *
 * timens_ktime_to_host() cannot serve: it calls do_timens_ktime_to_host()
 * and compares with init_time_ns, neither of which is exported to modules.
 * timens_add_monotonic() and timens_add_boottime() are inline and only
 * read the caller's offsets.
 */

/**
 * hwtd_timens_offset() - the caller's time namespace offset of a clock
 * @boottime: of CLOCK_BOOTTIME, else CLOCK_MONOTONIC
 *
 * Context: process (the current task's namespace).
 * Return: namespace time minus host time, ns.
 */
s64 hwtd_timens_offset(bool boottime)
{
	struct timespec64 ts = { };

	if (boottime)
		timens_add_boottime(&ts);
	else
		timens_add_monotonic(&ts);
	return timespec64_to_ns(&ts);
}

/**
 * hwtd_clock_now() - the file's clock now, host time
 * @file: the file
 *
 * Context: any.
 * Return: ns of CLOCK_MONOTONIC or CLOCK_BOOTTIME.
 */
u64 hwtd_clock_now(const struct hwtd_file *file)
{
	/* Pairs with hwtd_kunit_run()'s WRITE_ONCE(): a value, no order. */
	if (hwtd_is_manual(file))
		return READ_ONCE(file->manual_now);
	/* Under the lock, or in a batch while @nbusy holds it (hwtd_batch()). */
	return file->boottime ? ktime_get_boottime_ns() : ktime_get_ns();
}

/* ---- ticks ------------------------------------------------------------------ */

/*
 * The tick a timeout with @deadline and @slack expires at: the first tick
 * that begins at or after @deadline, or with slack the tick of its window
 * that the wheel picks (hwt_slack_tick()), as the per-CPU wheels do.
 */
static __always_inline u64 __hwtd_tick(const struct hwtd_file *file, u64 deadline, u64 slack)
{
	u64 first = hwt_expiry_tick(&file->time, deadline);

	return hwt_slack_tick(&file->time, deadline, first, slack, file->clk + 1);
}

/* ---- the wheel ---------------------------------------------------------------- */

/*
 * Put pending timeout @idx, @s, its tick set, in its slot. Return: false
 * if it is due (its tick has been processed): then it is on no list. The
 * caller's @s, not the index looked up again: with no strict aliasing,
 * every store of the caller's makes the compiler reload the table's
 * pointers for that.
 */
static __always_inline bool hwtd_place(struct hwtd_file *file, struct hwtd_timeout *s,
				       u32 idx)
{
	unsigned int slot;
	u64 start;

	hwtd_lockdep_assert(file);
	s->state = HWTD_PENDING;
	if (hwtd_due(file, s))
		return false;
	slot = hwt_slot(&hwtd_geom, s->tick, file->clk, &start);
	s->slot = slot;
	hwtd_list_add_link(file, slot, idx, &s->link);
	__set_bit(slot, file->occupied);
	if (start < file->next_event)
		file->next_event = start;
	return true;
}

/**
 * hwtd_next_event() - the earliest tick at which the wheel may have work
 * @file: the file
 *
 * hwt_next_event(): the start of the first occupied slot. The todo list
 * is not looked at.
 *
 * Context: the file lock held.
 * Return: that tick, after the wheel's clock, or U64_MAX when the wheel is
 * empty.
 */
u64 hwtd_next_event(struct hwtd_file *file)
{
	return hwt_next_event(&hwtd_geom, file->occupied, file->clk);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_next_event);

/*
 * Move the wheel's clock to @ev, its next event: the slots that begin at
 * it (hwt_event_slot(), one per level at most) go onto the todo list, in
 * O(1) each.
 */
static void hwtd_advance(struct hwtd_file *file, u64 ev)
{
	unsigned int lvl = 0;
	int slot;

	file->clk = ev;
	while ((slot = hwt_event_slot(&hwtd_geom, file->occupied, ev, &lvl)) >= 0) {
		__clear_bit(slot, file->occupied);
		hwtd_list_splice(file, HWTD_LIST_TODO, slot);
		lvl++;
	}
}

/*
 * Move an idle wheel's clock up to now (hwt_forward()): not during a pass,
 * and only past ticks before the start of the earliest occupied slot
 * (@next_event). Not the tick the driving timer is armed for: that is the
 * tick of a timeout, which may wait in a slot that begins before it.
 */
static void hwtd_forward(struct hwtd_file *file, u64 now)
{
	hwtd_lockdep_assert(file);
	if (!file->processing)
		hwt_forward(&file->clk, hwt_now_tick(&file->time, now), file->next_event);
}

/*
 * Whether the driving timer is armed for a tick that has begun by @now:
 * its pass is due, and will run the wheel up to the tick it begins in,
 * through every slot that has begun.
 */
static __always_inline bool hwtd_driver_due(const struct hwtd_file *file, u64 now)
{
	return file->armed != U64_MAX && hwt_tick_start(&file->time, file->armed) <= now;
}

/*
 * (I3) of hwtimer_wheel.h, in kernels that check it: not during a pass,
 * nor once the file closes or for a KUnit file, which has no driver; and
 * kept too by a driver whose pass is due (hwtd_arm_placed()).
 */
static void hwtd_check_driver(struct hwtd_file *file, u64 now)
{
	hwtd_lockdep_assert(file);
	if (!file->processing && !file->closing && !hwtd_is_manual(file))
		WARN_ON_ONCE(hwt_driver_late(&hwtd_geom, file->occupied, file->clk, file->armed) &&
			     !hwtd_driver_due(file, now));
}

/* Arm the driving timer for @tick; @now is the file's clock, read before. */
static void hwtd_arm_timer(struct hwtd_file *file, u64 tick, u64 now)
{
	int ret;

	hwtd_lockdep_assert(file);
	file->armed = tick;
	if (hwtd_is_manual(file) || file->closing)
		return;
	ret = hwtimer_modify_at(file->timer, hwt_tick_start(&file->time, tick), now);
	/* The device's wheels have no cap, and outlive every file. */
	WARN_ON_ONCE(ret < 0);
}

/*
 * Arm the driving timer when a placement filled a slot that begins before
 * the tick it is armed for (@next_event is at or before that slot's
 * start), keeping (I3) of hwtimer_wheel.h; not during a pass, which arms
 * it when it ends. Not for the timeout's own tick: a modify may leave the
 * timeout in its slot with an earlier tick (hwtd_wheel_extend()). Nor
 * when the driver's tick has begun (its per-CPU wheel has yet to run the
 * callback): that pass takes the slot, while a driver moved to this CPU,
 * whose per-CPU wheel has processed the present tick, would wait for the
 * next one, and every timeout already due with it.
 */
static __always_inline void hwtd_arm_placed(struct hwtd_file *file, u64 now)
{
	if (!file->processing && file->next_event < file->armed && !hwtd_driver_due(file, now))
		hwtd_arm_timer(file, file->next_event, now);
	hwtd_check_driver(file, now);
}

/*
 * hwtd_wheel_take_due() (hwtimer_dev_wheel.h) whatever the todo list
 * holds: the wheel's moves, the cascades, the budget's end.
 */
u32 __hwtd_wheel_take_due(struct hwtd_file *file, unsigned int *budget, bool *done)
{
	u64 ev;
	u32 idx;

	hwtd_lockdep_assert(file);
	*done = false;
	while (*budget) {
		(*budget)--;
		idx = hwtd_list_first(file, HWTD_LIST_TODO);
		if (idx == HWTD_NIL) {
			ev = hwtd_next_event(file);
			if (ev > file->target) {
				if (file->clk < file->target)
					file->clk = file->target;
				(*budget)++;
				*done = true;
				return HWTD_NIL;
			}
			hwtd_advance(file, ev);
			continue;
		}
		hwtd_list_del(file, idx);
		if (!hwtd_place(file, hwtd_timeout_at(file, idx), idx))
			return idx;
		file->cascaded++;
	}
	return HWTD_NIL;
}

/**
 * hwtd_wheel_start() - put a pending timeout in the wheel
 * @file: the file
 * @idx: the timeout, its deadline set, on no list
 * @slack: its slack, ns
 * @now: host time of the file's clock, read under the lock or before
 *
 * Arms the driving timer when this is the earliest tick it has.
 *
 * Context: the file lock held.
 * Return: false when it is placed; true when it is due (at or before @now,
 * or on a tick the wheel has passed): then it is pending on no list, and
 * the caller delivers its record.
 */
bool hwtd_wheel_start(struct hwtd_file *file, u32 idx, u64 slack, u64 now)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);

	hwtd_lockdep_assert(file);
	if (s->deadline <= now) {
		s->state = HWTD_PENDING;
		return true;
	}
	hwtd_forward(file, now);
	s->tick = __hwtd_tick(file, s->deadline, slack);
	if (!hwtd_place(file, s, idx))
		return true;
	hwtd_arm_placed(file, now);
	return false;
}

/**
 * hwtd_wheel_rearm() - arm a periodic timeout for its next deadline
 * @file: the file
 * @idx: the timeout, on no list, its new deadline set, after @now
 * @slack: its slack, ns
 * @now: host time of the file's clock, read under the lock
 *
 * Context: the file lock held.
 */
void hwtd_wheel_rearm(struct hwtd_file *file, u32 idx, u64 slack, u64 now)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);

	s->tick = __hwtd_tick(file, s->deadline, slack);
	if (WARN_ON_ONCE(!hwtd_place(file, s, idx))) {
		/* Never: the deadline is after @now. Let the next pass expire it. */
		hwtd_list_add(file, HWTD_LIST_TODO, idx);
		return;
	}
	hwtd_arm_placed(file, now);
}

/**
 * hwtd_wheel_extend() - give a pending timeout a new tick without moving it
 * @file: the file
 * @idx: the timeout, its new deadline set
 * @slack: its slack, ns
 * @now: host time of the file's clock, read under the lock or before
 *
 * A modify whose new tick its slot still serves (hwt_can_stay_at(): the
 * same slot, or a later tick in a slot above level 0) leaves the timeout
 * there, or on the todo list, and only sets its tick: the slot begins at
 * or before the new tick, so the expiry pass takes it out by then and
 * re-places it by its tick (hwtd_wheel_take_due()), and the driving timer
 * is armed for that slot's start or earlier already ((I3) of
 * hwtimer_wheel.h; in a pass, the pass arms it when it ends). A timeout
 * extended again and again is re-placed once per slot it waits in, not
 * once per modify, and such a modify touches no other timeout. On the todo
 * list its @slot is the one it came from, which began at the wheel's
 * clock: never the slot of a tick to come, so only a later tick stays
 * there.
 *
 * Context: the file lock held.
 * Return: true if it did so; false, having changed nothing, when the
 * timeout is not pending, is due, or must move: then the caller takes it
 * out and starts it again (hwtd_wheel_start()).
 */
bool hwtd_wheel_extend(struct hwtd_file *file, u32 idx, u64 slack, u64 now)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);
	u64 tick;

	hwtd_lockdep_assert(file);
	if (s->state != HWTD_PENDING || s->deadline <= now)
		return false;
	tick = __hwtd_tick(file, s->deadline, slack);
	/* A pass whose clock is later than @now may have processed it. */
	if (tick <= file->clk)
		return false;
	if (!hwt_can_stay_at(&hwtd_geom, s->slot, s->tick, tick, file->clk))
		return false;
	s->tick = tick;
	hwtd_check_driver(file, now);
	return true;
}

/* ---- expiry passes -------------------------------------------------------- */

/**
 * hwtd_wheel_pass_begin() - an expiry pass begins
 * @file: the file
 *
 * Until it ends, the driving timer is not armed (the pass arms it when it
 * ends) and the wheel's clock does not move but for the pass.
 *
 * Context: the file lock held.
 * Return: false, with nothing done, if a pass is under way or the file
 * closes.
 */
bool hwtd_wheel_pass_begin(struct hwtd_file *file)
{
	hwtd_lockdep_assert(file);
	if (file->closing || file->processing)
		return false;
	file->processing = true;
	file->armed = U64_MAX;
	file->target = HWTD_NO_TARGET;
	return true;
}

/**
 * hwtd_wheel_pass_target() - the pass learns its target
 * @file: the file, in a pass
 * @now: the clock of the pass's first hold of the file lock
 *
 * The target is the tick that contains @now: the pass runs the wheel up
 * to it and no further. Only the first call of a pass sets it.
 *
 * Context: the file lock held.
 */
void hwtd_wheel_pass_target(struct hwtd_file *file, u64 now)
{
	if (file->target == HWTD_NO_TARGET)
		file->target = hwt_now_tick(&file->time, now);
}

/**
 * hwtd_wheel_pass_end() - the pass is done
 * @file: the file
 * @now: the file's clock, read under the lock
 *
 * The next pass begins when the driving timer fires, at the earliest tick
 * with work, which is after the pass's target: so a file's passes are at
 * least a tick apart, however much is due.
 *
 * Context: the file lock held.
 */
void hwtd_wheel_pass_end(struct hwtd_file *file, u64 now)
{
	u64 ev;

	file->processing = false;
	ev = hwtd_next_event(file);
	file->next_event = ev;
	if (ev != U64_MAX)
		hwtd_arm_timer(file, ev, now);
	hwtd_check_driver(file, now);
}

/* ---- the driving timer ---------------------------------------------------- */

/**
 * hwtd_wheel_timers_init() - set up the file's driving timers
 * @file: the file
 * @wheels: the device's wheels, by precision and clock
 * @fn: their callback, which runs an expiry pass (hwtimer_dev_records.c)
 *
 * A file has a timer on each of the device's wheels, of which the one of
 * its configuration is in use (@timer): changing the configuration never
 * sets up a timer whose callback may still be running.
 *
 * Context: process, before the file is in use.
 */
void hwtd_wheel_timers_init(struct hwtd_file *file,
			    struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS],
			    hwtimer_fn_t fn)
{
	unsigned int p, c;

	for (p = 0; p < HWTD_PRECISIONS; p++) {
		for (c = 0; c < HWTD_CLOCKS; c++) {
			hwtimer_setup(&file->timers[p][c].timer, wheels[p][c], fn);
			file->timers[p][c].file = file;
		}
	}
	file->timer = &file->timers[0][0].timer;
	file->armed = U64_MAX;
}

/**
 * hwtd_wheel_configure() - run the file's wheel at a precision and clock
 * @file: the file, which holds no timeout
 * @wheels: the device's wheels, by precision and clock
 * @precision: HWTIMER_PRECISION_*
 * @clock: 0 for CLOCK_MONOTONIC, 1 for CLOCK_BOOTTIME
 *
 * The wheel takes the ticks of that precision's and clock's per-CPU wheel
 * and its driving timer there; its clock starts afresh, and a pass under
 * way has nothing left to do, in any tick numbering. The driving timer in
 * use is cancelled; a callback of it that runs meanwhile finds nothing to
 * do, as any early expiry does.
 *
 * Context: the file lock held, or the file not yet in use.
 */
void hwtd_wheel_configure(struct hwtd_file *file,
			  struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS],
			  unsigned int precision, unsigned int clock)
{
	if (!hwtd_is_manual(file))
		hwtimer_cancel(file->timer);
	file->pcpu_wheel = wheels[precision][clock];
	hwt_time_init(&file->time, hwtimer_wheel_epoch_ns(file->pcpu_wheel),
		      hwtimer_wheel_tick_ns(file->pcpu_wheel));
	file->precision = precision;
	file->boottime = clock;
	file->timer = &file->timers[precision][clock].timer;
	file->armed = U64_MAX;
	file->next_event = U64_MAX;
	file->clk = 0;
	file->target = 0;
}

/**
 * hwtd_wheel_stop() - stop the file's driving timers for good
 * @file: the file, being released
 *
 * After it, no callback of them runs or will run, and nothing arms them.
 *
 * Context: process; may sleep.
 */
void hwtd_wheel_stop(struct hwtd_file *file)
{
	unsigned int p, c;

	spin_lock_bh(&file->lock);
	file->closing = true;
	spin_unlock_bh(&file->lock);
	if (hwtd_is_manual(file))
		return;
	for (p = 0; p < HWTD_PRECISIONS; p++)
		for (c = 0; c < HWTD_CLOCKS; c++)
			hwtimer_shutdown_sync(&file->timers[p][c].timer);
}
