/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the /dev/hwtimer tests (userspace-test/dev_*_test.c).
 * The ht_*() functions wrap the ioctls of include/uapi/linux/hwtimer.h and
 * return 0 or a negative errno value, so tests compare errors directly.
 * (Not hwt_*(): TEST_F(hwt, name) defines a function hwt_name.) What stress
 * and bench need too (the device's path, now_ns(), ht_open(), ht_info(),
 * ht_batch()...) is in tools/include/hwtimer_user.h.
 *
 * Include after kselftest_harness.h. Every test file gets a fixture "hwt"
 * holding an open file of the device and its struct hwtimer_info, and SKIPs
 * when the device is absent.
 */
#ifndef HWTIMER_TEST_H
#define HWTIMER_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>
#include <linux/hwtimer.h>

#include "hwtimer_user.h"

/*
 * The harness's ASSERT_*() compare with the types of both arguments, so
 * ASSERT_EQ(0, some_u64) warns under -Wextra although it is what is meant.
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

/* Generous bound for "it arrives eventually": TCG with KASAN is slow. */
#define HWT_WAIT_MS	5000

/*
 * A relative deadline no test outlives, for a timeout that must still be
 * pending when the test looks at it: a busy host can hold a TCG vCPU for
 * seconds, so a timeout 10 s away may expire between two calls.
 */
#define HWT_FAR_NS	(3600 * SEC)

/* For tests that use threads or select(): see sleep_ns(). */
#define NEED_TIME32()							\
	do {								\
		if (!have_time32_syscalls())				\
			SKIP(return, "-m32 on a kernel without "	\
			     "CONFIG_COMPAT_32BIT_TIME: no futex()");	\
	} while (0)

static inline void ht_arm_entry(struct hwtimer_arm_entry *e, uint64_t cookie,
				 uint64_t expires, uint64_t period, uint32_t flags)
{
	memset(e, 0, sizeof(*e));
	e->cookie = cookie;
	e->expires_ns = expires;
	e->period_ns = period;
	e->flags = flags;
	e->result = 1;			/* must be overwritten */
	e->id = 0xdeadbeefULL;		/* likewise */
}

/* Arm one timeout; returns its result, the ioctl's error if it had none. */
static inline int ht_arm(int fd, uint64_t cookie, uint64_t expires,
			  uint64_t period, uint32_t flags, uint64_t *id)
{
	struct hwtimer_arm_entry e;
	int ret;

	ht_arm_entry(&e, cookie, expires, period, flags);
	ret = ht_batch(fd, HWTIMER_IOC_ARM, &e, 1, 0, NULL, NULL);
	if (id)
		*id = e.id;
	if (ret && e.result != 1)
		return e.result;
	return ret;
}

static inline int ht_cancel(int fd, uint64_t id, uint32_t *status)
{
	struct hwtimer_cancel_entry e = { .id = id, .result = 1 };
	int ret = ht_batch(fd, HWTIMER_IOC_CANCEL, &e, 1, 0, NULL, NULL);

	if (status)
		*status = e.status;
	if (ret && e.result != 1)
		return e.result;
	return ret;
}

static inline int ht_modify(int fd, uint64_t id, uint64_t expires,
			     uint64_t period, uint32_t flags, uint32_t *status)
{
	struct hwtimer_modify_entry e = {
		.id = id,
		.expires_ns = expires,
		.period_ns = period,
		.flags = flags,
		.result = 1,
	};
	int ret = ht_batch(fd, HWTIMER_IOC_MODIFY, &e, 1, 0, NULL, NULL);

	if (status)
		*status = e.status;
	if (ret && e.result != 1)
		return e.result;
	return ret;
}

/* Query one timeout into *@e; returns its result, else the ioctl's error. */
static inline int ht_get(int fd, uint64_t id, struct hwtimer_get_entry *e)
{
	int ret;

	memset(e, 0xa5, sizeof(*e));
	e->id = id;
	e->flags = 0;
	e->reserved = 0;
	e->reserved2 = 0;
	e->result = 1;
	ret = ht_batch(fd, HWTIMER_IOC_GET, e, 1, 0, NULL, NULL);
	if (ret && e->result != 1)
		return e->result;
	return ret;
}

/* HWTIMER_IOC_CONFIG; 0 or -errno. */
static inline int ht_config(int fd, int clockid, uint32_t precision)
{
	struct hwtimer_config c = { .clockid = clockid, .precision = precision };

	return ioctl(fd, HWTIMER_IOC_CONFIG, &c) ? -errno : 0;
}

/*
 * A completion ring mapped as hwtimer(4), RING, says, and consumed the way
 * it says (acquire the tail, release the head).
 */
struct ht_ring {
	struct hwtimer_ring_params p;
	char *map;
	uint32_t *head, *tail, *flags;
	struct hwtimer_expiry *recs;
};

/* HWTIMER_IOC_RING of @entries, mapped; 0 or -errno. */
static inline int ht_ring_setup(int fd, uint32_t entries, struct ht_ring *r)
{
	memset(r, 0, sizeof(*r));
	r->p.entries = entries;
	if (ioctl(fd, HWTIMER_IOC_RING, &r->p))
		return -errno;
	r->map = mmap(NULL, r->p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      HWTIMER_RING_OFF);
	if (r->map == MAP_FAILED)
		return -errno;
	r->head = (uint32_t *)(r->map + r->p.head_off);
	r->tail = (uint32_t *)(r->map + r->p.tail_off);
	r->flags = (uint32_t *)(r->map + r->p.flags_off);
	r->recs = (struct hwtimer_expiry *)(r->map + r->p.records_off);
	return 0;
}

static inline uint32_t ht_ring_tail(struct ht_ring *r)
{
	return __atomic_load_n(r->tail, __ATOMIC_ACQUIRE);
}

/* Records in the ring now. */
static inline uint32_t ht_ring_count(struct ht_ring *r)
{
	return ht_ring_tail(r) - __atomic_load_n(r->head, __ATOMIC_RELAXED);
}

/* Consume up to @max records into @out; returns how many. */
static inline unsigned int ht_ring_reap(struct ht_ring *r, struct hwtimer_expiry *out,
					unsigned int max)
{
	uint32_t head = __atomic_load_n(r->head, __ATOMIC_RELAXED);
	uint32_t tail = ht_ring_tail(r);
	unsigned int n = 0;

	while (head != tail && n < max) {
		if (out)
			out[n] = r->recs[head & (r->p.entries - 1)];
		n++;
		head++;
	}
	__atomic_store_n(r->head, head, __ATOMIC_RELEASE);
	return n;
}

/* Wait up to @ms for the ring to hold @want records; returns how many it holds. */
static inline uint32_t ht_ring_wait(int fd, struct ht_ring *r, uint32_t want, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000;

	while (ht_ring_count(r) < want && now_ns() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		poll(&p, 1, 10);
	}
	return ht_ring_count(r);
}

/* Wait up to @ms for a record; returns poll()'s revents (0 on timeout). */
static inline int ht_wait(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDNORM };
	int n;

	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	return n > 0 ? p.revents : 0;
}

/* read() up to @max records: the number read, or -errno. */
static inline int ht_read(int fd, struct hwtimer_expiry *recs, unsigned int max)
{
	ssize_t n = read(fd, recs, max * sizeof(*recs));

	if (n < 0)
		return -errno;
	if (n % sizeof(*recs))
		return -EPROTO;
	return n / sizeof(*recs);
}

/* Wait for and read exactly @want records, each within HWT_WAIT_MS. */
static inline int ht_read_n(int fd, struct hwtimer_expiry *recs, unsigned int want)
{
	unsigned int got = 0;
	int n;

	while (got < want) {
		if (!ht_wait(fd, HWT_WAIT_MS))
			return got;
		n = ht_read(fd, recs + got, want - got);
		if (n == -EAGAIN)
			continue;
		if (n < 0)
			return n;
		got += n;
	}
	return got;
}

/* A number from /proc/self/fdinfo/@fd, or -1. */
static inline long long ht_fdinfo(int fd, const char *key)
{
	char path[64], k[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	snprintf(k, sizeof(k), "%s:", key);
	return read_key(path, k);
}

/* Read or write a module parameter of hwtimer. */
static inline long long ht_param_get(const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), HWT_PARAMS "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static inline int ht_param_set(const char *name, long long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), HWT_PARAMS "%s", name);
	snprintf(val, sizeof(val), "%lld\n", v);
	return write_file(path, val);
}

/* The fixture every test file uses (each includes this header once). */
FIXTURE(hwt) {
	int fd;
	struct hwtimer_info info;
};

FIXTURE_SETUP(hwt)
{
	self->fd = ht_open(0);
	if (self->fd < 0 && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		SKIP(return, "%s: %s (hwtimer.ko not loaded)", HWT_DEV, strerror(errno));
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", HWT_DEV, strerror(errno));
	ASSERT_EQ(0, ht_info(self->fd, &self->info));
	/*
	 * The module has every capability the program was built to test
	 * (dev_ioctl_test's info test checks it has no other).
	 */
	ASSERT_EQ(HWT_FEATURES, self->info.features & HWT_FEATURES);
}

FIXTURE_TEARDOWN(hwt)
{
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * In the 6.1 harness a SKIP in FIXTURE_SETUP still runs the test body, so
 * each test also starts with this.
 */
#define HWT_NEED_DEV()							\
	do {								\
		if (self->fd < 0)					\
			SKIP(return, "%s is absent", HWT_DEV);		\
	} while (0)

#endif /* HWTIMER_TEST_H */
