// SPDX-License-Identifier: GPL-2.0
/*
 * hwtfault: systematic fault injection into open() and every ioctl of
 * /dev/hwtimer, with /proc/thread-self/fail-nth.
 *
 *   hwtfault [-q]        (-q: fewer variants, for the smoke run)
 *
 * For each operation, fail its 1st, 2nd, 3rd... fault point (failslab: any
 * slab allocation, with ignore-gfp-wait off; fail_usercopy: any
 * copy_{from,to}_user) until it runs through with no fault injected.
 * After each attempt:
 *   - the call succeeded, or failed with ENOMEM or EFAULT (a batch may have
 *     done part of its entries: those must be done for real);
 *   - the file's counters (HWTIMER_IOC_INFO) and the global count match
 *     what this program armed, cancelled and read: nothing half-made;
 *   - the file still works: a timeout can be armed and cancelled on it.
 * At the end every file is closed: the global count and the device's
 * allocations (debugfs hwtimer/device) must be back at their baseline;
 * kmemleak, run by
 * the VM afterwards, finds anything a failure path leaked.
 *
 * The guest sets failslab's ignore-gfp-wait to N and verbose to 0 first.
 * Output: TAP, and a "faults dev points=N injected=M" line.
 */
#include <dirent.h>
#include <poll.h>

#include "hwtimer_user.h"

static int nth_fd = -1;
static unsigned long points, injected;
static long pending_expect;	/* timeouts of the file under test */
static bool quick;

/* Make the @n-th fault point of this thread's next calls fail. */
static void fault_begin(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len) {
		perror("fail-nth");
		exit(2);
	}
}

/*
 * Was the fault injected? Reading fail-nth gives 0 once it was; reading
 * it is itself a fault point (copy_to_user), so a count of 1 left turns
 * into EFAULT here, which also means "not injected".
 */
static bool fault_end(void)
{
	char buf[16];
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);
	bool hit;

	if (n < 0) {
		hit = false;
	} else {
		buf[n] = '\0';
		hit = atoi(buf) == 0;
	}
	/* Writing it is a fault point too: retry until it is off. */
	while (pwrite(nth_fd, "0", 1, 0) != 1)
		;
	points++;
	if (hit)
		injected++;
	return hit;
}

static bool clean_errno(int err)
{
	return err == ENOMEM || err == EFAULT;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n++;
	closedir(d);
	return n;
}

static int arm_n(int fd, unsigned int n, uint64_t delay, uint64_t period, uint64_t *ids)
{
	struct hwtimer_arm_entry a[128];
	unsigned int i;
	int ret;

	if (n > 128)
		return -EINVAL;
	memset(a, 0, sizeof(a));
	for (i = 0; i < n; i++) {
		a[i].expires_ns = delay;
		a[i].period_ns = period;
		a[i].cookie = i;
	}
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, n, 0, NULL, NULL);
	for (i = 0; ids && i < n; i++)
		ids[i] = a[i].id;
	if (!ret)
		pending_expect += n;
	return ret;
}

/* The file works and holds exactly what it should. */
static bool file_ok(int fd, const char *what, unsigned int n)
{
	struct hwtimer_info info;
	struct hwtimer_cancel_entry c = { 0 };
	uint64_t id;
	int ret;

	ret = ht_info(fd, &info);
	if (ret) {
		tap(false, "%s, fault %u: INFO fails afterwards: %d", what, n, ret);
		return false;
	}
	if ((long)(info.pending + info.queued) != pending_expect ||
	    (long)info.global_count != pending_expect) {
		tap(false, "%s, fault %u: the file holds %llu timeouts (all %llu), expected %ld",
		    what, n, (unsigned long long)(info.pending + info.queued),
		    (unsigned long long)info.global_count, pending_expect);
		return false;
	}
	ret = arm_n(fd, 1, 3600 * SEC, 0, &id);
	c.id = id;
	if (ret || ht_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL) ||
	    c.status != HWTIMER_STATUS_PENDING) {
		tap(false, "%s, fault %u: the file no longer arms and cancels (%d)", what, n, ret);
		return false;
	}
	pending_expect--;
	return true;
}

/* Cancel everything of @fd that is pending or queued: a fresh close. */
static void reset_file(int *fd)
{
	close(*fd);
	*fd = ht_open(O_NONBLOCK);
	pending_expect = 0;
	if (*fd < 0) {
		perror("open");
		exit(2);
	}
}

typedef int (*op_fn)(int fd, void *arg, int *made);

/*
 * Run @op under fault n = 1, 2, ... on a file prepared by @prep. @op
 * returns 0 or -errno and sets *made to the timeouts it added (negative:
 * removed) when it returns.
 */
static void fault_loop(const char *what, int (*prep)(int fd), op_fn op, void *arg)
{
	unsigned int n, fails = 0, hits = 0;
	int fd = -1;
	bool ok = true;

	for (n = 1; n < 2000 && ok; n++) {
		int made = 0, ret;
		bool hit;

		if (fd < 0)
			reset_file(&fd);
		if (prep && prep(fd)) {
			tap(false, "%s: preparing fault %u failed", what, n);
			ok = false;
			break;
		}
		fault_begin(n);
		ret = op(fd, arg, &made);
		hit = fault_end();
		hits += hit;
		pending_expect += made;
		if (ret && !clean_errno(-ret)) {
			tap(false, "%s, fault %u: error %d (%s) is not ENOMEM or EFAULT",
			    what, n, ret, strerror(-ret));
			ok = false;
			break;
		}
		if (ret && !hit) {
			tap(false, "%s, fault %u: failed (%d) without a fault", what, n, ret);
			ok = false;
			break;
		}
		fails += !!ret;
		if (!file_ok(fd, what, n)) {
			ok = false;
			break;
		}
		reset_file(&fd);
		if (!hit)
			break;
	}
	if (fd >= 0)
		close(fd);
	pending_expect = 0;
	if (ok)
		tap(n < 2000, "%s: %u fault points, %u calls failed cleanly, %u got through",
		    what, n, fails, hits - fails);
}

/* ---- the operations ------------------------------------------------------ */

static int prep_none(int fd)
{
	return 0;
}

/* A file whose id table needs a new node for the next timeout. */
static int prep_64(int fd)
{
	uint64_t ids[64];

	return arm_n(fd, 64, 3600 * SEC, 0, ids);
}

static int op_info(int fd, void *arg, int *made)
{
	struct hwtimer_info info;

	return ioctl(fd, HWTIMER_IOC_INFO, &info) ? -errno : 0;
}

/* Arm (uintptr_t)arg timeouts in one batch, CONTINUE or not. */
static int op_arm(int fd, void *arg, int *made)
{
	struct hwtimer_arm_entry a[128];
	unsigned int n = (uintptr_t)arg & 0xff, i, ok = 0;
	uint32_t flags = (uintptr_t)arg & 0x100 ? HWTIMER_BATCH_CONTINUE : 0;
	uint32_t done;
	int ret;

	memset(a, 0, sizeof(a));
	for (i = 0; i < n; i++) {
		a[i].expires_ns = i % 3 ? 3600 * SEC : 0;	/* some expire at once */
		a[i].period_ns = i % 4 == 1 ? 10 * MS : 0;
		a[i].result = 1;
	}
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, n, flags, &done, NULL);
	if (done == 0xdeadbeef)
		done = 0;
	for (i = 0; i < n && i < done; i++) {
		if (!a[i].result)
			ok++;
		else if (a[i].result != -ENOMEM)
			return a[i].result;
	}
	*made = ok;
	return ret;
}

static uint64_t prep_id[8];

static int prep_ids(int fd)
{
	return arm_n(fd, 8, 3600 * SEC, 0, prep_id);
}

static int op_cancel(int fd, void *arg, int *made)
{
	struct hwtimer_cancel_entry c[8];
	unsigned int n = (uintptr_t)arg, i;
	uint32_t done;
	int ret, gone = 0;

	memset(c, 0, sizeof(c));
	for (i = 0; i < n; i++)
		c[i].id = prep_id[i];
	ret = ht_batch(fd, HWTIMER_IOC_CANCEL, c, n, 0, &done, NULL);
	if (done == 0xdeadbeef)
		done = 0;
	for (i = 0; i < done; i++)
		if (!c[i].result)
			gone++;
	*made = -gone;
	return ret;
}

static int op_modify(int fd, void *arg, int *made)
{
	struct hwtimer_modify_entry m[8];
	unsigned int n = (uintptr_t)arg, i;

	memset(m, 0, sizeof(m));
	for (i = 0; i < n; i++) {
		m[i].id = prep_id[i];
		m[i].expires_ns = i % 2 ? 0 : 7200 * SEC;
		m[i].period_ns = i % 3 == 2 ? 5 * MS : 0;
	}
	*made = 0;
	return ht_batch(fd, HWTIMER_IOC_MODIFY, m, n, 0, NULL, NULL);
}

/* Three one-shot records and one periodic are queued. */
static int prep_queued(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct hwtimer_info info;
	int ret = arm_n(fd, 3, 0, 0, NULL);

	if (!ret)
		ret = arm_n(fd, 1, 0, 3600 * SEC, NULL);
	if (!ret && poll(&p, 1, 5000) != 1)
		ret = -ETIMEDOUT;
	if (!ret && (ht_info(fd, &info) || info.queued != 4))
		ret = -EIO;
	return ret;
}

static int op_read(int fd, void *arg, int *made)
{
	struct hwtimer_expiry r[8];
	ssize_t n = read(fd, r, sizeof(r));

	/*
	 * Records taken off are consumed, even when copying them out fails
	 * (hwtimer(4)): either way the one-shot timeouts are gone and the
	 * periodic one is armed again.
	 */
	*made = -3;
	if (n < 0)
		return -errno;
	return n == 4 * sizeof(r[0]) ? 0 : -EIO;
}

/*
 * Twelve one-shot records and one periodic: a read() for 20 takes 8 into
 * its stack buffer, then allocates a chunk buffer for the rest (a fault
 * point; without it the read goes on 8 at a time).
 */
static int prep_queued_big(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct hwtimer_info info;
	int ret = arm_n(fd, 12, 0, 0, NULL);

	if (!ret)
		ret = arm_n(fd, 1, 0, 3600 * SEC, NULL);
	if (!ret && poll(&p, 1, 5000) != 1)
		ret = -ETIMEDOUT;
	if (!ret && (ht_info(fd, &info) || info.queued != 13))
		ret = -EIO;
	return ret;
}

static int op_read_big(int fd, void *arg, int *made)
{
	struct hwtimer_expiry r[20];
	struct hwtimer_info info;
	ssize_t n = read(fd, r, sizeof(r));

	/*
	 * As op_read(): consumed even when a copy fails. The records come in
	 * arm order: a fault copying the first chunk has consumed 8 one-shot
	 * timeouts, later faults all 12 (the periodic one is armed again).
	 */
	*made = n < 0 ? -8 : -12;
	if (n < 0)
		return -errno;
	if (n == 13 * sizeof(r[0]))
		return 0;
	/* A fault copying the second chunk: the first 8 records count. */
	if (n == 8 * sizeof(r[0]) && !ht_info(fd, &info) && !info.queued)
		return 0;
	return -EIO;
}

static int op_poll(int fd, void *arg, int *made)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) < 0 ? -errno : 0;
}

static int close_fd = -1;

/* A second file with pending and queued timeouts. */
static int prep_close(int fd)
{
	struct hwtimer_arm_entry a[4];
	unsigned int i;

	close_fd = ht_open(0);
	if (close_fd < 0)
		return -errno;
	memset(a, 0, sizeof(a));
	for (i = 0; i < 4; i++)
		a[i].expires_ns = i % 2 ? 0 : 3600 * SEC;
	return ht_batch(close_fd, HWTIMER_IOC_ARM, a, 4, 0, NULL, NULL);
}

/* Close it under fault: it must go, with all its timeouts. */
static int op_close(int fd, void *arg, int *made)
{
	int ret = close(close_fd) ? -errno : 0;

	close_fd = -1;
	return ret == -ENOMEM || ret == -EFAULT ? -EIO : ret;
}

static void fault_open(void)
{
	unsigned int n, fails = 0;
	int base = count_fds(), fd;
	long g0 = ht_global_count();

	for (n = 1; n < 2000; n++) {
		bool hit;
		int err;

		fault_begin(n);
		fd = ht_open(0);
		err = errno;
		hit = fault_end();
		if (fd < 0) {
			fails++;
			if (!clean_errno(err) || !hit) {
				tap(false, "open, fault %u: %s%s", n, strerror(err),
				    hit ? "" : " without a fault");
				return;
			}
		} else {
			pending_expect = 0;
			if (!file_ok(fd, "open", n))
				return;
			close(fd);
		}
		if (count_fds() != base || ht_global_count() != g0) {
			tap(false, "open, fault %u: an fd or a timeout stayed behind", n);
			return;
		}
		if (!hit)
			break;
	}
	tap(n < 2000, "open: %u fault points, %u opens failed cleanly", n, fails);
}

int main(int argc, char **argv)
{
	char path[64];
	long g0, s0, g1, s1;
	uint64_t t_wait;

	quick = argc > 1 && !strcmp(argv[1], "-q");
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	nth_fd = open(path, O_RDWR | O_CLOEXEC);
	if (nth_fd < 0) {
		printf("1..0 # SKIP %s: %s (no CONFIG_FAULT_INJECTION)\n", path, strerror(errno));
		return 0;
	}
	if (access(HWT_DEV, F_OK)) {
		printf("1..0 # SKIP no %s\n", HWT_DEV);
		return 0;
	}
	g0 = ht_global_count();
	s0 = ht_dev_objects();
	tap_plan(quick ? 12 : 17);

	fault_open();
	fault_loop("INFO", prep_none, op_info, NULL);
	fault_loop("ARM 1", prep_none, op_arm, (void *)1);
	fault_loop("ARM 1, new id-table node", prep_64, op_arm, (void *)1);
	fault_loop(quick ? "ARM 20" : "ARM 100", prep_none, op_arm,
		   (void *)(uintptr_t)(quick ? 20 : 100));
	fault_loop("CANCEL 1", prep_ids, op_cancel, (void *)1);
	fault_loop("MODIFY 8", prep_ids, op_modify, (void *)8);
	fault_loop("read", prep_queued, op_read, NULL);
	fault_loop("read of 13 records", prep_queued_big, op_read_big, NULL);
	fault_loop("close with timeouts", prep_close, op_close, NULL);
	if (!quick) {
		fault_loop("ARM 100 CONTINUE", prep_none, op_arm, (void *)(0x100 | 100));
		fault_loop("ARM 70 on 64", prep_64, op_arm, (void *)70);
		fault_loop("CANCEL 8", prep_ids, op_cancel, (void *)8);
		fault_loop("MODIFY 1", prep_ids, op_modify, (void *)1);
		fault_loop("poll", prep_queued, op_poll, NULL);
	}

	/*
	 * What is freed after an RCU grace period or in a work item may take
	 * a moment: up to 20 s, which only a hang takes (it was 20 sleeps of
	 * 100 ms).
	 */
	for (t_wait = now_ns() + 20 * SEC;; usleep(100000)) {
		g1 = ht_global_count();
		s1 = ht_dev_objects();
		if ((g1 == g0 && (s0 < 0 || s1 == s0)) || now_ns() > t_wait)
			break;
	}
	tap(g1 == g0, "global count back to %ld (%ld)", g0, g1);
	tap(s0 < 0 || s1 == s0, "device chunks, leaves and rings back to %ld (%ld)", s0, s1);
	printf("faults dev%s points=%lu injected=%lu\n",
	       sizeof(long) == 4 ? "-32" : "", points, injected);
	return tap_status();
}
