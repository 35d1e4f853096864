/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/hwtimer - many timeouts behind one file descriptor.
 *
 * Arm, cancel, modify and query timeouts in batches with ioctl(); take
 * their expirations as fixed-size records from a completion ring mapped
 * with mmap(), or with read(); wait for them with poll(), select() or
 * epoll (EPOLLIN | EPOLLRDNORM while a record is there to take; the file
 * is woken when it goes from having none to having some, so edge-triggered
 * epoll users take records until there are none: read() until EAGAIN, or
 * the ring as %HWTIMER_IOC_RING says). All times are nanoseconds of the
 * file's clock, CLOCK_MONOTONIC unless %HWTIMER_IOC_CONFIG chose
 * CLOCK_BOOTTIME, as clock_gettime() reports it to the caller: in a time
 * namespace, the namespace's clock, converted at each call with the
 * namespace of the task that makes it.
 *
 * Every structure has the same layout for 32-bit and 64-bit callers: only
 * fixed-width fields, 64-bit fields naturally aligned, no implicit padding.
 *
 * Extensions: a field or flag bit marked "must be zero" is checked, and a
 * non-zero value fails with EINVAL; an unknown ioctl fails with ENOTTY;
 * an output field marked "zero" is written as zero. A later version gives
 * such a field, bit or ioctl a meaning only together with a capability
 * bit in @features of &struct hwtimer_info, which says that the behaviour
 * is there: a program tests the bit before it relies on the behaviour.
 * Nothing described here changes meaning.
 *
 * The manual page hwtimer(4) documents the semantics in full, and the
 * module parameters behind the limits.
 */
#ifndef _UAPI_LINUX_HWTIMER_H
#define _UAPI_LINUX_HWTIMER_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * Capabilities, in @features of struct hwtimer_info: each bit says that a
 * behaviour is there. The four below name what hwtimer 1.0 has, and 1.0
 * sets them all: a program needs no test of them against this module;
 * they are defined so that a program can say what it relies on, and bits
 * from (1U << 4) up will mark what later versions add, as io_uring's
 * IORING_FEAT_* bits mark what came after its first release. A bit once
 * set stays set in every later version.
 *
 * HWTIMER_FEAT_RING: completion rings, %HWTIMER_IOC_RING and mmap().
 * HWTIMER_FEAT_GET: %HWTIMER_IOC_GET.
 * HWTIMER_FEAT_CONFIG: %HWTIMER_IOC_CONFIG, with the clocks CLOCK_MONOTONIC
 * and CLOCK_BOOTTIME and the three HWTIMER_PRECISION_* values.
 * HWTIMER_FEAT_SLACK: @slack_ns of struct hwtimer_arm_entry.
 */
#define HWTIMER_FEAT_RING	(1U << 0)
#define HWTIMER_FEAT_GET	(1U << 1)
#define HWTIMER_FEAT_CONFIG	(1U << 2)
#define HWTIMER_FEAT_SLACK	(1U << 3)

/* The most entries one ARM, CANCEL, MODIFY or GET call takes (else E2BIG). */
#define HWTIMER_BATCH_MAX	4096

/**
 * struct hwtimer_info - what %HWTIMER_IOC_INFO reports
 * @features: the HWTIMER_FEAT_* bits of the running module
 * @batch_max: the most entries one batch ioctl takes, %HWTIMER_BATCH_MAX
 * @tick_ns: tick of the file's timer wheel in ns, which the file's
 *           precision chooses: timeouts expire on tick boundaries, never
 *           before their deadline and normally within one tick after it
 *           (plus their slack); also the shortest period accepted
 * @slots: level-0 slots of the module's per-CPU wheel of the file's
 *         precision, which drives the file's own wheel
 * @record_size: size of one expiration record, sizeof(struct hwtimer_expiry)
 * @file_cap: the most timeouts this file may hold; arming beyond it fails
 *            with ENOSPC
 * @global_cap: the most timeouts all open files together may hold; arming
 *              beyond it fails with EDQUOT
 * @global_count: timeouts held by all open files now
 * @pending: timeouts of this file that wait for their deadline
 * @queued: timeouts of this file that expired and whose record waits in
 *          the kernel (to be read, or to move to the ring); records in the
 *          ring are not counted
 * @user_cap: the most timeouts the open files of one user may hold
 *            together; arming beyond it fails with EDQUOT. A file belongs
 *            to the real user ID of the process that opened it, as the
 *            initial user namespace sees it.
 * @user_count: timeouts held now by all open files of the user this file
 *              belongs to, this one included
 * @clockid: the file's clock, CLOCK_MONOTONIC (that of a new file) or
 *           CLOCK_BOOTTIME
 * @precision: the file's precision, a HWTIMER_PRECISION_* value
 *             (%HWTIMER_PRECISION_DEFAULT for a new file)
 * @reserved: zero
 *
 * A timeout counts against the caps from the moment it is armed until it is
 * cancelled or its last record leaves the kernel (is read, or is written
 * to the ring): @pending + @queued of every file.
 */
struct hwtimer_info {
	__u32 features;
	__u32 batch_max;
	__aligned_u64 tick_ns;
	__u32 slots;
	__u32 record_size;
	__aligned_u64 file_cap;
	__aligned_u64 global_cap;
	__aligned_u64 global_count;
	__aligned_u64 pending;
	__aligned_u64 queued;
	__aligned_u64 user_cap;
	__aligned_u64 user_count;
	__s32 clockid;
	__u32 precision;
	__aligned_u64 reserved;
};

/*
 * Precisions, for struct hwtimer_config and struct hwtimer_info: which of
 * the module's timer wheels a file's timeouts run on. The default wheel
 * has a 1 ms tick, the fine one 100 us, the coarse one 10 ms, unless the
 * module was loaded with other ticks (hwtimer(4)). A finer tick gives
 * timeouts less lateness and wakes the CPU more often.
 */
#define HWTIMER_PRECISION_DEFAULT	0
#define HWTIMER_PRECISION_FINE		1
#define HWTIMER_PRECISION_COARSE	2

/**
 * struct hwtimer_config - argument of %HWTIMER_IOC_CONFIG
 * @clockid: in: the file's clock: CLOCK_MONOTONIC (that of a new file) or
 *           CLOCK_BOOTTIME, which also counts the time the system spends
 *           suspended, as timerfd's CLOCK_BOOTTIME timers do; any other
 *           value gives EINVAL
 * @precision: in: %HWTIMER_PRECISION_DEFAULT, %HWTIMER_PRECISION_FINE or
 *             %HWTIMER_PRECISION_COARSE; any other value gives EINVAL
 * @reserved: in: must be zero
 */
struct hwtimer_config {
	__s32 clockid;
	__u32 precision;
	__aligned_u64 reserved[3];
};

/*
 * Flags of struct hwtimer_arm_entry and struct hwtimer_modify_entry.
 *
 * HWTIMER_TIMEOUT_ABS: @expires_ns is an absolute deadline on the file's
 * clock; without it, @expires_ns is a delay from the time of the call.
 */
#define HWTIMER_TIMEOUT_ABS	(1U << 0)
#define HWTIMER_TIMEOUT_FLAGS	HWTIMER_TIMEOUT_ABS

/**
 * struct hwtimer_arm_entry - one entry of %HWTIMER_IOC_ARM
 * @cookie: in: any value; returned in every record of this timeout
 * @expires_ns: in: delay in ns, or with %HWTIMER_TIMEOUT_ABS the absolute
 *              deadline on the file's clock; the deadline must not exceed
 *              INT64_MAX. A deadline that is not in the future (a delay of
 *              0, an absolute time already past) expires at once: its record
 *              is in the ring or the kernel queue before the ioctl
 *              returns.
 * @period_ns: in: 0 for a one-shot timeout; otherwise the timeout is
 *             periodic with this period, at least @tick_ns of
 *             &struct hwtimer_info and at most INT64_MAX (else EINVAL)
 * @flags: in: %HWTIMER_TIMEOUT_ABS or 0; other bits give EINVAL
 * @result: out: 0 if the timeout was armed, else a negative errno value
 * @id: out: the identifier the kernel assigned, for %HWTIMER_IOC_CANCEL,
 *      %HWTIMER_IOC_MODIFY and %HWTIMER_IOC_GET; never 0, and never reused
 *      by the same open file, so a stale identifier can never reach a
 *      newer timeout; otherwise opaque
 * @deadline_ns: out: the absolute deadline
 * @slack_ns: in: how late the timeout may expire: never before its
 *            deadline, and at most @slack_ns (plus one tick) after it,
 *            which lets the wheel expire timeouts with nearby deadlines
 *            together and wake the CPU less often; 0 for none. At most
 *            INT64_MAX (else EINVAL); a deadline plus slack beyond
 *            INT64_MAX counts as INT64_MAX. It applies to every period of
 *            a periodic timeout and %HWTIMER_IOC_MODIFY keeps it.
 * @reserved: in: must be zero
 *
 * @result, @id and @deadline_ns are ignored on input.
 */
struct hwtimer_arm_entry {
	__aligned_u64 cookie;
	__aligned_u64 expires_ns;
	__aligned_u64 period_ns;
	__u32 flags;
	__s32 result;
	__aligned_u64 id;
	__aligned_u64 deadline_ns;
	__aligned_u64 slack_ns;
	__aligned_u64 reserved;
};

/*
 * The state a timeout was in when a cancel, modify or query reached it, in
 * the status field of struct hwtimer_cancel_entry, struct
 * hwtimer_modify_entry and struct hwtimer_get_entry.
 *
 * HWTIMER_STATUS_PENDING: it was waiting for its deadline.
 * HWTIMER_STATUS_EXPIRED: it had expired and its record waited in the
 * kernel, not read (a record in the ring has left the kernel: its timeout
 * is consumed).
 */
#define HWTIMER_STATUS_PENDING	1
#define HWTIMER_STATUS_EXPIRED	2

/**
 * struct hwtimer_cancel_entry - one entry of %HWTIMER_IOC_CANCEL
 * @id: in: the identifier %HWTIMER_IOC_ARM returned
 * @flags: in: must be zero
 * @result: out: 0 if the timeout was cancelled, else a negative errno value:
 *          -ENOENT when this file has no such timeout (never armed, already
 *          cancelled, or a one-shot timeout whose record was already read
 *          or written to the ring)
 * @status: out: on success, %HWTIMER_STATUS_PENDING or
 *          %HWTIMER_STATUS_EXPIRED (its unread record was discarded); 0 on
 *          failure
 * @reserved: in: must be zero
 *
 * After a successful cancel no record of the timeout is ever read again and
 * its identifier is dead. @result and @status are ignored on input.
 */
struct hwtimer_cancel_entry {
	__aligned_u64 id;
	__u32 flags;
	__s32 result;
	__u32 status;
	__u32 reserved;
};

/**
 * struct hwtimer_modify_entry - one entry of %HWTIMER_IOC_MODIFY
 * @id: in: the identifier %HWTIMER_IOC_ARM returned
 * @expires_ns: in: the new delay or absolute deadline, as in
 *              &struct hwtimer_arm_entry
 * @period_ns: in: the new period, as in &struct hwtimer_arm_entry (0 makes
 *             the timeout one-shot)
 * @flags: in: %HWTIMER_TIMEOUT_ABS or 0; other bits give EINVAL
 * @result: out: 0 if the timeout was re-armed, else a negative errno value
 *          (-ENOENT in the cases &struct hwtimer_cancel_entry lists)
 * @deadline_ns: out: the new absolute deadline
 * @status: out: on success, the state the timeout was in before,
 *          %HWTIMER_STATUS_PENDING or %HWTIMER_STATUS_EXPIRED (its unread
 *          record was discarded); 0 on failure
 * @reserved: in: must be zero
 *
 * A modify re-arms the timeout in place, as a cancel and an arm would, but
 * keeps its identifier, cookie and slack. @result, @deadline_ns and
 * @status are ignored on input.
 */
struct hwtimer_modify_entry {
	__aligned_u64 id;
	__aligned_u64 expires_ns;
	__aligned_u64 period_ns;
	__u32 flags;
	__s32 result;
	__aligned_u64 deadline_ns;
	__u32 status;
	__u32 reserved;
};

/**
 * struct hwtimer_get_entry - one entry of %HWTIMER_IOC_GET
 * @id: in: the identifier %HWTIMER_IOC_ARM returned
 * @flags: in: must be zero
 * @result: out: 0, or a negative errno value: -ENOENT in the cases
 *          &struct hwtimer_cancel_entry lists, -EINVAL for a @flags,
 *          @reserved or @reserved2 that is not zero
 * @status: out: %HWTIMER_STATUS_PENDING (waiting for its deadline) or
 *          %HWTIMER_STATUS_EXPIRED (expired, its record waiting in the
 *          kernel); 0 on failure
 * @reserved: in: must be zero
 * @cookie: out: the cookie it was armed with
 * @deadline_ns: out: its deadline, absolute, on the file's clock: the next
 *               one when pending, the one that expired when expired
 * @period_ns: out: its period, 0 for a one-shot timeout
 * @remaining_ns: out: when pending, the time left until its deadline
 *                (deadline minus the time the entry is processed, 0 if
 *                that is already past); 0 when expired
 * @overrun: out: when expired and periodic, the overrun its record would
 *           report if read now (further periods that have elapsed since
 *           @deadline_ns); otherwise 0
 * @slack_ns: out: its slack, as armed
 * @reserved2: in: must be zero
 *
 * A query changes no timeout. Like every batch, it first moves records
 * waiting in the kernel to the ring if it has room (HWTIMER_RING_OVERFLOW):
 * the timeout of a record moved so has left the kernel, and is ENOENT. On
 * failure every output field but @result is written as zero.
 */
struct hwtimer_get_entry {
	__aligned_u64 id;
	__u32 flags;
	__s32 result;
	__u32 status;
	__u32 reserved;
	__aligned_u64 cookie;
	__aligned_u64 deadline_ns;
	__aligned_u64 period_ns;
	__aligned_u64 remaining_ns;
	__aligned_u64 overrun;
	__aligned_u64 slack_ns;
	__aligned_u64 reserved2;
};

/*
 * Flags of struct hwtimer_batch.
 *
 * HWTIMER_BATCH_CONTINUE: do not stop at an entry that fails; process every
 * entry and count the failures in @failed.
 */
#define HWTIMER_BATCH_CONTINUE	(1U << 0)
#define HWTIMER_BATCH_FLAGS	HWTIMER_BATCH_CONTINUE

/**
 * struct hwtimer_batch - argument of %HWTIMER_IOC_ARM, %HWTIMER_IOC_CANCEL,
 *                        %HWTIMER_IOC_MODIFY and %HWTIMER_IOC_GET
 * @entries: in: user address of an array of @count entries (struct
 *           hwtimer_arm_entry, hwtimer_cancel_entry, hwtimer_modify_entry
 *           or hwtimer_get_entry, by ioctl), cast with (__u64)(uintptr_t)
 * @count: in: entries in the array, 1 to %HWTIMER_BATCH_MAX (0 gives
 *         EINVAL, more gives E2BIG)
 * @flags: in: %HWTIMER_BATCH_CONTINUE or 0; other bits give EINVAL
 * @done: out: entries processed; each of them has its result written, the
 *        others were not looked at (an entry that cannot be read whole, or
 *        whose output fields cannot be written, stops the batch with
 *        EFAULT before its timeout is touched; an entry acted on always
 *        has its outputs written, whatever another thread does to the
 *        array meanwhile)
 * @failed: out: entries processed whose result is not 0
 * @reserved: in: must be zero
 *
 * Entries are processed in array order, each on its own: an entry that
 * fails changes nothing, an entry that succeeds stays done whatever happens
 * to later ones. The ioctl returns 0 when @done equals @count and, without
 * %HWTIMER_BATCH_CONTINUE, no entry failed. Otherwise it fails: with the
 * error of the entry at @done - 1 when that entry failed and processing
 * stopped there, with EFAULT when entry @done could not be read or written
 * back. A caller resumes at entry @done. If the header is invalid
 * (EINVAL, E2BIG), cannot be read or its @done and @failed written, or
 * @entries is not a range of user-space addresses (EFAULT), nothing is
 * processed and @done is not written. Entries in user space that cannot be
 * read (unmapped memory) are the EFAULT above: @done is written, 0 if the
 * first one cannot.
 */
struct hwtimer_batch {
	__aligned_u64 entries;
	__u32 count;
	__u32 flags;
	__u32 done;
	__u32 failed;
	__aligned_u64 reserved[2];
};

/*
 * Flags of struct hwtimer_expiry.
 *
 * HWTIMER_EXPIRY_REARMED: the timeout is periodic and was armed again for
 * its next period when this record left the kernel (was read, or written
 * to the ring); its identifier stays valid.
 */
#define HWTIMER_EXPIRY_REARMED	(1U << 0)

/**
 * struct hwtimer_expiry - one expiration record, as read() returns it and
 *                         the ring holds it
 * @id: the identifier of the timeout
 * @cookie: the cookie it was armed with
 * @deadline_ns: the deadline that expired
 * @expired_ns: when the expiry was handled, on the file's clock; never less
 *              than @deadline_ns
 * @overrun: further periods of a periodic timeout that elapsed before the
 *           record left the kernel, as with timer_getoverrun(); 0 for a
 *           one-shot
 * @flags: %HWTIMER_EXPIRY_REARMED or 0
 * @reserved: zero
 *
 * A one-shot timeout produces one record, after which its identifier is
 * dead. A periodic timeout has at most one record in the kernel; it is
 * armed for the first period that ends after that record leaves the
 * kernel, so a period that is never taken costs no work.
 *
 * Records of a file come in the order their timeouts expired: @expired_ns
 * never decreases from one record to the next, and timeouts that expire
 * at different ticks of the file's wheel come in the order of those ticks
 * (so, without slack, a record never follows one whose deadline is a tick
 * or more later). Within one tick, and across slack windows, the order is
 * not that of the deadlines. The ring's records come before those that
 * wait in the kernel.
 */
struct hwtimer_expiry {
	__aligned_u64 id;
	__aligned_u64 cookie;
	__aligned_u64 deadline_ns;
	__aligned_u64 expired_ns;
	__aligned_u64 overrun;
	__u32 flags;
	__u32 reserved;
};

/* The most records a completion ring holds (%HWTIMER_IOC_RING). */
#define HWTIMER_RING_MAX	65536

/* The offset to pass to mmap() for the ring of %HWTIMER_IOC_RING. */
#define HWTIMER_RING_OFF	0ULL

/*
 * Flags the kernel sets in the ring's flags word (@flags_off of
 * &struct hwtimer_ring_params).
 *
 * HWTIMER_RING_OVERFLOW: records that did not fit in the ring wait in the
 * kernel's queue; read() returns them (they are newer than every record in
 * the ring), or any poll() or batch ioctl with a valid header on the file
 * moves them to the ring as far as it has room. Cleared when that queue is
 * empty. The kernel writes the flags word when its value changes.
 */
#define HWTIMER_RING_OVERFLOW	(1U << 0)

/**
 * struct hwtimer_ring_params - argument of %HWTIMER_IOC_RING
 * @entries: in: how many records the ring should hold, 1 to
 *           %HWTIMER_RING_MAX, rounded up to a power of two (else EINVAL);
 *           out: how many it holds
 * @flags: in: must be zero
 * @head_off: out: offset in the mapping of the ring's head, a __u32 that
 *            user space writes: the index of the next record it will
 *            consume
 * @tail_off: out: offset of the ring's tail, a __u32 that the kernel
 *            writes: one past the index of the last record it wrote
 * @flags_off: out: offset of a __u32 of HWTIMER_RING_* flags that the
 *             kernel writes
 * @records_off: out: offset of the first of @entries records, each a
 *               &struct hwtimer_expiry; record i is at index i & (@entries - 1)
 * @mmap_size: out: the length to map with mmap(), at offset
 *             %HWTIMER_RING_OFF, shared, readable and writable
 * @reserved: in: must be zero
 *
 * The ring is io_uring's completion queue for expiration records: the
 * kernel writes records at the tail and advances the tail (with release
 * semantics: load it with acquire semantics before reading the records
 * below it); user space consumes records at the head and advances the
 * head (with release semantics, once it has read them). Indexes are free
 * running __u32 counters: the ring holds tail - head records. A head that
 * claims more than @entries records (tail - head > @entries) makes the
 * ring count as full until a sane head is written; the kernel reads
 * nothing else from the mapping, and always writes its own tail.
 *
 * A record written to the ring has left the kernel: its timeout is
 * consumed as by read(). Its times are those of the time namespace of the
 * task that made the ring. To wait with edge-triggered epoll, take records
 * until the ring is empty and %HWTIMER_RING_OVERFLOW is clear (read()
 * until EAGAIN while it is set), then store the head, issue a full memory
 * barrier, and load the flags and then the tail again (acquire): wait only
 * if the ring is still empty and the flag clear; the file is woken
 * whenever records arrive after the head had consumed every earlier one.
 * The kernel stores a flag it sets before the tail of the records that
 * came with it, and a flag it clears after the tail (release), so flags
 * loaded before the tail never hide records.
 */
struct hwtimer_ring_params {
	__u32 entries;
	__u32 flags;
	__u32 head_off;
	__u32 tail_off;
	__u32 flags_off;
	__u32 records_off;
	__aligned_u64 mmap_size;
	__aligned_u64 reserved[4];
};

/*
 * The ioctl magic 'J' is unused in
 * Documentation/userspace-api/ioctl/ioctl-number.rst; hwtimer uses
 * 'J' 0x00-0x0F.
 */
#define HWTIMER_IOC_MAGIC	'J'

/**
 * define HWTIMER_IOC_INFO - report the capabilities, limits, counters and
 * the file's configuration
 *
 * Fills &struct hwtimer_info. Errors: EFAULT.
 */
#define HWTIMER_IOC_INFO	_IOR(HWTIMER_IOC_MAGIC, 0x00, struct hwtimer_info)

/**
 * define HWTIMER_IOC_ARM - arm a batch of timeouts
 *
 * Takes &struct hwtimer_batch with an array of &struct hwtimer_arm_entry.
 * Entry errors: EINVAL (unknown flag, reserved field not zero, period
 * shorter than a tick or longer than INT64_MAX, deadline beyond INT64_MAX
 * on the caller's clock, slack beyond INT64_MAX), ENOSPC (the file holds
 * @file_cap timeouts), EDQUOT (all files hold @global_cap timeouts, or
 * the files of the user this one belongs to hold @user_cap timeouts),
 * ENOMEM.
 */
#define HWTIMER_IOC_ARM		_IOWR(HWTIMER_IOC_MAGIC, 0x01, struct hwtimer_batch)

/**
 * define HWTIMER_IOC_CANCEL - cancel a batch of timeouts
 *
 * Takes &struct hwtimer_batch with an array of &struct hwtimer_cancel_entry.
 * Entry errors: EINVAL (flags or reserved field not zero), ENOENT.
 */
#define HWTIMER_IOC_CANCEL	_IOWR(HWTIMER_IOC_MAGIC, 0x02, struct hwtimer_batch)

/**
 * define HWTIMER_IOC_MODIFY - move a batch of timeouts to new deadlines
 *
 * Takes &struct hwtimer_batch with an array of &struct hwtimer_modify_entry.
 * Entry errors: EINVAL (as for %HWTIMER_IOC_ARM), ENOENT, ENOMEM (making a
 * one-shot timeout periodic).
 */
#define HWTIMER_IOC_MODIFY	_IOWR(HWTIMER_IOC_MAGIC, 0x03, struct hwtimer_batch)

/**
 * define HWTIMER_IOC_GET - report the state of a batch of timeouts
 *
 * Takes &struct hwtimer_batch with an array of &struct hwtimer_get_entry.
 * Entry errors: EINVAL (flags or reserved field not zero), ENOENT.
 */
#define HWTIMER_IOC_GET		_IOWR(HWTIMER_IOC_MAGIC, 0x04, struct hwtimer_batch)

/**
 * define HWTIMER_IOC_CONFIG - choose the file's clock and precision
 *
 * Takes &struct hwtimer_config. Only while the file holds no timeouts
 * (none pending, no record in the kernel) and no other call of ARM,
 * CANCEL, MODIFY or GET on the file is in progress; the new configuration
 * applies to every later call. %HWTIMER_IOC_INFO reports it. It allocates
 * nothing: every wheel exists from the module's load. Errors: EINVAL
 * (unknown clock or precision, reserved field not zero), EBUSY (the file
 * holds timeouts, or such a call is in progress), EFAULT.
 */
#define HWTIMER_IOC_CONFIG	_IOW(HWTIMER_IOC_MAGIC, 0x05, struct hwtimer_config)

/**
 * define HWTIMER_IOC_RING - give the file a completion ring
 *
 * Takes &struct hwtimer_ring_params. From then on, expiration records go
 * to the ring, which user space maps with mmap(); records that find it
 * full wait in the kernel's queue, where read() takes them, and go to the
 * ring as it frees up (read() then returns only those). poll() and epoll
 * report the file readable while the ring or the queue holds a record. A
 * record written to the ring is consumed, as a record returned by read()
 * is. At most one ring per file, for the file's life. mmap() the ring at
 * %HWTIMER_RING_OFF, @mmap_size long, MAP_SHARED, without PROT_EXEC (else
 * ENODEV: no ring; EINVAL: offset, length, not shared; EPERM:
 * executable). Errors: EINVAL (@entries 0 or above %HWTIMER_RING_MAX, a
 * flag or reserved field not zero), EBUSY (the file has a ring), ENOMEM,
 * EFAULT.
 */
#define HWTIMER_IOC_RING	_IOWR(HWTIMER_IOC_MAGIC, 0x06, struct hwtimer_ring_params)

#endif /* _UAPI_LINUX_HWTIMER_H */
