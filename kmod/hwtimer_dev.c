// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: many timeouts behind one file descriptor. This file is the
 * ABI: open, ioctl, read, poll, mmap and close, the batches, the caps,
 * clocks and time namespaces. The ABI is include/uapi/linux/hwtimer.h and
 * the manual page docs/hwtimer.4.
 *
 * A file keeps its timeouts in memory it owns (hwtimer_dev_table.c), in
 * its own timing wheel, driven by one hwtimer on the per-CPU wheel of its
 * precision and clock (hwtimer_dev_wheel.c); their records go to an
 * mmap'd ring or wait in the kernel for read() (hwtimer_dev_ring.c).
 *
 * Batches: each batch ioctl takes up to HWTIMER_BATCH_MAX entries. The
 * pages holding the next HWTD_CHUNK entries are pinned (pin_user_pages_fast(),
 * for writing where they are writable); under one hold of the file lock,
 * each entry is copied from them, processed by its operation's function on
 * the kernel copy, and its outputs are written back to them. A pinned page
 * cannot fault, so an entry's outputs are written in the same hold that
 * acts on it, whatever another thread does to its memory meanwhile: an
 * entry either took effect with its outputs written, or it was not acted
 * on and the batch stopped before it with EFAULT (an entry that cannot be
 * read whole, or whose output fields cannot be written). The batch header
 * is pinned too, for @done and @failed. Caps are charged at the moment an
 * entry is armed, with nothing left to fail after: never charged and
 * given back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "hwtimer_internal.h"
#include "hwtimer_dev.h"

static unsigned int file_cap = 262144;
module_param(file_cap, uint, 0644);
MODULE_PARM_DESC(file_cap, "Most timeouts one open file of /dev/hwtimer may hold (default 262144; at most 1671168 with 4 KiB pages, what a file's slot table holds)");

/*
 * file_cap as it takes effect: at most what a file's slot table holds, so
 * that a file below it finds a free slot (unless slots were retired, each
 * after 2^32 uses), and HWTIMER_IOC_INFO reports the cap that holds.
 */
static unsigned int hwtd_file_cap(void)
{
	return min_t(unsigned int, READ_ONCE(file_cap), HWTD_MAX_SLOTS);
}

static unsigned int global_cap = 1048576;
module_param(global_cap, uint, 0644);
MODULE_PARM_DESC(global_cap, "Most timeouts all open files of /dev/hwtimer may hold together (default 1048576)");

static unsigned int user_cap = 524288;
module_param(user_cap, uint, 0644);
MODULE_PARM_DESC(user_cap, "Most timeouts the open files of one user (real uid of the opener) may hold together (default 524288)");

/*
 * Records one read() takes off the kernel queue per hold of the file lock
 * (HWTD_READ_STACK into a buffer on its stack first; only when those came
 * and the caller wants more, HWTD_READ_CHUNK into a buffer allocated for
 * the call, charged to its memory cgroup).
 */
#define HWTD_READ_CHUNK		64
#define HWTD_READ_STACK		8

/* The ABI has the same layout everywhere: sizes fixed, no implicit padding. */
static_assert(sizeof(struct hwtimer_info) == 96);
static_assert(sizeof(struct hwtimer_config) == 32);
static_assert(sizeof(struct hwtimer_arm_entry) == 64);
static_assert(sizeof(struct hwtimer_get_entry) == 80);
static_assert(sizeof(struct hwtimer_cancel_entry) == 24);
static_assert(sizeof(struct hwtimer_modify_entry) == 48);
static_assert(sizeof(struct hwtimer_batch) == 40);
static_assert(sizeof(struct hwtimer_expiry) == 48);
static_assert(sizeof(struct hwtimer_ring_params) == 64);

/* What this module does, in hwtimer_info.features: all of version 1.0. */
#define HWTD_FEATURES	(HWTIMER_FEAT_RING | HWTIMER_FEAT_GET | HWTIMER_FEAT_CONFIG | \
			 HWTIMER_FEAT_SLACK)

struct hwtd_stats hwtd_stats;

/* The device's wheels, by precision and clock: created at load, then read only. */
static struct hwtimer_wheel *hwtd_wheels[HWTD_PRECISIONS][HWTD_CLOCKS];
static struct dentry *hwtd_debugfs;

/*
 * Where files' expiry passes go on once they have spent their softirq
 * budget (hwtimer_dev_wheel.c), a slice of at most HWT_PASS_NS per work
 * item run. Unbound: its work items are not concurrency-managed, on any
 * kernel, so a slice never holds up another file's work nor any of the
 * per-CPU work of the CPU that queued it (on 6.1, a busy item of a per-CPU
 * workqueue keeps every later item of that CPU's pool waiting), and the
 * scheduler runs each where there is room, at normal priority, as fairly
 * as any task.
 */
struct workqueue_struct *hwtd_wq;
static atomic_long_t hwtd_global_count = ATOMIC_LONG_INIT(0);

/*
 * The users with files open, indexed by uid (the kuid's value): an xarray,
 * so that finding, adding and removing a user costs the same however many
 * users have files open.
 *
 * The xarray's lock protects the entries and every change of a user's
 * @refs: hwtd_user_put() drops a reference and, if it was the last, erases
 * the user under the lock, so a user found under the lock has @refs >= 1
 * and may be taken with refcount_inc(). @count is atomic and needs no
 * lock. Taken in process context only (open and close), with no other
 * lock held; __xa_insert() may drop it to allocate a node. Its nodes are
 * charged to the memory cgroup of the open that needs them
 * (XA_FLAGS_ACCOUNT).
 */
static DEFINE_XARRAY_FLAGS(hwtd_users, XA_FLAGS_ACCOUNT);

/**
 * hwtd_user_get() - take a reference to a user, creating it if needed
 * @uid: the real uid of the opener
 *
 * Context: process; may sleep (allocates with %GFP_KERNEL_ACCOUNT).
 * Return: the user, or NULL when it had to be allocated and that failed.
 */
static struct hwtd_user *hwtd_user_get(kuid_t uid)
{
	unsigned long index = __kuid_val(uid);
	struct hwtd_user *u, *new = NULL;
	int ret;

	for (;;) {
		xa_lock(&hwtd_users);
		u = xa_load(&hwtd_users, index);
		if (u) {
			refcount_inc(&u->refs);
			xa_unlock(&hwtd_users);
			kfree(new);
			return u;
		}
		if (new)
			break;
		xa_unlock(&hwtd_users);
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return NULL;
		new->uid = uid;
		refcount_set(&new->refs, 1);
		atomic_long_set(&new->count, 0);
		/* Look again: another open may have added the user meanwhile. */
	}
	/* -EBUSY: another open added it while the lock was dropped. */
	ret = __xa_insert(&hwtd_users, index, new, GFP_KERNEL_ACCOUNT);
	if (ret == -EBUSY) {
		u = xa_load(&hwtd_users, index);
		refcount_inc(&u->refs);
	}
	xa_unlock(&hwtd_users);
	if (!ret)
		return new;
	kfree(new);
	return ret == -EBUSY ? u : NULL;
}

/**
 * hwtd_user_put() - drop a reference taken by hwtd_user_get()
 * @u: the user
 *
 * Frees @u when its last file closes; by then its files have freed all
 * their timeouts, so its count is zero.
 *
 * Context: process.
 */
static void hwtd_user_put(struct hwtd_user *u)
{
	bool last;

	xa_lock(&hwtd_users);
	last = refcount_dec_and_test(&u->refs);
	if (last)
		__xa_erase(&hwtd_users, __kuid_val(u->uid));
	xa_unlock(&hwtd_users);
	if (!last)
		return;
	WARN_ON_ONCE(atomic_long_read(&u->count));
	kfree(u);
}

/*
 * Count one more timeout of @hf against the per-user and the global cap,
 * at the moment it is armed (under the file lock, with nothing left that
 * can fail): hwtd_charge() and hwtd_uncharge() are the only places that
 * change the two counts. The user's count is taken first: a user at its
 * cap then fails without touching the global count, so it cannot make
 * another user's arm fail however often it retries. A global failure
 * briefly holds one unit of the caller's own user count, its own business.
 * Return: 0, or -EDQUOT; then nothing is charged.
 */
static int hwtd_charge(struct hwtd_file *hf)
{
	if (!hwt_count_inc_below(&hf->user->count, READ_ONCE(user_cap)))
		return -EDQUOT;
	if (!hwt_count_inc_below(&hwtd_global_count, READ_ONCE(global_cap))) {
		atomic_long_dec(&hf->user->count);
		return -EDQUOT;
	}
	return 0;
}

/**
 * hwtd_uncharge() - uncount timeouts that ended
 * @hf: their file
 * @n: how many
 *
 * Context: any.
 */
void hwtd_uncharge(struct hwtd_file *hf, long n)
{
	atomic_long_sub(n, &hf->user->count);
	atomic_long_sub(n, &hwtd_global_count);
}

/*
 * Clocks and time namespaces. Every time the device takes or gives is on
 * the file's clock (CLOCK_MONOTONIC, or CLOCK_BOOTTIME after
 * HWTIMER_IOC_CONFIG) as the calling task's time namespace shows it, the
 * clock clock_gettime() shows it; inside, deadlines are host times of that
 * clock, which the file's wheel runs on, stored unclamped. Each call
 * converts with the namespace of the task that makes it, as
 * timerfd_settime() and clock_gettime() do; records written to the ring
 * by an expiry carry the times of the namespace of the task that made the
 * ring. Limits (INT64_MAX) are checked in the caller's namespace time.
 *
 * timens_ktime_to_host() cannot serve: it calls do_timens_ktime_to_host()
 * and compares with init_time_ns, neither of which is exported to modules.
 * timens_add_monotonic() and timens_add_boottime() are inline and only
 * read the caller's offsets.
 */

/**
 * hwtd_timens_offset() - the caller's time namespace offset of a clock
 * @boottime: of CLOCK_BOOTTIME, else CLOCK_MONOTONIC
 *
 * Context: process (the current task's namespace).
 * Return: namespace time minus host time, ns.
 */
s64 hwtd_timens_offset(bool boottime)
{
	struct timespec64 ts = { };

	if (boottime)
		timens_add_boottime(&ts);
	else
		timens_add_monotonic(&ts);
	return timespec64_to_ns(&ts);
}

/**
 * hwtd_clock_now() - the file's clock now, host time
 * @hf: the file
 *
 * Context: any.
 * Return: ns of CLOCK_MONOTONIC or CLOCK_BOOTTIME.
 */
u64 hwtd_clock_now(const struct hwtd_file *hf)
{
	if (IS_ENABLED(CONFIG_KUNIT) && hf->manual)
		return READ_ONCE(hf->manual_now);
	return hf->boottime ? ktime_get_boottime_ns() : ktime_get_ns();
}

/**
 * struct hwtd_call - what the entries of one batch call share
 * @now: host time of the file's clock, read once when the call began:
 *       every relative time of the call counts from it
 * @offset: the caller's time namespace offset of the file's clock
 * @extra: hwtd_table_prealloc() must make an extra array too
 * @nomem: that prealloc failed: the entry that needs it fails with ENOMEM
 */
struct hwtd_call {
	u64	now;
	s64	offset;
	bool	extra;
	bool	nomem;
};

/* An operation needs memory the table does not have: prealloc and retry. */
#define HWTD_AGAIN	1

/*
 * Check the timing of an arm or modify entry and compute its deadline:
 * *@host in host time, *@out in the caller's namespace time, as written
 * back. The limit INT64_MAX is the caller's: an absolute deadline beyond
 * it, or a delay that takes the namespace's now beyond it, is EINVAL.
 */
static __always_inline int hwtd_check_timing(struct hwtd_file *hf, u32 flags, u64 expires,
					     u64 period, const struct hwtd_call *call,
					     u64 *host, u64 *out)
{
	s64 off = call->offset;
	u64 ns;

	if (flags & ~HWTIMER_TIMEOUT_FLAGS)
		return -EINVAL;
	if (period && (period < hf->time.tick_ns || period > (u64)KTIME_MAX))
		return -EINVAL;
	if (flags & HWTIMER_TIMEOUT_ABS)
		ns = expires;
	else if (check_add_overflow(hwtd_time_from_host(call->now, off), expires, &ns))
		return -EINVAL;
	if (ns > (u64)KTIME_MAX)
		return -EINVAL;
	*out = ns;
	if (off < 0) {
		*host = ns + (u64)-off;
	} else if (ns >= (u64)off) {
		*host = ns - off;
	} else {
		/* Before the host clock's start: long past. */
		*host = 0;
		*out = off;
	}
	return 0;
}

/* Take a live timeout out of the wheel or the kernel queue. */
static __always_inline u32 hwtd_unlink(struct hwtd_file *hf, u32 idx)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);

	hwtd_list_del(hf, idx);
	if (s->state != HWTD_QUEUED)
		return HWTIMER_STATUS_PENDING;
	hf->nqueued--;
	return HWTIMER_STATUS_EXPIRED;
}

/*
 * The operations: each processes one entry, the kernel's copy @ent, under
 * the file lock, and sets its output fields when it succeeds; it returns
 * the entry's result (0 or -errno), or HWTD_AGAIN, having changed nothing,
 * when the table must grow first. An entry that fails changes nothing, and
 * hwtd_run_op() writes its outputs: the errno and zeros.
 */
static __always_inline int hwtd_arm_op(struct hwtd_file *hf, struct hwtd_call *call,
				       struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_arm_entry *e = ent;
	u64 deadline, out;
	struct hwtd_slot *s;
	u32 idx;
	int ret;

	if (e->reserved || e->slack_ns > (u64)KTIME_MAX)
		return -EINVAL;
	ret = hwtd_check_timing(hf, e->flags, e->expires_ns, e->period_ns, call,
				&deadline, &out);
	if (ret)
		return ret;
	if (hf->nlive >= hwtd_file_cap())
		return -ENOSPC;
	/* Memory first: nothing to undo but a slot, which no one saw. */
	if ((e->period_ns || e->slack_ns) && !hf->spare_extra)
		ret = -EAGAIN;
	else
		ret = hwtd_slot_alloc(hf, &idx);
	if (ret == -EAGAIN) {
		if (!call->nomem) {
			call->extra = e->period_ns || e->slack_ns;
			return HWTD_AGAIN;
		}
		ret = -ENOMEM;
	}
	if (ret)
		return ret;
	ret = hwtd_charge(hf);
	if (ret) {
		hwtd_slot_free(hf, idx);
		return ret;
	}

	s = hwtd_slot_at(hf, idx);
	s->cookie = e->cookie;
	s->deadline = deadline;
	/*
	 * With the spare checked above, this cannot fail. Without period or
	 * slack there is nothing to set: hwtd_slot_alloc() zeroed the slot's
	 * extra, if its chunk has them.
	 */
	if (e->period_ns || e->slack_ns)
		WARN_ON_ONCE(hwtd_extra_set(hf, idx, e->period_ns, e->slack_ns));
	hf->nlive++;
	/* The outputs go out in this hold, before the record can. */
	e->result = 0;
	e->id = hwtd_id(s, idx);
	e->deadline_ns = out;
	hwtd_start(hf, hold, idx, e->slack_ns, call->now);
	return 0;
}

static __always_inline int hwtd_cancel_op(struct hwtd_file *hf, struct hwtd_call *call,
					  struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_cancel_entry *e = ent;
	u32 idx;

	if (e->flags || e->reserved)
		return -EINVAL;
	if (!hwtd_lookup(hf, e->id, &idx))
		return -ENOENT;
	e->result = 0;
	e->status = hwtd_unlink(hf, idx);
	hwtd_end(hf, hold, idx);
	return 0;
}

static __always_inline int hwtd_modify_op(struct hwtd_file *hf, struct hwtd_call *call,
					  struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_modify_entry *e = ent;
	u64 deadline, out, slack;
	struct hwtd_extra *x;
	struct hwtd_slot *s;
	u32 idx;
	int ret;

	if (e->reserved)
		return -EINVAL;
	ret = hwtd_check_timing(hf, e->flags, e->expires_ns, e->period_ns, call,
				&deadline, &out);
	if (ret)
		return ret;
	s = hwtd_lookup(hf, e->id, &idx);
	if (!s)
		return -ENOENT;
	x = hwtd_extra(hf, idx);
	if (!x && e->period_ns && !hf->spare_extra) {
		if (!call->nomem) {
			call->extra = true;
			return HWTD_AGAIN;
		}
		return -ENOMEM;
	}
	slack = x ? x->slack : 0;

	s->deadline = deadline;
	/* With no extra and no period, there is nothing to set. */
	if (x || e->period_ns)
		WARN_ON_ONCE(hwtd_extra_set(hf, idx, e->period_ns, slack));
	e->result = 0;
	e->deadline_ns = out;
	/* A later tick: it stays where it is (see hwtd_extend()). */
	if (hwtd_extend(hf, idx, slack, call->now)) {
		e->status = HWTIMER_STATUS_PENDING;
		return 0;
	}
	e->status = hwtd_unlink(hf, idx);
	hwtd_start(hf, hold, idx, slack, call->now);
	return 0;
}

static int hwtd_get_op(struct hwtd_file *hf, struct hwtd_call *call,
		       struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_get_entry *e = ent;
	struct hwtd_extra *x;
	struct hwtd_slot *s;
	u64 now;
	u32 idx;

	if (e->flags || e->reserved || e->reserved2)
		return -EINVAL;
	s = hwtd_lookup(hf, e->id, &idx);
	if (!s)
		return -ENOENT;

	e->result = 0;
	e->status = 0;
	e->remaining_ns = 0;
	e->overrun = 0;
	now = hwtd_hold_now(hf, hold);
	x = hwtd_extra(hf, idx);
	e->cookie = s->cookie;
	e->deadline_ns = hwtd_time_from_host(s->deadline, call->offset);
	e->period_ns = x ? x->period : 0;
	e->slack_ns = x ? x->slack : 0;
	if (s->state == HWTD_QUEUED) {
		e->status = HWTIMER_STATUS_EXPIRED;
		/* What the read would count now. */
		if (e->period_ns && now > s->deadline)
			e->overrun = div64_u64(now - s->deadline, e->period_ns);
	} else {
		e->status = HWTIMER_STATUS_PENDING;
		if (s->deadline > now)
			e->remaining_ns = s->deadline - now;
	}
	return 0;
}

/* A range of an entry's output fields, written back after processing. */
struct hwtd_out {
	u8	off;
	u8	end;
};

/**
 * struct hwtd_op - a batch operation
 * @fn: processes one entry (see hwtd_arm_op())
 * @size: the size of an entry
 * @out: the ranges of its output fields, written back after @fn; the
 *       input fields are never written
 */
struct hwtd_op {
	int		(*fn)(struct hwtd_file *hf, struct hwtd_call *call,
			      struct hwtd_hold *hold, void *ent);
	size_t		size;
	struct hwtd_out	out[2];
};

#define HWTD_OUT(type, first, last)	{ offsetof(type, first), offsetofend(type, last) }

/*
 * @op on the kernel copy @ent: a failed entry's outputs are its errno, in
 * @result, the first output field of every kind, and zeros.
 */
static int hwtd_run_op(const struct hwtd_op *op, struct hwtd_file *hf,
		       struct hwtd_call *call, struct hwtd_hold *hold, void *ent)
{
	int r = op->fn(hf, call, hold, ent);
	unsigned int k;

	if (r < 0) {
		for (k = 0; k < ARRAY_SIZE(op->out) && op->out[k].end; k++)
			memset(ent + op->out[k].off, 0, op->out[k].end - op->out[k].off);
		*(s32 *)(ent + op->out[0].off) = r;
	}
	return r;
}

/* Each entry's outputs are adjacent: written with one copy per range. */
#define HWTD_ADJ(type, a, b)	(offsetof(type, b) == offsetofend(type, a))
static_assert(HWTD_ADJ(struct hwtimer_arm_entry, result, id) &&
	      HWTD_ADJ(struct hwtimer_arm_entry, id, deadline_ns));
static_assert(HWTD_ADJ(struct hwtimer_cancel_entry, result, status));
static_assert(HWTD_ADJ(struct hwtimer_modify_entry, result, deadline_ns) &&
	      HWTD_ADJ(struct hwtimer_modify_entry, deadline_ns, status));
static_assert(HWTD_ADJ(struct hwtimer_get_entry, result, status) &&
	      HWTD_ADJ(struct hwtimer_get_entry, overrun, slack_ns));
static_assert(HWTD_ADJ(struct hwtimer_batch, done, failed));

/* An operation whose outputs are the fields from @result to @last. */
#define HWTD_OP(func, type, last) {					\
	.fn = func, .size = sizeof(type),				\
	.out = { HWTD_OUT(type, result, last) },			\
}

static const struct hwtd_op hwtd_arm =
	HWTD_OP(hwtd_arm_op, struct hwtimer_arm_entry, deadline_ns);
static const struct hwtd_op hwtd_cancel =
	HWTD_OP(hwtd_cancel_op, struct hwtimer_cancel_entry, status);
static const struct hwtd_op hwtd_modify =
	HWTD_OP(hwtd_modify_op, struct hwtimer_modify_entry, status);

static const struct hwtd_op hwtd_get = {
	.fn = hwtd_get_op, .size = sizeof(struct hwtimer_get_entry),
	.out = { HWTD_OUT(struct hwtimer_get_entry, result, status),
		 HWTD_OUT(struct hwtimer_get_entry, cookie, slack_ns) },
};


/* The most pages HWTD_CHUNK entries of the largest kind can span. */
#define HWTD_PIN_PAGES	(DIV_ROUND_UP(HWTD_CHUNK * sizeof(struct hwtimer_get_entry), \
				      PAGE_SIZE) + 1)

/**
 * struct hwtd_upages - user memory pinned for a hold of the file lock
 * @uaddr: the user address of its first byte that matters
 * @start: @uaddr's page
 * @npages: pages pinned from @start
 * @writable: bit i set: page i is pinned for writing (the others for
 *            reading only: read-only mappings, the zero page...)
 * @pages: the pages
 * @kaddr: without CONFIG_HIGHMEM, their kernel addresses, found once when
 *         they are pinned rather than at each entry's copies (on a
 *         SPARSEMEM kernel without VMEMMAP, page_address() is three
 *         dependent loads)
 */
struct hwtd_upages {
	unsigned long	uaddr;
	unsigned long	start;
	int		npages;
	unsigned long	writable;
	struct page	*pages[HWTD_PIN_PAGES];
	void		*kaddr[HWTD_PIN_PAGES];
};

static_assert(HWTD_PIN_PAGES <= BITS_PER_LONG);

/*
 * Pin the pages of the @len bytes at @uaddr (@len at most what
 * HWTD_PIN_PAGES pages hold), each for writing where it is writable, else
 * for reading where it is readable, up to the first page that is neither.
 * All at once for writing first: the common case, one call. Return: how
 * many bytes from @uaddr can be read; hwtd_up_writable() tells which can
 * be written. Fewer than @len where a page is not mapped, not accessible,
 * or not memory the kernel can pin.
 */
static size_t hwtd_pin(struct hwtd_upages *up, unsigned long uaddr, size_t len)
{
	int n, got;

	up->uaddr = uaddr;
	up->start = uaddr & PAGE_MASK;
	n = DIV_ROUND_UP(uaddr + len - up->start, PAGE_SIZE);
	if (WARN_ON_ONCE(n > HWTD_PIN_PAGES))
		n = HWTD_PIN_PAGES;
	got = max(pin_user_pages_fast(up->start, n, FOLL_WRITE, up->pages), 0);
	up->writable = BIT(got) - 1;
	for (up->npages = got; up->npages < n; up->npages++) {
		unsigned long addr = up->start + ((unsigned long)up->npages << PAGE_SHIFT);
		struct page **page = &up->pages[up->npages];

		if (pin_user_pages_fast(addr, 1, FOLL_WRITE, page) == 1)
			up->writable |= BIT(up->npages);
		else if (pin_user_pages_fast(addr, 1, 0, page) != 1)
			break;
	}
	if (!IS_ENABLED(CONFIG_HIGHMEM))
		for (n = 0; n < up->npages; n++)
			up->kaddr[n] = page_address(up->pages[n]);
	if (!up->npages)
		return 0;
	return min(len, up->start + ((size_t)up->npages << PAGE_SHIFT) - up->uaddr);
}

/* Whether the @len bytes at offset @off of the pinned range can be written. */
static bool hwtd_up_writable(const struct hwtd_upages *up, size_t off, size_t len)
{
	size_t pos = up->uaddr - up->start + off;
	unsigned int first = pos >> PAGE_SHIFT, last = (pos + len - 1) >> PAGE_SHIFT;

	if (last >= up->npages)
		return false;
	return (up->writable & GENMASK(last, first)) == GENMASK(last, first);
}

static void hwtd_unpin(struct hwtd_upages *up)
{
	int i;

	if (up->writable == BIT(up->npages) - 1) {
		unpin_user_pages_dirty_lock(up->pages, up->npages, true);
	} else {
		for (i = 0; i < up->npages; i++)
			unpin_user_pages_dirty_lock(&up->pages[i], 1, up->writable & BIT(i));
	}
	up->npages = 0;
	up->writable = 0;
}

/*
 * Whether the output fields of the entry of @op at offset @off of the
 * pinned range can be written: its input fields need only be readable.
 */
static bool hwtd_out_writable(const struct hwtd_upages *up, size_t off, const struct hwtd_op *op)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(op->out) && op->out[k].end; k++)
		if (!hwtd_up_writable(up, off + op->out[k].off, op->out[k].end - op->out[k].off))
			return false;
	return true;
}

/*
 * Copy @n bytes at @pos of the pinned pages (from @up->start), all within
 * one page, to (@out) or from @buf. Return: false, with nothing copied,
 * when that page is not pinned, or not for writing when @out (the zero
 * page...).
 */
static __always_inline bool hwtd_page_copy(struct hwtd_upages *up, size_t pos, void *buf,
					   size_t n, bool out)
{
	unsigned int i = pos >> PAGE_SHIFT;
	char *k;

	if (i >= up->npages || (out && !(up->writable & BIT(i))))
		return false;
	if (IS_ENABLED(CONFIG_HIGHMEM))
		k = kmap_local_page(up->pages[i]);
	else
		k = up->kaddr[i];
	k += offset_in_page(pos);
	if (out)
		memcpy(k, buf, n);
	else
		memcpy(buf, k, n);
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(k);
	return true;
}

/* hwtd_up_copy() of bytes that span pages: a page at a time. */
static noinline void __hwtd_up_copy(struct hwtd_upages *up, size_t pos, void *buf,
				    size_t len, bool out)
{
	while (len) {
		size_t n = min(len, PAGE_SIZE - offset_in_page(pos));

		if (WARN_ON_ONCE(!hwtd_page_copy(up, pos, buf, n, out)))
			return;
		pos += n;
		buf += n;
		len -= n;
	}
}

/*
 * Copy @len bytes at offset @off of the pinned range to (@out) or from
 * @buf. Inline for the common case: bytes within one page, whose @len is
 * a constant in each operation's copy of hwtd_batch(), copied with a few
 * moves.
 */
static __always_inline void hwtd_up_copy(struct hwtd_upages *up, size_t off, void *buf,
					 size_t len, bool out)
{
	size_t pos = up->uaddr - up->start + off;

	if (likely(offset_in_page(pos) + len <= PAGE_SIZE) &&
	    likely(hwtd_page_copy(up, pos, buf, len, out)))
		return;
	__hwtd_up_copy(up, pos, buf, len, out);
}

/*
 * Write back the output fields @out of the kernel copy @ent of the entry at
 * @off. Called once per range, not in a loop over @op->out: gcc did not
 * unroll that loop, and copied each entry's outputs with a length known
 * only at run time: a string move (rep movsq), dear on hardware for a few
 * bytes and dearer under TCG (the bench's calib rows: a 64-byte string
 * move costs seven times eight word moves).
 */
static __always_inline void hwtd_out_copy(struct hwtd_upages *up, size_t off, u8 *ent,
					  const struct hwtd_out *out)
{
	hwtd_up_copy(up, off + out->off, ent + out->off, out->end - out->off, true);
}

/*
 * Run @op over the entries of a batch (see the top of this file). The
 * clock is read once, before the first entry: every relative time in the
 * batch counts from that moment. The batch counts in @hf->nbusy while it
 * runs, which keeps the file's configuration as it was when it began.
 * Inlined for each operation, whose @op is a constant there: its function
 * is a direct call, and its entry copies are moves of a constant size.
 */
static __always_inline long hwtd_batch(struct hwtd_file *hf,
				       struct hwtimer_batch __user *ubatch,
				       const struct hwtd_op *op)
{
	/* The kernel copy of an entry, read through the entry structs. */
	u8 ent[sizeof(struct hwtimer_get_entry)] __aligned(8);
	struct hwtd_upages hdr, up;
	struct hwtimer_batch batch;
	u32 hdr_out[2];
	size_t rlen;
	struct hwtd_call call = { };
	struct hwtd_hold hold;
	unsigned long uent;
	u32 done = 0, failed = 0, n, i;
	bool stop = false;
	int ret = 0, r = 0;

	if (copy_from_user(&batch, ubatch, sizeof(batch)))
		return -EFAULT;
	if ((batch.flags & ~HWTIMER_BATCH_FLAGS) || batch.reserved[0] ||
	    batch.reserved[1] || !batch.count)
		return -EINVAL;
	if (batch.count > HWTIMER_BATCH_MAX)
		return -E2BIG;
	uent = (unsigned long)u64_to_user_ptr(batch.entries);
	if (!access_ok((void __user *)uent, (size_t)batch.count * op->size))
		return -EFAULT;
	/* @done and @failed must be writable, to the end, whatever happens. */
	hwtd_pin(&hdr, (unsigned long)ubatch, sizeof(batch));
	if (!hwtd_up_writable(&hdr, offsetof(struct hwtimer_batch, done), sizeof(hdr_out))) {
		hwtd_unpin(&hdr);
		return -EFAULT;
	}

	spin_lock_irq(&hf->lock);
	hf->nbusy++;
	spin_unlock_irq(&hf->lock);
	call.offset = hwtd_timens_offset(hf->boottime);
	call.now = hwtd_clock_now(hf);

	while (done < batch.count && !stop) {
		/*
		 * The entries that can be read whole and whose outputs can be
		 * written: an entry's inputs may lie on a read-only page.
		 */
		n = min_t(u32, batch.count - done, HWTD_CHUNK);
		rlen = hwtd_pin(&up, uent + (size_t)done * op->size, n * op->size);
		for (i = 0; i < n; i++)
			if ((i + 1) * op->size > rlen || !hwtd_out_writable(&up, i * op->size, op))
				break;
		n = i;
		if (!n) {
			/* Entry @done cannot be read, or written back. */
			hwtd_unpin(&up);
			ret = -EFAULT;
			break;
		}
		for (i = 0; i < n && !stop;) {
			memset(&hold, 0, sizeof(hold));
			spin_lock_irq(&hf->lock);
			/* Room in the ring since the last call: use it. */
			hwtd_refill(hf, &hold, HWTD_CHUNK);
			for (; i < n; i++) {
				hwtd_up_copy(&up, i * op->size, ent, op->size, false);
				r = hwtd_run_op(op, hf, &call, &hold, ent);
				if (r == HWTD_AGAIN)
					break;
				call.nomem = false;
				hwtd_out_copy(&up, i * op->size, ent, &op->out[0]);
				if (op->out[1].end)
					hwtd_out_copy(&up, i * op->size, ent, &op->out[1]);
				if (r) {
					failed++;
					if (!(batch.flags & HWTIMER_BATCH_CONTINUE)) {
						ret = r;
						stop = true;
						i++;
						break;
					}
				}
			}
			hwtd_hold_end(hf, &hold);
			spin_unlock_irq(&hf->lock);
			hwtd_hold_wake(hf, &hold);
			if (r == HWTD_AGAIN) {
				call.nomem = hwtd_table_prealloc(hf, call.extra) < 0;
				call.extra = false;
			}
		}
		done += i;
		hwtd_unpin(&up);
		cond_resched();
	}

	spin_lock_irq(&hf->lock);
	hf->nbusy--;
	spin_unlock_irq(&hf->lock);
	if (op == &hwtd_cancel)
		hwtd_trim(hf);
	/*
	 * Each hold moved up to HWTD_CHUNK queued records to the ring; the
	 * rest go now, as far as it has room (hwtimer(4) says a batch does).
	 * A file without a ring keeps them for read(): no lock round for it.
	 */
	if (data_race(hf->nqueued) && hwtd_ring_entries(hf))
		hwtd_has_records(hf);

	/* @done and @failed, adjacent (HWTD_ADJ), in one copy. */
	hdr_out[0] = done;
	hdr_out[1] = failed;
	hwtd_up_copy(&hdr, offsetof(struct hwtimer_batch, done), hdr_out, sizeof(hdr_out),
		     true);
	hwtd_unpin(&hdr);
	return ret;
}

/* A file's configuration: precision @p, clock @c (under the lock or at open). */
static void hwtd_set_config(struct hwtd_file *hf, unsigned int p, unsigned int c)
{
	hf->wheel = hwtd_wheels[p][c];
	hf->time = hf->wheel->time;
	hf->precision = p;
	hf->boottime = c;
}

/*
 * HWTIMER_IOC_CONFIG: the file's clock and precision, only while it holds
 * no timeout and no batch runs on it (see struct hwtd_file).
 */
static long hwtd_config(struct hwtd_file *hf, struct hwtimer_config __user *ucfg)
{
	struct hwtimer_config cfg;
	unsigned int clock;
	long ret = 0;

	if (copy_from_user(&cfg, ucfg, sizeof(cfg)))
		return -EFAULT;
	if (cfg.reserved[0] || cfg.reserved[1] || cfg.reserved[2])
		return -EINVAL;
	if (cfg.clockid == CLOCK_MONOTONIC)
		clock = 0;
	else if (cfg.clockid == CLOCK_BOOTTIME)
		clock = 1;
	else
		return -EINVAL;
	if (cfg.precision >= HWTD_PRECISIONS)
		return -EINVAL;

	spin_lock_irq(&hf->lock);
	if (hf->nlive || hf->nbusy) {
		ret = -EBUSY;
	} else {
		/* The wheel is empty: its clock starts afresh. */
		hwtd_set_config(hf, cfg.precision, clock);
		hf->clk = 0;
		/* A pass under way has nothing left, in any tick numbering. */
		hf->target = 0;
		hwtd_file_timer_select(hf, cfg.precision, clock);
	}
	spin_unlock_irq(&hf->lock);
	return ret;
}

static long hwtd_info(struct hwtd_file *hf, struct hwtimer_info __user *uinfo)
{
	struct hwtimer_info info;

	memset(&info, 0, sizeof(info));
	info.features = HWTD_FEATURES;
	info.batch_max = HWTIMER_BATCH_MAX;
	info.record_size = sizeof(struct hwtimer_expiry);
	info.file_cap = hwtd_file_cap();
	info.global_cap = READ_ONCE(global_cap);
	info.global_count = atomic_long_read(&hwtd_global_count);
	info.user_cap = READ_ONCE(user_cap);
	info.user_count = atomic_long_read(&hf->user->count);
	spin_lock_irq(&hf->lock);
	info.pending = hf->nlive - hf->nqueued;
	info.queued = hf->nqueued;
	info.tick_ns = hf->time.tick_ns;
	info.slots = hwtimer_wheel_slots(hf->wheel);
	info.clockid = hf->boottime ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
	info.precision = hf->precision;
	spin_unlock_irq(&hf->lock);

	return copy_to_user(uinfo, &info, sizeof(info)) ? -EFAULT : 0;
}

static long hwtd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hwtd_file *hf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HWTIMER_IOC_INFO:
		return hwtd_info(hf, argp);
	case HWTIMER_IOC_ARM:
		return hwtd_batch(hf, argp, &hwtd_arm);
	case HWTIMER_IOC_CANCEL:
		return hwtd_batch(hf, argp, &hwtd_cancel);
	case HWTIMER_IOC_MODIFY:
		return hwtd_batch(hf, argp, &hwtd_modify);
	case HWTIMER_IOC_GET:
		return hwtd_batch(hf, argp, &hwtd_get);
	case HWTIMER_IOC_CONFIG:
		return hwtd_config(hf, argp);
	case HWTIMER_IOC_RING:
		return hwtd_ring_setup(hf, argp);
	default:
		return -ENOTTY;
	}
}

/*
 * Take up to @max records off the kernel queue into @recs, their times
 * converted for the caller. Periodic timeouts are re-armed for the first
 * period that ends after now, the clock read once the lock is held (on
 * PREEMPT_RT taking it may wait for an expiry pass, and a stale clock would
 * re-arm them in the past). The namespace offset is read under the lock
 * too: once the last record is taken, the file may be configured for
 * another clock.
 */
static unsigned int hwtd_read_some(struct hwtd_file *hf, struct hwtimer_expiry *recs,
				   unsigned int max)
{
	struct hwtd_hold hold = { };
	unsigned int n;

	spin_lock_irq(&hf->lock);
	n = hwtd_dequeue(hf, &hold, recs, max, hwtd_timens_offset(hf->boottime));
	hwtd_hold_end(hf, &hold);
	spin_unlock_irq(&hf->lock);
	return n;
}

/*
 * read(): whole records from the kernel queue, oldest first. The file
 * lock is held for at most HWTD_READ_CHUNK records at a time, never across
 * a copy to user space; between chunks the reader may be rescheduled, and
 * a fatal signal ends the read with the records copied so far.
 */
static ssize_t hwtd_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct hwtimer_expiry stack_recs[HWTD_READ_STACK], *recs = stack_recs;
	struct hwtd_file *hf = file->private_data;
	size_t max = count / sizeof(*recs), chunk = HWTD_READ_STACK;
	size_t done = 0, left;
	ssize_t ret = 0;
	unsigned int n;

	if (!max)
		return -EINVAL;

	while (done < max) {
		if (done) {
			if (fatal_signal_pending(current))
				break;
			cond_resched();
			if (recs == stack_recs && done == HWTD_READ_STACK) {
				/* Once, after a full first chunk: more may come. */
				size_t want = min_t(size_t, max - done, HWTD_READ_CHUNK);
				struct hwtimer_expiry *p;

				p = kmalloc_array(want, sizeof(*p), GFP_KERNEL_ACCOUNT |
						  __GFP_NOWARN | __GFP_NORETRY);
				if (p) {
					recs = p;
					chunk = want;
				}
			}
		}
		n = hwtd_read_some(hf, recs, min_t(size_t, max - done, chunk));
		if (n) {
			/*
			 * Records taken off are consumed, as timerfd's ticks
			 * are: on a fault, the whole records copied count.
			 */
			left = copy_to_user(buf + done * sizeof(*recs), recs,
					    n * sizeof(*recs));
			if (left) {
				done += (n * sizeof(*recs) - left) / sizeof(*recs);
				if (!done)
					ret = -EFAULT;
				break;
			}
			done += n;
			continue;
		}
		if (done)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		ret = wait_event_interruptible(hf->rwq, READ_ONCE(hf->nqueued));
		if (ret)
			break;
	}
	if (recs != stack_recs)
		kfree(recs);
	if (done)
		hwtd_trim(hf);
	return done ? done * sizeof(*recs) : ret;
}

static __poll_t hwtd_poll(struct file *file, poll_table *wait)
{
	struct hwtd_file *hf = file->private_data;

	poll_wait(file, &hf->wq, wait);
	return hwtd_has_records(hf) ? EPOLLIN | EPOLLRDNORM : 0;
}

static struct hwtd_file *hwtd_file_alloc(void)
{
	struct hwtd_file *hf = kzalloc(sizeof(*hf), GFP_KERNEL_ACCOUNT);

	if (!hf)
		return NULL;
	spin_lock_init(&hf->lock);
	hwtd_lists_init(hf);
	init_waitqueue_head(&hf->wq);
	init_waitqueue_head(&hf->rwq);
	hf->armed = U64_MAX;
	hf->low = HWTD_NIL;
	atomic_long_inc(&hwtd_stats.files);
	return hf;
}

static void hwtd_file_free(struct hwtd_file *hf)
{
	hwtd_file_timer_stop(hf);
	/* Nothing runs on the file any more: no lock needed. */
	hwtd_uncharge(hf, hf->nlive);
	hwtd_table_destroy(hf);
	hwtd_ring_free(hf);
	kfree(hf);
	atomic_long_dec(&hwtd_stats.files);
}

static int hwtd_open(struct inode *inode, struct file *file)
{
	struct hwtd_file *hf = hwtd_file_alloc();

	if (!hf)
		return -ENOMEM;
	hf->user = hwtd_user_get(file->f_cred->uid);
	if (!hf->user) {
		kfree(hf);
		atomic_long_dec(&hwtd_stats.files);
		return -ENOMEM;
	}
	hwtd_set_config(hf, HWTIMER_PRECISION_DEFAULT, 0);
	hwtd_file_timer_init(hf, hwtd_wheels);
	file->private_data = hf;
	return stream_open(inode, file);
}

static int hwtd_release(struct inode *inode, struct file *file)
{
	struct hwtd_file *hf = file->private_data;
	struct hwtd_user *u = hf->user;

	hwtd_file_free(hf);
	hwtd_user_put(u);
	return 0;
}

static void hwtd_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct hwtd_file *hf = file->private_data;
	unsigned long pending, queued;
	unsigned int precision, chunks;
	u64 expiry_ns;
	bool boottime;

	spin_lock_irq(&hf->lock);
	pending = hf->nlive - hf->nqueued;
	queued = hf->nqueued;
	precision = hf->precision;
	boottime = hf->boottime;
	chunks = hf->nchunks;
	expiry_ns = hf->expiry_ns;
	spin_unlock_irq(&hf->lock);

	seq_printf(m, "pending:\t%lu\nqueued:\t%lu\ncap:\t%u\n",
		   pending, queued, hwtd_file_cap());
	seq_printf(m, "clockid:\t%d\nprecision:\t%u\n",
		   boottime ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, precision);
	seq_printf(m, "user_count:\t%ld\nuser_cap:\t%u\n",
		   atomic_long_read(&hf->user->count), READ_ONCE(user_cap));
	seq_printf(m, "chunks:\t%u\nring:\t%u\n", chunks, hwtd_ring_entries(hf));
	seq_printf(m, "expiry_ns:\t%llu\n", expiry_ns);
}

static const struct file_operations hwtd_fops = {
	.owner		= THIS_MODULE,
	.open		= hwtd_open,
	.release	= hwtd_release,
	.read		= hwtd_read,
	.poll		= hwtd_poll,
	.mmap		= hwtd_mmap,
	.unlocked_ioctl	= hwtd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= hwtd_show_fdinfo,
};

static struct miscdevice hwtd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "hwtimer",
	.fops	= &hwtd_fops,
	.mode	= 0666,
};

/* debugfs hwtimer/device: what all files hold, for tests and root. */
static int hwtd_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "files:\t%ld\n", atomic_long_read(&hwtd_stats.files));
	seq_printf(m, "timeouts:\t%ld\n", atomic_long_read(&hwtd_global_count));
	seq_printf(m, "chunks:\t%ld\n", atomic_long_read(&hwtd_stats.chunks));
	seq_printf(m, "extras:\t%ld\n", atomic_long_read(&hwtd_stats.extras));
	seq_printf(m, "leaves:\t%ld\n", atomic_long_read(&hwtd_stats.leaves));
	seq_printf(m, "rings:\t%ld\n", atomic_long_read(&hwtd_stats.rings));
	seq_printf(m, "ring_pages:\t%ld\n", atomic_long_read(&hwtd_stats.ring_pages));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwtd_stats);

static void hwtd_wheels_destroy(void)
{
	unsigned long left;
	int p, c;

	for (p = 0; p < HWTD_PRECISIONS; p++) {
		for (c = 0; c < HWTD_CLOCKS; c++) {
			if (!hwtd_wheels[p][c])
				continue;
			left = hwtimer_wheel_destroy(hwtd_wheels[p][c], NULL, NULL);
			/* Each open file holds a module reference. */
			WARN(left, "%lu timers still pending on device wheel %d/%d\n",
			     left, p, c);
			hwtd_wheels[p][c] = NULL;
		}
	}
}

/**
 * hwtd_init() - bring up /dev/hwtimer
 * @params: the tick and level-0 slots of the device's wheels, by precision
 *
 * Creates the device's wheels, one per precision and clock, uncapped: each
 * file has one timer on one of them, and the device's own caps bound the
 * timeouts.
 *
 * Context: module init.
 * Return: 0, or a negative errno (a bad parameter: the wheel's error).
 */
int hwtd_init(const struct hwtd_wheel_params *params)
{
	static const char * const names[HWTD_PRECISIONS][HWTD_CLOCKS] = {
		[HWTIMER_PRECISION_DEFAULT] = { "dev", "dev-boottime" },
		[HWTIMER_PRECISION_FINE] = { "dev-fine", "dev-fine-boottime" },
		[HWTIMER_PRECISION_COARSE] = { "dev-coarse", "dev-coarse-boottime" },
	};
	struct hwtimer_wheel_config cfg = { };
	struct dentry *dir;
	int p, c, ret;

	for (p = 0; p < HWTD_PRECISIONS; p++) {
		for (c = 0; c < HWTD_CLOCKS; c++) {
			cfg.name = names[p][c];
			cfg.tick_ns = params->tick_ns[p];
			cfg.slots = params->slots[p];
			cfg.flags = c ? HWTIMER_WHEEL_BOOTTIME : 0;
			hwtd_wheels[p][c] = hwtimer_wheel_create(&cfg);
			if (IS_ERR(hwtd_wheels[p][c])) {
				ret = PTR_ERR(hwtd_wheels[p][c]);
				pr_err("bad parameters of wheel %s: tick_ns=%llu slots=%u: %d\n",
				       cfg.name, cfg.tick_ns, cfg.slots, ret);
				hwtd_wheels[p][c] = NULL;
				goto out_wheels;
			}
		}
	}
	ret = -ENOMEM;
	hwtd_wq = alloc_workqueue("hwtimer-dev", WQ_UNBOUND, 0);
	if (!hwtd_wq)
		goto out_wheels;
	ret = misc_register(&hwtd_misc);
	if (ret)
		goto out_wq;
	dir = debugfs_lookup("hwtimer", NULL);
	hwtd_debugfs = debugfs_create_file("device", 0444, dir, NULL, &hwtd_stats_fops);
	dput(dir);
	return 0;

out_wq:
	destroy_workqueue(hwtd_wq);
out_wheels:
	hwtd_wheels_destroy();
	return ret;
}

/**
 * hwtd_exit() - take /dev/hwtimer down
 *
 * Context: module exit; no file is open (each holds a module reference).
 */
void hwtd_exit(void)
{
	debugfs_remove(hwtd_debugfs);
	misc_deregister(&hwtd_misc);
	WARN_ON(!xa_empty(&hwtd_users));
	/* Each file cancelled its work when it closed. */
	destroy_workqueue(hwtd_wq);
	hwtd_wheels_destroy();
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * hwtd_file_create_manual() - a file for the KUnit tests of the table and
 *                             wheel: no device, no timer, a manual clock
 * @tick_ns: its tick
 * @epoch: host time of its tick 0
 *
 * Context: process.
 * Return: the file, or NULL.
 */
struct hwtd_file *hwtd_file_create_manual(u64 tick_ns, u64 epoch)
{
	struct hwtd_file *hf = hwtd_file_alloc();

	if (!hf)
		return NULL;
	hf->user = hwtd_user_get(GLOBAL_ROOT_UID);
	if (!hf->user) {
		kfree(hf);
		atomic_long_dec(&hwtd_stats.files);
		return NULL;
	}
	hf->manual = true;
	hwt_time_init(&hf->time, epoch, tick_ns);
	return hf;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_file_create_manual);

/**
 * hwtd_kunit_op() - run one batch entry through its operation
 * @hf: a manual file
 * @cmd: HWTIMER_IOC_ARM, _CANCEL, _MODIFY or _GET
 * @ent: the entry, in kernel memory; its outputs are set
 * @now: the call's clock (host ns); relative times count from it
 *
 * The same function a batch ioctl runs for each entry, under the file
 * lock, growing the table as a batch does.
 *
 * Context: process; takes the file lock.
 * Return: the entry's result.
 */
int hwtd_kunit_op(struct hwtd_file *hf, unsigned int cmd, void *ent, u64 now)
{
	const struct hwtd_op *op = cmd == HWTIMER_IOC_ARM ? &hwtd_arm :
				   cmd == HWTIMER_IOC_CANCEL ? &hwtd_cancel :
				   cmd == HWTIMER_IOC_MODIFY ? &hwtd_modify : &hwtd_get;
	struct hwtd_call call = { .now = now };
	struct hwtd_hold hold;
	int r;

	for (;;) {
		memset(&hold, 0, sizeof(hold));
		spin_lock_irq(&hf->lock);
		r = hwtd_run_op(op, hf, &call, &hold, ent);
		hwtd_hold_end(hf, &hold);
		spin_unlock_irq(&hf->lock);
		hwtd_hold_wake(hf, &hold);
		if (r != HWTD_AGAIN)
			return r;
		call.nomem = hwtd_table_prealloc(hf, call.extra) < 0;
		call.extra = false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_op);

/**
 * hwtd_kunit_read() - take records off the kernel queue, as read() does
 * @hf: a manual file
 * @recs: where they go, times in host ns (deadlines at most KTIME_MAX)
 * @max: the most to take
 *
 * Context: process; takes the file lock.
 * Return: how many were taken.
 */
unsigned int hwtd_kunit_read(struct hwtd_file *hf, struct hwtimer_expiry *recs,
			     unsigned int max)
{
	struct hwtd_hold hold = { };
	unsigned int n;

	spin_lock_irq(&hf->lock);
	n = hwtd_dequeue(hf, &hold, recs, max, 0);
	hwtd_hold_end(hf, &hold);
	spin_unlock_irq(&hf->lock);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_read);

/**
 * hwtd_kunit_global_count() - the device's global count of timeouts
 *
 * Context: any.
 * Return: the count.
 */
long hwtd_kunit_global_count(void)
{
	return atomic_long_read(&hwtd_global_count);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_global_count);

/**
 * hwtd_file_destroy_manual() - free a file of hwtd_file_create_manual()
 * @hf: the file
 *
 * Context: process.
 */
void hwtd_file_destroy_manual(struct hwtd_file *hf)
{
	struct hwtd_user *u = hf->user;

	hwtd_file_free(hf);
	hwtd_user_put(u);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_file_destroy_manual);
#endif
