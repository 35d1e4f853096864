// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer under concurrency and limits: close() with timeouts pending
 * and expiring, fork() with a shared file, many timeouts on one file, and
 * the per-file and global caps, also hit by an unprivileged user. The
 * ledger of threads and processes arming, cancelling, modifying and
 * reading shared files, 64-bit and -m32, is stress/hwtstress-user.c.
 *
 * The cap tests lower the module parameters file_cap and global_cap, so
 * they need root (they SKIP otherwise) and restore them on the way out.
 */
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"


static uint64_t global_count(int fd)
{
	struct hwtimer_info info;

	if (ht_info(fd, &info))
		return UINT64_MAX;
	return info.global_count;
}

/* Arm @n timeouts of mixed kinds on @fd; returns how many were armed. */
static unsigned int arm_mixed(int fd, unsigned int n, uint64_t tick)
{
	struct hwtimer_arm_entry e[256];
	unsigned int k, armed = 0, chunk;
	uint32_t done;

	while (armed < n) {
		chunk = n - armed < 256 ? n - armed : 256;
		for (k = 0; k < chunk; k++) {
			unsigned int i = armed + k;

			switch (i % 4) {
			case 0:		/* expired at once */
				ht_arm_entry(&e[k], i, 0, 0, 0);
				break;
			case 1:		/* expiring while we close */
				ht_arm_entry(&e[k], i, (i % 5) * MS / 2, 0, 0);
				break;
			case 2:		/* short periodic */
				ht_arm_entry(&e[k], i, tick, tick, 0);
				break;
			default:	/* far away */
				ht_arm_entry(&e[k], i, 3600000 * MS, 0, 0);
				break;
			}
		}
		if (ht_batch(fd, HWTIMER_IOC_ARM, e, chunk, 0, &done, NULL))
			return armed + done;
		armed += chunk;
	}
	return armed;
}

TEST_F(hwt, close_with_pending)
{
	uint64_t base;
	int fd;

	HWT_NEED_DEV();
	base = global_count(self->fd);
	fd = ht_open(0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(2000, arm_mixed(fd, 2000, self->info.tick_ns));
	ASSERT_EQ(base + 2000, global_count(self->fd));
	sleep_ns(2 * MS);
	ASSERT_EQ(0, close(fd));
	/* close() freed everything before it returned. */
	ASSERT_EQ(base, global_count(self->fd));
}

/* Close while timeouts expire on the other CPU. */
TEST_F(hwt, close_racing_expiry)
{
	unsigned int round;
	uint64_t base;
	int fd;

	HWT_NEED_DEV();
	base = global_count(self->fd);
	for (round = 0; round < 40; round++) {
		fd = ht_open(0);
		ASSERT_LE(0, fd);
		ASSERT_EQ(200, arm_mixed(fd, 200, self->info.tick_ns));
		sleep_ns((round % 5) * MS / 2);
		ASSERT_EQ(0, close(fd));
	}
	ASSERT_EQ(base, global_count(self->fd));
}

static void *close_reader(void *arg)
{
	struct hwtimer_expiry r[8];
	int fd = *(int *)arg;

	while (ht_read(fd, r, 8) > 0 || errno == EAGAIN)
		;
	return NULL;
}

/* The last close() comes from another thread than the reader's. */
TEST_F(hwt, close_while_reading)
{
	pthread_t th;
	uint64_t base;
	int fd;

	HWT_NEED_DEV();
	NEED_TIME32();
	base = global_count(self->fd);
	fd = ht_open(O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1000, arm_mixed(fd, 1000, self->info.tick_ns));
	ASSERT_EQ(0, pthread_create(&th, NULL, close_reader, &fd));
	sleep_ns(3 * MS);
	ASSERT_EQ(0, close(fd));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(base, global_count(self->fd));
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Parent and child read one file: each record reaches exactly one. Both
 * read until no record comes for 100 ms, so all must be queued before
 * they start: a record the host delayed for longer would reach neither.
 */
TEST_F(hwt, fork_shared_reads)
{
	enum { N = 60 };
	struct hwtimer_arm_entry e[N];
	struct hwtimer_info info;
	uint64_t got[N], cookie, end;
	unsigned int k, n = 0;
	int p[2], status;
	pid_t pid;

	HWT_NEED_DEV();
	for (k = 0; k < N; k++)
		ht_arm_entry(&e[k], k, (k % 3) * MS, 0, 0);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, N, 0, NULL, NULL));
	end = now_ns() + HWT_WAIT_MS * MS;
	do {
		sleep_ns(MS);
		ASSERT_EQ(0, ht_info(self->fd, &info));
	} while (info.queued < N && now_ns() < end);
	ASSERT_EQ(N, info.queued) TH_LOG("%llu of %u records queued after %d ms",
					 (unsigned long long)info.queued, N, HWT_WAIT_MS);
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct hwtimer_expiry r;

		close(p[0]);
		while (ht_wait(self->fd, 100)) {
			if (ht_read(self->fd, &r, 1) == 1 &&
			    write(p[1], &r.cookie, sizeof(r.cookie)) != sizeof(r.cookie))
				_exit(2);
		}
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		struct hwtimer_expiry r;

		if (!ht_wait(self->fd, 100))
			break;
		if (ht_read(self->fd, &r, 1) == 1) {
			ASSERT_GT(N, n);
			got[n++] = r.cookie;
		}
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	while (read(p[0], &cookie, sizeof(cookie)) == sizeof(cookie)) {
		ASSERT_GT(N, n);
		got[n++] = cookie;
	}
	close(p[0]);
	ASSERT_EQ(N, n);
	qsort(got, N, sizeof(got[0]), compare_u64);
	for (k = 0; k < N; k++)
		ASSERT_EQ(k, got[k]);
}

/* A child shares the file: it can cancel the parent's timeouts. */
TEST_F(hwt, fork_child_cancels)
{
	struct hwtimer_expiry r;
	uint64_t a, b;
	int status;
	pid_t pid;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, 3600000 * MS, 0, 0, &a));
	ASSERT_EQ(0, ht_arm(self->fd, 2, 30 * MS, 0, 0, &b));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int ret = ht_cancel(self->fd, a, NULL);

		/* The child's close() is not the last: nothing is torn down. */
		close(self->fd);
		_exit(ret ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_EQ(-ENOENT, ht_cancel(self->fd, a, NULL));
	ASSERT_EQ(1, ht_read_n(self->fd, &r, 1));
	ASSERT_EQ(b, r.id);
}

TEST_F(hwt, dup_then_close_original)
{
	struct hwtimer_expiry r;
	uint64_t id;
	int fd2;

	HWT_NEED_DEV();
	ASSERT_EQ(0, ht_arm(self->fd, 1, 10 * MS, 0, 0, &id));
	fd2 = dup(self->fd);
	ASSERT_LE(0, fd2);
	close(self->fd);
	self->fd = fd2;
	ASSERT_EQ(1, ht_read_n(fd2, &r, 1));
	ASSERT_EQ(id, r.id);
}

/* Many timeouts on one file: all arrive, none early. */
TEST_F(hwt, many_timeouts)
{
	enum { N = 16384, B = HWTIMER_BATCH_MAX };
	static struct hwtimer_arm_entry e[B];
	static struct hwtimer_expiry r[512];
	static unsigned char seen[N];
	unsigned int k, b, got = 0;
	int n;

	HWT_NEED_DEV();
	for (b = 0; b < N / B; b++) {
		for (k = 0; k < B; k++)
			ht_arm_entry(&e[k], b * B + k, ((k * 31) % 40) * MS, 0, 0);
		ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, B, 0, NULL, NULL));
	}
	while (got < N) {
		ASSERT_NE(0, ht_wait(self->fd, HWT_WAIT_MS));
		n = ht_read(self->fd, r, 512);
		ASSERT_LT(0, n);
		for (k = 0; k < (unsigned int)n; k++) {
			ASSERT_GT(N, r[k].cookie);
			ASSERT_EQ(0, seen[r[k].cookie]);
			seen[r[k].cookie] = 1;
			ASSERT_LE(r[k].deadline_ns, r[k].expired_ns);
		}
		got += n;
	}
	ASSERT_EQ(0, ht_wait(self->fd, 0));
}

/* The cap tests change module parameters: root only, restored after. */
FIXTURE(cap) {
	int fd;
	long long file_cap, global_cap;
};

FIXTURE_SETUP(cap)
{
	self->fd = -1;
	self->file_cap = -1;
	if (access(HWT_DEV, F_OK))
		SKIP(return, "%s is absent", HWT_DEV);
	if (geteuid())
		SKIP(return, "changing the caps needs root");
	self->file_cap = ht_param_get("file_cap");
	self->global_cap = ht_param_get("global_cap");
	if (self->file_cap < 0 || self->global_cap < 0)
		SKIP(return, "no %sfile_cap or global_cap", HWT_PARAMS);
	self->fd = ht_open(0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(cap)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->file_cap >= 0) {
		ht_param_set("file_cap", self->file_cap);
		ht_param_set("global_cap", self->global_cap);
	}
}

#define CAP_NEED() do {							\
	if (self->fd < 0)						\
		SKIP(return, "caps cannot be changed here");		\
} while (0)

/* Arm @n far-away timeouts, continuing past failures; count results. */
static unsigned int arm_count(int fd, unsigned int n, int *err)
{
	struct hwtimer_arm_entry e[64];
	unsigned int k, ok = 0;

	*err = 0;
	for (k = 0; k < n && k < 64; k++)
		ht_arm_entry(&e[k], k, 3600000 * MS, 0, 0);
	if (ht_batch(fd, HWTIMER_IOC_ARM, e, k, HWTIMER_BATCH_CONTINUE, NULL, NULL))
		return 0;
	for (k = 0; k < n && k < 64; k++) {
		if (!e[k].result)
			ok++;
		else if (!*err)
			*err = e[k].result;
		else if (*err != e[k].result)
			*err = -EPROTO;
	}
	return ok;
}

TEST_F(cap, file_cap)
{
	struct hwtimer_info info;
	struct hwtimer_expiry r;
	uint64_t id;
	int err, fd2;
	long table;

	CAP_NEED();
	ASSERT_EQ(0, ht_param_set("file_cap", 32));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	ASSERT_EQ(32, info.file_cap);
	ASSERT_EQ(32, ht_fdinfo(self->fd, "cap"));
	ASSERT_EQ(32, arm_count(self->fd, 40, &err));
	ASSERT_EQ(-ENOSPC, err);
	ASSERT_EQ(-ENOSPC, ht_arm(self->fd, 0, 0, 0, 0, NULL));
	ASSERT_EQ(32, ht_fdinfo(self->fd, "pending"));

	/* Another file has a cap of its own. */
	fd2 = ht_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(31, arm_count(fd2, 31, &err));
	ASSERT_EQ(0, ht_arm(fd2, 0, 0, 0, 0, &id));
	ASSERT_EQ(-ENOSPC, ht_arm(fd2, 0, 0, 0, 0, NULL));
	/* Reading a one-shot record gives its place back... */
	ASSERT_EQ(1, ht_read_n(fd2, &r, 1));
	ASSERT_EQ(id, r.id);
	/* ...and so does a cancel. */
	ASSERT_EQ(0, ht_arm(fd2, 0, 3600000 * MS, 0, 0, &id));
	ASSERT_EQ(-ENOSPC, ht_arm(fd2, 0, 0, 0, 0, NULL));
	ASSERT_EQ(0, ht_cancel(fd2, id, NULL));
	ASSERT_EQ(0, ht_arm(fd2, 0, 3600000 * MS, 0, 0, &id));
	close(fd2);

	/*
	 * Above what a file's table holds (128 x 128 pages of 40-byte
	 * timeouts: 1671168 with 4 KiB pages, 26836992 with 64 KiB), the
	 * cap that takes effect is that, and INFO says so.
	 */
	table = 128 * 128 * (sysconf(_SC_PAGESIZE) / 40);
	ASSERT_EQ(0, ht_param_set("file_cap", table + 1));
	ASSERT_EQ(0, ht_info(self->fd, &info));
	EXPECT_EQ(table, (long)info.file_cap);
	EXPECT_EQ((long long)info.file_cap, ht_fdinfo(self->fd, "cap"));
}

TEST_F(cap, global_cap)
{
	uint64_t base;
	int fd2, err;

	CAP_NEED();
	base = global_count(self->fd);
	ASSERT_EQ(0, ht_param_set("global_cap", base + 20));
	ASSERT_EQ(20, arm_count(self->fd, 30, &err));
	ASSERT_EQ(-EDQUOT, err);
	fd2 = ht_open(0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(-EDQUOT, ht_arm(fd2, 0, MS, 0, 0, NULL));
	/* Closing the first file gives its share back. */
	close(self->fd);
	self->fd = fd2;
	ASSERT_EQ(20, arm_count(fd2, 20, &err));
	ASSERT_EQ(0, err);
	ASSERT_EQ(base + 20, global_count(fd2));
}

/* Anyone may open the device; an unprivileged user is held to the cap. */
/*
 * Near global_cap, an arm that fails part way never holds the cap for
 * more than it armed, not even for a moment: another process's arms that
 * fit under the cap never fail with EDQUOT (a batch that charged all its
 * entries first and gave back those after an entry that could not be
 * written would briefly take 16 places for a failing batch of 16).
 */
TEST_F_TIMEOUT(cap, global_cap_no_transient_charge, 120)
{
	size_t page = sysconf(_SC_PAGESIZE);
	volatile unsigned long *stats;
	struct hwtimer_arm_entry *e;
	unsigned long arms = 0, edquot = 0;
	uint64_t base, end, last, id;
	int fd2, status, k;
	char *map;
	pid_t pid;

	CAP_NEED();
	stats = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(stats != MAP_FAILED);
	stats[0] = 0;
	base = global_count(self->fd);
	/* Room for the 16 of a batch, or for the other process's one. */
	ASSERT_EQ(0, ht_param_set("global_cap", base + 16));
	/* 16 entries: the first on a writable page, the rest on a read-only one. */
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(map != MAP_FAILED);
	e = (struct hwtimer_arm_entry *)(map + page - sizeof(*e));
	for (k = 0; k < 16; k++)
		ht_arm_entry(&e[k], k, 3600000 * MS, 0, 0);
	ASSERT_EQ(0, mprotect(map + page, page, PROT_READ));

	fd2 = ht_open(0);
	ASSERT_LE(0, fd2);
	/*
	 * 2 s, and on (up to 30 s more) until the other process made enough
	 * arms to tell: however slow the host, the race must have run.
	 */
	end = now_ns() + 2000 * MS;
	last = end + 30 * SEC;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* One arm and one cancel at a time: always under the cap. */
		while (!stats[0] && !stats[3]) {
			int ret = ht_arm(fd2, 1, 3600000 * MS, 0, 0, &id);

			if (ret == -EDQUOT)
				stats[2]++;
			else if (ret || ht_cancel(fd2, id, NULL))
				_exit(1);
			stats[1]++;
		}
		_exit(0);
	}
	while (now_ns() < end || (stats[1] <= 100 && now_ns() < last)) {
		uint32_t done = 0;
		int ret = ht_batch(self->fd, HWTIMER_IOC_ARM, e, 16, 0, &done, NULL);

		arms++;
		if (ret == -EFAULT && done == 1 && !e[0].result) {
			ASSERT_EQ(0, ht_cancel(self->fd, e[0].id, NULL));
		} else if (ret != -EDQUOT) {
			/* EDQUOT: the other process held its one place. */
			stats[0] = 1;
			ASSERT_EQ(-EFAULT, ret) TH_LOG("done %u", done);
		}
	}
	stats[3] = 1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	edquot = stats[2];
	TH_LOG("%lu failing batches, %lu single arms, %lu of them EDQUOT", arms,
	       (unsigned long)stats[1], edquot);
	ASSERT_LT(100, stats[1]) TH_LOG("too few arms to tell");
	ASSERT_EQ(0, edquot) TH_LOG("arms under global_cap failed with EDQUOT");
	close(fd2);
	munmap(map, 2 * page);
	munmap((void *)stats, page);
}

TEST_F(cap, unprivileged_user)
{
	int status;
	pid_t pid;

	CAP_NEED();
	ASSERT_EQ(0, ht_param_set("file_cap", 16));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct hwtimer_info info;
		int fd, err;

		close(self->fd);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		if (geteuid() != 65534 || !setuid(0))
			_exit(11);
		fd = ht_open(0);
		if (fd < 0)
			_exit(12);
		if (ht_info(fd, &info) || info.file_cap != 16)
			_exit(13);
		if (arm_count(fd, 24, &err) != 16 || err != -ENOSPC)
			_exit(14);
		/* It cannot lift the cap either. */
		if (ht_param_set("file_cap", 1000) != -EACCES)
			_exit(15);
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
