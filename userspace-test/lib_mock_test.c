// SPDX-License-Identifier: GPL-2.0
/*
 * libhwtimer against a kernel that this program plays: the library's
 * open(), ioctl(), read(), poll(), mmap() and munmap() calls on the device
 * are linked to the mock below (ld --wrap, UT_LDFLAGS_lib_mock_test in the
 * Makefile); every other file goes to the real calls. So the library's
 * side of the protocol is tested where the real device cannot be made to
 * misbehave: a module without the capability bits of rings, GET or CONFIG,
 * one whose HWTIMER_IOC_RING is unknown, ring parameters that do not fit the mapping, a tail
 * that runs ahead of the ring, records in the kernel's queue behind a
 * full ring, a read() that returns part of a record, batches sliced to
 * the batch_max the kernel reports. Needs no device: it runs anywhere,
 * on the host too (build/ut/lib_mock_test).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libhwtimer.h"
#include "libhwtimer_test.h"

#pragma GCC diagnostic ignored "-Wsign-compare"

/* The capabilities the mock module reports: all of 1.0, or some missing. */
#define ALL		(HWTIMER_FEAT_RING | HWTIMER_FEAT_GET | HWTIMER_FEAT_CONFIG | \
			 HWTIMER_FEAT_SLACK)
#define NO_RING		(ALL & ~HWTIMER_FEAT_RING)
#define NO_GET_CONFIG	(ALL & ~(HWTIMER_FEAT_RING | HWTIMER_FEAT_GET | HWTIMER_FEAT_CONFIG))

#define MOCK_PATH	"/mock/hwtimer"
#define QMAX		4096

int __real_open(const char *path, int flags, ...);
int __real_ioctl(int fd, unsigned long req, ...);
ssize_t __real_read(int fd, void *buf, size_t count);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int __real_munmap(void *addr, size_t len);

/* The kernel this program plays, reset by each test. */
static struct mock {
	int fd;				/* a /dev/null descriptor stands for the file */
	uint32_t features;		/* HWTIMER_FEAT_* that INFO reports */
	unsigned int batch_max;
	bool ring_enotty;		/* HWTIMER_IOC_RING unknown (ENOTTY) */
	int corrupt;			/* which lie RING tells (see mock_ring()) */
	unsigned int partial_read;	/* bytes read() cuts off its result */
	int mmap_fail;			/* mmap() fails with this errno, once */
	bool read_moves;		/* a poll() elsewhere moves the queue first */
	bool poll_keeps;		/* poll() leaves the queue where it is */
	int info_fail, config_fail;	/* INFO, CONFIG fail with this errno */
	int batch_fail;			/* batch ioctls fail so, entries untouched */
	int poll_fail;			/* poll() fails with this errno, once */
	int munmap_fail;		/* munmap() fails with this errno */
	/* Timeouts waiting for their deadline (INFO's pending; CONFIG refuses). */
	unsigned int pending;
	bool expire_at_config;		/* they expire as CONFIG is called */
	/* read() runs hwtimer_file_configure() on this file, as another thread would. */
	struct hwtimer_file *config_in_read;
	int config_in_read_ret;
	unsigned int configs;		/* CONFIG calls that changed the configuration */
	unsigned int fionbios;		/* FIONBIO calls */
	unsigned int blocked;		/* read()s the device would have blocked in */
	/* The ring. */
	char *mem;
	size_t size;
	struct hwtimer_ring_params p;
	uint32_t tail;
	unsigned int mapped, unmapped;
	/* The kernel's queue (FIFO). */
	struct hwtimer_expiry q[QMAX];
	unsigned int qh, qt;
	uint64_t next_id, next_rec;
	/* The batch ioctls seen: their count and each one's entries. */
	unsigned int ioctls, ring_ioctls, reads, polls;
	unsigned int counts[64];
} m;

static uint32_t *word(uint32_t off)
{
	return (uint32_t *)(m.mem + off);
}

static void mock_reset(uint32_t features, unsigned int batch_max)
{
	free(m.mem);
	memset(&m, 0, sizeof(m));
	m.fd = -1;
	m.features = features;
	m.batch_max = batch_max;
	m.next_id = 1000;
}

/* The kernel's side of an expiry: to the ring if it has room and order allows. */
static void mock_expire(unsigned int n)
{
	while (n--) {
		struct hwtimer_expiry r = {
			.id = m.next_id++, .cookie = m.next_rec++,
			.deadline_ns = 5, .expired_ns = 6,
		};

		if (m.mem && m.qh == m.qt &&
		    m.tail - __atomic_load_n(word(m.p.head_off), __ATOMIC_ACQUIRE) < m.p.entries) {
			memcpy(m.mem + m.p.records_off +
			       (m.tail & (m.p.entries - 1)) * sizeof(r), &r, sizeof(r));
			__atomic_store_n(word(m.p.tail_off), ++m.tail, __ATOMIC_RELEASE);
		} else {
			m.q[m.qt++ % QMAX] = r;
			if (m.mem)
				__atomic_store_n(word(m.p.flags_off), HWTIMER_RING_OVERFLOW,
						 __ATOMIC_RELEASE);
		}
	}
}

/* Queue -> ring as room allows; the flag goes when the queue is empty. */
static void mock_flush(void)
{
	while (m.mem && m.qh != m.qt &&
	       m.tail - __atomic_load_n(word(m.p.head_off), __ATOMIC_ACQUIRE) < m.p.entries) {
		memcpy(m.mem + m.p.records_off + (m.tail & (m.p.entries - 1)) *
		       sizeof(struct hwtimer_expiry), &m.q[m.qh++ % QMAX],
		       sizeof(struct hwtimer_expiry));
		__atomic_store_n(word(m.p.tail_off), ++m.tail, __ATOMIC_RELEASE);
	}
	if (m.mem && m.qh == m.qt)
		__atomic_store_n(word(m.p.flags_off), 0, __ATOMIC_RELEASE);
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	if (strcmp(path, MOCK_PATH))
		return __real_open(path, flags, mode);
	m.fd = __real_open("/dev/null", flags & ~O_ACCMODE);
	return m.fd;
}

/* RING: the parameters, with the lie m.corrupt asks for. */
static int mock_ring(struct hwtimer_ring_params *p)
{
	unsigned int e = 1;

	m.ring_ioctls++;
	if (m.ring_enotty) {
		errno = ENOTTY;
		return -1;
	}
	if (!p->entries || p->entries > HWTIMER_RING_MAX) {
		errno = EINVAL;
		return -1;
	}
	while (e < p->entries)
		e <<= 1;
	p->entries = e;
	p->head_off = 0;
	p->tail_off = 64;
	p->flags_off = 128;
	p->records_off = 256;
	p->mmap_size = (256 + e * sizeof(struct hwtimer_expiry) + 4095) & ~4095ULL;
	/* The lie of m.corrupt. */
	if (m.corrupt == 1)
		p->head_off = p->mmap_size;			/* outside */
	else if (m.corrupt == 2)
		p->tail_off = 66;				/* misaligned */
	else if (m.corrupt == 3)
		p->records_off = p->mmap_size - 48;		/* records overrun */
	else if (m.corrupt == 4)
		p->entries = e + 1;				/* not a power of two */
	else if (m.corrupt == 5)
		p->entries = e / 2;				/* fewer than asked */
	else if (m.corrupt == 6)
		p->mmap_size = 0;
	else if (m.corrupt == 7)
		p->flags_off = (uint32_t)p->mmap_size - 2;	/* straddles the end */
	m.p = *p;
	m.mem = aligned_alloc(4096, p->mmap_size ? p->mmap_size : 4096);
	memset(m.mem, 0, p->mmap_size ? p->mmap_size : 4096);
	m.size = p->mmap_size;
	return 0;
}

static int mock_batch(unsigned long req, struct hwtimer_batch *b)
{
	size_t size = req == HWTIMER_IOC_ARM ? sizeof(struct hwtimer_arm_entry) :
		      req == HWTIMER_IOC_CANCEL ? sizeof(struct hwtimer_cancel_entry) :
		      req == HWTIMER_IOC_MODIFY ? sizeof(struct hwtimer_modify_entry) :
		      sizeof(struct hwtimer_get_entry);
	unsigned int i;
	int err = 0;

	if (req == HWTIMER_IOC_GET && !(m.features & HWTIMER_FEAT_GET)) {
		errno = ENOTTY;
		return -1;
	}
	if (m.batch_fail) {
		errno = m.batch_fail;
		return -1;
	}
	if (!b->count || b->flags & ~HWTIMER_BATCH_FLAGS) {
		errno = EINVAL;
		return -1;
	}
	if (b->count > m.batch_max) {
		errno = E2BIG;
		return -1;
	}
	if (m.ioctls < 64)
		m.counts[m.ioctls] = b->count;
	m.ioctls++;
	b->done = b->failed = 0;
	for (i = 0; i < b->count; i++) {
		char *e = (char *)(uintptr_t)b->entries + i * size;
		/* Every entry type starts with a u64 (cookie or id), then... */
		struct hwtimer_arm_entry *a = (void *)e;
		struct hwtimer_cancel_entry *c = (void *)e;
		int32_t *result;
		int bad;

		if (req == HWTIMER_IOC_ARM) {
			result = &a->result;
			bad = a->flags == 0xbad;
			if (!bad)
				a->id = m.next_id++;
		} else {
			/* cancel, modify and get: id 0xbad is unknown */
			result = req == HWTIMER_IOC_CANCEL ? &c->result :
				 req == HWTIMER_IOC_MODIFY ?
				 &((struct hwtimer_modify_entry *)e)->result :
				 &((struct hwtimer_get_entry *)e)->result;
			bad = c->id == 0xbad;
			if (!bad && req == HWTIMER_IOC_CANCEL)
				c->status = HWTIMER_STATUS_PENDING;
			if (!bad && req == HWTIMER_IOC_MODIFY)
				((struct hwtimer_modify_entry *)e)->status = HWTIMER_STATUS_EXPIRED;
		}
		*result = bad ? (req == HWTIMER_IOC_ARM ? -EINVAL : -ENOENT) : 0;
		b->done++;
		if (bad) {
			b->failed++;
			if (!(b->flags & HWTIMER_BATCH_CONTINUE)) {
				err = -*result;
				break;
			}
		}
	}
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd != m.fd || fd < 0)
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case FIONBIO:
		m.fionbios++;
		return __real_ioctl(fd, req, arg);
	case HWTIMER_IOC_INFO: {
		struct hwtimer_info *info = arg;

		if (m.info_fail) {
			errno = m.info_fail;
			return -1;
		}
		memset(info, 0, sizeof(*info));
		info->features = m.features;
		info->pending = m.pending;
		info->queued = m.qt - m.qh;
		info->batch_max = m.batch_max;
		info->record_size = sizeof(struct hwtimer_expiry);
		info->tick_ns = 1000000;
		return 0;
	}
	case HWTIMER_IOC_RING:
		if (m.features & HWTIMER_FEAT_RING)
			return mock_ring(arg);
		break;
	case HWTIMER_IOC_CONFIG:
		if (!(m.features & HWTIMER_FEAT_CONFIG))
			break;
		if (m.config_fail) {
			errno = m.config_fail;
			return -1;
		}
		/* The library looked; now the pending timeouts expire. */
		if (m.expire_at_config) {
			mock_expire(m.pending);
			m.pending = 0;
		}
		/* As the kernel: its own timeouts only, not the ring's records. */
		if (m.pending || m.qh != m.qt) {
			errno = EBUSY;
			return -1;
		}
		m.configs++;
		return 0;
	case HWTIMER_IOC_ARM:
	case HWTIMER_IOC_CANCEL:
	case HWTIMER_IOC_MODIFY:
	case HWTIMER_IOC_GET:
		return mock_batch(req, arg);
	}
	errno = ENOTTY;
	return -1;
}

ssize_t __wrap_read(int fd, void *buf, size_t count)
{
	size_t n = 0, max = count / sizeof(struct hwtimer_expiry);

	if (fd != m.fd || fd < 0)
		return __real_read(fd, buf, count);
	m.reads++;
	if (!max) {
		errno = EINVAL;
		return -1;
	}
	if (m.read_moves)
		mock_flush();
	while (n < max && m.qh != m.qt)
		((struct hwtimer_expiry *)buf)[n++] = m.q[m.qh++ % QMAX];
	mock_flush();
	/* The device's read() would wait for a record; the mock counts it. */
	if (!n && !(fcntl(fd, F_GETFL) & O_NONBLOCK))
		m.blocked++;
	/* The records have left the kernel, and are not in the caller's hands yet. */
	if (m.config_in_read) {
		struct hwtimer_file *f = m.config_in_read;

		m.config_in_read = NULL;
		m.config_in_read_ret = hwtimer_file_configure(f, CLOCK_BOOTTIME, 0);
	}
	if (!n) {
		errno = EAGAIN;
		return -1;
	}
	return n * sizeof(struct hwtimer_expiry) - m.partial_read;
}

int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	if (n != 1 || fds->fd != m.fd || m.fd < 0)
		return __real_poll(fds, n, timeout);
	m.polls++;
	if (m.poll_fail) {
		errno = m.poll_fail;
		m.poll_fail = 0;
		return -1;
	}
	/* As the kernel's poll does, unless told not to. */
	if (!m.poll_keeps)
		mock_flush();
	fds->revents = 0;
	if (m.qh != m.qt || (m.mem && *word(m.p.tail_off) != *word(m.p.head_off)))
		fds->revents = POLLIN;
	return !!fds->revents;
}

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (fd != m.fd || fd < 0)
		return __real_mmap(addr, len, prot, flags, fd, off);
	if (!m.mem || len != m.size || off != HWTIMER_RING_OFF || !(flags & MAP_SHARED)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (m.mmap_fail) {
		errno = m.mmap_fail;
		m.mmap_fail = 0;
		return MAP_FAILED;
	}
	m.mapped++;
	return m.mem;
}

int __wrap_munmap(void *addr, size_t len)
{
	if (!m.mem || addr != m.mem)
		return __real_munmap(addr, len);
	m.unmapped++;
	if (m.munmap_fail) {
		errno = m.munmap_fail;
		return -1;
	}
	return 0;
}

static struct hwtimer_file *mock_open(uint32_t features, unsigned int batch_max)
{
	mock_reset(features, batch_max);
	return hwtimer_file_open(MOCK_PATH, 0);
}

/* Reap everything there is, checking the records come in order, each once. */
static size_t drain(struct __test_metadata *_metadata, struct hwtimer_file *f,
		    uint64_t *next, bool zero_copy)
{
	struct hwtimer_expiry recs[3];
	const struct hwtimer_expiry *p;
	size_t got = 0;
	ssize_t n, i;

	for (;;) {
		if (zero_copy) {
			n = hwtimer_file_peek(f, &p);
		} else {
			n = hwtimer_file_reap(f, recs, 3);
			p = recs;
		}
		EXPECT_LE(0, n);
		if (n <= 0)
			return got;
		for (i = 0; i < n; i++) {
			EXPECT_EQ(*next, p[i].cookie) TH_LOG("record %zd of a run", i);
			*next = p[i].cookie + 1;
		}
		if (zero_copy)
			hwtimer_file_advance(f, n);
		got += n;
	}
}

TEST(no_ring_capability)
{
	struct hwtimer_file *f = mock_open(NO_RING, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];
	uint64_t next = 0;

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(NO_RING, hwtimer_file_features(f));
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(0, m.ring_ioctls) TH_LOG("RING asked of a module without HWTIMER_FEAT_RING");
	EXPECT_EQ(0, hwtimer_file_ring_entries(f));
	EXPECT_EQ(0, hwtimer_file_reap(f, recs, 8));
	mock_expire(20);
	EXPECT_EQ(20, drain(_metadata, f, &next, false));
	mock_expire(20);
	EXPECT_EQ(20, drain(_metadata, f, &next, true));
	EXPECT_EQ(40, next);
	/* What a peek read() and left, copied out a little at a time. */
	mock_expire(20);
	ASSERT_EQ(20, hwtimer_file_peek(f, &p));
	hwtimer_file_advance(f, 1);
	ASSERT_EQ(2, hwtimer_file_reap(f, recs, 2));
	EXPECT_EQ(41, recs[0].cookie);
	EXPECT_EQ(42, recs[1].cookie);
	next = 43;
	EXPECT_EQ(17, drain(_metadata, f, &next, false));
	hwtimer_file_close(f);
}

TEST(no_get_no_config_capability)
{
	struct hwtimer_file *f = mock_open(NO_GET_CONFIG, 4096);
	struct hwtimer_get_entry g;
	struct hwtimer_batch_result r = { 5, 5 };

	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_configure(f, CLOCK_MONOTONIC, 0));
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_get(f, 1, &g));
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_get_batch(f, &g, 1, 0, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, m.ioctls);
	hwtimer_file_close(f);
}

TEST(ring_enotty)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	uint64_t next = 0;

	ASSERT_TRUE(f != NULL);
	m.ring_enotty = true;
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(0, hwtimer_file_ring_entries(f));
	mock_expire(5);
	EXPECT_EQ(5, drain(_metadata, f, &next, false));
	hwtimer_file_close(f);
}

TEST(ring_params_checked)
{
	int lie;

	for (lie = 1; lie <= 7; lie++) {
		struct hwtimer_file *f = mock_open(ALL, 4096);

		ASSERT_TRUE(f != NULL);
		m.corrupt = lie;
		EXPECT_EQ(-EPROTO, hwtimer_file_setup_ring(f, 8)) TH_LOG("lie %d accepted", lie);
		EXPECT_EQ(0, m.mapped) TH_LOG("lie %d mapped", lie);
		EXPECT_EQ(0, hwtimer_file_ring_entries(f));
		/* The file has a ring the library cannot use: it stays so. */
		EXPECT_EQ(-EPROTO, hwtimer_file_setup_ring(f, 8));
		EXPECT_EQ(1, m.ring_ioctls);
		hwtimer_file_close(f);
	}
}

TEST(ring_wrap_and_head)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];
	uint64_t next = 0;
	int turn;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(1, m.mapped);
	EXPECT_EQ(8, hwtimer_file_ring_entries(f));
	mock_expire(5);
	ASSERT_EQ(3, hwtimer_file_reap(f, recs, 3));
	EXPECT_EQ(3, *word(m.p.head_off)) TH_LOG("the head the kernel sees");
	next = 3;
	/* 2 left at 3..4, 6 more wrap: records 5..7 at the end, 8..10 at the start. */
	mock_expire(6);
	EXPECT_EQ(5, hwtimer_file_peek(f, &p)) TH_LOG("peek crosses the end of the ring");
	EXPECT_EQ(3, p[0].cookie);
	hwtimer_file_advance(f, 5);
	EXPECT_EQ(8, *word(m.p.head_off));
	EXPECT_EQ(3, hwtimer_file_peek(f, &p));
	EXPECT_EQ(8, p[0].cookie);
	hwtimer_file_advance(f, 3);
	next = 11;
	/* Many turns, copy-out across the end in one call. */
	for (turn = 0; turn < 50; turn++) {
		mock_expire(7);
		ASSERT_EQ(7, hwtimer_file_reap(f, recs, 8));
		for (int i = 0; i < 7; i++)
			ASSERT_EQ(next + i, recs[i].cookie);
		next += 7;
	}
	EXPECT_EQ(0, m.reads) TH_LOG("read() called though the ring never overflowed");
	hwtimer_file_close(f);
	EXPECT_EQ(1, m.unmapped);
}

/* The kernel made the ring, mmap() failed: a second call maps that ring. */
TEST(ring_mmap_retry)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	struct hwtimer_expiry recs[4];

	ASSERT_TRUE(f != NULL);
	m.mmap_fail = ENOMEM;
	EXPECT_EQ(-ENOMEM, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(0, hwtimer_file_ring_entries(f));
	EXPECT_EQ(0, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(1, m.ring_ioctls);
	EXPECT_EQ(1, m.mapped);
	EXPECT_EQ(8, hwtimer_file_ring_entries(f));
	mock_expire(2);
	EXPECT_EQ(2, hwtimer_file_reap(f, recs, 4));
	hwtimer_file_close(f);
}

/*
 * A full ring, the rest in the kernel's queue: all, in order, once. The
 * library polls, and the kernel moves its queue into the ring, where the
 * records are taken in place, without a read(); with a poll() that leaves
 * the queue, read() takes it.
 */
TEST(ring_overflow_order)
{
	int zc, keeps;

	for (keeps = 0; keeps < 2; keeps++) {
		for (zc = 0; zc < 2; zc++) {
			struct hwtimer_file *f = mock_open(ALL, 4096);
			uint64_t next = 0;

			ASSERT_TRUE(f != NULL);
			m.poll_keeps = keeps;
			ASSERT_EQ(0, hwtimer_file_setup_ring(f, 1024));
			mock_expire(1024 + 2000);
			EXPECT_EQ(HWTIMER_RING_OVERFLOW, *word(m.p.flags_off));
			EXPECT_EQ(3024, drain(_metadata, f, &next, zc));
			EXPECT_EQ(3024, next);
			EXPECT_LT(0, m.polls) TH_LOG("the queue was never polled into the ring");
			/* read() exactly when poll() left the queue. */
			EXPECT_EQ(keeps, m.reads > 0) TH_LOG("%u read() calls, poll() %s",
							     m.reads, keeps ? "left the queue" :
							     "filled the ring");
			/* The flag gone and the ring empty: no system call any more. */
			m.reads = 0;
			m.polls = 0;
			EXPECT_EQ(0, drain(_metadata, f, &next, zc));
			EXPECT_EQ(0, m.reads);
			EXPECT_EQ(0, m.polls);
			hwtimer_file_close(f);
		}
	}
}

/*
 * A ring smaller than what one read() takes (the peek's buffer, 1024
 * records) is not polled: each poll would move no more than the ring
 * holds, and cost more system calls than read(). All, in order, once.
 */
TEST(ring_small_not_polled)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	uint64_t next = 0;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 4));
	mock_expire(4 + 700);
	EXPECT_EQ(704, drain(_metadata, f, &next, true));
	EXPECT_EQ(704, next);
	EXPECT_EQ(0, m.polls) TH_LOG("a ring of 4 polled for a peek");
	EXPECT_LT(0, m.reads);
	hwtimer_file_close(f);
}

/* read() only when the ring is empty and the kernel says its queue holds records. */
TEST(ring_no_needless_read)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	struct hwtimer_expiry recs[8];

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	/* Records in the ring, the flag clear: the ring is read, never read(). */
	mock_expire(2);
	EXPECT_EQ(2, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, m.reads);
	/* An empty ring with the flag clear: nothing, without a read(). */
	EXPECT_EQ(0, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, m.reads);
	EXPECT_EQ(0, m.polls) TH_LOG("poll() with nothing queued");
	EXPECT_EQ(0, m.fionbios) TH_LOG("FIONBIO with no read()");
	hwtimer_file_close(f);
}

/*
 * The ring overflowed; before the library's read(), another thread's poll()
 * moves the kernel's queue into the ring: read() finds nothing, and the
 * records are in the ring. Reaping must not stop there, or an edge-triggered
 * waiter sleeps over records.
 */
TEST(ring_queue_moved_before_read)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];
	uint64_t next;
	int zc;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 4));
	/* The library's own poll() moves nothing: its read() meets the race. */
	m.poll_keeps = true;
	m.read_moves = true;
	for (zc = 0; zc < 2; zc++) {
		mock_expire(4 + 3);
		ASSERT_EQ(4, hwtimer_file_reap(f, recs, 8));
		EXPECT_EQ(HWTIMER_RING_OVERFLOW, *word(m.p.flags_off));
		if (zc) {
			/* 3 records, which cross the end of the ring: two runs. */
			ASSERT_LT(0, hwtimer_file_peek(f, &p));
			EXPECT_EQ(11, p[0].cookie);
			next = 11;
			EXPECT_EQ(3, drain(_metadata, f, &next, true));
		} else {
			ASSERT_EQ(3, hwtimer_file_reap(f, recs, 8));
			EXPECT_EQ(4, recs[0].cookie);
		}
		EXPECT_EQ(0, hwtimer_file_reap(f, recs, 8));
	}
	hwtimer_file_close(f);
}

TEST(ring_tail_ahead)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	*word(m.p.tail_off) = 9;	/* 9 records in a ring of 8 */
	EXPECT_EQ(-EIO, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(-EIO, hwtimer_file_peek(f, &p));
	EXPECT_EQ(-EIO, hwtimer_file_wait(f, recs, 8, 0));
	EXPECT_EQ(0, *word(m.p.head_off)) TH_LOG("the head moved over a broken ring");
	hwtimer_file_close(f);
}

TEST(read_partial_record)
{
	struct hwtimer_file *f = mock_open(NO_RING, 4096);
	struct hwtimer_expiry recs[8];

	ASSERT_TRUE(f != NULL);
	mock_expire(3);
	m.partial_read = 8;
	EXPECT_EQ(-EIO, hwtimer_file_reap(f, recs, 8));
	hwtimer_file_close(f);
}

TEST(wait_peeks_with_no_buffer)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	const struct hwtimer_expiry *p;

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(0, hwtimer_file_wait(f, NULL, 0, 0));
	mock_expire(3);
	EXPECT_EQ(3, hwtimer_file_wait(f, NULL, 0, 10));
	/* Nothing was consumed. */
	EXPECT_EQ(3, hwtimer_file_peek(f, &p));
	EXPECT_EQ(0, p[0].cookie);
	hwtimer_file_close(f);
}

/* Batches are cut to the kernel's batch_max; errors and totals as the ioctl's. */
TEST(batch_slices)
{
	struct hwtimer_file *f = mock_open(ALL, 5);
	struct hwtimer_arm_entry arm[12];
	struct hwtimer_cancel_entry can[12];
	struct hwtimer_batch_result r;
	int i;

	ASSERT_TRUE(f != NULL);
	memset(arm, 0, sizeof(arm));
	ASSERT_EQ(0, hwtimer_file_arm_batch(f, arm, 12, 0, &r));
	EXPECT_EQ(12, r.done);
	EXPECT_EQ(0, r.failed);
	ASSERT_EQ(3, m.ioctls);
	EXPECT_EQ(5, m.counts[0]);
	EXPECT_EQ(5, m.counts[1]);
	EXPECT_EQ(2, m.counts[2]);

	/* Entry 7 fails: stop there, in the second slice. */
	m.ioctls = 0;
	arm[7].flags = 0xbad;
	for (i = 0; i < 12; i++)
		arm[i].result = 1;
	EXPECT_EQ(-EINVAL, hwtimer_file_arm_batch(f, arm, 12, 0, &r));
	EXPECT_EQ(8, r.done);
	EXPECT_EQ(1, r.failed);
	EXPECT_EQ(2, m.ioctls);
	EXPECT_EQ(1, arm[8].result);

	m.ioctls = 0;
	EXPECT_EQ(0, hwtimer_file_arm_batch(f, arm, 12, HWTIMER_BATCH_CONTINUE, &r));
	EXPECT_EQ(12, r.done);
	EXPECT_EQ(1, r.failed);
	EXPECT_EQ(3, m.ioctls);
	EXPECT_EQ(0, arm[8].result);

	/* Single calls: the entry's own error, and the status on success. */
	memset(can, 0, sizeof(can));
	can[3].id = 0xbad;
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel_batch(f, can, 12, 0, &r));
	EXPECT_EQ(4, r.done);
	EXPECT_EQ(-ENOENT, hwtimer_file_cancel(f, 0xbad));
	EXPECT_EQ(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(f, 1));
	EXPECT_EQ(HWTIMER_STATUS_EXPIRED, hwtimer_file_modify(f, 1, 0, 0, 0, NULL));
	EXPECT_EQ(-ENOENT, hwtimer_file_modify(f, 0xbad, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, hwtimer_file_arm(f, 0, 0, 0, 0xbad, NULL));
	hwtimer_file_close(f);
}

/*
 * hwtimer_file_get(3): on failure, entry->result holds the error and every
 * other field but id is zero, also when the call failed before the kernel
 * reached the entry. Batches of 0 entries: nothing, unless the flags or
 * the module's capabilities refuse.
 */
TEST(get_and_empty_batches)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	struct hwtimer_batch_result r;
	struct hwtimer_arm_entry a;
	struct hwtimer_get_entry g;

	ASSERT_TRUE(f != NULL);
	memset(&g, 0xa5, sizeof(g));
	EXPECT_EQ(-ENOENT, hwtimer_file_get(f, 0xbad, &g));
	EXPECT_EQ(-ENOENT, g.result);
	memset(&g, 0xa5, sizeof(g));
	m.batch_fail = EFAULT;
	EXPECT_EQ(-EFAULT, hwtimer_file_get(f, 7, &g));
	EXPECT_EQ(-EFAULT, g.result) TH_LOG("the call's error is not in entry->result");
	EXPECT_EQ(7, g.id);
	EXPECT_EQ(0, g.status);
	EXPECT_EQ(0, g.cookie);
	EXPECT_EQ(0, g.deadline_ns);
	m.batch_fail = 0;

	m.ioctls = 0;
	memset(&r, 0xa5, sizeof(r));
	EXPECT_EQ(0, hwtimer_file_arm_batch(f, &a, 0, HWTIMER_BATCH_CONTINUE, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, r.failed);
	memset(&r, 0xa5, sizeof(r));
	EXPECT_EQ(-EINVAL, hwtimer_file_arm_batch(f, &a, 0, 1U << 7, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, r.failed);
	EXPECT_EQ(0, m.ioctls);
	hwtimer_file_close(f);
	f = mock_open(NO_GET_CONFIG, 4096);
	ASSERT_TRUE(f != NULL);
	memset(&r, 0xa5, sizeof(r));
	EXPECT_EQ(-EOPNOTSUPP, hwtimer_file_get_batch(f, &g, 0, 0, &r));
	EXPECT_EQ(0, r.done);
	EXPECT_EQ(0, r.failed);
	hwtimer_file_close(f);
}

/* Clear O_NONBLOCK on the file's descriptor, as a caller may with fcntl(). */
static void clear_nonblock(struct __test_metadata *_metadata, struct hwtimer_file *f)
{
	int fd = hwtimer_file_fd(f), fl = fcntl(fd, F_GETFL);

	ASSERT_LE(0, fl);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fl & ~O_NONBLOCK));
}

/*
 * hwtimer_file_open(3), NOTES: the reaping functions never block, whatever
 * the caller does to the descriptor's O_NONBLOCK. The mock's read() counts
 * the calls the device would have blocked in: with nothing queued, on a
 * blocking descriptor.
 */
TEST(nonblocking_whatever_the_caller_does)
{
	struct hwtimer_file *f = mock_open(NO_RING, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];
	uint64_t next = 0;

	ASSERT_TRUE(f != NULL);
	/* No ring: every reaping call read()s. */
	clear_nonblock(_metadata, f);
	EXPECT_EQ(0, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, m.blocked) TH_LOG("reap: read() on a blocking descriptor, nothing queued");
	EXPECT_TRUE(fcntl(hwtimer_file_fd(f), F_GETFL) & O_NONBLOCK)
		TH_LOG("O_NONBLOCK is not set again");
	clear_nonblock(_metadata, f);
	EXPECT_EQ(0, hwtimer_file_peek(f, &p));
	EXPECT_EQ(0, m.blocked) TH_LOG("peek: read() on a blocking descriptor, nothing queued");
	clear_nonblock(_metadata, f);
	EXPECT_EQ(0, hwtimer_file_wait(f, recs, 8, 0));
	EXPECT_EQ(0, m.blocked) TH_LOG("wait(0 ms): read() on a blocking descriptor, none queued");
	clear_nonblock(_metadata, f);
	EXPECT_EQ(0, hwtimer_file_wait(f, NULL, 0, 0));
	EXPECT_EQ(0, m.blocked)
		TH_LOG("wait(max 0, 0 ms): read() on a blocking descriptor, nothing queued");
	/* Records still come, each once. */
	mock_expire(20);
	clear_nonblock(_metadata, f);
	EXPECT_EQ(20, drain(_metadata, f, &next, false));
	EXPECT_EQ(0, m.blocked);
	hwtimer_file_close(f);

	/*
	 * A ring that overflowed, and another thread's call moves the
	 * kernel's queue into the ring before the library's read(): that
	 * read() finds the queue empty.
	 */
	f = mock_open(ALL, 4096);
	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 4));
	m.poll_keeps = true;
	m.read_moves = true;
	mock_expire(4 + 3);
	clear_nonblock(_metadata, f);
	next = 0;
	EXPECT_EQ(7, drain(_metadata, f, &next, false));
	EXPECT_EQ(0, m.blocked) TH_LOG("read() on a blocking descriptor, queue moved to the ring");
	hwtimer_file_close(f);
}

/*
 * hwtimer_file_configure() succeeds only while the file holds no timeout:
 * none pending, no record not yet reaped, wherever it is: the kernel's
 * queue (the kernel refuses), the ring, the library's buffer (the kernel
 * counts neither), a read() in flight, a ring not mapped.
 */
TEST(configure_records_not_reaped)
{
	struct hwtimer_file *f = mock_open(ALL, 4096);
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	mock_expire(2);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with 2 records in the ring, not yet reaped");
	ASSERT_EQ(2, hwtimer_file_peek(f, &p));
	hwtimer_file_advance(f, 1);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with a record peeked in the ring, not advanced over");
	hwtimer_file_advance(f, 1);
	EXPECT_EQ(0, m.configs);
	EXPECT_EQ(0, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0));
	EXPECT_EQ(1, m.configs);
	/* In the kernel's queue: the kernel refuses. */
	mock_expire(8 + 1);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_MONOTONIC, 0));
	EXPECT_EQ(9, hwtimer_file_reap(f, recs, 8) + hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, hwtimer_file_configure(f, CLOCK_MONOTONIC, 0));
	/* A timeout pending as the library looks, in the ring when the kernel does. */
	m.pending = 1;
	m.expire_at_config = true;
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("a timeout expired into the ring between the library's look and CONFIG");
	EXPECT_EQ(2, m.configs);
	hwtimer_file_close(f);

	/* No ring: what read() put in the library's buffer. */
	f = mock_open(NO_RING, 4096);
	ASSERT_TRUE(f != NULL);
	mock_expire(3);
	ASSERT_EQ(3, hwtimer_file_peek(f, &p));
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with 3 records in the library's buffer");
	hwtimer_file_advance(f, 2);
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with 1 record in the library's buffer");
	ASSERT_EQ(1, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(0, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0));
	/* Another thread configures while read() brings records out. */
	mock_expire(2);
	m.config_in_read = f;
	ASSERT_EQ(2, hwtimer_file_reap(f, recs, 8));
	EXPECT_EQ(-EBUSY, m.config_in_read_ret)
		TH_LOG("configured while a read() in flight held records");
	mock_expire(2);
	m.config_in_read = f;
	ASSERT_EQ(2, hwtimer_file_peek(f, &p));
	EXPECT_EQ(-EBUSY, m.config_in_read_ret)
		TH_LOG("configured while a read() in flight held records");
	hwtimer_file_advance(f, 2);
	EXPECT_EQ(1, m.configs);
	hwtimer_file_close(f);

	/* The kernel made a ring the library could not map: it cannot look. */
	f = mock_open(ALL, 4096);
	ASSERT_TRUE(f != NULL);
	m.mmap_fail = ENOMEM;
	ASSERT_EQ(-ENOMEM, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with a ring the library cannot see into");
	ASSERT_EQ(0, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(0, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0));
	hwtimer_file_close(f);
	f = mock_open(ALL, 4096);
	ASSERT_TRUE(f != NULL);
	m.corrupt = 1;
	ASSERT_EQ(-EPROTO, hwtimer_file_setup_ring(f, 8));
	EXPECT_EQ(-EBUSY, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0))
		TH_LOG("configured with a ring the library refused to map");
	EXPECT_EQ(0, m.configs);
	hwtimer_file_close(f);
}

/* Those that return nothing. */
#define EXPECT_VOID_KEEPS_ERRNO(call)						\
	do {									\
		int __err;							\
										\
		errno = ERRNO_MARK;						\
		call;								\
		__err = errno;							\
		EXPECT_EQ(ERRNO_MARK, __err) TH_LOG("%s changed errno to %d (%s)", \
						    #call, __err, strerror(__err)); \
	} while (0)

/* hwtimer_file_open(): errno says why it failed, and is kept when it succeeds. */
TEST(errno_open)
{
	struct hwtimer_file *f;

	mock_reset(ALL, 4096);
	errno = ERRNO_MARK;
	f = hwtimer_file_open(MOCK_PATH, 0);
	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(ERRNO_MARK, errno) TH_LOG("a successful open changed errno to %d", errno);
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_close(f));
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_close(NULL));

	/* Closed: its descriptor, which /dev/null may get, is not the mock's. */
	mock_reset(ALL, 4096);
	errno = ERRNO_MARK;
	EXPECT_TRUE(hwtimer_file_open(MOCK_PATH, 1) == NULL);
	EXPECT_EQ(EINVAL, errno) TH_LOG("flags 1: errno %d, not EINVAL", errno);
	errno = ERRNO_MARK;
	EXPECT_TRUE(hwtimer_file_open("/nonexistent/hwtimer", 0) == NULL);
	EXPECT_EQ(ENOENT, errno) TH_LOG("no such path: errno %d, not ENOENT", errno);
	errno = ERRNO_MARK;
	EXPECT_TRUE(hwtimer_file_open("/dev/null", 0) == NULL);
	EXPECT_EQ(ENOTTY, errno) TH_LOG("not the device: errno %d, not ENOTTY", errno);
	mock_reset(ALL, 0);
	errno = ERRNO_MARK;
	EXPECT_TRUE(hwtimer_file_open(MOCK_PATH, 0) == NULL);
	EXPECT_EQ(EPROTO, errno) TH_LOG("a batch_max of 0: errno %d, not EPROTO", errno);
}

/* Every other function, on the paths where it succeeds and where it fails. */
TEST(errno_kept)
{
	struct hwtimer_file *f = mock_open(ALL, 4);
	struct hwtimer_arm_entry arm[6];
	struct hwtimer_cancel_entry can[6];
	struct hwtimer_modify_entry mod[6];
	struct hwtimer_get_entry get[6], g;
	struct hwtimer_batch_result r;
	const struct hwtimer_expiry *p;
	struct hwtimer_expiry recs[8];
	struct hwtimer_info info;
	uint64_t id, dl;

	ASSERT_TRUE(f != NULL);
	memset(arm, 0, sizeof(arm));
	memset(can, 0, sizeof(can));
	memset(mod, 0, sizeof(mod));
	memset(get, 0, sizeof(get));

	EXPECT_KEEPS_ERRNO(m.fd, hwtimer_file_fd(f));
	EXPECT_KEEPS_ERRNO(ALL, hwtimer_file_features(f));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_ring_entries(f));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_info(f, &info));
	m.info_fail = EFAULT;
	EXPECT_KEEPS_ERRNO(-EFAULT, hwtimer_file_info(f, &info));
	m.info_fail = 0;
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_configure(f, CLOCK_BOOTTIME, 0));
	m.config_fail = EINVAL;
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_configure(f, CLOCK_REALTIME, 0));
	m.config_fail = 0;

	/* Without a ring: read() finds nothing (EAGAIN), then records. */
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_reap(f, recs, 8));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_peek(f, &p));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_wait(f, recs, 8, 0));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_wait(f, NULL, 0, 0));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_wait(f, recs, 8, 5));
	m.poll_fail = EINTR;
	EXPECT_KEEPS_ERRNO(-EINTR, hwtimer_file_wait(f, recs, 8, 5));
	mock_expire(3);
	EXPECT_KEEPS_ERRNO(1, hwtimer_file_reap(f, recs, 1));
	EXPECT_KEEPS_ERRNO(2, hwtimer_file_peek(f, &p));
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_advance(f, 2));
	mock_expire(1);
	EXPECT_KEEPS_ERRNO(1, hwtimer_file_wait(f, recs, 8, 5));
	mock_expire(1);
	m.partial_read = 8;
	EXPECT_KEEPS_ERRNO(-EIO, hwtimer_file_reap(f, recs, 8));
	m.partial_read = 0;

	/* One at a time, and in batches of more than batch_max (4). */
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_arm(f, 1, 0, 0, 0, &id));
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_arm(f, 1, 0, 0, 0xbad, &id));
	EXPECT_KEEPS_ERRNO(HWTIMER_STATUS_PENDING, hwtimer_file_cancel(f, id));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_cancel(f, 0xbad));
	EXPECT_KEEPS_ERRNO(HWTIMER_STATUS_EXPIRED, hwtimer_file_modify(f, id, 0, 0, 0, &dl));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_modify(f, 0xbad, 0, 0, 0, &dl));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_get(f, id, &g));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_get(f, 0xbad, &g));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_arm_batch(f, arm, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_cancel_batch(f, can, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_modify_batch(f, mod, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_get_batch(f, get, 6, 0, &r));
	arm[5].flags = 0xbad;
	can[5].id = 0xbad;
	mod[5].id = 0xbad;
	get[5].id = 0xbad;
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_arm_batch(f, arm, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_cancel_batch(f, can, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_modify_batch(f, mod, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(-ENOENT, hwtimer_file_get_batch(f, get, 6, 0, &r));
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_get_batch(f, get, 6, 1U << 7, &r));

	/* The ring: refused, failed to map, mapped, broken by the kernel. */
	EXPECT_KEEPS_ERRNO(-EINVAL, hwtimer_file_setup_ring(f, 0));
	m.mmap_fail = ENOMEM;
	EXPECT_KEEPS_ERRNO(-ENOMEM, hwtimer_file_setup_ring(f, 1024));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_setup_ring(f, 1024));
	EXPECT_KEEPS_ERRNO(-EBUSY, hwtimer_file_setup_ring(f, 1024));
	EXPECT_KEEPS_ERRNO(1024, hwtimer_file_ring_entries(f));
	mock_expire(1024 + 10);
	EXPECT_KEEPS_ERRNO(8, hwtimer_file_reap(f, recs, 8));
	EXPECT_KEEPS_ERRNO(1016, hwtimer_file_peek(f, &p));
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_advance(f, 1016));
	/* The ring is empty, its queue not: a poll() moves it there. */
	EXPECT_KEEPS_ERRNO(10, hwtimer_file_peek(f, &p));
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_advance(f, 10));
	EXPECT_KEEPS_ERRNO(0, hwtimer_file_reap(f, recs, 8));
	*word(m.p.tail_off) = m.tail + 2000;
	EXPECT_KEEPS_ERRNO(-EIO, hwtimer_file_reap(f, recs, 8));
	EXPECT_KEEPS_ERRNO(-EIO, hwtimer_file_peek(f, &p));
	m.munmap_fail = EINVAL;
	EXPECT_VOID_KEEPS_ERRNO(hwtimer_file_close(f));

	/* Modules without the capability of rings, or of GET and CONFIG. */
	f = mock_open(NO_RING, 4096);
	ASSERT_TRUE(f != NULL);
	EXPECT_KEEPS_ERRNO(-EOPNOTSUPP, hwtimer_file_setup_ring(f, 8));
	hwtimer_file_close(f);
	f = mock_open(ALL, 4096);
	ASSERT_TRUE(f != NULL);
	m.ring_enotty = true;
	EXPECT_KEEPS_ERRNO(-EOPNOTSUPP, hwtimer_file_setup_ring(f, 8));
	hwtimer_file_close(f);
	f = mock_open(ALL, 4096);
	ASSERT_TRUE(f != NULL);
	m.corrupt = 1;
	EXPECT_KEEPS_ERRNO(-EPROTO, hwtimer_file_setup_ring(f, 8));
	EXPECT_KEEPS_ERRNO(-EPROTO, hwtimer_file_setup_ring(f, 8));
	hwtimer_file_close(f);
	f = mock_open(NO_GET_CONFIG, 4096);
	ASSERT_TRUE(f != NULL);
	EXPECT_KEEPS_ERRNO(-EOPNOTSUPP, hwtimer_file_configure(f, CLOCK_MONOTONIC, 0));
	EXPECT_KEEPS_ERRNO(-EOPNOTSUPP, hwtimer_file_get(f, 1, &g));
	EXPECT_KEEPS_ERRNO(-EOPNOTSUPP, hwtimer_file_get_batch(f, get, 1, 0, &r));
	hwtimer_file_close(f);
}

TEST_HARNESS_MAIN
