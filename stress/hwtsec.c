// SPDX-License-Identifier: GPL-2.0
/*
 * hwtsec: what an unprivileged user can and cannot do with /dev/hwtimer
 * (docs/security.md). Runs as root and drops to unprivileged users
 * (nobody, and uid 65533) in child processes.
 *
 *   hwtsec [-m]     (-m: also the memory cgroup limit test, slower)
 *
 * Checks: any user may open the device; an unprivileged user cannot change
 * the caps or read hwtimer's debugfs files; the per-file cap (ENOSPC) and
 * the global cap (EDQUOT) hold for it, whatever batch it sends; another
 * user can neither reach a user's file (/proc/PID/fd, fdinfo, pidfd_getfd)
 * nor cancel, modify or read its timeouts through its own file, and the
 * victim's timeouts all expire untouched; nothing reaches user space that
 * was not set (INFO's reserved fields, the outputs of failed entries, the
 * records); and with -m, a user in a memory cgroup cannot allocate
 * timeouts past the cgroup's limit, and all is released when it dies.
 * The caps are restored at the end.
 */
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "hwts_user.h"

#define NOBODY		65534
#define OTHER		65533

static long old_file_cap = -1, old_global_cap = -1;

static void set_caps(long file_cap, long global_cap)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", file_cap);
	write_file(HWT_PARAMS "file_cap", buf);
	snprintf(buf, sizeof(buf), "%ld", global_cap);
	write_file(HWT_PARAMS "global_cap", buf);
}

static void restore_caps(void)
{
	if (old_file_cap >= 0)
		set_caps(old_file_cap, old_global_cap);
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
	ret = hwt_batch(fd, HWTIMER_IOC_ARM, a, n, HWTIMER_BATCH_CONTINUE, &done, failed);
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
	int fd = hwt_open(0);

	if (fd < 0)
		return 1;
	close(fd);
	if (open(HWT_PARAMS "file_cap", O_WRONLY) >= 0 || errno != EACCES)
		return 2;
	if (open(HWT_PARAMS "global_cap", O_WRONLY) >= 0 || errno != EACCES)
		return 3;
	if (open("/sys/kernel/debug/hwtimer/default/stats", O_RDONLY) >= 0)
		return 4;
	return 0;
}

/* file_cap is 50: the 51st timeout of one file fails with ENOSPC. */
static int u_file_cap(void *arg)
{
	struct hwtimer_info info;
	uint32_t failed;
	int32_t err;
	int fd = hwt_open(0), ret;

	if (fd < 0)
		return 1;
	ret = arm_many(fd, 60, &failed, &err);
	if (ret || failed != 10 || err != -ENOSPC)
		return 2;
	if (hwt_info(fd, &info) || info.pending != 50 || info.file_cap != 50)
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
		fd[i] = hwt_open(0);
		if (fd[i] < 0)
			return 1;
	}
	if (arm_many(fd[0], 50, &failed, &err) || arm_many(fd[1], 50, &failed, &err))
		return 2;
	ret = arm_many(fd[2], 30, &failed, &err);
	if (ret || failed != 10 || err != -EDQUOT)
		return 3;
	if (hwt_global_count() != 120)
		return 4;
	for (i = 0; i < 3; i++)
		close(fd[i]);
	return hwt_global_count() == 0 ? 0 : 5;
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

	v->fd = hwt_open(0);
	if (v->fd < 0)
		return 1;
	memset(a, 0, sizeof(a));
	for (i = 0; i < 8; i++) {
		a[i].cookie = 0xc0c0 + i;
		/* Four expire in a second, four only when cancelled. */
		a[i].expires_ns = i < 4 ? SEC : 3600 * SEC;
	}
	if (hwt_batch(v->fd, HWTIMER_IOC_ARM, a, 8, 0, NULL, NULL))
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

		if (hwt_batch(v->fd, HWTIMER_IOC_CANCEL, &ce, 1, 0, NULL, NULL) ||
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
	fd = hwt_open(O_NONBLOCK);
	if (fd < 0)
		return 4;
	for (i = 0; i < 8; i++) {
		struct hwtimer_cancel_entry c = { .id = v->ids[i] };
		struct hwtimer_modify_entry m = { .id = v->ids[i], .expires_ns = 0 };

		if (hwt_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL) != -ENOENT ||
		    c.result != -ENOENT || c.status)
			return 5;
		if (hwt_batch(fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) != -ENOENT ||
		    m.result != -ENOENT || m.deadline_ns || m.status)
			return 6;
	}
	if (hwt_info(fd, &info) || info.pending || info.queued)
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
	int fd = hwt_open(0), ok = 1;
	ssize_t n = 0;

	if (fd < 0) {
		tap(false, "open");
		return;
	}
	if (hwt_info(fd, &info) || info.reserved[0] || info.reserved[1] ||
	    info.reserved[2] || info.reserved[3] || info.record_size != sizeof(r[0]))
		ok = 0;
	memset(a, 0, sizeof(a));
	a[0].expires_ns = 0;
	a[0].cookie = 42;
	a[1].expires_ns = 0;
	a[1].period_ns = 1;		/* invalid: shorter than a tick */
	a[1].id = 0x5a5a5a5a5a5a5a5aULL;
	a[1].deadline_ns = 0x5a5a5a5a5a5a5a5aULL;
	hwt_batch(fd, HWTIMER_IOC_ARM, a, 2, HWTIMER_BATCH_CONTINUE, NULL, NULL);
	if (a[0].result || a[1].result != -EINVAL || a[1].id || a[1].deadline_ns)
		ok = 0;
	p.fd = fd;
	p.events = POLLIN;
	memset(r, 0x5a, sizeof(r));
	if (poll(&p, 1, 5000) == 1)
		n = read(fd, r, sizeof(r));
	if (n != sizeof(r[0]) || r[0].cookie != 42 || r[0].id != a[0].id || r[0].flags ||
	    r[0].error || r[0].overrun || r[0].expired_ns < r[0].deadline_ns ||
	    (r[0].id >> 48) || r[1].cookie != 0x5a5a5a5a5a5a5a5aULL)
		ok = 0;
	close(fd);
	tap(ok, "no uninitialised byte or kernel value in INFO, failed entries and records");
}

static long read_key(const char *path, const char *key)
{
	char line[128];
	long v = -1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
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
			fds[nfd] = hwt_open(0);
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
		printf("ok %u - # SKIP no cgroup2 (%s)\n", ++tap_n, strerror(errno));
		return;
	}
	write_file("/sys/fs/cgroup/hwts-sec/memory.max", "8M");
	write_file("/sys/fs/cgroup/hwts-sec/memory.swap.max", "0");
	set_caps(100000000, 100000000);
	pid = fork();
	if (!pid) {
		snprintf(buf, sizeof(buf), "%d", getpid());
		if (write_file("/sys/fs/cgroup/hwts-sec/cgroup.procs", buf) || become(NOBODY))
			_exit(100);
		_exit(u_memcg(NULL));
	}
	waitpid(pid, &status, 0);
	for (i = 0, g = hwt_global_count(); g && i < 100; i++, g = hwt_global_count())
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
	bool memcg = argc > 1 && !strcmp(argv[1], "-m");
	struct stat st;
	int ret;

	if (access(HWT_DEV, F_OK)) {
		printf("1..0 # SKIP no %s\n", HWT_DEV);
		return 0;
	}
	if (geteuid()) {
		printf("1..0 # SKIP must run as root (it drops to other users)\n");
		return 0;
	}
	tap_plan(memcg ? 10 : 9);
	old_file_cap = read_long(HWT_PARAMS "file_cap");
	old_global_cap = read_long(HWT_PARAMS "global_cap");
	atexit(restore_caps);

	memset(&st, 0, sizeof(st));
	ret = stat(HWT_DEV, &st);
	tap(!ret && S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0666,
	    "%s is a character device any user may open (mode %o)", HWT_DEV, st.st_mode & 0777);
	ret = as_user(NOBODY, u_open_and_params, NULL);
	tap(ret == 0, "an unprivileged user opens it, cannot change caps or read debugfs (step %d)",
	    ret);

	set_caps(50, 120);
	ret = as_user(NOBODY, u_file_cap, NULL);
	tap(ret == 0, "file_cap holds for an unprivileged user: ENOSPC (step %d)", ret);
	ret = as_user(NOBODY, u_global_cap, NULL);
	tap(ret == 0, "global_cap holds across its files: EDQUOT (step %d)", ret);
	tap(hwt_global_count() == 0, "all released when its files close");
	restore_caps();

	check_other_user();
	check_leaks();
	if (memcg)
		check_memcg();
	restore_caps();
	tap(read_long(HWT_PARAMS "file_cap") == old_file_cap &&
	    read_long(HWT_PARAMS "global_cap") == old_global_cap, "caps restored");
	return tap_failed ? 1 : 0;
}
