/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hwtimer - scalable timeouts on a per-CPU hashed timing wheel.
 *
 * A wheel is an instance with its own tick length, slot count, pending cap
 * and callback context. Timers are embedded in the caller's objects, as
 * struct timer_list is: starting one allocates nothing. A timer is queued on
 * the base of the CPU that starts it; the callback runs on that CPU, in
 * softirq context (default) or in process context from a per-wheel
 * workqueue (HWTIMER_WHEEL_PROCESS). Times are nanoseconds of
 * CLOCK_MONOTONIC, or of CLOCK_BOOTTIME for a HWTIMER_WHEEL_BOOTTIME wheel
 * (hwtimer_wheel_clockid() tells which).
 *
 * Guarantees: a timer never fires before its deadline, and fires at most
 * its slack plus one tick (plus hrtimer and softirq latency) after it, for
 * any delay; the slack is 0 unless the caller (hwtimer_start_range(),
 * hwtimer_modify_range()) or the wheel's configuration gives one. Each
 * start resolves exactly once: the callback runs, or a cancel reports it
 * pending, or destroy hands it back.
 *
 * PREEMPT_RT: the base locks are raw spinlocks, so start, modify, cancel
 * and the queries work from any context, hard interrupts included, on RT
 * as elsewhere, and hold them for a bounded time. Softirqs run in threads
 * there, so "softirq latency" includes the scheduling of that thread;
 * hwtimer_cancel_sync() lends the waiter's priority to it.
 *
 * Debugging: with CONFIG_DEBUG_OBJECTS_TIMERS, debugobjects tracks every
 * timer as it does timer_list, and reports ("ODEBUG: ...") freeing a
 * pending timer, setting up a pending timer and using one never set up;
 * timers on the stack use hwtimer_setup_on_stack() and
 * destroy_hwtimer_on_stack().
 */
#ifndef _LINUX_HWTIMER_H
#define _LINUX_HWTIMER_H

#include <linux/limits.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/types.h>

struct hwtimer;
struct hwtimer_wheel;

/**
 * typedef hwtimer_fn_t - timer callback
 * @timer: the timer that expired; use from_hwtimer() to reach its container
 *
 * Runs with no hwtimer lock held, in softirq context (on PREEMPT_RT, in
 * the preemptible softirq thread) or, for %HWTIMER_WHEEL_PROCESS wheels, in
 * process context, where it may sleep.
 *
 * The contract, as for timer_list callbacks: it may re-arm its own timer
 * (start or modify), and it may free the object embedding @timer, since
 * the wheel never touches @timer once the callback has returned (a
 * hwtimer_cancel_sync() of it must then not be running, which the owner
 * ensures). It must return with the preemption count it was called with;
 * otherwise hwtimer warns and restores it. A process-context callback may
 * wait for other timers with hwtimer_cancel_sync() or
 * hwtimer_shutdown_sync(), under hwtimer_cancel_sync()'s rules (lockdep
 * sees one class per hwtimer_setup() call site); on @timer itself they do
 * nothing and return -EDEADLK, with a warning.
 */
typedef void (*hwtimer_fn_t)(struct hwtimer *timer);

/**
 * struct hwtimer - a timer embedded in the caller's object
 * @entry: link in a wheel slot or in its base's due list; pprev is NULL
 *         when the timer is not pending
 * @expires: absolute expiry, in ticks of the wheel since its epoch: the
 *           deadline's tick, or a later one within the slack
 * @deadline: the requested deadline in ns on the wheel's clock
 *            (CLOCK_MONOTONIC or CLOCK_BOOTTIME); never later than the
 *            tick boundary @expires
 * @function: the callback
 * @wheel: the wheel set by hwtimer_setup()
 * @flags: CPU of the base the timer is queued on, and state bits
 * @slot: index of the wheel slot holding @entry while it is queued there
 * @lockdep_map: with lockdep, the class of the hwtimer_setup() call site
 *               (as timer_setup()'s): held while the callback runs and
 *               taken by hwtimer_cancel_sync(), so lockdep sees a lock the
 *               callback needs held across a wait for that callback
 *
 * All members are private to hwtimer; callers use the functions below.
 * Fields other than @function and @wheel are written under the lock of the
 * base that @flags names; @flags, @deadline and @entry's pprev are also
 * read without it, so past hwtimer_setup() they are stored with
 * WRITE_ONCE().
 */
struct hwtimer {
	struct hlist_node	entry;
	u64			expires;
	u64			deadline;
	hwtimer_fn_t		function;
	struct hwtimer_wheel	*wheel;
	u32			flags;
	u32			slot;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map	lockdep_map;
#endif
};

/**
 * from_hwtimer - the structure that embeds a timer
 * @var: name of the variable of the embedding structure's type
 * @timer: the struct hwtimer pointer passed to the callback
 * @field: the name of the struct hwtimer member inside @var's type
 */
#define from_hwtimer(var, timer, field) \
	container_of(timer, typeof(*(var)), field)

/* Callbacks run in process context from a per-wheel workqueue (may sleep). */
#define HWTIMER_WHEEL_PROCESS		0x1u
/*
 * The wheel runs on CLOCK_BOOTTIME (which counts time spent in suspend)
 * instead of CLOCK_MONOTONIC: every deadline of its timers, absolute or
 * computed from a delay, is a ktime_get_boottime_ns() time.
 */
#define HWTIMER_WHEEL_BOOTTIME		0x2u
#define HWTIMER_WHEEL_FLAGS_MASK	(HWTIMER_WHEEL_PROCESS | HWTIMER_WHEEL_BOOTTIME)

/* Bounds a wheel configuration is checked against. */
#define HWTIMER_TICK_MIN_NS	10000ULL			/* 10 us */
#define HWTIMER_TICK_MAX_NS	(3600ULL * 1000000000ULL)	/* 1 h */
#define HWTIMER_SLOTS_MIN	16u
#define HWTIMER_SLOTS_MAX	65536u
#define HWTIMER_NAME_MAX	32

/**
 * struct hwtimer_wheel_config - how to build a wheel
 * @name: unique name, 1 to %HWTIMER_NAME_MAX - 1 characters without '/',
 *        not "." or ".."; it names the debugfs directory hwtimer/<name>,
 *        so no other wheel or file there may have it: hwtimer's own
 *        take "default" and the names docs/design.md lists
 * @tick_ns: tick length in ns, %HWTIMER_TICK_MIN_NS to %HWTIMER_TICK_MAX_NS
 * @slots: slots in the first wheel level, %HWTIMER_SLOTS_MIN to
 *         %HWTIMER_SLOTS_MAX; rounded up to a power of two
 * @max_pending: cap on timers pending on the whole wheel; 0 is unlimited
 * @flags: %HWTIMER_WHEEL_PROCESS, %HWTIMER_WHEEL_BOOTTIME, both or 0
 * @slack_ns: the slack of hwtimer_start() and hwtimer_modify() (and of
 *            %HWTIMER_SLACK_DEFAULT): their timers may fire up to this
 *            long after the deadline (plus a tick), which lets the wheel
 *            group them on fewer ticks (see hwtimer_start_range()); 0
 *            fires each on its deadline's tick
 */
struct hwtimer_wheel_config {
	const char	*name;
	u64		tick_ns;
	u32		slots;
	u32		flags;
	u64		max_pending;
	u64		slack_ns;
};

/**
 * enum hwtimer_state - what hwtimer_state() reports
 * @HWTIMER_IDLE: not pending and its callback is not running
 * @HWTIMER_PENDING: queued, waiting for its deadline
 * @HWTIMER_RUNNING: its callback is running now (it may also be re-armed;
 *                   then %HWTIMER_PENDING is reported)
 * @HWTIMER_SHUTDOWN: hwtimer_shutdown_sync() was called; it cannot be armed
 */
enum hwtimer_state {
	HWTIMER_IDLE,
	HWTIMER_PENDING,
	HWTIMER_RUNNING,
	HWTIMER_SHUTDOWN,
};

/**
 * struct hwtimer_stats - counters of one wheel, summed over its CPUs
 * @started: successful starts and re-arms
 * @fired: callbacks run
 * @cancelled: pending timers removed by cancel (not counting re-arms)
 * @rejected: starts refused (pending cap, stopped wheel, shut down timer)
 * @late: fires more than one tick after the deadline or, for a timer that
 *        its slack put on a later tick, more than one tick after that tick
 *        began
 * @early: fires before the deadline: always 0, counted to prove it
 * @max_late_ns: the largest lateness seen (expiry time - deadline, slack
 *               included)
 * @pending: timers pending now
 * @ticks: ticks that had work (expired or cascaded something)
 * @wakeups: runs of the expiry path (hrtimer callbacks and work items)
 * @visited: timer entries touched by the expiry path, expired or cascaded
 * @cascaded: entries moved from a coarser level to a finer one
 * @max_hold: the most timer entries the expiry path moved in one hold of a
 *            base lock (cascades): bounded by a constant, however many
 *            timers share a slot
 */
struct hwtimer_stats {
	u64	started;
	u64	fired;
	u64	cancelled;
	u64	rejected;
	u64	late;
	u64	early;
	u64	max_late_ns;
	u64	pending;
	u64	ticks;
	u64	wakeups;
	u64	visited;
	u64	cascaded;
	u64	max_hold;
};

/**
 * enum hwtimer_mode - how a start or modify reads its time, as hrtimer's
 * @HWTIMER_MODE_ABS: a deadline in ns of the wheel's clock
 * @HWTIMER_MODE_REL: a delay in ns from now
 */
enum hwtimer_mode {
	HWTIMER_MODE_ABS = 0x0,
	HWTIMER_MODE_REL = 0x1,
};

/* The slack of hwtimer_start_range() that means the wheel's default. */
#define HWTIMER_SLACK_DEFAULT	U64_MAX

/*
 * The budget of one pass of a wheel's expiry path: once it has run a
 * callback, a pass stops running them about this long after it began,
 * and leaves the rest to a fresh pass, so that how long a softirq runs
 * does not grow with what the callbacks cost. A callback that does a
 * batch of work of its own stops at the same time: hwtimer_pass_end().
 */
#define HWTIMER_PASS_NS		1000000ULL	/* 1 ms */

struct module;
struct hwtimer_wheel *__hwtimer_wheel_create(const struct hwtimer_wheel_config *cfg,
					     struct module *owner);
/*
 * hwtimer_wheel_create(cfg) - create a wheel owned by the calling module:
 * see __hwtimer_wheel_create(). A wheel its module did not destroy by the
 * time the module is unloaded is destroyed then, with a warning.
 */
#define hwtimer_wheel_create(cfg)	__hwtimer_wheel_create(cfg, THIS_MODULE)
unsigned long hwtimer_wheel_destroy(struct hwtimer_wheel *wheel,
				    void (*unprocessed)(struct hwtimer *timer, void *arg),
				    void *arg);
struct hwtimer_wheel *hwtimer_default_wheel(void);
u64 hwtimer_wheel_tick_ns(const struct hwtimer_wheel *wheel);
u64 hwtimer_wheel_epoch_ns(const struct hwtimer_wheel *wheel);
clockid_t hwtimer_wheel_clockid(const struct hwtimer_wheel *wheel);
u32 hwtimer_wheel_slots(const struct hwtimer_wheel *wheel);
void hwtimer_wheel_stats(struct hwtimer_wheel *wheel, struct hwtimer_stats *stats);

void hwtimer_setup_key(struct hwtimer *timer, struct hwtimer_wheel *wheel,
		       hwtimer_fn_t function, const char *name,
		       struct lock_class_key *key);
#ifdef CONFIG_DEBUG_OBJECTS_TIMERS
void hwtimer_setup_on_stack_key(struct hwtimer *timer, struct hwtimer_wheel *wheel,
				hwtimer_fn_t function, const char *name,
				struct lock_class_key *key);
void destroy_hwtimer_on_stack(struct hwtimer *timer);
#else
/* Without debugobjects, a timer on the stack needs nothing special. */
static inline void hwtimer_setup_on_stack_key(struct hwtimer *timer,
					      struct hwtimer_wheel *wheel,
					      hwtimer_fn_t function, const char *name,
					      struct lock_class_key *key)
{
	hwtimer_setup_key(timer, wheel, function, name, key);
}

static inline void destroy_hwtimer_on_stack(struct hwtimer *timer) { }
#endif

/* A lockdep class per call site, as __init_timer() gives timer_setup(). */
#ifdef CONFIG_LOCKDEP
#define __hwtimer_setup(setup, timer, wheel, function)				\
	do {									\
		static struct lock_class_key __key;				\
										\
		setup((timer), (wheel), (function), #timer, &__key);		\
	} while (0)
#else
#define __hwtimer_setup(setup, timer, wheel, function)				\
	setup((timer), (wheel), (function), NULL, NULL)
#endif

/**
 * hwtimer_setup - prepare a timer for use on a wheel
 * @timer: the timer, embedded in the caller's object
 * @wheel: the wheel it will run on (hwtimer_default_wheel() or one of the
 *         caller's)
 * @function: the callback; not NULL (a start or modify of a timer without
 *            one fails with -EINVAL, with a warning)
 *
 * Must be called once before any other operation on @timer, and never
 * while @timer is pending or its callback runs. A timer on the stack is
 * set up with hwtimer_setup_on_stack() instead. Under
 * CONFIG_DEBUG_OBJECTS_TIMERS, debugobjects reports (and makes safe) a
 * setup of a pending timer, any use of a timer never set up, and the
 * freeing of a pending one. With lockdep, each call site of
 * hwtimer_setup() is a lock class of its own, as each of timer_setup()'s.
 *
 * Context: any.
 * Return: nothing.
 */
#define hwtimer_setup(timer, wheel, function) \
	__hwtimer_setup(hwtimer_setup_key, timer, wheel, function)

/**
 * hwtimer_setup_on_stack - hwtimer_setup() for a timer on the stack
 * @timer: the timer, in the caller's stack frame
 * @wheel: the wheel it will run on
 * @function: the callback
 *
 * As hwtimer_setup(), for a timer (or an object embedding one) that is a
 * local variable: debugobjects is told it lives on the stack. Call
 * destroy_hwtimer_on_stack() before the function returns. Without
 * CONFIG_DEBUG_OBJECTS_TIMERS this is hwtimer_setup().
 *
 * Context: any.
 * Return: nothing.
 */
#define hwtimer_setup_on_stack(timer, wheel, function) \
	__hwtimer_setup(hwtimer_setup_on_stack_key, timer, wheel, function)

int hwtimer_start_range(struct hwtimer *timer, u64 time_ns, u64 slack_ns,
			enum hwtimer_mode mode);
int hwtimer_modify_range(struct hwtimer *timer, u64 time_ns, u64 slack_ns,
			 enum hwtimer_mode mode);
int hwtimer_modify_at(struct hwtimer *timer, u64 deadline_ns, u64 now_ns);

/**
 * hwtimer_start - arm a timer, with the wheel's default slack
 * @timer: a timer set up with hwtimer_setup() and not pending
 * @time_ns: a delay (%HWTIMER_MODE_REL) or a deadline (%HWTIMER_MODE_ABS)
 * @mode: how to read @time_ns
 *
 * hwtimer_start_range() with %HWTIMER_SLACK_DEFAULT: the slack is the
 * wheel's &hwtimer_wheel_config.slack_ns, 0 unless its creator set one.
 *
 * Context: any context, including hard interrupts.
 * Return: as hwtimer_start_range().
 */
static inline int hwtimer_start(struct hwtimer *timer, u64 time_ns, enum hwtimer_mode mode)
{
	return hwtimer_start_range(timer, time_ns, HWTIMER_SLACK_DEFAULT, mode);
}

/**
 * hwtimer_modify - re-arm a timer, with the wheel's default slack
 * @timer: a timer set up with hwtimer_setup()
 * @time_ns: a delay (%HWTIMER_MODE_REL) or a deadline (%HWTIMER_MODE_ABS)
 * @mode: how to read @time_ns
 *
 * hwtimer_modify_range() with %HWTIMER_SLACK_DEFAULT: the wheel's slack,
 * as for hwtimer_start().
 *
 * Context: any context, including hard interrupts.
 * Return: as hwtimer_modify_range().
 */
static inline int hwtimer_modify(struct hwtimer *timer, u64 time_ns, enum hwtimer_mode mode)
{
	return hwtimer_modify_range(timer, time_ns, HWTIMER_SLACK_DEFAULT, mode);
}

int hwtimer_cancel(struct hwtimer *timer);
int hwtimer_cancel_sync(struct hwtimer *timer);
int hwtimer_shutdown_sync(struct hwtimer *timer);
enum hwtimer_state hwtimer_state(struct hwtimer *timer);
u64 hwtimer_expires(const struct hwtimer *timer);
u64 hwtimer_forward(struct hwtimer *timer, u64 interval_ns);
u64 hwtimer_pass_end(const struct hwtimer *timer);

/**
 * hwtimer_pending - is a timer queued?
 * @timer: the timer
 *
 * Lockless snapshot, as timer_pending(): the answer may be stale by the time
 * the caller looks at it unless the caller serialises against start, cancel
 * and expiry itself.
 *
 * Context: any.
 * Return: true if @timer is queued and its callback has not started.
 */
static inline bool hwtimer_pending(const struct hwtimer *timer)
{
	/*
	 * Pairs with the WRITE_ONCE()s of pprev under the base lock: the hlist
	 * helpers' and hwtimer's own where a timer stops being pending. A
	 * timer that moves keeps a non-NULL pprev.
	 */
	return !hlist_unhashed_lockless(&timer->entry);
}

#endif /* _LINUX_HWTIMER_H */
