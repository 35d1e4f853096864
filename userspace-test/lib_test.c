// SPDX-License-Identifier: GPL-2.0
/*
 * libhwtimer against the real device: every promise of the section 3
 * pages that the device can show (docs/man3/), 64 and 32-bit. The ring
 * tests SKIP only when the module has no ring at all (HWTIMER_IOC_RING
 * unknown to it: hwtimer_file_setup_ring() says -EOPNOTSUPP); the
 * library's side of the ring against a kernel that misbehaves is
 * lib_mock_test's.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hwtimer_user.h"
#include "libhwtimer.h"
#include "libhwtimer_test.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

/* Generous bound for "it arrives eventually": TCG with KASAN is slow. */
#define WAIT_MS		5000
/*
 * A relative deadline no test outlives, for a timeout that must still be
 * pending when the test looks: a busy host can hold a TCG vCPU for seconds.
 */
#define FAR_NS		(3600 * SEC)

FIXTURE(lib) {
	struct hwtimer_file *f;
	struct hwtimer_info info;
};

FIXTURE_SETUP(lib)
{
	self->f = hwtimer_file_open(NULL, 0);
	if (!self->f && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		SKIP(return, "%s: %s (hwtimer.ko not loaded)", HWT_DEV, strerror(errno));
	ASSERT_TRUE(self->f != NULL) TH_LOG("hwtimer_file_open: %s", strerror(errno));
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
}

FIXTURE_TEARDOWN(lib)
{
	hwtimer_file_close(self->f);
}

/* In the 6.1 harness a SKIP in FIXTURE_SETUP still runs the test body. */
#define NEED_DEV()							\
	do {								\
		if (!self->f)						\
			SKIP(return, "%s is absent", HWT_DEV);		\
	} while (0)

/* A ring, or SKIP when the module has none. */
#define NEED_RING(entries)						\
	do {								\
		int __r = hwtimer_file_setup_ring(self->f, entries);	\
		if (__r == -EOPNOTSUPP)					\
			SKIP(return, "the module has no ring (%#x)",	\
			     hwtimer_file_features(self->f));		\
		ASSERT_EQ(0, __r) TH_LOG("setup_ring(%u): %s",	\
					  (unsigned int)(entries), strerror(-__r)); \
	} while (0)

/*
 * Reap until @want records came (or WAIT_MS passed without one), with
 * hwtimer_file_wait() (@mode 0), reap after poll() (1) or peek/advance
 * a few at a time (2); each must be a timeout of @ids, none twice, none
 * early. Returns the number reaped.
 */
static size_t reap_all(struct __test_metadata *_metadata, struct hwtimer_file *f,
		       const uint64_t *ids, size_t want, int mode)
{
	struct hwtimer_expiry recs[16];
	unsigned char *seen = calloc(want, 1);
	size_t got = 0, i, k;
	ssize_t n;

	EXPECT_TRUE(seen != NULL);
	if (!seen)
		return 0;
	while (got < want) {
		const struct hwtimer_expiry *p = recs;

		if (mode == 0) {
			n = hwtimer_file_wait(f, recs, 16, WAIT_MS);
		} else if (mode == 1) {
			struct pollfd pfd = { .fd = hwtimer_file_fd(f), .events = POLLIN };

			if (poll(&pfd, 1, WAIT_MS) != 1)
				break;
			n = hwtimer_file_reap(f, recs, 16);
		} else {
			n = hwtimer_file_wait(f, NULL, 0, WAIT_MS);
			if (n > 0)
				n = hwtimer_file_peek(f, &p);
			if (n > 3)
				n = 3;
		}
		EXPECT_LE(0, n) TH_LOG("reaping: %s", strerror(-n));
		if (n <= 0)
			break;
		for (k = 0; k < (size_t)n; k++) {
			EXPECT_GE(p[k].expired_ns, p[k].deadline_ns)
				TH_LOG("record of cookie %llu expired early",
				       (unsigned long long)p[k].cookie);
			for (i = 0; i < want && ids[i] != p[k].id; i++)
				;
			EXPECT_LT(i, want) TH_LOG("record of an unknown id %llu",
						  (unsigned long long)p[k].id);
			if (i == want)
				continue;
			EXPECT_EQ(i, p[k].cookie) TH_LOG("id %llu came with cookie %llu, not %zu",
				(unsigned long long)p[k].id, (unsigned long long)p[k].cookie, i);
			EXPECT_EQ(0, seen[i]) TH_LOG("two records of timeout %zu", i);
			seen[i] = 1;
		}
		if (mode == 2)
			hwtimer_file_advance(f, n);
		got += n;
	}
	free(seen);
	return got;
}

/* Arm @n one-shot timeouts due at once (cookie i), their ids into @ids. */
static void arm_due(struct __test_metadata *_metadata, struct hwtimer_file *f,
		    uint64_t *ids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ASSERT_EQ(0, hwtimer_file_arm(f, i, 0, 0, 0, &ids[i]));
}

TEST(open_errors)
{
	struct hwtimer_file *f;

	errno = 0;
	EXPECT_TRUE(hwtimer_file_open(NULL, 1) == NULL);
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_TRUE(hwtimer_file_open("/nonexistent/hwtimer", 0) == NULL);
	EXPECT_EQ(ENOENT, errno);
	/* Not the device: its INFO ioctl is unknown there. */
	errno = 0;
	f = hwtimer_file_open("/dev/null", 0);
	EXPECT_TRUE(f == NULL);
	EXPECT_EQ(ENOTTY, errno);
	hwtimer_file_close(f);
	hwtimer_file_close(NULL);	/* does nothing */
}

TEST(errno_open_close)
{
	struct hwtimer_file *f;
	uint64_t id;

	errno = ERRNO_MARK;
	f = hwtimer_file_open(NULL, 0);
	if (!f && (errno == ENOENT || errno == ENODEV || errno == ENXIO))
		SKIP(return, "%s: %s (hwtimer.ko not loaded)", HWT_DEV, strerror(errno));
	ASSERT_TRUE(f != NULL) TH_LOG("hwtimer_file_open: %s", strerror(errno));
	EXPECT_EQ(ERRNO_MARK, errno) TH_LOG("a successful open changed errno to %d (%s)",
					    errno, strerror(errno));
	ASSERT_EQ(0, hwtimer_file_arm(f, 1, 10 * SEC, 0, 0, &id));
	errno = ERRNO_MARK;
	hwtimer_file_close(f);
	EXPECT_EQ(ERRNO_MARK, errno) TH_LOG("hwtimer_file_close changed errno to %d (%s)",
					    errno, strerror(errno));
}

TEST_F(lib, errno_kept)
{
	struct hwtimer_cancel_entry can[2] = { { .id = 0 }, { .id = 0 } };
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[4];
	struct hwtimer_batch_result r;
	struct hwtimer_get_entry g;
	uint64_t id, dl;

	NEED_DEV();
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_configure(self->f, CLOCK_REALTIME, 0));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0));
	/* Nothing queued: read() says EAGAIN, the library 0. */
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_reap(self->f, recs, 4));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_peek(self->f, &p));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_wait(self->f, recs, 4, 0));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_wait(self->f, recs, 4, 10));
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_arm(self->f, 1, SEC, 0, 1U << 31, &id));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_arm(self->f, 1, 10 * SEC, 0, 0, &id));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_get(self->f, id, &g));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_get(self->f, id + 1000, &g));
	EXPECT_KEEPS_ERRNO(HWTIMER_STATUS_PENDING,
			   hwtimer_file_modify(self->f, id, 20 * SEC, 0, 0, &dl));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_modify(self->f, id + 1000, SEC, 0, 0, &dl));
	EXPECT_KEEPS_ERRNO(-EBUSY, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0));
	EXPECT_KEEPS_ERRNO(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(self->f, id));
	/* The cancel of an unknown id of the audit: -ENOENT, errno kept. */
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_cancel(self->f, id));
	can[0].id = id;
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_cancel_batch(self->f, can, 2, 0, &r));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_cancel_batch(self->f, can, 2,
							HWTIMER_BATCH_CONTINUE, &r));
	EXPECT_EQ(2, r.failed);
	/* Records through read(), then the ring. */
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_arm(self->f, 2, 0, 0, 0, &id));
	EXPECT_KEEPS_ERRNO(1, hwtimer_file_wait(self->f, recs, 4, WAIT_MS));
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_setup_ring(self->f, 0));
	NEED_RING(8);
	EXPECT_KEEPS_ERRNO(-EBUSY, hwtimer_file_setup_ring(self->f, 8));
	EXPECT_KEEPS_ERRNO(8, hwtimer_file_ring_entries(self->f));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_arm(self->f, 3, 0, 0, 0, &id));
	EXPECT_KEEPS_ERRNO(1, hwtimer_file_wait(self->f, NULL, 0, WAIT_MS));
	EXPECT_KEEPS_ERRNO(1, hwtimer_file_peek(self->f, &p));
	errno = ERRNO_MARK;
	hwtimer_file_advance(self->f, 1);
	EXPECT_EQ(ERRNO_MARK, errno) TH_LOG("hwtimer_file_advance changed errno to %d", errno);
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_reap(self->f, recs, 4));
}

TEST_F(lib, open_info)
{
	int fd, fl;

	NEED_DEV();
	fd = hwtimer_file_fd(self->f);
	ASSERT_LE(0, fd);
	fl = fcntl(fd, F_GETFL);
	EXPECT_TRUE(fl & O_NONBLOCK) TH_LOG("the file is not non-blocking");
	EXPECT_EQ(O_RDWR, fl & O_ACCMODE);
	EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC) TH_LOG("the file is not close-on-exec");
	EXPECT_EQ(self->info.features, hwtimer_file_features(self->f));
	EXPECT_EQ(HWT_FEATURES, self->info.features);
	EXPECT_EQ(sizeof(struct hwtimer_expiry), self->info.record_size);
	EXPECT_EQ(0, hwtimer_file_ring_entries(self->f));
}

TEST_F(lib, arm_get_cancel_one)
{
	struct hwtimer_get_entry g;
	uint64_t id = 0, t0;

	NEED_DEV();
	t0 = now_ns();
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 42, FAR_NS, 0, 0, &id));
	EXPECT_NE(0, id);
	memset(&g, 0xa5, sizeof(g));
	ASSERT_EQ(0, hwtimer_file_get(self->f, id, &g));
	EXPECT_EQ(id, g.id);
	EXPECT_EQ(0, g.result);
	EXPECT_EQ(HWTIMER_STATUS_PENDING, g.status);
	EXPECT_EQ(42, g.cookie);
	EXPECT_GE(g.deadline_ns, t0 + FAR_NS);
	EXPECT_LE(g.deadline_ns, now_ns() + FAR_NS);
	EXPECT_EQ(0, g.period_ns);
	EXPECT_EQ(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(self->f, id));
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel(self->f, id));
	memset(&g, 0xa5, sizeof(g));
	EXPECT_EQ(-ENOENT, hwtimer_file_get(self->f, id, &g));
	EXPECT_EQ(-ENOENT, g.result);
	EXPECT_EQ(0, g.status);
	/* An id never handed out. */
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel(self->f, id + 1000));
}

TEST_F(lib, arm_errors)
{
	uint64_t id = 7;

	NEED_DEV();
	/* A period shorter than a tick, an unknown flag, a deadline past INT64_MAX. */
	EXPECT_EQ(-EINVAL, hwtimer_file_arm(self->f, 1, SEC, self->info.tick_ns - 1, 0, &id));
	EXPECT_EQ(-EINVAL, hwtimer_file_arm(self->f, 1, SEC, 0, 1U << 31, &id));
	EXPECT_EQ(-EINVAL, hwtimer_file_arm(self->f, 1, (uint64_t)INT64_MAX + 1,
					    0, HWTIMER_TIMEOUT_ABS, &id));
	EXPECT_EQ(7, id) TH_LOG("a failed arm wrote the id");
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.pending);
}

TEST_F(lib, modify_one)
{
	uint64_t id, dl = 0, t0;

	NEED_DEV();
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 1, FAR_NS, 0, 0, &id));
	t0 = now_ns();
	EXPECT_EQ(HWTIMER_STATUS_PENDING,
		  hwtimer_file_modify(self->f, id, 2 * FAR_NS, 0, 0, &dl));
	EXPECT_GE(dl, t0 + 2 * FAR_NS);
	EXPECT_LE(dl, now_ns() + 2 * FAR_NS);
	/* Absolute, and the deadline pointer may be NULL. */
	EXPECT_EQ(HWTIMER_STATUS_PENDING,
		  hwtimer_file_modify(self->f, id, t0 + 3 * FAR_NS, 0, HWTIMER_TIMEOUT_ABS, NULL));
	EXPECT_EQ(-EINVAL, hwtimer_file_modify(self->f, id, SEC, 0, 1U << 30, &dl));
	EXPECT_EQ(-ENOENT, hwtimer_file_modify(self->f, id + 1000, SEC, 0, 0, &dl));
	EXPECT_EQ(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(self->f, id));
	EXPECT_EQ(-ENOENT, hwtimer_file_modify(self->f, id, SEC, 0, 0, &dl));
}

/* A cancel and a modify of a timeout whose record is queued, unread. */
TEST_F(lib, cancel_modify_expired)
{
	struct hwtimer_expiry rec;
	uint64_t id, id2;

	NEED_DEV();
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 1, 0, 0, 0, &id));
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 2, 0, 0, 0, &id2));
	/* Both are due at once; once one is queued the other is too. */
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(2, self->info.queued);
	EXPECT_EQ(HWTIMER_STATUS_EXPIRED, hwtimer_file_cancel(self->f, id));
	EXPECT_EQ(HWTIMER_STATUS_EXPIRED, hwtimer_file_modify(self->f, id2, FAR_NS, 0, 0, NULL));
	/* Neither record is ever read. */
	EXPECT_EQ(0, hwtimer_file_wait(self->f, &rec, 1, 100));
	EXPECT_EQ(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(self->f, id2));
}

/* Batches larger than HWTIMER_BATCH_MAX: sliced, totals exact. */
TEST_F(lib, batch_any_size)
{
	size_t n = 2 * HWTIMER_BATCH_MAX + 100, i;
	struct hwtimer_arm_entry *arm = calloc(n, sizeof(*arm));
	struct hwtimer_cancel_entry *can = calloc(n, sizeof(*can));
	struct hwtimer_modify_entry *mod = calloc(n, sizeof(*mod));
	struct hwtimer_get_entry *get = calloc(n, sizeof(*get));
	struct hwtimer_batch_result r;

	NEED_DEV();
	ASSERT_TRUE(arm && can && mod && get);
	for (i = 0; i < n; i++) {
		arm[i].cookie = i;
		arm[i].expires_ns = 100 * SEC + i;
		arm[i].result = 1;
	}
	memset(&r, 0xa5, sizeof(r));
	ASSERT_EQ(0, hwtimer_file_arm_batch(self->f, arm, n, 0, &r));
	EXPECT_EQ(n, r.done);
	EXPECT_EQ(0, r.failed);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, arm[i].result);
		EXPECT_NE(0, arm[i].id);
		if (i)
			EXPECT_NE(arm[i - 1].id, arm[i].id);
		mod[i].id = arm[i].id;
		mod[i].expires_ns = 200 * SEC;
		get[i].id = arm[i].id;
		can[i].id = arm[i].id;
	}
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(n, self->info.pending);
	ASSERT_EQ(0, hwtimer_file_modify_batch(self->f, mod, n, 0, &r));
	EXPECT_EQ(n, r.done);
	ASSERT_EQ(0, hwtimer_file_get_batch(self->f, get, n, 0, &r));
	EXPECT_EQ(n, r.done);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(HWTIMER_STATUS_PENDING, mod[i].status);
		EXPECT_EQ(i, get[i].cookie);
		EXPECT_EQ(mod[i].deadline_ns, get[i].deadline_ns);
	}
	ASSERT_EQ(0, hwtimer_file_cancel_batch(self->f, can, n, 0, &r));
	EXPECT_EQ(n, r.done);
	EXPECT_EQ(0, r.failed);
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.pending);
	/* Nothing to do is no error; an unknown batch flag is. */
	memset(&r, 0xa5, sizeof(r));
	EXPECT_EQ(0, hwtimer_file_cancel_batch(self->f, can, 0, 0, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, r.failed);
	memset(&r, 0xa5, sizeof(r));
	EXPECT_EQ(-EINVAL, hwtimer_file_cancel_batch(self->f, can, n, 1U << 7, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, r.failed);
	/* The result may be NULL. */
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel_batch(self->f, can, 1, 0, NULL));
	free(arm);
	free(can);
	free(mod);
	free(get);
}

/*
 * An entry that fails in the second slice: without HWTIMER_BATCH_CONTINUE
 * the batch stops there with its error, done counting it; later entries
 * are not looked at. With it, every entry is processed.
 */
TEST_F(lib, batch_stop_and_continue)
{
	size_t n = HWTIMER_BATCH_MAX + 500, bad = HWTIMER_BATCH_MAX + 100, i;
	struct hwtimer_arm_entry *arm = calloc(n, sizeof(*arm));
	struct hwtimer_cancel_entry *can = calloc(n, sizeof(*can));
	struct hwtimer_batch_result r;

	NEED_DEV();
	ASSERT_TRUE(arm && can);
	for (i = 0; i < n; i++) {
		arm[i].expires_ns = 100 * SEC;
		arm[i].result = 1;
	}
	arm[bad].flags = 1U << 20;
	ASSERT_EQ(-EINVAL, hwtimer_file_arm_batch(self->f, arm, n, 0, &r));
	EXPECT_EQ(bad + 1, r.done);
	EXPECT_EQ(1, r.failed);
	EXPECT_EQ(-EINVAL, arm[bad].result);
	EXPECT_EQ(0, arm[bad - 1].result);
	EXPECT_EQ(1, arm[bad + 1].result) TH_LOG("an entry after the failed one was processed");
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(bad, self->info.pending);
	for (i = 0; i < bad; i++)
		can[i].id = arm[i].id;
	ASSERT_EQ(0, hwtimer_file_cancel_batch(self->f, can, bad, 0, &r));

	for (i = 0; i < n; i++)
		arm[i].result = 1;
	ASSERT_EQ(0, hwtimer_file_arm_batch(self->f, arm, n, HWTIMER_BATCH_CONTINUE, &r));
	EXPECT_EQ(n, r.done);
	EXPECT_EQ(1, r.failed);
	EXPECT_EQ(-EINVAL, arm[bad].result);
	EXPECT_EQ(0, arm[bad + 1].result);
	/* Cancel all, the failed one's id with them: ENOENT, counted, nothing else. */
	for (i = 0; i < n; i++)
		can[i].id = i == bad ? 1 : arm[i].id;
	ASSERT_EQ(0, hwtimer_file_cancel_batch(self->f, can, n, HWTIMER_BATCH_CONTINUE, &r));
	EXPECT_EQ(n, r.done);
	EXPECT_EQ(1, r.failed);
	EXPECT_EQ(-ENOENT, can[bad].result);
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.pending);
	free(arm);
	free(can);
}

/* No ring: records come through read(), each once, by every way of reaping. */
TEST_F(lib, reap_without_ring)
{
	uint64_t ids[40];
	int mode;

	NEED_DEV();
	for (mode = 0; mode < 3; mode++) {
		arm_due(_metadata, self->f, ids, 40);
		EXPECT_EQ(40, reap_all(_metadata, self->f, ids, 40, mode))
			TH_LOG("mode %d", mode);
	}
	EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.queued);
}

TEST_F(lib, peek_advance)
{
	const struct hwtimer_expiry *p, *q;
	uint64_t ids[10], first;
	ssize_t n;

	NEED_DEV();
	arm_due(_metadata, self->f, ids, 10);
	n = hwtimer_file_wait(self->f, NULL, 0, WAIT_MS);
	ASSERT_LT(0, n);
	n = hwtimer_file_peek(self->f, &p);
	ASSERT_LT(1, n) TH_LOG("10 records are queued, peek gave %zd", n);
	first = p[0].id;
	/* Peek again without advancing: the same records. */
	ASSERT_EQ(n, hwtimer_file_peek(self->f, &q));
	EXPECT_EQ(first, q[0].id);
	hwtimer_file_advance(self->f, 1);
	ASSERT_LT(0, hwtimer_file_peek(self->f, &q));
	EXPECT_NE(first, q[0].id);
	/* Advancing more than was peeked consumes only what was. */
	n = hwtimer_file_peek(self->f, &q);
	hwtimer_file_advance(self->f, 1000);
	hwtimer_file_advance(self->f, 1);	/* nothing peeked: does nothing */
	EXPECT_EQ(10, reap_all(_metadata, self->f, ids, 10, 2) + 1 + n)
		TH_LOG("records lost or repeated around advance()");
}

TEST_F(lib, wait_timeout)
{
	struct hwtimer_expiry rec;
	uint64_t t0, id;

	NEED_DEV();
	t0 = now_ns();
	EXPECT_EQ(0, hwtimer_file_wait(self->f, &rec, 1, 0));
	EXPECT_EQ(0, hwtimer_file_wait(self->f, &rec, 1, 50));
	EXPECT_GE(now_ns() - t0, 50 * MS);
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 9, 20 * MS, 0, 0, &id));
	t0 = now_ns();
	EXPECT_EQ(1, hwtimer_file_wait(self->f, &rec, 1, -1));
	EXPECT_EQ(id, rec.id);
	EXPECT_EQ(9, rec.cookie);
	EXPECT_GE(rec.expired_ns, rec.deadline_ns);
	EXPECT_LE(rec.deadline_ns, now_ns());
	EXPECT_EQ(0, hwtimer_file_reap(self->f, &rec, 1));
}

TEST_F(lib, configure)
{
	uint64_t id;

	NEED_DEV();
	EXPECT_EQ(-EINVAL, hwtimer_file_configure(self->f, CLOCK_REALTIME, 0));
	EXPECT_EQ(-EINVAL, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 3));
	ASSERT_EQ(0, hwtimer_file_configure(self->f, CLOCK_BOOTTIME, HWTIMER_PRECISION_FINE));
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(HWTIMER_PRECISION_FINE, self->info.precision);
	EXPECT_EQ(CLOCK_BOOTTIME, self->info.clockid);
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 1, FAR_NS, 0, 0, &id));
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0));
	EXPECT_EQ(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(self->f, id));
	EXPECT_EQ(0, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0));
}

/*
 * hwtimer_file_configure() refuses while a record is not yet reaped, also
 * where the kernel no longer counts it: in the library's buffer (what
 * read() returned), in the ring.
 */
TEST_F(lib, configure_records_not_reaped)
{
	const struct hwtimer_expiry *p;
	uint64_t ids[3];

	NEED_DEV();
	arm_due(_metadata, self->f, ids, 3);
	ASSERT_EQ(3, hwtimer_file_wait(self->f, NULL, 0, WAIT_MS));
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.queued) TH_LOG("the peek left records in the kernel");
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(self->f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with 3 records in the library's buffer, not yet reaped");
	hwtimer_file_advance(self->f, 2);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(self->f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with 1 record in the library's buffer, not yet reaped");
	hwtimer_file_advance(self->f, 1);
	EXPECT_EQ(0, hwtimer_file_configure(self->f, CLOCK_BOOTTIME, 0));

	NEED_RING(8);
	arm_due(_metadata, self->f, ids, 1);
	ASSERT_EQ(1, hwtimer_file_wait(self->f, NULL, 0, WAIT_MS));
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(0, self->info.queued + self->info.pending)
		TH_LOG("the record is not in the ring");
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0))
		TH_LOG("configured with a record in the ring, not yet reaped");
	ASSERT_EQ(1, hwtimer_file_peek(self->f, &p));
	EXPECT_EQ(ids[0], p[0].id);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0))
		TH_LOG("configured with a record peeked in the ring, not advanced over");
	hwtimer_file_advance(self->f, 1);
	EXPECT_EQ(0, hwtimer_file_configure(self->f, CLOCK_MONOTONIC, 0));
	ASSERT_EQ(0, hwtimer_file_info(self->f, &self->info));
	EXPECT_EQ(CLOCK_MONOTONIC, self->info.clockid)
		TH_LOG("the clock is not CLOCK_MONOTONIC again");
}

/*
 * hwtimer_file_open(3), NOTES: the reaping functions never block, whatever
 * the caller does to O_NONBLOCK. The calls run in a child, which the test
 * ends if one of them has not returned after WAIT_MS (one that does not
 * block returns at once; one that blocks never does, nothing being armed).
 */
static const char *const nonblock_steps[] = {
	"hwtimer_file_reap", "hwtimer_file_peek", "hwtimer_file_wait(max 16, 0 ms)",
	"hwtimer_file_wait(max 0, 0 ms)",
};

#define NONBLOCK_STEPS	4

/* Step @step, in the child: 0, as nothing is ready. */
static ssize_t nonblock_call(struct hwtimer_file *f, int step)
{
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[16];

	if (step == 0)
		return hwtimer_file_reap(f, recs, 16);
	if (step == 1)
		return hwtimer_file_peek(f, &p);
	if (step == 2)
		return hwtimer_file_wait(f, recs, 16, 0);
	return hwtimer_file_wait(f, NULL, 0, 0);
}

/* The child: the step it is in at *@step; exits 1 + step when one fails. */
static int nonblock_child(struct hwtimer_file *f, int *step)
{
	int fd = hwtimer_file_fd(f), i;

	for (i = 0; i < NONBLOCK_STEPS; i++) {
		__atomic_store_n(step, i, __ATOMIC_SEQ_CST);
		if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
			return 100;
		if (nonblock_call(f, i))
			return 1 + i;
	}
	return 0;
}

TEST_F(lib, nonblocking_whatever_the_caller_does)
{
	bool blocked = false;
	int status, *step, s;
	uint64_t t0;
	pid_t pid;

	NEED_DEV();
	step = mmap(NULL, sizeof(*step), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_TRUE(step != MAP_FAILED);
	*step = -1;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(nonblock_child(self->f, step));
	t0 = now_ns();
	while (!blocked && waitpid(pid, &status, WNOHANG) == 0) {
		blocked = now_ns() - t0 > WAIT_MS * MS;
		usleep(10000);
	}
	if (blocked) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		s = __atomic_load_n(step, __ATOMIC_SEQ_CST);
		ASSERT_TRUE(s >= 0 && s < NONBLOCK_STEPS);
		EXPECT_FALSE(blocked)
			TH_LOG("%s blocked for %d ms, nothing ready, O_NONBLOCK cleared",
			       nonblock_steps[s], WAIT_MS);
		return;
	}
	ASSERT_TRUE(WIFEXITED(status));
	s = WEXITSTATUS(status);
	EXPECT_EQ(0, s) TH_LOG("%s returned records, or an error, with none ready",
			       s == 100 ? "fcntl" : nonblock_steps[(s - 1) % NONBLOCK_STEPS]);
	munmap(step, sizeof(*step));
}

TEST_F(lib, ring_setup)
{
	NEED_DEV();
	EXPECT_EQ(-EINVAL, hwtimer_file_setup_ring(self->f, 0));
	EXPECT_EQ(-EINVAL, hwtimer_file_setup_ring(self->f, HWTIMER_RING_MAX + 1));
	EXPECT_EQ(0, hwtimer_file_ring_entries(self->f));
	NEED_RING(5);
	EXPECT_EQ(8, hwtimer_file_ring_entries(self->f))
		TH_LOG("5 entries are not rounded up to 8");
	EXPECT_EQ(-EBUSY, hwtimer_file_setup_ring(self->f, 8));
	EXPECT_EQ(8, hwtimer_file_ring_entries(self->f));
}

/* The largest ring the ABI allows. */
TEST_F(lib, ring_max)
{
	uint64_t ids[4];

	NEED_DEV();
	NEED_RING(HWTIMER_RING_MAX);
	EXPECT_EQ(HWTIMER_RING_MAX, hwtimer_file_ring_entries(self->f));
	arm_due(_metadata, self->f, ids, 4);
	EXPECT_EQ(4, reap_all(_metadata, self->f, ids, 4, 0));
}

/*
 * A ring of 4 and 300 records: most wait in the kernel's queue and come
 * through read(); by every way of reaping, each record comes once.
 */
TEST_F(lib, ring_overflow)
{
	uint64_t ids[300];
	int mode;

	NEED_DEV();
	NEED_RING(4);
	for (mode = 0; mode < 3; mode++) {
		arm_due(_metadata, self->f, ids, 300);
		EXPECT_EQ(300, reap_all(_metadata, self->f, ids, 300, mode))
			TH_LOG("mode %d", mode);
		EXPECT_EQ(0, hwtimer_file_info(self->f, &self->info));
		EXPECT_EQ(0, self->info.queued);
		EXPECT_EQ(0, self->info.pending);
	}
}

/* Records queued before the file had a ring are not lost when it gets one. */
TEST_F(lib, ring_after_records)
{
	uint64_t ids[20];

	NEED_DEV();
	arm_due(_metadata, self->f, ids, 10);
	NEED_RING(4);
	for (size_t i = 10; i < 20; i++)
		ASSERT_EQ(0, hwtimer_file_arm(self->f, i, 0, 0, 0, &ids[i]));
	EXPECT_EQ(20, reap_all(_metadata, self->f, ids, 20, 1));
}

/* Records that wrap around the end of the ring, over many turns. */
TEST_F(lib, ring_wrap)
{
	uint64_t ids[13];
	int turn;

	NEED_DEV();
	NEED_RING(16);
	for (turn = 0; turn < 20; turn++) {
		arm_due(_metadata, self->f, ids, 13);
		ASSERT_EQ(13, reap_all(_metadata, self->f, ids, 13, turn % 3))
			TH_LOG("turn %d", turn);
	}
}

/* Edge-triggered epoll on a file with a ring, as an event loop waits. */
TEST_F(lib, ring_epoll)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct hwtimer_expiry rec[4];
	uint64_t id;
	int ep;

	NEED_DEV();
	NEED_RING(64);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, hwtimer_file_fd(self->f), &ev));
	EXPECT_EQ(0, epoll_wait(ep, &ev, 1, 0));
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 5, 20 * MS, 0, 0, &id));
	ASSERT_EQ(1, epoll_wait(ep, &ev, 1, WAIT_MS));
	EXPECT_TRUE(ev.events & EPOLLIN);
	ASSERT_EQ(1, hwtimer_file_reap(self->f, rec, 4));
	EXPECT_EQ(id, rec[0].id);
	EXPECT_EQ(0, hwtimer_file_reap(self->f, rec, 4));
	/* Nothing new: no new edge. */
	EXPECT_EQ(0, epoll_wait(ep, &ev, 1, 50));
	close(ep);
}

/* A periodic timeout through the ring: re-armed, its id stays valid. */
TEST_F(lib, ring_periodic)
{
	uint64_t period = 10 * MS, id;
	struct hwtimer_expiry rec;
	int i;

	NEED_DEV();
	NEED_RING(8);
	if (period < self->info.tick_ns)
		period = self->info.tick_ns;
	ASSERT_EQ(0, hwtimer_file_arm(self->f, 77, period, period, 0, &id));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, hwtimer_file_wait(self->f, &rec, 1, WAIT_MS));
		EXPECT_EQ(id, rec.id);
		EXPECT_EQ(77, rec.cookie);
		EXPECT_EQ(HWTIMER_EXPIRY_REARMED, rec.flags);
		EXPECT_EQ(0, rec.reserved);
		EXPECT_GE(rec.expired_ns, rec.deadline_ns);
	}
	EXPECT_LT(0, hwtimer_file_cancel(self->f, id));
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel(self->f, id));
}

/*
 * The thread-safety rules of libhwtimer(3): batch calls from several
 * threads at once, while one thread reaps.
 */
struct arm_thread {
	struct hwtimer_file *f;
	unsigned int base, n;
	int err;
};

static void *arm_thread(void *arg)
{
	struct arm_thread *a = arg;
	unsigned int i;
	uint64_t id;

	for (i = 0; i < a->n && !a->err; i++)
		a->err = hwtimer_file_arm(a->f, a->base + i, (i % 7) * 100000ULL, 0, 0, &id);
	return NULL;
}

TEST_F(lib, threads)
{
	unsigned char seen[3 * 200] = { 0 };
	struct hwtimer_expiry recs[32];
	unsigned int i, got = 0;
	struct arm_thread t[3];
	pthread_t th[3];
	ssize_t n, k;
	int r;

	NEED_DEV();
	if (!have_time32_syscalls())
		SKIP(return, "-m32 on a kernel without CONFIG_COMPAT_32BIT_TIME: no futex()");
	/* With a small ring if the module has rings, else through read(). */
	r = hwtimer_file_setup_ring(self->f, 16);
	ASSERT_TRUE(r == 0 || r == -EOPNOTSUPP) TH_LOG("setup_ring: %s", strerror(-r));
	for (i = 0; i < 3; i++) {
		t[i] = (struct arm_thread){ .f = self->f, .base = i * 200, .n = 200 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, arm_thread, &t[i]));
	}
	while (got < sizeof(seen)) {
		n = hwtimer_file_wait(self->f, recs, 32, WAIT_MS);
		ASSERT_LT(0, n) TH_LOG("%u of %zu records came", got, sizeof(seen));
		for (k = 0; k < n; k++) {
			ASSERT_LT(recs[k].cookie, sizeof(seen));
			EXPECT_EQ(0, seen[recs[k].cookie]);
			seen[recs[k].cookie] = 1;
		}
		got += n;
	}
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, t[i].err);
	}
}

TEST_HARNESS_MAIN
