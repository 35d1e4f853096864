// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: each file's own hierarchical timing wheel, and the one
 * hwtimer per file that drives it.
 *
 * The wheel
 * ---------
 * A file's timeouts wait in its own wheel (timeout.c's design): 11 levels
 * of 64 buckets, each bucket a circular list of slots linked by index, each
 * level with a u64 bitmap of its non-empty buckets. The wheel's clock @clk
 * is a tick of the file's precision wheel (the same @tick_ns and @epoch,
 * so a tick boundary of the file is one of the per-CPU wheel too). A
 * timeout expiring at tick t > @clk is in level L, the 6-bit group of the
 * highest bit in which t and @clk differ, bucket (t >> 6L) & 63: its
 * bucket's range of ticks begins after @clk, in @clk's current rotation of
 * that level. So the earliest tick with work is found from the bitmaps in
 * 11 steps (hwtd_next_event()), and when the clock reaches the start of a
 * bucket, the whole bucket is spliced, in O(1), onto the todo list
 * (hwtd_advance()), whose timeouts then expire (t <= @clk) or go one or
 * more levels down: a timeout is touched at most once per level in its
 * life, and a tick touches only what is due or cascades. A modify to a
 * later tick leaves the timeout where it is (hwtd_extend()): its bucket
 * begins at or before the old tick, and the timeout is re-placed from
 * there as a cascade would, once more per bucket it was extended past.
 *
 * Driving it
 * ----------
 * One struct hwtimer per file (@timer), on the per-CPU wheel of the
 * file's precision and clock, is armed for the earliest tick that may
 * have work (@armed). Arming a timeout touches the per-CPU wheel only when
 * its tick is earlier than @armed; cancelling never does (an expiry that
 * finds nothing due re-arms for the next tick with work).
 *
 * The callback begins an expiry pass: it runs the file's wheel up to the
 * pass's target, the tick that contained the clock when the pass began,
 * under the file lock, HWTD_CHUNK entries per hold (expired, cascaded, or
 * records moved from the kernel queue to the ring), the lock dropped
 * between holds. In softirq context it stops after the first hold that
 * ends past the budget of the per-CPU wheel's pass running it
 * (hwt_pass_end(): HWT_PASS_NS from that pass's start, the callbacks it
 * ran before this one included) and hands the rest to @work, on the
 * device's unbound workqueue (hwtd_wq), which goes on in slices of
 * HWT_PASS_NS, queueing itself again behind the other work between two
 * slices. When nothing up to the target is left, the pass arms @timer
 * for the next tick with work, which is after the target.
 *
 * So a pass expires each timeout once at most (a periodic timeout whose
 * record leaves during the pass is armed for a period that ends after
 * the hold's clock, so after the target), a file runs one pass at a time,
 * on one CPU at a time, and what comes due during a pass waits for the
 * next one, a tick later at the earliest: however fast a user consumes
 * the records of periodic timeouts, a file costs the kernel one expiry
 * per timeout per period at most, in slices that yield, on no CPU's
 * per-CPU work. @expiry_ns adds up the time its passes take (fdinfo).
 *
 * Records stamped in one hold share its clock reading, and each hold reads
 * the clock again: records leave in non-decreasing order of expired_ns,
 * timeouts of different ticks in tick order (the pass advances @clk to one
 * next tick with work at a time).
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>

#include "hwtimer_internal.h"
#include "hwtimer_dev.h"

/* ---- lists ---------------------------------------------------------------- */

/* Every list empty: each sentinel linked to itself. */
void hwtd_lists_init(struct hwtd_file *hf)
{
	u32 i;

	for (i = 0; i < HWTD_NLISTS; i++) {
		hf->sent[i].next = HWTD_SENT | i;
		hf->sent[i].prev = HWTD_SENT | i;
	}
}

static bool hwtd_list_empty(struct hwtd_file *hf, u32 list)
{
	return hf->sent[list].next == (HWTD_SENT | list);
}

/* Move every slot of @src to the tail of @dst; @src ends empty. */
static void hwtd_list_splice(struct hwtd_file *hf, u32 dst, u32 src)
{
	struct hwtd_link *s = &hf->sent[src], *d = &hf->sent[dst];
	u32 first = s->next, last = s->prev, tail = d->prev;

	if (first == (HWTD_SENT | src))
		return;
	hwtd_link(hf, tail)->next = first;
	hwtd_link(hf, first)->prev = tail;
	hwtd_link(hf, last)->next = HWTD_SENT | dst;
	d->prev = last;
	s->next = HWTD_SENT | src;
	s->prev = HWTD_SENT | src;
}

/* ---- ticks ------------------------------------------------------------------ */

/*
 * @d / @tick_ns, rounded down, with a multiply by the reciprocal: it is at
 * most two short, which the loop makes up (a division costs as much as the
 * rest of an arm).
 */
static u64 hwtd_div_tick(const struct hwtd_file *hf, u64 d)
{
	u64 q = mul_u64_u64_shr(d, hf->tick_inv, 64), r = d - q * hf->tick_ns;

	while (r >= hf->tick_ns) {
		q++;
		r -= hf->tick_ns;
	}
	return q;
}

/* The tick that contains @now: every tick up to it has begun. */
static u64 hwtd_now_tick(const struct hwtd_file *hf, u64 now)
{
	if (now <= hf->epoch)
		return 0;
	return hwtd_div_tick(hf, now - hf->epoch);
}

/*
 * The tick a timeout with @deadline and @slack expires at. With no slack,
 * the first tick that begins at or after @deadline. With slack, among the
 * ticks from that one (or the wheel's next, if later) to the last that
 * begins by @deadline + @slack, the one with the most trailing zero bits,
 * as the per-CPU wheel picks it (hwt_slack_tick()): timeouts whose windows
 * overlap tend to share it, so the file's timer wakes less often. Never
 * before @deadline's tick, so never early.
 */
static __always_inline u64 __hwtd_tick(const struct hwtd_file *hf, u64 deadline, u64 slack)
{
	u64 first, d;

	if (deadline <= hf->epoch)
		return 0;
	d = deadline - hf->epoch;
	first = hwtd_div_tick(hf, d);
	if (first * hf->tick_ns < d)
		first++;
	if (!slack)
		return first;
	return hwt_window_tick(first, max(first, hf->clk + 1),
			       hwtd_now_tick(hf, deadline + min(slack, U64_MAX - deadline)));
}

/* The above, out of line, for the re-arm of a periodic timeout. */
u64 hwtd_tick(const struct hwtd_file *hf, u64 deadline, u64 slack)
{
	return __hwtd_tick(hf, deadline, slack);
}

/* When tick @tick begins, host ns, at most KTIME_MAX. */
static u64 hwtd_tick_time(const struct hwtd_file *hf, u64 tick)
{
	if (hf->epoch > (u64)KTIME_MAX ||
	    tick > div64_u64((u64)KTIME_MAX - hf->epoch, hf->tick_ns))
		return KTIME_MAX;
	return hf->epoch + tick * hf->tick_ns;
}

/* ---- the wheel ---------------------------------------------------------------- */

static unsigned int hwtd_shift(unsigned int lvl)
{
	return lvl * HWTD_LVL_BITS;
}

/* @t and @clk are in the same rotation of level @lvl (same higher bits). */
static bool hwtd_same_rotation(u64 t, u64 clk, unsigned int lvl)
{
	unsigned int s = hwtd_shift(lvl) + HWTD_LVL_BITS;

	return s >= 64 || (t >> s) == (clk >> s);
}

/* hwtd_place(), inline for hwtd_start() and the expiry pass. */
static __always_inline bool __hwtd_place(struct hwtd_file *hf, u32 idx)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);
	unsigned int lvl, digit;
	u64 t = s->tick;

	hwtd_lockdep_assert(hf);
	s->state = HWTD_PENDING;
	if (t <= hf->clk)
		return false;
	lvl = (fls64(t ^ hf->clk) - 1) / HWTD_LVL_BITS;
	digit = (t >> hwtd_shift(lvl)) & (HWTD_LVL_SIZE - 1);
	hwtd_list_add(hf, lvl * HWTD_LVL_SIZE + digit, idx);
	hf->occupied[lvl] |= BIT_ULL(digit);
	return true;
}

/**
 * hwtd_place() - put a pending timeout in its bucket
 * @hf: the file
 * @idx: the slot, on no list, with its @tick set
 *
 * Context: the file lock held.
 * Return: true if it was placed (its tick is after the wheel's clock),
 * false if it is due: then it is on no list, and the caller expires it.
 */
bool hwtd_place(struct hwtd_file *hf, u32 idx)
{
	return __hwtd_place(hf, idx);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_place);

/* The buckets of level @lvl after the wheel clock's own: all of them. */
static u64 hwtd_above(u64 clk, unsigned int lvl)
{
	unsigned int digit = (clk >> hwtd_shift(lvl)) & (HWTD_LVL_SIZE - 1);

	return digit == HWTD_LVL_SIZE - 1 ? 0 : ~0ULL << (digit + 1);
}

/**
 * hwtd_next_event() - the earliest tick at which the wheel may have work
 * @hf: the file
 *
 * The start of the first non-empty bucket: the exact tick for level 0, a
 * cascade for higher levels. The todo list is not looked at.
 *
 * Context: the file lock held.
 * Return: that tick, after the wheel's clock, or U64_MAX when the wheel is
 * empty.
 */
u64 hwtd_next_event(struct hwtd_file *hf)
{
	u64 best = U64_MAX, clk = hf->clk, m, start;
	unsigned int lvl, s;

	for (lvl = 0; lvl < HWTD_LEVELS; lvl++) {
		m = hf->occupied[lvl] & hwtd_above(clk, lvl);
		if (WARN_ON_ONCE(m != hf->occupied[lvl]))
			m = hf->occupied[lvl];
		if (!m)
			continue;
		s = hwtd_shift(lvl);
		start = s + HWTD_LVL_BITS >= 64 ? 0 :
			(clk >> (s + HWTD_LVL_BITS)) << (s + HWTD_LVL_BITS);
		start |= (u64)__ffs64(m) << s;
		if (start < best)
			best = start;
	}
	return best;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_next_event);

/*
 * Move the wheel's clock to @target, after it: every bucket whose range
 * has begun by @target goes onto the todo list, level 0 first. At most
 * HWTD_NBUCKETS splices, each O(1).
 */
static void hwtd_advance(struct hwtd_file *hf, u64 target)
{
	unsigned int lvl, d;
	u64 take, dt;

	for (lvl = 0; lvl < HWTD_LEVELS; lvl++) {
		if (!hf->occupied[lvl])
			continue;
		if (hwtd_same_rotation(target, hf->clk, lvl)) {
			/* The buckets up to @target's own. */
			dt = (target >> hwtd_shift(lvl)) & (HWTD_LVL_SIZE - 1);
			take = hf->occupied[lvl] &
			       (dt == HWTD_LVL_SIZE - 1 ? ~0ULL : BIT_ULL(dt + 1) - 1);
		} else {
			/* The clock left this rotation: all of it has begun. */
			take = hf->occupied[lvl];
		}
		hf->occupied[lvl] &= ~take;
		while (take) {
			d = __ffs64(take);
			take &= take - 1;
			hwtd_list_splice(hf, HWTD_LIST_TODO, lvl * HWTD_LVL_SIZE + d);
		}
	}
	hf->clk = target;
}

/**
 * hwtd_forward() - move an idle wheel's clock up to now
 * @hf: the file
 * @now: host time of the file's clock
 *
 * Only when no bucket begins by now and nothing is on the todo list, so
 * nothing is skipped; then timeouts armed next are placed relative to the
 * present, at the lowest level their distance allows.
 *
 * Context: the file lock held.
 */
static void hwtd_forward(struct hwtd_file *hf, u64 now)
{
	u64 tick = hwtd_now_tick(hf, now);

	hwtd_lockdep_assert(hf);
	if (tick > hf->clk && !hf->processing &&
	    hwtd_list_empty(hf, HWTD_LIST_TODO) && hwtd_next_event(hf) > tick)
		hf->clk = tick;
}

/**
 * hwtd_expire() - run the wheel up to a tick
 * @hf: the file
 * @hold: this hold of the file lock
 * @target: the last tick to process: the tick that contained the clock
 *          when the expiry pass began (struct hwtd_file, @target)
 * @budget: entries this hold may still process; decremented
 *
 * Expires what is due and cascades what has reached its bucket, one next
 * tick with work at a time, each advance and each entry taken off the
 * todo list costing one unit of *@budget. A periodic timeout whose record
 * leaves meanwhile is armed for a tick after @target, so a pass expires
 * each timeout at most once.
 *
 * Context: the file lock held.
 * Return: true when nothing up to @target is left to do.
 */
bool hwtd_expire(struct hwtd_file *hf, struct hwtd_hold *hold, u64 target,
		 unsigned int *budget)
{
	u64 ev;
	u32 idx;

	hwtd_lockdep_assert(hf);
	while (*budget) {
		idx = hwtd_list_first(hf, HWTD_LIST_TODO);
		if (idx == HWTD_NIL) {
			ev = hwtd_next_event(hf);
			if (ev > target) {
				if (hf->clk < target)
					hf->clk = target;
				return true;
			}
			hwtd_advance(hf, ev);
		} else {
			hwtd_list_del(hf, idx);
			if (!__hwtd_place(hf, idx))
				hwtd_deliver(hf, hold, idx);
		}
		(*budget)--;
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_expire);

/**
 * hwtd_start() - put a pending timeout in the wheel, or expire it if due
 * @hf: the file
 * @hold: this hold of the file lock
 * @idx: the timeout's slot, its deadline set
 * @slack: its slack, ns
 * @now: host time of the file's clock, read under the lock or before
 *
 * Expires it at once if it is due: at or before @now, or on a tick the
 * wheel has passed. Arms the file's timer when this is the earliest tick
 * it has. Here, next to the wheel steps it uses (forward, tick, bucket),
 * so that they are inlined into it.
 *
 * Context: the file lock held.
 */
void hwtd_start(struct hwtd_file *hf, struct hwtd_hold *hold, u32 idx, u64 slack, u64 now)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);

	hwtd_lockdep_assert(hf);
	if (s->deadline <= now) {
		s->state = HWTD_PENDING;
		hwtd_deliver(hf, hold, idx);
		return;
	}
	hwtd_forward(hf, now);
	s->tick = __hwtd_tick(hf, s->deadline, slack);
	if (!__hwtd_place(hf, idx))
		hwtd_deliver(hf, hold, idx);
	else if (!hf->processing && s->tick < hf->armed)
		hwtd_arm_timer(hf, s->tick, now);
}

/**
 * hwtd_extend() - move a pending timeout's tick later without moving it
 * @hf: the file
 * @idx: the timeout's slot, its new deadline set
 * @slack: its slack, ns
 * @now: host time of the file's clock, read under the lock or before
 *
 * A modify whose new tick is not before the old one leaves the timeout in
 * its bucket (or on the todo list) and only sets its tick: the bucket's
 * range begins at or before the old tick, so the expiry pass takes it out
 * by then and re-places it by its tick, as it does a cascade
 * (hwtd_expire()), and the file's timer is armed for a tick at or before
 * the old one already. A timeout extended again and again is re-placed
 * once per bucket it waits in, not once per modify, and such a modify
 * touches no slot but its own.
 *
 * Context: the file lock held.
 * Return: true if it did so; false, having changed nothing, when the
 * timeout is not pending, is due, or its tick moves earlier: then the
 * caller takes it out and hwtd_start()s it.
 */
bool hwtd_extend(struct hwtd_file *hf, u32 idx, u64 slack, u64 now)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);
	u64 tick;

	hwtd_lockdep_assert(hf);
	if (s->state != HWTD_PENDING || s->deadline <= now)
		return false;
	tick = __hwtd_tick(hf, s->deadline, slack);
	if (tick < s->tick)
		return false;
	s->tick = tick;
	return true;
}

/* ---- the file's timer ---------------------------------------------------------- */

/**
 * hwtd_arm_timer() - arm the file's timer for a tick
 * @hf: the file
 * @tick: the tick
 * @now: host time of the file's clock, read under the lock or before
 *
 * Context: the file lock held (the wheel's base lock nests inside).
 */
void hwtd_arm_timer(struct hwtd_file *hf, u64 tick, u64 now)
{
	int ret;

	hwtd_lockdep_assert(hf);
	if (hf->manual || hf->closing)
		return;
	ret = hwt_modify_abs_at(hf->timer, hwtd_tick_time(hf, tick), now);
	/* The device's wheels have no cap, and outlive every file. */
	WARN_ON_ONCE(ret < 0);
	hf->armed = tick;
}

/*
 * Go on with the file's expiry pass: hold the file lock for one chunk of
 * work at a time (HWTD_CHUNK records moved from the kernel queue to the
 * ring, and HWTD_CHUNK entries expired or cascaded up to @target), until
 * nothing up to @target is left or, after a hold, local_clock() is past
 * @end. Between holds the lock is dropped, the waiters woken and, in
 * process context (@can_sleep), the CPU offered to others. The first hold
 * reads the clock; a pass that has no target yet (%HWTD_NO_TARGET) takes
 * the tick that contains it.
 *
 * Context: the file lock held, *@hold zeroed; returns with it held and
 * *@hold the last hold, ended but not yet woken.
 * Return: true when the pass is done (or the file is closing).
 */
static bool hwtd_pass_holds(struct hwtd_file *hf, struct hwtd_hold *hold, u64 end,
			    bool can_sleep)
	__must_hold(&hf->lock)
{
	unsigned int budget;
	bool done;

	for (;;) {
		if (hf->target == HWTD_NO_TARGET)
			hf->target = hwtd_now_tick(hf, hwtd_hold_now(hf, hold));
		budget = HWTD_CHUNK;
		done = hwtd_refill(hf, hold, budget) < budget;
		budget = HWTD_CHUNK;
		done &= hwtd_expire(hf, hold, hf->target, &budget);
		hwtd_hold_end(hf, hold);
		if (done || local_clock() > end)
			return done;
		spin_unlock_irq(&hf->lock);
		hwtd_hold_wake(hf, hold);
		memset(hold, 0, sizeof(*hold));
		if (can_sleep)
			cond_resched();
		spin_lock_irq(&hf->lock);
		if (hf->closing)
			return true;
	}
}

/*
 * The pass is done: the next one begins when the file's timer fires, at
 * the earliest tick with work, which is after the pass's target; so a
 * file's passes are at least a tick apart, however much is due.
 */
static void hwtd_pass_done(struct hwtd_file *hf, struct hwtd_hold *hold)
{
	u64 ev;

	hf->processing = false;
	ev = hwtd_next_event(hf);
	if (ev != U64_MAX)
		hwtd_arm_timer(hf, ev, hwtd_hold_now(hf, hold));
}

/*
 * The file's timer fired: an expiry pass begins (see the top of this
 * file). In softirq context it stops at the end of the budget of the
 * per-CPU wheel's pass that runs it (hwt_pass_end()), after one hold at
 * least; the rest goes to @work.
 */
static void hwtd_timer_fn(struct hwtimer *timer)
{
	struct hwtd_file *hf = container_of(timer, struct hwtd_timer, timer)->hf;
	struct hwtd_hold hold = { };
	u64 t0 = local_clock();
	bool done;

	spin_lock_irq(&hf->lock);
	if (hf->closing || hf->processing) {
		spin_unlock_irq(&hf->lock);
		return;
	}
	hf->processing = true;
	hf->armed = U64_MAX;
	hf->target = HWTD_NO_TARGET;
	done = hwtd_pass_holds(hf, &hold, hwt_pass_end(timer), false);
	if (done)
		hwtd_pass_done(hf, &hold);
	hf->expiry_ns += local_clock() - t0;
	spin_unlock_irq(&hf->lock);
	hwtd_hold_wake(hf, &hold);
	if (!done)
		queue_work(hwtd_wq, &hf->work);
}

/*
 * One slice of a pass that went on past its softirq budget: at most
 * HWT_PASS_NS (plus one hold), then, if the pass is not done, @work is
 * queued again, behind whatever else waits for the device's workqueue, so
 * no slice and no work item runs without end.
 */
static void hwtd_work_fn(struct work_struct *work)
{
	struct hwtd_file *hf = container_of(work, struct hwtd_file, work);
	struct hwtd_hold hold = { };
	u64 t0 = local_clock();
	bool done;

	spin_lock_irq(&hf->lock);
	if (hf->closing) {
		spin_unlock_irq(&hf->lock);
		return;
	}
	done = hwtd_pass_holds(hf, &hold, t0 + HWT_PASS_NS, true);
	if (done)
		hwtd_pass_done(hf, &hold);
	hf->expiry_ns += local_clock() - t0;
	spin_unlock_irq(&hf->lock);
	hwtd_hold_wake(hf, &hold);
	if (!done)
		queue_work(hwtd_wq, &hf->work);
	else
		hwtd_trim(hf);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * hwtd_kunit_run() - an expiry pass of a manual file at a given time
 * @hf: the file
 * @now: its clock, host ns
 *
 * The pass the file's timer would run, to the end.
 *
 * Context: process; takes the file lock.
 */
void hwtd_kunit_run(struct hwtd_file *hf, u64 now)
{
	struct hwtd_hold hold = { };

	WRITE_ONCE(hf->manual_now, now);
	spin_lock_irq(&hf->lock);
	hf->processing = true;
	hf->target = HWTD_NO_TARGET;
	/* No end: it returns when the pass is done. */
	hwtd_pass_holds(hf, &hold, U64_MAX, true);
	hwtd_pass_done(hf, &hold);
	spin_unlock_irq(&hf->lock);
	hwtd_hold_wake(hf, &hold);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_run);
#endif

/**
 * hwtd_file_timer_init() - set up the file's timers and work
 * @hf: the file
 * @wheels: the device's wheels, by precision and clock
 *
 * A file has a timer on each of the device's wheels, of which the one of
 * its configuration is in use (@timer): changing the configuration never
 * sets up a timer whose callback may still be running.
 *
 * Context: process, before the file is in use.
 */
void hwtd_file_timer_init(struct hwtd_file *hf,
			  struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS])
{
	unsigned int p, c;

	for (p = 0; p < HWTD_PRECISIONS; p++) {
		for (c = 0; c < HWTD_CLOCKS; c++) {
			hwtimer_setup(&hf->timers[p][c].timer, wheels[p][c], hwtd_timer_fn);
			hf->timers[p][c].hf = hf;
		}
	}
	INIT_WORK(&hf->work, hwtd_work_fn);
	hf->timer = &hf->timers[0][0].timer;
	hf->armed = U64_MAX;
}

/**
 * hwtd_file_timer_select() - use the timer of another precision and clock
 * @hf: the file, which holds no timeout
 * @precision: HWTIMER_PRECISION_*
 * @clock: 0 for CLOCK_MONOTONIC, 1 for CLOCK_BOOTTIME
 *
 * The timer in use is cancelled; a callback of it that runs meanwhile
 * finds nothing to do, as any early expiry does.
 *
 * Context: the file lock held.
 */
void hwtd_file_timer_select(struct hwtd_file *hf, unsigned int precision,
			    unsigned int clock)
{
	hwtd_lockdep_assert(hf);
	if (!hf->manual)
		hwtimer_cancel(hf->timer);
	hf->timer = &hf->timers[precision][clock].timer;
	hf->armed = U64_MAX;
}

/**
 * hwtd_file_timer_stop() - stop the file's timers and work for good
 * @hf: the file, being released
 *
 * After it, no expiry pass runs or will run.
 *
 * Context: process; may sleep.
 */
void hwtd_file_timer_stop(struct hwtd_file *hf)
{
	unsigned int p, c;

	spin_lock_irq(&hf->lock);
	hf->closing = true;
	spin_unlock_irq(&hf->lock);
	if (hf->manual)
		return;
	/* The callbacks queue @work: stop them first. */
	for (p = 0; p < HWTD_PRECISIONS; p++)
		for (c = 0; c < HWTD_CLOCKS; c++)
			hwtimer_shutdown_sync(&hf->timers[p][c].timer);
	cancel_work_sync(&hf->work);
}
