// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer: a per-CPU hierarchical hashed timing wheel advanced by hrtimers.
 *
 * The shape
 * ---------
 * A wheel is split into per-CPU bases (struct hwt_base). A timer is queued
 * on the base of the CPU that starts it and runs there. Each base is a
 * hierarchy of levels:
 *
 *   level 0: S slots of 1 tick each        (S = cfg->slots, a power of two)
 *   level k: 64 slots of S * 64^(k-1) ticks each, for k = 1 .. L-1
 *
 * where L is chosen so that the top level spans the whole u64 tick range:
 *
 *   S      level 0 span   level 1 span     level 2 span    ...  levels
 *   16     16 ticks       1024 ticks       65536 ticks           11
 *   512    512 ticks      32768 ticks      2097152 ticks         11
 *   65536  65536 ticks    4194304 ticks    268435456 ticks        9
 *
 * Timers carry their absolute expiry tick (@expires). A timer goes to the
 * lowest level whose span covers its distance from the base clock; within
 * a level its slot is a hash of @expires (the classic Varghese-Lauck
 * scheme, as Linux used before 4.8). Unlike today's timer_list wheel, which
 * gives up precision to avoid cascading, hwtimer cascades: when the clock
 * reaches the start of a coarse slot's range, the timers of that slot are
 * re-queued one level down. A timer is therefore moved at most once per
 * level in its life, fires exactly on its tick, and a tick touches only
 * the timers that are due or being cascaded: timers far in the future cost
 * nothing per tick, unlike in a single-level hashed wheel whose buckets
 * hold timers of many rounds.
 *
 * Ticks and time
 * --------------
 * Tick T begins at epoch + T * tick_ns. A timer whose deadline is D expires
 * at tick ceil((D - epoch) / tick_ns): never before D, at most one tick
 * after it (plus hrtimer and softirq latency). All arithmetic is relative
 * to the epoch, so nothing drifts however long the wheel runs.
 *
 * Tickless
 * --------
 * Each base keeps an occupancy bit per slot. The next tick with work (an
 * occupied level-0 slot, or a level boundary whose coarse slot is occupied)
 * is found from the bitmaps, and the base's soft hrtimer is programmed for
 * exactly that tick. A base with nothing queued has no hrtimer armed; ticks
 * with nothing to do are skipped, never visited.
 *
 * Expiry
 * ------
 * The hrtimer callback (softirq) or a per-CPU work item (process-context
 * wheels) runs hwt_run(): it processes every tick up to now, moving due
 * slots to the base's @due list, and runs callbacks with the base lock
 * dropped and @running set, so hwtimer_cancel_sync() can wait for a running
 * callback (compare __run_timers() and timer_delete_sync()). At most
 * HWT_EXPIRE_BATCH callbacks run per pass; the rest are picked up by an
 * immediately re-armed hrtimer (a fresh softirq, so the softirq layer's own
 * time limits and ksoftirqd apply) or after cond_resched().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "hwtimer_compat.h"
#include "hwtimer_internal.h"

#define CREATE_TRACE_POINTS
#include "hwtimer_trace.h"

/* All wheels, for CPU hotplug and name uniqueness. */
static LIST_HEAD(hwt_wheels);
/* Protects hwt_wheels; taken in process context only, outside base locks. */
static DEFINE_MUTEX(hwt_wheels_mutex);
static enum cpuhp_state hwt_hp_state;
static struct dentry *hwt_debugfs_root;

/* ---- time ------------------------------------------------------------- */

static u64 hwt_now(const struct hwtimer_wheel *w)
{
	if (w->manual)
		return READ_ONCE(w->manual_now);
	return ktime_get_ns();
}

/* The tick that contains @now: every tick up to it has begun. */
static u64 hwt_now_tick(const struct hwtimer_wheel *w, u64 now)
{
	if (now <= w->epoch_ns)
		return 0;
	return div64_u64(now - w->epoch_ns, w->tick_ns);
}

/* The first tick that begins at or after @deadline. */
VISIBLE_IF_KUNIT u64 hwt_expiry_tick(const struct hwtimer_wheel *w, u64 deadline)
{
	u64 d, q;

	if (deadline <= w->epoch_ns)
		return 0;
	d = deadline - w->epoch_ns;
	q = div64_u64(d, w->tick_ns);
	if (q * w->tick_ns < d)
		q++;
	return q;
}
EXPORT_SYMBOL_IF_KUNIT(hwt_expiry_tick);

/* When tick @tick begins, clamped to KTIME_MAX. */
static ktime_t hwt_tick_time(const struct hwtimer_wheel *w, u64 tick)
{
	u64 max = div64_u64((u64)KTIME_MAX - w->epoch_ns, w->tick_ns);

	if (tick >= max)
		return KTIME_MAX;
	return ns_to_ktime(w->epoch_ns + tick * w->tick_ns);
}

/* @now + @delay, saturating at KTIME_MAX: huge delays clamp, never wrap. */
static u64 hwt_deadline(u64 now, u64 delay)
{
	if (delay >= (u64)KTIME_MAX - now)
		return KTIME_MAX;
	return now + delay;
}

/* ---- levels and slots --------------------------------------------------- */

static unsigned int hwt_lvl_shift(const struct hwtimer_wheel *w, unsigned int lvl)
{
	return lvl ? w->lvl0_bits + (lvl - 1) * HWT_LVL_BITS : 0;
}

static unsigned int hwt_lvl_offset(const struct hwtimer_wheel *w, unsigned int lvl)
{
	return lvl ? w->slots + (lvl - 1) * HWT_LVL_SIZE : 0;
}

/* The level for a timer expiring at tick @expires when the clock is @clk. */
VISIBLE_IF_KUNIT unsigned int hwt_calc_level(const struct hwtimer_wheel *w,
					     u64 expires, u64 clk)
{
	u64 delta = expires > clk ? expires - clk : 0;
	unsigned int lvl;

	if (delta < w->slots)
		return 0;
	for (lvl = 1; lvl < w->levels - 1; lvl++) {
		/* Level lvl holds distances below S * 64^lvl. */
		if (delta < (1ULL << (w->lvl0_bits + lvl * HWT_LVL_BITS)))
			return lvl;
	}
	return w->levels - 1;
}
EXPORT_SYMBOL_IF_KUNIT(hwt_calc_level);

/*
 * Queue @t, expiring at tick @expires, on @base. The caller accounts for
 * @npending. Returns nothing; lowers @next_event if this is earlier work.
 */
static void hwt_place(struct hwt_base *base, struct hwtimer *t, u64 expires)
{
	const struct hwtimer_wheel *w = base->wheel;
	unsigned int lvl, shift, idx;
	u64 event;

	lockdep_assert_held(&base->lock);

	if (expires < base->clk)
		expires = base->clk;
	t->expires = expires;

	lvl = hwt_calc_level(w, expires, base->clk);
	if (!lvl) {
		idx = expires & (w->slots - 1);
		event = expires;
	} else {
		shift = hwt_lvl_shift(w, lvl);
		idx = hwt_lvl_offset(w, lvl) + ((expires >> shift) & HWT_LVL_MASK);
		/* The slot cascades when the clock reaches this boundary. */
		event = expires & ~((1ULL << shift) - 1);
	}
	t->slot = idx;
	hlist_add_head(&t->entry, &base->vectors[idx]);
	__set_bit(idx, base->pending_map);
	if (event < base->next_event)
		base->next_event = event;
}

/* Remove a pending @t from its slot or from @due. */
static void hwt_detach(struct hwt_base *base, struct hwtimer *t)
{
	struct hlist_node *entry = &t->entry;
	struct hwtimer_wheel *w = base->wheel;

	lockdep_assert_held(&base->lock);

	/*
	 * A timer moved to @due keeps its old @slot; it cannot be the single
	 * node of that slot's list, so the bit is left alone, as it must be.
	 */
	if (hlist_is_singular_node(entry, &base->vectors[t->slot]))
		__clear_bit(t->slot, base->pending_map);
	__hlist_del(entry);
	entry->next = LIST_POISON2;
	WRITE_ONCE(entry->pprev, NULL);

	base->npending--;
	if (w->max_pending)
		atomic64_dec(&w->npending);
}

/*
 * The first tick at or after @clk with work: an occupied level-0 slot or a
 * boundary at which an occupied coarse slot cascades. U64_MAX if none.
 */
static u64 hwt_next_event(struct hwt_base *base)
{
	const struct hwtimer_wheel *w = base->wheel;
	unsigned long *map = base->pending_map;
	u64 clk = base->clk, best = U64_MAX;
	unsigned int lvl, start, bit, off, n;

	lockdep_assert_held(&base->lock);

	start = clk & (w->slots - 1);
	bit = find_next_bit(map, w->slots, start);
	if (bit >= w->slots) {
		bit = find_next_bit(map, start, 0);
		if (bit >= start)
			bit = w->slots;
	}
	if (bit < w->slots)
		best = clk + ((bit - start) & (w->slots - 1));

	for (lvl = 1; lvl < w->levels; lvl++) {
		unsigned int shift = hwt_lvl_shift(w, lvl);
		u64 gran = 1ULL << shift, first, t;

		/* The first boundary of this level at or after @clk. */
		if (clk > U64_MAX - (gran - 1))
			break;
		first = (clk + gran - 1) & ~(gran - 1);
		/* Coarser levels cannot have work before their first boundary. */
		if (first >= best)
			break;
		off = hwt_lvl_offset(w, lvl);
		start = (first >> shift) & HWT_LVL_MASK;
		bit = find_next_bit(map, off + HWT_LVL_SIZE, off + start);
		if (bit >= off + HWT_LVL_SIZE) {
			bit = find_next_bit(map, off + start, off);
			if (bit >= off + start)
				continue;
		}
		n = (bit - off - start) & HWT_LVL_MASK;
		if (n && gran > (U64_MAX - first) / n)
			continue;
		t = first + n * gran;
		if (t < best)
			best = t;
	}
	return best;
}

/* Re-queue every timer of coarse slot @idx relative to the current clock. */
static unsigned int hwt_cascade(struct hwt_base *base, unsigned int idx)
{
	unsigned int moved = 0;
	struct hlist_head tmp;
	struct hwtimer *t;
	struct hlist_node *n;

	if (!test_bit(idx, base->pending_map))
		return 0;
	hlist_move_list(&base->vectors[idx], &tmp);
	__clear_bit(idx, base->pending_map);
	hlist_for_each_entry_safe(t, n, &tmp, entry) {
		hwt_place(base, t, t->expires);
		moved++;
	}
	base->stats.cascaded += moved;
	base->stats.visited += moved;
	return moved;
}

/*
 * Process tick @tick (at or after @clk, with nothing due before it): do the
 * cascades that happen at this boundary, then move its level-0 slot to @due.
 * Returns the number of entries cascaded.
 */
static unsigned int hwt_process_tick(struct hwt_base *base, u64 tick)
{
	const struct hwtimer_wheel *w = base->wheel;
	unsigned int lvl, idx, moved = 0;

	lockdep_assert_held(&base->lock);

	base->clk = tick;
	if (!(tick & (w->slots - 1))) {
		for (lvl = 1; lvl < w->levels; lvl++) {
			idx = (tick >> hwt_lvl_shift(w, lvl)) & HWT_LVL_MASK;
			moved += hwt_cascade(base, hwt_lvl_offset(w, lvl) + idx);
			/* The next level cascades only when this one wrapped. */
			if (idx)
				break;
		}
	}
	idx = tick & (w->slots - 1);
	if (test_bit(idx, base->pending_map)) {
		hlist_move_list(&base->vectors[idx], &base->due);
		__clear_bit(idx, base->pending_map);
	}
	base->stats.ticks++;
	base->clk = tick + 1;
	return moved;
}

/*
 * Program the base's hrtimer for its next event, or cancel it when nothing
 * is queued. Skipped while the expiry path runs (it programs on its way
 * out), on a stopped wheel, on a dead CPU and on manual test wheels.
 */
static void hwt_program(struct hwt_base *base)
{
	struct hwtimer_wheel *w = base->wheel;

	lockdep_assert_held(&base->lock);

	if (w->manual || base->processing || base->offline || READ_ONCE(w->stopped))
		return;
	if (base->next_event == U64_MAX) {
		if (base->armed != U64_MAX) {
			hrtimer_try_to_cancel(&base->hrt);
			base->armed = U64_MAX;
		}
		return;
	}
	if (base->next_event >= base->armed)
		return;
	base->armed = base->next_event;
	hrtimer_start(&base->hrt, hwt_tick_time(w, base->next_event),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * Move an idle base's clock up to now, so that a new timer's distance is
 * measured from the present. Only event-free ticks are skipped.
 */
static void hwt_forward(struct hwt_base *base, u64 now)
{
	u64 tick = hwt_now_tick(base->wheel, now);

	lockdep_assert_held(&base->lock);

	if (base->clk <= tick && base->next_event > tick)
		base->clk = tick + 1;
}

/*
 * Run the first timer of @due. Drops and retakes @base->lock. Lateness is
 * measured against @now, the clock read at the start of this pass of at
 * most HWT_EXPIRE_BATCH callbacks: reading the clock per callback would
 * cost more than many callbacks do.
 */
static void hwt_expire_one(struct hwt_base *base, u64 now)
	__must_hold(&base->lock)
{
	struct hwtimer_wheel *w = base->wheel;
	struct hwtimer *t = hlist_entry(base->due.first, struct hwtimer, entry);
	hwtimer_fn_t fn = t->function;
	u64 late = now > t->deadline ? now - t->deadline : 0;

	/* Off @due: no slot bit to maintain (see hwt_detach()). */
	__hlist_del(&t->entry);
	t->entry.next = LIST_POISON2;
	WRITE_ONCE(t->entry.pprev, NULL);
	base->npending--;
	if (w->max_pending)
		atomic64_dec(&w->npending);
	base->running = t;
	base->running_task = current;
	base->stats.fired++;
	base->stats.visited++;
	if (late > w->tick_ns)
		base->stats.late++;
	if (now < t->deadline)
		base->stats.early++;
	if (late > base->stats.max_late_ns)
		base->stats.max_late_ns = late;

	spin_unlock_irq(&base->lock);
	trace_hwtimer_expire_entry(t, now);
	lock_map_acquire(&w->lockdep_map);
	fn(t);
	lock_map_release(&w->lockdep_map);
	trace_hwtimer_expire_exit(t);
	spin_lock_irq(&base->lock);

	base->running = NULL;
	base->running_task = NULL;
	if (base->sync_waiters)
		wake_up_all(&base->wq);
}

/*
 * One pass of the expiry path over @base: process every tick up to now and
 * run at most HWT_EXPIRE_BATCH callbacks; stop processing ticks once their
 * cascades have moved about HWT_TICK_BATCH entries.
 *
 * Context: softirq or process context with interrupts enabled; takes
 * @base->lock.
 * Return: true if due timers are left for another pass.
 */
static bool hwt_run(struct hwt_base *base)
{
	struct hwtimer_wheel *w = base->wheel;
	unsigned int budget = HWT_EXPIRE_BATCH, tick_budget = HWT_TICK_BATCH;
	bool more = false;
	u64 now, now_tick, ev;

	spin_lock_irq(&base->lock);
	if (base->offline || READ_ONCE(w->stopped)) {
		spin_unlock_irq(&base->lock);
		return false;
	}
	base->processing = true;
	base->armed = U64_MAX;
	base->stats.wakeups++;
	now = hwt_now(w);
	now_tick = hwt_now_tick(w, now);

	for (;;) {
		if (!hlist_empty(&base->due)) {
			if (!budget--) {
				more = true;
				break;
			}
			hwt_expire_one(base, now);
			if (READ_ONCE(w->stopped) || base->offline)
				break;
			continue;
		}
		ev = hwt_next_event(base);
		if (ev > now_tick) {
			base->next_event = ev;
			if (base->clk <= now_tick)
				base->clk = now_tick + 1;
			break;
		}
		if (!tick_budget) {
			more = true;
			break;
		}
		/* Cascades are bounded too: the lock is held throughout. */
		tick_budget -= min(tick_budget, 1 + hwt_process_tick(base, ev));
	}

	base->processing = false;
	if (more) {
		/* Work is due now: earliest event is the current clock. */
		base->next_event = base->clk ? base->clk - 1 : 0;
		if (!w->manual && !(w->flags & HWTIMER_WHEEL_PROCESS) &&
		    !READ_ONCE(w->stopped) && !base->offline) {
			/* A fresh softirq pass, behind whatever else is pending. */
			base->armed = 0;
			hrtimer_start(&base->hrt, ktime_get(), HRTIMER_MODE_ABS_PINNED_SOFT);
		}
	} else {
		hwt_program(base);
	}
	spin_unlock_irq(&base->lock);
	return more;
}

static enum hrtimer_restart hwt_hrtimer_fn(struct hrtimer *hrt)
{
	struct hwt_base *base = container_of(hrt, struct hwt_base, hrt);
	struct hwtimer_wheel *w = base->wheel;

	if (w->flags & HWTIMER_WHEEL_PROCESS)
		queue_work_on(base->cpu, w->wq, &base->work);
	else
		hwt_run(base);
	return HRTIMER_NORESTART;
}

static void hwt_work_fn(struct work_struct *work)
{
	struct hwt_base *base = container_of(work, struct hwt_base, work);

	while (hwt_run(base))
		cond_resched();
}

/* ---- timer operations ---------------------------------------------------- */

/*
 * Lock the base @t is queued on (or was last queued on), re-checking after
 * locking that it did not move meanwhile, as lock_timer_base() does.
 */
static struct hwt_base *hwt_lock_base(struct hwtimer *t, unsigned long *flags)
	__acquires(&base->lock)
{
	for (;;) {
		u32 tf = READ_ONCE(t->flags);
		struct hwt_base *base;

		if (!(tf & HWT_MIGRATING)) {
			base = per_cpu_ptr(t->wheel->bases, tf & HWT_CPUMASK);
			spin_lock_irqsave(&base->lock, *flags);
			if (READ_ONCE(t->flags) == tf)
				return base;
			spin_unlock_irqrestore(&base->lock, *flags);
		}
		cpu_relax();
	}
}

/**
 * hwtimer_setup - prepare a timer for use on a wheel
 * @timer: the timer, embedded in the caller's object
 * @wheel: the wheel it will run on (hwtimer_default_wheel() or one of the
 *         caller's)
 * @function: the callback
 *
 * Must be called once before any other operation on @timer, and never
 * while @timer is pending or its callback runs.
 *
 * Context: any.
 * Return: nothing.
 */
void hwtimer_setup(struct hwtimer *timer, struct hwtimer_wheel *wheel,
		   hwtimer_fn_t function)
{
	timer->entry.pprev = NULL;
	timer->entry.next = NULL;
	timer->expires = 0;
	timer->deadline = 0;
	timer->function = function;
	timer->wheel = wheel;
	timer->flags = raw_smp_processor_id() & HWT_CPUMASK;
	timer->slot = 0;
}
EXPORT_SYMBOL_GPL(hwtimer_setup);

/*
 * Arm @t for @deadline, or for @now + @delay when @relative; @now is the
 * wheel's clock, read once by the caller.
 */
static int hwt_arm(struct hwtimer *t, u64 now, u64 deadline, bool relative, bool modify)
{
	struct hwtimer_wheel *w = t->wheel;
	struct hwt_base *base, *new_base;
	unsigned long flags;
	bool was_pending;
	int ret;

	if (WARN_ON_ONCE(!w || !t->function))
		return -EINVAL;
	if (relative)
		deadline = hwt_deadline(now, deadline);
	if (deadline > (u64)KTIME_MAX)
		deadline = KTIME_MAX;

	base = hwt_lock_base(t, &flags);
	if (t->flags & HWT_SHUTDOWN) {
		ret = -EIDRM;
		goto out_reject;
	}
	if (READ_ONCE(w->stopped)) {
		ret = -ESHUTDOWN;
		goto out_reject;
	}
	was_pending = hwtimer_pending(t);
	if (was_pending && !modify) {
		ret = -EALREADY;
		goto out_unlock;
	}
	if (!was_pending && w->max_pending &&
	    atomic64_inc_return(&w->npending) > w->max_pending) {
		atomic64_dec(&w->npending);
		ret = -EBUSY;
		goto out_reject;
	}
	if (was_pending) {
		/* Keep the cap's count: the timer stays pending. */
		if (w->max_pending)
			atomic64_inc(&w->npending);
		hwt_detach(base, t);
	}

	/*
	 * Queue on this CPU's base, unless the timer's callback is running on
	 * its old base: then it stays there, so hwtimer_cancel_sync() keeps
	 * finding it (the rule timer.c follows for the same reason), or it
	 * is pending and this CPU's base lock is contended (see below).
	 */
	new_base = this_cpu_ptr(w->bases);
	if (base != new_base && base->running != t && was_pending &&
	    spin_trylock(&new_base->lock)) {
		/*
		 * A pending timer moves with both locks held. Dropping the old
		 * lock first would leave it on no base for a moment, and a
		 * hwtimer_wheel_destroy() that passes both bases meanwhile
		 * would neither see it pending nor hand it back, although the
		 * modify fails with -ESHUTDOWN. Holding the old lock keeps
		 * destroy from stopping this base, so it drains the new one
		 * only after the move. If the new base is busy (trylock: two
		 * CPUs may move timers towards each other), the timer stays.
		 */
		if (!base->npending) {
			/* Leave no hrtimer armed on a base that is now empty. */
			base->next_event = U64_MAX;
			hwt_program(base);
		}
		WRITE_ONCE(t->flags, (t->flags & ~HWT_CPUMASK) | new_base->cpu);
		spin_unlock(&base->lock);
		base = new_base;
	} else if (base != new_base && base->running != t && !was_pending) {
		WRITE_ONCE(t->flags, t->flags | HWT_MIGRATING);
		spin_unlock(&base->lock);
		base = new_base;
		spin_lock(&base->lock);
		WRITE_ONCE(t->flags, (t->flags & ~(HWT_CPUMASK | HWT_MIGRATING)) | base->cpu);
		if (READ_ONCE(w->stopped)) {
			/* Destroy raced with the move: the idle timer stays idle. */
			if (w->max_pending)
				atomic64_dec(&w->npending);
			ret = -ESHUTDOWN;
			goto out_reject;
		}
	}

	if (!base->processing)
		hwt_forward(base, now);
	t->deadline = deadline;
	hwt_place(base, t, hwt_expiry_tick(w, deadline));
	base->npending++;
	base->stats.started++;
	trace_hwtimer_start(t, base->cpu);
	hwt_program(base);
	spin_unlock_irqrestore(&base->lock, flags);
	return modify ? was_pending : 0;

out_reject:
	base->stats.rejected++;
out_unlock:
	spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/**
 * hwtimer_start - arm a timer to fire after a delay
 * @timer: a timer set up with hwtimer_setup() and not pending
 * @delay_ns: delay in ns from now; a delay past KTIME_MAX is clamped to it
 *
 * The callback runs once @delay_ns has passed: never earlier, and at most
 * one wheel tick (plus scheduling latency) later. It runs on this CPU,
 * except after the rare case hwtimer_modify() describes.
 *
 * Context: any context, including hard interrupts; the timer's callback
 * may re-arm its own timer.
 * Return: 0 on success; -EALREADY if @timer is pending (use
 * hwtimer_modify() to re-arm); -EBUSY if the wheel's pending cap is
 * reached; -ESHUTDOWN if the wheel is being destroyed; -EIDRM if @timer
 * was shut down with hwtimer_shutdown_sync(). On error nothing changes.
 */
int hwtimer_start(struct hwtimer *timer, u64 delay_ns)
{
	return hwt_arm(timer, hwt_now(timer->wheel), delay_ns, true, false);
}
EXPORT_SYMBOL_GPL(hwtimer_start);

/**
 * hwtimer_start_abs - arm a timer for an absolute deadline
 * @timer: a timer set up with hwtimer_setup() and not pending
 * @deadline_ns: CLOCK_MONOTONIC deadline in ns (as ktime_get_ns()); a
 *               deadline in the past fires at the next tick
 *
 * Context: any context, including hard interrupts.
 * Return: as hwtimer_start().
 */
int hwtimer_start_abs(struct hwtimer *timer, u64 deadline_ns)
{
	return hwt_arm(timer, hwt_now(timer->wheel), deadline_ns, false, false);
}
EXPORT_SYMBOL_GPL(hwtimer_start_abs);

/**
 * hwtimer_modify - re-arm a timer with a new delay, pending or not
 * @timer: a timer set up with hwtimer_setup()
 * @delay_ns: new delay in ns from now
 *
 * Equivalent to a cancel and a start done atomically: the timer cannot
 * fire in between. It moves to this CPU's base unless its callback is
 * running right now, or (rarely) that base's lock is contended while the
 * pending timer is being moved; then it stays on its old base. If that
 * needs the old base's hrtimer programmed earlier, this CPU programs it,
 * and hrtimer_start() of a pinned hrtimer moves it to the calling CPU: the
 * old base's callbacks then run here until its own CPU programs it again.
 * Nothing is lost or early; only the CPU differs.
 *
 * Context: any context, including hard interrupts.
 * Return: 1 if @timer was pending, 0 if it was not, or -EBUSY, -ESHUTDOWN,
 * -EIDRM as for hwtimer_start(); on error nothing changes.
 */
int hwtimer_modify(struct hwtimer *timer, u64 delay_ns)
{
	return hwt_arm(timer, hwt_now(timer->wheel), delay_ns, true, true);
}
EXPORT_SYMBOL_GPL(hwtimer_modify);

/**
 * hwtimer_modify_abs - re-arm a timer for a new absolute deadline
 * @timer: a timer set up with hwtimer_setup()
 * @deadline_ns: new CLOCK_MONOTONIC deadline in ns
 *
 * Context: any context, including hard interrupts.
 * Return: as hwtimer_modify().
 */
int hwtimer_modify_abs(struct hwtimer *timer, u64 deadline_ns)
{
	return hwt_arm(timer, hwt_now(timer->wheel), deadline_ns, false, true);
}
EXPORT_SYMBOL_GPL(hwtimer_modify_abs);

/* Cancel @t if pending; the caller holds @base->lock. */
static int hwt_cancel_locked(struct hwt_base *base, struct hwtimer *t)
{
	lockdep_assert_held(&base->lock);

	if (!hwtimer_pending(t))
		return 0;
	hwt_detach(base, t);
	base->stats.cancelled++;
	trace_hwtimer_cancel(t);
	if (!base->npending) {
		base->next_event = U64_MAX;
		hwt_program(base);
	}
	return 1;
}

/**
 * hwtimer_cancel - cancel a timer without waiting
 * @timer: a timer set up with hwtimer_setup()
 *
 * Removes @timer if it is pending. Its callback may still be running on
 * another CPU when this returns; use hwtimer_cancel_sync() to wait.
 *
 * Context: any context, including hard interrupts.
 * Return: 1 if @timer was pending (it will not fire), 0 if it was not.
 */
int hwtimer_cancel(struct hwtimer *timer)
{
	struct hwt_base *base;
	unsigned long flags;
	int ret;

	if (!hwtimer_pending(timer))
		return 0;
	base = hwt_lock_base(timer, &flags);
	ret = hwt_cancel_locked(base, timer);
	spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_cancel);

static int hwt_cancel_wait(struct hwtimer *t, bool shutdown)
{
	struct hwt_base *base;
	unsigned long flags;
	int ret;

	might_sleep();
	/* Tell lockdep we wait for a callback: see timer_delete_sync(). */
	local_irq_save(flags);
	lock_map_acquire(&t->wheel->lockdep_map);
	lock_map_release(&t->wheel->lockdep_map);
	local_irq_restore(flags);

	/*
	 * While the callback runs, leave a pending re-arm alone (as
	 * timer_delete_sync() does) and cancel once it has returned: one call
	 * then cancels at most one arming, so its return value accounts for
	 * every start exactly once.
	 */
	for (;;) {
		base = hwt_lock_base(t, &flags);
		if (shutdown)
			WRITE_ONCE(t->flags, t->flags | HWT_SHUTDOWN);
		if (base->running != t) {
			ret = hwt_cancel_locked(base, t);
			spin_unlock_irqrestore(&base->lock, flags);
			return ret;
		}
		if (base->running_task == current) {
			spin_unlock_irqrestore(&base->lock, flags);
			WARN_ONCE(1, "hwtimer: %ps waits for its own callback\n", t->function);
			return -EDEADLK;
		}
		base->sync_waiters++;
		spin_unlock_irqrestore(&base->lock, flags);

		wait_event(base->wq, READ_ONCE(base->running) != t);

		spin_lock_irqsave(&base->lock, flags);
		base->sync_waiters--;
		spin_unlock_irqrestore(&base->lock, flags);
	}
}

/**
 * hwtimer_cancel_sync - cancel a timer and wait for its running callback
 * @timer: a timer set up with hwtimer_setup()
 *
 * When this returns, @timer is not pending and its callback is not running
 * on any CPU, unless the callback was re-armed by someone else meanwhile.
 * While the callback runs nothing is cancelled; once it has returned, the
 * timer is cancelled if pending (so a callback that re-armed itself is
 * cancelled then). One call cancels at most one arming.
 *
 * The caller must not hold a lock the callback takes, and must not call it
 * from a callback of the same wheel (lockdep reports both).
 *
 * Context: process context; may sleep.
 * Return: 1 if a pending @timer was cancelled, 0 if it was not pending, or
 * -EDEADLK (with a warning) if called from @timer's own callback.
 */
int hwtimer_cancel_sync(struct hwtimer *timer)
{
	return hwt_cancel_wait(timer, false);
}
EXPORT_SYMBOL_GPL(hwtimer_cancel_sync);

/**
 * hwtimer_shutdown_sync - cancel a timer for good and wait for its callback
 * @timer: a timer set up with hwtimer_setup()
 *
 * As hwtimer_cancel_sync(), and every later start or modify of @timer,
 * including one from its own running callback, fails with -EIDRM, so the
 * object embedding it can be freed safely. hwtimer_setup() makes it usable
 * again.
 *
 * Context: process context; may sleep.
 * Return: as hwtimer_cancel_sync().
 */
int hwtimer_shutdown_sync(struct hwtimer *timer)
{
	return hwt_cancel_wait(timer, true);
}
EXPORT_SYMBOL_GPL(hwtimer_shutdown_sync);

/**
 * hwtimer_state - what a timer is doing
 * @timer: a timer set up with hwtimer_setup()
 *
 * Context: any.
 * Return: %HWTIMER_PENDING, %HWTIMER_RUNNING, %HWTIMER_SHUTDOWN or
 * %HWTIMER_IDLE (see enum hwtimer_state); a snapshot.
 */
enum hwtimer_state hwtimer_state(struct hwtimer *timer)
{
	enum hwtimer_state state = HWTIMER_IDLE;
	struct hwt_base *base;
	unsigned long flags;

	base = hwt_lock_base(timer, &flags);
	if (hwtimer_pending(timer))
		state = HWTIMER_PENDING;
	else if (base->running == timer)
		state = HWTIMER_RUNNING;
	else if (timer->flags & HWT_SHUTDOWN)
		state = HWTIMER_SHUTDOWN;
	spin_unlock_irqrestore(&base->lock, flags);
	return state;
}
EXPORT_SYMBOL_GPL(hwtimer_state);

/* ---- wheels ------------------------------------------------------------- */

/**
 * hwtimer_wheel_tick_ns - a wheel's tick length
 * @wheel: the wheel
 *
 * Context: any.
 * Return: the tick in ns.
 */
u64 hwtimer_wheel_tick_ns(const struct hwtimer_wheel *wheel)
{
	return wheel->tick_ns;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_tick_ns);

/**
 * hwtimer_wheel_slots - a wheel's level-0 slot count
 * @wheel: the wheel
 *
 * Context: any.
 * Return: the slot count after rounding up to a power of two.
 */
u32 hwtimer_wheel_slots(const struct hwtimer_wheel *wheel)
{
	return wheel->slots;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_slots);

/**
 * hwtimer_wheel_stats - read a wheel's counters
 * @wheel: the wheel
 * @stats: filled with the counters summed over all CPUs (max_late_ns is
 *         the maximum)
 *
 * Context: any context where interrupts may be disabled for a moment per
 * CPU.
 * Return: nothing.
 */
void hwtimer_wheel_stats(struct hwtimer_wheel *wheel, struct hwtimer_stats *stats)
{
	unsigned int cpu;

	memset(stats, 0, sizeof(*stats));
	for_each_possible_cpu(cpu) {
		struct hwt_base *base = per_cpu_ptr(wheel->bases, cpu);
		const struct hwtimer_stats *s = &base->stats;
		unsigned long flags;

		spin_lock_irqsave(&base->lock, flags);
		stats->started += s->started;
		stats->fired += s->fired;
		stats->cancelled += s->cancelled;
		stats->rejected += s->rejected;
		stats->late += s->late;
		stats->early += s->early;
		stats->max_late_ns = max(stats->max_late_ns, s->max_late_ns);
		stats->pending += base->npending;
		stats->ticks += s->ticks;
		stats->wakeups += s->wakeups;
		stats->visited += s->visited;
		stats->cascaded += s->cascaded;
		spin_unlock_irqrestore(&base->lock, flags);
	}
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_stats);

VISIBLE_IF_KUNIT int hwt_stats_show(struct seq_file *m, void *v)
{
	struct hwtimer_wheel *w = m->private;
	struct hwtimer_stats s;

	hwtimer_wheel_stats(w, &s);
	seq_printf(m, "tick_ns %llu\nslots %u\nlevels %u\nmax_pending %llu\n",
		   w->tick_ns, w->slots, w->levels, w->max_pending);
	seq_printf(m, "started %llu\nfired %llu\ncancelled %llu\nrejected %llu\n",
		   s.started, s.fired, s.cancelled, s.rejected);
	seq_printf(m, "late %llu\nearly %llu\nmax_late_ns %llu\npending %llu\n",
		   s.late, s.early, s.max_late_ns, s.pending);
	seq_printf(m, "ticks %llu\nwakeups %llu\nvisited %llu\ncascaded %llu\n",
		   s.ticks, s.wakeups, s.visited, s.cascaded);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(hwt_stats_show);
DEFINE_SHOW_ATTRIBUTE(hwt_stats);

static void hwt_free(struct hwtimer_wheel *w)
{
	unsigned int cpu;

	if (w->bases) {
		for_each_possible_cpu(cpu) {
			struct hwt_base *base = per_cpu_ptr(w->bases, cpu);

			kvfree(base->vectors);
			bitmap_free(base->pending_map);
		}
		free_percpu(w->bases);
	}
	if (w->wq)
		destroy_workqueue(w->wq);
	lockdep_unregister_key(&w->lockdep_key);
	kfree(w);
}

static int hwt_check_config(const struct hwtimer_wheel_config *cfg)
{
	size_t len;

	if (!cfg || !cfg->name)
		return -EINVAL;
	len = strnlen(cfg->name, HWTIMER_NAME_MAX);
	if (len >= HWTIMER_NAME_MAX)
		return -ENAMETOOLONG;
	if (!len || strchr(cfg->name, '/') || !strcmp(cfg->name, ".") ||
	    !strcmp(cfg->name, ".."))
		return -EINVAL;
	if (cfg->flags & ~HWTIMER_WHEEL_FLAGS_MASK)
		return -EINVAL;
	if (cfg->tick_ns < HWTIMER_TICK_MIN_NS || cfg->tick_ns > HWTIMER_TICK_MAX_NS)
		return -ERANGE;
	if (cfg->slots < HWTIMER_SLOTS_MIN || cfg->slots > HWTIMER_SLOTS_MAX)
		return -ERANGE;
	return 0;
}

static struct hwtimer_wheel *hwt_create(const struct hwtimer_wheel_config *cfg,
					bool manual, struct module *owner)
{
	struct hwtimer_wheel *w, *other;
	unsigned int cpu;
	int ret;

	ret = hwt_check_config(cfg);
	if (ret)
		return ERR_PTR(ret);

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	strscpy(w->name, cfg->name, sizeof(w->name));
	lockdep_register_key(&w->lockdep_key);
	lockdep_init_map(&w->lockdep_map, w->name, &w->lockdep_key, 0);
	w->tick_ns = cfg->tick_ns;
	w->slots = roundup_pow_of_two(cfg->slots);
	w->lvl0_bits = ilog2(w->slots);
	w->levels = 1 + DIV_ROUND_UP(64 - w->lvl0_bits, HWT_LVL_BITS);
	w->nslots = w->slots + (w->levels - 1) * HWT_LVL_SIZE;
	w->max_pending = cfg->max_pending;
	w->flags = cfg->flags;
	w->manual = manual;
	w->owner = owner;
	w->epoch_ns = manual ? 0 : ktime_get_ns();
	INIT_LIST_HEAD(&w->node);

	ret = -ENOMEM;
	if (w->flags & HWTIMER_WHEEL_PROCESS) {
		w->wq = alloc_workqueue("hwtimer-%s", WQ_HIGHPRI, 0, w->name);
		if (!w->wq)
			goto out_free;
	}
	w->bases = alloc_percpu(struct hwt_base);
	if (!w->bases)
		goto out_free;
	for_each_possible_cpu(cpu) {
		struct hwt_base *base = per_cpu_ptr(w->bases, cpu);

		spin_lock_init(&base->lock);
		base->wheel = w;
		base->cpu = cpu;
		base->next_event = U64_MAX;
		base->armed = U64_MAX;
		INIT_HLIST_HEAD(&base->due);
		hwt_hrtimer_setup(&base->hrt, hwt_hrtimer_fn, CLOCK_MONOTONIC,
				  HRTIMER_MODE_ABS_PINNED_SOFT);
		INIT_WORK(&base->work, hwt_work_fn);
		init_waitqueue_head(&base->wq);
		base->vectors = kvcalloc(w->nslots, sizeof(*base->vectors), GFP_KERNEL);
		base->pending_map = bitmap_zalloc_node(w->nslots, GFP_KERNEL,
						       cpu_to_node(cpu));
		if (!base->vectors || !base->pending_map)
			goto out_free;
	}

	mutex_lock(&hwt_wheels_mutex);
	list_for_each_entry(other, &hwt_wheels, node) {
		if (!strcmp(other->name, w->name)) {
			mutex_unlock(&hwt_wheels_mutex);
			ret = -EEXIST;
			goto out_free;
		}
	}
	w->debugfs = debugfs_create_dir(w->name, hwt_debugfs_root);
	debugfs_create_file("stats", 0444, w->debugfs, w, &hwt_stats_fops);
	list_add_tail(&w->node, &hwt_wheels);
	mutex_unlock(&hwt_wheels_mutex);
	return w;

out_free:
	hwt_free(w);
	return ERR_PTR(ret);
}

/**
 * __hwtimer_wheel_create - create a wheel (call hwtimer_wheel_create())
 * @cfg: the configuration; copied, so it may live on the stack
 * @owner: the calling module, THIS_MODULE
 *
 * The slot count is rounded up to a power of two. The wheel's epoch is now:
 * tick boundaries fall at now + k * tick_ns.
 *
 * The wheel belongs to @owner: if @owner is unloaded without destroying it,
 * a warning names it and it is destroyed right after @owner's exit
 * function, while the timers @owner embeds in its module data still exist,
 * so nothing is left armed and no callback runs into unloaded code.
 *
 * Context: process context; may sleep.
 * Return: the wheel, or ERR_PTR(-EINVAL) for a missing, empty or invalid
 * name ('/' in it) or unknown flags, ERR_PTR(-ENAMETOOLONG) for a name of
 * %HWTIMER_NAME_MAX characters or more, ERR_PTR(-ERANGE) for a tick or
 * slot count outside the HWTIMER_TICK_* / HWTIMER_SLOTS_* bounds,
 * ERR_PTR(-EEXIST) if a wheel of that name exists, ERR_PTR(-ENOMEM).
 */
struct hwtimer_wheel *__hwtimer_wheel_create(const struct hwtimer_wheel_config *cfg,
					     struct module *owner)
{
	return hwt_create(cfg, false, owner);
}
EXPORT_SYMBOL_GPL(__hwtimer_wheel_create);

/*
 * Pop every timer left on @base, detached, handing each to @fn with the
 * lock dropped. Returns how many there were.
 */
static unsigned long hwt_drain(struct hwt_base *base,
			       void (*fn)(struct hwtimer *timer, void *arg), void *arg)
{
	struct hwtimer_wheel *w = base->wheel;
	unsigned long n = 0;
	struct hwtimer *t;
	unsigned int idx;

	spin_lock_irq(&base->lock);
	for (;;) {
		if (!hlist_empty(&base->due)) {
			t = hlist_entry(base->due.first, struct hwtimer, entry);
		} else {
			idx = find_first_bit(base->pending_map, w->nslots);
			if (idx >= w->nslots)
				break;
			t = hlist_entry(base->vectors[idx].first, struct hwtimer, entry);
		}
		hwt_detach(base, t);
		n++;
		spin_unlock_irq(&base->lock);
		if (fn)
			fn(t, arg);
		spin_lock_irq(&base->lock);
	}
	base->next_event = U64_MAX;
	spin_unlock_irq(&base->lock);
	return n;
}

/**
 * hwtimer_wheel_destroy - stop a wheel, hand back its timers, free it
 * @wheel: the wheel; not the default wheel
 * @unprocessed: called once for every timer still pending, after it was
 *               removed (so it may be freed or reused), in process context
 *               with no hwtimer lock held; may be NULL
 * @arg: passed to @unprocessed
 *
 * From the first moment of the call, starts and modifies fail with
 * -ESHUTDOWN and no more callbacks begin. Callbacks already running are
 * waited for; no hrtimer or work item is left armed. Afterwards the timers
 * that were set up on @wheel must not be used until set up again.
 *
 * Context: process context; may sleep. Not from a callback of @wheel.
 * Return: the number of unprocessed timers handed to @unprocessed.
 */
unsigned long hwtimer_wheel_destroy(struct hwtimer_wheel *wheel,
				    void (*unprocessed)(struct hwtimer *timer, void *arg),
				    void *arg)
{
	unsigned long n = 0;
	unsigned int cpu;

	might_sleep();
	if (IS_ERR_OR_NULL(wheel))
		return 0;

	mutex_lock(&hwt_wheels_mutex);
	list_del_init(&wheel->node);
	mutex_unlock(&hwt_wheels_mutex);
	debugfs_remove_recursive(wheel->debugfs);

	for_each_possible_cpu(cpu) {
		struct hwt_base *base = per_cpu_ptr(wheel->bases, cpu);

		spin_lock_irq(&base->lock);
		WRITE_ONCE(wheel->stopped, true);
		spin_unlock_irq(&base->lock);
	}
	for_each_possible_cpu(cpu) {
		struct hwt_base *base = per_cpu_ptr(wheel->bases, cpu);

		/* Neither can re-arm the other once the wheel is stopped. */
		hrtimer_cancel(&base->hrt);
		if (wheel->wq)
			cancel_work_sync(&base->work);
	}
	for_each_possible_cpu(cpu)
		n += hwt_drain(per_cpu_ptr(wheel->bases, cpu), unprocessed, arg);

	hwt_free(wheel);
	return n;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_destroy);

/* ---- CPU hotplug -------------------------------------------------------- */

static int hwt_cpu_prepare(unsigned int cpu)
{
	struct hwtimer_wheel *w;

	mutex_lock(&hwt_wheels_mutex);
	list_for_each_entry(w, &hwt_wheels, node) {
		struct hwt_base *base = per_cpu_ptr(w->bases, cpu);

		spin_lock_irq(&base->lock);
		base->offline = false;
		spin_unlock_irq(&base->lock);
	}
	mutex_unlock(&hwt_wheels_mutex);
	return 0;
}

/* Move every timer of dead CPU @cpu's base to this CPU's base. */
static void hwt_migrate(struct hwtimer_wheel *w, unsigned int cpu)
{
	struct hwt_base *old = per_cpu_ptr(w->bases, cpu), *new;
	struct hwtimer *t;
	unsigned int idx;

	spin_lock_irq(&old->lock);
	old->offline = true;
	spin_unlock_irq(&old->lock);
	/* The offline flag stops either from re-arming the other. */
	hrtimer_cancel(&old->hrt);
	if (w->wq)
		cancel_work_sync(&old->work);

	local_irq_disable();
	new = this_cpu_ptr(w->bases);
	spin_lock(&new->lock);
	spin_lock_nested(&old->lock, SINGLE_DEPTH_NESTING);
	hwt_forward(new, hwt_now(w));
	for (;;) {
		if (!hlist_empty(&old->due)) {
			t = hlist_entry(old->due.first, struct hwtimer, entry);
		} else {
			idx = find_first_bit(old->pending_map, w->nslots);
			if (idx >= w->nslots)
				break;
			t = hlist_entry(old->vectors[idx].first, struct hwtimer, entry);
		}
		hwt_detach(old, t);
		if (w->max_pending)
			atomic64_inc(&w->npending);
		WRITE_ONCE(t->flags, (t->flags & ~HWT_CPUMASK) | new->cpu);
		hwt_place(new, t, hwt_expiry_tick(w, t->deadline));
		new->npending++;
	}
	old->next_event = U64_MAX;
	old->armed = U64_MAX;
	hwt_program(new);
	spin_unlock(&old->lock);
	spin_unlock(&new->lock);
	local_irq_enable();
}

static int hwt_cpu_dead(unsigned int cpu)
{
	struct hwtimer_wheel *w;

	mutex_lock(&hwt_wheels_mutex);
	list_for_each_entry(w, &hwt_wheels, node)
		hwt_migrate(w, cpu);
	mutex_unlock(&hwt_wheels_mutex);
	return 0;
}

/* ---- module glue and test hooks ----------------------------------------- */

/* A wheel @mod created and did not destroy, or NULL. */
static struct hwtimer_wheel *hwt_find_owned(struct module *mod)
{
	struct hwtimer_wheel *w, *found = NULL;

	mutex_lock(&hwt_wheels_mutex);
	list_for_each_entry(w, &hwt_wheels, node) {
		if (w->owner == mod) {
			found = w;
			break;
		}
	}
	mutex_unlock(&hwt_wheels_mutex);
	return found;
}

/*
 * A module is going: its exit function has run, its memory is still there.
 * Destroy the wheels it forgot, loudly, before its timers and callbacks go.
 */
static int hwt_module_notify(struct notifier_block *nb, unsigned long action,
			     void *data)
{
	struct module *mod = data;
	struct hwtimer_wheel *w;

	if (action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	while ((w = hwt_find_owned(mod))) {
		WARN(1, "hwtimer: module %s did not destroy its wheel '%s'\n",
		     mod->name, w->name);
		hwtimer_wheel_destroy(w, NULL, NULL);
	}
	return NOTIFY_OK;
}

static struct notifier_block hwt_module_nb = {
	.notifier_call = hwt_module_notify,
};

int hwt_core_init(void)
{
	int ret;

	hwt_debugfs_root = debugfs_create_dir("hwtimer", NULL);
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "hwtimer:prepare",
					hwt_cpu_prepare, hwt_cpu_dead);
	if (ret < 0) {
		debugfs_remove_recursive(hwt_debugfs_root);
		return ret;
	}
	hwt_hp_state = ret;
	ret = register_module_notifier(&hwt_module_nb);
	if (ret) {
		cpuhp_remove_state_nocalls(hwt_hp_state);
		debugfs_remove_recursive(hwt_debugfs_root);
	}
	return ret;
}

void hwt_core_exit(void)
{
	struct hwtimer_wheel *w, *tmp;

	unregister_module_notifier(&hwt_module_nb);
	/* Clients are gone: only wheels without an owner can be left. */
	list_for_each_entry_safe(w, tmp, &hwt_wheels, node) {
		WARN(1, "hwtimer: wheel '%s' was never destroyed\n", w->name);
		hwtimer_wheel_destroy(w, NULL, NULL);
	}
	cpuhp_remove_state_nocalls(hwt_hp_state);
	debugfs_remove_recursive(hwt_debugfs_root);
}

#if IS_ENABLED(CONFIG_KUNIT)
u64 hwt_wheel_now(const struct hwtimer_wheel *w)
{
	return hwt_now(w);
}
EXPORT_SYMBOL_IF_KUNIT(hwt_wheel_now);

/*
 * A wheel whose clock only moves when a test says so: hwt_manual_advance()
 * sets the time and runs the expiry path of every CPU's base in the
 * caller's context. No hrtimer or work item is ever armed.
 */
struct hwtimer_wheel *hwt_wheel_create_manual(const struct hwtimer_wheel_config *cfg)
{
	return hwt_create(cfg, true, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(hwt_wheel_create_manual);

bool hwt_manual_run_once(struct hwtimer_wheel *w, unsigned int cpu)
{
	return hwt_run(per_cpu_ptr(w->bases, cpu));
}
EXPORT_SYMBOL_IF_KUNIT(hwt_manual_run_once);

void hwt_manual_run_cpu(struct hwtimer_wheel *w, unsigned int cpu)
{
	struct hwt_base *base = per_cpu_ptr(w->bases, cpu);

	while (hwt_run(base))
		cond_resched();
}
EXPORT_SYMBOL_IF_KUNIT(hwt_manual_run_cpu);

void hwt_manual_advance(struct hwtimer_wheel *w, u64 now_ns)
{
	unsigned int cpu;

	WRITE_ONCE(w->manual_now, now_ns);
	for_each_possible_cpu(cpu)
		hwt_manual_run_cpu(w, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(hwt_manual_advance);
#endif
