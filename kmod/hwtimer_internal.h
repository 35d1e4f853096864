/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer internals shared by the per-CPU layer (hwtimer_wheel.c), its
 * debugobjects glue, the module glue and the KUnit tests. Nothing here is
 * an API for other modules.
 */
#ifndef _HWTIMER_INTERNAL_H
#define _HWTIMER_INTERNAL_H

#include <linux/bitops.h>
#include <linux/debugobjects.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/hwtimer.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include "hwtimer_compat.h"
#include "hwtimer_count.h"
#include "hwtimer_wheel.h"

/*
 * Most callbacks one run of the expiry path makes before it yields to a
 * fresh softirq pass: about the 2 ms the softirq loop allows itself, at a
 * few hundred ns per callback. Each yield costs a round of a BH work item
 * the softirq layer. A multiple of HWT_EXPIRE_CHECK.
 */
#define HWT_EXPIRE_BATCH	4096
/*
 * A pass looks at the clock (HWTIMER_PASS_NS) after every this many
 * callbacks, not after each: it stops within this many callbacks of the
 * limit. A callback that batches work of its own stops at the pass's
 * limit too (hwtimer_pass_end()), so past it each of these callbacks does
 * one batch at most.
 */
#define HWT_EXPIRE_CHECK	8
/* About how many entries one pass cascades before it yields. */
#define HWT_TICK_BATCH		4096
/*
 * HWTIMER_PASS_NS (linux/hwtimer.h) is the longest one pass runs,
 * whatever its batches: a callback can cost more than a few hundred ns (a
 * wakeup of many waiters, a lock another CPU holds), and a pass that ran
 * for as long as its callbacks cost would let whoever arms the timers
 * decide how long a softirq runs. Checked after every HWT_EXPIRE_CHECK
 * callbacks and every HWT_LOCKED_MAX cascaded entries, once the pass has
 * made progress.
 */

/*
 * Most timer entries one hold of a base lock moves (cascades, CPU hotplug
 * migration): the lock is held with interrupts off, so its hold time must
 * not grow with the number of timers, which a user controls.
 */
#define HWT_LOCKED_MAX		64

/* struct hwtimer::flags */
#define HWT_CPUMASK		0x0003ffffu
#define HWT_MIGRATING		0x00040000u	/* between two bases: spin */
#define HWT_SHUTDOWN		0x00080000u	/* hwtimer_shutdown_sync() done */
#define HWT_SLACKED		0x00400000u	/* slack moved @expires past D's tick */

/**
 * struct hwt_base - one CPU's share of a wheel
 * @lock: protects every other member except @hrt's internals, @work, @wq
 *        and @expiry_lock, and the timers queued here (their @entry,
 *        @expires, @deadline and @flags). A raw spinlock, taken with
 *        interrupts disabled, as timer_list's and hrtimer's base locks:
 *        timers may be started and cancelled from any context, hard
 *        interrupts included, on PREEMPT_RT too. So nothing that sleeps on
 *        RT (a spinlock_t, a wait queue's lock) is ever taken under it, and
 *        no loop under it runs for more than a constant number of entries
 *        (%HWT_LOCKED_MAX): it is dropped between chunks of a cascade or a
 *        migration and around every callback.
 *        Nesting: two base locks only in CPU hotplug migration (the dead
 *        CPU's nested inside the local one); a start or modify that moves a
 *        timer drops one base lock before taking the other. A base lock is
 *        taken before the hrtimer base lock (hrtimer_start() under @lock),
 *        and after @expiry_lock.
 * @wheel: the wheel this base belongs to
 * @cpu: the CPU this base serves
 * @clk: the wheel's clock (hwtimer_wheel.h): the last tick processed;
 *       every timer in a slot has a later tick
 * @cascading: the slots that begin at @clk above level 0 are not all
 *             emptied yet (a cascade moves %HWT_LOCKED_MAX timers per lock
 *             hold)
 * @next_event: a tick at or before the earliest tick with work (the start
 *              of an occupied slot); U64_MAX when nothing is queued
 * @armed: the tick @hrt is programmed for, 0 when the next pass comes now
 *         (@cont is queued, or @work's loop goes on), or U64_MAX when
 *         neither; at or before the start of the earliest occupied slot
 *         whenever no pass runs ((I3) of hwtimer_wheel.h), and earlier than
 *         @next_event after timers were cancelled or moved away (it then
 *         expires once and finds less, or nothing, to do)
 * @running: the timer whose callback runs now, or NULL; written under
 *            @lock with WRITE_ONCE(), read without it by hwt_sync_wait()
 *            and hwt_in_own_callback()
 * @running_task: the task running the expiry path while @processing, so
 *                the one running @running's callback (detects a callback
 *                that waits for itself); written as @running, read without
 *                the lock by hwt_in_own_callback()
 * @processing: the expiry path is running on this base (it programs @hrt
 *              itself when it finishes)
 * @offline: the CPU is dead; nothing is armed here until it returns
 * @post_callback: what the expiry path must do after a callback, one test
 *                 of a line it holds: %HWT_POST_HALT, set with @offline or
 *                 the wheel's @stopped (stop running callbacks),
 *                 %HWT_POST_WAKE while @sync_waiters is not 0 (wake them);
 *                 written under @lock
 * @npending: timers queued here (wheel slots and @due)
 * @sync_waiters: tasks in hwtimer_cancel_sync() waiting for @running
 *                (%HWT_POST_WAKE in @post_callback: whether there are any)
 * @due: timers whose tick has been processed, taken from their slot, not
 *       yet run
 * @vectors: the slots of all levels, level 0 first (struct hwt_geom)
 * @pending_map: one bit per slot of @vectors: set when the slot is not empty
 * @stats: this CPU's counters
 * @pass_end: while @processing, the local_clock() time at which the
 *            pass's budget (%HWTIMER_PASS_NS) ends; written by the pass before
 *            its first callback, read by its callbacks without the lock
 *            (hwtimer_pass_end()): in the same task, so in program order
 * @hrt: soft, pinned hrtimer that drives the expiry path
 * @work: runs the expiry path for %HWTIMER_WHEEL_PROCESS wheels
 * @cont: a softirq wheel's next pass when one stopped with work left: a
 *        BH work item (a tasklet before 6.9, hwtimer_compat.h)
 * @wq: where hwtimer_cancel_sync() waits for @running to change, except
 *      on PREEMPT_RT for softirq wheels (see @expiry_lock)
 * @expiry_lock: PREEMPT_RT, softirq wheels only: held by the expiry path
 *               while it runs callbacks, so that hwtimer_cancel_sync()
 *               blocks on it and lends its priority to the thread running
 *               the callback, as timer_delete_sync() does with timer_list's
 *               expiry_lock. Taken before @lock.
 */
/* Bits of &struct hwt_base.post_callback. */
#define HWT_POST_HALT		0x1
#define HWT_POST_WAKE		0x2

struct hwt_base {
	raw_spinlock_t		lock;		/* see above */
	struct hwtimer_wheel	*wheel;
	unsigned int		cpu;
	u64			clk;
	bool			cascading;
	u64			next_event;
	u64			armed;
	struct hwtimer		*running;
	struct task_struct	*running_task;
	bool			processing;
	bool			offline;
	u8			post_callback;
	unsigned long		npending;
	unsigned int		sync_waiters;
	struct hlist_head	due;
	struct hlist_head	*vectors;
	unsigned long		*pending_map;
	struct hwtimer_stats	stats;
	u64			pass_end;
	struct hrtimer		hrt;
	struct work_struct	work;
	struct hwt_bh		cont;
	wait_queue_head_t	wq;
#ifdef CONFIG_PREEMPT_RT
	spinlock_t		expiry_lock;	/* see above */
#endif
};

/**
 * struct hwtimer_wheel - a wheel instance
 * @name: copied from the configuration
 * @time: its ticks: the tick length and the time of tick 0 (the epoch) on
 *        the wheel's clock (CLOCK_MONOTONIC, or CLOCK_BOOTTIME with
 *        %HWTIMER_WHEEL_BOOTTIME)
 * @geom: the shape of each base's wheel
 * @slots: level-0 slots, a power of two
 * @max_pending: the cap, 0 for none
 * @slack_ns: default slack of hwtimer_start() and the other calls without
 *            an explicit one (see hwtimer_start_range())
 * @npending: timers pending on the whole wheel; kept only when
 *            @max_pending is set, so uncapped wheels share no cache line on
 *            the hot path
 * @flags: %HWTIMER_WHEEL_* from the configuration
 * @stopped: set by destroy: starts fail with -ESHUTDOWN. Written once,
 *           false to true, under each base lock in turn (WRITE_ONCE), so
 *           a reader under another base lock may race with the write:
 *           READ_ONCE. Once destroy has passed a base, a reader under
 *           that base's lock sees it set; once destroy's
 *           synchronize_rcu() has returned, every call sees it set or
 *           has returned (calls run with interrupts disabled, which
 *           synchronize_rcu() waits for). A reader that sees it clear
 *           goes on as before destroy: what it arms or queues (@hrt,
 *           @cont, @work, a timer) destroy cancels or drains after its
 *           synchronize_rcu().
 * @manual: test wheel: its clock is @manual_now, set by the KUnit tests,
 *          and no hrtimer or work item is ever armed. Read on the hot
 *          paths only behind a static key that is on while a manual wheel
 *          exists (hwt_is_manual()), and only in kernels with KUnit.
 * @manual_now: the manual clock, in ns
 * @bases: the per-CPU bases
 * @wq: workqueue of a %HWTIMER_WHEEL_PROCESS wheel
 * @node: in the global list of wheels (under hwt_wheels_mutex)
 * @owner: the module that created the wheel (NULL: built in, or a manual
 *         test wheel); its unload destroys what it left behind
 * @debugfs: the wheel's debugfs directory
 */
struct hwtimer_wheel {
	char			name[HWTIMER_NAME_MAX];
	struct hwt_time		time;
	struct hwt_geom		geom;
	u32			slots;
	u64			max_pending;
	u64			slack_ns;
	atomic_long_t		npending;
	u32			flags;
	bool			stopped;
	bool			manual;
	u64			manual_now;
	struct hwt_base __percpu *bases;
	struct workqueue_struct	*wq;
	struct list_head	node;
	struct module		*owner;
	struct dentry		*debugfs;
};

/* The wheel, for the module glue. */
int hwt_core_init(void);
void hwt_core_exit(void);

/*
 * debugobjects (hwtimer_debug.c): what the wheel tells it about a timer,
 * under CONFIG_DEBUG_OBJECTS_TIMERS only; otherwise nothing at all.
 */
#ifdef CONFIG_DEBUG_OBJECTS_TIMERS
extern const struct debug_obj_descr hwt_debug_descr;

static inline void hwt_debug_init(struct hwtimer *timer)
{
	debug_object_init(timer, &hwt_debug_descr);
}

static inline void hwt_debug_activate(struct hwtimer *timer)
{
	debug_object_activate(timer, &hwt_debug_descr);
}

static inline void hwt_debug_deactivate(struct hwtimer *timer)
{
	debug_object_deactivate(timer, &hwt_debug_descr);
}

static inline void hwt_debug_assert_init(struct hwtimer *timer)
{
	debug_object_assert_init(timer, &hwt_debug_descr);
}
#else
static inline void hwt_debug_init(struct hwtimer *timer) { }
static inline void hwt_debug_activate(struct hwtimer *timer) { }
static inline void hwt_debug_deactivate(struct hwtimer *timer) { }
static inline void hwt_debug_assert_init(struct hwtimer *timer) { }
#endif

#if IS_ENABLED(CONFIG_KUNIT)
struct hwtimer_wheel *hwt_wheel_create_manual(const struct hwtimer_wheel_config *cfg);
void hwt_manual_advance(struct hwtimer_wheel *wheel, u64 now_ns);
void hwt_manual_run_cpu(struct hwtimer_wheel *wheel, unsigned int cpu);
struct seq_file;
int hwt_stats_show(struct seq_file *m, void *v);
bool hwt_manual_run_once(struct hwtimer_wheel *wheel, unsigned int cpu);
u64 hwt_wheel_now(const struct hwtimer_wheel *wheel);
#endif

#endif /* _HWTIMER_INTERNAL_H */
