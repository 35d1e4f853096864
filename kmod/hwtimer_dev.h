/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/hwtimer: the open file and the types its layers share. The device
 * is written in layers, each in files whose name says what it is, each
 * calling only those below it (docs/design.md):
 *
 *   hwtimer_dev.c          the ABI: open, ioctl, read, poll, mmap, close,
 *                          the batches and their operations
 *   hwtimer_dev_pin.c      the batches' user memory, pinned for a hold
 *   hwtimer_dev_records.c  records: the expiry pass that makes them, the
 *                          mmap'd completion ring, the kernel queue behind
 *                          it, read()'s side of it
 *   hwtimer_dev_wheel.c    the file's wheel (hwtimer_wheel.h), its clock and
 *                          the one hwtimer per file that drives it
 *   hwtimer_dev_account.c  the caps: per file, per user, for all files
 *   hwtimer_dev_table.c    the timeout table: where a file's timeouts live,
 *                          their ids, chunks of memory grown and given back
 *
 * Nothing here is an API for other modules.
 */
#ifndef _HWTIMER_DEV_H
#define _HWTIMER_DEV_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/hwtimer.h>
#include <linux/jump_label.h>
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

/* "No timeout": the end of a list, an empty list, no free timeout. */
#define HWTD_NIL		U32_MAX
/* A pass that has not read the clock yet (struct hwtd_file, @target). */
#define HWTD_NO_TARGET		U64_MAX

/*
 * The file's wheel (hwtimer_wheel.h) has 64 slots at level 0, so 11
 * levels of 64 slots, level L covering tick bits [6L, 6L + 6).
 */
#define HWTD_LVL0_BITS		HWT_LVL_BITS
#define HWTD_LEVELS		HWT_GEOM_LEVELS(HWTD_LVL0_BITS)
#define HWTD_LVL1_OFF		HWT_GEOM_LVL1_OFF(HWTD_LVL0_BITS)
#define HWTD_NSLOTS		HWT_GEOM_NSLOTS(HWTD_LVL1_OFF, HWTD_LEVELS)
/*
 * The lists a timeout can be on: the wheel's slots, then the todo list of
 * an expiry pass and the kernel queue of records. Each list is circular
 * and doubly linked through its head, whose index is HWTD_HEAD | list
 * number, so a timeout can be unlinked, and a whole slot spliced, without
 * knowing which list it is on.
 */
#define HWTD_LIST_TODO		HWTD_NSLOTS
#define HWTD_LIST_QUEUE		(HWTD_NSLOTS + 1)
#define HWTD_NLISTS		(HWTD_NSLOTS + 2)
#define HWTD_HEAD		0x80000000u

/*
 * Entries one hold of the file lock processes at most: batch entries,
 * expired or cascaded timeouts, records moved or read, chunks given back.
 * A constant, so no hold grows with what a user controls.
 */
#define HWTD_HOLD_MAX		64

/**
 * enum hwtd_state - what a timeout of the table holds
 * @HWTD_FREE: nothing; on its chunk's free list
 * @HWTD_PENDING: a timeout waiting for its tick: in a slot of the wheel,
 *               or on the todo list of an expiry pass that took it out of
 *               its slot and has not yet expired or re-placed it
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
 * struct hwtd_link - the links of a timeout or a list head
 * @next: the next timeout or head; for a free timeout, the offset of the
 *        next free one of its chunk (%HWTD_OFF_NIL ends the free list)
 * @prev: the previous timeout or head
 */
struct hwtd_link {
	u32	next;
	u32	prev;
};

/**
 * struct hwtd_timeout - one timeout, 40 bytes
 * @cookie: the caller's cookie
 * @deadline: the deadline now, host ns of the file's clock, unclamped (a
 *            deadline at most INT64_MAX in a time namespace behind the host
 *            is beyond INT64_MAX in host time, and stays exact)
 * @tick: %HWTD_PENDING: the tick of the file's wheel it expires at
 * @expired: %HWTD_QUEUED: when it expired, host ns of the file's clock
 * @link: its links on a list, or on its chunk's free list
 * @gen: generation, the upper half of the id; bumped at each free
 * @slot: %HWTD_PENDING: the wheel slot it was last placed in (it may be
 *        on the todo list since, see hwtd_wheel_extend())
 * @state: enum hwtd_state
 * @pad: zero
 *
 * Period and slack live apart, in the chunk's &struct hwtd_extra array,
 * allocated only for chunks that hold a periodic or slacked timeout.
 */
struct hwtd_timeout {
	u64	cookie;
	u64	deadline;
	union {
		u64	tick;
		u64	expired;
	};
	struct hwtd_link	link;
	u32	gen;
	u16	slot;
	u8	state;
	u8	pad;
};

/** struct hwtd_extra - the rare parts of a timeout: period and slack, ns */
struct hwtd_extra {
	u64	period;
	u64	slack;
};

/*
 * A chunk: a page of timeouts, HWTD_CHUNK_TIMEOUTS of them (PAGE_SIZE / 40,
 * rounded down: 102 with 4 KiB pages, 409 with 16 KiB, 1638 with 64 KiB),
 * and nothing else in the page.
 */
#define HWTD_CHUNK_BYTES	PAGE_SIZE
#define HWTD_CHUNK_TIMEOUTS	(HWTD_CHUNK_BYTES / sizeof(struct hwtd_timeout))
/* "No free timeout" in a chunk's free list, an offset. */
#define HWTD_OFF_NIL		U16_MAX

/**
 * struct hwtd_chunk - a chunk of timeouts, as its directory leaf holds it
 * @timeouts: the chunk's page; NULL while the chunk does not exist
 * @extra: period and slack of each timeout, or NULL while none has any
 * @free: offset of the first free timeout, %HWTD_OFF_NIL when none
 * @nfree: timeouts on the free list; the others are live or retired
 * @gen_hi: the highest generation any timeout of the chunk has had
 *
 * The chunk's counts and the head of its free list live here, next to
 * the pointer every lookup reads, not in the page: freeing or allocating
 * a timeout at random touches no line of the page but the timeout's own,
 * and the leaves of a file with a million timeouts fit in a cache.
 */
struct hwtd_chunk {
	struct hwtd_timeout	*timeouts;
	struct hwtd_extra	*extra;
	u16			free;
	u16			nfree;
	u32			gen_hi;
};

/*
 * A timeout's index is its chunk's number shifted left by HWTD_IDX_SHIFT,
 * plus its offset in the chunk: no division to find it. The offsets from
 * HWTD_CHUNK_TIMEOUTS to the next power of two name no timeout.
 */
#define HWTD_IDX_SHIFT		order_base_2(HWTD_CHUNK_TIMEOUTS)
#define HWTD_LEAF_CHUNKS	128
#define HWTD_DIR_LEAVES		128
#define HWTD_MAX_CHUNKS		(HWTD_LEAF_CHUNKS * HWTD_DIR_LEAVES)
/*
 * The most timeouts a file's table holds: 16384 chunks, 16384 x (PAGE_SIZE /
 * 40): 1671168 with 4 KiB pages, 6701056 with 16 KiB, 26836992 with 64 KiB.
 */
#define HWTD_MAX_TIMEOUTS	(HWTD_MAX_CHUNKS * HWTD_CHUNK_TIMEOUTS)

/**
 * struct hwtd_leaf - the second level of a file's timeout directory
 * @chunk: the chunks, by number within the leaf; @chunk[k].timeouts is
 *         NULL above the last one
 * @floor: the generation the timeouts of a chunk start at when it is
 *         allocated: above every generation that chunk number ever had,
 *         so that an id is never handed out twice, even after its chunk
 *         was given back and allocated again
 * @room: chunks with a free timeout
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
 *       that opened the files (filp->f_cred->uid)
 * @refs: open files of this user; the last one to close frees it
 * @count: timeouts all files of this user hold; what the per-user cap
 *         counts (hwtimer_dev_account.c)
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
	struct hwtd_file	*file;
};

/* The wheels a file may run on, by precision and clock, from the glue. */
#define HWTD_PRECISIONS		3
#define HWTD_CLOCKS		2

/**
 * struct hwtd_file - one open file of /dev/hwtimer
 * @lock: the file lock. Taken with bottom halves disabled: the expiry
 *        pass runs in softirq context (the driving timer's callback, BH
 *        work) or in process context (@work, system calls), never in a
 *        hard interrupt, so interrupts stay on. It protects every member below but
 *        @wq, @rwq, @user, @work and the internals of @timers, and the
 *        timeouts, chunks and leaves of the file, and the kernel side of
 *        the ring. Nesting: taken before a wheel base lock (the driving
 *        timer is armed under it); nothing else is taken inside; @wq and
 *        @rwq are woken after it is dropped. No hold of it does more than
 *        a constant amount of work (%HWTD_HOLD_MAX entries, one move of
 *        the wheel's clock), and nothing that sleeps or faults runs under
 *        it: user memory is reached only through pages pinned before it
 *        is taken. Read without it, each as its entry says: @nqueued,
 *        @ring, @boottime.
 *
 * The timeout table (hwtimer_dev_table.c):
 * @dir: the timeout directory's first level
 * @leaves_with_room: leaves with a chunk that has a free timeout
 * @nchunks: chunks 0 to @nchunks - 1 exist, no other
 * @low: the lowest chunk with a free timeout, or %HWTD_NIL when not
 *       known (then the bitmaps tell)
 * @spare_chunk: a chunk's page allocated outside the lock, for the next
 *               growth
 * @spare_extra: an extra array allocated outside the lock
 * @spare_leaf: a leaf allocated outside the lock
 * @heads: the head of each list: the wheel's slots, then the todo list
 *         and the kernel queue
 * @nlive: live timeouts, pending or with their record in the kernel
 *         queue: what the per-file cap counts
 *
 * The caps (hwtimer_dev_account.c):
 * @user: the user the timeouts are charged to; set at open, put at close
 *
 * The wheel and its clock (hwtimer_dev_wheel.c):
 * @occupied: a bit per slot of the wheel that is not empty
 * @clk: the wheel's clock: every timeout whose tick is at or before @clk
 *       has expired or is on the todo list; the others are in slots
 * @next_event: a tick at or before the start of the earliest occupied
 *              slot, U64_MAX when none is: lowered as timeouts are placed,
 *              exact when a pass ends
 * @armed: the tick the driving timer is armed for, U64_MAX when it is not
 * @time: the ticks of the per-CPU wheel of the file's precision and clock
 *        (its tick and epoch, host ns of the file's clock)
 * @cascaded: timeouts an expiry pass took from a slot and placed in
 *            another (the per-CPU wheels' stats count the same)
 * @timer: the driving timer in use, the one on @pcpu_wheel, armed for the
 *         start of the earliest occupied slot or earlier
 * @timers: a driving timer on each of the device's wheels
 * @pcpu_wheel: the per-CPU wheel of the file's precision and clock, which
 *              runs @timer (the file's own wheel is @time, @clk and the
 *              hwtd_wheel_*() functions)
 * @precision: HWTIMER_PRECISION_* of the file (HWTIMER_IOC_CONFIG)
 * @boottime: the file's clock is CLOCK_BOOTTIME, else CLOCK_MONOTONIC;
 *            read without the lock by a batch, while @nbusy holds it
 * @manual: KUnit only: no driving timer, no @work, the clock is
 *          @manual_now; tests run passes themselves
 * @manual_now: the clock of a @manual file
 * @closing: release() has begun: nothing arms the driving timer, and no
 *           expiry pass begins or goes on
 *
 * Records and the expiry pass (hwtimer_dev_records.c):
 * @nqueued: records in the kernel queue; stored with WRITE_ONCE(), as
 *           read() waits on it and a batch glances at it without the lock
 * @ring: the completion ring, or NULL; set once, never changed, with
 *        smp_store_release() under the lock: read under it, or with
 *        smp_load_acquire() (hwtd_ring_entries(), hwtd_mmap())
 * @processing: an expiry pass runs, in the driving timer's callback or in
 *              @work (it arms the driving timer when it ends)
 * @target: the tick the running pass expires up to: the one that
 *          contained the clock when it began (%HWTD_NO_TARGET until its
 *          first hold reads the clock); what becomes due later waits for
 *          the next pass
 * @work: goes on with an expiry pass that ran out of its softirq budget,
 *        on @hwtd_wq, a slice of at most %HWTIMER_PASS_NS at a time
 * @expiry_ns: CPU time the file's expiry passes took, local_clock() ns
 *             (fdinfo)
 * @wq: pollers wait here (see hwtd_hold_end())
 * @rwq: read() waits here for a record in the kernel queue: woken when
 *       the queue goes from empty to not, whatever the ring holds
 *
 * The ABI (hwtimer_dev.c):
 * @nbusy: batch ioctls in progress on the file
 *
 * The configuration (@pcpu_wheel, @time, @precision, @boottime) changes only
 * while @nlive and @nbusy are both zero (HWTIMER_IOC_CONFIG), so a batch
 * or timeout that reads it sees the value that holds as long as it runs or
 * lives.
 */
struct hwtd_file {
	spinlock_t		lock;	/* the file lock, see above */
	/* the timeout table */
	struct hwtd_leaf	*dir[HWTD_DIR_LEAVES];
	unsigned long		leaves_with_room[BITS_TO_LONGS(HWTD_DIR_LEAVES)];
	u32			nchunks;
	u32			low;
	struct hwtd_timeout	*spare_chunk;
	struct hwtd_extra	*spare_extra;
	struct hwtd_leaf	*spare_leaf;
	struct hwtd_link	heads[HWTD_NLISTS];
	unsigned long		nlive;
	/* the caps */
	struct hwtd_user	*user;
	/* the wheel */
	unsigned long		occupied[BITS_TO_LONGS(HWTD_NSLOTS)];
	u64			clk;
	u64			next_event;
	u64			armed;
	struct hwt_time		time;
	u64			cascaded;
	struct hwtimer		*timer;
	struct hwtd_timer	timers[HWTD_PRECISIONS][HWTD_CLOCKS];
	struct hwtimer_wheel	*pcpu_wheel;
	u8			precision;
	bool			boottime;
	bool			manual;
	bool			closing;
	u64			manual_now;
	/* records */
	unsigned long		nqueued;
	struct hwtd_ring	*ring;
	bool			processing;
	u64			target;
	struct work_struct	work;
	u64			expiry_ns;
	wait_queue_head_t	wq;
	wait_queue_head_t	rwq;
	/* the ABI */
	unsigned int		nbusy;
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
 *         user's and the global count when it ends, or before an arm of
 *         it that would fail with -EDQUOT (hwtd_hold_uncharge())
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

/*
 * Open files, for debugfs and tests (hwtimer_dev.c). Each layer counts
 * what it allocates: the tables (hwtd_table_stats), the rings
 * (hwtd_ring_stats).
 */
extern atomic_long_t hwtd_files;

#if IS_ENABLED(CONFIG_KUNIT)
DECLARE_STATIC_KEY_FALSE(hwtd_manual_key);
#endif

/*
 * Whether @file is a manual one (KUnit's: hwtd_file_create_manual()).
 * Behind a static key that is on only while one exists, as the core's
 * manual wheels are: files in use pay nothing for the tests' clock.
 */
static __always_inline bool hwtd_is_manual(const struct hwtd_file *file)
{
#if IS_ENABLED(CONFIG_KUNIT)
	return static_branch_unlikely(&hwtd_manual_key) && file->manual;
#else
	return false;
#endif
}

static inline void hwtd_lockdep_assert(struct hwtd_file *file)
{
	lockdep_assert_held(&file->lock);
}

/**
 * struct hwtd_wheel_params - the ticks and slots of the device's wheels, by
 *                            precision (HWTIMER_PRECISION_*), from the module
 *                            glue's parameters
 * @tick_ns: the tick of each precision's wheels
 * @slots: their level-0 slots
 */
struct hwtd_wheel_params {
	u64	tick_ns[HWTD_PRECISIONS];
	u32	slots[HWTD_PRECISIONS];
};

/* hwtimer_dev.c: the device, for the module glue. */
int hwtd_init(const struct hwtd_wheel_params *params);
void hwtd_exit(void);

#if IS_ENABLED(CONFIG_KUNIT)
/* The KUnit hooks, each in the file of its layer. */
struct hwtd_file *hwtd_file_create_manual(u64 tick_ns, u64 epoch);
void hwtd_file_destroy_manual(struct hwtd_file *file);
int hwtd_kunit_op(struct hwtd_file *file, unsigned int cmd, void *ent, u64 now);
unsigned int hwtd_kunit_read(struct hwtd_file *file, struct hwtimer_expiry *recs,
			     unsigned int max);
long hwtd_kunit_global_count(void);
void hwtd_kunit_run(struct hwtd_file *file, u64 now);
#endif

#endif /* _HWTIMER_DEV_H */
