// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer under concurrency and limits: close() with timeouts pending
 * and expiring, fork() with a shared file, threads arming, cancelling,
 * modifying and reading one file with a final ledger, and the per-file and
 * global caps, also hit by an unprivileged user.
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

/* Parent and child read one file: each record reaches exactly one. */
TEST_F(hwt, fork_shared_reads)
{
	enum { N = 60 };
	struct hwtimer_arm_entry e[N];
	uint64_t got[N], cookie;
	unsigned int k, n = 0;
	int p[2], status;
	pid_t pid;

	HWT_NEED_DEV();
	for (k = 0; k < N; k++)
		ht_arm_entry(&e[k], k, (k % 3) * MS, 0, 0);
	ASSERT_EQ(0, ht_batch(self->fd, HWTIMER_IOC_ARM, e, N, 0, NULL, NULL));
	sleep_ns(5 * MS);
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

/*
 * The ledger: armers, a canceller, a modifier and readers share one file.
 * In the end every timeout armed was read exactly once or cancelled
 * exactly once, never both.
 */
#define LEDGER_N	3000
#define LEDGER_ARMERS	2
#define LEDGER_READERS	2

struct ledger {
	int fd;
	uint64_t ids[LEDGER_N];
	uint64_t read_ids[LEDGER_N];
	uint32_t published[LEDGER_N];
	uint32_t reads[LEDGER_N];
	uint32_t cancels[LEDGER_N];
	uint32_t armed;
	uint32_t bad;
	uint32_t early;
	uint32_t stop_readers;
	uint32_t armers_done;
};

struct armer_arg {
	struct ledger *l;
	unsigned int first, last;
};

static void *ledger_armer(void *arg)
{
	struct armer_arg *a = arg;
	struct ledger *l = a->l;
	struct hwtimer_arm_entry e[25];
	unsigned int s, k, n;

	for (s = a->first; s < a->last; s += n) {
		n = a->last - s < 25 ? a->last - s : 25;
		for (k = 0; k < n; k++)
			ht_arm_entry(&e[k], s + k, ((s + k) % 41) * MS / 2, 0, 0);
		if (ht_batch(l->fd, HWTIMER_IOC_ARM, e, n, 0, NULL, NULL)) {
			__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
			break;
		}
		for (k = 0; k < n; k++) {
			l->ids[s + k] = e[k].id;
			__atomic_store_n(&l->published[s + k], 1, __ATOMIC_RELEASE);
		}
		__atomic_add_fetch(&l->armed, n, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&l->armers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A random published slot, or -1. */
static int ledger_pick(struct ledger *l, unsigned int *seed)
{
	unsigned int s = rand_r(seed) % LEDGER_N;

	return __atomic_load_n(&l->published[s], __ATOMIC_ACQUIRE) ? (int)s : -1;
}

/*
 * The canceller (@cancel) or the modifier: batches of up to @batch random
 * published timeouts (picked from @tries slots) until the armers are done,
 * then 50 rounds more. Only a cancel settles a timeout, so only cancels
 * are counted; a modify pushes one to 0 to 3 ms from now.
 */
struct batcher_arg {
	struct ledger *l;
	bool cancel;
	unsigned int seed, tries, batch;
};

static void *ledger_batcher(void *arg)
{
	struct batcher_arg *b = arg;
	struct ledger *l = b->l;
	union {
		struct hwtimer_cancel_entry c[16];
		struct hwtimer_modify_entry m[16];
	} e;
	unsigned int seed = b->seed, k, n, rounds = 0;
	int slot[16], result;

	while (__atomic_load_n(&l->armers_done, __ATOMIC_ACQUIRE) < LEDGER_ARMERS ||
	       rounds++ < 50) {
		memset(&e, 0, sizeof(e));
		for (n = 0, k = 0; k < b->tries && n < b->batch; k++) {
			slot[n] = ledger_pick(l, &seed);
			if (slot[n] < 0)
				continue;
			if (b->cancel) {
				e.c[n].id = l->ids[slot[n]];
			} else {
				e.m[n].id = l->ids[slot[n]];
				e.m[n].expires_ns = (rand_r(&seed) % 4) * MS;
			}
			n++;
		}
		if (!n)
			continue;
		if (ht_batch(l->fd, b->cancel ? HWTIMER_IOC_CANCEL : HWTIMER_IOC_MODIFY, &e, n,
			     HWTIMER_BATCH_CONTINUE, NULL, NULL)) {
			__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
			break;
		}
		for (k = 0; k < n; k++) {
			result = b->cancel ? e.c[k].result : e.m[k].result;
			if (!result && b->cancel)
				__atomic_add_fetch(&l->cancels[slot[k]], 1, __ATOMIC_RELAXED);
			else if (result && result != -ENOENT)
				__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
		}
		sleep_ns(MS / 4);
	}
	return NULL;
}

static void *ledger_reader(void *arg)
{
	struct ledger *l = arg;
	struct hwtimer_expiry r[32];
	int n, k;

	while (!__atomic_load_n(&l->stop_readers, __ATOMIC_ACQUIRE)) {
		if (!ht_wait(l->fd, 20))
			continue;
		n = ht_read(l->fd, r, 32);
		if (n == -EAGAIN)
			continue;
		if (n < 0) {
			__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
			break;
		}
		for (k = 0; k < n; k++) {
			if (r[k].cookie >= LEDGER_N) {
				__atomic_add_fetch(&l->bad, 1, __ATOMIC_RELAXED);
				continue;
			}
			if (r[k].expired_ns < r[k].deadline_ns)
				__atomic_add_fetch(&l->early, 1, __ATOMIC_RELAXED);
			l->read_ids[r[k].cookie] = r[k].id;
			__atomic_add_fetch(&l->reads[r[k].cookie], 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(hwt, threads_ledger, 300)
{
	pthread_t armers[LEDGER_ARMERS], readers[LEDGER_READERS], canceller, modifier;
	struct armer_arg aa[LEDGER_ARMERS];
	struct batcher_arg ca, ma;
	unsigned int k, nread = 0, ncancel = 0;
	struct hwtimer_info info;
	struct ledger *l;
	uint64_t *ids;

	HWT_NEED_DEV();
	NEED_TIME32();
	l = calloc(1, sizeof(*l));
	ASSERT_TRUE(l != NULL);
	l->fd = self->fd;
	ASSERT_EQ(0, fcntl(self->fd, F_SETFL, O_NONBLOCK));
	for (k = 0; k < LEDGER_READERS; k++)
		ASSERT_EQ(0, pthread_create(&readers[k], NULL, ledger_reader, l));
	ca = (struct batcher_arg){ l, true, 1, 64, 16 };
	ma = (struct batcher_arg){ l, false, 2, 32, 8 };
	ASSERT_EQ(0, pthread_create(&canceller, NULL, ledger_batcher, &ca));
	ASSERT_EQ(0, pthread_create(&modifier, NULL, ledger_batcher, &ma));
	for (k = 0; k < LEDGER_ARMERS; k++) {
		aa[k] = (struct armer_arg){ l, k * LEDGER_N / LEDGER_ARMERS,
					    (k + 1) * LEDGER_N / LEDGER_ARMERS };
		ASSERT_EQ(0, pthread_create(&armers[k], NULL, ledger_armer, &aa[k]));
	}
	for (k = 0; k < LEDGER_ARMERS; k++)
		ASSERT_EQ(0, pthread_join(armers[k], NULL));
	ASSERT_EQ(0, pthread_join(canceller, NULL));
	ASSERT_EQ(0, pthread_join(modifier, NULL));
	/* Let everything left expire and be read. */
	for (k = 0; k < 2000; k++) {
		ASSERT_EQ(0, ht_info(self->fd, &info));
		if (!info.pending && !info.queued)
			break;
		sleep_ns(5 * MS);
	}
	ASSERT_EQ(0, info.pending);
	ASSERT_EQ(0, info.queued);
	__atomic_store_n(&l->stop_readers, 1, __ATOMIC_RELEASE);
	for (k = 0; k < LEDGER_READERS; k++)
		ASSERT_EQ(0, pthread_join(readers[k], NULL));

	ASSERT_EQ(0, l->bad);
	ASSERT_EQ(0, l->early);
	ASSERT_EQ(LEDGER_N, l->armed);
	for (k = 0; k < LEDGER_N; k++) {
		ASSERT_EQ(1, l->reads[k] + l->cancels[k])
			TH_LOG("timeout %u: read %u times, cancelled %u times",
			       k, l->reads[k], l->cancels[k]);
		if (l->reads[k])
			ASSERT_EQ(l->ids[k], l->read_ids[k]);
		nread += l->reads[k];
		ncancel += l->cancels[k];
	}
	ids = malloc(sizeof(*ids) * LEDGER_N);
	ASSERT_TRUE(ids != NULL);
	memcpy(ids, l->ids, sizeof(*ids) * LEDGER_N);
	qsort(ids, LEDGER_N, sizeof(*ids), compare_u64);
	for (k = 1; k < LEDGER_N; k++)
		ASSERT_NE(ids[k - 1], ids[k]);
	TH_LOG("%u timeouts: %u read, %u cancelled", LEDGER_N, nread, ncancel);
	free(ids);
	free(l);
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
