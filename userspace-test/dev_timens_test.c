// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer in time namespaces: every time a call takes or gives
 * (absolute deadlines, the deadline_ns ARM and MODIFY write back, the
 * records' deadline_ns and expired_ns) is CLOCK_MONOTONIC of the calling
 * task's time namespace, as with timerfd and clock_gettime() (hwtimer(4),
 * TIME NAMESPACES).
 *
 * Set up as `unshare -U -T` does: unshare(CLONE_NEWUSER | CLONE_NEWTIME),
 * write the offset to /proc/self/timens_offsets, fork; the child lives in
 * the new time namespace, its parent stays in the host's. SKIPs where the
 * kernel has no time namespaces.
 */
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define NS_SKIP		99	/* exit status: no time namespaces here */
#define SEC_NS		1000000000ULL

/* What the child in the namespace saw, for its parent to compare. */
struct ns_report {
	uint64_t ns_now;	/* its clock just before the arms */
	uint64_t abs_deadline;	/* the absolute deadline it armed */
	uint64_t rel_deadline;	/* ARM's write-back of a 20 ms delay */
	uint64_t mod_deadline;	/* the absolute deadline it modified to */
};

/* The file's one record, within HWT_WAIT_MS; 0 if it does not come. */
static int read_one(int fd, struct hwtimer_expiry *r)
{
	return ht_read_n(fd, r, 1) == 1 ? 0 : -1;
}

/*
 * In the namespace: arm, modify and read through @fd, checking every time
 * against the namespace's own clock. Returns 0 or the line that failed.
 */
static int in_namespace(int fd, struct ns_report *rep)
{
	struct hwtimer_arm_entry a[2];
	struct hwtimer_modify_entry m;
	struct hwtimer_expiry r;
	uint64_t before, after, id;
	int own;

	own = ht_open(0);
	if (own < 0)
		return __LINE__;
	/* The namespace is in effect: its clock is off the host's. */
	before = now_ns();
	rep->ns_now = before;

	/* An absolute deadline 50 ms ahead on this clock. */
	rep->abs_deadline = before + 50 * MS;
	ht_arm_entry(&a[0], 1, rep->abs_deadline, 0, HWTIMER_TIMEOUT_ABS);
	/* A delay: the written-back deadline is on this clock too. */
	ht_arm_entry(&a[1], 2, 20 * MS, 0, 0);
	if (ht_batch(own, HWTIMER_IOC_ARM, a, 2, 0, NULL, NULL))
		return __LINE__;
	after = now_ns();
	if (a[0].deadline_ns != rep->abs_deadline)
		return __LINE__;
	rep->rel_deadline = a[1].deadline_ns;
	if (a[1].deadline_ns < before + 20 * MS || a[1].deadline_ns > after + 20 * MS)
		return __LINE__;

	/*
	 * The relative one first, then the absolute one, neither early. A
	 * deadline taken as host time would expire at once (a namespace
	 * behind the host) or not for a day (ahead).
	 */
	if (read_one(own, &r) || r.cookie != 2 || r.deadline_ns != a[1].deadline_ns)
		return __LINE__;
	if (read_one(own, &r) || r.cookie != 1 || r.deadline_ns != rep->abs_deadline)
		return __LINE__;
	after = now_ns();
	if (r.expired_ns < r.deadline_ns || r.expired_ns > after)
		return __LINE__;
	if (after < rep->abs_deadline)
		return __LINE__;

	/* MODIFY: an absolute deadline in, the same out, and expiring on it. */
	if (ht_arm(own, 3, 10000 * MS, 0, 0, &id))
		return __LINE__;
	memset(&m, 0, sizeof(m));
	m.id = id;
	rep->mod_deadline = now_ns() + 30 * MS;
	m.expires_ns = rep->mod_deadline;
	m.flags = HWTIMER_TIMEOUT_ABS;
	if (ht_batch(own, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) ||
	    m.deadline_ns != rep->mod_deadline)
		return __LINE__;
	if (read_one(own, &r) || r.cookie != 3 || r.deadline_ns != rep->mod_deadline ||
	    now_ns() < rep->mod_deadline)
		return __LINE__;
	close(own);

	/*
	 * The shared file: arm on this clock; the parent, in the host's
	 * namespace, reads the record on its clock.
	 */
	ht_arm_entry(&a[0], 4, rep->abs_deadline + 10 * MS, 0, HWTIMER_TIMEOUT_ABS);
	if (ht_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL))
		return __LINE__;
	return 0;
}

/*
 * Run in_namespace() in a child in a new time namespace whose
 * CLOCK_MONOTONIC is @offset_s seconds off the host's; then read, on the
 * host's clock, the record it armed through the shared file.
 */
static void run_with_offset(struct __test_metadata *_metadata, int fd,
			    int64_t offset_s)
{
	struct ns_report *rep;
	struct hwtimer_expiry r;
	char buf[64];
	int status, pfd, len;
	pid_t pid;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(rep != MAP_FAILED);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		pid_t child;

		if (unshare(CLONE_NEWUSER | CLONE_NEWTIME))
			_exit(errno == EINVAL || errno == ENOSYS ? NS_SKIP : 1);
		/* Only before the first task enters the namespace. */
		pfd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
		if (pfd < 0)
			_exit(errno == ENOENT ? NS_SKIP : 2);
		len = snprintf(buf, sizeof(buf), "monotonic %lld 0\n", (long long)offset_s);
		if (write(pfd, buf, len) != len)
			_exit(3);
		close(pfd);
		child = fork();
		if (child < 0)
			_exit(4);
		if (!child) {
			int line = in_namespace(fd, rep);

			if (line)
				printf("# in the namespace: the check at line %d failed\n",
				       line);
			fflush(stdout);
			_exit(line ? 10 : 0);
		}
		if (waitpid(child, &status, 0) != child || !WIFEXITED(status))
			_exit(5);
		_exit(WEXITSTATUS(status));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == NS_SKIP)
		SKIP(return, "no time namespaces (CONFIG_TIME_NS)");
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* The child's clock was off by the offset (give or take the run). */
	TH_LOG("offset %+lld s: namespace clock %llu ms, host %llu ms",
	       (long long)offset_s, (unsigned long long)(rep->ns_now / MS),
	       (unsigned long long)(now_ns() / MS));
	ASSERT_LT(llabs((int64_t)(rep->ns_now - now_ns()) - offset_s * (int64_t)SEC_NS),
		  60 * (int64_t)SEC_NS);
	/* Its timeout, read here: on the host's clock. */
	ASSERT_EQ(0, read_one(fd, &r));
	ASSERT_EQ(4, r.cookie);
	ASSERT_EQ(rep->abs_deadline + 10 * MS - offset_s * SEC_NS, r.deadline_ns);
	ASSERT_LE(r.deadline_ns, r.expired_ns);
	ASSERT_LE(r.expired_ns, now_ns());
	munmap(rep, sizeof(*rep));
}

/* A namespace clock ahead of the host's: deadlines taken raw never come. */
TEST_F_TIMEOUT(hwt, timens_ahead, 60)
{
	HWT_NEED_DEV();
	run_with_offset(_metadata, self->fd, 100000);
}

/* Behind: deadlines taken raw would be long past and expire at once. */
TEST_F_TIMEOUT(hwt, timens_behind, 60)
{
	int64_t up = now_ns() / SEC_NS;

	HWT_NEED_DEV();
	if (up < 4)
		SKIP(return, "host clock too young for a negative offset");
	run_with_offset(_metadata, self->fd, -(up / 2));
}

TEST_HARNESS_MAIN
