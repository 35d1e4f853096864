// SPDX-License-Identifier: GPL-2.0
/*
 * ABI version 1 compatibility: a program built against the version 1
 * header (the frozen copy userspace-test/abi-v1/linux/hwtimer.h, which the
 * Makefile puts ahead of include/uapi for this program alone) must work
 * unchanged with the current module: INFO, ARM, CANCEL, MODIFY, read() and
 * poll() with the version 1 structures and ioctl numbers, 64-bit and -m32.
 *
 * It shares the other tests' helpers (hwtimer_test.h and
 * tools/include/hwtimer_user.h), which compile against the frozen header
 * as they are, without their version 2 calls (GET, CONFIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#if HWTIMER_ABI_VERSION != 1
#error "abi_v1_test must be built against userspace-test/abi-v1/linux/hwtimer.h"
#endif

/* Wait for one record (poll), then read it. */
static int v1_read_one(int fd, struct hwtimer_expiry *r)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDNORM };
	ssize_t n;

	if (poll(&p, 1, HWT_WAIT_MS) != 1)
		return -ETIMEDOUT;
	if (p.revents != (POLLIN | POLLRDNORM))
		return -EPROTO;
	n = read(fd, r, sizeof(*r));
	if (n < 0)
		return -errno;
	return n == sizeof(*r) ? 0 : -EPROTO;
}

/* The version 1 layout and ioctl numbers, pinned. */
TEST(layout)
{
	ASSERT_EQ(96, sizeof(struct hwtimer_info));
	ASSERT_EQ(64, sizeof(struct hwtimer_arm_entry));
	ASSERT_EQ(24, sizeof(struct hwtimer_cancel_entry));
	ASSERT_EQ(48, sizeof(struct hwtimer_modify_entry));
	ASSERT_EQ(40, sizeof(struct hwtimer_batch));
	ASSERT_EQ(48, sizeof(struct hwtimer_expiry));
	ASSERT_EQ(0x80604a00UL, (unsigned long)HWTIMER_IOC_INFO);
	ASSERT_EQ(0xc0284a01UL, (unsigned long)HWTIMER_IOC_ARM);
	ASSERT_EQ(0xc0284a02UL, (unsigned long)HWTIMER_IOC_CANCEL);
	ASSERT_EQ(0xc0284a03UL, (unsigned long)HWTIMER_IOC_MODIFY);
}

/*
 * INFO: every version 1 field as version 1 defined it. A newer module
 * reports a newer abi_version; the reserved fields are written as zero for
 * a file that uses none of the later features (and this program cannot).
 */
TEST_F(hwt, info)
{
	struct hwtimer_info *i = &self->info;

	HWT_NEED_DEV();
	ASSERT_LE(1, i->abi_version);
	ASSERT_EQ(HWTIMER_BATCH_MAX, i->batch_max);
	ASSERT_EQ(sizeof(struct hwtimer_expiry), i->record_size);
	ASSERT_LT(0, i->tick_ns);
	ASSERT_LT(0, i->slots);
	ASSERT_EQ(0, i->slots & (i->slots - 1));
	ASSERT_LT(0, i->file_cap);
	ASSERT_LE(i->file_cap, i->global_cap);
	ASSERT_LT(0, i->user_cap);
	ASSERT_EQ(0, i->pending);
	ASSERT_EQ(0, i->queued);
	ASSERT_EQ(0, i->reserved[0]);
	ASSERT_EQ(0, i->reserved[1]);
	TH_LOG("module ABI version %u, tick %llu ns", i->abi_version,
	       (unsigned long long)i->tick_ns);
}

/* ARM one relative timeout, wait for it with poll(), read its record. */
TEST_F(hwt, arm_poll_read)
{
	struct hwtimer_arm_entry e = { .cookie = 0xc0ffee, .expires_ns = 2 * MS };
	struct hwtimer_cancel_entry c = { 0 };
	struct hwtimer_expiry r;
	struct hwtimer_info info;
	uint64_t before, after;
	uint32_t done, failed;

	HWT_NEED_DEV();
	e.result = 1;
	before = now_ns();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, &done, &failed));
	after = now_ns();
	ASSERT_EQ(1, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(0, e.result);
	ASSERT_NE(0, e.id);
	ASSERT_LE(before + 2 * MS, e.deadline_ns);
	ASSERT_GE(after + 2 * MS, e.deadline_ns);
	ASSERT_EQ(0, e.reserved[0]);
	ASSERT_EQ(0, e.reserved[1]);

	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_INFO, &info));
	ASSERT_EQ(1, info.pending + info.queued);

	ASSERT_EQ(0, v1_read_one(self->fd, &r));
	ASSERT_EQ(e.id, r.id);
	ASSERT_EQ(0xc0ffee, r.cookie);
	ASSERT_EQ(e.deadline_ns, r.deadline_ns);
	ASSERT_LE(r.deadline_ns, r.expired_ns);
	ASSERT_GE(now_ns(), r.expired_ns);
	ASSERT_EQ(0, r.overrun);
	ASSERT_EQ(0, r.flags);
	ASSERT_EQ(0, r.error);

	/* Read: the id is dead. */
	c.id = e.id;
	ASSERT_EQ(-ENOENT, ht_batch(self->fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL));
	ASSERT_EQ(-ENOENT, c.result);
	ASSERT_EQ(0, c.status);
}

/* A periodic absolute timeout: records carry REARMED and count overruns. */
TEST_F(hwt, periodic_absolute)
{
	uint64_t period = 5 * self->info.tick_ns;
	struct hwtimer_arm_entry e = { .cookie = 9, .period_ns = 0,
				       .flags = HWTIMER_TIMEOUT_ABS };
	struct hwtimer_cancel_entry c = { 0 };
	struct hwtimer_expiry r;

	HWT_NEED_DEV();
	if (period < 5 * MS)
		period = 5 * MS;
	e.expires_ns = now_ns() + period;
	e.period_ns = period;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL));
	ASSERT_EQ(e.expires_ns, e.deadline_ns);

	ASSERT_EQ(0, v1_read_one(self->fd, &r));
	ASSERT_EQ(e.id, r.id);
	ASSERT_EQ(e.deadline_ns, r.deadline_ns);
	ASSERT_EQ(HWTIMER_EXPIRY_REARMED, r.flags);
	ASSERT_EQ(0, r.error);
	/* Let three more periods pass unread: one record, with overruns. */
	sleep_ns(4 * period);
	ASSERT_EQ(0, v1_read_one(self->fd, &r));
	ASSERT_EQ(HWTIMER_EXPIRY_REARMED, r.flags);
	ASSERT_LE(1, r.overrun);
	ASSERT_EQ(0, (r.deadline_ns - e.deadline_ns) % period);

	c.id = e.id;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL));
	ASSERT_EQ(0, c.result);
	ASSERT_NE(0, c.status);
}

/* CANCEL of a pending and of an expired-but-unread timeout. */
TEST_F(hwt, cancel)
{
	struct hwtimer_arm_entry e[2] = {
		{ .cookie = 1, .expires_ns = HWT_FAR_NS },
		{ .cookie = 2, .expires_ns = 0 },
	};
	struct hwtimer_cancel_entry c[2] = { 0 };
	struct hwtimer_expiry r;
	struct hwtimer_info info;
	uint32_t done, failed;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 2, 0, NULL, NULL));
	c[0].id = e[0].id;
	c[1].id = e[1].id;
	c[0].result = c[1].result = 1;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, 2, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(0, c[0].result);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, c[0].status);
	ASSERT_EQ(0, c[1].result);
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, c[1].status);
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_INFO, &info));
	ASSERT_EQ(0, info.pending + info.queued);
	/* Nothing left to read. */
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	ASSERT_EQ(-1, read(self->fd, &r, sizeof(r)));
	ASSERT_EQ(EAGAIN, errno);
	/* Reserved fields of version 1 entries are still checked. */
	c[0].reserved = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, c[0].result);
}

/* MODIFY a pending timeout, then one whose record is queued. */
TEST_F(hwt, modify)
{
	struct hwtimer_arm_entry e = { .cookie = 5, .expires_ns = HWT_FAR_NS };
	struct hwtimer_modify_entry m = { 0 };
	struct hwtimer_expiry r;
	uint64_t before;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL));
	m.id = e.id;
	m.expires_ns = 3 * MS;
	m.result = 1;
	before = now_ns();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL));
	ASSERT_EQ(0, m.result);
	ASSERT_EQ(HWTIMER_STATUS_PENDING, m.status);
	ASSERT_LE(before + 3 * MS, m.deadline_ns);
	ASSERT_EQ(0, v1_read_one(self->fd, &r));
	ASSERT_EQ(e.id, r.id);
	ASSERT_EQ(5, r.cookie);
	ASSERT_EQ(m.deadline_ns, r.deadline_ns);
	ASSERT_LE(r.deadline_ns, r.expired_ns);

	/* Expired and queued: a modify drops the record and re-arms. */
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL));
	e.expires_ns = 0;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL));
	m.id = e.id;
	m.expires_ns = HWT_FAR_NS;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, m.status);
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	ASSERT_EQ(-1, read(self->fd, &r, sizeof(r)));
	ASSERT_EQ(EAGAIN, errno);

	/* An unknown id. */
	m.id = e.id + 1000;
	ASSERT_EQ(-ENOENT, ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL));
	ASSERT_EQ(-ENOENT, m.result);
	ASSERT_EQ(0, m.status);
}

/* Batch rules: CONTINUE, done/failed, header errors, reserved[1]. */
TEST_F(hwt, batch_rules)
{
	struct hwtimer_arm_entry e[3] = {
		{ .cookie = 1, .expires_ns = HWT_FAR_NS },
		{ .cookie = 2, .expires_ns = HWT_FAR_NS, .flags = 1U << 7 },
		{ .cookie = 3, .expires_ns = HWT_FAR_NS },
	};
	struct hwtimer_info info;
	uint32_t done, failed;

	HWT_NEED_DEV();
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 3, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(1, failed);
	ASSERT_EQ(-EINVAL, e[1].result);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 3,
			      HWTIMER_BATCH_CONTINUE, &done, &failed));
	ASSERT_EQ(3, done);
	ASSERT_EQ(1, failed);
	ASSERT_EQ(0, e[2].result);
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_INFO, &info));
	ASSERT_EQ(3, info.pending);

	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 0, 0, NULL, NULL));
	ASSERT_EQ(-E2BIG, ht_batch(self->fd, HWTIMER_IOC_ARM, e,
				   HWTIMER_BATCH_MAX + 1, 0, NULL, NULL));
	e[0].flags = 0;
	e[0].reserved[1] = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, e[0].result);
	/* Periods shorter than a tick are refused. */
	e[0].reserved[1] = 0;
	e[0].period_ns = self->info.tick_ns - 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 1, 0, NULL, NULL));
}

/* read(): a short buffer, non-blocking mode. */
TEST_F(hwt, read_rules)
{
	struct hwtimer_expiry r;

	HWT_NEED_DEV();
	ASSERT_EQ(-1, read(self->fd, &r, sizeof(r) - 1));
	ASSERT_EQ(EINVAL, errno);
	fcntl(self->fd, F_SETFL, O_NONBLOCK);
	ASSERT_EQ(-1, read(self->fd, &r, sizeof(r)));
	ASSERT_EQ(EAGAIN, errno);
}

TEST_HARNESS_MAIN
