/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/hwtimer internals shared by its four files:
 *
 *   hwtimer_dev.c        the ABI: open, ioctl, read, poll, mmap, close;
 *                        batches, caps, clocks and time namespaces
 *   hwtimer_dev_table.c  the slot table: where a file's timeouts live,
 *                        their ids, chunks of memory grown and given back
 *   hwtimer_dev_wheel.c  the file's own hierarchical wheel and the one
 *                        hwtimer per file that drives it
 *   hwtimer_dev_ring.c   where records go: the mmap'd completion ring and
 *                        the kernel queue behind it, and read()
 *
 * Nothing here is an API for other modules.
 */
#ifndef _HWTIMER_DEV_H
#define _HWTIMER_DEV_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/hwtimer.h>
#include <linux/log2.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer_wheel.h"

/* "No slot": the end of a list, an empty list, no free slot. */
#define HWTD_NIL		U32_MAX
/* A pass that has not read the clock yet (struct hwtd_file, @target). */
#define HWTD_NO_TARGET		U64_MAX

/*
 * The file's wheel (hwtimer_wheel.h) has 64 buckets at level 0, so 11
 * levels of 64 buckets, level L covering tick bits [6L, 6L + 6). A
 * timeout modified to a later tick may stay in the bucket of its earlier
 * one (hwtd_extend()).
 */
#define HWTD_LEVELS		11
#define HWTD_NBUCKETS		(HWTD_LEVELS * HWT_LVL_SIZE)
/*
 * The lists a slot can be on: the buckets, then the todo list of an expiry
 * pass and the kernel queue of records. Each list is circular and doubly
 * linked through its sentinel, whose index is HWTD_SENT | list number, so
 * a slot can be unlinked, and a whole bucket spliced, without knowing
 * which list it is on.
 */
#define HWTD_LIST_TODO		HWTD_NBUCKETS
#define HWTD_LIST_QUEUE		(HWTD_NBUCKETS + 1)
#define HWTD_NLISTS		(HWTD_NBUCKETS + 2)
#define HWTD_SENT		0x80000000u

/*
 * Entries one hold of the file lock processes at most: batch entries,
 * expired or cascaded timeouts, records moved or read, chunks given back.
 * A constant, so no hold grows with what a user controls.
 */
#define HWTD_CHUNK		64

/**
 * enum hwtd_state - what a slot holds
 * @HWTD_FREE: nothing; on its chunk's free list
 * @HWTD_PENDING: a timeout waiting for its tick: in a bucket of the wheel,
 *               or on the todo list of an expiry pass that took it out of
 *               its bucket and has not yet expired or re-placed it
 * @HWTD_QUEUED: a timeout that expired and whose record waits in the
 *              kernel queue
 * @HWTD_RETIRED: nothing, for ever: its generation would wrap
 */
enum hwtd_state {
	HWTD_FREE,
	HWTD_PENDING,
	HWTD_QUEUED,
	HWTD_RETIRED,
};

/**
 * struct hwtd_link - the links of a slot or a list sentinel
 * @next: the next slot or sentinel; for a free slot, the offset of the
 *        next free slot of its chunk (%HWTD_OFF_NIL ends the free list)
 * @prev: the previous slot or sentinel
 */
struct hwtd_link {
	u32	next;
	u32	prev;
};

/**
 * struct hwtd_slot - one timeout, 40 bytes
 * @cookie: the caller's cookie
 * @deadline: the deadline now, host ns of the file's clock, unclamped (a
 *            deadline at most INT64_MAX in a time namespace behind the host
 *            is beyond INT64_MAX in host time, and stays exact)
 * @tick: %HWTD_PENDING: the tick of the file's wheel it expires at
 * @expired: %HWTD_QUEUED: when it expired, host ns of the file's clock
 * @link: its links on a list, or on its chunk's free list
 * @gen: generation, the upper half of the id; bumped at each free
 * @bucket: %HWTD_PENDING: the bucket it was last placed in (it may be on
 *          the todo list since, see hwtd_extend())
 * @state: enum hwtd_state
 * @pad: zero
 *
 * Period and slack live apart, in the chunk's &struct hwtd_extra array,
 * allocated only for chunks that hold a periodic or slacked timeout.
 */
struct hwtd_slot {
	u64	cookie;
	u64	deadline;
	union {
		u64	tick;
		u64	expired;
	};
	struct hwtd_link	link;
	u32	gen;
	u16	bucket;
	u8	state;
	u8	pad;
};

/** struct hwtd_extra - the rare parts of a timeout: period and slack, ns */
struct hwtd_extra {
	u64	period;
	u64	slack;
};

/*
 * A chunk: a page of slots, HWTD_CHUNK_SLOTS of them (102 with 4 KiB
 * pages), and nothing else in the page.
 */
#define HWTD_CHUNK_BYTES	PAGE_SIZE
#define HWTD_CHUNK_SLOTS	(HWTD_CHUNK_BYTES / sizeof(struct hwtd_slot))
/* "No free slot" in a chunk's free list, an offset. */
#define HWTD_OFF_NIL		U16_MAX

/**
 * struct hwtd_chunk - a chunk of slots, as its directory leaf holds it
 * @slots: the chunk's page of slots; NULL while the chunk does not exist
 * @extra: period and slack of each slot, or NULL while none has any
 * @free: offset of the first free slot, %HWTD_OFF_NIL when none
 * @nfree: slots on the free list; the others are live timeouts or retired
 * @gen_hi: the highest generation any slot of the chunk has had
 *
 * The chunk's counts and the head of its free list live here, next to
 * the pointer every lookup of a slot reads, not in the page: freeing or
 * allocating a slot at random touches no line of the page but the slot's
 * own, and the leaves of a file with a million timeouts fit in a cache.
 */
struct hwtd_chunk {
	struct hwtd_slot	*slots;
	struct hwtd_extra	*extra;
	u16			free;
	u16			nfree;
	u32			gen_hi;
};

/*
 * A slot's index is its chunk's number shifted left by HWTD_IDX_SHIFT,
 * plus its offset in the chunk: no division to find it. The offsets from
 * HWTD_CHUNK_SLOTS to the next power of two name no slot.
 */
#define HWTD_IDX_SHIFT		order_base_2(HWTD_CHUNK_SLOTS)
#define HWTD_LEAF_CHUNKS	128
#define HWTD_DIR_LEAVES		128
#define HWTD_MAX_CHUNKS		(HWTD_LEAF_CHUNKS * HWTD_DIR_LEAVES)
/* The most slots a file's table holds: 1671168 with 4 KiB pages. */
#define HWTD_MAX_SLOTS		(HWTD_MAX_CHUNKS * HWTD_CHUNK_SLOTS)

/**
 * struct hwtd_leaf - the second level of a file's slot directory
 * @chunk: the chunks, by number within the leaf; @chunk[k].slots is NULL
 *         above the last one
 * @floor: the generation the slots of a chunk start at when it is
 *         allocated: above every generation that chunk number ever had,
 *         so that an id is never handed out twice, even after its chunk
 *         was given back and allocated again
 * @room: chunks with a free slot
 *
 * A leaf, once allocated, lives as long as its file (it remembers @floor).
 */
struct hwtd_leaf {
	struct hwtd_chunk	chunk[HWTD_LEAF_CHUNKS];
	u32			floor[HWTD_LEAF_CHUNKS];
	unsigned long		room[BITS_TO_LONGS(HWTD_LEAF_CHUNKS)];
};

/**
 * struct hwtd_user - the timeouts of one user, for the per-user cap
 * @uid: the real uid, in the initial user namespace, of the credentials
 *       that opened the files (file->f_cred->uid)
 * @refs: open files of this user; the last one to close frees it
 * @count: timeouts all files of this user hold; what the per-user cap
 *         counts (see hwtd_charge())
 */
struct hwtd_user {
	kuid_t		uid;
	refcount_t	refs;
	atomic_long_t	count;
};

struct hwtd_ring;
struct hwtd_file;

/** struct hwtd_timer - a timer of a file, on one of the device's wheels */
struct hwtd_timer {
	struct hwtimer		timer;
	struct hwtd_file	*hf;
};

/* The wheels a file may run on, by precision and clock, from the glue. */
#define HWTD_PRECISIONS		3
#define HWTD_CLOCKS		2

/**
 * struct hwtd_file - one open file of /dev/hwtimer
 * @lock: the file lock. Taken with interrupts disabled (the expiry pass
 *        runs in softirq context). It protects everything below but @wq,
 *        @rwq, @user, @timer's internals and @work, and the slots, chunks
 *        and leaves of the file, and the kernel side of the ring.
 *        Nesting: taken before a wheel base lock (the driving timer is
 *        armed under it); nothing else is taken inside; @wq and @rwq are
 *        woken after it is dropped. No hold of it does more than a
 *        constant amount of work (%HWTD_CHUNK entries, one advance of the
 *        wheel's clock), and nothing that sleeps or faults runs under
 *        it: user memory is reached only through pages pinned before it
 *        is taken.
 * @dir: the slot directory's first level
 * @leafroom: leaves with a chunk that has a free slot
 * @nchunks: chunks 0 to @nchunks - 1 exist, no other
 * @low: the lowest chunk with a free slot, or %HWTD_NIL when not known
 *       (then the bitmaps tell)
 * @spare_chunk: a chunk's page allocated outside the lock, for the next
 *               growth
 * @spare_extra: an extra array allocated outside the lock
 * @spare_leaf: a leaf allocated outside the lock
 * @sent: the sentinel of each list; buckets first
 * @occupied: a bit per bucket that is not empty
 * @clk: the wheel's clock: every timeout whose tick is at or before @clk
 *       has expired or is on the todo list; the others are in buckets
 * @armed: the tick @timer is armed for, U64_MAX when it is not
 * @time: the ticks of the per-CPU wheel of the file's precision and clock
 *        (its tick and epoch, host ns of the file's clock)
 * @nlive: live timeouts, pending or with their record in the kernel
 *         queue: what the per-file cap counts
 * @nqueued: records in the kernel queue
 * @processing: an expiry pass runs, in @timer's callback or in @work (it
 *              arms @timer when it ends)
 * @target: the tick the running pass expires up to: the one that contained
 *          the clock when it began (%HWTD_NO_TARGET until its first hold
 *          reads the clock); what becomes due later waits for the next pass
 * @closing: release() has begun: nothing may arm @timer or queue @work
 * @manual: KUnit only: no timer, no @work, the clock is @manual_now; tests
 *          run passes themselves
 * @manual_now: the clock of a @manual file
 * @ring: the completion ring, or NULL; set once, never changed
 * @timer: the file's timer in use, the one on @wheel, armed for the
 *         earliest tick that may have work (see hwtd_file_timer_init())
 * @timers: a timer on each of the device's wheels
 * @work: goes on with an expiry pass that ran out of its softirq budget,
 *        on @hwtd_wq, a slice of at most %HWT_PASS_NS at a time
 * @expiry_ns: CPU time the file's expiry passes took, local_clock() ns
 *             (fdinfo)
 * @cascaded: timeouts an expiry pass took from a bucket and placed in
 *            another (the per-CPU wheels' stats count the same)
 * @wheel: the per-CPU wheel of the file's precision and clock
 * @wq: pollers wait here (see hwtd_hold_end())
 * @rwq: read() waits here for a record in the kernel queue: woken when
 *       the queue goes from empty to not, whatever the ring holds
 * @user: the user the timeouts are charged to; set at open, put at close
 * @nbusy: batch ioctls in progress on the file
 * @precision: HWTIMER_PRECISION_* of the file (HWTIMER_IOC_CONFIG)
 * @boottime: the file's clock is CLOCK_BOOTTIME, else CLOCK_MONOTONIC
 *
 * The configuration (@wheel, @time, @precision, @boottime)
 * changes only while @nlive and @nbusy are both zero (HWTIMER_IOC_CONFIG),
 * so a batch or timeout that reads it sees the value that holds as long as
 * it runs or lives.
 */
struct hwtd_file {
	spinlock_t		lock;	/* the file lock, see above */
	struct hwtd_leaf	*dir[HWTD_DIR_LEAVES];
	unsigned long		leafroom[BITS_TO_LONGS(HWTD_DIR_LEAVES)];
	u32			nchunks;
	u32			low;
	struct hwtd_slot	*spare_chunk;
	struct hwtd_extra	*spare_extra;
	struct hwtd_leaf	*spare_leaf;
	struct hwtd_link	sent[HWTD_NLISTS];
	unsigned long		occupied[BITS_TO_LONGS(HWTD_NBUCKETS)];
	u64			clk;
	u64			armed;
	struct hwt_time		time;
	unsigned long		nlive;
	unsigned long		nqueued;
	bool			processing;
	bool			closing;
	u64			target;
	u64			expiry_ns;
	u64			cascaded;
	bool			manual;
	u64			manual_now;
	struct hwtd_ring	*ring;
	struct hwtimer		*timer;
	struct hwtd_timer	timers[HWTD_PRECISIONS][HWTD_CLOCKS];
	struct work_struct	work;
	struct hwtimer_wheel	*wheel;
	wait_queue_head_t	wq;
	wait_queue_head_t	rwq;
	struct hwtd_user	*user;
	unsigned int		nbusy;
	u8			precision;
	bool			boottime;
};

/**
 * struct hwtd_hold - what one hold of the file lock shares
 * @now: the file's clock (host), read once per hold, under the lock, when
 *       first needed: records stamped in one hold share it, and holds are
 *       ordered, so records leave in the order of their expiry times
 * @have_now: @now was read
 * @room: records the ring can take in this hold (read once per hold)
 * @have_room: @room was read
 * @tail0: the ring's tail before the hold's first record
 * @empty0: the file had no record in the kernel queue before the first
 *          record of this hold
 * @delivered: records went to the ring or the queue in this hold
 * @freed: timeouts that ended in this hold, to be uncharged from the
 *         user's and the global count when it ends
 * @wake: the file's waiters must be woken once the lock is dropped
 * @rwake: read()'s sleepers must be woken once the lock is dropped
 */
struct hwtd_hold {
	u64	now;
	bool	have_now;
	bool	have_room;
	bool	delivered;
	bool	empty0;
	bool	wake;
	bool	rwake;
	u32	room;
	u32	tail0;
	u32	freed;
};

/* Module-wide counts of what the device allocated, for debugfs and tests. */
struct hwtd_stats {
	atomic_long_t	files;
	atomic_long_t	chunks;
	atomic_long_t	extras;
	atomic_long_t	leaves;
	atomic_long_t	rings;
	atomic_long_t	ring_pages;
};

extern struct hwtd_stats hwtd_stats;

static inline void hwtd_lockdep_assert(struct hwtd_file *hf)
{
	lockdep_assert_held(&hf->lock);
}

/* Chunk number @n, which exists (its leaf does). */
static inline struct hwtd_chunk *hwtd_chunk_nr(struct hwtd_file *hf, u32 n)
{
	return &hf->dir[n / HWTD_LEAF_CHUNKS]->chunk[n % HWTD_LEAF_CHUNKS];
}

/* The slot at index @idx, which names one (from a list, a free list). */
static inline struct hwtd_slot *hwtd_slot_at(struct hwtd_file *hf, u32 idx)
{
	return &hwtd_chunk_nr(hf, idx >> HWTD_IDX_SHIFT)->slots[idx & (BIT(HWTD_IDX_SHIFT) - 1)];
}

/**
 * hwtd_slot() - the slot at an index
 * @hf: the file
 * @idx: an index, as found in an id; any value
 *
 * Context: the file lock held.
 * Return: the slot, whatever its state, or NULL when @idx names none.
 */
static inline struct hwtd_slot *hwtd_slot(struct hwtd_file *hf, u32 idx)
{
	u32 n = idx >> HWTD_IDX_SHIFT, off = idx & (BIT(HWTD_IDX_SHIFT) - 1);

	if (n >= hf->nchunks || off >= HWTD_CHUNK_SLOTS)
		return NULL;
	return &hwtd_chunk_nr(hf, n)->slots[off];
}

/**
 * hwtd_lookup() - the live timeout an id names
 * @hf: the file
 * @id: an id from user space; any value
 * @idx: set to the slot's index
 *
 * Inline: every cancel, modify and get of an entry begins here.
 *
 * Context: the file lock held.
 * Return: the slot of the timeout (%HWTD_PENDING or %HWTD_QUEUED, same
 * generation), or NULL.
 */
static inline struct hwtd_slot *hwtd_lookup(struct hwtd_file *hf, u64 id, u32 *idx)
{
	struct hwtd_slot *s;

	hwtd_lockdep_assert(hf);
	*idx = (u32)id;
	s = hwtd_slot(hf, *idx);
	if (!s || s->gen != (u32)(id >> 32) ||
	    (s->state != HWTD_PENDING && s->state != HWTD_QUEUED))
		return NULL;
	return s;
}

/* hwtimer_dev_table.c */
int hwtd_slot_find(struct hwtd_file *hf);
void hwtd_chunk_filled(struct hwtd_file *hf, u32 n);
void hwtd_chunk_freed(struct hwtd_file *hf, u32 n);
int hwtd_table_prealloc(struct hwtd_file *hf, bool extra);
void hwtd_table_destroy(struct hwtd_file *hf);
bool hwtd_trim(struct hwtd_file *hf);
int hwtd_extra_set(struct hwtd_file *hf, u32 idx, u64 period, u64 slack);

static inline u64 hwtd_id(const struct hwtd_slot *s, u32 idx)
{
	return (u64)s->gen << 32 | idx;
}

/*
 * The slot table's two hot steps are inline, for the entries of a batch;
 * what they rarely need (finding a chunk with room, growing, giving back)
 * is in hwtimer_dev_table.c.
 */

/**
 * hwtd_slot_alloc() - take a free slot
 * @hf: the file
 * @idx: set to its index
 *
 * The slot comes from the lowest chunk with room (hwtd_slot_find()). It is
 * left %HWTD_FREE with its generation set, and its extra (period, slack)
 * zeroed if its chunk has extras: the caller fills it and makes it live.
 *
 * Context: the file lock held.
 * Return: 0; -EAGAIN when the table must grow and a spare chunk or leaf is
 * missing; -ENOSPC when the directory is full.
 */
static inline int hwtd_slot_alloc(struct hwtd_file *hf, u32 *idx)
{
	struct hwtd_chunk *c;
	struct hwtd_slot *s;
	int n;

	hwtd_lockdep_assert(hf);
	if (likely(hf->low != HWTD_NIL)) {
		n = hf->low;
	} else {
		n = hwtd_slot_find(hf);
		if (n < 0)
			return n;
	}
	c = hwtd_chunk_nr(hf, n);
	s = &c->slots[c->free];
	*idx = (u32)n << HWTD_IDX_SHIFT | c->free;
	c->free = s->link.next;
	c->nfree--;
	if (s->gen > c->gen_hi)
		c->gen_hi = s->gen;
	if (!c->nfree)
		hwtd_chunk_filled(hf, n);
	if (c->extra)
		memset(&c->extra[*idx & (BIT(HWTD_IDX_SHIFT) - 1)], 0,
		       sizeof(struct hwtd_extra));
	return 0;
}

/**
 * hwtd_slot_free() - free a slot that held a timeout
 * @hf: the file
 * @idx: its index
 *
 * Bumps the generation, so the timeout's id is dead for good, or retires
 * the slot if the generation would wrap; may give back up to two chunks
 * (hwtd_chunk_freed()).
 *
 * Context: the file lock held.
 */
static inline void hwtd_slot_free(struct hwtd_file *hf, u32 idx)
{
	u32 n = idx >> HWTD_IDX_SHIFT, off = idx & (BIT(HWTD_IDX_SHIFT) - 1);
	struct hwtd_chunk *c = hwtd_chunk_nr(hf, n);
	struct hwtd_slot *s = &c->slots[off];

	hwtd_lockdep_assert(hf);
	if (unlikely(s->gen == U32_MAX)) {
		/* Never on the free list: the chunk is never given back. */
		s->state = HWTD_RETIRED;
		return;
	}
	s->gen++;
	s->state = HWTD_FREE;
	s->link.next = c->free;
	c->free = off;
	c->nfree++;
	if (c->nfree == 1 || c->nfree == HWTD_CHUNK_SLOTS / 2 ||
	    c->nfree == HWTD_CHUNK_SLOTS)
		hwtd_chunk_freed(hf, n);
}

/* hwtimer_dev_wheel.c */
void hwtd_lists_init(struct hwtd_file *hf);
u64 hwtd_tick(const struct hwtd_file *hf, u64 deadline, u64 slack);
bool hwtd_place(struct hwtd_file *hf, u32 idx);
u64 hwtd_next_event(struct hwtd_file *hf);
bool hwtd_expire(struct hwtd_file *hf, struct hwtd_hold *hold, u64 target,
		 unsigned int *budget);
void hwtd_start(struct hwtd_file *hf, struct hwtd_hold *hold, u32 idx, u64 slack, u64 now);
bool hwtd_extend(struct hwtd_file *hf, u32 idx, u64 slack, u64 now);
void hwtd_file_timer_init(struct hwtd_file *hf,
			  struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS]);
void hwtd_file_timer_select(struct hwtd_file *hf, unsigned int precision,
			    unsigned int clock);
void hwtd_file_timer_stop(struct hwtd_file *hf);
void hwtd_arm_timer(struct hwtd_file *hf, u64 tick, u64 now);

/* hwtimer_dev_ring.c */
u64 hwtd_hold_now(struct hwtd_file *hf, struct hwtd_hold *hold);
void hwtd_deliver(struct hwtd_file *hf, struct hwtd_hold *hold, u32 idx);
void hwtd_hold_end(struct hwtd_file *hf, struct hwtd_hold *hold);
void hwtd_hold_wake(struct hwtd_file *hf, struct hwtd_hold *hold);
unsigned int hwtd_refill(struct hwtd_file *hf, struct hwtd_hold *hold, unsigned int max);
unsigned int hwtd_dequeue(struct hwtd_file *hf, struct hwtd_hold *hold,
			  struct hwtimer_expiry *recs, unsigned int max, s64 offset);
bool hwtd_has_records(struct hwtd_file *hf);
long hwtd_ring_setup(struct hwtd_file *hf, struct hwtimer_ring_params __user *uparams);
int hwtd_mmap(struct file *file, struct vm_area_struct *vma);
void hwtd_ring_free(struct hwtd_file *hf);
u32 hwtd_ring_entries(struct hwtd_file *hf);

/* Inline, for the operations on each entry of a batch. */

/**
 * hwtd_extra() - the period and slack of a slot
 * @hf: the file
 * @idx: the slot's index
 *
 * Context: the file lock held.
 * Return: the slot's &struct hwtd_extra, or NULL when its chunk has none
 * (then both are 0).
 */
static inline struct hwtd_extra *hwtd_extra(struct hwtd_file *hf, u32 idx)
{
	struct hwtd_chunk *c = hwtd_chunk_nr(hf, idx >> HWTD_IDX_SHIFT);

	if (!c->extra)
		return NULL;
	return &c->extra[idx & (BIT(HWTD_IDX_SHIFT) - 1)];
}

/* The links of slot or sentinel @i. */
static inline struct hwtd_link *hwtd_link(struct hwtd_file *hf, u32 i)
{
	if (i & HWTD_SENT)
		return &hf->sent[i & ~HWTD_SENT];
	return &hwtd_slot_at(hf, i)->link;
}

/*
 * The first slot of @list, or %HWTD_NIL when it is empty. Inline: each
 * record the expiry pass, a refill of the ring or read() takes begins here.
 */
static inline u32 hwtd_list_first(struct hwtd_file *hf, u32 list)
{
	u32 i = hf->sent[list].next;

	return (i & HWTD_SENT) ? HWTD_NIL : i;
}

/* Put slot @idx at the tail of @list. */
static inline void hwtd_list_add(struct hwtd_file *hf, u32 list, u32 idx)
{
	struct hwtd_link *s = &hf->sent[list], *l = hwtd_link(hf, idx);
	u32 tail = s->prev;

	l->next = HWTD_SENT | list;
	l->prev = tail;
	hwtd_link(hf, tail)->next = idx;
	s->prev = idx;
}

/*
 * Take slot @idx off whatever list it is on. A bucket it leaves empty has
 * its bit cleared: then both its neighbours are that bucket's sentinel.
 */
static inline void hwtd_list_del(struct hwtd_file *hf, u32 idx)
{
	struct hwtd_link *l = hwtd_link(hf, idx);
	u32 prev = l->prev, next = l->next, b;

	hwtd_link(hf, prev)->next = next;
	hwtd_link(hf, next)->prev = prev;
	if (prev == next && (prev & HWTD_SENT)) {
		b = prev & ~HWTD_SENT;
		if (b < HWTD_NBUCKETS)
			__clear_bit(b, hf->occupied);
	}
}

/**
 * hwtd_end() - end a timeout: free its slot, count it out
 * @hf: the file
 * @hold: the hold, which uncharges it from the caps when it ends
 * @idx: the slot, on no list
 *
 * Context: the file lock held.
 */
static inline void hwtd_end(struct hwtd_file *hf, struct hwtd_hold *hold, u32 idx)
{
	hwtd_slot_free(hf, idx);
	hf->nlive--;
	hold->freed++;
}

/* hwtimer_dev.c */
extern struct workqueue_struct *hwtd_wq;
void hwtd_uncharge(struct hwtd_file *hf, long n);
s64 hwtd_timens_offset(bool boottime);
u64 hwtd_clock_now(const struct hwtd_file *hf);

/**
 * hwtd_time_from_host() - a host time as a namespace shows it
 * @t: host ns
 * @offset: the namespace's offset
 *
 * Inline: each record the ring or read() gives converts two times.
 *
 * Context: any.
 * Return: @t + @offset, within [0, KTIME_MAX]. Exact for a time that was
 * converted from that namespace.
 */
static inline u64 hwtd_time_from_host(u64 t, s64 offset)
{
	u64 r;

	if (offset >= 0) {
		if (check_add_overflow(t, (u64)offset, &r))
			return KTIME_MAX;
	} else {
		if (t < (u64)-offset)
			return 0;
		r = t - (u64)-offset;
	}
	return min_t(u64, r, KTIME_MAX);
}

#if IS_ENABLED(CONFIG_KUNIT)
struct hwtd_file *hwtd_file_create_manual(u64 tick_ns, u64 epoch);
void hwtd_file_destroy_manual(struct hwtd_file *hf);
int hwtd_kunit_op(struct hwtd_file *hf, unsigned int cmd, void *ent, u64 now);
unsigned int hwtd_kunit_read(struct hwtd_file *hf, struct hwtimer_expiry *recs,
			     unsigned int max);
long hwtd_kunit_global_count(void);
void hwtd_kunit_run(struct hwtd_file *hf, u64 now);
#endif

#endif /* _HWTIMER_DEV_H */
