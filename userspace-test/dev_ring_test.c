// SPDX-License-Identifier: GPL-2.0
/*
 * The completion ring of /dev/hwtimer (HWTIMER_IOC_RING, mmap()). Records go to the ring while it has room and nothing waits in
 * the kernel queue, else to that queue, where read() takes them and from
 * where they move to the ring as it frees up; the head user space writes
 * is hostile input (hwtimer(4), RING).
 */
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#define PAGE	((size_t)sysconf(_SC_PAGESIZE))

/* Arm @n timeouts due now, cookies @cookie0..; their ids in @ids. */
static int arm_due(int fd, unsigned int n, uint64_t cookie0, uint64_t *ids)
{
	struct hwtimer_arm_entry e[256];
	unsigned int k;
	int ret;

	if (n > 256)
		return -E2BIG;
	for (k = 0; k < n; k++)
		ht_arm_entry(&e[k], cookie0 + k, 0, 0, 0);
	ret = ht_batch(fd, HWTIMER_IOC_ARM, e, n, 0, NULL, NULL);
	for (k = 0; ids && k < n; k++)
		ids[k] = e[k].id;
	return ret;
}

/* Bad parameters change nothing; a good one reports a sane layout. */
TEST_F(hwt, ring_setup_errors)
{
	struct hwtimer_ring_params p;

	HWT_NEED_DEV();
	ASSERT_TRUE(self->info.features & HWTIMER_FEAT_RING);
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_EQ(EINVAL, errno) TH_LOG("0 entries");
	p.entries = HWTIMER_RING_MAX + 1;
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_EQ(EINVAL, errno) TH_LOG("entries above HWTIMER_RING_MAX");
	p.entries = 4;
	p.flags = 1;
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_EQ(EINVAL, errno) TH_LOG("a flag");
	p.flags = 0;
	p.reserved[3] = 1;
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_EQ(EINVAL, errno) TH_LOG("reserved[3]");
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, (void *)8));
	ASSERT_EQ(EFAULT, errno);
	ASSERT_EQ(0, ht_fdinfo(self->fd, "ring")) TH_LOG("a failed call made a ring");

	memset(&p, 0, sizeof(p));
	p.entries = 5;
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_RING, &p)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(8, p.entries) TH_LOG("5 entries not rounded up to 8");
	ASSERT_EQ(0, p.mmap_size % PAGE);
	ASSERT_EQ(0, p.head_off % 4);
	ASSERT_EQ(0, p.tail_off % 4);
	ASSERT_EQ(0, p.flags_off % 4);
	ASSERT_EQ(0, p.records_off % 8);
	ASSERT_TRUE(p.head_off != p.tail_off && p.tail_off != p.flags_off &&
		    p.head_off != p.flags_off);
	ASSERT_LE(p.head_off + 4, p.records_off);
	ASSERT_LE(p.tail_off + 4, p.records_off);
	ASSERT_LE(p.flags_off + 4, p.records_off);
	ASSERT_LE(p.records_off + 8 * sizeof(struct hwtimer_expiry), p.mmap_size);
	ASSERT_EQ(8, ht_fdinfo(self->fd, "ring"));
	/* One ring per file. */
	p.entries = 16;
	ASSERT_EQ(-1, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_EQ(EBUSY, errno);
	p.entries = HWTIMER_RING_MAX;
	{
		int fd2 = ht_open(0);

		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, ioctl(fd2, HWTIMER_IOC_RING, &p));
		ASSERT_EQ(HWTIMER_RING_MAX, p.entries);
		close(fd2);
	}
}

/* mmap() takes exactly the ring: offset, length, shared, not executable. */
TEST_F(hwt, ring_mmap_errors)
{
	/*
	 * A ring of more than a page at any page size (256 records with 4
	 * KiB pages, 4096 with 64 KiB), so that a mapping a page short is
	 * not empty.
	 */
	struct hwtimer_ring_params p = {
		.entries = 2 * PAGE / sizeof(struct hwtimer_expiry),
	};
	void *m;

	HWT_NEED_DEV();
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(ENODEV, errno) TH_LOG("mmap with no ring");
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	ASSERT_LT(PAGE, p.mmap_size);
	m = mmap(NULL, p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, PAGE);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(EINVAL, errno) TH_LOG("offset");
	m = mmap(NULL, p.mmap_size - PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(EINVAL, errno) TH_LOG("short");
	m = mmap(NULL, p.mmap_size + PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(EINVAL, errno) TH_LOG("long");
	m = mmap(NULL, p.mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd, 0);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(EINVAL, errno) TH_LOG("MAP_PRIVATE");
	m = mmap(NULL, p.mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m == MAP_FAILED);
	ASSERT_EQ(EPERM, errno) TH_LOG("PROT_EXEC");

	m = mmap(NULL, p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_TRUE(m != MAP_FAILED) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, *(uint32_t *)((char *)m + p.head_off));
	ASSERT_EQ(0, *(uint32_t *)((char *)m + p.tail_off));
	ASSERT_EQ(-1, mprotect(m, p.mmap_size, PROT_READ | PROT_EXEC));
	ASSERT_EQ(EACCES, errno) TH_LOG("mprotect to executable");
	/* Read only is fine; then the last page, touched, is there. */
	ASSERT_EQ(0, mprotect(m, p.mmap_size, PROT_READ));
	ASSERT_EQ(0, *((volatile char *)m + p.mmap_size - 1));
	ASSERT_EQ(0, munmap(m, p.mmap_size));
}

/*
 * No mapping covers more than the ring: not the offset just past it mapped
 * right after a mapping of it (mm merges a new mapping into an adjacent
 * one of the same file whose flags match, without asking the device), not
 * mremap() growing one in place. Either would give pages that raise SIGBUS.
 */
TEST_F(hwt, ring_mmap_no_expand)
{
	struct hwtimer_ring_params p = { .entries = 8 };
	char *m, *r, *x;
	size_t len;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ioctl(self->fd, HWTIMER_IOC_RING, &p));
	len = p.mmap_size;
	m = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(m != MAP_FAILED) TH_LOG("%s", strerror(errno));
	r = mmap(m, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, self->fd, 0);
	ASSERT_TRUE(r == m) TH_LOG("the ring at %p: %s", m, strerror(errno));
	x = mmap(m + len, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, self->fd, len);
	ASSERT_TRUE(x == MAP_FAILED) TH_LOG("offset %#zx, right after the ring, mapped", len);
	ASSERT_EQ(EINVAL, errno) TH_LOG("offset just past the ring, adjacent");
	ASSERT_EQ(0, munmap(m + len, len));
	x = mremap(m, len, 2 * len, 0);
	ASSERT_TRUE(x == MAP_FAILED) TH_LOG("mremap() grew the ring's mapping");
	ASSERT_EQ(EFAULT, errno) TH_LOG("mremap() to grow");
	x = mremap(m, len, 2 * len, MREMAP_MAYMOVE);
	ASSERT_TRUE(x == MAP_FAILED) TH_LOG("mremap(MREMAP_MAYMOVE) grew the ring's mapping");
	ASSERT_EQ(EFAULT, errno) TH_LOG("mremap(MREMAP_MAYMOVE) to grow");
	/* Still the ring, all of it. */
	ASSERT_EQ(0, *(volatile uint32_t *)(m + p.head_off));
	ASSERT_EQ(0, *((volatile char *)m + len - 1));
	ASSERT_EQ(0, munmap(m, len));
}

/* Records land in the ring, consumed: no longer in the kernel, ids dead. */
TEST_F(hwt, ring_records)
{
	struct hwtimer_expiry r[16];
	struct hwtimer_info info;
	struct ht_ring ring;
	uint64_t ids[16], t0 = now_ns();
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 64, &ring));
	ASSERT_EQ(0, arm_due(self->fd, 10, 100, ids));
	ASSERT_EQ(10, ht_ring_count(&ring)) TH_LOG("due arms must be in the ring on return");
	ASSERT_EQ(0, ht_arm(self->fd, 110, 50 * MS, 0, 0, &ids[10]));
	ASSERT_EQ(11, ht_ring_wait(self->fd, &ring, 11, HWT_WAIT_MS));
	ASSERT_EQ(0, *ring.flags);
	ASSERT_EQ(11, ht_ring_reap(&ring, r, 16));
	for (k = 0; k < 11; k++) {
		ASSERT_EQ(ids[k], r[k].id) TH_LOG("record %u", k);
		ASSERT_EQ(100 + k, r[k].cookie);
		ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		ASSERT_LE(t0, r[k].expired_ns);
		ASSERT_LE(r[k].expired_ns, now_ns());
		ASSERT_EQ(0, r[k].flags);
		ASSERT_EQ(0, r[k].reserved);
		ASSERT_EQ(0, r[k].overrun);
		if (k)
			ASSERT_LE(r[k - 1].expired_ns, r[k].expired_ns);
	}
	/* A record in the ring is consumed: nothing counts, the id is dead. */
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.pending);
	ASSERT_EQ(0, info.queued);
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, ids[0], NULL));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, ids[10], NULL));
	ASSERT_EQ(0, ht_wait(self->fd, 0)) TH_LOG("readable with the ring consumed");
	{
		int fl = fcntl(self->fd, F_GETFL);

		fcntl(self->fd, F_SETFL, fl | O_NONBLOCK);
		ASSERT_EQ(-EAGAIN, ht_read(self->fd, r, 16));
	}
}

/* A full ring: the rest waits in the kernel for read(), newer, in order. */
TEST_F(hwt, ring_overflow_read)
{
	struct hwtimer_expiry r[16], q[16];
	struct hwtimer_info info;
	struct ht_ring ring;
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 4, &ring));
	ASSERT_EQ(0, arm_due(self->fd, 10, 0, NULL));
	ASSERT_EQ(4, ht_ring_count(&ring));
	ASSERT_EQ(HWTIMER_RING_OVERFLOW, *ring.flags);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(6, info.queued);
	ASSERT_EQ(6, ht_read(self->fd, q, 16));
	ASSERT_EQ(0, *ring.flags) TH_LOG("OVERFLOW still set with the queue empty");
	ASSERT_EQ(4, ht_ring_reap(&ring, r, 16));
	for (k = 0; k < 4; k++)
		ASSERT_EQ(k, r[k].cookie);
	for (k = 0; k < 6; k++) {
		ASSERT_EQ(4 + k, q[k].cookie) TH_LOG("read record %u", k);
		ASSERT_LE(r[3].expired_ns, q[k].expired_ns);
	}
}

/* Room in the ring again: queued records move in, on poll or an ioctl. */
TEST_F(hwt, ring_refill)
{
	struct hwtimer_expiry r[16];
	struct hwtimer_get_entry g;
	struct ht_ring ring;
	uint64_t ids[6];

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 4, &ring));
	ASSERT_EQ(0, arm_due(self->fd, 6, 0, ids));
	ASSERT_EQ(4, ht_ring_reap(&ring, r, 16));
	ASSERT_EQ(HWTIMER_RING_OVERFLOW, *ring.flags);
	ASSERT_EQ(POLLIN, ht_wait(self->fd, 0) & POLLIN);
	ASSERT_EQ(2, ht_ring_count(&ring)) TH_LOG("poll() did not move the queue to the ring");
	ASSERT_EQ(0, *ring.flags);
	ASSERT_EQ(2, ht_ring_reap(&ring, r, 16));
	ASSERT_EQ(4, r[0].cookie);
	ASSERT_EQ(5, r[1].cookie);

	/* A batch ioctl moves them too; the queued one GET saw is gone. */
	ASSERT_EQ(0, arm_due(self->fd, 6, 10, ids));
	ASSERT_EQ(0, ht_get(self->fd, ids[5], &g));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, g.status);
	ASSERT_EQ(4, ht_ring_reap(&ring, r, 16));
	ASSERT_EQ(-ENOENT, ht_get(self->fd, ids[0], &g));
	ASSERT_EQ(2, ht_ring_count(&ring)) TH_LOG("GET did not move the queue to the ring");
	ASSERT_EQ(-ENOENT, ht_get(self->fd, ids[5], &g));
}

/*
 * poll() and a batch ioctl move queued records to the ring as far as it
 * has room, not only the first few: the ring is full again after each.
 */
TEST_F(hwt, ring_refill_all)
{
	struct hwtimer_expiry r[128];
	struct hwtimer_get_entry g;
	struct hwtimer_info info;
	struct ht_ring ring;
	unsigned int k, got, next = 0;
	int ret;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 128, &ring));
	for (k = 0; k < 4; k++)
		ASSERT_EQ(0, arm_due(self->fd, 256, 256 * k, NULL));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(896, info.queued);
	for (k = 0; k < 8; k++) {
		ASSERT_EQ(128, ht_ring_count(&ring)) TH_LOG("round %u", k);
		got = ht_ring_reap(&ring, r, 128);
		ASSERT_EQ(128, got);
		for (; got; got--, next++)
			ASSERT_EQ(next, r[128 - got].cookie) TH_LOG("records out of order");
		/* A record in the ring consumed its timeout: its id is dead. */
		if (k % 2)
			ret = ht_get(self->fd, r[0].id, &g);
		else
			ret = ht_wait(self->fd, 0) & POLLIN;
		ASSERT_EQ(k % 2 ? -ENOENT : POLLIN, ret);
		if (k < 7)
			ASSERT_EQ(128, ht_ring_count(&ring))
				TH_LOG("%s left %u records in a ring with room for 128",
				       k % 2 ? "GET" : "poll()", ht_ring_count(&ring));
	}
	ASSERT_EQ(1024, next);
	ASSERT_EQ(0, ht_ring_count(&ring));
	ASSERT_EQ(0, *ring.flags);
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(0, info.queued);
}

/*
 * A periodic timeout fills the ring a record per period, then leaves one
 * record in the kernel and stops: at most one record in the kernel.
 */
TEST_F(hwt, ring_periodic)
{
	uint64_t period = self->info.tick_ns, id, end;
	struct hwtimer_expiry r[8];
	struct hwtimer_info info;
	struct ht_ring ring;
	uint32_t status;
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 8, &ring));
	ASSERT_EQ(0, ht_arm(self->fd, 7, period, period, 0, &id));
	ASSERT_EQ(8, ht_ring_wait(self->fd, &ring, 8, HWT_WAIT_MS));
	/* The next record finds the ring full, a tick later or when the host lets it. */
	end = now_ns() + HWT_WAIT_MS * MS;
	while (!(*ring.flags & HWTIMER_RING_OVERFLOW) && now_ns() < end)
		sleep_ns(period);
	ASSERT_EQ(HWTIMER_RING_OVERFLOW, *ring.flags);
	sleep_ns(20 * period);
	ASSERT_EQ(8, ht_ring_count(&ring));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(1, info.queued) TH_LOG("a periodic timeout has one record in the kernel at most");
	ASSERT_EQ(0, info.pending);
	/* Its queued record goes with a cancel (the ring is still full). */
	ASSERT_EQ(0, ht_cancel(self->fd, id, &status));
	ASSERT_EQ(HWTIMER_STATUS_EXPIRED, status);
	ASSERT_EQ(0, *ring.flags);
	ASSERT_EQ(8, ht_ring_reap(&ring, r, 8));
	for (k = 0; k < 8; k++) {
		ASSERT_EQ(id, r[k].id);
		ASSERT_EQ(HWTIMER_EXPIRY_REARMED, r[k].flags);
		ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		if (k)
			ASSERT_EQ(r[k - 1].deadline_ns + (r[k - 1].overrun + 1) * period,
				  r[k].deadline_ns) TH_LOG("record %u", k);
	}
	ASSERT_EQ(0, ht_wait(self->fd, 0));
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, id, NULL));
}

/* A hostile head: the ring counts as full; a sane one makes room again. */
TEST_F(hwt, ring_hostile_head)
{
	/* With the tail at 0, each claims more than 8 records. */
	static const uint32_t heads[] = { 100, 0x80000000u, 0xfffffff0u, 9 };
	struct hwtimer_expiry r[8];
	struct hwtimer_info info;
	struct ht_ring ring;
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 8, &ring));
	for (k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
		*ring.head = heads[k];
		ASSERT_EQ(0, arm_due(self->fd, 1, k, NULL));
		ASSERT_EQ(0, *ring.tail) TH_LOG("head %#x: a record was written", heads[k]);
		ASSERT_EQ(HWTIMER_RING_OVERFLOW, *ring.flags);
		ASSERT_EQ(POLLIN, ht_wait(self->fd, 0) & POLLIN);
	}
	/* Scribbles anywhere in the shared pages do not matter to the kernel. */
	memset(ring.recs, 0xa5, 8 * sizeof(*ring.recs));
	*ring.tail = 12345;
	*ring.flags = 0xffffffff;
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(4, info.queued);
	*ring.head = 0;
	ASSERT_EQ(POLLIN, ht_wait(self->fd, 0) & POLLIN);
	ASSERT_EQ(4, *ring.tail) TH_LOG("the kernel's tail is its own");
	ASSERT_EQ(0, *ring.flags);
	ASSERT_EQ(4, ht_ring_reap(&ring, r, 8));
	for (k = 0; k < 4; k++)
		ASSERT_EQ(k, r[k].cookie);
}

static atomic_int ring_alarms;

static void ring_on_alarm(int sig)
{
	ring_alarms++;
}

/*
 * read() takes the kernel queue only, and blocks until a record is queued
 * (hwtimer(4), read): a record that finds the ring full of records user
 * space has not consumed goes to the queue and must wake it, although the
 * file already had a record (the ring's) and its pollers are not woken.
 */
TEST_F(hwt, ring_full_read_wakes)
{
	struct itimerval it = { .it_value = { .tv_sec = 5 } }, off = { };
	struct hwtimer_expiry r;
	struct sigaction sa;
	struct ht_ring ring;
	int n;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 1, &ring));
	ASSERT_EQ(0, arm_due(self->fd, 1, 1, NULL));
	ASSERT_EQ(1, ht_ring_count(&ring)) TH_LOG("the due record is not in the ring");
	ASSERT_EQ(0, ht_arm(self->fd, 2, 50 * MS, 0, 0, NULL));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ring_on_alarm;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ring_alarms = 0;
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	n = ht_read(self->fd, &r, 1);
	setitimer(ITIMER_REAL, &off, NULL);
	ASSERT_EQ(1, n) TH_LOG("read() gave %d (%s), %d alarms: a record behind the full ring",
			       n, n < 0 ? strerror(-n) : "", ring_alarms);
	ASSERT_EQ(2, r.cookie);
	ASSERT_EQ(1, ht_ring_count(&ring)) TH_LOG("the ring's record moved");
}

static int epoll_events(int ep, int ms)
{
	struct epoll_event ev;

	return epoll_wait(ep, &ev, 1, ms);
}

/*
 * Edge-triggered epoll with a ring: an event when records arrive in an
 * empty ring, none for records behind unconsumed ones.
 */
TEST_F(hwt, ring_epoll_et)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	struct ht_ring ring;
	int ep;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 16, &ring));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(0, epoll_events(ep, 0));
	ASSERT_EQ(0, arm_due(self->fd, 1, 1, NULL));
	ASSERT_EQ(1, epoll_events(ep, 0));
	ASSERT_EQ(0, epoll_events(ep, 0));
	ASSERT_EQ(0, arm_due(self->fd, 1, 2, NULL));
	ASSERT_EQ(0, epoll_events(ep, 0)) TH_LOG("an event for a record behind an unconsumed one");
	ASSERT_EQ(2, ht_ring_reap(&ring, NULL, 16));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	ASSERT_EQ(0, ht_ring_count(&ring));
	ASSERT_EQ(0, ht_arm(self->fd, 3, 10 * MS, 0, 0, NULL));
	ASSERT_EQ(1, epoll_events(ep, HWT_WAIT_MS)) TH_LOG("no event for the consumed ring's next record");
	ASSERT_EQ(1, ht_ring_reap(&ring, NULL, 16));
	close(ep);
}

/*
 * The mapping outlives close() (it holds the file), a forked child shares
 * the ring, and unmapping under load hurts nothing.
 */
TEST_F(hwt, ring_fork_close_munmap)
{
	struct hwtimer_expiry r[64];
	struct ht_ring ring;
	uint64_t id;
	int status;
	pid_t pid;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_ring_setup(self->fd, 64, &ring));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(arm_due(self->fd, 3, 40, NULL) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(3, ht_ring_reap(&ring, r, 64)) TH_LOG("the child's records are not in the ring");
	ASSERT_EQ(40, r[0].cookie);

	/* Unmapped under load: records go on, into the ring, then the queue. */
	ASSERT_EQ(0, ht_arm(self->fd, 9, self->info.tick_ns, self->info.tick_ns, 0, &id));
	ASSERT_EQ(0, arm_due(self->fd, 100, 0, NULL));
	ASSERT_EQ(0, munmap(ring.map, ring.p.mmap_size));
	sleep_ns(10 * self->info.tick_ns);
	ASSERT_LT(0, ht_read(self->fd, r, 64)) TH_LOG("no record in the kernel queue");
	ASSERT_EQ(0, ht_cancel(self->fd, id, NULL));

	/* Mapped again, then the file closed: the mapping keeps working. */
	ASSERT_EQ(0, ht_arm(self->fd, 11, 0, 0, 0, NULL));
	ring.map = mmap(NULL, ring.p.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			self->fd, HWTIMER_RING_OFF);
	ASSERT_TRUE(ring.map != MAP_FAILED);
	ring.head = (uint32_t *)(ring.map + ring.p.head_off);
	ring.tail = (uint32_t *)(ring.map + ring.p.tail_off);
	ring.recs = (struct hwtimer_expiry *)(ring.map + ring.p.records_off);
	close(self->fd);
	self->fd = -1;
	ASSERT_LT(0, ht_ring_count(&ring));
	*ring.head = *ring.tail;
	ASSERT_EQ(0, munmap(ring.map, ring.p.mmap_size));
}

/*
 * Records leave in the order their timeouts expired: expired_ns never
 * goes back, and a record never follows one whose deadline is a tick or
 * more later (tick order).
 *
 * The 200 deadlines begin 500 ms after the arm: one armed after its tick
 * passed would expire at its arm, out of order. A host that took longer to
 * arm them gets one more try, on a new file, with ten times the margin.
 */
TEST_F(hwt, ring_order)
{
	struct hwtimer_arm_entry e[200];
	struct hwtimer_expiry r[200];
	uint64_t base, margin = 500 * MS, tick = self->info.tick_ns, maxd = 0;
	struct ht_ring ring;
	unsigned int k, got = 0, try;

	HWT_NEED_DEV();
	for (try = 0; ; try++, margin *= 10) {
		ASSERT_EQ(0, ht_ring_setup(self->fd, 256, &ring));
		base = now_ns() + margin;
		srand(7);
		for (k = 0; k < 200; k++)
			ht_arm_entry(&e[k], k, base + (uint64_t)(rand() % 5000) * 10000, 0,
				     HWTIMER_TIMEOUT_ABS);
		ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, 200, 0, NULL, NULL));
		if (now_ns() < base)
			break;
		ASSERT_EQ(0, try) TH_LOG("arming 200 timeouts took over %llu ms, and then %llu",
					 (unsigned long long)margin / MS / 10,
					 (unsigned long long)margin / MS);
		TH_LOG("arming 200 timeouts took over %llu ms: again",
		       (unsigned long long)margin / MS);
		munmap(ring.map, ring.p.mmap_size);
		close(self->fd);
		self->fd = ht_open(0);
		ASSERT_LE(0, self->fd);
	}
	ASSERT_EQ(200, ht_ring_wait(self->fd, &ring, 200, HWT_WAIT_MS + margin / MS));
	got = ht_ring_reap(&ring, r, 200);
	ASSERT_EQ(200, got);
	for (k = 0; k < got; k++) {
		ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		if (k)
			ASSERT_LE(r[k - 1].expired_ns, r[k].expired_ns) TH_LOG("record %u", k);
		ASSERT_LT(maxd, r[k].deadline_ns + tick)
			TH_LOG("record %u, deadline %llu, after one of deadline %llu", k,
			       (unsigned long long)r[k].deadline_ns, (unsigned long long)maxd);
		if (r[k].deadline_ns > maxd)
			maxd = r[k].deadline_ns;
	}
}

/* CLOCK_BOOTTIME now, ns. */
static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * HWTIMER_IOC_CONFIG leaves the ring alone: records in it have left the
 * kernel, so they do not make CONFIG fail with EBUSY, and they keep the
 * clock they were written on (hwtimer(4), RING); records written after it
 * are on the new clock.
 */
TEST_F(hwt, ring_config_keeps_records)
{
	struct hwtimer_expiry before[2], r[4];
	uint64_t ids[2], b0, b1, m0, m1;
	struct hwtimer_info info;
	struct ht_ring ring;
	unsigned int k;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_BOOTTIME, HWTIMER_PRECISION_DEFAULT));
	ASSERT_EQ(0, ht_ring_setup(self->fd, 8, &ring));
	b0 = boot_ns();
	ASSERT_EQ(0, arm_due(self->fd, 2, 100, ids));
	b1 = boot_ns();
	ASSERT_EQ(2, ht_ring_count(&ring)) TH_LOG("due arms must be in the ring on return");
	memcpy(before, &ring.recs[0], sizeof(before));
	ASSERT_EQ(0, ht_config(self->fd, CLOCK_MONOTONIC, HWTIMER_PRECISION_DEFAULT))
		TH_LOG("records in the ring are no timeouts of the file: CONFIG must not fail");
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(CLOCK_MONOTONIC, info.clockid);
	m0 = now_ns();
	ASSERT_EQ(0, arm_due(self->fd, 1, 102, NULL));
	m1 = now_ns();
	ASSERT_EQ(3, ht_ring_reap(&ring, r, 4));
	ASSERT_EQ(0, memcmp(before, r, sizeof(before)))
		TH_LOG("CONFIG changed the records already in the ring");
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(ids[k], r[k].id);
		ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		ASSERT_LE(b0, r[k].deadline_ns)
			TH_LOG("record %u: deadline %llu before CLOCK_BOOTTIME %llu at the arm", k,
			       (unsigned long long)r[k].deadline_ns, (unsigned long long)b0);
		ASSERT_LE(r[k].expired_ns, b1)
			TH_LOG("record %u: expired %llu after CLOCK_BOOTTIME %llu after the arm", k,
			       (unsigned long long)r[k].expired_ns, (unsigned long long)b1);
	}
	ASSERT_EQ(102, r[2].cookie);
	ASSERT_LE(m0, r[2].deadline_ns)
		TH_LOG("deadline %llu before CLOCK_MONOTONIC %llu at the arm",
		       (unsigned long long)r[2].deadline_ns, (unsigned long long)m0);
	ASSERT_LE(r[2].deadline_ns, r[2].expired_ns);
	ASSERT_LE(r[2].expired_ns, m1)
		TH_LOG("expired %llu after CLOCK_MONOTONIC %llu after the arm",
		       (unsigned long long)r[2].expired_ns, (unsigned long long)m1);
}

TEST_HARNESS_MAIN
