// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer ioctls: INFO, ARM, CANCEL and MODIFY, their batches, and
 * every errno they document (hwtimer(4)). Built 64-bit and -m32: the second
 * build goes through the compat ioctl path with the same structures.
 */
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"


/*
 * The layout is the ABI of hwtimer 1.0, pinned field by field: the same
 * for 32-bit and 64-bit callers (this test runs in both builds), and the
 * ioctl numbers, which encode the sizes.
 */
#define HT_AT(type, field, off, size)					\
	do {								\
		ASSERT_EQ(off, offsetof(struct type, field))		\
			TH_LOG(#type "." #field);			\
		ASSERT_EQ(size, sizeof(((struct type *)0)->field))	\
			TH_LOG(#type "." #field);			\
	} while (0)

TEST(struct_layout)
{
	ASSERT_EQ(96, sizeof(struct hwtimer_info));
	HT_AT(hwtimer_info, features, 0, 4);
	HT_AT(hwtimer_info, batch_max, 4, 4);
	HT_AT(hwtimer_info, tick_ns, 8, 8);
	HT_AT(hwtimer_info, slots, 16, 4);
	HT_AT(hwtimer_info, record_size, 20, 4);
	HT_AT(hwtimer_info, file_cap, 24, 8);
	HT_AT(hwtimer_info, global_cap, 32, 8);
	HT_AT(hwtimer_info, global_count, 40, 8);
	HT_AT(hwtimer_info, pending, 48, 8);
	HT_AT(hwtimer_info, queued, 56, 8);
	HT_AT(hwtimer_info, user_cap, 64, 8);
	HT_AT(hwtimer_info, user_count, 72, 8);
	HT_AT(hwtimer_info, clockid, 80, 4);
	HT_AT(hwtimer_info, precision, 84, 4);
	HT_AT(hwtimer_info, reserved, 88, 8);

	ASSERT_EQ(32, sizeof(struct hwtimer_config));
	HT_AT(hwtimer_config, clockid, 0, 4);
	HT_AT(hwtimer_config, precision, 4, 4);
	HT_AT(hwtimer_config, reserved, 8, 24);

	ASSERT_EQ(64, sizeof(struct hwtimer_arm_entry));
	HT_AT(hwtimer_arm_entry, cookie, 0, 8);
	HT_AT(hwtimer_arm_entry, expires_ns, 8, 8);
	HT_AT(hwtimer_arm_entry, period_ns, 16, 8);
	HT_AT(hwtimer_arm_entry, flags, 24, 4);
	HT_AT(hwtimer_arm_entry, result, 28, 4);
	HT_AT(hwtimer_arm_entry, id, 32, 8);
	HT_AT(hwtimer_arm_entry, deadline_ns, 40, 8);
	HT_AT(hwtimer_arm_entry, slack_ns, 48, 8);
	HT_AT(hwtimer_arm_entry, reserved, 56, 8);

	ASSERT_EQ(24, sizeof(struct hwtimer_cancel_entry));
	HT_AT(hwtimer_cancel_entry, id, 0, 8);
	HT_AT(hwtimer_cancel_entry, flags, 8, 4);
	HT_AT(hwtimer_cancel_entry, result, 12, 4);
	HT_AT(hwtimer_cancel_entry, status, 16, 4);
	HT_AT(hwtimer_cancel_entry, reserved, 20, 4);

	ASSERT_EQ(48, sizeof(struct hwtimer_modify_entry));
	HT_AT(hwtimer_modify_entry, id, 0, 8);
	HT_AT(hwtimer_modify_entry, expires_ns, 8, 8);
	HT_AT(hwtimer_modify_entry, period_ns, 16, 8);
	HT_AT(hwtimer_modify_entry, flags, 24, 4);
	HT_AT(hwtimer_modify_entry, result, 28, 4);
	HT_AT(hwtimer_modify_entry, deadline_ns, 32, 8);
	HT_AT(hwtimer_modify_entry, status, 40, 4);
	HT_AT(hwtimer_modify_entry, reserved, 44, 4);

	ASSERT_EQ(80, sizeof(struct hwtimer_get_entry));
	HT_AT(hwtimer_get_entry, id, 0, 8);
	HT_AT(hwtimer_get_entry, flags, 8, 4);
	HT_AT(hwtimer_get_entry, result, 12, 4);
	HT_AT(hwtimer_get_entry, status, 16, 4);
	HT_AT(hwtimer_get_entry, reserved, 20, 4);
	HT_AT(hwtimer_get_entry, cookie, 24, 8);
	HT_AT(hwtimer_get_entry, deadline_ns, 32, 8);
	HT_AT(hwtimer_get_entry, period_ns, 40, 8);
	HT_AT(hwtimer_get_entry, remaining_ns, 48, 8);
	HT_AT(hwtimer_get_entry, overrun, 56, 8);
	HT_AT(hwtimer_get_entry, slack_ns, 64, 8);
	HT_AT(hwtimer_get_entry, reserved2, 72, 8);

	ASSERT_EQ(40, sizeof(struct hwtimer_batch));
	HT_AT(hwtimer_batch, entries, 0, 8);
	HT_AT(hwtimer_batch, count, 8, 4);
	HT_AT(hwtimer_batch, flags, 12, 4);
	HT_AT(hwtimer_batch, done, 16, 4);
	HT_AT(hwtimer_batch, failed, 20, 4);
	HT_AT(hwtimer_batch, reserved, 24, 16);

	ASSERT_EQ(48, sizeof(struct hwtimer_expiry));
	HT_AT(hwtimer_expiry, id, 0, 8);
	HT_AT(hwtimer_expiry, cookie, 8, 8);
	HT_AT(hwtimer_expiry, deadline_ns, 16, 8);
	HT_AT(hwtimer_expiry, expired_ns, 24, 8);
	HT_AT(hwtimer_expiry, overrun, 32, 8);
	HT_AT(hwtimer_expiry, flags, 40, 4);
	HT_AT(hwtimer_expiry, reserved, 44, 4);

	ASSERT_EQ(64, sizeof(struct hwtimer_ring_params));
	HT_AT(hwtimer_ring_params, entries, 0, 4);
	HT_AT(hwtimer_ring_params, flags, 4, 4);
	HT_AT(hwtimer_ring_params, head_off, 8, 4);
	HT_AT(hwtimer_ring_params, tail_off, 12, 4);
	HT_AT(hwtimer_ring_params, flags_off, 16, 4);
	HT_AT(hwtimer_ring_params, records_off, 20, 4);
	HT_AT(hwtimer_ring_params, mmap_size, 24, 8);
	HT_AT(hwtimer_ring_params, reserved, 32, 32);

	ASSERT_EQ(0x80604a00UL, (unsigned long)HWTIMER_IOC_INFO);
	ASSERT_EQ(0xc0284a01UL, (unsigned long)HWTIMER_IOC_ARM);
	ASSERT_EQ(0xc0284a02UL, (unsigned long)HWTIMER_IOC_CANCEL);
	ASSERT_EQ(0xc0284a03UL, (unsigned long)HWTIMER_IOC_MODIFY);
	ASSERT_EQ(0xc0284a04UL, (unsigned long)HWTIMER_IOC_GET);
	ASSERT_EQ(0x40204a05UL, (unsigned long)HWTIMER_IOC_CONFIG);
	ASSERT_EQ(0xc0404a06UL, (unsigned long)HWTIMER_IOC_RING);

	/* The values of the constants a program compiles in. */
	ASSERT_EQ(1, HWTIMER_FEAT_RING);
	ASSERT_EQ(2, HWTIMER_FEAT_GET);
	ASSERT_EQ(4, HWTIMER_FEAT_CONFIG);
	ASSERT_EQ(8, HWTIMER_FEAT_SLACK);
	ASSERT_EQ(4096, HWTIMER_BATCH_MAX);
	ASSERT_EQ(65536, HWTIMER_RING_MAX);
	ASSERT_EQ(0, HWTIMER_RING_OFF);
	ASSERT_EQ(0, HWTIMER_PRECISION_DEFAULT);
	ASSERT_EQ(1, HWTIMER_PRECISION_FINE);
	ASSERT_EQ(2, HWTIMER_PRECISION_COARSE);
	ASSERT_EQ(1, HWTIMER_TIMEOUT_ABS);
	ASSERT_EQ(1, HWTIMER_BATCH_CONTINUE);
	ASSERT_EQ(1, HWTIMER_EXPIRY_REARMED);
	ASSERT_EQ(1, HWTIMER_RING_OVERFLOW);
	ASSERT_EQ(1, HWTIMER_STATUS_PENDING);
	ASSERT_EQ(2, HWTIMER_STATUS_EXPIRED);
}

TEST_F(hwt, info)
{
	struct hwtimer_info *i = &self->info;
	long long param;

	HWT_NEED_DEV();
	/* Every capability of 1.0, and no bit this program cannot know. */
	ASSERT_EQ(HWT_FEATURES, i->features);
	ASSERT_EQ(HWTIMER_BATCH_MAX, i->batch_max);
	ASSERT_EQ(sizeof(struct hwtimer_expiry), i->record_size);
	ASSERT_LT(0, i->tick_ns);
	ASSERT_LT(0, i->slots);
	ASSERT_EQ(0, i->slots & (i->slots - 1));
	ASSERT_LT(0, i->file_cap);
	ASSERT_LE(i->file_cap, i->global_cap);
	ASSERT_EQ(0, i->pending);
	ASSERT_EQ(0, i->queued);
	/* The per-user cap is the module parameter, as the others are. */
	ASSERT_LT(0, i->user_cap);
	param = ht_param_get("user_cap");
	if (param >= 0)
		ASSERT_EQ((unsigned long long)param, i->user_cap);
	ASSERT_LE(i->user_count, i->user_cap);
	ASSERT_LE(i->user_count, i->global_count);
	/* A new file's configuration. */
	ASSERT_EQ(CLOCK_MONOTONIC, i->clockid);
	ASSERT_EQ(HWTIMER_PRECISION_DEFAULT, i->precision);
	ASSERT_EQ(0, i->reserved);
	TH_LOG("tick %llu ns, %u slots, caps %llu/%llu/%llu (file/user/global), %llu/%llu in use (user/all)",
	       (unsigned long long)i->tick_ns, i->slots,
	       (unsigned long long)i->file_cap,
	       (unsigned long long)i->user_cap,
	       (unsigned long long)i->global_cap,
	       (unsigned long long)i->user_count,
	       (unsigned long long)i->global_count);
}

TEST_F(hwt, info_counts)
{
	struct hwtimer_info info;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, HWT_FAR_NS, 0, 0, &id));
	ASSERT_EQ(0, ht_arm(self->fd, 2, HWT_FAR_NS, 0, 0, &id));
	ASSERT_EQ(0, ht_arm(self->fd, 3, 0, 0, 0, &id));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(2, info.pending);
	ASSERT_EQ(1, info.queued);
	ASSERT_LE(3, info.global_count);
	/* This file's three count for its user too. */
	ASSERT_LE(3, info.user_count);
	ASSERT_LE(info.user_count, info.global_count);
}

TEST_F(hwt, info_bad_pointer)
{
	HWT_NEED_DEV();
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_INFO, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_INFO, (void *)1));
	ASSERT_EQ(EFAULT, errno);
}

TEST_F(hwt, unknown_ioctl)
{
	char buf[256] = { 0 };
	unsigned long cmds[] = {
		_IO(HWTIMER_IOC_MAGIC, 0x00),
		_IOWR(HWTIMER_IOC_MAGIC, 0x06, struct hwtimer_batch),
		_IOWR(HWTIMER_IOC_MAGIC, 0x0f, struct hwtimer_batch),
		/* A known number with the wrong size or direction. */
		_IOWR(HWTIMER_IOC_MAGIC, 0x01, struct hwtimer_info),
		_IOW(HWTIMER_IOC_MAGIC, 0x01, struct hwtimer_batch),
		_IOW(HWTIMER_IOC_MAGIC, 0x00, struct hwtimer_info),
		_IOR(HWTIMER_IOC_MAGIC, 0x05, struct hwtimer_config),
		_IOWR(HWTIMER_IOC_MAGIC, 0x04, struct hwtimer_info),
		_IOWR('X', 0x01, struct hwtimer_batch),
		0,
	};
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < ARRAY_SIZE(cmds); k++) {
		ASSERT_EQ(-1, ioctl(self->fd, cmds[k], buf)) TH_LOG("cmd %#lx", cmds[k]);
		ASSERT_EQ(ENOTTY, errno) TH_LOG("cmd %#lx", cmds[k]);
	}
}

TEST_F(hwt, arm_one)
{
	struct hwtimer_arm_entry e;
	struct hwtimer_expiry r;
	uint64_t before, after;
	uint32_t done, failed;

	HWT_NEED_DEV();
	ht_arm_entry(&e, 0x1234, 2 * MS, 0, 0);
	before = now_ns();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, &done, &failed));
	after = now_ns();
	ASSERT_EQ(1, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(0, e.result);
	ASSERT_NE(0, e.id);
	ASSERT_LE(before + 2 * MS, e.deadline_ns);
	ASSERT_GE(after + 2 * MS, e.deadline_ns);

	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_GE(now_ns(), r.expired_ns);
	ASSERT_EQ(e.id, r.id);
	ASSERT_EQ(0x1234, r.cookie);
	ASSERT_EQ(e.deadline_ns, r.deadline_ns);
	ASSERT_LE(r.deadline_ns, r.expired_ns);
	ASSERT_EQ(0, r.overrun);
	ASSERT_EQ(0, r.flags);
	ASSERT_EQ(0, r.reserved);
}

TEST_F(hwt, arm_batch)
{
	struct hwtimer_arm_entry e[64];
	struct hwtimer_expiry r[64];
	uint32_t done, failed;
	uint64_t seen = 0;
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < 64; k++)
		ht_arm_entry(&e[k], 1000 + k, (k % 8) * MS, 0, 0);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 64, 0, &done, &failed));
	ASSERT_EQ(64, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(64, ht_read_n(self->fd, r, 64));
	for (k = 0; k < 64; k++) {
		unsigned int c = r[k].cookie - 1000;

		ASSERT_GT(64, c);
		ASSERT_EQ(e[c].id, r[k].id);
		ASSERT_EQ(0, seen & (1ULL << c));
		ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		seen |= 1ULL << c;
	}
	ASSERT_EQ(UINT64_MAX, seen);
}

TEST_F(hwt, arm_ids_unique)
{
	struct hwtimer_arm_entry e[256];
	struct hwtimer_cancel_entry c[256];
	uint64_t prev[256];
	unsigned int k, j, round;

	HWT_NEED_DEV();
	for (round = 0; round < 2; round++) {
		for (k = 0; k < 256; k++)
			ht_arm_entry(&e[k], k, 10000 * MS, 0, 0);
		ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 256, 0, NULL, NULL));
		for (k = 0; k < 256; k++) {
			ASSERT_NE(0, e[k].id);
			if (k)
				ASSERT_NE(e[k - 1].id, e[k].id);
			/* A cancelled timeout's id is never handed out again. */
			for (j = 0; round && j < 256; j++)
				ASSERT_NE(prev[j], e[k].id);
			c[k] = (struct hwtimer_cancel_entry){ .id = e[k].id };
		}
		ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, 256, 0, NULL, NULL));
		for (k = 0; k < 256; k++)
			prev[k] = e[k].id;
	}
}

TEST_F(hwt, arm_absolute)
{
	struct hwtimer_expiry r;
	uint64_t dl = now_ns() + 3 * MS, id;
	struct hwtimer_arm_entry e;

	HWT_NEED_DEV();
	ht_arm_entry(&e, 7, dl, 0, HWTIMER_TIMEOUT_ABS);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL));
	id = e.id;
	ASSERT_EQ(dl, e.deadline_ns);
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(id, r.id);
	ASSERT_EQ(dl, r.deadline_ns);
	ASSERT_LE(dl, r.expired_ns);
}

/* A deadline already due is queued before the ioctl returns. */
TEST_F(hwt, arm_past_fires_at_once)
{
	struct hwtimer_expiry r[3];
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, 0, 0, HWTIMER_TIMEOUT_ABS, &id));
	ASSERT_EQ(0, ht_arm(self->fd, 2, now_ns() - 1000 * MS, 0, HWTIMER_TIMEOUT_ABS, &id));
	ASSERT_EQ(0, ht_arm(self->fd, 3, 0, 0, 0, &id));
	ASSERT_EQ(POLLIN | POLLRDNORM, ht_wait(self->fd, 0));
	ASSERT_EQ(3, ht_read(self->fd, r, 3));
	ASSERT_EQ(1, r[0].cookie);
	ASSERT_EQ(0, r[0].deadline_ns);
	ASSERT_EQ(2, r[1].cookie);
	ASSERT_EQ(3, r[2].cookie);
	ASSERT_EQ(id, r[2].id);
	ASSERT_LE(r[2].deadline_ns, r[2].expired_ns);
}

TEST_F(hwt, arm_bad_flags)
{
	struct hwtimer_info info;
	uint64_t id = 1;

	HWT_NEED_DEV();
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, 0, 1U << 1, &id));
	ASSERT_EQ(0, id);
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, 0, 1U << 31, NULL));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending + info.queued);
}

TEST_F(hwt, arm_reserved_nonzero)
{
	struct hwtimer_arm_entry e;
	struct hwtimer_info info;
	uint32_t done, failed;

	HWT_NEED_DEV();
	ht_arm_entry(&e, 0, MS, 0, 0);
	e.reserved = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 0, &done, &failed));
	ASSERT_EQ(-EINVAL, e.result);
	ASSERT_EQ(1, done);
	ASSERT_EQ(1, failed);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending + info.queued);
}

/* A period shorter than one tick is rejected, one tick is fine. */
TEST_F(hwt, arm_period_bounds)
{
	uint64_t tick = self->info.tick_ns, id;

	HWT_NEED_DEV();
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, 1, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, tick - 1, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, (uint64_t)INT64_MAX + 1, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, MS, UINT64_MAX, 0, NULL));
	ASSERT_EQ(0, ht_arm(self->fd, 0, 10000 * MS, tick, 0, &id));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
	ASSERT_EQ(0, ht_arm(self->fd, 0, 10000 * MS, INT64_MAX, 0, &id));
}

TEST_F(hwt, arm_deadline_bounds)
{
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, UINT64_MAX, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, INT64_MAX, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_arm(self->fd, 0, (uint64_t)INT64_MAX + 1, 0,
				   HWTIMER_TIMEOUT_ABS, NULL));
	/* The farthest deadline there is: accepted, never fires. */
	ASSERT_EQ(0, ht_arm(self->fd, 0, INT64_MAX, 0, HWTIMER_TIMEOUT_ABS, &id));
	ASSERT_EQ(0, ht_arm(self->fd, 0, INT64_MAX / 4, 0, 0, &id));
	ASSERT_EQ(0, ht_wait(self->fd, 5));
}

TEST_F(hwt, batch_header_errors)
{
	struct hwtimer_arm_entry e;
	struct hwtimer_batch b;
	struct hwtimer_info info;

	HWT_NEED_DEV();
	ht_arm_entry(&e, 0, MS, 0, 0);
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 0, 0, NULL, NULL));
	ASSERT_EQ(-E2BIG, ht_batch(self->fd, HWTIMER_IOC_ARM, &e,
				    HWTIMER_BATCH_MAX + 1, 0, NULL, NULL));
	ASSERT_EQ(-E2BIG, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, UINT32_MAX, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, &e, 1, 1U << 1, NULL, NULL));
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_CANCEL, &e, 1, 1U << 31, NULL, NULL));

	memset(&b, 0, sizeof(b));
	b.entries = (uintptr_t)&e;
	b.count = 1;
	b.reserved[1] = 1;
	b.done = 77;
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_ARM, &b));
	ASSERT_EQ(EINVAL, errno);
	/* A rejected header is not written back. */
	ASSERT_EQ(77, b.done);
	ASSERT_EQ(1, e.result);

	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_ARM, NULL));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending + info.queued);
}

TEST_F(hwt, batch_bad_entries)
{
	struct hwtimer_info info;
	long page = sysconf(_SC_PAGESIZE);
	struct hwtimer_arm_entry *e;
	char *map;

	HWT_NEED_DEV();
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_ARM, NULL, 1, 0, NULL, NULL));
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_CANCEL, (void *)16, 4, 0, NULL, NULL));
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_MODIFY, NULL, 4, 0, NULL, NULL));

	/* Entries in read-only memory: the results cannot be written. */
	map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	e = (struct hwtimer_arm_entry *)map;
	ht_arm_entry(e, 0, MS, 0, 0);
	ASSERT_EQ(0, mprotect(map, page, PROT_READ));
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 1, 0, NULL, NULL));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending + info.queued);
	munmap(map, page);
}

/* An array running into unmapped memory: the entries before it are done. */
TEST_F(hwt, batch_fault_midway)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned int n = page / sizeof(struct hwtimer_arm_entry), k;
	struct hwtimer_arm_entry *e;
	struct hwtimer_info info;
	uint32_t done, failed;
	char *map;

	HWT_NEED_DEV();
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	ASSERT_EQ(0, munmap(map + page, page));
	e = (struct hwtimer_arm_entry *)map;
	for (k = 0; k < n; k++)
		ht_arm_entry(&e[k], k, HWT_FAR_NS, 0, 0);
	ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_ARM, e, n + 2, 0, &done, &failed));
	ASSERT_EQ(n, done);
	ASSERT_EQ(0, failed);
	for (k = 0; k < n; k++)
		ASSERT_EQ(0, e[k].result);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(n, info.pending);
	munmap(map, page);
}

/*
 * An entry whose end lies on a read-only page: its input can be read but
 * part of its output cannot be written. The call fails with EFAULT at it,
 * and as "done" does not count it, it must not have been acted on: the
 * timeout is neither cancelled nor moved.
 */
static char *straddle_map(long page)
{
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return map == MAP_FAILED ? NULL : map;
}

/*
 * A CANCEL or MODIFY (@cmd) of a pending timeout whose entry starts @cut
 * bytes before a read-only page. Only a cancel cut at its "reserved" input
 * field has every output writable, and is done; every other cut fails with
 * EFAULT and leaves the timeout pending where it was. A modify would make
 * the timeout due at once, so a record queued would show it acted.
 */
static void straddle_readonly(struct __test_metadata *_metadata, int fd,
			      unsigned long cmd, size_t cut, unsigned int k)
{
	bool cancel = cmd == HWTIMER_IOC_CANCEL;
	const char *what = cancel ? "cancel" : "modify";
	long page = sysconf(_SC_PAGESIZE);
	union {
		struct hwtimer_cancel_entry c;
		struct hwtimer_modify_entry m;
	} *e, in;
	size_t size = cancel ? sizeof(in.c) : sizeof(in.m);
	struct hwtimer_info info;
	uint32_t done, status;
	uint64_t id;
	char *map;

	ASSERT_EQ(0, ht_arm(fd, k, HWT_FAR_NS, 0, 0, &id));
	map = straddle_map(page);
	ASSERT_TRUE(map != NULL);
	memset(&in, 0, sizeof(in));
	if (cancel)
		in.c.id = id;
	else
		in.m.id = id;	/* expires_ns 0: due now */
	e = (void *)(map + page - cut);
	memcpy(e, &in, size);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));
	done = 1234;
	if (cancel && cut == offsetof(struct hwtimer_cancel_entry, reserved)) {
		/* Only the input field "reserved" is read-only: fine. */
		ASSERT_EQ(0, ht_batch(fd, cmd, e, 1, 0, &done, NULL));
		ASSERT_EQ(1, done);
		ASSERT_EQ(0, e->c.result);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, e->c.status);
		munmap(map, 2 * page);
		return;
	}
	ASSERT_EQ(-EFAULT, ht_batch(fd, cmd, e, 1, 0, &done, NULL))
		TH_LOG("%s cut at %zu: not EFAULT", what, cut);
	ASSERT_EQ(0, done);
	ASSERT_EQ(0, ht_info(fd, &info));
	ASSERT_EQ(1, info.pending) TH_LOG("%s cut at %zu: acted on, yet not done", what, cut);
	ASSERT_EQ(0, info.queued) TH_LOG("%s cut at %zu: acted on, yet not done", what, cut);
	ASSERT_EQ(0, ht_cancel(fd, id, &status));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, status);
	munmap(map, 2 * page);
}

TEST_F(hwt, cancel_entry_straddles_readonly)
{
	static const size_t cut[] = {
		offsetof(struct hwtimer_cancel_entry, result),
		offsetof(struct hwtimer_cancel_entry, status),
		offsetof(struct hwtimer_cancel_entry, reserved),
	};
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < ARRAY_SIZE(cut); k++)
		straddle_readonly(_metadata, self->fd, HWTIMER_IOC_CANCEL, cut[k], k);
}

TEST_F(hwt, modify_entry_straddles_readonly)
{
	static const size_t cut[] = {
		offsetof(struct hwtimer_modify_entry, result),
		offsetof(struct hwtimer_modify_entry, deadline_ns),
		offsetof(struct hwtimer_modify_entry, status),
	};
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < ARRAY_SIZE(cut); k++)
		straddle_readonly(_metadata, self->fd, HWTIMER_IOC_MODIFY, cut[k], k);
}

/*
 * An ARM batch whose entry @bad has its output fields from @cut on in a
 * read-only page, with the entries after it wholly there: every input can
 * be read, but from @bad on no result can be written. The entries before
 * it are armed and counted in "done"; it and those after are not armed,
 * and those after keep the outputs they had (the device takes a batch's
 * entries in runs, so this checks that a run stops where an entry fails).
 */
TEST_F(hwt, arm_run_stops_at_readonly_entry)
{
	static const size_t cut[] = {
		offsetof(struct hwtimer_arm_entry, result),
		offsetof(struct hwtimer_arm_entry, id),
		offsetof(struct hwtimer_arm_entry, deadline_ns),
	};
	const unsigned int n = 40, bad[] = { 0, 1, 9, 15, 16, 17, 31 };
	long page = sysconf(_SC_PAGESIZE);
	struct hwtimer_arm_entry *e;
	struct hwtimer_info info;
	uint32_t done, failed;
	unsigned int c, b, k, armed = 0;
	char *map;

	HWT_NEED_DEV();
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	for (c = 0; c < ARRAY_SIZE(cut); c++) {
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			ASSERT_EQ(0, mprotect(map, 2 * page, PROT_READ | PROT_WRITE));
			e = (struct hwtimer_arm_entry *)(map + page - cut[c]) - bad[b];
			for (k = 0; k < n; k++)
				ht_arm_entry(&e[k], k, HWT_FAR_NS, 0, 0);
			ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));
			done = 1234;
			failed = 1234;
			ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_ARM, e, n,
						    HWTIMER_BATCH_CONTINUE, &done, &failed))
				TH_LOG("entry %u cut at %zu: not EFAULT", bad[b], cut[c]);
			ASSERT_EQ(bad[b], done) TH_LOG("cut at %zu", cut[c]);
			ASSERT_EQ(0, failed);
			for (k = 0; k < bad[b]; k++) {
				ASSERT_EQ(0, e[k].result) TH_LOG("entry %u of %u", k, bad[b]);
				ASSERT_NE(0, e[k].id);
				ASSERT_NE(0xdeadbeefULL, e[k].id);
			}
			for (k = bad[b] + 1; k < n; k++) {
				ASSERT_EQ(1, e[k].result)
					TH_LOG("entry %u after bad %u written", k, bad[b]);
				ASSERT_EQ(0xdeadbeefULL, e[k].id);
				ASSERT_EQ(0, e[k].deadline_ns);
			}
			armed += bad[b];
			ASSERT_EQ(0, ht_info(self->fd, &info));
			ASSERT_EQ(armed, info.pending)
				TH_LOG("entry %u cut at %zu: %llu pending, %u armed", bad[b],
				       cut[c], (unsigned long long)info.pending, armed);
			ASSERT_EQ(0, info.queued);
		}
	}
	munmap(map, 2 * page);
}

/*
 * The other way round: an entry whose first @cut input bytes lie on a
 * read-only page and whose output fields all lie on the writable page
 * after it. Its inputs can be read and its outputs written, so it is
 * processed like any other: done 1, outputs written (hwtimer(4): EFAULT
 * only for an entry that cannot be read whole or whose output fields
 * cannot be written). *@entry is the entry in, and its outputs out.
 */
static void inputs_readonly(struct __test_metadata *_metadata, int fd,
			    unsigned long cmd, size_t size, size_t cut, void *entry)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint32_t done = 1234, failed = 1234;
	char *e;

	ASSERT_TRUE(map != MAP_FAILED);
	e = map + page - cut;
	memcpy(e, entry, size);
	ASSERT_EQ(0, mprotect(map, page, PROT_READ));
	ASSERT_EQ(0, ht_batch(fd, cmd, e, 1, 0, &done, &failed))
		TH_LOG("ioctl %#lx, %zu input bytes on a read-only page: %s", cmd, cut,
		       strerror(errno));
	ASSERT_EQ(1, done) TH_LOG("ioctl %#lx, cut at %zu", cmd, cut);
	ASSERT_EQ(0, failed) TH_LOG("ioctl %#lx, cut at %zu", cmd, cut);
	memcpy(entry, e, size);
	munmap(map, 2 * page);
}

TEST_F(hwt, entry_inputs_on_readonly_page)
{
	struct hwtimer_arm_entry a;
	struct hwtimer_cancel_entry c;
	struct hwtimer_modify_entry m;
	struct hwtimer_get_entry g;
	struct hwtimer_info info;
	size_t cut;

	HWT_NEED_DEV();
	/* ARM: cookie, expires_ns, period_ns and flags may be read-only. */
	for (cut = 8; cut <= offsetof(struct hwtimer_arm_entry, result); cut += 8) {
		ht_arm_entry(&a, cut, 10000 * MS, 0, 0);
		inputs_readonly(_metadata, self->fd, HWTIMER_IOC_ARM, sizeof(a), cut, &a);
		ASSERT_EQ(0, a.result) TH_LOG("arm cut at %zu", cut);
		ASSERT_NE(0, a.id) TH_LOG("arm cut at %zu: no id written", cut);
		ASSERT_NE(0xdeadbeefULL, a.id) TH_LOG("arm cut at %zu: no id written", cut);
		ASSERT_NE(0, a.deadline_ns) TH_LOG("arm cut at %zu", cut);

		/* GET: its id may be read-only. */
		memset(&g, 0, sizeof(g));
		g.id = a.id;
		g.result = 1;
		inputs_readonly(_metadata, self->fd, HWTIMER_IOC_GET, sizeof(g), 8, &g);
		ASSERT_EQ(0, g.result);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, g.status);
		ASSERT_EQ(cut, g.cookie) TH_LOG("get of the arm cut at %zu", cut);

		/* MODIFY: id, expires_ns, period_ns and flags may be read-only. */
		memset(&m, 0, sizeof(m));
		m.id = a.id;
		m.expires_ns = 20000 * MS;
		m.result = 1;
		inputs_readonly(_metadata, self->fd, HWTIMER_IOC_MODIFY, sizeof(m), cut, &m);
		ASSERT_EQ(0, m.result) TH_LOG("modify cut at %zu", cut);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, m.status) TH_LOG("modify cut at %zu", cut);

		/* CANCEL: its id may be read-only. */
		memset(&c, 0, sizeof(c));
		c.id = a.id;
		c.result = 1;
		inputs_readonly(_metadata, self->fd, HWTIMER_IOC_CANCEL, sizeof(c), 8, &c);
		ASSERT_EQ(0, c.result) TH_LOG("cancel of the arm cut at %zu", cut);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, c.status);
	}
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending);
	ASSERT_EQ(0, info.queued);
}

/* Without HWTIMER_BATCH_CONTINUE processing stops at the failed entry. */
TEST_F(hwt, batch_partial_stop)
{
	struct hwtimer_arm_entry e[5];
	struct hwtimer_info info;
	uint32_t done, failed;
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < 5; k++)
		ht_arm_entry(&e[k], k, HWT_FAR_NS, 0, 0);
	e[2].flags = 0x80;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 5, 0, &done, &failed));
	ASSERT_EQ(3, done);
	ASSERT_EQ(1, failed);
	ASSERT_EQ(0, e[0].result);
	ASSERT_EQ(0, e[1].result);
	ASSERT_EQ(-EINVAL, e[2].result);
	ASSERT_EQ(0, e[2].id);
	/* Entries after it were not looked at. */
	ASSERT_EQ(1, e[3].result);
	ASSERT_EQ(0xdeadbeef, e[3].id);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(2, info.pending);

	/* Resume after the bad entry. */
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e + done, 5 - done, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(0, e[3].result);
	ASSERT_EQ(0, e[4].result);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(4, info.pending);
}

TEST_F(hwt, batch_partial_continue)
{
	struct hwtimer_arm_entry e[6];
	struct hwtimer_info info;
	uint32_t done, failed;
	unsigned int k;

	HWT_NEED_DEV();
	for (k = 0; k < 6; k++)
		ht_arm_entry(&e[k], k, HWT_FAR_NS, 0, 0);
	e[1].period_ns = 1;
	e[4].reserved = 9;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 6, HWTIMER_BATCH_CONTINUE,
			       &done, &failed));
	ASSERT_EQ(6, done);
	ASSERT_EQ(2, failed);
	for (k = 0; k < 6; k++)
		ASSERT_EQ(k == 1 || k == 4 ? -EINVAL : 0, e[k].result);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(4, info.pending);
}

TEST_F(hwt, batch_max)
{
	struct hwtimer_arm_entry *e;
	struct hwtimer_cancel_entry *c;
	uint32_t done, failed;
	unsigned int k, n = HWTIMER_BATCH_MAX;

	HWT_NEED_DEV();
	e = calloc(n, sizeof(*e));
	c = calloc(n, sizeof(*c));
	ASSERT_TRUE(e != NULL);
	ASSERT_TRUE(c != NULL);
	for (k = 0; k < n; k++)
		ht_arm_entry(&e[k], k, HWT_FAR_NS + k * 1000, 0, 0);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, n, 0, &done, &failed));
	ASSERT_EQ(n, done);
	for (k = 0; k < n; k++)
		c[k].id = e[k].id;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, n, 0, &done, &failed));
	ASSERT_EQ(n, done);
	ASSERT_EQ(0, failed);
	for (k = 0; k < n; k++) {
		ASSERT_EQ(0, c[k].result);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, c[k].status);
	}
	free(e);
	free(c);
}

TEST_F(hwt, cancel_pending)
{
	struct hwtimer_info info;
	uint32_t status = 9;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 5, HWT_FAR_NS, 0, 0, &id));
	ASSERT_EQ(0, ht_cancel(self->fd, id, &status));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, status);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending + info.queued);
	/* It never fires. */
	ASSERT_EQ(0, ht_wait(self->fd, 40));
}

TEST_F(hwt, cancel_unknown)
{
	uint32_t status = 9;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, 0, &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, 1, NULL));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, UINT64_MAX, NULL));
	ASSERT_EQ(0, ht_arm(self->fd, 5, 10000 * MS, 0, 0, &id));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, id + 1, NULL));
	/* Same index, other generation. */
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, id + (1ULL << 32), NULL));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, id, NULL));
}

TEST_F(hwt, cancel_after_read)
{
	struct hwtimer_expiry r;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 5, MS, 0, 0, &id));
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, id, NULL));
}

/* Expired but unread: cancel discards the record, which is never read. */
TEST_F(hwt, cancel_expired_unread)
{
	struct hwtimer_expiry r;
	uint32_t status = 0;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 5, 0, 0, 0, &id));
	ASSERT_NE(0, ht_wait(self->fd, 0));
	ASSERT_EQ(0, ht_cancel(self->fd, id, &status));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, status);
	ASSERT_EQ(0, ht_wait(self->fd, 0));
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(-EAGAIN, ht_read(self->fd, &r, 1));
}

TEST_F(hwt, cancel_bad_entry)
{
	struct hwtimer_cancel_entry c = { 0 };
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 5, 10000 * MS, 0, 0, &id));
	c.id = id;
	c.flags = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, c.result);
	c.flags = 0;
	c.reserved = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, c.result);
	/* Nothing happened to the timeout. */
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
}

TEST_F(hwt, cancel_batch_mixed)
{
	struct hwtimer_cancel_entry c[4] = { 0 };
	uint32_t done, failed;
	uint64_t a, b;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, 0, 0, &a));
	ASSERT_EQ(0, ht_arm(self->fd, 2, 10000 * MS, 0, 0, &b));
	c[0].id = a;
	c[1].id = 12345;
	c[2].id = b;
	c[3].id = a;
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, 4, HWTIMER_BATCH_CONTINUE,
			       &done, &failed));
	ASSERT_EQ(4, done);
	ASSERT_EQ(2, failed);
	ASSERT_EQ(0, c[0].result);
	ASSERT_EQ(-ENOENT, c[1].result);
	ASSERT_EQ(0, c[1].status);
	ASSERT_EQ(0, c[2].result);
	ASSERT_EQ(-ENOENT, c[3].result);
}

/*
 * The id table after the newest timeout goes: a batch of 40 (objects come
 * in bulk, 16 at a time, and two invalid entries leave spares), the newest
 * and a middle one cancelled, three more armed; every live id still finds
 * its own timeout, no id is handed out twice, and one batch cancels the
 * rest.
 */
TEST_F(hwt, ids_after_newest_cancelled)
{
	struct hwtimer_arm_entry a[40];
	struct hwtimer_cancel_entry c[43] = { 0 };
	struct hwtimer_get_entry g;
	uint64_t id[43], cookie[43], gone[2];
	uint32_t done, failed, i, j, n = 0;
	struct hwtimer_info info;

	HWT_NEED_DEV();
	for (i = 0; i < 40; i++)
		ht_arm_entry(&a[i], 1000 + i, HWT_FAR_NS, 0, i == 5 || i == 20 ? 0x80 : 0);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, a, 40, HWTIMER_BATCH_CONTINUE,
			       &done, &failed));
	ASSERT_EQ(40, done);
	ASSERT_EQ(2, failed);
	for (i = 0; i < 40; i++) {
		if (i == 5 || i == 20) {
			ASSERT_EQ(-EINVAL, a[i].result) TH_LOG("entry %u", i);
			continue;
		}
		ASSERT_EQ(0, a[i].result) TH_LOG("entry %u", i);
		for (j = 0; j < n; j++)
			ASSERT_NE(id[j], a[i].id) TH_LOG("id handed out twice");
		id[n] = a[i].id;
		cookie[n++] = a[i].cookie;
	}
	/* The newest and one in the middle. */
	c[0].id = gone[0] = id[n - 1];
	c[1].id = gone[1] = id[10];
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, 2, 0, &done, &failed));
	ASSERT_EQ(0, failed);
	ASSERT_EQ(-ENOENT, ht_get(self->fd, id[n - 1], &g));
	ASSERT_EQ(-ENOENT, ht_get(self->fd, id[10], &g));
	memmove(&id[10], &id[11], (n - 11) * sizeof(id[0]));
	memmove(&cookie[10], &cookie[11], (n - 11) * sizeof(cookie[0]));
	n -= 2;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ht_arm(self->fd, 2000 + i, HWT_FAR_NS, 0, 0, &id[n]));
		ASSERT_NE(gone[0], id[n]) TH_LOG("the cancelled newest id handed out again");
		ASSERT_NE(gone[1], id[n]) TH_LOG("a cancelled id handed out again");
		for (j = 0; j < n; j++)
			ASSERT_NE(id[j], id[n]) TH_LOG("id handed out twice");
		cookie[n++] = 2000 + i;
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ht_get(self->fd, id[i], &g)) TH_LOG("id %llu (%u of %u) lost",
								 (unsigned long long)id[i], i, n);
		ASSERT_EQ(cookie[i], g.cookie) TH_LOG("id %llu found another timeout",
						      (unsigned long long)id[i]);
		ASSERT_EQ(HWTIMER_STATUS_PENDING, g.status);
	}
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(n, info.pending);
	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++)
		c[i].id = id[n - 1 - i];
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_CANCEL, c, n, 0, &done, &failed));
	ASSERT_EQ(n, done);
	ASSERT_EQ(0, failed);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending) TH_LOG("%llu left after cancelling all",
					  (unsigned long long)info.pending);
}

/* Across files ids mean nothing: a file cannot touch another's timeouts. */
TEST_F(hwt, ids_per_file)
{
	int fd2 = ht_open(0);
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, 0, 0, &id));
	ASSERT_EQ(-ENOENT, ht_cancel(fd2, id, NULL));
	ASSERT_EQ(-ENOENT, ht_modify(fd2, id, MS, 0, 0, NULL));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
	close(fd2);
}

TEST_F(hwt, modify_later)
{
	struct hwtimer_modify_entry m = { 0 };
	struct hwtimer_expiry r;
	uint64_t id, t0;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 9, 20 * MS, 0, 0, &id));
	m.id = id;
	m.expires_ns = 60 * MS;
	t0 = now_ns();
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL));
	ASSERT_EQ(0, m.result);
	/* Normally still pending; on a slow VM it may have expired already. */
	ASSERT_TRUE(m.status == HWTIMER_STATUS_PENDING || m.status == HWTIMER_STATUS_EXPIRED);
	ASSERT_LE(t0 + 60 * MS, m.deadline_ns);
	/* Either way the old deadline produces no record, the new one does. */
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(id, r.id);
	ASSERT_EQ(9, r.cookie);
	ASSERT_EQ(m.deadline_ns, r.deadline_ns);
	ASSERT_LE(m.deadline_ns, r.expired_ns);
	ASSERT_LE(m.deadline_ns, now_ns());
	ASSERT_EQ(0, ht_wait(self->fd, 0));
}

TEST_F(hwt, modify_earlier)
{
	struct hwtimer_expiry r;
	uint32_t status;
	uint64_t id, t0;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 9, 100000 * MS, 0, 0, &id));
	t0 = now_ns();
	ASSERT_EQ(0, ht_modify(self->fd, id, t0 + 2 * MS, 0, HWTIMER_TIMEOUT_ABS, &status));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, status);
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(t0 + 2 * MS, r.deadline_ns);
	ASSERT_EQ(-ENOENT, ht_modify(self->fd, id, MS, 0, 0, NULL));
}

/*
 * Modifying an expired, unread timeout drops its record and re-arms it:
 * far away first, so that no new record can be there when the test looks,
 * then soon, to see it come.
 */
TEST_F(hwt, modify_expired_unread)
{
	struct hwtimer_expiry r;
	uint32_t status;
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 9, 0, 0, 0, &id));
	ASSERT_NE(0, ht_wait(self->fd, 0));
	ASSERT_EQ(0, ht_modify(self->fd, id, HWT_FAR_NS, 0, 0, &status));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, status);
	ASSERT_EQ(0, ht_wait(self->fd, 0));
	ASSERT_EQ(0, ht_modify(self->fd, id, 20 * MS, 0, 0, &status));
	ASSERT_EQ(HWTIMER_STATUS_PENDING, status);
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(id, r.id);
	ASSERT_LE(r.deadline_ns, r.expired_ns);
}

TEST_F(hwt, modify_errors)
{
	struct hwtimer_modify_entry m = { 0 };
	uint64_t id;

	HWT_NEED_DEV();
	ASSERT_EQ(-ENOENT, ht_modify(self->fd, 77, MS, 0, 0, NULL));
	ASSERT_EQ(0, ht_arm(self->fd, 9, HWT_FAR_NS, 0, 0, &id));
	ASSERT_EQ(-EINVAL, ht_modify(self->fd, id, MS, 0, 4, NULL));
	ASSERT_EQ(-EINVAL, ht_modify(self->fd, id, MS, 1, 0, NULL));
	ASSERT_EQ(-EINVAL, ht_modify(self->fd, id, UINT64_MAX, 0, 0, NULL));
	m.id = id;
	m.expires_ns = MS;
	m.reserved = 1;
	ASSERT_EQ(-EINVAL, ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, m.result);
	ASSERT_EQ(0, m.status);
	ASSERT_EQ(0, m.deadline_ns);
	/* None of it touched the timeout: it is still pending, far away. */
	ASSERT_EQ(0, ht_wait(self->fd, 10));
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));
}

TEST_F(hwt, modify_batch_mixed)
{
	struct hwtimer_modify_entry m[3] = { 0 };
	uint32_t done, failed;
	uint64_t a, b;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10000 * MS, 0, 0, &a));
	ASSERT_EQ(0, ht_arm(self->fd, 2, 10000 * MS, 0, 0, &b));
	m[0].id = a;
	m[0].expires_ns = 20000 * MS;
	m[1].id = 999;
	m[2].id = b;
	m[2].expires_ns = 20000 * MS;
	ASSERT_EQ(-ENOENT, ht_batch(self->fd, HWTIMER_IOC_MODIFY, m, 3, 0, &done, &failed));
	ASSERT_EQ(2, done);
	ASSERT_EQ(0, m[0].result);
	ASSERT_EQ(-ENOENT, m[1].result);
	ASSERT_EQ(0, m[2].deadline_ns);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_MODIFY, m + 2, 1, 0, &done, &failed));
	ASSERT_EQ(0, m[2].result);
}

/* Arm @n timeouts @delay away, their ids into @ids. */
static void arm_n(struct __test_metadata *_metadata, int fd, unsigned int n,
		  uint64_t delay, uint64_t *ids)
{
	struct hwtimer_arm_entry e[64];
	unsigned int k;

	ASSERT_GE(64, n);
	for (k = 0; k < n; k++)
		ht_arm_entry(&e[k], k, delay, 0, 0);
	ASSERT_EQ(0, ht_batch(fd, HWTIMER_IOC_ARM, e, n, 0, NULL, NULL));
	for (k = 0; k < n; k++)
		ids[k] = e[k].id;
}

/*
 * The MODIFY run tests arm their timeouts ARMED_NS away and move them to
 * MOVED_NS (and MOVED2_NS); moved() tells those apart by a remaining time
 * far from each, so that how long the host held the test in between does
 * not change the answer.
 */
#define ARMED_NS	(100 * SEC)
#define MOVED_NS	(1000 * SEC)
#define MOVED2_NS	(3000 * SEC)

/* 1 if timeout @id is pending with its deadline more than @after away. */
static int moved(int fd, uint64_t id, uint64_t after)
{
	struct hwtimer_get_entry g;

	return ht_get(fd, id, &g) == 0 && g.status == HWTIMER_STATUS_PENDING &&
	       g.remaining_ns > after;
}

static void modify_entry(struct hwtimer_modify_entry *m, uint64_t id, uint64_t expires)
{
	memset(m, 0, sizeof(*m));
	m->id = id;
	m->expires_ns = expires;
	m->result = 1;			/* must be overwritten, or left */
	m->deadline_ns = 0xdeadbeefULL;
	m->status = 7;
}

/*
 * A MODIFY batch of 40 with a stale id at @bad: without
 * HWTIMER_BATCH_CONTINUE it stops there, the timeouts before it moved and
 * those after it neither moved nor their entries written (the device takes
 * a batch's entries in runs, so this checks that a run ends at a failure);
 * with it, every other entry is done.
 */
TEST_F(hwt, modify_run_stops_at_failed_entry)
{
	const unsigned int n = 40, bad[] = { 0, 1, 7, 15, 16, 39 };
	struct hwtimer_modify_entry m[40];
	uint32_t done, failed;
	uint64_t ids[40];
	unsigned int b, k;

	HWT_NEED_DEV();
	for (b = 0; b < ARRAY_SIZE(bad); b++) {
		arm_n(_metadata, self->fd, n, ARMED_NS, ids);
		for (k = 0; k < n; k++)
			modify_entry(&m[k], k == bad[b] ? ids[k] + 1000000 : ids[k], MOVED_NS);
		ASSERT_EQ(-ENOENT, ht_batch(self->fd, HWTIMER_IOC_MODIFY, m, n, 0, &done, &failed));
		ASSERT_EQ(bad[b] + 1, done);
		ASSERT_EQ(1, failed);
		for (k = 0; k < n; k++) {
			if (k < bad[b]) {
				ASSERT_EQ(0, m[k].result) TH_LOG("entry %u, bad %u", k, bad[b]);
				ASSERT_EQ(HWTIMER_STATUS_PENDING, m[k].status);
				ASSERT_TRUE(moved(self->fd, ids[k], MOVED_NS / 2))
					TH_LOG("entry %u before bad %u not moved", k, bad[b]);
			} else if (k == bad[b]) {
				ASSERT_EQ(-ENOENT, m[k].result);
				ASSERT_EQ(0, m[k].status);
				ASSERT_EQ(0, m[k].deadline_ns);
			} else {
				ASSERT_EQ(1, m[k].result)
					TH_LOG("entry %u after bad %u written", k, bad[b]);
				ASSERT_EQ(0xdeadbeefULL, m[k].deadline_ns);
				ASSERT_EQ(7, m[k].status);
				ASSERT_FALSE(moved(self->fd, ids[k], MOVED_NS / 2))
					TH_LOG("entry %u after bad %u moved", k, bad[b]);
			}
		}

		for (k = 0; k < n; k++)
			modify_entry(&m[k], k == bad[b] ? ids[k] + 1000000 : ids[k], MOVED2_NS);
		ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_MODIFY, m, n, HWTIMER_BATCH_CONTINUE,
				      &done, &failed));
		ASSERT_EQ(n, done);
		ASSERT_EQ(1, failed);
		for (k = 0; k < n; k++) {
			ASSERT_EQ(k == bad[b] ? -ENOENT : 0, m[k].result)
				TH_LOG("entry %u, bad %u, continue", k, bad[b]);
			if (k != bad[b])
				ASSERT_TRUE(moved(self->fd, ids[k], (MOVED_NS + MOVED2_NS) / 2));
		}
	}
}

/*
 * A MODIFY batch whose entry @bad has its outputs from @cut on in a
 * read-only page: EFAULT, the timeouts before it moved, it and those
 * after it not.
 */
TEST_F(hwt, modify_run_stops_at_readonly_entry)
{
	static const size_t cut[] = {
		offsetof(struct hwtimer_modify_entry, result),
		offsetof(struct hwtimer_modify_entry, deadline_ns),
		offsetof(struct hwtimer_modify_entry, status),
	};
	const unsigned int n = 40, bad[] = { 0, 1, 9, 16, 31 };
	long page = sysconf(_SC_PAGESIZE);
	struct hwtimer_modify_entry *m;
	uint32_t done, failed;
	unsigned int c, b, k;
	uint64_t ids[40];
	char *map;

	HWT_NEED_DEV();
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	for (c = 0; c < ARRAY_SIZE(cut); c++) {
		for (b = 0; b < ARRAY_SIZE(bad); b++) {
			arm_n(_metadata, self->fd, n, ARMED_NS, ids);
			ASSERT_EQ(0, mprotect(map, 2 * page, PROT_READ | PROT_WRITE));
			m = (struct hwtimer_modify_entry *)(map + page - cut[c]) - bad[b];
			for (k = 0; k < n; k++)
				modify_entry(&m[k], ids[k], MOVED_NS);
			ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));
			ASSERT_EQ(-EFAULT, ht_batch(self->fd, HWTIMER_IOC_MODIFY, m, n, 0,
						    &done, &failed))
				TH_LOG("entry %u cut at %zu: not EFAULT", bad[b], cut[c]);
			ASSERT_EQ(bad[b], done) TH_LOG("cut at %zu", cut[c]);
			ASSERT_EQ(0, failed);
			for (k = 0; k < n; k++) {
				ASSERT_EQ(k < bad[b], moved(self->fd, ids[k], MOVED_NS / 2))
					TH_LOG("entry %u, bad %u cut at %zu", k, bad[b], cut[c]);
				if (k > bad[b])
					ASSERT_EQ(1, m[k].result);
			}
		}
	}
	munmap(map, 2 * page);
}

/*
 * Usercopy fault injection (/proc/thread-self/fail-nth, fail_usercopy):
 * make the @nth user copy of the next system call fail. Returns false
 * where the kernel cannot inject such faults.
 */
static bool fail_nth(unsigned int nth)
{
	static int fd = -2;
	char buf[16];
	int len;

	if (fd == -2) {
		/* Injected faults print nothing to the kernel log. */
		write_file("/sys/kernel/debug/fail_usercopy/verbose", "0");
		fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	}
	if (fd < 0 || access("/sys/kernel/debug/fail_usercopy", F_OK))
		return false;
	len = snprintf(buf, sizeof(buf), "%u", nth);
	return pwrite(fd, buf, len, 0) == len;
}

static void fail_nth_off(void)
{
	fail_nth(0);
}

/*
 * Whatever user copy of a MODIFY, CANCEL or ARM call fails, the call is
 * exact: an entry that done does not count was not acted on, one it
 * counts was: no MODIFY moves the timeout and then fails to write its
 * outputs back, returning EFAULT with done 0.
 */
TEST_F(hwt, fault_injected_writeback_exact)
{
	struct hwtimer_modify_entry m;
	struct hwtimer_cancel_entry c;
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;
	struct hwtimer_info info;
	uint64_t id, dl, next;
	uint32_t done;
	unsigned int nth, faults = 0;
	int ret;

	HWT_NEED_DEV();
	if (!fail_nth(0))
		SKIP(return, "no usercopy fault injection (CONFIG_FAULT_INJECTION_USERCOPY, debugfs)");
	ASSERT_EQ(0, ht_arm(self->fd, 1, 3600000 * MS, 0, 0, &id));
	ASSERT_EQ(0, ht_get(self->fd, id, &g));
	dl = g.deadline_ns;

	/* MODIFY: moved if and only if counted done. */
	for (nth = 1; nth < 64; nth++) {
		next = now_ns() + (7200000 + nth) * MS;
		memset(&m, 0, sizeof(m));
		m.id = id;
		m.expires_ns = next;
		m.flags = HWTIMER_TIMEOUT_ABS;
		done = 0xdead;
		fail_nth(nth);
		ret = ht_batch(self->fd, HWTIMER_IOC_MODIFY, &m, 1, 0, &done, NULL);
		fail_nth_off();
		ASSERT_EQ(0, ht_get(self->fd, id, &g));
		if (!ret) {
			ASSERT_EQ(next, g.deadline_ns);
			ASSERT_EQ(next, m.deadline_ns);
			break;
		}
		faults++;
		ASSERT_EQ(-EFAULT, ret) TH_LOG("fault %u", nth);
		ASSERT_EQ(dl, g.deadline_ns)
			TH_LOG("fault %u: MODIFY failed (done %u) but moved the timeout", nth, done);
	}
	ASSERT_LT(nth, 64);

	/* CANCEL: gone if and only if counted done. */
	for (nth = 1; nth < 64; nth++) {
		memset(&c, 0, sizeof(c));
		c.id = id;
		fail_nth(nth);
		ret = ht_batch(self->fd, HWTIMER_IOC_CANCEL, &c, 1, 0, &done, NULL);
		fail_nth_off();
		if (!ret) {
			ASSERT_EQ(-ENOENT, ht_get(self->fd, id, &g));
			break;
		}
		faults++;
		ASSERT_EQ(0, ht_get(self->fd, id, &g)) TH_LOG("fault %u: CANCEL failed but cancelled", nth);
	}
	ASSERT_LT(nth, 64);

	/* ARM: a timeout more if and only if counted done. */
	for (nth = 1; nth < 64; nth++) {
		ht_arm_entry(&a, 2, 3600000 * MS, 0, 0);
		fail_nth(nth);
		ret = ht_batch(self->fd, HWTIMER_IOC_ARM, &a, 1, 0, &done, NULL);
		fail_nth_off();
		ASSERT_EQ(0, ht_info(self->fd, &info));
		if (!ret) {
			ASSERT_EQ(1, info.pending);
			break;
		}
		faults++;
		ASSERT_EQ(0, info.pending) TH_LOG("fault %u: ARM failed but armed", nth);
	}
	ASSERT_LT(nth, 64);
	TH_LOG("%u calls failed by an injected fault, each exact", faults);
}

TEST_F(hwt, write_and_seek_unsupported)
{
	char buf[64] = { 0 };

	HWT_NEED_DEV();
	ASSERT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, lseek(self->fd, 0, SEEK_SET));
	ASSERT_EQ(ESPIPE, errno);
}

TEST_HARNESS_MAIN
