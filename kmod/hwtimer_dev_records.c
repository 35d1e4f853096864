// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: records, and the expiry pass that makes them.
 *
 * The expiry pass
 * ---------------
 * The file's driving timer (hwtimer_dev_wheel.c) begins a pass: it runs
 * the file's wheel up to the pass's target, the tick that contained the
 * clock when the pass began, under the file lock, HWTD_HOLD_MAX entries
 * per hold (expired, cascaded, or records moved from the kernel queue to
 * the ring), the lock dropped between holds. In softirq context it stops
 * after the first hold that ends past the budget of the per-CPU wheel's
 * pass running it (hwtimer_pass_end(): HWTIMER_PASS_NS from that pass's start,
 * the callbacks it ran before this one included) and hands the rest to
 * @work, on the device's unbound workqueue (hwtd_wq), which goes on in
 * slices of HWTIMER_PASS_NS, queueing itself again behind the other work
 * between two slices. When nothing up to the target is left, the pass
 * arms the driving timer for the next tick with work, after the target.
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
 * timeouts of different ticks in tick order (the wheel moves to one next
 * tick with work at a time).
 *
 * Where records go
 * ----------------
 * A timeout that expires leaves its wheel as a record: into the file's
 * completion ring when it has one with room and nothing waits before it,
 * else into the kernel queue, a FIFO linked through the timeouts, which
 * read() empties and which moves to the ring as room appears (at each
 * expiry pass and at each call that looks at the file: poll, ioctl).
 *
 * The ring is io_uring's completion queue for struct hwtimer_expiry
 * records: pages of the file (charged to the memory cgroup of the task
 * that made it), mapped by user space with mmap() and by the kernel with
 * vmap(). The kernel writes records at its own copy of the tail and
 * publishes the tail with release semantics; user space reads up to the
 * tail and writes the head. The head is hostile input: it is read with
 * smp_load_acquire() once per hold of the file lock, never used as an
 * index, and a head that claims more records than the ring holds (tail -
 * head > entries) makes the ring count as full, so records wait in the
 * kernel queue until user space writes a sane head. Records are written at
 * tail & mask only. Nothing the kernel reads back from the shared pages
 * but the head; user space may scribble anywhere in them and only hurts
 * what it reads.
 *
 * A record that leaves the kernel (to the ring, or by read()) consumes the
 * timeout: a one-shot one ends, its entry is freed and its id dies; a
 * periodic one is armed again for the first period that ends after that
 * moment, the periods skipped counted as its overrun (fs/timerfd.c's
 * rule), so a timeout has at most one record in the kernel.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hwtimer_compat.h"
#include "hwtimer_dev_account.h"
#include "hwtimer_dev_records.h"
#include "hwtimer_dev_table.h"
#include "hwtimer_dev_wheel.h"

/* The layout of the ring's mapping: head, tail, flags, then the records. */
#define HWTD_RING_HEAD_OFF	0
#define HWTD_RING_TAIL_OFF	64
#define HWTD_RING_FLAGS_OFF	128
#define HWTD_RING_RECORDS_OFF	192

/**
 * struct hwtd_ring - a file's completion ring
 * @kaddr: the kernel's mapping of @pages
 * @head: in @kaddr, written by user space: read once per use, with
 *        smp_load_acquire() before entries are overwritten, else
 *        READ_ONCE()
 * @utail: in @kaddr, the tail user space reads
 * @uflags: in @kaddr, the HWTIMER_RING_* flags user space reads
 * @recs: in @kaddr, the records
 * @pages: the pages, @npages of them
 * @npages: pages of the mapping
 * @entries: records it holds, a power of two
 * @tail: the kernel's tail: one past the last record written
 * @flags: the flags last written to @uflags
 * @offset: the time namespace offsets, monotonic and boottime, of the task
 *          that made the ring: its records carry that namespace's times
 *
 * Every member but the shared pages' contents is set once, or changed
 * under the file lock.
 */
struct hwtd_ring {
	void			*kaddr;
	u32			*head;
	u32			*utail;
	u32			*uflags;
	struct hwtimer_expiry	*recs;
	struct page		**pages;
	unsigned int		npages;
	u32			entries;
	u32			tail;
	u32			flags;
	s64			offset[HWTD_CLOCKS];
};

/**
 * hwtd_hold_now() - the file's clock for this hold of the file lock
 * @file: the file
 * @hold: the hold
 *
 * Context: the file lock held.
 * Return: host ns of the file's clock, read at the first call in @hold.
 */
u64 hwtd_hold_now(struct hwtd_file *file, struct hwtd_hold *hold)
{
	hwtd_lockdep_assert(file);
	if (!hold->have_now) {
		hold->now = hwtd_clock_now(file);
		hold->have_now = true;
	}
	return hold->now;
}

/*
 * Records the ring can take in this hold: the head is read once per hold;
 * a hostile one (more used than the ring holds) leaves no room.
 */
static u32 hwtd_ring_room(struct hwtd_file *file, struct hwtd_hold *hold)
{
	struct hwtd_ring *ring = file->ring;
	u32 used;

	if (!hold->have_room) {
		/*
		 * Pairs with user space's store-release of the head
		 * (libhwtimer's ring_release()): the consumer's loads of the
		 * records below a head come before it, and this ACQUIRE orders
		 * the stores that overwrite their entries after it
		 * (core-api/circular-buffers.rst, the producer's side).
		 */
		used = ring->tail - smp_load_acquire(ring->head);
		hold->room = used > ring->entries ? 0 : ring->entries - used;
		hold->have_room = true;
	}
	return hold->room;
}

/*
 * hwtd_leave() stores each of these fields, and the records it writes are
 * not zeroed first (the ring's entry, read()'s buffer): a field added to
 * the record must be stored there too, or read() would show kernel bytes.
 */
static_assert(sizeof(struct hwtimer_expiry) == 48 &&
	      offsetofend(struct hwtimer_expiry, reserved) == 48);

/*
 * A periodic timeout's record leaves: armed again for the first period
 * that ends after the hold's clock, the periods skipped counted in the
 * record's overrun. Out of line: the rare case of hwtd_leave().
 */
static noinline void hwtd_leave_rearm(struct hwtd_file *file, struct hwtd_hold *hold,
				      u32 idx, struct hwtd_extra *x,
				      struct hwtimer_expiry *rec)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);
	u64 now = hwtd_hold_now(file, hold);

	rec->overrun = hwt_period_forward(s->deadline, x->period, now, &s->deadline);
	rec->flags = HWTIMER_EXPIRY_REARMED;
	hwtd_wheel_rearm(file, idx, x->slack, now);
}

/**
 * hwtd_leave() - the record of an expired timeout leaves the kernel
 * @file: the file
 * @hold: the hold
 * @idx: the timeout, expired (its @expired set) and on no list
 * @rec: set to the record
 * @offset: the time namespace offset its times are shown in
 *
 * A one-shot timeout ends; a periodic one is armed again
 * (hwtd_leave_rearm()).
 *
 * Context: the file lock held.
 */
static __always_inline void hwtd_leave(struct hwtd_file *file, struct hwtd_hold *hold,
				       u32 idx, struct hwtimer_expiry *rec, s64 offset)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);
	struct hwtd_extra *x = hwtd_extra_get(file, idx);

	/*
	 * Every field, one store each (no padding: 48 bytes), and nothing
	 * else: the record is written once, with no memset() first.
	 */
	rec->id = hwtd_id(s, idx);
	rec->cookie = s->cookie;
	rec->deadline_ns = hwtd_time_from_host(s->deadline, offset);
	rec->expired_ns = hwtd_time_from_host(s->expired, offset);
	rec->overrun = 0;
	rec->flags = 0;
	rec->reserved = 0;
	if (likely(!x || !x->period))
		hwtd_end(file, hold, idx);
	else
		hwtd_leave_rearm(file, hold, idx, x, rec);
}

/*
 * Write the record of expired timeout @idx into the ring, which has room:
 * straight into its entry, plain stores, which the tail's RELEASE at the
 * hold's end (hwtd_ring_publish()) orders before it. Only the kernel's
 * copy of a record's fields is ever read.
 */
static __always_inline void hwtd_ring_put(struct hwtd_file *file, struct hwtd_hold *hold,
					  u32 idx)
{
	struct hwtd_ring *ring = file->ring;

	hwtd_leave(file, hold, idx, &ring->recs[ring->tail & (ring->entries - 1)],
		   ring->offset[file->boottime]);
	ring->tail++;
	hold->room--;
}

/**
 * hwtd_deliver() - a due timeout expires: its record goes out
 * @file: the file
 * @hold: the hold, whose clock stamps the record
 * @idx: the timeout, pending and on no list
 *
 * To the ring if the file has one with room and the kernel queue is
 * empty (records keep their order), else to the tail of the kernel queue.
 *
 * Context: the file lock held.
 */
void hwtd_deliver(struct hwtd_file *file, struct hwtd_hold *hold, u32 idx)
{
	struct hwtd_timeout *s = hwtd_timeout_at(file, idx);

	s->expired = hwtd_hold_now(file, hold);
	if (!hold->delivered) {
		hold->delivered = true;
		hold->empty0 = !file->nqueued;
		hold->tail0 = file->ring ? file->ring->tail : 0;
	}
	if (file->ring && !file->nqueued && hwtd_ring_room(file, hold)) {
		hwtd_ring_put(file, hold, idx);
		return;
	}
	s->state = HWTD_QUEUED;
	hwtd_list_add(file, HWTD_LIST_QUEUE, idx);
	/* read() waits on it without the lock: see @nqueued. */
	WRITE_ONCE(file->nqueued, file->nqueued + 1);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_deliver);

/**
 * hwtd_refill() - move records from the kernel queue to the ring
 * @file: the file
 * @hold: the hold
 * @max: the most records to move
 *
 * Context: the file lock held.
 * Return: the records moved; fewer than @max when the queue is empty, the
 * ring full, or there is no ring.
 */
unsigned int hwtd_refill(struct hwtd_file *file, struct hwtd_hold *hold, unsigned int max)
{
	unsigned int n = 0;
	u32 idx;

	hwtd_lockdep_assert(file);
	if (!file->ring)
		return 0;
	while (n < max && file->nqueued && hwtd_ring_room(file, hold)) {
		idx = hwtd_list_first(file, HWTD_LIST_QUEUE);
		hwtd_list_del(file, idx);
		WRITE_ONCE(file->nqueued, file->nqueued - 1);
		hwtd_ring_put(file, hold, idx);
		n++;
	}
	return n;
}

/**
 * hwtd_dequeue() - take records off the kernel queue, for read()
 * @file: the file
 * @hold: the hold
 * @recs: where the records go
 * @max: the most to take
 * @offset: the time namespace offset their times are shown in
 *
 * Context: the file lock held.
 * Return: how many were taken.
 */
unsigned int hwtd_dequeue(struct hwtd_file *file, struct hwtd_hold *hold,
			  struct hwtimer_expiry *recs, unsigned int max, s64 offset)
{
	unsigned int n = 0;
	u32 idx;

	hwtd_lockdep_assert(file);
	while (n < max) {
		idx = hwtd_list_first(file, HWTD_LIST_QUEUE);
		if (idx == HWTD_NIL)
			break;
		hwtd_list_del(file, idx);
		WRITE_ONCE(file->nqueued, file->nqueued - 1);
		hwtd_leave(file, hold, idx, &recs[n++], offset);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_dequeue);

/*
 * Publish the ring's tail and flags word, in the order the consumer's
 * checks need (Documentation/memory-barriers.txt: each release below pairs
 * with an acquire load of the same word by the consumer, libhwtimer's
 * ring_avail() for one):
 *
 *  - the records below the tail before the tail: the tail is stored with
 *    release semantics; a consumer that loads it with acquire semantics
 *    then reads whole records;
 *  - a %HWTIMER_RING_OVERFLOW that this hold sets before the tail: a
 *    consumer that has loaded the new tail (acquire) and emptied the ring
 *    then sees the flag and takes the queue's records, instead of taking
 *    the ring for all there is;
 *  - a flag that this hold clears after the tail, with release semantics:
 *    a consumer that loads the flags (acquire) and finds them clear, then
 *    loads the tail, sees every record this hold moved from the queue into
 *    the ring, so that "clear, and the ring empty" means nothing waits.
 *
 * A consumer that loads the flags first and the tail next (as the wait
 * protocol of hwtimer(4) has it) thus never concludes that nothing waits
 * while records do, whichever of the two changed last.
 */
static void hwtd_ring_publish(struct hwtd_ring *ring, u32 flags)
{
	if (flags != ring->flags && flags) {
		ring->flags = flags;
		/* Ordered before the tail by its RELEASE below. */
		WRITE_ONCE(*ring->uflags, flags);
	}
	/* Pairs with the consumer's load-acquire of the tail: see above. */
	smp_store_release(ring->utail, ring->tail);
	if (flags != ring->flags) {
		ring->flags = flags;
		/* A flag cleared after the tail; pairs with its load-acquire. */
		smp_store_release(ring->uflags, flags);
	}
}

/**
 * hwtd_hold_end() - finish a hold of the file lock
 * @file: the file
 * @hold: the hold
 *
 * Publishes the ring's tail and flags (hwtd_ring_publish()), uncharges the
 * timeouts that ended, and decides whether the file's waiters must be
 * woken: when records arrived on a file that had none. Without a ring that
 * is the kernel queue going from empty to not; with one, the queue was
 * empty and, read after the tail and the flags were published and a full
 * barrier, the head had consumed every record written before this hold
 * (or is hostile). A consumer that stores the head, issues a full barrier
 * and then loads the flags and the tail (hwtimer(4), RING) therefore
 * either sees what this hold published or is woken: the two full barriers
 * order each side's store before its load, so at least one of the two
 * loads sees the other side's store.
 *
 * Context: the file lock held.
 */
void hwtd_hold_end(struct hwtd_file *file, struct hwtd_hold *hold)
{
	struct hwtd_ring *ring = file->ring;
	u32 used0;

	hwtd_lockdep_assert(file);
	if (ring)
		hwtd_ring_publish(ring, file->nqueued ? HWTIMER_RING_OVERFLOW : 0);
	if (hold->freed)
		hwtd_hold_uncharge(file, hold);
	if (!hold->delivered || !hold->empty0)
		return;
	/*
	 * A blocked read() takes only the kernel queue: it is woken when the
	 * queue fills, also when the ring still holds records (then the
	 * file had records, and its pollers are not woken).
	 */
	if (file->nqueued)
		hold->rwake = true;
	if (!ring) {
		hold->wake = true;
		return;
	}
	/*
	 * The tail and flags above before the head below; pairs with the
	 * consumer's full barrier between its store of the head and its
	 * loads of the flags and the tail (see the comment above).
	 */
	smp_mb();
	/* Only compared, never a licence to overwrite: no ACQUIRE. */
	used0 = hold->tail0 - READ_ONCE(*ring->head);
	if (!used0 || used0 > ring->entries)
		hold->wake = true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_hold_end);

/**
 * hwtd_hold_wake() - wake the file's waiters if the hold said so
 * @file: the file
 * @hold: the hold, ended
 *
 * wq_has_sleeper()'s smp_mb() orders the hold's stores (under the lock,
 * dropped since) before the test for waiters. It pairs with read()'s
 * wait_event_interruptible(), which queues itself and sets its state (a
 * full barrier) before it loads @nqueued; a poller queues itself in
 * poll_wait() before hwtd_has_records() takes the file lock, which orders
 * that before the hold or the hold before its test.
 *
 * Context: any; the file lock not held.
 */
void hwtd_hold_wake(struct hwtd_file *file, struct hwtd_hold *hold)
{
	if (hold->wake && wq_has_sleeper(&file->wq))
		wake_up_poll(&file->wq, EPOLLIN | EPOLLRDNORM);
	if (hold->rwake && wq_has_sleeper(&file->rwq))
		wake_up(&file->rwq);
	hold->wake = false;
	hold->rwake = false;
}

/**
 * hwtd_has_records() - whether the file has a record to consume
 * @file: the file
 *
 * Moves queued records to the ring first, as far as it has room:
 * %HWTD_HOLD_MAX records per hold of the file lock, and at most the ring's
 * size in all, however fast another thread consumes them.
 *
 * Context: process, may sleep (between holds); takes the file lock.
 * Return: true when the ring or the kernel queue holds a record (or the
 * ring's head is hostile).
 */
bool hwtd_has_records(struct hwtd_file *file)
{
	struct hwtd_hold hold;
	unsigned int moved, total = 0;
	bool ret;

	for (;;) {
		memset(&hold, 0, sizeof(hold));
		spin_lock_bh(&file->lock);
		moved = hwtd_refill(file, &hold, HWTD_HOLD_MAX);
		hwtd_hold_end(file, &hold);
		/* The head is only compared here: READ_ONCE(), no ACQUIRE. */
		ret = file->nqueued ||
		      (file->ring && file->ring->tail != READ_ONCE(*file->ring->head));
		spin_unlock_bh(&file->lock);
		total += moved;
		if (moved < HWTD_HOLD_MAX || total >= hwtd_ring_entries(file))
			return ret;
		cond_resched();
	}
}

/* ---- the device's workqueue ---------------------------------------------- */

/*
 * Where files' expiry passes go on once they have spent their softirq
 * budget, a slice of at most HWTIMER_PASS_NS per work
 * item run. Unbound: its work items are not concurrency-managed, on any
 * kernel, so a slice never holds up another file's work nor any of the
 * per-CPU work of the CPU that queued it (on 6.1, a busy item of a per-CPU
 * workqueue keeps every later item of that CPU's pool waiting), and the
 * scheduler runs each where there is room, at normal priority, as fairly
 * as any task.
 */
struct workqueue_struct *hwtd_wq;
struct hwtd_ring_stats hwtd_ring_stats;

/**
 * hwtd_expiry_wq_init() - make the device's workqueue
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int hwtd_expiry_wq_init(void)
{
	hwtd_wq = alloc_workqueue("hwtimer-dev", WQ_UNBOUND, 0);
	return hwtd_wq ? 0 : -ENOMEM;
}

/**
 * hwtd_expiry_wq_exit() - free the device's workqueue
 *
 * Context: module exit: each file cancelled its work when it closed.
 */
void hwtd_expiry_wq_exit(void)
{
	destroy_workqueue(hwtd_wq);
}

/* ---- the expiry pass ------------------------------------------------------ */

/**
 * hwtd_expire() - expire what is due, up to the pass's target
 * @file: the file, in a pass
 * @hold: this hold of the file lock, whose clock stamps the records
 * @budget: entries this hold may still process; decremented
 *
 * Context: the file lock held.
 * Return: true when nothing up to the target is left to do.
 */
bool hwtd_expire(struct hwtd_file *file, struct hwtd_hold *hold, unsigned int *budget)
{
	bool done;
	u32 idx;

	while ((idx = hwtd_wheel_take_due(file, budget, &done)) != HWTD_NIL)
		hwtd_deliver(file, hold, idx);
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_expire);

/*
 * Go on with the file's expiry pass: hold the file lock for one chunk of
 * work at a time (HWTD_HOLD_MAX records moved from the kernel queue to the
 * ring, and HWTD_HOLD_MAX entries expired or cascaded up to the target),
 * until nothing up to the target is left or, after a hold, local_clock()
 * is past @end. Between holds the lock is dropped, the waiters woken and,
 * in process context (@can_sleep), the CPU offered to others. The first
 * hold's clock gives the pass its target (hwtd_wheel_pass_target()).
 *
 * Context: the file lock held, *@hold zeroed; returns with it held and
 * *@hold the last hold, ended but not yet woken.
 * Return: true when the pass is done (or the file is closing).
 */
static bool hwtd_pass_holds(struct hwtd_file *file, struct hwtd_hold *hold, u64 end,
			    bool can_sleep)
	__must_hold(&file->lock)
{
	unsigned int budget;
	bool done;

	for (;;) {
		hwtd_wheel_pass_target(file, hwtd_hold_now(file, hold));
		budget = HWTD_HOLD_MAX;
		done = hwtd_refill(file, hold, budget) < budget;
		budget = HWTD_HOLD_MAX;
		done &= hwtd_expire(file, hold, &budget);
		hwtd_hold_end(file, hold);
		if (done || local_clock() > end)
			return done;
		spin_unlock_bh(&file->lock);
		hwtd_hold_wake(file, hold);
		memset(hold, 0, sizeof(*hold));
		if (can_sleep)
			cond_resched();
		spin_lock_bh(&file->lock);
		if (file->closing)
			return true;
	}
}

/*
 * A slice of the file's expiry pass, until @end (see the top of this
 * file): its beginning, from the driving timer's callback (@begin), or its
 * continuation, from @work. Return: true when the pass is done, or none
 * could begin.
 */
static bool hwtd_pass_slice(struct hwtd_file *file, bool begin, u64 end, bool can_sleep)
{
	struct hwtd_hold hold = { };
	u64 t0 = local_clock();
	bool done;

	spin_lock_bh(&file->lock);
	if (begin ? !hwtd_wheel_pass_begin(file) : file->closing) {
		spin_unlock_bh(&file->lock);
		return true;
	}
	done = hwtd_pass_holds(file, &hold, end, can_sleep);
	if (done)
		hwtd_wheel_pass_end(file, hwtd_hold_now(file, &hold));
	file->expiry_ns += local_clock() - t0;
	spin_unlock_bh(&file->lock);
	hwtd_hold_wake(file, &hold);
	return done;
}

/*
 * The driving timer fired: a pass begins, in softirq context, until the
 * end of the budget of the per-CPU wheel's pass that runs the callback
 * (hwtimer_pass_end()), after one hold at least; the rest goes to @work.
 */
static void hwtd_timer_fn(struct hwtimer *timer)
{
	struct hwtd_file *file = container_of(timer, struct hwtd_timer, timer)->file;

	if (!hwtd_pass_slice(file, true, hwtimer_pass_end(timer), false))
		queue_work(hwtd_wq, &file->work);
}

/*
 * One slice of a pass that went on past its softirq budget: at most
 * HWTIMER_PASS_NS (plus one hold), then, if the pass is not done, @work is
 * queued again, behind whatever else waits for the device's workqueue, so
 * no slice and no work item runs without end.
 */
static void hwtd_work_fn(struct work_struct *work)
{
	struct hwtd_file *file = container_of(work, struct hwtd_file, work);

	if (!hwtd_pass_slice(file, false, local_clock() + HWTIMER_PASS_NS, true))
		queue_work(hwtd_wq, &file->work);
	else
		hwtd_trim(file);
}

/**
 * hwtd_expiry_init() - set up a file's expiry passes
 * @file: the file
 * @wheels: the device's wheels, by precision and clock, one driving timer
 *          on each
 *
 * Context: process, before the file is in use.
 */
void hwtd_expiry_init(struct hwtd_file *file,
		      struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS])
{
	hwtd_wheel_timers_init(file, wheels, hwtd_timer_fn);
	INIT_WORK(&file->work, hwtd_work_fn);
}

/**
 * hwtd_expiry_stop() - stop a file's expiry passes for good
 * @file: the file, being released
 *
 * After it, no pass runs or will run.
 *
 * Context: process; may sleep.
 */
void hwtd_expiry_stop(struct hwtd_file *file)
{
	/* The timers' callbacks queue @work: stop them first. */
	hwtd_wheel_stop(file);
	if (!hwtd_is_manual(file))
		cancel_work_sync(&file->work);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * hwtd_kunit_run() - an expiry pass of a manual file at a given time
 * @file: the file
 * @now: its clock, host ns
 *
 * The pass the driving timer would run, to the end.
 *
 * Context: process; takes the file lock.
 */
void hwtd_kunit_run(struct hwtd_file *file, u64 now)
{
	struct hwtd_hold hold = { };

	/* Read by hwtd_clock_now() with READ_ONCE(): a value, no order. */
	WRITE_ONCE(file->manual_now, now);
	spin_lock_bh(&file->lock);
	if (hwtd_wheel_pass_begin(file)) {
		/* No end: it returns when the pass is done. */
		hwtd_pass_holds(file, &hold, U64_MAX, true);
		hwtd_wheel_pass_end(file, hwtd_hold_now(file, &hold));
	}
	spin_unlock_bh(&file->lock);
	hwtd_hold_wake(file, &hold);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_run);

/**
 * hwtd_kunit_read() - take records off the kernel queue, as read() does
 * @file: a manual file
 * @recs: where they go, times in host ns (deadlines at most KTIME_MAX)
 * @max: the most to take
 *
 * Context: process; takes the file lock.
 * Return: how many were taken.
 */
unsigned int hwtd_kunit_read(struct hwtd_file *file, struct hwtimer_expiry *recs,
			     unsigned int max)
{
	struct hwtd_hold hold = { };
	unsigned int n;

	spin_lock_bh(&file->lock);
	n = hwtd_dequeue(file, &hold, recs, max, 0);
	hwtd_hold_end(file, &hold);
	spin_unlock_bh(&file->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_read);
#endif

/* ---- the ring ------------------------------------------------------------- */

/**
 * hwtd_ring_entries() - the size of the file's ring
 * @file: the file
 *
 * Context: any.
 * Return: the records it holds, 0 without a ring.
 */
u32 hwtd_ring_entries(struct hwtd_file *file)
{
	/* Pairs with the release in hwtd_ring_setup(): @entries is set. */
	struct hwtd_ring *ring = smp_load_acquire(&file->ring);

	return ring ? ring->entries : 0;
}

static void hwtd_ring_destroy(struct hwtd_ring *ring)
{
	unsigned int i;

	if (ring->kaddr)
		vunmap(ring->kaddr);
	for (i = 0; i < ring->npages; i++) {
		if (!ring->pages[i])
			continue;
		put_page(ring->pages[i]);
		atomic_long_dec(&hwtd_ring_stats.ring_pages);
	}
	kvfree(ring->pages);
	kfree(ring);
	atomic_long_dec(&hwtd_ring_stats.rings);
}

/**
 * hwtd_ring_free() - free the file's ring
 * @file: the file, being released: no mapping of the ring is left (each
 *      holds a reference to the file)
 *
 * Context: process.
 */
void hwtd_ring_free(struct hwtd_file *file)
{
	if (file->ring)
		hwtd_ring_destroy(file->ring);
	file->ring = NULL;
}

static struct hwtd_ring *hwtd_ring_alloc(u32 entries)
{
	size_t size = HWTD_RING_RECORDS_OFF + (size_t)entries * sizeof(struct hwtimer_expiry);
	struct hwtd_ring *ring;
	unsigned int i;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	atomic_long_inc(&hwtd_ring_stats.rings);
	ring->entries = entries;
	ring->npages = DIV_ROUND_UP(size, PAGE_SIZE);
	ring->pages = kvcalloc(ring->npages, sizeof(*ring->pages), GFP_KERNEL_ACCOUNT);
	if (!ring->pages) {
		ring->npages = 0;
		goto out_free;
	}
	for (i = 0; i < ring->npages; i++) {
		ring->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!ring->pages[i])
			goto out_free;
		atomic_long_inc(&hwtd_ring_stats.ring_pages);
	}
	ring->kaddr = vmap(ring->pages, ring->npages, VM_MAP, PAGE_KERNEL);
	if (!ring->kaddr)
		goto out_free;
	ring->head = ring->kaddr + HWTD_RING_HEAD_OFF;
	ring->utail = ring->kaddr + HWTD_RING_TAIL_OFF;
	ring->uflags = ring->kaddr + HWTD_RING_FLAGS_OFF;
	ring->recs = ring->kaddr + HWTD_RING_RECORDS_OFF;
	return ring;

out_free:
	hwtd_ring_destroy(ring);
	return NULL;
}

/**
 * hwtd_ring_setup() - HWTIMER_IOC_RING: give the file a completion ring
 * @file: the file
 * @uparams: struct hwtimer_ring_params
 *
 * The layout is written back before the ring is installed, so a call that
 * fails installs nothing.
 *
 * Context: process; may sleep.
 * Return: 0, -EINVAL, -EBUSY (the file has a ring), -ENOMEM or -EFAULT.
 */
long hwtd_ring_setup(struct hwtd_file *file, struct hwtimer_ring_params __user *uparams)
{
	struct hwtimer_ring_params p;
	struct hwtd_ring *ring;
	struct hwtd_hold hold = { };
	long ret = 0;

	if (copy_from_user(&p, uparams, sizeof(p)))
		return -EFAULT;
	if (p.flags || p.reserved[0] || p.reserved[1] || p.reserved[2] ||
	    p.reserved[3] || !p.entries || p.entries > HWTIMER_RING_MAX)
		return -EINVAL;
	/* A hint, to spare the allocation: re-checked under the lock below. */
	if (hwtd_ring_entries(file))
		return -EBUSY;
	ring = hwtd_ring_alloc(roundup_pow_of_two(p.entries));
	if (!ring)
		return -ENOMEM;
	ring->offset[0] = hwtd_timens_offset(false);
	ring->offset[1] = hwtd_timens_offset(true);

	p.entries = ring->entries;
	p.head_off = HWTD_RING_HEAD_OFF;
	p.tail_off = HWTD_RING_TAIL_OFF;
	p.flags_off = HWTD_RING_FLAGS_OFF;
	p.records_off = HWTD_RING_RECORDS_OFF;
	p.mmap_size = (u64)ring->npages << PAGE_SHIFT;
	if (copy_to_user(uparams, &p, sizeof(p))) {
		hwtd_ring_destroy(ring);
		return -EFAULT;
	}

	spin_lock_bh(&file->lock);
	if (file->ring) {
		ret = -EBUSY;
	} else {
		/*
		 * Its setup before it: pairs with the smp_load_acquire()s of
		 * hwtd_ring_entries() and hwtd_mmap(); the readers under the
		 * lock are ordered by it.
		 */
		smp_store_release(&file->ring, ring);
		/* Records already queued go to the ring, in order. */
		hwtd_refill(file, &hold, HWTD_HOLD_MAX);
		hwtd_hold_end(file, &hold);
	}
	spin_unlock_bh(&file->lock);
	if (ret)
		hwtd_ring_destroy(ring);
	return ret;
}

static vm_fault_t hwtd_ring_fault(struct vm_fault *vmf)
{
	/* Set by hwtd_mmap() under the mmap lock, from an ACQUIRE load. */
	struct hwtd_ring *ring = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= ring->npages)
		return VM_FAULT_SIGBUS;
	page = ring->pages[vmf->pgoff];
	get_page(page);
	vmf->page = page;
	return 0;
}

/* The ring holds data user space writes: never executable. */
static int hwtd_ring_mprotect(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, unsigned long newflags)
{
	return (newflags & VM_EXEC) ? -EACCES : 0;
}

static const struct vm_operations_struct hwtd_ring_vm_ops = {
	.fault		= hwtd_ring_fault,
	.mprotect	= hwtd_ring_mprotect,
};

/**
 * hwtd_mmap() - map the file's ring
 * @filp: the file
 * @vma: the mapping: offset %HWTIMER_RING_OFF, the ring's whole length,
 *       shared, not executable
 *
 * The pages are faulted in one by one from the ring's own; the kernel
 * writes through its own mapping, so unmapping cannot hurt it, and the
 * mapping holds a reference to the file, so the ring lives as long as it.
 *
 * VM_DONTEXPAND, as io_uring's rings: the mapping must never cover more
 * than the ring. Without it mremap() could grow it, and mmap() of the file
 * at the offset just past the ring, placed right after a mapping of it,
 * would merge with that mapping without calling here (mm merges a new
 * file mapping into an adjacent one whose flags, file and offset match
 * before it calls ->mmap): both would succeed, and touching the pages past
 * the ring raise SIGBUS. The flag makes the ring's mappings differ from a
 * new one's flags, and mremap() to grow them fail with EFAULT.
 *
 * Context: process, mmap lock held for writing.
 * Return: 0; -ENODEV (no ring), -EINVAL (offset, length, not shared),
 * -EPERM (executable).
 */
int hwtd_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct hwtd_file *file = filp->private_data;
	/* Pairs with the release in hwtd_ring_setup(). */
	struct hwtd_ring *ring = smp_load_acquire(&file->ring);

	if (!ring)
		return -ENODEV;
	if (vma->vm_pgoff != HWTIMER_RING_OFF >> PAGE_SHIFT ||
	    vma->vm_end - vma->vm_start != (unsigned long)ring->npages << PAGE_SHIFT ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	hwt_vm_flags_set(vma, VM_DONTEXPAND);
	vma->vm_ops = &hwtd_ring_vm_ops;
	vma->vm_private_data = ring;
	return 0;
}
