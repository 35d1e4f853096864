// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer under debugobjects (lib/debugobjects.c), as kernel/time/timer.c
 * tracks timer_list. Built only with CONFIG_DEBUG_OBJECTS_TIMERS: a module
 * cannot add a Kconfig symbol of its own, and that one is the kernel's
 * switch for tracking its timers (timer_list, hrtimer), so whoever asks
 * for timers to be checked gets hwtimer's checked too, while a kernel that
 * tracks other objects only (CONFIG_DEBUG_OBJECTS with work items or RCU
 * heads) pays nothing for hwtimer. Without it, the hooks in
 * hwtimer_internal.h are empty inlines.
 *
 * A timer is tracked from hwtimer_setup() on. It is active exactly while
 * it is pending: from hwt_enqueue() (a start or modify queues it) to
 * hwt_dequeue() (it expires, is cancelled or handed back by a wheel's
 * destroy; a modify or a CPU going down moves it, deactivating and
 * activating it again), both under the base lock, a raw spinlock, as
 * timer.c changes a timer_list's state under its own: debugobjects takes
 * only raw spinlocks there, and allocates for its pool only where it may
 * (on PREEMPT_RT never with interrupts off). Every operation on a timer
 * but hwtimer_pending() and hwtimer_expires() first asserts that it was
 * set up.
 *
 * The bugs it reports, and how each is made safe (the fixups):
 *
 * - freeing a pending timer (kfree() of the object embedding it, or
 *   destroy_hwtimer_on_stack()): "ODEBUG: free active". It is cancelled
 *   before its memory goes, so the wheel never reaches freed memory.
 *   hwtimer_cancel(), not hwtimer_cancel_sync(): memory is freed in any
 *   context.
 * - setting up a pending timer: "ODEBUG: init active". It is cancelled,
 *   then set up.
 * - starting, modifying or cancelling a timer never set up: "ODEBUG:
 *   assert_init not available". It is set up, shut down, on the default
 *   wheel, so a start or modify fails with -EIDRM and every later call is
 *   safe; hwtimer_setup() makes it usable.
 *
 * Activating an untracked or an active timer cannot happen past those
 * checks (start asserts first and refuses a pending timer), so it has no
 * fixup: debugobjects reports it and the timer is queued as asked.
 */
#include <linux/bug.h>
#include <linux/debugobjects.h>
#include <linux/export.h>

#include "hwtimer_internal.h"

static void *hwt_debug_hint(void *addr)
{
	struct hwtimer *timer = addr;

	return timer->function;
}

/* The callback of a timer the fixups set up: it is shut down, never runs. */
static void hwt_stub_fn(struct hwtimer *timer)
{
	WARN_ON_ONCE(1);
}

/* hwtimer_setup() of a pending timer. */
static bool hwt_fixup_init(void *addr, enum debug_obj_state state)
{
	struct hwtimer *timer = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	hwtimer_cancel(timer);
	debug_object_init(timer, &hwt_debug_descr);
	return true;
}

/* The memory of a pending timer is being freed. */
static bool hwt_fixup_free(void *addr, enum debug_obj_state state)
{
	struct hwtimer *timer = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	hwtimer_cancel(timer);
	debug_object_free(timer, &hwt_debug_descr);
	return true;
}

/* An operation on a timer that hwtimer_setup() never saw. */
static bool hwt_fixup_assert_init(void *addr, enum debug_obj_state state)
{
	struct hwtimer_wheel *wheel = hwtimer_default_wheel();
	struct hwtimer *timer = addr;

	if (state != ODEBUG_STATE_NOTAVAILABLE || !wheel)
		return false;
	hwtimer_setup(timer, wheel, hwt_stub_fn);
	WRITE_ONCE(timer->flags, timer->flags | HWT_SHUTDOWN);
	return true;
}

const struct debug_obj_descr hwt_debug_descr = {
	.name			= "hwtimer",
	.debug_hint		= hwt_debug_hint,
	.fixup_init		= hwt_fixup_init,
	.fixup_free		= hwt_fixup_free,
	.fixup_assert_init	= hwt_fixup_assert_init,
};

/**
 * hwtimer_setup_on_stack_key - hwtimer_setup_on_stack()'s function
 * @timer: the timer, in the caller's stack frame
 * @wheel: the wheel it will run on
 * @function: the callback
 * @name: the lock class's name (the call site's @timer expression)
 * @key: the call site's lock class
 *
 * Callers use hwtimer_setup_on_stack(), which gives each call site its
 * class: debugobjects is told @timer lives on the stack, then as
 * hwtimer_setup_key().
 *
 * Context: any.
 * Return: nothing.
 */
void hwtimer_setup_on_stack_key(struct hwtimer *timer, struct hwtimer_wheel *wheel,
				hwtimer_fn_t function, const char *name,
				struct lock_class_key *key)
{
	debug_object_init_on_stack(timer, &hwt_debug_descr);
	hwtimer_setup_key(timer, wheel, function, name, key);
}
EXPORT_SYMBOL_GPL(hwtimer_setup_on_stack_key);

/**
 * destroy_hwtimer_on_stack - end the tracking of a timer on the stack
 * @timer: a timer set up with hwtimer_setup_on_stack(); not pending, and
 *         its callback not running
 *
 * Call it before the stack frame holding @timer goes away. A pending
 * @timer is reported and cancelled (but its callback may be running: use
 * hwtimer_cancel_sync() or hwtimer_shutdown_sync() first). Without
 * CONFIG_DEBUG_OBJECTS_TIMERS it does nothing.
 *
 * Context: any.
 * Return: nothing.
 */
void destroy_hwtimer_on_stack(struct hwtimer *timer)
{
	debug_object_free(timer, &hwt_debug_descr);
}
EXPORT_SYMBOL_GPL(destroy_hwtimer_on_stack);
