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
 * the new time namespace, its parent stays in the host's. The timens_*
 * tests do it as root, the timens_unpriv_* tests as nobody (65534), which
 * may, since its new user namespace owns the time namespace. SKIPs where
 * the kernel has no time or user namespaces.
 */
#include <sched.h>
#include <stdarg.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "hwtimer_test.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define NOBODY		65534
#define SEC_NS		1000000000ULL

/*
 * How late a timeout may be read in a namespace whose clock is @offset_ns
 * off the host's: half the offset (5 s at least: every offset here is 10 s
 * or more), so that a deadline or an expiry time taken on the wrong clock
 * cannot pass for a late one, and only a host that held the test that
 * long makes a right one look wrong.
 */
static uint64_t late_ns(int64_t offset_ns)
{
	return (offset_ns < 0 ? -(uint64_t)offset_ns : (uint64_t)offset_ns) / 2;
}

/* What the child in the namespace saw, for its parent to compare. */
struct ns_report {
	uint64_t ns_now;	/* its clock just before the arms */
	uint64_t host_then;	/* the host's clock just before the fork */
	uint64_t abs_deadline;	/* the absolute deadline it armed */
	uint64_t rel_deadline;	/* ARM's write-back of a 20 ms delay */
	uint64_t mod_deadline;	/* the absolute deadline it modified to */
	int skip;		/* the namespace could not be set up: why */
	char why[256];		/* what failed, or why it skipped */
};

static struct ns_report *rep;

/* In the child: record what went wrong and give up. */
#define NS_CHECK(cond, fmt, ...)						\
	do {									\
		if (!(cond)) {							\
			snprintf(rep->why, sizeof(rep->why), "line %d: " fmt,	\
				 __LINE__, ##__VA_ARGS__);			\
			return -1;						\
		}								\
	} while (0)

#define ULL(x)	((unsigned long long)(x))

/* The file's one record, within HWT_WAIT_MS; 0 if it does not come. */
static int read_one(int fd, struct hwtimer_expiry *r)
{
	return ht_read_n(fd, r, 1) == 1 ? 0 : -1;
}

/*
 * In the namespace, whose clock is @offset_ns off the host's: arm, modify
 * and read through @fd and a file of its own, checking every time against
 * the namespace's own clock. Returns 0, or -1 with rep->why set.
 */
static int in_namespace(int fd, int64_t offset_ns)
{
	struct hwtimer_arm_entry a[2];
	struct hwtimer_modify_entry m;
	struct hwtimer_expiry r;
	uint64_t before, after, id;
	int64_t skew;
	int own, tries, ret;

	own = ht_open(0);
	NS_CHECK(own >= 0, "open %s in the namespace (uid %d): %s", HWT_DEV,
		 (int)getuid(), strerror(errno));
	/* The namespace is in effect: its clock is off the host's. */
	before = now_ns();
	rep->ns_now = before;
	skew = (int64_t)(before - rep->host_then) - offset_ns;
	NS_CHECK(skew >= 0 && skew < 60 * (int64_t)SEC_NS,
		 "CLOCK_MONOTONIC in the namespace is %lld ns off the host's, not %lld",
		 (long long)(skew + offset_ns), (long long)offset_ns);

	/* An absolute deadline 200 ms ahead on this clock. */
	rep->abs_deadline = before + 200 * MS;
	ht_arm_entry(&a[0], 1, rep->abs_deadline, 0, HWTIMER_TIMEOUT_ABS);
	/* A delay: the written-back deadline is on this clock too. */
	ht_arm_entry(&a[1], 2, 20 * MS, 0, 0);
	NS_CHECK(!ht_batch(own, HWTIMER_IOC_ARM, a, 2, 0, NULL, NULL),
		 "ARM: results %d %d", a[0].result, a[1].result);
	after = now_ns();
	NS_CHECK(a[0].deadline_ns == rep->abs_deadline,
		 "ARM of absolute %llu wrote back deadline_ns %llu",
		 ULL(rep->abs_deadline), ULL(a[0].deadline_ns));
	rep->rel_deadline = a[1].deadline_ns;
	NS_CHECK(a[1].deadline_ns >= before + 20 * MS && a[1].deadline_ns <= after + 20 * MS,
		 "ARM of a 20 ms delay between %llu and %llu (namespace clock) wrote back deadline_ns %llu",
		 ULL(before), ULL(after), ULL(a[1].deadline_ns));

	/*
	 * The relative one first, then the absolute one, neither early nor
	 * late. A deadline taken as host time would expire at once (a
	 * namespace behind the host) or not for the offset (ahead).
	 */
	NS_CHECK(!read_one(own, &r), "no record of the 20 ms delay within %d ms",
		 HWT_WAIT_MS);
	NS_CHECK(r.cookie == 2 && r.deadline_ns == a[1].deadline_ns,
		 "first record: cookie %llu deadline_ns %llu, expected cookie 2 deadline_ns %llu",
		 ULL(r.cookie), ULL(r.deadline_ns), ULL(a[1].deadline_ns));
	NS_CHECK(!read_one(own, &r), "no record of the absolute deadline %llu (now %llu) within %d ms",
		 ULL(rep->abs_deadline), ULL(now_ns()), HWT_WAIT_MS);
	after = now_ns();
	NS_CHECK(r.cookie == 1 && r.deadline_ns == rep->abs_deadline,
		 "second record: cookie %llu deadline_ns %llu, expected cookie 1 deadline_ns %llu",
		 ULL(r.cookie), ULL(r.deadline_ns), ULL(rep->abs_deadline));
	NS_CHECK(after >= rep->abs_deadline,
		 "the absolute deadline %llu was read at %llu: %llu ns early",
		 ULL(rep->abs_deadline), ULL(after), ULL(rep->abs_deadline - after));
	NS_CHECK(r.expired_ns >= r.deadline_ns && r.expired_ns <= after,
		 "record expired_ns %llu: not between its deadline %llu and the read at %llu (namespace clock)",
		 ULL(r.expired_ns), ULL(r.deadline_ns), ULL(after));
	NS_CHECK(r.expired_ns <= rep->abs_deadline + late_ns(offset_ns),
		 "the absolute deadline %llu expired at %llu: %llu ms late",
		 ULL(rep->abs_deadline), ULL(r.expired_ns),
		 ULL((r.expired_ns - rep->abs_deadline) / MS));

	/* MODIFY: an absolute deadline in, the same out, and expiring on it. */
	NS_CHECK(!ht_arm(own, 3, HWT_FAR_NS, 0, 0, &id), "ARM of a far delay failed");
	memset(&m, 0, sizeof(m));
	m.id = id;
	rep->mod_deadline = now_ns() + 30 * MS;
	m.expires_ns = rep->mod_deadline;
	m.flags = HWTIMER_TIMEOUT_ABS;
	NS_CHECK(!ht_batch(own, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) &&
		 m.deadline_ns == rep->mod_deadline,
		 "MODIFY to absolute %llu: result %d, deadline_ns %llu",
		 ULL(rep->mod_deadline), m.result, ULL(m.deadline_ns));
	NS_CHECK(!read_one(own, &r) && r.cookie == 3 && r.deadline_ns == rep->mod_deadline,
		 "the modified timeout's record: cookie %llu deadline_ns %llu, expected 3 and %llu",
		 ULL(r.cookie), ULL(r.deadline_ns), ULL(rep->mod_deadline));
	after = now_ns();
	NS_CHECK(after >= rep->mod_deadline && r.expired_ns <= after &&
		 r.expired_ns <= rep->mod_deadline + late_ns(offset_ns),
		 "the modified deadline %llu expired at %llu and was read at %llu",
		 ULL(rep->mod_deadline), ULL(r.expired_ns), ULL(after));

	/*
	 * Ahead of the host: an absolute deadline before the host's clock
	 * started expires at once, written back as the namespace time of
	 * that start (hwtimer(4)).
	 */
	if (offset_ns > 0) {
		ht_arm_entry(&a[0], 5, SEC_NS, 0, HWTIMER_TIMEOUT_ABS);
		NS_CHECK(!ht_batch(own, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL) &&
			 a[0].deadline_ns == (uint64_t)offset_ns,
			 "ARM of absolute 1 s, before the host's clock started: result %d, deadline_ns %llu, expected %llu",
			 a[0].result, ULL(a[0].deadline_ns), ULL(offset_ns));
		NS_CHECK(ht_wait(own, 0) & POLLIN,
			 "a deadline before the host's clock started is not due at once");
		NS_CHECK(!read_one(own, &r) && r.cookie == 5 && r.deadline_ns == (uint64_t)offset_ns,
			 "its record: cookie %llu deadline_ns %llu, expected 5 and %llu",
			 ULL(r.cookie), ULL(r.deadline_ns), ULL(offset_ns));
	}
	/*
	 * The limit INT64_MAX is this clock's, not the host's: an absolute
	 * INT64_MAX is taken and kept exactly, a delay that reaches just
	 * short of it is taken, one past it is EINVAL, whichever side of the
	 * host's clock this one is. (They were checked in host time: behind
	 * the host, INT64_MAX came back as INT64_MAX minus the offset and the
	 * long delay failed; ahead, the delay past INT64_MAX was taken.)
	 */
	ht_arm_entry(&a[0], 6, INT64_MAX, 0, HWTIMER_TIMEOUT_ABS);
	NS_CHECK(!ht_batch(own, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL) &&
		 a[0].deadline_ns == INT64_MAX,
		 "ARM of absolute INT64_MAX: result %d, deadline_ns %llu",
		 a[0].result, ULL(a[0].deadline_ns));
	{
		struct hwtimer_get_entry g;

		NS_CHECK(!ht_get(own, a[0].id, &g) && g.deadline_ns == INT64_MAX,
			 "GET of absolute INT64_MAX: deadline_ns %llu", ULL(g.deadline_ns));
	}
	NS_CHECK(!ht_cancel(own, a[0].id, NULL), "CANCEL of absolute INT64_MAX");
	/*
	 * 10 s short, less than any offset here: a host that held the test
	 * for those 10 s between the clock read and the call makes it long,
	 * and that try is made again.
	 */
	for (tries = 0; tries < 3; tries++) {
		before = now_ns();
		ht_arm_entry(&a[0], 7, INT64_MAX - before - 10 * SEC_NS, 0, 0);
		ret = ht_batch(own, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL);
		if (ret != -EINVAL || now_ns() - before < 10 * SEC_NS)
			break;
	}
	NS_CHECK(!ret && a[0].deadline_ns > INT64_MAX - 10 * SEC_NS,
		 "ARM of a delay to 10 s short of INT64_MAX on this clock: result %d, deadline_ns %llu",
		 a[0].result, ULL(a[0].deadline_ns));
	NS_CHECK(!ht_cancel(own, a[0].id, NULL), "CANCEL of the long delay");
	ht_arm_entry(&a[0], 8, INT64_MAX - before + 1, 0, 0);
	NS_CHECK(ht_batch(own, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL) == -EINVAL &&
		 a[0].result == -EINVAL,
		 "ARM of a delay past INT64_MAX on this clock: result %d, deadline_ns %llu",
		 a[0].result, ULL(a[0].deadline_ns));
	close(own);

	/*
	 * The shared file: arm on this clock; the parent, in the host's
	 * namespace, reads the record on its clock.
	 */
	ht_arm_entry(&a[0], 4, rep->abs_deadline + 10 * MS, 0, HWTIMER_TIMEOUT_ABS);
	NS_CHECK(!ht_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL),
		 "ARM through the shared file: result %d", a[0].result);
	return 0;
}

/* Become nobody, for good, as an unprivileged user would be. */
static int drop_privileges(void)
{
	NS_CHECK(!setgroups(0, NULL) && !setresgid(NOBODY, NOBODY, NOBODY) &&
		 !setresuid(NOBODY, NOBODY, NOBODY),
		 "cannot become uid %d: %s", NOBODY, strerror(errno));
	NS_CHECK(setuid(0) && geteuid() == NOBODY, "still able to become root");
	/*
	 * A task that changed its uid is not dumpable, and its /proc/self
	 * files then belong to root: timens_offsets could not be written.
	 */
	NS_CHECK(!prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "PR_SET_DUMPABLE: %s", strerror(errno));
	return 0;
}

/* The namespace cannot be had here: say why, and skip. */
static int skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->why, sizeof(rep->why), fmt, ap);
	va_end(ap);
	rep->skip = 1;
	return -1;
}

/*
 * In a child: (as nobody if @unpriv) a new user and time namespace whose
 * CLOCK_MONOTONIC is @offset_s seconds off the host's, and a grandchild in
 * it that runs in_namespace(). Returns 0, or -1 with rep->why set.
 */
static int setup_and_run(int fd, int64_t offset_s, bool unpriv)
{
	char buf[64];
	int status, pfd, len;
	pid_t child;

	if (unpriv && drop_privileges())
		return -1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWTIME)) {
		if (errno == EINVAL)
			return skip("unshare(CLONE_NEWUSER | CLONE_NEWTIME): %s: the kernel has no time namespaces or no user namespaces (CONFIG_TIME_NS, CONFIG_USER_NS)",
				    strerror(errno));
		if (errno == EPERM && unpriv)
			return skip("unshare(CLONE_NEWUSER | CLONE_NEWTIME) as uid %d: %s: unprivileged user namespaces are disabled (sysctl user.max_user_namespaces or kernel.unprivileged_userns_clone)",
				    NOBODY, strerror(errno));
		NS_CHECK(0, "unshare(CLONE_NEWUSER | CLONE_NEWTIME) as uid %d: %s",
			 (int)getuid(), strerror(errno));
	}
	/* Only before the first task enters the namespace. */
	pfd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (pfd < 0 && errno == ENOENT)
		return skip("no /proc/self/timens_offsets: the kernel has no time namespaces (CONFIG_TIME_NS)");
	NS_CHECK(pfd >= 0, "open /proc/self/timens_offsets as uid %d: %s", (int)getuid(),
		 strerror(errno));
	len = snprintf(buf, sizeof(buf), "monotonic %lld 0\n", (long long)offset_s);
	NS_CHECK(write(pfd, buf, len) == len, "write \"monotonic %lld 0\" to timens_offsets: %s",
		 (long long)offset_s, strerror(errno));
	close(pfd);
	rep->host_then = now_ns();
	child = fork();
	NS_CHECK(child >= 0, "fork: %s", strerror(errno));
	if (!child)
		_exit(in_namespace(fd, offset_s * (int64_t)SEC_NS) ? 1 : 0);
	NS_CHECK(waitpid(child, &status, 0) == child, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (!rep->why[0])
		NS_CHECK(0, "the child in the namespace died: status %#x", status);
	return -1;
}

/*
 * Run in_namespace() in a new time namespace whose CLOCK_MONOTONIC is
 * @offset_s seconds off the host's, as root or (@unpriv) as nobody; then
 * read, on the host's clock, the record it armed through the shared file.
 */
static void run_with_offset(struct __test_metadata *_metadata, int fd,
			    int64_t offset_s, bool unpriv)
{
	struct hwtimer_expiry r;
	int status;
	pid_t pid;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(rep != MAP_FAILED);
	memset(rep, 0, sizeof(*rep));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(setup_and_run(fd, offset_s, unpriv) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	if (rep->skip)
		SKIP(return, "%s", rep->why);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("offset %+lld s, %s: %s", (long long)offset_s,
		       unpriv ? "as nobody" : "as root",
		       rep->why[0] ? rep->why : "the child died");
	TH_LOG("offset %+lld s, %s: namespace clock %llu ms, host %llu ms",
	       (long long)offset_s, unpriv ? "as nobody" : "as root",
	       ULL(rep->ns_now / MS), ULL(now_ns() / MS));
	/* Its timeout, read here: on the host's clock. */
	ASSERT_EQ(0, read_one(fd, &r))
		TH_LOG("no record of the timeout armed in the namespace");
	ASSERT_EQ(4, r.cookie);
	ASSERT_EQ(rep->abs_deadline + 10 * MS - offset_s * SEC_NS, r.deadline_ns)
		TH_LOG("deadline %llu on the namespace's clock read as %llu on the host's",
		       ULL(rep->abs_deadline + 10 * MS), ULL(r.deadline_ns));
	ASSERT_LE(r.deadline_ns, r.expired_ns);
	ASSERT_LE(r.expired_ns, now_ns())
		TH_LOG("expired_ns %llu is not on the host's clock", ULL(r.expired_ns));
	munmap(rep, sizeof(*rep));
}

/* Half the uptime, for a namespace behind the host's clock, or 0. */
static int64_t behind_offset(void)
{
	int64_t up = now_ns() / SEC_NS;

	return up >= 20 ? -(up / 2) : 0;
}

/* A namespace clock ahead of the host's: deadlines taken raw never come. */
TEST_F_TIMEOUT(hwt, timens_ahead, 60)
{
	HWT_NEED_DEV();
	run_with_offset(_metadata, self->fd, 100000, false);
}

/* Behind: deadlines taken raw would be long past and expire at once. */
TEST_F_TIMEOUT(hwt, timens_behind, 60)
{
	int64_t off = behind_offset();

	HWT_NEED_DEV();
	if (!off)
		SKIP(return, "uptime under 20 s: too young a clock for an offset of -10 s or more");
	run_with_offset(_metadata, self->fd, off, false);
}

/* The same as an unprivileged user in its own user namespace. */
TEST_F_TIMEOUT(hwt, timens_unpriv_ahead, 60)
{
	HWT_NEED_DEV();
	run_with_offset(_metadata, self->fd, 1000, true);
}

TEST_F_TIMEOUT(hwt, timens_unpriv_behind, 60)
{
	int64_t off = behind_offset();

	HWT_NEED_DEV();
	if (!off)
		SKIP(return, "uptime under 20 s: too young a clock for an offset of -10 s or more");
	run_with_offset(_metadata, self->fd, off, true);
}

TEST_HARNESS_MAIN
