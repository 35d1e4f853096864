// SPDX-License-Identifier: GPL-2.0
/*
 * hwtsec: what an unprivileged user can and cannot do with /dev/hwtimer
 * (docs/security.md). Runs as root and drops to unprivileged users
 * (nobody, and uid 65533) in child processes.
 *
 *   hwtsec [-m] [-u USERS]
 *
 * -m: also the memory cgroup limit test (slower); -u: how many users hold
 * a file open for the open/close cost check (default 4096, all in the
 * bucket of the user timed of what was a 64-bucket hash: as long a chain
 * as 262144 users spread evenly; the kernel's own per-uid hash makes
 * setting up tens of thousands of users take minutes under TCG).
 *
 * Checks: any user may open the device; an unprivileged user cannot change
 * the caps or read hwtimer's debugfs files; the per-file cap (ENOSPC), the
 * global cap and the per-user cap (EDQUOT) hold for it, whatever batch it
 * sends, and the per-user cap counts all files of the user together; a
 * user at its user_cap leaves another user free to arm, and each user's
 * count is back to 0 once its files close; another
 * user can neither reach a user's file (/proc/PID/fd, fdinfo, pidfd_getfd)
 * nor cancel, modify or read its timeouts through its own file, and the
 * victim's timeouts all expire untouched; nothing reaches user space that
 * was not set (INFO's reserved fields, the outputs of failed entries, the
 * records); open and close cost the same with USERS users holding files
 * open; a live timeout costs the same memory whatever ids are live; and
 * with -m, a user in a memory cgroup cannot allocate
 * timeouts past the cgroup's limit, and all is released when it dies.
 * The caps are restored at the end.
 */
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hwtimer_user.h"

#define NOBODY		65534
#define OTHER		65533

/* The per-user cap the user_cap tests set (file_cap is USER_CAP_T * 3 / 5). */
#define USER_CAP_T	100

static long old_file_cap = -1, old_global_cap = -1, old_user_cap = -1;

static void set_caps(long file_cap, long global_cap, long user_cap)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", file_cap);
	write_file(HWT_PARAMS "file_cap", buf);
	snprintf(buf, sizeof(buf), "%ld", global_cap);
	write_file(HWT_PARAMS "global_cap", buf);
	snprintf(buf, sizeof(buf), "%ld", user_cap);
	write_file(HWT_PARAMS "user_cap", buf);
}

static void restore_caps(void)
{
	if (old_file_cap >= 0)
		set_caps(old_file_cap, old_global_cap, old_user_cap);
}

/* In a child: say what went wrong, as whom, and return @step to exit with. */
static __printf(2, 3)
int ufail(int step, const char *fmt, ...)
{
	va_list ap;

	printf("# uid %u, step %d: ", (unsigned int)getuid(), step);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return step;
}

static int become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

/* Run @fn as @uid in a child; returns its exit status (0: all held). */
static int as_user(uid_t uid, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (become(uid))
			_exit(100);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int arm_many(int fd, unsigned int n, uint32_t *failed, int32_t *first_err)
{
	struct hwtimer_arm_entry a[256];
	uint32_t done = 0, i;
	int ret;

	if (n > 256)
		return -EINVAL;
	memset(a, 0, sizeof(a));
	for (i = 0; i < n; i++) {
		a[i].expires_ns = 3600 * SEC;
		a[i].id = 0x1111111111111111ULL;
		a[i].deadline_ns = 0x2222222222222222ULL;
	}
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, n, HWTIMER_BATCH_CONTINUE, &done, failed);
	*first_err = 0;
	for (i = 0; i < done; i++) {
		if (!a[i].result)
			continue;
		if (!*first_err)
			*first_err = a[i].result;
		/* A failed entry reports nothing but its error. */
		if (a[i].id || a[i].deadline_ns)
			return -EIO;
	}
	return ret;
}

/* ---- the checks, run as an unprivileged user ------------------------------- */

static int u_open_and_params(void *arg)
{
	int fd = ht_open(0);

	if (fd < 0)
		return 1;
	close(fd);
	if (open(HWT_PARAMS "file_cap", O_WRONLY) >= 0 || errno != EACCES)
		return 2;
	if (open(HWT_PARAMS "global_cap", O_WRONLY) >= 0 || errno != EACCES)
		return 3;
	if (open("/sys/kernel/debug/hwtimer/default/stats", O_RDONLY) >= 0)
		return 4;
	if (open(HWT_PARAMS "user_cap", O_WRONLY) >= 0 || errno != EACCES)
		return 5;
	return 0;
}

/* file_cap is 50: the 51st timeout of one file fails with ENOSPC. */
static int u_file_cap(void *arg)
{
	struct hwtimer_info info;
	uint32_t failed;
	int32_t err;
	int fd = ht_open(0), ret;

	if (fd < 0)
		return 1;
	ret = arm_many(fd, 60, &failed, &err);
	if (ret || failed != 10 || err != -ENOSPC)
		return 2;
	if (ht_info(fd, &info) || info.pending != 50 || info.file_cap != 50)
		return 3;
	/* One at a time does not get round it either. */
	ret = arm_many(fd, 1, &failed, &err);
	if (ret || failed != 1 || err != -ENOSPC)
		return 4;
	close(fd);
	return 0;
}

/* global_cap is 120: files of 50, 50 and then 20 more; the 121st: EDQUOT. */
static int u_global_cap(void *arg)
{
	int fd[3], i, ret;
	uint32_t failed;
	int32_t err;

	for (i = 0; i < 3; i++) {
		fd[i] = ht_open(0);
		if (fd[i] < 0)
			return 1;
	}
	if (arm_many(fd[0], 50, &failed, &err) || arm_many(fd[1], 50, &failed, &err))
		return 2;
	ret = arm_many(fd[2], 30, &failed, &err);
	if (ret || failed != 10 || err != -EDQUOT)
		return 3;
	if (ht_global_count() != 120)
		return 4;
	for (i = 0; i < 3; i++)
		close(fd[i]);
	return ht_global_count() == 0 ? 0 : 5;
}

/* Arm one timeout: 0 and its id, or the entry's (or the call's) -errno. */
static int arm_one(int fd, uint64_t expires_ns, uint64_t *id)
{
	struct hwtimer_arm_entry a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.expires_ns = expires_ns;
	ret = ht_batch(fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL);
	if (id)
		*id = a.id;
	return a.result ? a.result : ret;
}

/* The user count INFO reports on @fd, or -errno. */
static long user_count(int fd)
{
	struct hwtimer_info info;
	int ret = ht_info(fd, &info);

	return ret ? ret : (long)info.user_count;
}

/*
 * user_cap is USER_CAP_T (100), file_cap 60, global_cap far above: the
 * user's two files take 60 and 40, and the 101st fails with EDQUOT although
 * each file is under file_cap; so does a third file. A cancel, a read and a
 * close give timeouts back, and an arm that fails on a bad pointer keeps
 * nothing.
 */
static int u_user_cap(void *arg)
{
	struct hwtimer_expiry rec;
	struct hwtimer_info info;
	struct pollfd p;
	uint64_t id, id_cancel;
	uint32_t failed;
	int32_t err;
	int watch, fa, fb, fresh, ret;
	long n;
	void *ro;

	watch = ht_open(0);
	fa = ht_open(0);
	fb = ht_open(O_NONBLOCK);
	if (watch < 0 || fa < 0 || fb < 0)
		return ufail(1, "open: %s", strerror(errno));
	if (ht_info(watch, &info) || info.user_cap != USER_CAP_T || info.user_count)
		return ufail(2, "INFO of a fresh file: user_cap %llu (want %u), user_count %llu (want 0)",
			     (unsigned long long)info.user_cap, USER_CAP_T,
			     (unsigned long long)info.user_count);

	/* An arm whose id cannot be written back keeps nothing charged. */
	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return ufail(3, "mmap: %s", strerror(errno));
	memset(ro, 0, sizeof(struct hwtimer_arm_entry));
	((struct hwtimer_arm_entry *)ro)->expires_ns = 3600 * SEC;
	if (mprotect(ro, 4096, PROT_READ))
		return ufail(3, "mprotect: %s", strerror(errno));
	ret = ht_batch(fa, HWTIMER_IOC_ARM, ro, 1, 0, NULL, NULL);
	n = user_count(watch);
	if (ret != -EFAULT || n != 0)
		return ufail(4, "ARM into a read-only entry: %s (want EFAULT), user_count %ld (want 0)",
			     strerror(-ret), n);
	munmap(ro, 4096);

	/* Fill the user up: 60 in one file, 40 in the other, then EDQUOT. */
	ret = arm_one(fa, 3600 * SEC, &id_cancel);
	if (ret)
		return ufail(5, "first arm: %s", strerror(-ret));
	ret = arm_many(fa, 59, &failed, &err);
	if (ret || failed)
		return ufail(6, "59 more in file A: %s, %u failed (%s); file_cap is 60",
			     strerror(-ret), failed, strerror(-err));
	ret = arm_many(fb, 60, &failed, &err);
	if (ret || failed != 20 || err != -EDQUOT)
		return ufail(7, "60 in file B with 60 in A, user_cap %u: %s, %u failed (want 20) with %s (want EDQUOT)",
			     USER_CAP_T, strerror(-ret), failed, strerror(-err));
	if (ht_info(fb, &info) || info.pending != 40 || info.user_count != USER_CAP_T ||
	    info.pending >= info.file_cap)
		return ufail(8, "INFO of file B: pending %llu (want 40 < file_cap %llu), user_count %llu (want %u)",
			     (unsigned long long)info.pending, (unsigned long long)info.file_cap,
			     (unsigned long long)info.user_count, USER_CAP_T);
	n = user_count(watch);
	if (n != USER_CAP_T)
		return ufail(9, "user_count on a third, empty file: %ld (want %u)", n, USER_CAP_T);
	ret = arm_one(watch, 3600 * SEC, NULL);
	if (ret != -EDQUOT)
		return ufail(10, "arm in a third, empty file at the user cap: %s (want EDQUOT)",
			     strerror(-ret));
	ret = arm_one(fb, 3600 * SEC, NULL);
	if (ret != -EDQUOT)
		return ufail(11, "one more arm in file B: %s (want EDQUOT)", strerror(-ret));

	/* A cancel gives one back; a one-shot that expires holds it until read. */
	ret = ht_batch(fa, HWTIMER_IOC_CANCEL, &(struct hwtimer_cancel_entry){ .id = id_cancel },
			1, 0, NULL, NULL);
	if (ret)
		return ufail(12, "cancel: %s", strerror(-ret));
	ret = arm_one(fb, 0, &id);
	if (ret)
		return ufail(13, "arm after a cancel gave one back: %s", strerror(-ret));
	ret = arm_one(fb, 3600 * SEC, NULL);
	if (ret != -EDQUOT)
		return ufail(14, "arm while an expired record is unread: %s (want EDQUOT)",
			     strerror(-ret));
	p.fd = fb;
	p.events = POLLIN;
	if (poll(&p, 1, 5000) != 1 || read(fb, &rec, sizeof(rec)) != sizeof(rec) || rec.id != id)
		return ufail(15, "reading the expired record: %s", strerror(errno));
	n = user_count(watch);
	if (n != USER_CAP_T - 1)
		return ufail(16, "user_count after reading a one-shot record: %ld (want %u)",
			     n, USER_CAP_T - 1);
	ret = arm_one(fb, 3600 * SEC, NULL);
	if (ret)
		return ufail(17, "arm after a read gave one back: %s", strerror(-ret));

	/* Closing the files gives the rest back, to the file still open too. */
	close(fa);
	close(fb);
	n = user_count(watch);
	if (n != 0)
		return ufail(18, "user_count after its full files closed: %ld (want 0)", n);
	close(watch);
	fresh = ht_open(0);
	if (fresh < 0)
		return ufail(19, "open: %s", strerror(errno));
	n = user_count(fresh);
	if (n != 0)
		return ufail(20, "user_count of a fresh file after all closed: %ld (want 0)", n);
	close(fresh);
	return 0;
}

/* Fill @fd[0] with 60 and @fd[1] with 40: the user's whole USER_CAP_T. */
static int fill_user(int fd[2])
{
	uint32_t failed;
	int32_t err;
	int ret;

	ret = arm_many(fd[0], 60, &failed, &err);
	if (ret || failed)
		return ufail(21, "60 arms in the first file: %s, %u failed (%s)",
			     strerror(-ret), failed, strerror(-err));
	ret = arm_many(fd[1], 40, &failed, &err);
	if (ret || failed)
		return ufail(22, "40 arms in the second file: %s, %u failed (%s)",
			     strerror(-ret), failed, strerror(-err));
	ret = arm_one(fd[1], 3600 * SEC, NULL);
	if (ret != -EDQUOT)
		return ufail(23, "arm beyond user_cap %u: %s (want EDQUOT)", USER_CAP_T,
			     strerror(-ret));
	return 0;
}

/*
 * User A sits at its user cap with its files open while user B arms
 * (u_user_b): B gets its own USER_CAP_T, and A's count does not move.
 */
struct user_a {
	int to_a[2], from_a[2];
};

static int user_a_fn(void *arg)
{
	struct user_a *ua = arg;
	int fd[2], ret;
	long n;
	char c = 0;

	fd[0] = ht_open(0);
	fd[1] = ht_open(0);
	if (fd[0] < 0 || fd[1] < 0)
		return ufail(29, "open: %s", strerror(errno));
	ret = fill_user(fd);
	if (ret)
		return ret;
	if (write(ua->from_a[1], "a", 1) != 1 || read(ua->to_a[0], &c, 1) != 1)
		return ufail(24, "lost the parent");
	n = user_count(fd[0]);
	if (n != USER_CAP_T)
		return ufail(25, "user_count of user A after user B armed: %ld (want %u)",
			     n, USER_CAP_T);
	/* fd[1] holds 40, under file_cap: EDQUOT is the user cap's. */
	ret = arm_one(fd[1], 3600 * SEC, NULL);
	if (ret != -EDQUOT)
		return ufail(26, "user A armed past its cap after user B's arms: %s (want EDQUOT)",
			     strerror(-ret));
	close(fd[0]);
	close(fd[1]);
	return 0;
}

static int u_user_b(void *arg)
{
	struct hwtimer_info info;
	int fd[2], ret;

	fd[0] = ht_open(0);
	fd[1] = ht_open(0);
	if (fd[0] < 0 || fd[1] < 0)
		return ufail(30, "open: %s", strerror(errno));
	if (ht_info(fd[0], &info) || info.user_count || info.global_count < USER_CAP_T)
		return ufail(27, "INFO of user B while user A is at its cap: user_count %llu (want 0), global_count %llu (want >= %u)",
			     (unsigned long long)info.user_count,
			     (unsigned long long)info.global_count, USER_CAP_T);
	/* B's arms must all succeed although A holds its whole cap. */
	ret = fill_user(fd);
	if (ret)
		return ret;
	if (ht_info(fd[1], &info) || info.user_count != USER_CAP_T ||
	    info.global_count < 2 * USER_CAP_T)
		return ufail(28, "INFO of user B at its cap: user_count %llu (want %u), global_count %llu (want >= %u)",
			     (unsigned long long)info.user_count, USER_CAP_T,
			     (unsigned long long)info.global_count, 2 * USER_CAP_T);
	close(fd[0]);
	close(fd[1]);
	return 0;
}

static void check_user_isolation(void)
{
	struct user_a ua;
	int status, ret;
	pid_t pid;
	char c;

	if (pipe(ua.to_a) || pipe(ua.from_a)) {
		tap(false, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		tap(false, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		close(ua.to_a[1]);
		close(ua.from_a[0]);
		if (become(NOBODY))
			_exit(100);
		_exit(user_a_fn(&ua));
	}
	close(ua.to_a[0]);
	close(ua.from_a[1]);
	if (read(ua.from_a[0], &c, 1) != 1) {
		ret = -1;
		tap(false, "user B arms while user A sits at its user_cap: user A did not get there");
	} else {
		ret = as_user(OTHER, u_user_b, NULL);
		tap(ret == 0, "user B arms its own user_cap while user A sits at its user_cap (step %d)",
		    ret);
	}
	/* Let A go on (or see EOF and fail) and collect it. */
	if (write(ua.to_a[1], "g", 1) != 1)
		ret = -1;
	close(ua.to_a[1]);
	close(ua.from_a[0]);
	waitpid(pid, &status, 0);
	tap(WIFEXITED(status) && !WEXITSTATUS(status),
	    "user A's count and cap held while user B armed (step %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* A fresh file of a user whose files are all closed reports user_count 0. */
static int u_user_count_zero(void *arg)
{
	int fd = ht_open(0);
	long n;

	if (fd < 0)
		return ufail(1, "open: %s", strerror(errno));
	n = user_count(fd);
	close(fd);
	if (n != 0)
		return ufail(2, "user_count of a fresh file after all closed: %ld (want 0)", n);
	return 0;
}

/* The victim's side: see check_other_user(). */
struct victim {
	pid_t pid;
	int fd;
	uint64_t ids[8];
	int to_v[2], from_v[2];
};

static int victim_fn(void *arg)
{
	struct victim *v = arg;
	struct hwtimer_arm_entry a[8];
	struct hwtimer_expiry r[8];
	struct pollfd p;
	uint64_t t0;
	unsigned int i, got = 0;
	char c;

	v->fd = ht_open(0);
	if (v->fd < 0)
		return 1;
	memset(a, 0, sizeof(a));
	for (i = 0; i < 8; i++) {
		a[i].cookie = 0xc0c0 + i;
		/* Four expire in a second, four only when cancelled. */
		a[i].expires_ns = i < 4 ? SEC : 3600 * SEC;
	}
	if (ht_batch(v->fd, HWTIMER_IOC_ARM, a, 8, 0, NULL, NULL))
		return 2;
	for (i = 0; i < 8; i++)
		v->ids[i] = a[i].id;
	if (write(v->from_v[1], v, sizeof(*v)) != sizeof(*v))
		return 3;
	/* Wait while the other user tries. */
	if (read(v->to_v[0], &c, 1) != 1)
		return 4;
	p.fd = v->fd;
	p.events = POLLIN;
	t0 = now_ns();
	while (got < 4 && now_ns() - t0 < 20 * SEC) {
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = read(v->fd, r, sizeof(r));
		for (i = 0; n > 0 && i < n / sizeof(r[0]); i++, got++)
			if (r[i].cookie < 0xc0c0 || r[i].cookie > 0xc0c3)
				return 5;
	}
	if (got != 4)
		return 6;
	for (i = 4; i < 8; i++) {
		struct hwtimer_cancel_entry ce = { .id = v->ids[i] };

		if (ht_batch(v->fd, HWTIMER_IOC_CANCEL, &ce, 1, 0, NULL, NULL) ||
		    ce.status != HWTIMER_STATUS_PENDING)
			return 7;
	}
	close(v->fd);
	return 0;
}

static int attacker_fn(void *arg)
{
	struct victim *v = arg;
	struct hwtimer_expiry r[8];
	struct hwtimer_info info;
	char path[64];
	int fd, pidfd, i;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", v->pid, v->fd);
	if (open(path, O_RDWR) >= 0 || errno != EACCES)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", v->pid, v->fd);
	if (open(path, O_RDONLY) >= 0 || errno != EACCES)
		return 2;
	pidfd = syscall(SYS_pidfd_open, v->pid, 0);
	if (pidfd >= 0) {
		if (syscall(SYS_pidfd_getfd, pidfd, v->fd, 0) >= 0 || errno != EPERM)
			return 3;
		close(pidfd);
	}
	/* The victim's ids mean nothing in another file. */
	fd = ht_open(O_NONBLOCK);
	if (fd < 0)
		return 4;
	for (i = 0; i < 8; i++) {
		struct hwtimer_cancel_entry c = { .id = v->ids[i] };
		struct hwtimer_modify_entry m = { .id = v->ids[i], .expires_ns = 0 };

		if (ht_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL) != -ENOENT ||
		    c.result != -ENOENT || c.status)
			return 5;
		if (ht_batch(fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) != -ENOENT ||
		    m.result != -ENOENT || m.deadline_ns || m.status)
			return 6;
	}
	if (ht_info(fd, &info) || info.pending || info.queued)
		return 7;
	usleep(1500000);	/* the victim's first four expired meanwhile */
	if (read(fd, r, sizeof(r)) >= 0 || errno != EAGAIN)
		return 8;
	close(fd);
	return 0;
}

static void check_other_user(void)
{
	struct victim v;
	pid_t vpid;
	int status, ret;

	memset(&v, 0, sizeof(v));
	if (pipe(v.to_v) || pipe(v.from_v)) {
		tap(false, "pipe");
		return;
	}
	vpid = fork();
	if (!vpid) {
		if (become(NOBODY))
			_exit(100);
		v.pid = getpid();
		_exit(victim_fn(&v));
	}
	if (read(v.from_v[0], &v, sizeof(v)) != sizeof(v)) {
		tap(false, "another user's file: the victim did not start");
		return;
	}
	ret = as_user(OTHER, attacker_fn, &v);
	tap(ret == 0, "another user cannot reach a user's file or its timeouts (step %d)", ret);
	if (write(v.to_v[1], "g", 1) != 1)
		ret = -1;
	waitpid(vpid, &status, 0);
	tap(WIFEXITED(status) && !WEXITSTATUS(status),
	    "the victim's timeouts all expired or cancelled untouched (step %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Nothing reaches user space that the kernel did not set. */
static void check_leaks(void)
{
	struct hwtimer_info info;
	struct hwtimer_arm_entry a[2];
	struct hwtimer_expiry r[2];
	struct pollfd p;
	int fd = ht_open(0), ok = 1;
	ssize_t n = 0;

	if (fd < 0) {
		tap(false, "open");
		return;
	}
	if (ht_info(fd, &info) || info.reserved ||
	    info.record_size != sizeof(r[0]))
		ok = 0;
	memset(a, 0, sizeof(a));
	a[0].expires_ns = 0;
	a[0].cookie = 42;
	a[1].expires_ns = 0;
	a[1].period_ns = 1;		/* invalid: shorter than a tick */
	a[1].id = 0x5a5a5a5a5a5a5a5aULL;
	a[1].deadline_ns = 0x5a5a5a5a5a5a5a5aULL;
	ht_batch(fd, HWTIMER_IOC_ARM, a, 2, HWTIMER_BATCH_CONTINUE, NULL, NULL);
	if (a[0].result || a[1].result != -EINVAL || a[1].id || a[1].deadline_ns)
		ok = 0;
	p.fd = fd;
	p.events = POLLIN;
	memset(r, 0x5a, sizeof(r));
	if (poll(&p, 1, 5000) == 1)
		n = read(fd, r, sizeof(r));
	if (n != sizeof(r[0]) || r[0].cookie != 42 || r[0].id != a[0].id || r[0].flags ||
	    r[0].reserved || r[0].overrun || r[0].expired_ns < r[0].deadline_ns ||
	    (r[0].id >> 48) || r[1].cookie != 0x5a5a5a5a5a5a5a5aULL)
		ok = 0;
	close(fd);
	tap(ok, "no uninitialised byte or kernel value in INFO, failed entries and records");
}

/*
 * open() and close() of a new user's first file, as the median over
 * MANY_REPS runs: each run creates the user's accounting entry and frees
 * it. The real uid is switched with setresuid() and the effective uid
 * stays root, so one process opens files as many users.
 */
#define MANY_REPS	335
#define MANY_ROUNDS	3
#define MANY_BASE	200000		/* first uid of the crowd */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t open_close_median(uid_t uid)
{
	static uint64_t t[MANY_REPS];
	unsigned int i;
	uint64_t t0;
	int fd;

	for (i = 0; i < MANY_REPS; i++) {
		if (setresuid(uid, -1, -1))
			return 0;
		t0 = now_ns();
		fd = ht_open(0);
		if (fd >= 0)
			close(fd);
		t[i] = now_ns() - t0;
		if (setresuid(0, -1, -1) || fd < 0)
			return 0;
	}
	qsort(t, MANY_REPS, sizeof(t[0]), cmp_u64);
	return t[MANY_REPS / 2];
}

/*
 * The bucket of @uid in a 64-bucket kernel hashtable (hash_32(uid, 6)),
 * what the users' table was: the crowd is made of uids that all fall in
 * the bucket of the user who is timed, as an attacker choosing among its
 * subordinate uids would pick them.
 */
static unsigned int bucket64(uint32_t uid)
{
	return (uint32_t)(uid * 0x61C88647U) >> 26;
}

/*
 * A user with many uids (subordinate uids mapped into a user namespace)
 * holds a file open as each: the open and close of anyone else must not
 * cost more for it (the per-user accounting is looked up by uid in
 * constant time, not along a hash chain of users).
 *
 * Timed alone and then with the crowd, MANY_ROUNDS times over: a host that
 * gets busier while the crowd is there makes that round's crowd look
 * slow, not every round's, while a lookup along a chain of 4096 users
 * costs in every round. One round within bounds passes.
 */
static unsigned int many_users = 4096;

static void check_many_users(void)
{
	struct rlimit rl = { many_users + 256, many_users + 256 };
	uint64_t alone = 0, crowd = 0, a, c;
	unsigned int i, n = 0, round;
	bool root = true, ok = false;
	uid_t uid;
	int *fds;

	fds = calloc(many_users, sizeof(*fds));
	if (!fds || setrlimit(RLIMIT_NOFILE, &rl)) {
		tap(false, "many users: setup (%s)", strerror(errno));
		free(fds);
		return;
	}
	for (round = 0; round < MANY_ROUNDS && root && !ok; round++) {
		a = open_close_median(MANY_BASE - 1);
		for (n = 0, uid = MANY_BASE; n < many_users; n++, uid++) {
			while (bucket64(uid) != bucket64(MANY_BASE - 1))
				uid++;
			if (setresuid(uid, -1, -1))
				break;
			fds[n] = ht_open(0);
			if (fds[n] < 0)
				break;
		}
		/* Opening as another user needs the real uid back first. */
		root = !setresuid(0, -1, -1);
		c = 0;
		if (root && n == many_users)
			c = open_close_median(MANY_BASE - 1);
		for (i = 0; i < n; i++)
			close(fds[i]);
		printf("# open+close of a new user's file: %llu us alone, %llu us with %u users holding files (all in its bucket of a 64-bucket hash)\n",
		       (unsigned long long)a / 1000, (unsigned long long)c / 1000, n);
		if (n != many_users || !a || !c)
			break;
		ok = c < 2 * a + 20000;
		if (ok || !crowd || c * alone < crowd * a) {
			alone = a;
			crowd = c;
		}
	}
	free(fds);
	tap(root && n == many_users && ok,
	    "open and close cost the same with %u users holding files (%llu us, %llu us alone; round %u of at most %u)",
	    n, (unsigned long long)crowd / 1000, (unsigned long long)alone / 1000, round,
	    MANY_ROUNDS);
}

/*
 * Memory per live timeout for IDS_LIVE timeouts armed in one go (dense
 * ids) and for as many left alive one in 64 (sparse ids: of each 64
 * ids armed, 63 expire at once and their records are read, which gives
 * them back as a cancel does, 2048 ids a call): the bytes charged to the
 * memory cgroup (slab in
 * memory.stat; objects in KASAN's quarantine are uncharged already), and
 * the xarray and radix-tree nodes in use (radix_tree_node objects, after
 * a shrink that empties KASAN's quarantine of them), which an id table
 * indexed by id needs one of per sparse survivor, charged or not (the
 * xarray of ids had no XA_FLAGS_ACCOUNT, so the nodes it allocated under
 * its lock were not charged). Neither may depend on which ids are live.
 */
#define IDS_CG		"/sys/fs/cgroup/hwts-ids"
#define IDS_LIVE	2048
#define IDS_BATCH	2048

/* Read the @n records of timeouts that expired at once; 0 when all came. */
static int ids_drain(int fd, unsigned int n)
{
	static struct hwtimer_expiry r[IDS_BATCH];
	unsigned int got = 0;
	ssize_t len;

	while (got < n) {
		len = read(fd, r, (n - got) * sizeof(r[0]));
		if (len <= 0 || len % sizeof(r[0]))
			return -1;
		got += len / sizeof(r[0]);
	}
	return 0;
}

static long ids_slab(void)
{
	long a = read_key(IDS_CG "/memory.stat", "slab_reclaimable ");
	long b = read_key(IDS_CG "/memory.stat", "slab_unreclaimable ");

	return a < 0 || b < 0 ? -1 : a + b;
}

static long ids_nodes(void)
{
	write_file("/sys/kernel/slab/radix_tree_node/shrink", "1");
	return read_long("/sys/kernel/slab/radix_tree_node/objects");
}

/*
 * Charged slab bytes per timeout for IDS_LIVE of them, dense or sparse, in
 * r[0] (<0: error), and how many more nodes are in use, in r[1].
 */
static void ids_per_timeout(bool sparse, long r[2])
{
	static struct hwtimer_arm_entry a[IDS_BATCH];
	struct hwtimer_info info;
	long before, after, nodes;
	unsigned int i, k, n;
	int fd;

	r[0] = -1;
	r[1] = 0;
	/*
	 * memory.stat is flushed lazily (newer kernels every 2 s): wait for
	 * a flush before each reading, or the dense figure comes out short.
	 */
	usleep(2500000);
	before = ids_slab();
	nodes = ids_nodes();
	fd = ht_open(O_NONBLOCK);
	if (fd < 0 || before < 0)
		return;
	/*
	 * Dense: batches of 64 live timeouts. Sparse: batches of IDS_BATCH
	 * ids, one in 64 due in an hour and the rest due at once, their
	 * records read before the next batch: 64 times as many ids as
	 * survivors, as many arms, and one call a batch for the rest.
	 */
	n = sparse ? IDS_BATCH : 64;
	for (i = 0; i < IDS_LIVE; i += sparse ? n / 64 : n) {
		memset(a, 0, n * sizeof(a[0]));
		for (k = 0; k < n; k++)
			a[k].expires_ns = !sparse || k % 64 == 0 ? 3600 * SEC : 0;
		if (ht_batch(fd, HWTIMER_IOC_ARM, a, n, 0, NULL, NULL))
			return;
		if (sparse && ids_drain(fd, n - n / 64))
			return;
	}
	if (ht_info(fd, &info) || info.pending != IDS_LIVE || info.queued)
		return;
	usleep(2500000);	/* RCU-freed xarray nodes, memcg stat flush */
	after = ids_slab();
	/*
	 * On a loaded host the periodic flush can come later than 2 s: wait
	 * up to 10 s more for one to show the file's chunks, then for the
	 * next, for what that one may have missed. A device that charged
	 * nothing still reads 0 here, and fails below.
	 */
	for (k = 0; k < 40 && after - before < IDS_LIVE; k++) {
		usleep(250000);
		after = ids_slab();
	}
	if (k) {
		usleep(2500000);
		after = ids_slab();
	}
	r[1] = nodes >= 0 ? ids_nodes() - nodes : 0;
	close(fd);
	r[0] = (after - before) / IDS_LIVE;
}

static void check_id_memory(void)
{
	long r[4] = { -1, 0, -1, 0 };
	int status, fds[2];
	char buf[32];
	pid_t pid;

	if (mkdir(IDS_CG, 0755) && errno != EEXIST) {
		tap_skip("no cgroup2 (%s)", strerror(errno));
		return;
	}
	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		snprintf(buf, sizeof(buf), "%d", getpid());
		if (write_file(IDS_CG "/cgroup.procs", buf))
			_exit(1);
		ids_per_timeout(false, r);
		ids_per_timeout(true, r + 2);
		_exit(write(fds[1], r, sizeof(r)) == sizeof(r) ? 0 : 2);
	}
	close(fds[1]);
	if (read(fds[0], r, sizeof(r)) != sizeof(r))
		r[0] = r[2] = -1;
	close(fds[0]);
	waitpid(pid, &status, 0);
	rmdir(IDS_CG);
	/*
	 * A file's slots come in chunks it keeps while any of their slots
	 * is live, so sparse survivors cost what the most timeouts the file
	 * held at once cost (IDS_LIVE + IDS_BATCH here), not what the ids
	 * it armed (64 times IDS_LIVE) would.
	 */
	tap(r[0] > 0 && r[2] > 0 &&
	    r[2] < r[0] * (IDS_LIVE + IDS_BATCH) / IDS_LIVE * 3 / 2 + 64 && r[3] < IDS_LIVE / 8,
	    "memory per live timeout is bounded by the most the file held, not by its ids: %ld bytes charged and %ld more nodes for %u dense ids, %ld bytes and %ld nodes when one in 64 ids is live",
	    r[0], r[1], IDS_LIVE, r[2], r[3]);
}

/* A memory cgroup bounds what a user's timeouts may take. */
static int u_memcg(void *arg)
{
	int fds[64], nfd = 0;
	uint32_t failed;
	int32_t err = 0;
	long total = 0;

	for (;;) {
		if (nfd < 64 && (!nfd || total >= 40000 * nfd)) {
			fds[nfd] = ht_open(0);
			if (fds[nfd] < 0)
				return errno == ENOMEM ? 0 : 1;
			nfd++;
		}
		if (arm_many(fds[nfd - 1], 256, &failed, &err) && !err)
			return 2;
		total += 256 - failed;
		if (err == -ENOMEM)
			break;
		if (err)
			return 3;
		if (total > 4000000)
			return 4;	/* the limit did not hold */
	}
	printf("# memcg: %ld timeouts in %d files, then ENOMEM\n", total, nfd);
	return 0;
}

static void check_memcg(void)
{
	const char *cg = "/sys/fs/cgroup/hwts-sec";
	char buf[32];
	int status, i;
	long g, events;
	pid_t pid;

	if (mkdir(cg, 0755) && errno != EEXIST) {
		tap_skip("no cgroup2 (%s)", strerror(errno));
		return;
	}
	write_file("/sys/fs/cgroup/hwts-sec/memory.max", "8M");
	write_file("/sys/fs/cgroup/hwts-sec/memory.swap.max", "0");
	set_caps(100000000, 100000000, 100000000);
	pid = fork();
	if (!pid) {
		snprintf(buf, sizeof(buf), "%d", getpid());
		if (write_file("/sys/fs/cgroup/hwts-sec/cgroup.procs", buf) || become(NOBODY))
			_exit(100);
		_exit(u_memcg(NULL));
	}
	waitpid(pid, &status, 0);
	for (i = 0, g = ht_global_count(); g && i < 100; i++, g = ht_global_count())
		usleep(100000);
	events = read_key("/sys/fs/cgroup/hwts-sec/memory.events", "max ");
	/* Killed by the cgroup's OOM killer is a correct outcome too. */
	tap(((WIFEXITED(status) && !WEXITSTATUS(status)) ||
	     (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) && events > 0 && !g,
	    "a memory cgroup's limit bounds a user's timeouts (status %#x, %ld times at the limit), all released (%ld left)",
	    status, events, g);
	rmdir(cg);
}

int main(int argc, char **argv)
{
	bool memcg = false;
	const struct ht_opt opts[] = {
		HT_OPT_FLAG('m', memcg),
		HT_OPT_NUM('u', many_users, "users", 1, 1000000),
		{ 0 }
	};
	struct stat st;
	int ret;

	if (ht_getopt(argc, argv, opts))
		return 2;

	if (access(HWT_DEV, F_OK)) {
		printf("1..0 # SKIP no %s\n", HWT_DEV);
		return 0;
	}
	if (geteuid()) {
		printf("1..0 # SKIP must run as root (it drops to other users)\n");
		return 0;
	}
	tap_plan(memcg ? 16 : 15);
	old_file_cap = read_long(HWT_PARAMS "file_cap");
	old_global_cap = read_long(HWT_PARAMS "global_cap");
	old_user_cap = read_long(HWT_PARAMS "user_cap");
	atexit(restore_caps);

	memset(&st, 0, sizeof(st));
	ret = stat(HWT_DEV, &st);
	tap(!ret && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666,
	    "%s is a character device any user may open (mode %o)", HWT_DEV, st.st_mode & 0777);
	ret = as_user(NOBODY, u_open_and_params, NULL);
	tap(ret == 0, "an unprivileged user opens it, cannot change caps or read debugfs (step %d)",
	    ret);

	/* user_cap far above global_cap: EDQUOT here is the global cap's. */
	set_caps(50, 120, 1000);
	ret = as_user(NOBODY, u_file_cap, NULL);
	tap(ret == 0, "file_cap holds for an unprivileged user: ENOSPC (step %d)", ret);
	ret = as_user(NOBODY, u_global_cap, NULL);
	tap(ret == 0, "global_cap holds across its files: EDQUOT (step %d)", ret);
	tap(ht_global_count() == 0, "all released when its files close");

	/* file_cap above half of user_cap, global_cap far above both. */
	set_caps(60, 100000, USER_CAP_T);
	ret = as_user(NOBODY, u_user_cap, NULL);
	tap(ret == 0, "user_cap %u holds across a user's files though each is under file_cap: EDQUOT; cancel, read and close give back (step %d)",
	    USER_CAP_T, ret);
	check_user_isolation();
	ret = as_user(NOBODY, u_user_count_zero, NULL);
	if (!ret)
		ret = as_user(OTHER, u_user_count_zero, NULL);
	tap(ret == 0 && ht_global_count() == 0,
	    "each user's count is back to 0 when its files close (step %d, global count %ld)",
	    ret, ht_global_count());
	restore_caps();

	check_other_user();
	check_leaks();
	check_many_users();
	check_id_memory();
	if (memcg)
		check_memcg();
	restore_caps();
	tap(read_long(HWT_PARAMS "file_cap") == old_file_cap &&
	    read_long(HWT_PARAMS "global_cap") == old_global_cap &&
	    read_long(HWT_PARAMS "user_cap") == old_user_cap,
	    "caps restored (file_cap %ld, global_cap %ld, user_cap %ld)",
	    read_long(HWT_PARAMS "file_cap"), read_long(HWT_PARAMS "global_cap"),
	    read_long(HWT_PARAMS "user_cap"));
	return tap_status();
}
