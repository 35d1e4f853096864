// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: many timeouts behind one file descriptor. This file is the
 * ABI, the top layer of the device (hwtimer_dev.h): open, ioctl, read,
 * poll, mmap and close, and the batches. The ABI is
 * include/uapi/linux/hwtimer.h and the manual page docs/hwtimer.4.
 *
 * Batches: each batch ioctl takes up to HWTIMER_BATCH_MAX entries. The
 * pages holding the next HWTD_HOLD_MAX entries are pinned
 * (hwtimer_dev_pin.c); under one hold of the file lock, each entry is
 * copied from them, processed by its operation's function on the kernel
 * copy, and its outputs are written back to them. A pinned page cannot
 * fault, so an entry's outputs are written in the same hold that acts on
 * it, whatever another thread does to its memory meanwhile: an entry
 * either took effect with its outputs written, or it was not acted on and
 * the batch stopped before it with EFAULT (an entry that cannot be read
 * whole, or whose output fields cannot be written). The batch header is
 * pinned too, for @done and @failed. Caps are charged at the moment an
 * entry is armed, with nothing left to fail after: never charged and
 * given back (hwtimer_dev_account.c).
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

#include "hwtimer_dev_account.h"
#include "hwtimer_dev_pin.h"
#include "hwtimer_dev_records.h"
#include "hwtimer_dev_table.h"
#include "hwtimer_dev_wheel.h"

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

atomic_long_t hwtd_files;

/* The device's wheels, by precision and clock: created at load, then read only. */
static struct hwtimer_wheel *hwtd_wheels[HWTD_PRECISIONS][HWTD_CLOCKS];
static struct dentry *hwtd_debugfs;

/**
 * struct hwtd_call - what the entries of one batch call share
 * @now: host time of the file's clock, read once when the call began:
 *       every relative time of the call counts from it
 * @offset: the caller's time namespace offset of the file's clock
 * @ns_now: @now as the caller's namespace shows it, converted once
 *          (hwtd_call_begin()): what a relative time is added to
 * @extra: hwtd_table_prealloc() must make an extra array too
 * @nomem: that prealloc failed: the entry that needs it fails with ENOMEM
 */
struct hwtd_call {
	u64	now;
	s64	offset;
	u64	ns_now;
	bool	extra;
	bool	nomem;
};

/* A call begins at host time @now, for a caller whose namespace has @offset. */
static void hwtd_call_begin(struct hwtd_call *call, u64 now, s64 offset)
{
	call->now = now;
	call->offset = offset;
	call->ns_now = hwtd_time_from_host(now, offset);
}

/* An operation needs memory the table does not have: prealloc and retry. */
#define HWTD_AGAIN	1

/*
 * Check the timing of an arm or modify entry and compute its deadline:
 * *@host in host time, *@out in the caller's namespace time, as written
 * back. The limit INT64_MAX is the caller's: an absolute deadline beyond
 * it, or a delay that takes the namespace's now beyond it, is EINVAL.
 */
static __always_inline int hwtd_check_timing(struct hwtd_file *file, u32 flags, u64 expires,
					     u64 period, const struct hwtd_call *call,
					     u64 *host, u64 *out)
{
	s64 off = call->offset;
	u64 ns;

	if (flags & ~HWTIMER_TIMEOUT_FLAGS)
		return -EINVAL;
	if (period && (period < file->time.tick_ns || period > (u64)KTIME_MAX))
		return -EINVAL;
	if (flags & HWTIMER_TIMEOUT_ABS)
		ns = expires;
	else if (check_add_overflow(call->ns_now, expires, &ns))
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

/*
 * The operations: each processes one entry, the kernel's copy @ent, under
 * the file lock, and sets its output fields when it succeeds; it returns
 * the entry's result (0 or -errno), or HWTD_AGAIN, having changed nothing,
 * when the table must grow first. An entry that fails changes nothing, and
 * hwtd_run_op() writes its outputs: the errno and zeros.
 */
static __always_inline int hwtd_arm_op(struct hwtd_file *file, struct hwtd_call *call,
				       struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_arm_entry *e = ent;
	u64 deadline, out;
	struct hwtd_timeout *s;
	u32 idx;
	int ret;

	if (e->reserved || e->slack_ns > (u64)KTIME_MAX)
		return -EINVAL;
	ret = hwtd_check_timing(file, e->flags, e->expires_ns, e->period_ns, call,
				&deadline, &out);
	if (ret)
		return ret;
	if (file->nlive >= hwtd_file_cap())
		return -ENOSPC;
	/* Memory first: nothing to undo but a table entry, which no one saw. */
	if ((e->period_ns || e->slack_ns) && !file->spare_extra)
		ret = -EAGAIN;
	else
		ret = hwtd_timeout_alloc(file, &idx);
	if (ret == -EAGAIN) {
		if (!call->nomem) {
			call->extra = e->period_ns || e->slack_ns;
			return HWTD_AGAIN;
		}
		ret = -ENOMEM;
	}
	if (ret)
		return ret;
	ret = hwtd_charge(file);
	if (unlikely(ret) && hold->freed) {
		/*
		 * Timeouts that ended earlier in this hold do not count
		 * (hwtimer(4)): uncharge them now rather than when the hold
		 * ends, and try again. Only on the way to EDQUOT, so the
		 * atomics stay one batch per hold otherwise.
		 */
		hwtd_hold_uncharge(file, hold);
		ret = hwtd_charge(file);
	}
	if (ret) {
		hwtd_timeout_free(file, idx);
		return ret;
	}

	s = hwtd_timeout_at(file, idx);
	s->cookie = e->cookie;
	s->deadline = deadline;
	/*
	 * With the spare checked above, this cannot fail. Without period or
	 * slack there is nothing to set: hwtd_timeout_alloc() zeroed the timeout's
	 * extra, if its chunk has them.
	 */
	if (e->period_ns || e->slack_ns)
		WARN_ON_ONCE(hwtd_extra_set(file, idx, e->period_ns, e->slack_ns));
	file->nlive++;
	/* The outputs go out in this hold, before the record can. */
	e->result = 0;
	e->id = hwtd_id(s, idx);
	e->deadline_ns = out;
	if (hwtd_wheel_start(file, idx, e->slack_ns, call->now))
		hwtd_deliver(file, hold, idx);
	return 0;
}

static __always_inline int hwtd_cancel_op(struct hwtd_file *file, struct hwtd_call *call,
					  struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_cancel_entry *e = ent;
	u32 idx;

	if (e->flags || e->reserved)
		return -EINVAL;
	if (!hwtd_lookup(file, e->id, &idx))
		return -ENOENT;
	e->result = 0;
	e->status = hwtd_take_out(file, idx);
	hwtd_end(file, hold, idx);
	return 0;
}

static __always_inline int hwtd_modify_op(struct hwtd_file *file, struct hwtd_call *call,
					  struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_modify_entry *e = ent;
	u64 deadline, out, slack;
	struct hwtd_extra *x;
	struct hwtd_timeout *s;
	u32 idx;
	int ret;

	if (e->reserved)
		return -EINVAL;
	ret = hwtd_check_timing(file, e->flags, e->expires_ns, e->period_ns, call,
				&deadline, &out);
	if (ret)
		return ret;
	s = hwtd_lookup(file, e->id, &idx);
	if (!s)
		return -ENOENT;
	x = hwtd_extra_get(file, idx);
	if (!x && e->period_ns && !file->spare_extra) {
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
		WARN_ON_ONCE(hwtd_extra_set(file, idx, e->period_ns, slack));
	e->result = 0;
	e->deadline_ns = out;
	/* A tick its slot still serves: it stays where it is. */
	if (hwtd_wheel_extend(file, idx, slack, call->now)) {
		e->status = HWTIMER_STATUS_PENDING;
		return 0;
	}
	e->status = hwtd_take_out(file, idx);
	if (hwtd_wheel_start(file, idx, slack, call->now))
		hwtd_deliver(file, hold, idx);
	return 0;
}

static int hwtd_get_op(struct hwtd_file *file, struct hwtd_call *call,
		       struct hwtd_hold *hold, void *ent)
{
	struct hwtimer_get_entry *e = ent;
	struct hwtd_extra *x;
	struct hwtd_timeout *s;
	u64 now;
	u32 idx;

	if (e->flags || e->reserved || e->reserved2)
		return -EINVAL;
	s = hwtd_lookup(file, e->id, &idx);
	if (!s)
		return -ENOENT;

	e->result = 0;
	e->status = 0;
	e->remaining_ns = 0;
	e->overrun = 0;
	now = hwtd_hold_now(file, hold);
	x = hwtd_extra_get(file, idx);
	e->cookie = s->cookie;
	e->deadline_ns = hwtd_time_from_host(s->deadline, call->offset);
	e->period_ns = x ? x->period : 0;
	e->slack_ns = x ? x->slack : 0;
	if (s->state == HWTD_QUEUED) {
		e->status = HWTIMER_STATUS_EXPIRED;
		/* What the read would count now. */
		if (e->period_ns)
			e->overrun = hwt_periods_missed(s->deadline, e->period_ns, now);
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
	int		(*fn)(struct hwtd_file *file, struct hwtd_call *call,
			      struct hwtd_hold *hold, void *ent);
	size_t		size;
	struct hwtd_out	out[2];
};

#define HWTD_OUT(type, first, last)	{ offsetof(type, first), offsetofend(type, last) }

/*
 * @op on the kernel copy @ent: a failed entry's outputs are its errno, in
 * @result, the first output field of every kind, and zeros.
 */
static int hwtd_run_op(const struct hwtd_op *op, struct hwtd_file *file,
		       struct hwtd_call *call, struct hwtd_hold *hold, void *ent)
{
	int r = op->fn(file, call, hold, ent);
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
 * Write back the output fields @out of the kernel copy @ent of the entry at
 * @off. Called once per range with @out a constant, so that each copy is a
 * few moves of a size the compiler knows, not a string move of a length
 * known only at run time.
 */
static __always_inline void hwtd_out_copy(struct hwtd_upages *up, size_t off, u8 *ent,
					  const struct hwtd_out *out)
{
	hwtd_up_copy(up, off + out->off, ent + out->off, out->end - out->off, true);
}

/*
 * The header of a batch of @op at @ubatch: read into *@batch and checked,
 * its entries, at *@uent, readable, and its @done and @failed pinned in
 * @hdr, which hwtd_batch_end() writes back and unpins.
 *
 * Context: process, no lock held.
 * Return: 0, or -EFAULT, -EINVAL or -E2BIG with nothing pinned.
 */
static __always_inline int hwtd_batch_begin(struct hwtimer_batch __user *ubatch,
					    const struct hwtd_op *op,
					    struct hwtimer_batch *batch,
					    struct hwtd_upages *hdr, unsigned long *uent)
{
	if (copy_from_user(batch, ubatch, sizeof(*batch)))
		return -EFAULT;
	if ((batch->flags & ~HWTIMER_BATCH_FLAGS) || batch->reserved[0] ||
	    batch->reserved[1] || !batch->count)
		return -EINVAL;
	if (batch->count > HWTIMER_BATCH_MAX)
		return -E2BIG;
	*uent = (unsigned long)u64_to_user_ptr(batch->entries);
	if (!access_ok((void __user *)*uent, (size_t)batch->count * op->size))
		return -EFAULT;
	/* @done and @failed must be writable, to the end, whatever happens. */
	hwtd_pin(hdr, (unsigned long)ubatch, sizeof(*batch));
	if (!hwtd_up_writable(hdr, offsetof(struct hwtimer_batch, done),
			      sizeof(batch->done) + sizeof(batch->failed))) {
		hwtd_unpin(hdr);
		return -EFAULT;
	}
	return 0;
}

/*
 * Pin the next entries of a batch of @op, the @left ones from @uent on, at
 * most HWTD_HOLD_MAX of them, into @up.
 *
 * Context: process, no lock held.
 * Return: how many of them can be used: 0 if the first cannot be read, or
 * written back. @up is pinned either way.
 */
static __always_inline u32 hwtd_batch_pin(struct hwtd_upages *up, unsigned long uent,
					  u32 left, const struct hwtd_op *op)
{
	size_t rlen;
	u32 n, i;

	/*
	 * The entries that can be read whole and whose outputs can be
	 * written: an entry's inputs may lie on a read-only page.
	 */
	n = min_t(u32, left, HWTD_HOLD_MAX);
	rlen = hwtd_pin(up, uent, n * op->size);
	n = min_t(u32, n, rlen / op->size);
	/*
	 * Every pinned page writable (the common case): so is every
	 * output field of those entries. Else each entry is looked at.
	 */
	if (!hwtd_up_all_writable(up)) {
		for (i = 0; i < n; i++)
			if (!hwtd_out_writable(up, i * op->size, op))
				break;
		n = i;
	}
	return n;
}

/*
 * Write back the outputs of the entry of @op at @off of the pinned @up,
 * from its kernel copy @ent: one copy per range (hwtd_out_copy()).
 */
static __always_inline void hwtd_batch_out(struct hwtd_upages *up, size_t off, u8 *ent,
					   const struct hwtd_op *op)
{
	hwtd_out_copy(up, off, ent, &op->out[0]);
	if (op->out[1].end)
		hwtd_out_copy(up, off, ent, &op->out[1]);
}

/*
 * After the last entry of a batch of @op: the records left queued go to
 * the ring, and @done and @failed are written back through @hdr, which is
 * unpinned.
 *
 * Context: process, no lock held; the batch has left
 * @file->nbusy.
 */
static __always_inline void hwtd_batch_end(struct hwtd_file *file, const struct hwtd_op *op,
					   struct hwtd_upages *hdr, u32 done, u32 failed)
{
	u32 hdr_out[2];

	if (op == &hwtd_cancel)
		hwtd_trim(file);
	/*
	 * Each hold moved up to HWTD_HOLD_MAX queued records to the ring; the
	 * rest go now, as far as it has room (hwtimer(4) says a batch does).
	 * A file without a ring keeps them for read(): no lock round for it.
	 * @nqueued is a hint (hwtd_has_records() looks under the lock): the
	 * lock orders this batch's own holds before it, and a record another
	 * thread queued since found the ring full after this batch's holds,
	 * so that thread's next hold or the next call moves it.
	 */
	if (data_race(file->nqueued) && hwtd_ring_entries(file))
		hwtd_has_records(file);

	/* @done and @failed, adjacent (HWTD_ADJ), in one copy. */
	hdr_out[0] = done;
	hdr_out[1] = failed;
	hwtd_up_copy(hdr, offsetof(struct hwtimer_batch, done), hdr_out, sizeof(hdr_out),
		     true);
	hwtd_unpin(hdr);
}

/*
 * Run @op over the entries of a batch (see the top of this file). The
 * clock is read once, before the first entry: every relative time in the
 * batch counts from that moment. The batch counts in @file->nbusy while it
 * runs, which keeps the file's configuration as it was when it began.
 * Inlined for each operation, whose @op is a constant there: its function
 * is a direct call, and its entry copies are moves of a constant size.
 */
static __always_inline long hwtd_batch(struct hwtd_file *file,
				       struct hwtimer_batch __user *ubatch,
				       const struct hwtd_op *op)
{
	/* The kernel copy of an entry, read through the entry structs. */
	u8 ent[sizeof(struct hwtimer_get_entry)] __aligned(8);
	struct hwtd_upages hdr, up;
	struct hwtimer_batch batch;
	struct hwtd_call call = { };
	struct hwtd_hold hold;
	unsigned long uent;
	u32 done = 0, failed = 0, n, i;
	bool stop = false;
	int ret, r = 0;

	ret = hwtd_batch_begin(ubatch, op, &batch, &hdr, &uent);
	if (ret)
		return ret;

	spin_lock_bh(&file->lock);
	file->nbusy++;
	spin_unlock_bh(&file->lock);
	/*
	 * @boottime without the lock: hwtd_config() changes it only when it
	 * finds @nbusy 0 under the lock, so not until this batch ends.
	 */
	hwtd_call_begin(&call, hwtd_clock_now(file), hwtd_timens_offset(file->boottime));

	while (done < batch.count && !stop) {
		n = hwtd_batch_pin(&up, uent + (size_t)done * op->size, batch.count - done, op);
		if (!n) {
			/* Entry @done cannot be read, or written back. */
			hwtd_unpin(&up);
			ret = -EFAULT;
			break;
		}
		for (i = 0; i < n && !stop;) {
			memset(&hold, 0, sizeof(hold));
			spin_lock_bh(&file->lock);
			/* Room in the ring since the last call: use it. */
			hwtd_refill(file, &hold, HWTD_HOLD_MAX);
			for (; i < n; i++) {
				hwtd_up_copy(&up, i * op->size, ent, op->size, false);
				r = hwtd_run_op(op, file, &call, &hold, ent);
				if (r == HWTD_AGAIN)
					break;
				call.nomem = false;
				hwtd_batch_out(&up, i * op->size, ent, op);
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
			hwtd_hold_end(file, &hold);
			spin_unlock_bh(&file->lock);
			hwtd_hold_wake(file, &hold);
			if (r == HWTD_AGAIN) {
				call.nomem = hwtd_table_prealloc(file, call.extra) < 0;
				call.extra = false;
			}
		}
		done += i;
		hwtd_unpin(&up);
		cond_resched();
	}

	spin_lock_bh(&file->lock);
	file->nbusy--;
	spin_unlock_bh(&file->lock);
	hwtd_batch_end(file, op, &hdr, done, failed);
	return ret;
}

/*
 * HWTIMER_IOC_CONFIG: the file's clock and precision, only while it holds
 * no timeout and no batch runs on it (see struct hwtd_file).
 */
static long hwtd_config(struct hwtd_file *file, struct hwtimer_config __user *ucfg)
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

	spin_lock_bh(&file->lock);
	if (file->nlive || file->nbusy) {
		ret = -EBUSY;
	} else {
		/* The wheel is empty: its clock starts afresh. */
		hwtd_wheel_configure(file, hwtd_wheels, cfg.precision, clock);
	}
	spin_unlock_bh(&file->lock);
	return ret;
}

static long hwtd_info(struct hwtd_file *file, struct hwtimer_info __user *uinfo)
{
	struct hwtimer_info info;

	memset(&info, 0, sizeof(info));
	info.features = HWTD_FEATURES;
	info.batch_max = HWTIMER_BATCH_MAX;
	info.record_size = sizeof(struct hwtimer_expiry);
	info.file_cap = hwtd_file_cap();
	info.global_cap = hwtd_global_cap();
	info.global_count = hwtd_global_count();
	info.user_cap = hwtd_user_cap();
	/* The counts are snapshots: atomic, no order with anything. */
	info.user_count = atomic_long_read(&file->user->count);
	spin_lock_bh(&file->lock);
	info.pending = file->nlive - file->nqueued;
	info.queued = file->nqueued;
	info.tick_ns = file->time.tick_ns;
	info.slots = hwtimer_wheel_slots(file->pcpu_wheel);
	info.clockid = file->boottime ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
	info.precision = file->precision;
	spin_unlock_bh(&file->lock);

	return copy_to_user(uinfo, &info, sizeof(info)) ? -EFAULT : 0;
}

static long hwtd_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct hwtd_file *file = filp->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HWTIMER_IOC_INFO:
		return hwtd_info(file, argp);
	case HWTIMER_IOC_ARM:
		return hwtd_batch(file, argp, &hwtd_arm);
	case HWTIMER_IOC_CANCEL:
		return hwtd_batch(file, argp, &hwtd_cancel);
	case HWTIMER_IOC_MODIFY:
		return hwtd_batch(file, argp, &hwtd_modify);
	case HWTIMER_IOC_GET:
		return hwtd_batch(file, argp, &hwtd_get);
	case HWTIMER_IOC_CONFIG:
		return hwtd_config(file, argp);
	case HWTIMER_IOC_RING:
		return hwtd_ring_setup(file, argp);
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
static unsigned int hwtd_read_some(struct hwtd_file *file, struct hwtimer_expiry *recs,
				   unsigned int max)
{
	struct hwtd_hold hold = { };
	unsigned int n;

	spin_lock_bh(&file->lock);
	n = hwtd_dequeue(file, &hold, recs, max, hwtd_timens_offset(file->boottime));
	hwtd_hold_end(file, &hold);
	spin_unlock_bh(&file->lock);
	return n;
}

/*
 * read(): whole records from the kernel queue, oldest first. The file
 * lock is held for at most HWTD_READ_CHUNK records at a time, never across
 * a copy to user space; between chunks the reader may be rescheduled, and
 * a fatal signal ends the read with the records copied so far.
 */
static ssize_t hwtd_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct hwtimer_expiry stack_recs[HWTD_READ_STACK], *recs = stack_recs;
	struct hwtd_file *file = filp->private_data;
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
		n = hwtd_read_some(file, recs, min_t(size_t, max - done, chunk));
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
		if (filp->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		/*
		 * Pairs with hwtd_hold_wake(): the hold that raised @nqueued
		 * from 0 (WRITE_ONCE(), under the lock) then looks for sleepers
		 * after wq_has_sleeper()'s smp_mb(); this wait queues itself
		 * and sets its state (a full barrier) before it loads
		 * @nqueued, so it is woken or sees the count
		 * (memory-barriers.txt, SLEEP AND WAKE-UP FUNCTIONS).
		 */
		ret = wait_event_interruptible(file->rwq, READ_ONCE(file->nqueued));
		if (ret)
			break;
	}
	if (recs != stack_recs)
		kfree(recs);
	if (done)
		hwtd_trim(file);
	return done ? done * sizeof(*recs) : ret;
}

static __poll_t hwtd_poll(struct file *filp, poll_table *wait)
{
	struct hwtd_file *file = filp->private_data;

	poll_wait(filp, &file->wq, wait);
	return hwtd_has_records(file) ? EPOLLIN | EPOLLRDNORM : 0;
}

static struct hwtd_file *hwtd_file_alloc(void)
{
	struct hwtd_file *file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);

	if (!file)
		return NULL;
	spin_lock_init(&file->lock);
	hwtd_lists_init(file);
	init_waitqueue_head(&file->wq);
	init_waitqueue_head(&file->rwq);
	file->armed = U64_MAX;
	file->next_event = U64_MAX;
	file->low = HWTD_NIL;
	atomic_long_inc(&hwtd_files);
	return file;
}

static void hwtd_file_free(struct hwtd_file *file)
{
	hwtd_expiry_stop(file);
	/*
	 * Nothing runs on the file any more: no lock needed. The last holds
	 * of passes are ordered before this by hwtimer_shutdown_sync()'s base
	 * lock round and cancel_work_sync(), those of calls by the last
	 * fput().
	 */
	hwtd_uncharge(file, file->nlive);
	hwtd_table_destroy(file);
	hwtd_ring_free(file);
	kfree(file);
	atomic_long_dec(&hwtd_files);
}

static int hwtd_open(struct inode *inode, struct file *filp)
{
	struct hwtd_file *file = hwtd_file_alloc();

	if (!file)
		return -ENOMEM;
	file->user = hwtd_user_get(filp->f_cred->uid);
	if (!file->user) {
		kfree(file);
		atomic_long_dec(&hwtd_files);
		return -ENOMEM;
	}
	hwtd_expiry_init(file, hwtd_wheels);
	hwtd_wheel_configure(file, hwtd_wheels, HWTIMER_PRECISION_DEFAULT, 0);
	filp->private_data = file;
	return stream_open(inode, filp);
}

static int hwtd_release(struct inode *inode, struct file *filp)
{
	struct hwtd_file *file = filp->private_data;
	struct hwtd_user *u = file->user;

	hwtd_file_free(file);
	hwtd_user_put(u);
	return 0;
}

static void hwtd_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct hwtd_file *file = filp->private_data;
	unsigned long pending, queued;
	unsigned int precision, chunks;
	u64 expiry_ns;
	bool boottime;

	spin_lock_bh(&file->lock);
	pending = file->nlive - file->nqueued;
	queued = file->nqueued;
	precision = file->precision;
	boottime = file->boottime;
	chunks = file->nchunks;
	expiry_ns = file->expiry_ns;
	spin_unlock_bh(&file->lock);

	seq_printf(m, "pending:\t%lu\nqueued:\t%lu\ncap:\t%u\n",
		   pending, queued, hwtd_file_cap());
	seq_printf(m, "clockid:\t%d\nprecision:\t%u\n",
		   boottime ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, precision);
	seq_printf(m, "user_count:\t%ld\nuser_cap:\t%u\n",
		   atomic_long_read(&file->user->count), hwtd_user_cap());
	seq_printf(m, "chunks:\t%u\nring:\t%u\n", chunks, hwtd_ring_entries(file));
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
	seq_printf(m, "files:\t%ld\n", atomic_long_read(&hwtd_files));
	seq_printf(m, "timeouts:\t%ld\n", hwtd_global_count());
	seq_printf(m, "chunks:\t%ld\n", atomic_long_read(&hwtd_table_stats.chunks));
	seq_printf(m, "extras:\t%ld\n", atomic_long_read(&hwtd_table_stats.extras));
	seq_printf(m, "leaves:\t%ld\n", atomic_long_read(&hwtd_table_stats.leaves));
	seq_printf(m, "rings:\t%ld\n", atomic_long_read(&hwtd_ring_stats.rings));
	seq_printf(m, "ring_pages:\t%ld\n", atomic_long_read(&hwtd_ring_stats.ring_pages));
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
	ret = hwtd_expiry_wq_init();
	if (ret)
		goto out_wheels;
	ret = misc_register(&hwtd_misc);
	if (ret)
		goto out_wq;
	dir = debugfs_lookup("hwtimer", NULL);
	hwtd_debugfs = debugfs_create_file("device", 0444, dir, NULL, &hwtd_stats_fops);
	dput(dir);
	return 0;

out_wq:
	hwtd_expiry_wq_exit();
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
	hwtd_account_exit();
	hwtd_expiry_wq_exit();
	hwtd_wheels_destroy();
}

#if IS_ENABLED(CONFIG_KUNIT)
DEFINE_STATIC_KEY_FALSE(hwtd_manual_key);
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
	struct hwtd_file *file = hwtd_file_alloc();

	if (!file)
		return NULL;
	file->user = hwtd_user_get(GLOBAL_ROOT_UID);
	if (!file->user) {
		kfree(file);
		atomic_long_dec(&hwtd_files);
		return NULL;
	}
	file->manual = true;
	hwt_time_init(&file->time, epoch, tick_ns);
	static_branch_inc(&hwtd_manual_key);
	return file;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_file_create_manual);

/**
 * hwtd_kunit_op() - run one batch entry through its operation
 * @file: a manual file
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
int hwtd_kunit_op(struct hwtd_file *file, unsigned int cmd, void *ent, u64 now)
{
	const struct hwtd_op *op = cmd == HWTIMER_IOC_ARM ? &hwtd_arm :
				   cmd == HWTIMER_IOC_CANCEL ? &hwtd_cancel :
				   cmd == HWTIMER_IOC_MODIFY ? &hwtd_modify : &hwtd_get;
	struct hwtd_call call = { };
	struct hwtd_hold hold;
	int r;

	hwtd_call_begin(&call, now, 0);

	for (;;) {
		memset(&hold, 0, sizeof(hold));
		spin_lock_bh(&file->lock);
		r = hwtd_run_op(op, file, &call, &hold, ent);
		hwtd_hold_end(file, &hold);
		spin_unlock_bh(&file->lock);
		hwtd_hold_wake(file, &hold);
		if (r != HWTD_AGAIN)
			return r;
		call.nomem = hwtd_table_prealloc(file, call.extra) < 0;
		call.extra = false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_op);

/**
 * hwtd_file_destroy_manual() - free a file of hwtd_file_create_manual()
 * @file: the file
 *
 * Context: process.
 */
void hwtd_file_destroy_manual(struct hwtd_file *file)
{
	struct hwtd_user *u = file->user;

	hwtd_file_free(file);
	hwtd_user_put(u);
	static_branch_dec(&hwtd_manual_key);
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_file_destroy_manual);
#endif
