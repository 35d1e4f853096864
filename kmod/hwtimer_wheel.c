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
 * Timers carry their absolute expiry tick (@expires). A timer less than S
 * ticks away goes to level 0, further ones to the level of the highest bit
 * in which @expires and the base clock differ; within a level its slot is
 * a hash of @expires (the classic Varghese-Lauck scheme, as Linux used
 * before 4.8; hwtimer_wheel.h has the placement and its proofs). Unlike
 * today's timer_list wheel, which gives up precision to avoid cascading,
 * hwtimer cascades: when the clock reaches the start of a coarse slot's
 * range, the timers of that slot are re-queued one level down. A timer is
 * therefore moved at most once per level in its life, fires exactly on
 * its tick, and a tick touches only
 * the timers that are due or being cascaded: timers far in the future cost
 * nothing per tick, unlike in a single-level hashed wheel whose buckets
 * hold timers of many rounds.
 *
 * Ticks and time
 * --------------
 * Tick T begins at epoch + T * tick_ns, on the wheel's clock
 * (CLOCK_MONOTONIC, or CLOCK_BOOTTIME for HWTIMER_WHEEL_BOOTTIME wheels). A
 * timer whose deadline is D expires at tick ceil((D - epoch) / tick_ns):
 * never before D, at most one tick after it (plus hrtimer and softirq
 * latency). All arithmetic is relative to the epoch, so nothing drifts
 * however long the wheel runs.
 *
 * Slack
 * -----
 * A timer started with slack S (hwtimer_start_range(), or the wheel's
 * default slack) may expire at any tick from the first at or after D to
 * the last that begins by D + S: never before D, at most S plus one tick
 * after it. Of those ticks it gets the one with the most trailing zero
 * bits (hwt_slack_tick()): a stateless choice that timers with
 * overlapping windows tend to share, so a base has fewer ticks with work
 * and its hrtimer wakes less often, as with hrtimer's range_ns. Only the
 * chosen tick is stored (@expires); the slack itself is not.
 *
 * Tickless
 * --------
 * Each base keeps an occupancy bit per slot. The next tick with work (an
 * occupied level-0 slot, or a level boundary whose coarse slot is occupied)
 * is found from the bitmaps, and the base's soft hrtimer is programmed for
 * exactly that tick. It is not cancelled when the timers it was programmed
 * for go (hwt_program()): it expires once more, finds nothing, and a base
 * with nothing queued then has no hrtimer armed. Ticks with nothing to do
 * are skipped, never visited.
 *
 * Expiry
 * ------
 * The hrtimer callback (softirq) or a per-CPU work item (process-context
 * wheels) runs hwt_run(): it processes every tick up to now, moving due
 * slots to the base's @due list, and runs callbacks with the base lock
 * dropped and @running set, so hwtimer_cancel_sync() can wait for a running
 * callback (compare __run_timers() and timer_delete_sync()). At most
 * HWT_EXPIRE_BATCH callbacks run per pass, and for at most HWTIMER_PASS_NS once
 * one has run (the clock is read every HWT_EXPIRE_CHECK callbacks); the
 * rest are picked up by a fresh softirq pass on the same CPU, a BH work item
 * (no interrupt; the softirq layer's own time limits and ksoftirqd apply
 * in between), or after cond_resched() for process-context wheels.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/interrupt.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/static_key.h>
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

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * Enabled while a manual test wheel exists (hwt_wheel_create_manual()):
 * the one test of w->manual on the hot paths is a patched-out jump
 * otherwise, so wheels in use pay nothing for the tests' clock. A manual
 * wheel takes a reference before it is reachable and drops it once freed,
 * so the key is on for the whole life of every manual wheel.
 */
static DEFINE_STATIC_KEY_FALSE(hwt_manual_key);

static bool hwt_is_manual(const struct hwtimer_wheel *w)
{
	return static_branch_unlikely(&hwt_manual_key) && w->manual;
}

static void hwt_manual_get(void)
{
	static_branch_inc(&hwt_manual_key);
}

static void hwt_manual_put(void)
{
	static_branch_dec(&hwt_manual_key);
}
#else
static bool hwt_is_manual(const struct hwtimer_wheel *w)
{
	return false;
}

static void hwt_manual_get(void) { }
static void hwt_manual_put(void) { }
#endif

/*
 * The lockdep subclass of @w's timers. A call site of hwtimer_setup() is
 * a class, held while a callback runs: on a softirq wheel in softirq, on a
 * process-context wheel (or a manual one, run from a test's task) with
 * softirqs on. A call site whose timers run in both would be one class in
 * both states, which lockdep reports though callbacks exclude nothing, so
 * the two kinds of wheel are two subclasses.
 */
static inline unsigned int hwt_lockdep_subclass(const struct hwtimer_wheel *w)
{
	return (w->flags & HWTIMER_WHEEL_PROCESS) || hwt_is_manual(w);
}

/*
 * The wheel's clock: CLOCK_MONOTONIC, CLOCK_BOOTTIME for a
 * %HWTIMER_WHEEL_BOOTTIME wheel, or a test's manual clock, which stops at
 * KTIME_MAX as the real ones do (the expiry path's lateness is a signed
 * difference of two times at most KTIME_MAX).
 */
static u64 hwt_now(const struct hwtimer_wheel *w)
{
	/* Pairs with hwt_manual_advance()'s WRITE_ONCE(): a value, no order. */
	if (hwt_is_manual(w))
		return min_t(u64, READ_ONCE(w->manual_now), KTIME_MAX);
	if (w->flags & HWTIMER_WHEEL_BOOTTIME)
		return ktime_get_boottime_ns();
	return ktime_get_ns();
}

/* The clock of the wheel's time and of its bases' hrtimers. */
static clockid_t hwt_clockid(const struct hwtimer_wheel *w)
{
	return (w->flags & HWTIMER_WHEEL_BOOTTIME) ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
}

/* When tick @tick begins, clamped to KTIME_MAX. */
static ktime_t hwt_tick_time(const struct hwtimer_wheel *w, u64 tick)
{
	return ns_to_ktime(hwt_tick_start(&w->time, tick));
}

/* @now + @delay, saturating at KTIME_MAX: huge delays clamp, never wrap. */
static u64 hwt_deadline(u64 now, u64 delay)
{
	if (delay >= (u64)KTIME_MAX - now)
		return KTIME_MAX;
	return now + delay;
}

/* ---- slots (the wheel itself: hwtimer_wheel.h) -------------------------- */

/*
 * Put @t, expiring at tick @expires (after @clk), in slot @idx on @base,
 * which begins at tick @event (hwt_slot()). Lowers @next_event if this is
 * earlier work. Counting is the callers' business.
 */
static __always_inline void hwt_place_at(struct hwt_base *base, struct hwtimer *t,
					 u64 expires, unsigned int idx, u64 event)
{
	lockdep_assert_held(&base->lock);

	t->expires = expires;
	t->slot = idx;
	hlist_add_head(&t->entry, &base->vectors[idx]);
	__set_bit(idx, base->pending_map);
	if (event < base->next_event)
		base->next_event = event;
}

/*
 * hwt_place_at() for tick @expires, or the next tick to process, @clk + 1,
 * if @expires has been processed already.
 */
static __always_inline void hwt_place(struct hwt_base *base, struct hwtimer *t, u64 expires)
{
	unsigned int idx;
	u64 event;

	if (expires <= base->clk)
		expires = base->clk + 1;
	idx = hwt_slot(&base->wheel->geom, expires, base->clk, &event);
	hwt_place_at(base, t, expires, idx, event);
}

/*
 * Take @t off its slot or @due, as detach_timer() does. With @clear_pending
 * it reads as not pending from now on; without, it keeps reading as pending
 * to lockless hwtimer_pending() tests while the caller moves it (a modify,
 * a cascade, a migration), so hwtimer_cancel() never returns 0 for a timer
 * that is still going to fire.
 */
static __always_inline void hwt_unlink(struct hwt_base *base, struct hwtimer *t,
				       bool clear_pending)
{
	struct hlist_node *entry = &t->entry;

	lockdep_assert_held(&base->lock);

	/*
	 * A timer moved to @due keeps its old @slot; it cannot be the single
	 * node of that slot's list, so the bit is left alone, as it must be.
	 */
	if (hlist_is_singular_node(entry, &base->vectors[t->slot]))
		__clear_bit(t->slot, base->pending_map);
	__hlist_del(entry);
	if (clear_pending) {
		entry->next = LIST_POISON2;
		/* Pairs with hwtimer_pending()'s READ_ONCE(). */
		WRITE_ONCE(entry->pprev, NULL);
	}
}

/* Queue @t on @base, expiring at tick @expires. */
static __always_inline void hwt_enqueue(struct hwt_base *base, struct hwtimer *t, u64 expires)
{
	hwt_debug_activate(t);
	hwt_place(base, t, expires);
	base->npending++;
}

/* Take a pending @t off @base (see hwt_unlink() for @clear_pending). */
static __always_inline void hwt_dequeue(struct hwt_base *base, struct hwtimer *t,
					bool clear_pending)
{
	hwt_debug_deactivate(t);
	hwt_unlink(base, t, clear_pending);
	base->npending--;
}

/* The pending cap: one more timer on @w unless that would pass it. */
static bool hwt_cap_charge(struct hwtimer_wheel *w)
{
	return !w->max_pending || hwt_count_inc_below(&w->npending, w->max_pending);
}

/* A timer of @w stopped being pending for good: fired, cancelled, drained. */
static void hwt_cap_uncharge(struct hwtimer_wheel *w)
{
	if (w->max_pending)
		atomic_long_dec(&w->npending);
}

/* The first timer queued on @base: on @due, else in the first slot. */
static struct hwtimer *hwt_first_pending(struct hwt_base *base)
{
	const struct hwtimer_wheel *w = base->wheel;
	unsigned int idx;

	lockdep_assert_held(&base->lock);

	if (!hlist_empty(&base->due))
		return hlist_entry(base->due.first, struct hwtimer, entry);
	idx = find_first_bit(base->pending_map, w->geom.nslots);
	if (idx >= w->geom.nslots)
		return NULL;
	return hlist_entry(base->vectors[idx].first, struct hwtimer, entry);
}

/*
 * hlist_move_list() of level-0 slot @idx onto @due, which is empty, but
 * with the one pprev it changes (the first timer's) stored with
 * WRITE_ONCE(), as hlist_add_head() and __hlist_del() store theirs:
 * hwtimer_pending() reads it without the lock. The timer stays pending
 * (the pointer goes from one list head to another, never NULL).
 */
static __always_inline void hwt_slot_to_due(struct hwt_base *base, unsigned int idx)
{
	struct hlist_node *first = base->vectors[idx].first;

	base->due.first = first;
	if (first)
		WRITE_ONCE(first->pprev, &base->due.first);
	base->vectors[idx].first = NULL;
}

/*
 * Begin tick @ev, the base's next event (hwt_next_event()), with @due
 * empty: the wheel's clock moves to it, the level-0 slot that begins at it
 * goes to @due whole (its timers are all of tick @ev), and the slots above
 * level 0 that begin at it are left to hwt_cascade().
 */
static void hwt_begin_event(struct hwt_base *base, u64 ev)
{
	const struct hwt_geom *g = &base->wheel->geom;
	unsigned int lvl = 0;
	int idx;

	lockdep_assert_held(&base->lock);

	base->clk = ev;
	base->stats.ticks++;
	idx = hwt_event_slot(g, base->pending_map, ev, &lvl);
	if (idx >= 0 && !lvl) {
		hwt_slot_to_due(base, idx);
		__clear_bit(idx, base->pending_map);
		lvl = 1;
		idx = hwt_event_slot(g, base->pending_map, ev, &lvl);
	}
	base->cascading = idx >= 0;
}

/*
 * Re-queue the timers of the slots above level 0 that begin at @clk,
 * moving at most *@quota of them: those of tick @clk onto @due, the others
 * into slots of lower levels. No timer started meanwhile lands in these
 * slots (hwtimer_wheel.h), so they only empty, and a cascade can stop
 * after any timer and go on later. Return: true when they are empty.
 */
static bool hwt_cascade(struct hwt_base *base, unsigned int *quota)
{
	const struct hwt_geom *g = &base->wheel->geom;
	unsigned int lvl = 1;
	struct hlist_head *head;
	struct hwtimer *t;
	int idx;

	lockdep_assert_held(&base->lock);

	while ((idx = hwt_event_slot(g, base->pending_map, base->clk, &lvl)) >= 0) {
		head = &base->vectors[idx];
		while (!hlist_empty(head)) {
			if (!*quota)
				return false;
			t = hlist_entry(head->first, struct hwtimer, entry);
			hwt_unlink(base, t, false);
			if (t->expires <= base->clk)
				hlist_add_head(&t->entry, &base->due);
			else
				hwt_place(base, t, t->expires);
			base->stats.cascaded++;
			(*quota)--;
		}
	}
	base->cascading = false;
	return true;
}

/*
 * Program the base's hrtimer for its next event if that comes before the
 * tick it is armed for. Skipped while the expiry path runs (it programs on
 * its way out), on a stopped wheel, on a dead CPU and on manual test wheels.
 *
 * Nothing ever disarms it early: when timers are cancelled or moved away,
 * or the base empties, it stays armed for the tick it was programmed for,
 * and the expiry path that runs then finds less to do, or nothing, and
 * programs it for the next event, if any. That costs one expiry where
 * cancelling would cost an hrtimer cancel (and, if it was the CPU's next
 * event, a reprogramming of its clockevent) on every cancel that
 * empties a base, and a start on the next arm.
 *
 * Called on this CPU's base (or on a dead CPU's, from a pass that
 * hotplug moved here: hwt_hrtimer_fn()): hrtimer_start() of a pinned
 * hrtimer queues it on the calling CPU, which would move that base's
 * expiries here. A timer whose callback runs on a remote base stays there
 * (see hwt_target_base()), but that base is then processing and programs
 * itself.
 */
static void __hwt_program(struct hwt_base *base)
{
	struct hwtimer_wheel *w = base->wheel;

	/* Pairs with destroy's WRITE_ONCE(): see @stopped. */
	if (hwt_is_manual(w) || base->processing || base->offline ||
	    READ_ONCE(w->stopped))
		return;
	base->armed = base->next_event;
	hrtimer_start(&base->hrt, hwt_tick_time(w, base->next_event),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

static __always_inline void hwt_program(struct hwt_base *base)
{
	lockdep_assert_held(&base->lock);

	/* Also when nothing is queued and nothing is armed (both U64_MAX). */
	if (likely(base->next_event >= base->armed))
		return;
	__hwt_program(base);
}

/*
 * (I3) of hwtimer_wheel.h, in kernels that check it: the hrtimer armed for
 * the start of the earliest occupied slot or before, whenever a base that
 * can be armed is not in a pass (@armed 0: its next pass is queued).
 */
static void hwt_check_driver(struct hwt_base *base)
{
	struct hwtimer_wheel *w = base->wheel;

	lockdep_assert_held(&base->lock);
	if (HWT_CHECK_DRIVER && !hwt_is_manual(w) && !base->processing && !base->offline &&
	    !READ_ONCE(w->stopped))
		WARN_ON_ONCE(hwt_driver_late(&w->geom, base->pending_map, base->clk,
					     base->armed));
}

/*
 * Move an idle base's clock up to @tick, the tick that contains now (or an
 * earlier one), so that a new timer's distance is measured from the
 * present: hwt_forward() of hwtimer_wheel.h, not while a cascade of the
 * tick it is at is under way.
 */
static void hwt_base_forward(struct hwt_base *base, u64 tick)
{
	lockdep_assert_held(&base->lock);

	if (!base->cascading)
		hwt_forward(&base->clk, tick, base->next_event);
}

/* ---- the expiry lock (PREEMPT_RT) ---------------------------------------- */

#ifdef CONFIG_PREEMPT_RT
/*
 * On PREEMPT_RT the expiry path runs in a preemptible thread, which a
 * higher-priority task can keep off the CPU for ever; a task waiting in
 * hwtimer_cancel_sync() must then lend it its priority. It does so by
 * blocking on @expiry_lock (a priority-inheriting lock on RT), which the
 * expiry path holds while it runs callbacks and hands over between two
 * callbacks when someone waits: timer_delete_sync()'s scheme. Process
 * context wheels, whose callbacks may sleep, and manual test wheels wait
 * on @wq instead.
 */
static bool hwt_has_expiry_lock(const struct hwtimer_wheel *w)
{
	return !(w->flags & HWTIMER_WHEEL_PROCESS) && !hwt_is_manual(w);
}

static void hwt_expiry_lock(struct hwt_base *base)
	__acquires(&base->expiry_lock)
{
	if (hwt_has_expiry_lock(base->wheel))
		spin_lock(&base->expiry_lock);
	else
		__acquire(&base->expiry_lock);	/* for sparse: one context */
}

static void hwt_expiry_unlock(struct hwt_base *base)
	__releases(&base->expiry_lock)
{
	if (hwt_has_expiry_lock(base->wheel))
		spin_unlock(&base->expiry_lock);
	else
		__release(&base->expiry_lock);
}

/*
 * A callback returned and someone waits for it: let them have the expiry
 * lock for a moment. Called with @lock dropped.
 */
static void hwt_sync_wake(struct hwt_base *base)
{
	if (hwt_has_expiry_lock(base->wheel)) {
		spin_unlock(&base->expiry_lock);
		spin_lock(&base->expiry_lock);
	} else {
		wake_up_all(&base->wq);
	}
}

/* Wait until @t's callback, running on @base, has returned. */
static void hwt_sync_wait(struct hwt_base *base, struct hwtimer *t)
{
	if (hwt_has_expiry_lock(base->wheel)) {
		/* Boosts the callback's thread until it drops the lock. */
		spin_lock_bh(&base->expiry_lock);
		spin_unlock_bh(&base->expiry_lock);
	} else {
		/* As without PREEMPT_RT: see there. */
		wait_event(base->wq, READ_ONCE(base->running) != t);
	}
}
#else
static void hwt_expiry_lock(struct hwt_base *base) { }
static void hwt_expiry_unlock(struct hwt_base *base) { }

static void hwt_sync_wake(struct hwt_base *base)
{
	wake_up_all(&base->wq);
}

/*
 * The READ_ONCE() pairs with hwt_expire_one()'s WRITE_ONCE(@running, NULL).
 * No wakeup is lost: the caller set %HWT_POST_WAKE under @lock after it saw
 * @running == @t, and the expiry path clears @running and then tests the
 * flag in one hold of @lock, so it calls hwt_sync_wake(). wake_up_all()
 * and wait_event()'s prepare_to_wait_event() both take @wq's lock: either
 * the waker finds this task queued, or this task's test, after that lock's
 * ACQUIRE, sees the store (memory-barriers.txt, SLEEP AND WAKE-UP
 * FUNCTIONS).
 */
static void hwt_sync_wait(struct hwt_base *base, struct hwtimer *t)
{
	wait_event(base->wq, READ_ONCE(base->running) != t);
}
#endif

/* ---- expiry ---------------------------------------------------------------- */

/*
 * Run the first timer of @due. Drops and retakes @base->lock. Lateness is
 * measured against @now, the clock read at the start of this pass of at
 * most HWT_EXPIRE_BATCH callbacks: reading the clock per callback would
 * cost more than many callbacks do. @tick_ns is the wheel's tick, read
 * once per pass.
 *
 * The statistics cost a few instructions: the lateness is one subtraction,
 * signed, since a deadline and @now are both at most KTIME_MAX. One
 * unsigned test finds a new largest lateness and an early fire (never,
 * counted to prove it) alike: a negative lateness is above any maximum as
 * an unsigned number. A lateness past @tick_ns is late. Only a timer that
 * its slack put on a later tick needs that tick's start. The pass counts
 * its callbacks by @base->stats.fired, and @visited is fired + cascaded,
 * summed when the counters are read (hwtimer_wheel_stats()).
 *
 * Like call_timer_fn(), it holds the timer's lockdep class around the
 * callback and checks that the callback left the preemption count as it
 * found it: a callback that returns with a lock held or
 * preemption disabled would break every later callback.
 */
static __always_inline void hwt_expire_one(struct hwt_base *base, u64 now, u64 tick_ns)
	__must_hold(&base->lock)
{
	struct hwtimer_wheel *w = base->wheel;
	struct hwtimer *t = hlist_entry(base->due.first, struct hwtimer, entry);
	hwtimer_fn_t fn = t->function;
	/*
	 * Under the lock, for the tracepoint too: once the lock is dropped, a
	 * start or modify on another CPU may change it (hwt_target_base()).
	 */
	u64 deadline = t->deadline;
	s64 late = now - deadline;
	int count;
#ifdef CONFIG_LOCKDEP
	/*
	 * The callback may free @t: a copy of its class is held around it,
	 * as call_timer_fn() holds one of the timer_list's.
	 */
	struct lockdep_map lockdep_map;

	lockdep_copy_map(&lockdep_map, &t->lockdep_map);
#endif

	/* Off @due: no slot bit to look at, as hwt_unlink() would (pprev too). */
	hwt_debug_deactivate(t);
	__hlist_del(&t->entry);
	t->entry.next = LIST_POISON2;
	WRITE_ONCE(t->entry.pprev, NULL);
	base->npending--;
	hwt_cap_uncharge(w);
	/* Read without the lock: hwt_sync_wait(), hwt_in_own_callback(). */
	WRITE_ONCE(base->running, t);
	base->stats.fired++;
	/* An early fire is a negative lateness: above any maximum unsigned. */
	if (unlikely((u64)late > base->stats.max_late_ns)) {
		if (late < 0)
			base->stats.early++;
		else
			base->stats.max_late_ns = late;
	}
	if (unlikely(t->flags & HWT_SLACKED))
		late = now - ktime_to_ns(hwt_tick_time(w, t->expires));
	if (late > (s64)tick_ns)
		base->stats.late++;

	raw_spin_unlock_irq(&base->lock);
	trace_hwtimer_expire_entry(t, deadline, now);
	count = preempt_count();
	lock_acquire_exclusive(&lockdep_map, hwt_lockdep_subclass(w), 0, NULL, _THIS_IP_);
	fn(t);
	lock_map_release(&lockdep_map);
	if (count != preempt_count()) {
		WARN_ONCE(1, "hwtimer: %ps changed the preempt count from %#x to %#x\n",
			  fn, count, preempt_count());
		preempt_count_set(count);
	}
	/* @t may be freed by now: the tracepoint records only its address. */
	trace_hwtimer_expire_exit(t);
	raw_spin_lock_irq(&base->lock);
	/* Then the caller tests %HWT_POST_WAKE, in this hold: hwt_sync_wait(). */
	WRITE_ONCE(base->running, NULL);
}

/*
 * After a callback, with @base->post_callback set: wake the waiters of
 * hwtimer_cancel_sync(), if any. Return: true if the expiry path must
 * stop (%HWT_POST_HALT).
 */
static bool hwt_after_callback(struct hwt_base *base)
	__must_hold(&base->lock)
{
	if (base->post_callback & HWT_POST_WAKE) {
		/* Never under the raw lock: a wait queue's lock sleeps on RT. */
		raw_spin_unlock_irq(&base->lock);
		hwt_sync_wake(base);
		raw_spin_lock_irq(&base->lock);
	}
	return base->post_callback & HWT_POST_HALT;
}

/*
 * The start of a pass over @base, locked, which began at local_clock()
 * time @start: @base is processing, its hrtimer not armed, and the
 * pass's budget ends HWTIMER_PASS_NS after @start.
 *
 * Context: @base->lock held, interrupts off.
 * Return: @base->stats.fired now, from which the pass counts its callbacks.
 */
static __always_inline u64 hwt_run_begin(struct hwt_base *base, u64 start)
	__must_hold(&base->lock)
{
	lockdep_assert_held(&base->lock);

	base->processing = true;
	/* Read without the lock by hwt_in_own_callback(). */
	WRITE_ONCE(base->running_task, current);
	base->armed = U64_MAX;
	/* Read without the lock by this pass's callbacks: hwtimer_pass_end(). */
	WRITE_ONCE(base->pass_end, start + HWTIMER_PASS_NS);
	base->stats.wakeups++;
	/* Callbacks this pass has run: base->stats.fired - fired0. */
	return base->stats.fired;
}

/*
 * Cascade entries on @base, locked, as many as the pass's budget
 * *@tick_budget and this hold of the lock, which has moved *@held of them
 * so far, allow; both count the entries moved.
 *
 * Context: @base->lock held, interrupts off.
 */
static __always_inline void hwt_run_cascade(struct hwt_base *base, unsigned int *tick_budget,
					    unsigned int *held)
	__must_hold(&base->lock)
{
	unsigned int quota, hold;

	lockdep_assert_held(&base->lock);

	/* Entries this hold of the lock may still move. */
	hold = min(*tick_budget, HWT_LOCKED_MAX - *held);
	quota = hold;
	hwt_cascade(base, &quota);
	*held += hold - quota;
	if (*held > base->stats.max_hold)
		base->stats.max_hold = *held;
	*tick_budget -= hold - quota;
}

/*
 * The end of a pass over @base of @w, locked: with @more, due work is
 * left, for another pass, which a softirq wheel queues (@cont); else the
 * hrtimer is armed for the next event.
 *
 * Context: @base->lock held, interrupts off.
 */
static __always_inline void hwt_run_end(struct hwtimer_wheel *w, struct hwt_base *base,
					bool more)
	__must_hold(&base->lock)
{
	lockdep_assert_held(&base->lock);

	base->processing = false;
	WRITE_ONCE(base->running_task, NULL);
	if (more) {
		/* Work is due now: earliest event is the current clock. */
		base->next_event = 0;
		/* @stopped as in hwt_run(): destroy kills a @cont queued before it. */
		if (!hwt_is_manual(w) && !READ_ONCE(w->stopped) && !base->offline) {
			/*
			 * @armed 0 says a pass is coming, so that no start
			 * arms the hrtimer meanwhile: a fresh softirq pass,
			 * behind whatever else is pending, or the next one
			 * of hwt_work_fn()'s loop.
			 */
			base->armed = 0;
			if (!(w->flags & HWTIMER_WHEEL_PROCESS))
				hwt_bh_queue(&base->cont);
		}
	} else {
		hwt_program(base);
		hwt_check_driver(base);
	}
}

/*
 * One pass of the expiry path over @base: process every tick up to now and
 * run at most HWT_EXPIRE_BATCH callbacks; stop processing ticks once their
 * cascades have moved about HWT_TICK_BATCH entries; stop after HWTIMER_PASS_NS
 * in any case, once something was done, looking at the clock after every
 * HWT_EXPIRE_CHECK callbacks. The base lock is dropped around every
 * callback and after every HWT_LOCKED_MAX cascaded entries, so no hold of
 * it grows with the number of timers. When work is left, a softirq wheel
 * goes on in a fresh softirq pass on this CPU (@cont, a BH work item: no
 * interrupt, and the softirq layer's time limits and ksoftirqd apply in
 * between, as they would to an hrtimer's).
 *
 * Context: softirq or process context with interrupts enabled; takes
 * @base->lock.
 * Return: true if due timers are left for another pass.
 */
static bool hwt_run(struct hwt_base *base)
{
	struct hwtimer_wheel *w = base->wheel;
	unsigned int check = HWT_EXPIRE_CHECK + 1, tick_budget = HWT_TICK_BATCH;
	unsigned int held = 0;
	bool more = false;
	u64 now, now_tick, ev, fired0, tick_ns = w->time.tick_ns, start = local_clock();

	hwt_expiry_lock(base);
	raw_spin_lock_irq(&base->lock);
	/* Pairs with destroy's WRITE_ONCE(): see @stopped. */
	if (base->offline || READ_ONCE(w->stopped)) {
		raw_spin_unlock_irq(&base->lock);
		hwt_expiry_unlock(base);
		return false;
	}
	fired0 = hwt_run_begin(base, start);
	now = hwt_now(w);
	now_tick = hwt_now_tick(&w->time, now);

	for (;;) {
		if (!hlist_empty(&base->due)) {
			/*
			 * After every HWT_EXPIRE_CHECK callbacks (a count
			 * down: no division), so once the pass has made
			 * progress; the batch is a multiple of it.
			 */
			if (unlikely(!--check)) {
				if (base->stats.fired - fired0 >= HWT_EXPIRE_BATCH ||
				    local_clock() - start > HWTIMER_PASS_NS) {
					more = true;
					break;
				}
				check = HWT_EXPIRE_CHECK;
			}
			hwt_expire_one(base, now, tick_ns);
			held = 0;
			if (unlikely(base->post_callback) && hwt_after_callback(base))
				break;
			continue;
		}
		if (!tick_budget) {
			more = true;
			break;
		}
		if (!base->cascading) {
			ev = hwt_next_event(&w->geom, base->pending_map, base->clk);
			if (ev > now_tick) {
				base->next_event = ev;
				hwt_forward(&base->clk, now_tick, ev);
				break;
			}
			hwt_begin_event(base, ev);
			/* Each event costs one: the budget always runs out. */
			tick_budget--;
			continue;
		}
		if (held >= HWT_LOCKED_MAX) {
			if (local_clock() - start > HWTIMER_PASS_NS) {
				more = true;
				break;
			}
			/* A big cascade: let interrupts and other CPUs in. */
			raw_spin_unlock_irq(&base->lock);
			raw_spin_lock_irq(&base->lock);
			held = 0;
			/* Pairs with destroy's WRITE_ONCE(): see @stopped. */
			if (READ_ONCE(w->stopped) || base->offline)
				break;
		}
		hwt_run_cascade(base, &tick_budget, &held);
	}

	hwt_run_end(w, base, more);
	raw_spin_unlock_irq(&base->lock);
	hwt_expiry_unlock(base);
	return more;
}

/**
 * hwtimer_pass_end - when the budget of the pass running a callback ends
 * @timer: the timer whose callback is running
 *
 * For a callback that does a batch of work of its own, as long as the
 * pass lets it: it stops when local_clock() passes this time, rather than
 * %HWTIMER_PASS_NS after its own start, and leaves the rest of its work
 * to a later run (re-arming its timer, or queueing a work item). That
 * keeps the whole pass within %HWTIMER_PASS_NS of its start, plus one
 * batch of each callback that begins past that time before the pass next
 * looks at the clock: a few of them (8 at most, all 8 when the budget
 * runs out before the first of them begins, as when the pass is held off
 * the CPU).
 *
 * Context: @timer's own callback, on a wheel of either context. Anywhere
 * else the value means nothing.
 * Return: a local_clock() time: the start of the running pass plus
 * %HWTIMER_PASS_NS.
 */
u64 hwtimer_pass_end(const struct hwtimer *timer)
{
	/*
	 * The CPU bits of @flags do not change while the callback runs
	 * (hwt_target_base()); the other bits may (WRITE_ONCE(), under the
	 * base lock).
	 */
	const struct hwt_base *base = per_cpu_ptr(timer->wheel->bases,
						  READ_ONCE(timer->flags) & HWT_CPUMASK);

	/* Stored by the pass that runs this callback, in this task (hwt_run()). */
	return READ_ONCE(base->pass_end);
}
EXPORT_SYMBOL_GPL(hwtimer_pass_end);
/* The number hwtimer_pass_end()'s description gives. */
static_assert(HWT_EXPIRE_CHECK == 8);

/*
 * Runs on the base's CPU but in one case: hrtimers_cpu_dying() moves a
 * dying CPU's pinned hrtimers to a live CPU before hwt_cpu_dead() marks
 * its bases offline, so in between this may run a pass over a dead CPU's
 * base on a live CPU. That is safe: a pass uses nothing of the CPU it runs
 * on, only its base, under the base lock; the callbacks run on the live
 * CPU, as timer_list's do once moved; the pass's hwt_program() pins the
 * hrtimer there; and hwt_migrate() sets @offline, then waits for such a
 * pass in hrtimer_cancel() before it moves the timers. A @cont that pass
 * queues runs on the live CPU too, where hwt_cont_fn() leaves it: the
 * base waits for hwt_migrate(), later in the same hotplug operation.
 */
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

/*
 * The next pass of a softirq wheel's expiry path, queued by the one before
 * on its base's CPU. If that CPU died meanwhile, the item runs on
 * another: hwt_migrate() has moved the base's timers and reset it, so
 * there is nothing left to do (and a pass here would arm the hrtimer of
 * that base on this CPU).
 */
static void hwt_cont_fn(struct hwt_bh *bh)
{
	struct hwt_base *base = container_of(bh, struct hwt_base, cont);

	if (base->cpu == smp_processor_id())
		hwt_run(base);
}

static void hwt_work_fn(struct work_struct *work)
{
	struct hwt_base *base = container_of(work, struct hwt_base, work);

	while (hwt_run(base))
		cond_resched();
}

/* ---- timer operations ---------------------------------------------------- */

/*
 * Disable interrupts and lock the base @t is queued on (or was last queued
 * on), re-checking after locking that it did not move meanwhile, as
 * lock_timer_base() does. A timer being moved (HWT_MIGRATING) is on no
 * base: its mover holds a base lock with interrupts off, so the wait is
 * short, on RT too.
 *
 * The first READ_ONCE() of @flags is a hint; the second, under the lock,
 * decides. They pair with the WRITE_ONCE()s of @flags (hwt_arm(),
 * hwt_migrate_some(), hwt_set_slacked(), hwt_cancel_wait()), each made
 * under the lock of the base the old value names, or, ending a move, of
 * the base the new value names: so a value naming this base without
 * HWT_MIGRATING, read again under its lock, holds until the lock is
 * dropped, and the lock's ACQUIRE orders the caller's accesses to @t after
 * the RELEASE by whoever queued it here.
 *
 * Interrupts stay disabled from before @t->wheel is first read until the
 * caller's raw_spin_unlock_irqrestore(): the whole call is an RCU read-side
 * critical section (synchronize_rcu() waits for interrupt-disabled
 * regions), which is what hwtimer_wheel_destroy() waits for, at no cost of
 * its own.
 */
static __always_inline struct hwt_base *hwt_lock_base(struct hwtimer *t, unsigned long *flags)
	__acquires(&base->lock)
{
	local_irq_save(*flags);
	for (;;) {
		u32 tf = READ_ONCE(t->flags);
		struct hwt_base *base;

		if (!(tf & HWT_MIGRATING)) {
			base = per_cpu_ptr(t->wheel->bases, tf & HWT_CPUMASK);
			raw_spin_lock(&base->lock);
			if (READ_ONCE(t->flags) == tf)
				return base;
			raw_spin_unlock(&base->lock);
		}
		cpu_relax();
	}
}

/**
 * hwtimer_setup_key - hwtimer_setup()'s function
 * @timer: the timer, embedded in the caller's object
 * @wheel: the wheel it will run on
 * @function: the callback
 * @name: the lock class's name (the call site's @timer expression)
 * @key: the call site's lock class (NULL without lockdep)
 *
 * Callers use hwtimer_setup(), which gives each call site its class, as
 * init_timer_key() is called through timer_setup(); the rules are
 * hwtimer_setup()'s.
 *
 * Context: any.
 * Return: nothing.
 */
void hwtimer_setup_key(struct hwtimer *timer, struct hwtimer_wheel *wheel,
		       hwtimer_fn_t function, const char *name,
		       struct lock_class_key *key)
{
	hwt_debug_init(timer);
	timer->entry.pprev = NULL;
	timer->entry.next = NULL;
	timer->expires = 0;
	timer->deadline = 0;
	timer->function = function;
	timer->wheel = wheel;
	timer->flags = raw_smp_processor_id() & HWT_CPUMASK;
	timer->slot = 0;
	lockdep_init_map(&timer->lockdep_map, name, key, 0);
}
EXPORT_SYMBOL_GPL(hwtimer_setup_key);

/* hwt_arm() options, as __mod_timer()'s. */
#define HWT_ARM_REL	BIT(0)	/* the time is a delay from now */
#define HWT_ARM_MODIFY	BIT(1)	/* re-arm a pending timer, not -EALREADY */
#define HWT_ARM_AT	BIT(2)	/* the caller read the wheel's clock: @now */
static_assert(HWT_ARM_REL == HWTIMER_MODE_REL);

/*
 * The base a timer on @base should be queued on: this CPU's, unless the
 * timer's callback runs on @base right now. Then it stays, so that
 * hwtimer_cancel_sync() keeps finding it (timer.c's rule, for the same
 * reason), and @base, busy expiring, programs its own hrtimer when done.
 *
 * Context: @base->lock held, interrupts off (this CPU cannot change).
 */
static struct hwt_base *hwt_target_base(struct hwt_base *base, struct hwtimer *t)
{
	if (base->running == t)
		return base;
	return this_cpu_ptr(t->wheel->bases);
}

/* Mark whether slack put @t on a later tick than its deadline's. */
static void hwt_set_slacked(struct hwtimer *t, bool slacked)
{
	/* WRITE_ONCE(): @flags is read without the lock (hwt_lock_base()). */
	if (slacked)
		WRITE_ONCE(t->flags, t->flags | HWT_SLACKED);
	else if (t->flags & HWT_SLACKED)
		WRITE_ONCE(t->flags, t->flags & ~HWT_SLACKED);
}

/*
 * Where on @base, locked, a timer goes whose @deadline has @first as its
 * first tick, with @slack, @now_tick being the tick that contains now:
 * moves an idle base's clock up to @now_tick first, then sets *@tick to the
 * timer's tick, *@event to its slot's (hwt_slot()) and *@slacked to whether
 * slack chose a later tick than @first. Return: the slot.
 */
static __always_inline unsigned int hwt_choose(struct hwt_base *base, u64 now_tick,
					       u64 deadline, u64 first, u64 slack,
					       u64 *tick, u64 *event, bool *slacked)
{
	const struct hwtimer_wheel *w = base->wheel;
	u64 t;

	if (!base->processing)
		hwt_base_forward(base, now_tick);
	t = hwt_slack_tick(&w->time, deadline, first, slack, base->clk + 1);
	*slacked = t > first;
	*tick = max(t, base->clk + 1);
	return hwt_slot(&w->geom, *tick, base->clk, event);
}

/*
 * Whether @t, on @base, locked, may be armed on its wheel @w: not shut
 * down, @w not being destroyed, not pending unless @opts has
 * %HWT_ARM_MODIFY, and, not pending, within @w's cap, which is charged.
 * Sets *@was_pending.
 *
 * Context: @base->lock held, interrupts off.
 * Return: 0, -EALREADY, or an error that counts as rejected: -EIDRM,
 * -ESHUTDOWN or -EBUSY.
 */
static __always_inline int hwt_arm_admit(struct hwtimer_wheel *w, struct hwt_base *base,
					 struct hwtimer *t, unsigned int opts,
					 bool *was_pending)
	__must_hold(&base->lock)
{
	lockdep_assert_held(&base->lock);

	if (unlikely(t->flags & HWT_SHUTDOWN))
		return -EIDRM;
	/* Pairs with destroy's WRITE_ONCE(): see @stopped. */
	if (unlikely(READ_ONCE(w->stopped)))
		return -ESHUTDOWN;
	*was_pending = hwtimer_pending(t);
	if (*was_pending) {
		if (!(opts & HWT_ARM_MODIFY))
			return -EALREADY;
	} else if (unlikely(!hwt_cap_charge(w))) {
		return -EBUSY;
	}
	return 0;
}

/*
 * Re-arm the pending @t of @w in place on @base, locked, for @deadline,
 * whose tick is @tick, in slot @idx (hwt_choose()), when its slot still
 * serves that tick.
 *
 * Context: @base->lock held, interrupts off.
 * Return: true if @t stays, updated; false if it must move.
 */
static __always_inline bool hwt_arm_in_place(const struct hwtimer_wheel *w,
					     struct hwt_base *base, struct hwtimer *t,
					     u64 deadline, u64 tick, unsigned int idx,
					     bool slacked)
	__must_hold(&base->lock)
{
	lockdep_assert_held(&base->lock);

	/*
	 * A new tick its slot still serves (hwt_can_stay()): update it
	 * there, as __mod_timer() keeps a timer in its slot; the slot's event
	 * stays. Not for a timer on @due, whose tick has been processed: it
	 * must move, not fire now.
	 */
	if (t->expires > base->clk &&
	    hwt_can_stay(&w->geom, t->slot, t->expires, tick, idx)) {
		/* Read without the lock: hwtimer_expires(). */
		WRITE_ONCE(t->deadline, deadline);
		t->expires = tick;
		hwt_set_slacked(t, slacked);
		return true;
	}
	return false;
}

/*
 * Move @t of @w, pending if @was_pending, from @base to @new_base: drops
 * @base->lock and takes @new_base->lock, interrupts off throughout.
 *
 * Context: @base->lock held, interrupts off; returns with @new_base->lock
 * held instead.
 * Return: 0, @t unqueued and on @new_base; -ESHUTDOWN if destroy began
 * meanwhile: @t is then as it was, on @new_base.
 */
static __always_inline int hwt_arm_migrate(struct hwtimer_wheel *w, struct hwt_base *base,
					   struct hwt_base *new_base, struct hwtimer *t,
					   bool was_pending)
	__releases(&base->lock) __acquires(&new_base->lock)
{
	lockdep_assert_held(&base->lock);

	if (was_pending)
		hwt_dequeue(base, t, false);
	/*
	 * As __mod_timer(): drop the old lock before taking the new one, so
	 * two base locks never nest here; hwt_lock_base() waits for
	 * HWT_MIGRATING to clear (its READ_ONCE()s pair with these
	 * WRITE_ONCE()s, see there). Interrupts stay off throughout, and
	 * destroy cannot pass both bases meanwhile: it waits for this call
	 * (synchronize_rcu()) before it drains.
	 */
	WRITE_ONCE(t->flags, t->flags | HWT_MIGRATING);
	raw_spin_unlock(&base->lock);
	raw_spin_lock(&new_base->lock);
	WRITE_ONCE(t->flags, (t->flags & ~(HWT_CPUMASK | HWT_MIGRATING)) | new_base->cpu);
	/* Under the new base's lock: see @stopped. */
	if (READ_ONCE(w->stopped)) {
		/*
		 * Destroy began meanwhile: fail as if it had begun first. A
		 * pending timer stays pending, with its old deadline, and
		 * destroy hands it back.
		 */
		if (was_pending)
			hwt_enqueue(new_base, t, t->expires);
		else
			hwt_cap_uncharge(w);
		return -ESHUTDOWN;
	}
	return 0;
}

/*
 * Arm @t for @time: a delay from now with %HWT_ARM_REL, else a deadline in
 * ns of the wheel's clock (clamped to KTIME_MAX), allowing it to fire up
 * to @slack ns later (%HWTIMER_SLACK_DEFAULT: the wheel's). The clock is
 * read here, or given as @now with %HWT_ARM_AT. The one copy behind every
 * start and modify: the exported calls jump straight here.
 */
static int hwt_arm(struct hwtimer *t, u64 time, u64 slack, u64 now, unsigned int opts)
{
	struct hwtimer_wheel *w = t->wheel;
	struct hwt_base *base, *new_base;
	unsigned long flags;
	u64 deadline, first, tick, now_tick, event;
	unsigned int idx;
	bool was_pending, slacked;
	int ret;

	if (WARN_ON_ONCE(!w || !t->function))
		return -EINVAL;
	/* A manual test wheel's clock is its own, whatever the caller read. */
	if (!(opts & HWT_ARM_AT) || hwt_is_manual(w))
		now = hwt_now(w);
	if (opts & HWT_ARM_REL)
		deadline = hwt_deadline(now, time);
	else
		deadline = min_t(u64, time, KTIME_MAX);
	if (slack == HWTIMER_SLACK_DEFAULT)
		slack = w->slack_ns;
	/* Pure arithmetic on the wheel's constants: outside the lock. */
	first = hwt_expiry_tick(&w->time, deadline);
	now_tick = hwt_now_tick(&w->time, now);

	base = hwt_lock_base(t, &flags);
	ret = hwt_arm_admit(w, base, t, opts, &was_pending);
	if (unlikely(ret)) {
		if (ret == -EALREADY)
			goto out_unlock;
		goto out_reject;
	}
	new_base = hwt_target_base(base, t);

	if (likely(base == new_base)) {
		idx = hwt_choose(base, now_tick, deadline, first, slack, &tick, &event,
				 &slacked);
		if (was_pending) {
			if (hwt_arm_in_place(w, base, t, deadline, tick, idx, slacked))
				goto out_armed;
			/* A pending timer keeps reading as pending while it moves. */
			hwt_dequeue(base, t, false);
		}
	} else {
		ret = hwt_arm_migrate(w, base, new_base, t, was_pending);
		base = new_base;
		if (ret)
			goto out_reject;
		idx = hwt_choose(base, now_tick, deadline, first, slack, &tick, &event,
				 &slacked);
	}

	/* hwtimer_expires() reads it without the lock. */
	WRITE_ONCE(t->deadline, deadline);
	hwt_set_slacked(t, slacked);
	hwt_debug_activate(t);
	hwt_place_at(base, t, tick, idx, event);
	base->npending++;
	hwt_program(base);
out_armed:
	hwt_check_driver(base);
	base->stats.started++;
	trace_hwtimer_start(t, base->cpu);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return (opts & HWT_ARM_MODIFY) ? was_pending : 0;

out_reject:
	base->stats.rejected++;
out_unlock:
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/**
 * hwtimer_start_range - arm a timer, with slack
 * @timer: a timer set up with hwtimer_setup() and not pending
 * @time_ns: with %HWTIMER_MODE_REL, a delay in ns from now; with
 *           %HWTIMER_MODE_ABS, a deadline in ns of the wheel's clock
 *           (ktime_get_ns(), or ktime_get_boottime_ns() on a
 *           %HWTIMER_WHEEL_BOOTTIME wheel: see hwtimer_wheel_clockid()).
 *           A deadline past KTIME_MAX is clamped to it; a deadline already
 *           past fires at the next tick (or at a later one within the
 *           slack)
 * @slack_ns: how much later than the deadline the callback may run: 0 for
 *            none, %HWTIMER_SLACK_DEFAULT for the wheel's default
 *            (&hwtimer_wheel_config.slack_ns)
 * @mode: %HWTIMER_MODE_REL or %HWTIMER_MODE_ABS
 *
 * The callback runs once the deadline has passed: never earlier, and at
 * most @slack_ns plus one wheel tick (plus scheduling latency) later. The
 * wheel may run it on any tick from the first at or after the deadline to
 * the last that begins by the deadline + @slack_ns, and uses that freedom
 * to put timers whose windows overlap on the same tick (a power-of-two
 * aligned one), so that its CPUs wake up less often, as hrtimer's range_ns
 * and timer_list's coarse levels do. hwtimer_expires() reports the
 * deadline, not the tick chosen. The timer runs on this CPU, unless its
 * callback is running on another CPU right now: then it stays there.
 * hwtimer_start() is this call with the wheel's default slack.
 *
 * Context: any context, including hard interrupts, on PREEMPT_RT too (the
 * base locks are raw spinlocks); the timer's callback may re-arm its own
 * timer.
 * Return: 0 on success; -EALREADY if @timer is pending (use
 * hwtimer_modify_range() to re-arm); -EBUSY if the wheel's pending cap is
 * reached; -ESHUTDOWN if the wheel is being destroyed; -EIDRM if @timer
 * was shut down with hwtimer_shutdown_sync(); -EINVAL, with a warning, if
 * @timer has no wheel or no callback. On error nothing changes.
 */
int hwtimer_start_range(struct hwtimer *timer, u64 time_ns, u64 slack_ns,
			enum hwtimer_mode mode)
{
	hwt_debug_assert_init(timer);
	return hwt_arm(timer, time_ns, slack_ns, 0, mode & HWTIMER_MODE_REL);
}
EXPORT_SYMBOL_GPL(hwtimer_start_range);

/**
 * hwtimer_modify_range - re-arm a timer, pending or not, with slack
 * @timer: a timer set up with hwtimer_setup()
 * @time_ns: the new delay or deadline, as for hwtimer_start_range()
 * @slack_ns: as for hwtimer_start_range()
 * @mode: %HWTIMER_MODE_REL or %HWTIMER_MODE_ABS
 *
 * Equivalent to a cancel and a start done atomically: the timer cannot
 * fire in between, and reads as pending throughout. It moves to this CPU's
 * base unless its callback is running right now; then it stays where it
 * is. hwtimer_modify() is this call with the wheel's default slack.
 *
 * Context: any context, including hard interrupts.
 * Return: 1 if @timer was pending, 0 if it was not, or -EBUSY, -ESHUTDOWN,
 * -EIDRM, -EINVAL as for hwtimer_start_range() (never -EALREADY); on error
 * nothing changes.
 */
int hwtimer_modify_range(struct hwtimer *timer, u64 time_ns, u64 slack_ns,
			 enum hwtimer_mode mode)
{
	hwt_debug_assert_init(timer);
	return hwt_arm(timer, time_ns, slack_ns, 0, (mode & HWTIMER_MODE_REL) | HWT_ARM_MODIFY);
}
EXPORT_SYMBOL_GPL(hwtimer_modify_range);

/**
 * hwtimer_modify_at - re-arm a timer for a deadline, with the caller's clock
 * @timer: a timer set up with hwtimer_setup()
 * @deadline_ns: the new deadline in ns of the wheel's clock, as for
 *               %HWTIMER_MODE_ABS
 * @now_ns: the wheel's clock (hwtimer_wheel_clockid()), read by the caller
 *          before this call
 *
 * hwtimer_modify(@timer, @deadline_ns, %HWTIMER_MODE_ABS), for a caller
 * that arms many timers in one go, or has just read the clock anyway, and
 * reads it once for all of them. @now_ns only tells an idle base how far
 * its clock may move forward before the timer is placed: the timer's tick
 * comes from @deadline_ns (and the wheel's slack), so an earlier @now_ns
 * costs nothing in precision, and a CLOCK_MONOTONIC time, never later than CLOCK_BOOTTIME's,
 * does for a %HWTIMER_WHEEL_BOOTTIME wheel too. A @now_ns later than the
 * present would make this and other timers of the base late, never
 * early.
 *
 * Context: any context, including hard interrupts.
 * Return: as hwtimer_modify_range().
 */
int hwtimer_modify_at(struct hwtimer *timer, u64 deadline_ns, u64 now_ns)
{
	hwt_debug_assert_init(timer);
	return hwt_arm(timer, deadline_ns, HWTIMER_SLACK_DEFAULT, now_ns,
		       HWT_ARM_MODIFY | HWT_ARM_AT);
}
EXPORT_SYMBOL_GPL(hwtimer_modify_at);

/* Cancel @t if pending; the caller holds @base->lock. */
static __always_inline int hwt_cancel_locked(struct hwt_base *base, struct hwtimer *t)
{
	lockdep_assert_held(&base->lock);

	if (!hwtimer_pending(t))
		return 0;
	hwt_dequeue(base, t, true);
	hwt_cap_uncharge(base->wheel);
	base->stats.cancelled++;
	trace_hwtimer_cancel(t);
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

	hwt_debug_assert_init(timer);
	/*
	 * A hint, as in timer_delete(), re-checked under the lock by
	 * hwt_cancel_locked(). A caller ordered after a start (by its own
	 * locking) sees the timer pending: the start's WRITE_ONCE() of pprev
	 * comes before its RELEASE of the base lock, and a moving timer never
	 * reads as idle (hwt_unlink()).
	 */
	if (!hwtimer_pending(timer))
		return 0;
	base = hwt_lock_base(timer, &flags);
	ret = hwt_cancel_locked(base, timer);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(hwtimer_cancel);

/*
 * Whether the caller is @t's callback, as run by the expiry path. Without
 * the lock: only the task running a base's expiry path sets that base's
 * @running_task to itself, and @t stays on the base running its callback
 * (hwt_target_base()), so a true answer is stable; a racing read of
 * another base's fields can only be false.
 *
 * The READ_ONCE()s pair with the WRITE_ONCE()s of @running in
 * hwt_expire_one() and of @running_task in hwt_run(): @running_task reads
 * as this task only by this task's own store, and then so does @running
 * (program order); racing stores of other tasks never read as this one.
 */
static bool hwt_in_own_callback(const struct hwtimer *t)
{
	const struct hwt_base *base = per_cpu_ptr(t->wheel->bases,
						  READ_ONCE(t->flags) & HWT_CPUMASK);

	return READ_ONCE(base->running) == t && READ_ONCE(base->running_task) == current;
}

static int hwt_cancel_wait(struct hwtimer *t, bool shutdown)
{
	struct hwt_base *base;
	unsigned long flags;
	int ret;

	hwt_debug_assert_init(t);
	/*
	 * Before anything that would report it in its own way (might_sleep()
	 * in a softirq callback, lockdep's recursion on the wheel's map) and
	 * before the timer is changed: the one report is this warning.
	 */
	if (unlikely(hwt_in_own_callback(t))) {
		WARN_ONCE(1, "hwtimer: %ps waits for its own callback\n", t->function);
		return -EDEADLK;
	}
	might_sleep();
	/* Tell lockdep we wait for a callback: see timer_delete_sync(). */
	local_irq_save(flags);
	lock_acquire_exclusive(&t->lockdep_map, hwt_lockdep_subclass(t->wheel), 0, NULL,
			       _THIS_IP_);
	lock_map_release(&t->lockdep_map);
	local_irq_restore(flags);

	/*
	 * While the callback runs, leave a pending re-arm alone (as
	 * timer_delete_sync() does) and cancel once it has returned: one call
	 * then cancels at most one arming, so its return value accounts for
	 * every start exactly once.
	 */
	for (;;) {
		base = hwt_lock_base(t, &flags);
		/* WRITE_ONCE(): @flags is read without the lock (hwt_lock_base()). */
		if (shutdown)
			WRITE_ONCE(t->flags, t->flags | HWT_SHUTDOWN);
		if (base->running != t) {
			ret = hwt_cancel_locked(base, t);
			raw_spin_unlock_irqrestore(&base->lock, flags);
			return ret;
		}
		/* Found above, before anything changed: a safety net. */
		if (base->running_task == current) {
			raw_spin_unlock_irqrestore(&base->lock, flags);
			WARN_ONCE(1, "hwtimer: %ps waits for its own callback\n", t->function);
			return -EDEADLK;
		}
		base->sync_waiters++;
		base->post_callback |= HWT_POST_WAKE;
		raw_spin_unlock_irqrestore(&base->lock, flags);

		hwt_sync_wait(base, t);

		raw_spin_lock_irqsave(&base->lock, flags);
		if (!--base->sync_waiters)
			base->post_callback &= ~HWT_POST_WAKE;
		raw_spin_unlock_irqrestore(&base->lock, flags);
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
 * On PREEMPT_RT, for a softirq wheel, the caller lends its priority to the
 * thread running the callback while it waits (as timer_delete_sync()
 * does), so a higher-priority task busy on that CPU cannot stall it.
 *
 * As for timer_delete_sync(), the caller must not hold a lock the callback
 * takes, and a process-context callback that calls it must not wait for a
 * timer whose callback waits for its own. Lockdep reports both, with one
 * class per hwtimer_setup() call site: it also reports a callback waiting
 * for a timer set up at its own timer's call site. A call from @timer's
 * own callback does nothing and fails, with a warning.
 *
 * Context: process context; may sleep.
 * Return: 1 if a pending @timer was cancelled, 0 if it was not pending, or
 * -EDEADLK (with a warning, and @timer left as it was) if called from
 * @timer's own callback.
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

	hwt_debug_assert_init(timer);
	base = hwt_lock_base(timer, &flags);
	if (hwtimer_pending(timer))
		state = HWTIMER_PENDING;
	else if (base->running == timer)
		state = HWTIMER_RUNNING;
	else if (timer->flags & HWT_SHUTDOWN)
		state = HWTIMER_SHUTDOWN;
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return state;
}
EXPORT_SYMBOL_GPL(hwtimer_state);

/**
 * hwtimer_expires - the deadline a timer was last armed for
 * @timer: a timer set up with hwtimer_setup()
 *
 * The deadline in ns of the wheel's clock that the last start or modify
 * asked for (clamped to KTIME_MAX), or that hwtimer_forward() moved it to:
 * not the tick it fires on, which may be up to its slack plus one tick
 * later. 0 for a timer never armed. A snapshot, as hwtimer_pending() is,
 * unless the caller serialises against start, modify and forward (a
 * callback reading its own timer does).
 *
 * Context: any.
 * Return: the deadline in ns.
 */
u64 hwtimer_expires(const struct hwtimer *timer)
{
	/*
	 * Pairs with the WRITE_ONCE()s in hwt_arm() and hwtimer_forward(): a
	 * snapshot, no ordering (a whole 64-bit value on 64-bit kernels).
	 */
	return READ_ONCE(timer->deadline);
}
EXPORT_SYMBOL_GPL(hwtimer_expires);

/**
 * hwtimer_forward - move an expired timer's deadline past now
 * @timer: a timer set up with hwtimer_setup(), not pending
 * @interval_ns: the period in ns, at least 1
 *
 * As hrtimer_forward(): if the timer's deadline has passed, add
 * @interval_ns to it as many times as it takes to put it after now, and
 * return how many times that was (1 + the periods missed). The new
 * deadline is the old one plus whole periods, never now plus a period, so
 * a periodic timer does not drift however late its callbacks run. It
 * does not arm the timer: a periodic callback does
 *
 *	hwtimer_forward(t, period);
 *	hwtimer_start(t, hwtimer_expires(t), HWTIMER_MODE_ABS);
 *
 * A deadline past KTIME_MAX is clamped to it.
 *
 * Context: any; typically the timer's own callback.
 * Return: the number of periods added, 0 if the deadline has not passed
 * (or, with a warning, if @timer is pending or @interval_ns is 0).
 */
u64 hwtimer_forward(struct hwtimer *timer, u64 interval_ns)
{
	struct hwt_base *base;
	unsigned long flags;
	u64 now, overrun = 0, deadline;

	if (WARN_ON_ONCE(!interval_ns))
		return 0;
	hwt_debug_assert_init(timer);
	base = hwt_lock_base(timer, &flags);
	if (WARN_ON_ONCE(hwtimer_pending(timer)))
		goto out_unlock;
	now = hwt_now(timer->wheel);
	deadline = timer->deadline;
	if (now < deadline)
		goto out_unlock;
	overrun = hwt_period_forward(deadline, interval_ns, now, &deadline) + 1;
	/* Read without the lock: hwtimer_expires(). */
	WRITE_ONCE(timer->deadline, min_t(u64, deadline, KTIME_MAX));
out_unlock:
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return overrun;
}
EXPORT_SYMBOL_GPL(hwtimer_forward);

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
	return wheel->time.tick_ns;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_tick_ns);

/**
 * hwtimer_wheel_epoch_ns - when a wheel's tick 0 begins
 * @wheel: the wheel
 *
 * Tick T of the wheel begins at this time plus T * hwtimer_wheel_tick_ns(),
 * on the wheel's clock (hwtimer_wheel_clockid()): a timer fires at the
 * processing of the first tick that begins at or after its deadline. A
 * caller that wants deadlines on tick boundaries, or runs a wheel of its
 * own in step with this one, computes them from these two.
 *
 * Context: any.
 * Return: the epoch, in ns of the wheel's clock.
 */
u64 hwtimer_wheel_epoch_ns(const struct hwtimer_wheel *wheel)
{
	return wheel->time.epoch_ns;
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_epoch_ns);

/**
 * hwtimer_wheel_clockid - the clock a wheel's times are measured on
 * @wheel: the wheel
 *
 * Every deadline the wheel's functions take or report (%HWTIMER_MODE_ABS
 * starts and modifies, hwtimer_expires(), hwtimer_forward(), the lateness
 * counters) is in nanoseconds of this clock, and its bases' hrtimers run
 * on it.
 *
 * Context: any.
 * Return: %CLOCK_BOOTTIME for a wheel created with
 * %HWTIMER_WHEEL_BOOTTIME, else %CLOCK_MONOTONIC.
 */
clockid_t hwtimer_wheel_clockid(const struct hwtimer_wheel *wheel)
{
	return hwt_clockid(wheel);
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_clockid);

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
 * @stats: filled with the counters summed over all CPUs (max_late_ns and
 *         max_hold are the maxima)
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

		raw_spin_lock_irqsave(&base->lock, flags);
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
		/* Each entry the expiry path touched fired or cascaded. */
		stats->visited += s->fired + s->cascaded;
		stats->cascaded += s->cascaded;
		stats->max_hold = max(stats->max_hold, s->max_hold);
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
}
EXPORT_SYMBOL_GPL(hwtimer_wheel_stats);

VISIBLE_IF_KUNIT int hwt_stats_show(struct seq_file *m, void *v)
{
	struct hwtimer_wheel *w = m->private;
	struct hwtimer_stats s;

	hwtimer_wheel_stats(w, &s);
	seq_printf(m, "tick_ns %llu\nslots %u\nlevels %u\nmax_pending %llu\n",
		   w->time.tick_ns, w->slots, w->geom.levels, w->max_pending);
	seq_printf(m, "clock %s\nslack_ns %llu\n",
		   hwt_clockid(w) == CLOCK_BOOTTIME ? "boottime" : "monotonic", w->slack_ns);
	seq_printf(m, "started %llu\nfired %llu\ncancelled %llu\nrejected %llu\n",
		   s.started, s.fired, s.cancelled, s.rejected);
	seq_printf(m, "late %llu\nearly %llu\nmax_late_ns %llu\npending %llu\n",
		   s.late, s.early, s.max_late_ns, s.pending);
	seq_printf(m, "ticks %llu\nwakeups %llu\nvisited %llu\ncascaded %llu\n",
		   s.ticks, s.wakeups, s.visited, s.cascaded);
	seq_printf(m, "max_hold %llu\n", s.max_hold);
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
	if (w->manual)
		hwt_manual_put();
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

/*
 * Set up @w's base on @cpu: its lock, hrtimer, work items and wait queue,
 * and its slots, allocated on @cpu's node (hwt_free() frees them).
 *
 * Context: process context; may sleep.
 * Return: 0, or -ENOMEM.
 */
static int hwt_base_init(struct hwtimer_wheel *w, unsigned int cpu)
{
	struct hwt_base *base = per_cpu_ptr(w->bases, cpu);

	raw_spin_lock_init(&base->lock);
#ifdef CONFIG_PREEMPT_RT
	spin_lock_init(&base->expiry_lock);
#endif
	base->wheel = w;
	base->cpu = cpu;
	base->next_event = U64_MAX;
	base->armed = U64_MAX;
	INIT_HLIST_HEAD(&base->due);
	hwt_hrtimer_setup(&base->hrt, hwt_hrtimer_fn, hwt_clockid(w),
			  HRTIMER_MODE_ABS_PINNED_SOFT);
	INIT_WORK(&base->work, hwt_work_fn);
	hwt_bh_init(&base->cont, hwt_cont_fn);
	init_waitqueue_head(&base->wq);
	base->vectors = kvcalloc(w->geom.nslots, sizeof(*base->vectors), GFP_KERNEL);
	base->pending_map = bitmap_zalloc_node(w->geom.nslots, GFP_KERNEL,
					       cpu_to_node(cpu));
	if (!base->vectors || !base->pending_map)
		return -ENOMEM;
	return 0;
}

/*
 * Add @w to the list of wheels, with its debugfs directory, unless a
 * wheel or another file of hwtimer's debugfs directory has its name.
 *
 * Context: process context; may sleep. Takes hwt_wheels_mutex.
 * Return: 0, or -EEXIST.
 */
static int hwt_register(struct hwtimer_wheel *w)
{
	struct hwtimer_wheel *other;
	struct dentry *d;

	mutex_lock(&hwt_wheels_mutex);
	/* Another file of hwtimer's debugfs directory may hold the name. */
	d = debugfs_lookup(w->name, hwt_debugfs_root);
	if (d) {
		dput(d);
		mutex_unlock(&hwt_wheels_mutex);
		return -EEXIST;
	}
	list_for_each_entry(other, &hwt_wheels, node) {
		if (!strcmp(other->name, w->name)) {
			mutex_unlock(&hwt_wheels_mutex);
			return -EEXIST;
		}
	}
	w->debugfs = debugfs_create_dir(w->name, hwt_debugfs_root);
	debugfs_create_file("stats", 0444, w->debugfs, w, &hwt_stats_fops);
	list_add_tail(&w->node, &hwt_wheels);
	mutex_unlock(&hwt_wheels_mutex);
	return 0;
}

static struct hwtimer_wheel *hwt_create(const struct hwtimer_wheel_config *cfg,
					bool manual, struct module *owner)
{
	struct hwtimer_wheel *w;
	unsigned int cpu;
	int ret;

	ret = hwt_check_config(cfg);
	if (ret)
		return ERR_PTR(ret);

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	strscpy(w->name, cfg->name, sizeof(w->name));
	w->slots = roundup_pow_of_two(cfg->slots);
	hwt_geom_init(&w->geom, w->slots);
	w->max_pending = cfg->max_pending;
	w->slack_ns = cfg->slack_ns;
	w->flags = cfg->flags;
	w->manual = manual;
	if (manual)
		hwt_manual_get();
	w->owner = owner;
	hwt_time_init(&w->time, manual ? 0 : hwt_now(w), cfg->tick_ns);
	INIT_LIST_HEAD(&w->node);

	ret = -ENOMEM;
	if (w->flags & HWTIMER_WHEEL_PROCESS) {
		w->wq = alloc_workqueue("hwtimer-%s", WQ_HIGHPRI | HWT_WQ_PERCPU, 0, w->name);
		if (!w->wq)
			goto out_free;
	}
	w->bases = alloc_percpu(struct hwt_base);
	if (!w->bases)
		goto out_free;
	for_each_possible_cpu(cpu) {
		if (hwt_base_init(w, cpu))
			goto out_free;
	}

	ret = hwt_register(w);
	if (ret)
		goto out_free;
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
 * name ('/' in it, "." or "..") or unknown flags, ERR_PTR(-ENAMETOOLONG)
 * for a name of %HWTIMER_NAME_MAX characters or more, ERR_PTR(-ERANGE) for
 * a tick or slot count outside the HWTIMER_TICK_* / HWTIMER_SLOTS_*
 * bounds, ERR_PTR(-EEXIST) if a wheel of that name exists or another file
 * of hwtimer's debugfs directory has the name, ERR_PTR(-ENOMEM).
 */
struct hwtimer_wheel *__hwtimer_wheel_create(const struct hwtimer_wheel_config *cfg,
					     struct module *owner)
{
	return hwt_create(cfg, false, owner);
}
EXPORT_SYMBOL_GPL(__hwtimer_wheel_create);

/*
 * Pop every timer left on @base, detached, handing each to @fn with the
 * lock dropped (so one timer per lock hold). Returns how many there were.
 */
static unsigned long hwt_drain(struct hwt_base *base,
			       void (*fn)(struct hwtimer *timer, void *arg), void *arg)
{
	unsigned long n = 0;
	struct hwtimer *t;

	raw_spin_lock_irq(&base->lock);
	while ((t = hwt_first_pending(base))) {
		hwt_dequeue(base, t, true);
		hwt_cap_uncharge(base->wheel);
		n++;
		raw_spin_unlock_irq(&base->lock);
		if (fn)
			fn(t, arg);
		raw_spin_lock_irq(&base->lock);
	}
	base->next_event = U64_MAX;
	base->cascading = false;
	raw_spin_unlock_irq(&base->lock);
	return n;
}

/**
 * hwtimer_wheel_destroy - stop a wheel, hand back its timers, free it
 * @wheel: the wheel; not the default wheel. NULL or an ERR_PTR() value
 *         does nothing and returns 0
 * @unprocessed: called once for every timer still pending, after it was
 *               removed (so it may be freed or reused), in process context
 *               with no hwtimer lock held; may be NULL
 * @arg: passed to @unprocessed
 *
 * From the first moment of the call, starts and modifies fail with
 * -ESHUTDOWN and no more callbacks begin. Callbacks already running are
 * waited for; no hrtimer or work item is left armed.
 *
 * Calls on the wheel's timers from other CPUs (start, modify, cancel,
 * state; not cancel_sync or shutdown_sync) may be in flight when destroy
 * is called: they fail with -ESHUTDOWN, or their timer is handed back, or
 * (cancel) they cancel it. None may begin once destroy has been called,
 * and afterwards the timers set up on @wheel must not be used until set up
 * again: destroy waits for the calls in flight (an RCU grace period, all
 * calls running with interrupts disabled), not for later ones.
 *
 * Context: process context; may sleep. Not from a callback of @wheel.
 * Return: the number of timers that were still pending: each was handed
 * to @unprocessed, or, if it is NULL, removed.
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

		raw_spin_lock_irq(&base->lock);
		/* Readers under this lock see it from here on: see @stopped. */
		WRITE_ONCE(wheel->stopped, true);
		base->post_callback |= HWT_POST_HALT;
		raw_spin_unlock_irq(&base->lock);
	}
	/*
	 * Calls on timers run with interrupts disabled (hwt_lock_base()),
	 * which a grace period waits for: those that read @stopped clear
	 * have returned (passes are waited for below), and a start or modify
	 * that was moving a timer between two bases when the wheel stopped
	 * has put it down, on a base drained below.
	 */
	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		struct hwt_base *base = per_cpu_ptr(wheel->bases, cpu);

		/* Neither can re-arm the other once the wheel is stopped. */
		hrtimer_cancel(&base->hrt);
		hwt_bh_kill(&base->cont);
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

		raw_spin_lock_irq(&base->lock);
		base->offline = false;
		/* Never set here: destroy unlists a wheel before it sets it. */
		if (READ_ONCE(w->stopped))
			base->post_callback |= HWT_POST_HALT;
		else
			base->post_callback &= ~HWT_POST_HALT;
		raw_spin_unlock_irq(&base->lock);
	}
	mutex_unlock(&hwt_wheels_mutex);
	return 0;
}

/*
 * Move up to HWT_LOCKED_MAX timers of dead @old to this CPU's base, each
 * for the tick it had: the dead CPU's due work (its hrtimer may have
 * expired unrun, a pass may have stopped with timers on @due) is due at
 * once here, not a tick later. So @new's clock is not moved up to now
 * first; a timer whose tick @new has processed already goes straight on
 * its @due, and @next_event at @new's clock makes the pass come now (the
 * running one, if @new is processing, loops over @due until it is empty).
 * Return: true when @old is empty.
 */
static bool hwt_migrate_some(struct hwtimer_wheel *w, struct hwt_base *old)
{
	struct hwt_base *new;
	struct hwtimer *t;
	unsigned int n;
	bool done;

	local_irq_disable();
	new = this_cpu_ptr(w->bases);
	raw_spin_lock(&new->lock);
	raw_spin_lock_nested(&old->lock, SINGLE_DEPTH_NESTING);
	for (n = 0; n < HWT_LOCKED_MAX; n++) {
		t = hwt_first_pending(old);
		if (!t)
			break;
		/* Pending throughout; the cap's count does not change. */
		hwt_dequeue(old, t, false);
		/* Under both locks; read without them: hwt_lock_base(). */
		WRITE_ONCE(t->flags, (t->flags & ~HWT_CPUMASK) | new->cpu);
		if (t->expires > new->clk) {
			/* Absolute ticks: the tick its slack chose holds here too. */
			hwt_enqueue(new, t, t->expires);
			continue;
		}
		hwt_debug_activate(t);
		hlist_add_head(&t->entry, &new->due);
		new->npending++;
		new->next_event = min(new->next_event, new->clk);
	}
	done = !old->npending;
	if (done) {
		old->next_event = U64_MAX;
		old->armed = U64_MAX;
		old->cascading = false;
	}
	hwt_program(new);
	hwt_check_driver(new);
	raw_spin_unlock(&old->lock);
	raw_spin_unlock(&new->lock);
	local_irq_enable();
	return done;
}

/*
 * Move every timer of dead CPU @cpu's base to live bases (this CPU's, which
 * may change between two chunks), HWT_LOCKED_MAX per hold of the locks.
 */
static void hwt_migrate(struct hwtimer_wheel *w, unsigned int cpu)
{
	struct hwt_base *old = per_cpu_ptr(w->bases, cpu);

	raw_spin_lock_irq(&old->lock);
	old->offline = true;
	old->post_callback |= HWT_POST_HALT;
	raw_spin_unlock_irq(&old->lock);
	/*
	 * The offline flag stops either from re-arming the other. A queued
	 * @cont waits on the dead CPU until its BH work moves, later in the
	 * same hotplug operation, and does nothing then (hwt_cont_fn()).
	 */
	hrtimer_cancel(&old->hrt);
	if (w->wq)
		cancel_work_sync(&old->work);

	while (!hwt_migrate_some(w, old))
		cond_resched();
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

	/* hwt_run() looks at the batch only where it looks at the clock. */
	BUILD_BUG_ON(HWT_EXPIRE_BATCH % HWT_EXPIRE_CHECK);

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
	/*
	 * Clients are gone: only wheels without an owner can be left. No
	 * mutex for the walk: the destroy below is the list's only writer.
	 */
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

	/* Read by hwt_now() with READ_ONCE(); the passes below run here. */
	WRITE_ONCE(w->manual_now, now_ns);
	for_each_possible_cpu(cpu)
		hwt_manual_run_cpu(w, cpu);
}
EXPORT_SYMBOL_IF_KUNIT(hwt_manual_advance);
#endif
