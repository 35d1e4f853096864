/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uwheel: an in-process hierarchical timing wheel driven by one timerfd,
 * written as a user who does not want one file descriptor per timeout
 * would write it (libuv, nginx, Netty, tokio and William Ahern's
 * timeout.c keep their timeouts in the process and ask the kernel for one
 * wake-up at a time). hwtbench-user measures /dev/hwtimer against it.
 *
 * The design is timeout.c's: UW_LEVELS levels of 64 slots, level k holding
 * the timers whose distance from the wheel's clock has its highest set bit
 * in bits [6k, 6k + 6); a 64-bit occupancy mask per level; timers in
 * intrusive doubly-linked lists, embedded in the user's objects. So:
 *
 *   insert   O(1): a level from fls(distance), a slot from the deadline
 *   cancel   O(1): unlink, clear the slot's bit if it became empty
 *   advance  O(levels) mask operations for any elapsed time, plus one
 *            re-insert per timer moved or expired (each timer moves at
 *            most once per level)
 *   next     O(levels): the first occupied slot of each level, from the
 *            masks
 *
 * Time is in ticks of @tick_ns since CLOCK_MONOTONIC 0; a deadline is
 * rounded up to a tick, so no timer fires early. The user's event loop
 * caches the time once per iteration (uw_update()), as libuv's uv_now()
 * does, and inserts are relative to that cached time. The timerfd is armed
 * for the earliest tick with work and re-armed only when an insert comes
 * earlier than it; a cancel leaves it armed (the wake-up then finds
 * nothing due), as libuv and timeout.c users do.
 */
#ifndef _UWHEEL_H
#define _UWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/timerfd.h>

#define UW_BITS		6
#define UW_SLOTS	(1U << UW_BITS)
#define UW_MASK		(UW_SLOTS - 1)
#define UW_LEVELS	6		/* 36 bits of ticks: two years at 1 ms */
#define UW_MAX		((UINT64_C(1) << (UW_LEVELS * UW_BITS)) - 1)
#define UW_NEVER	UINT64_MAX

struct uw_list {
	struct uw_list *next, *prev;
};

struct uw_timer {
	struct uw_list node;		/* in a slot or the expired list */
	struct uw_list *head;		/* that list, or NULL: not pending */
	uint64_t expires;		/* tick */
	void (*fn)(struct uw_timer *t);
};

struct uw_wheel {
	uint64_t tick_ns;
	uint64_t now_ns;		/* the loop's cached time */
	uint64_t clock;			/* ticks processed up to */
	uint64_t armed;			/* tick the timerfd is armed for */
	uint64_t mask[UW_LEVELS];
	struct uw_list slot[UW_LEVELS][UW_SLOTS];
	struct uw_list expired;
	int tfd;
	unsigned long settime;		/* timerfd_settime() calls made */
};

static inline void uw_list_init(struct uw_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline int uw_list_empty(const struct uw_list *l)
{
	return l->next == l;
}

static inline void uw_list_add_tail(struct uw_list *l, struct uw_list *n)
{
	n->prev = l->prev;
	n->next = l;
	l->prev->next = n;
	l->prev = n;
}

static inline void uw_list_del(struct uw_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

/* Move all of @from to the end of @to; @from becomes empty. */
static inline void uw_list_splice(struct uw_list *to, struct uw_list *from)
{
	if (uw_list_empty(from))
		return;
	from->next->prev = to->prev;
	to->prev->next = from->next;
	from->prev->next = to;
	to->prev = from->prev;
	uw_list_init(from);
}

static inline uint64_t uw_rotr(uint64_t v, unsigned int c)
{
	c &= 63;
	return c ? v >> c | v << (64 - c) : v;
}

static inline uint64_t uw_rotl(uint64_t v, unsigned int c)
{
	c &= 63;
	return c ? v << c | v >> (64 - c) : v;
}

static inline uint64_t uw_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Return: 0, or -1 with errno set (timerfd_create() failed). */
static inline int uw_init(struct uw_wheel *w, uint64_t tick_ns)
{
	unsigned int l, s;

	memset(w, 0, sizeof(*w));
	w->tick_ns = tick_ns;
	w->now_ns = uw_clock_ns();
	w->clock = w->now_ns / tick_ns;
	w->armed = UW_NEVER;
	for (l = 0; l < UW_LEVELS; l++)
		for (s = 0; s < UW_SLOTS; s++)
			uw_list_init(&w->slot[l][s]);
	uw_list_init(&w->expired);
	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	return w->tfd < 0 ? -1 : 0;
}

static inline void uw_timer_init(struct uw_timer *t, void (*fn)(struct uw_timer *t))
{
	memset(t, 0, sizeof(*t));
	t->fn = fn;
}

/* Queue @t for tick @t->expires relative to the wheel's clock. */
static inline void uw_queue(struct uw_wheel *w, struct uw_timer *t)
{
	uint64_t rem;
	unsigned int lvl, s;

	if (t->expires <= w->clock) {
		t->head = &w->expired;
		uw_list_add_tail(&w->expired, &t->node);
		return;
	}
	rem = t->expires - w->clock;
	if (rem > UW_MAX)
		rem = UW_MAX;
	lvl = (63 - __builtin_clzll(rem)) / UW_BITS;
	/*
	 * A coarse slot is emptied one slot period early, when the clock
	 * enters the period before the timer's, so its timers move down
	 * before they are due.
	 */
	s = UW_MASK & ((t->expires >> (lvl * UW_BITS)) - !!lvl);
	t->head = &w->slot[lvl][s];
	uw_list_add_tail(t->head, &t->node);
	w->mask[lvl] |= UINT64_C(1) << s;
}

/* Program the timerfd for tick @tick (UW_NEVER: disarm). */
static inline int uw_arm(struct uw_wheel *w, uint64_t tick)
{
	struct itimerspec its;
	uint64_t ns = tick == UW_NEVER ? 0 : tick * w->tick_ns;

	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = ns / 1000000000ULL;
	its.it_value.tv_nsec = ns % 1000000000ULL;
	/* An absolute time of 0 would disarm it: due now is 1 ns. */
	if (tick != UW_NEVER && !ns)
		its.it_value.tv_nsec = 1;
	w->armed = tick;
	w->settime++;
	return timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/*
 * Start @t (not pending) @delay_ns after the loop's cached time. Return: 0,
 * or -1 if re-arming the timerfd failed.
 */
static inline int uw_add(struct uw_wheel *w, struct uw_timer *t, uint64_t delay_ns)
{
	uint64_t dl = w->now_ns + delay_ns;

	t->expires = (dl + w->tick_ns - 1) / w->tick_ns;
	uw_queue(w, t);
	if (t->expires < w->armed)
		return uw_arm(w, t->expires > w->clock ? t->expires : w->clock);
	return 0;
}

/* Stop @t if it is pending. */
static inline void uw_del(struct uw_wheel *w, struct uw_timer *t)
{
	struct uw_list *head = t->head;
	size_t i;

	if (!head)
		return;
	uw_list_del(&t->node);
	t->head = NULL;
	if (!uw_list_empty(head) || head == &w->expired)
		return;
	/* Its slot is empty now. */
	i = head - &w->slot[0][0];
	w->mask[i / UW_SLOTS] &= ~(UINT64_C(1) << (i % UW_SLOTS));
}

/* The first tick with work (a due slot or a coarse slot to move down). */
static inline uint64_t uw_next(const struct uw_wheel *w)
{
	uint64_t best = UW_NEVER, relmask = 0, t;
	unsigned int lvl, s;

	if (!uw_list_empty(&w->expired))
		return w->clock;
	for (lvl = 0; lvl < UW_LEVELS; lvl++) {
		if (w->mask[lvl]) {
			s = UW_MASK & (w->clock >> (lvl * UW_BITS));
			t = (uint64_t)(__builtin_ctzll(uw_rotr(w->mask[lvl], s)) + !!lvl)
			    << (lvl * UW_BITS);
			t -= relmask & w->clock;
			if (w->clock + t < best)
				best = w->clock + t;
		}
		relmask = relmask << UW_BITS | UW_MASK;
	}
	return best;
}

/* Move the clock to @now_tick: due timers to the expired list, others down. */
static inline void uw_advance(struct uw_wheel *w, uint64_t now_tick)
{
	uint64_t elapsed = now_tick - w->clock, pending, occ;
	struct uw_list todo, *n;
	unsigned int lvl, s;

	if (now_tick <= w->clock)
		return;
	uw_list_init(&todo);
	for (lvl = 0; lvl < UW_LEVELS; lvl++) {
		unsigned int sh = lvl * UW_BITS;

		if ((elapsed >> sh) > UW_MASK) {
			pending = ~UINT64_C(0);
		} else {
			uint64_t e = UW_MASK & (elapsed >> sh);
			uint64_t run = (UINT64_C(1) << e) - 1;
			unsigned int o = UW_MASK & (w->clock >> sh);
			unsigned int ns = UW_MASK & (now_tick >> sh);

			/* The slots from the old position up to the new one. */
			pending = uw_rotl(run, o);
			pending |= uw_rotr(uw_rotl(run, ns), (unsigned int)e);
			pending |= UINT64_C(1) << ns;
		}
		while ((occ = pending & w->mask[lvl])) {
			s = __builtin_ctzll(occ);
			uw_list_splice(&todo, &w->slot[lvl][s]);
			w->mask[lvl] &= ~(UINT64_C(1) << s);
		}
		/* Only a level that wrapped makes the next one turn. */
		if (!(pending & 1))
			break;
		if (elapsed < (uint64_t)UW_SLOTS << sh)
			elapsed = (uint64_t)UW_SLOTS << sh;
	}
	w->clock = now_tick;
	while (!uw_list_empty(&todo)) {
		n = todo.next;
		uw_list_del(n);
		uw_queue(w, (struct uw_timer *)((char *)n - offsetof(struct uw_timer, node)));
	}
}

/* Cache the time, as an event loop does once per iteration. */
static inline void uw_update(struct uw_wheel *w)
{
	w->now_ns = uw_clock_ns();
}

/*
 * The timerfd was readable (or the loop woke for another reason): advance
 * to now, run every due callback, re-arm the timerfd for the next tick with
 * work. Return: callbacks run, or -1 if re-arming failed.
 */
static inline long uw_expire(struct uw_wheel *w)
{
	struct uw_timer *t;
	long ran = 0;
	uint64_t next;

	uw_update(w);
	uw_advance(w, w->now_ns / w->tick_ns);
	/* A one-shot timerfd that expired is disarmed. */
	if (w->armed <= w->clock)
		w->armed = UW_NEVER;
	while (!uw_list_empty(&w->expired)) {
		t = (struct uw_timer *)((char *)w->expired.next -
					offsetof(struct uw_timer, node));
		uw_list_del(&t->node);
		t->head = NULL;
		t->fn(t);
		ran++;
	}
	next = uw_next(w);
	if (next != UW_NEVER && next != w->armed && uw_arm(w, next))
		return -1;
	return ran;
}

#endif /* _UWHEEL_H */
