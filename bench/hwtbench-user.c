// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench-user: /dev/hwtimer against what user space uses instead, in
 * the same boot, on the same work:
 *
 *   timerfd         one timerfd per timeout, created and closed with it
 *   timerfd_pool    a pool of timerfds created once and re-armed with
 *                   timerfd_settime()
 *   timerfd_epoll   ... waited for with level-triggered epoll
 *   timerfd_epollet ... with edge-triggered epoll (the pool)
 *   uwheel          an in-process hierarchical timing wheel driven by one
 *                   timerfd (bench/uwheel.h), as libuv, nginx or timeout.c
 *                   users have it
 *
 *   arm       N timeouts at random delays of 10 s to 2 h (log-uniform, so
 *             spread over the slots and levels of the wheel)
 *   cancel    them
 *   modify    N armed timeouts re-armed to new random delays:
 *             HWTIMER_IOC_MODIFY batches, timerfd_settime() on armed fds
 *   mem       kernel memory per armed timeout: /proc/meminfo deltas, and
 *             the memory cgroup's memory.current and memory.stat (slab,
 *             kernel) deltas when run in one (-c)
 *   deliver   N expirations, all due: read() batches of records, against
 *             read() of each timerfd, epoll_wait() + read() per timerfd,
 *             and the wheel's one wake-up; also the CPU time of the whole
 *             system per expiration (/proc/stat, softirq included) from
 *             the end of the arming to the last expiration read
 *   lifecycle N timeouts armed, expired and consumed (or armed and
 *             cancelled): ARM + read(), against timerfd_create() +
 *             timerfd_settime() + epoll_ctl() + epoll_wait() + read() +
 *             close(), the pool's settime + epoll_wait() + read(), and the
 *             wheel's insert + expiry; the wait for the deadline excluded
 *   lateness  N timeouts spread over a few seconds, read as they expire:
 *             when the reader got each one, against its deadline
 *
 * Prints the same "R group facility n metric unit median min max reps"
 * lines as the kernel module (bench/report.pl reads both), "H" histogram
 * lines, "D" lines with details of a run, and "E" lines for errors (then
 * exits non-zero).
 *
 *   hwtbench-user [-n timeouts] [-r repetitions] [-s spread_ms] [-c cgroup]
 *
 * With -c the program moves itself into the cgroup v2 directory given
 * (created if needed; its parent must have the memory controller enabled
 * for its children) before anything is allocated, so that every kernel
 * allocation it causes is charged to a non-root memory cgroup, as for a
 * service under systemd or in a container.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>

#include <linux/hwtimer.h>

#include "hwtimer_user.h"
#include "uwheel.h"

#define MAX_REPS	32
#define READ_RECS	4096
#define EPOLL_EVENTS	4096
#define HIST_BINS	40
#define NSEC		1000000000ULL
#define HOUR_NS		(3600 * NSEC)

static unsigned long n = 100000;
static unsigned int reps = 3;
static unsigned long spread_ms = 2000;
static const char *cgroup;
static int errors;

/* Random delays of the arm, cancel and modify runs. */
#define DELAY_MIN_NS	(10 * NSEC)
#define DELAY_MAX_NS	(2 * HOUR_NS)

/* One figure over the repetitions. */
struct fig {
	const char *group, *fac, *metric, *unit;
	double v[MAX_REPS];
	unsigned int cnt;
};

static struct fig figs[160];
static unsigned int nfigs;

/* Lateness histograms: bin 0 not late (or early), bin k [2^(k-1), 2^k) ns. */
enum { LAT_HWT, LAT_TFD, LAT_NR };
static const char *const lat_fac[LAT_NR] = { "hwtimer", "timerfd_epoll" };
static unsigned long long hist[LAT_NR][HIST_BINS + 1];

static void error(const char *fmt, ...)
{
	va_list ap;

	printf("E user: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	errors++;
}

static void die(const char *what)
{
	error("%s: %s", what, strerror(errno));
	exit(1);
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void record(const char *group, const char *fac, const char *metric,
		   const char *unit, unsigned int rep, double v)
{
	unsigned int i;

	for (i = 0; i < nfigs; i++) {
		if (!strcmp(figs[i].group, group) && !strcmp(figs[i].fac, fac) &&
		    !strcmp(figs[i].metric, metric))
			break;
	}
	if (i == nfigs) {
		if (nfigs == ARRAY_SIZE(figs))
			return;
		memset(&figs[nfigs], 0, sizeof(figs[nfigs]));
		figs[nfigs].group = group;
		figs[nfigs].fac = fac;
		figs[nfigs].metric = metric;
		figs[nfigs].unit = unit;
		nfigs++;
	}
	figs[i].v[rep] = v;
	if (figs[i].cnt < rep + 1)
		figs[i].cnt = rep + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_s64(const void *a, const void *b)
{
	__s64 x = *(const __s64 *)a, y = *(const __s64 *)b;

	return x < y ? -1 : x > y;
}

static void print_figs(void)
{
	unsigned int i;

	for (i = 0; i < nfigs; i++) {
		struct fig *f = &figs[i];
		double v[MAX_REPS], med;
		unsigned int c = f->cnt;

		memcpy(v, f->v, c * sizeof(v[0]));
		qsort(v, c, sizeof(v[0]), cmp_double);
		med = c & 1 ? v[c / 2] : (v[c / 2 - 1] + v[c / 2]) / 2;
		printf("R %s %s %lu %s %s %.3f %.3f %.3f %u\n", f->group, f->fac, n,
		       f->metric, f->unit, med, v[0], v[c - 1], c);
	}
	for (i = 0; i < LAT_NR; i++) {
		unsigned int k;

		for (k = 0; k <= HIST_BINS; k++) {
			if (hist[i][k])
				printf("H user %s %u %llu %llu\n", lat_fac[i], k,
				       k ? 1ULL << (k - 1) : 0, hist[i][k]);
		}
	}
}

/* Kernel memory in use, from /proc/meminfo, after folding the counters. */
static void kmem_usage(long long *used, long long *slab)
{
	char line[256];
	long long v, total = 0, free = 0;
	FILE *f;
	int fd;

	/* Fold the per-CPU vmstat deltas so the totals are exact. */
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd >= 0) {
		ssize_t w = write(fd, "1", 1);

		(void)w;
		close(fd);
	}
	*slab = 0;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		die("/proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %lld kB", &v) == 1)
			total = v;
		else if (sscanf(line, "MemFree: %lld kB", &v) == 1)
			free = v;
		else if (sscanf(line, "Slab: %lld kB", &v) == 1)
			*slab = v * 1024;
	}
	fclose(f);
	*used = (total - free) * 1024;
}

/*
 * The memory cgroup's charge: memory.current, and memory.stat's slab and
 * kernel (all kernel memory charged: slab, stacks, page tables, percpu...),
 * in bytes; -1 where not available.
 */
struct memcg {
	long long current, slab, kernel;
};

static void memcg_usage(struct memcg *m)
{
	char path[256];

	m->current = m->slab = m->kernel = -1;
	if (!cgroup)
		return;
	snprintf(path, sizeof(path), "%s/memory.current", cgroup);
	m->current = read_long(path);
	snprintf(path, sizeof(path), "%s/memory.stat", cgroup);
	m->slab = read_key(path, "slab ");
	m->kernel = read_key(path, "kernel ");
}

/* The memcg figures of @fac over n timeouts, from @a to @b. */
static void memcg_record(const char *fac, unsigned int rep, const struct memcg *a,
			 const struct memcg *b)
{
	if (a->current >= 0 && b->current >= 0)
		record("user_mem", fac, "memcg_per_timeout", "bytes", rep,
		       (double)(b->current - a->current) / n);
	if (a->slab >= 0 && b->slab >= 0)
		record("user_mem", fac, "memcg_slab_per_timeout", "bytes", rep,
		       (double)(b->slab - a->slab) / n);
	if (a->kernel >= 0 && b->kernel >= 0)
		record("user_mem", fac, "memcg_kernel_per_timeout", "bytes", rep,
		       (double)(b->kernel - a->kernel) / n);
}

/* Move this process into the cgroup, before it allocates anything. */
static void join_cgroup(void)
{
	char path[256], pid[32];

	if (mkdir(cgroup, 0755) && errno != EEXIST)
		die(cgroup);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	if (write_file(path, pid))
		die(path);
	snprintf(path, sizeof(path), "%s/memory.current", cgroup);
	if (read_long(path) < 0) {
		error("%s: no memory controller in the cgroup", cgroup);
		exit(1);
	}
	printf("I user_memcg %s\n", cgroup);
}

/*
 * CPU time the whole system spent on anything but idling, in ns: user,
 * nice, system, irq, softirq and steal of /proc/stat (kernels with
 * CONFIG_IRQ_TIME_ACCOUNTING account irq and softirq exactly; the others
 * are sampled at the tick). /proc/stat counts in USER_HZ units.
 */
static double busy_ns(void)
{
	unsigned long long u, ni, sy, id, io, irq, sirq, st;
	double hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int k;

	if (!f)
		die("/proc/stat");
	k = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &u, &ni, &sy, &id,
		   &io, &irq, &sirq, &st);
	fclose(f);
	if (k != 8) {
		error("/proc/stat: cannot parse the cpu line");
		exit(1);
	}
	return (double)(u + ni + sy + irq + sirq + st) * 1e9 / hz;
}

/* Random numbers (xorshift64*): runs are repeatable. */
static __u64 rnd_state = 0x6877746d62656e63ULL;

static __u64 rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

/*
 * A delay spread evenly over the doublings of [DELAY_MIN_NS, DELAY_MAX_NS)
 * (log-uniform, linear within a doubling): as many timeouts of 10 to 20 s
 * as of 1 to 2 h, over every level of the wheel and many of its slots.
 */
#define DELAY_OCTAVES	9.4919		/* log2(DELAY_MAX_NS / DELAY_MIN_NS) */

static __u64 rnd_delay(void)
{
	double x = (double)(rnd() >> 11) / (double)(1ULL << 53) * DELAY_OCTAVES;
	unsigned int k = (unsigned int)x;
	double d = (double)DELAY_MIN_NS * (double)(1ULL << k) * (1.0 + (x - k));

	return d < (double)DELAY_MAX_NS ? (__u64)d : DELAY_MAX_NS - 1;
}

/* Two sets of random delays: arming, and re-arming (modify). */
static __u64 *dly, *dly2;

static void draw_delays(void)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		dly[i] = rnd_delay();
		dly2[i] = rnd_delay();
	}
}

/* ---- /dev/hwtimer -------------------------------------------------------- */

static struct hwtimer_arm_entry *arm_ent;
static struct hwtimer_cancel_entry *cancel_ent;
static struct hwtimer_modify_entry *mod_ent;
static struct hwtimer_expiry *recs;
static __u64 hwt_tick_ns;

static int hwt_open(void)
{
	struct hwtimer_info info;
	int fd = ht_open(0);

	if (fd < 0)
		die("open " HWT_DEV);
	if (ht_info(fd, &info))		/* errno as the ioctl left it */
		die("HWTIMER_IOC_INFO");
	if (info.abi_version != HWTIMER_ABI_VERSION ||
	    info.record_size != sizeof(struct hwtimer_expiry)) {
		error("ABI version %u record size %u, expected %u and %zu",
		      info.abi_version, info.record_size, HWTIMER_ABI_VERSION,
		      sizeof(struct hwtimer_expiry));
		exit(1);
	}
	hwt_tick_ns = info.tick_ns;
	if (info.file_cap < n) {
		error("file_cap %llu is below %lu timeouts", (unsigned long long)info.file_cap, n);
		exit(1);
	}
	return fd;
}

/* One ioctl batch over entries [i, i + cnt); every entry must succeed. */
static void hwt_batch(int fd, unsigned long req, void *ent, unsigned int cnt,
		      const char *what)
{
	uint32_t done, failed;
	int ret = ht_batch(fd, req, ent, cnt, 0, &done, &failed);

	if (ret || done != cnt || failed) {
		error("%s: %s (done %u of %u, failed %u)", what, strerror(-ret), done, cnt,
		      failed);
		exit(1);
	}
}

/* Arm all n entries of arm_ent, @per at a time. */
static void hwt_arm(int fd, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < n; i += per) {
		unsigned int cnt = n - i < per ? n - i : per;

		hwt_batch(fd, HWTIMER_IOC_ARM, &arm_ent[i], cnt, "HWTIMER_IOC_ARM");
	}
}

static void hwt_cancel(int fd, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		memset(&cancel_ent[i], 0, sizeof(cancel_ent[i]));
		cancel_ent[i].id = arm_ent[i].id;
	}
	for (i = 0; i < n; i += per) {
		unsigned int cnt = n - i < per ? n - i : per;

		hwt_batch(fd, HWTIMER_IOC_CANCEL, &cancel_ent[i], cnt, "HWTIMER_IOC_CANCEL");
	}
}

/* Fill arm_ent: relative @base + i ns, or absolute @base + i * @step / n. */
static void hwt_fill(__u64 base, __u64 step, int abs)
{
	unsigned long i;

	memset(arm_ent, 0, n * sizeof(*arm_ent));
	for (i = 0; i < n; i++) {
		arm_ent[i].cookie = i;
		arm_ent[i].flags = abs ? HWTIMER_TIMEOUT_ABS : 0;
		arm_ent[i].expires_ns = abs ? base + step * i / n : base + i;
	}
}

/* Fill arm_ent with the random delays of dly. */
static void hwt_fill_random(void)
{
	unsigned long i;

	memset(arm_ent, 0, n * sizeof(*arm_ent));
	for (i = 0; i < n; i++) {
		arm_ent[i].cookie = i;
		arm_ent[i].expires_ns = dly[i];
	}
}

/* Re-arm all n timeouts of arm_ent to the delays of dly2, @per at a time. */
static void hwt_modify(int fd, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		memset(&mod_ent[i], 0, sizeof(mod_ent[i]));
		mod_ent[i].id = arm_ent[i].id;
		mod_ent[i].expires_ns = dly2[i];
	}
	for (i = 0; i < n; i += per) {
		unsigned int cnt = n - i < per ? n - i : per;

		hwt_batch(fd, HWTIMER_IOC_MODIFY, &mod_ent[i], cnt, "HWTIMER_IOC_MODIFY");
	}
}

/* Wait until all n timeouts of @fd have expired and are queued. */
static void hwt_wait_queued(int fd)
{
	__u64 limit = now_ns() + 120 * NSEC;
	struct hwtimer_info info;

	for (;;) {
		if (ht_info(fd, &info))
			die("HWTIMER_IOC_INFO");
		if (info.queued >= n)
			return;
		if (now_ns() > limit) {
			error("only %llu of %lu timeouts expired",
			      (unsigned long long)info.queued, n);
			exit(1);
		}
		usleep(10000);
	}
}

/* ---- timerfd --------------------------------------------------------------- */

static int *tfd;
static int ep = -1;

/* The pool: n timerfds created once, in an edge-triggered epoll set. */
static int *pool;
static int pep = -1;

static void fd_settime(int fd, __u64 t, int abs)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC },
	};

	if (timerfd_settime(fd, abs ? TFD_TIMER_ABSTIME : 0, &its, NULL))
		die("timerfd_settime");
}

static void tfd_set(unsigned long i, __u64 t, int abs)
{
	fd_settime(tfd[i], t, abs);
}

static void tfd_create_all(void)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
	}
}

static void tfd_close_all(void)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		close(tfd[i]);
	if (ep >= 0)
		close(ep);
	ep = -1;
}

static void tfd_epoll_all(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned long i;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		ev.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd[i], &ev))
			die("epoll_ctl");
	}
}

/* Read one expiration of timerfd @fd; false if it has not expired. */
static int fd_read(int fd)
{
	__u64 ticks;
	ssize_t r = read(fd, &ticks, sizeof(ticks));

	if (r == sizeof(ticks))
		return 1;
	if (r < 0 && errno == EAGAIN)
		return 0;
	die("read timerfd");
	return 0;
}

static int tfd_read(unsigned long i)
{
	return fd_read(tfd[i]);
}

static void pool_create(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	unsigned long i;

	pep = epoll_create1(EPOLL_CLOEXEC);
	if (pep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		pool[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (pool[i] < 0)
			die("timerfd_create");
		ev.data.u64 = i;
		if (epoll_ctl(pep, EPOLL_CTL_ADD, pool[i], &ev))
			die("epoll_ctl");
	}
}

/*
 * Wait for and read @cnt expirations from the epoll set @epfd of the fds
 * @fds (edge- or level-triggered); with @do_close, close each fd after its
 * read (which also takes it out of the epoll set).
 */
static void epoll_drain(int epfd, int *fds, unsigned long cnt, struct epoll_event *evs,
			int do_close)
{
	unsigned long got = 0;
	int k;

	while (got < cnt) {
		k = epoll_wait(epfd, evs, EPOLL_EVENTS, 120000);
		if (k <= 0)
			die("epoll_wait");
		while (k--) {
			int fd = fds[evs[k].data.u64];

			if (!fd_read(fd))
				continue;
			got++;
			if (do_close)
				close(fd);
		}
	}
}

/* ---- the in-process wheel ------------------------------------------------- */

static struct uw_wheel uw;
static struct uw_timer *uwt;
static unsigned long uw_fired;
static int uwep = -1;

static void uw_cb(struct uw_timer *t)
{
	uw_fired++;
}

/* A fresh wheel with the device's tick, its timerfd in an epoll set. */
static void uw_open(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned long i;

	if (uw_init(&uw, hwt_tick_ns))
		die("timerfd_create");
	uwep = epoll_create1(EPOLL_CLOEXEC);
	if (uwep < 0 || epoll_ctl(uwep, EPOLL_CTL_ADD, uw.tfd, &ev))
		die("epoll");
	for (i = 0; i < n; i++)
		uw_timer_init(&uwt[i], uw_cb);
	uw_fired = 0;
}

static void uw_close(void)
{
	close(uw.tfd);
	close(uwep);
	uwep = -1;
}

/* The event loop: wait for the timerfd, run what is due, until @cnt ran. */
static void uw_loop(unsigned long cnt)
{
	struct epoll_event ev;
	__u64 ticks;
	long r;

	while (uw_fired < cnt) {
		if (epoll_wait(uwep, &ev, 1, 120000) != 1)
			die("epoll_wait (wheel)");
		if (read(uw.tfd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			die("read timerfd (wheel)");
		r = uw_expire(&uw);
		if (r < 0)
			die("timerfd_settime (wheel)");
	}
}

/* ---- the benchmarks ------------------------------------------------------ */

/* Times of this repetition, to place later deadlines after the arming. */
static __u64 arm_hwt_ns, arm_tfd_ns;

static double per(__u64 t0, __u64 t1)
{
	return (double)(t1 - t0) / n;
}

static void bench_arm(unsigned int rep)
{
	long long used0, used1, used2, slab0, slab1, slab2;
	struct memcg m0, m1, m2;
	__u64 t0, t1, t2;
	unsigned long i;
	int fd;

	draw_delays();

	/* Batched: HWTIMER_BATCH_MAX entries per ioctl. */
	fd = hwt_open();
	hwt_fill_random();
	kmem_usage(&used0, &slab0);
	memcg_usage(&m0);
	t0 = now_ns();
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	kmem_usage(&used1, &slab1);
	memcg_usage(&m1);
	arm_hwt_ns = t1 - t0;
	record("user_arm", "hwtimer", "arm", "ns", rep, per(t0, t1));
	record("user_mem", "hwtimer", "mem_per_timeout", "bytes", rep,
	       (double)(used1 - used0) / n);
	record("user_mem", "hwtimer", "slab_per_timeout", "bytes", rep,
	       (double)(slab1 - slab0) / n);
	memcg_record("hwtimer", rep, &m0, &m1);
	t0 = now_ns();
	hwt_cancel(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	record("user_cancel", "hwtimer", "cancel", "ns", rep, per(t0, t1));

	/* MODIFY: re-arm armed timeouts to new random delays. */
	hwt_fill_random();
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	t0 = now_ns();
	hwt_modify(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	record("user_modify", "hwtimer", "modify", "ns", rep, per(t0, t1));
	hwt_cancel(fd, HWTIMER_BATCH_MAX);
	close(fd);

	/* One ioctl per timeout. */
	fd = hwt_open();
	hwt_fill_random();
	t0 = now_ns();
	hwt_arm(fd, 1);
	t1 = now_ns();
	record("user_arm", "hwtimer_single", "arm", "ns", rep, per(t0, t1));
	t0 = now_ns();
	hwt_modify(fd, 1);
	t1 = now_ns();
	record("user_modify", "hwtimer_single", "modify", "ns", rep, per(t0, t1));
	t0 = now_ns();
	hwt_cancel(fd, 1);
	t1 = now_ns();
	record("user_cancel", "hwtimer_single", "cancel", "ns", rep, per(t0, t1));
	close(fd);

	/* timerfd_create() + timerfd_settime() per timeout, then epoll. */
	kmem_usage(&used0, &slab0);
	memcg_usage(&m0);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, dly[i], 0);
	}
	t1 = now_ns();
	kmem_usage(&used1, &slab1);
	memcg_usage(&m1);
	arm_tfd_ns = t1 - t0;
	record("user_arm", "timerfd", "arm", "ns", rep, per(t0, t1));
	record("user_mem", "timerfd", "mem_per_timeout", "bytes", rep,
	       (double)(used1 - used0) / n);
	record("user_mem", "timerfd", "slab_per_timeout", "bytes", rep,
	       (double)(slab1 - slab0) / n);
	memcg_record("timerfd", rep, &m0, &m1);
	t0 = now_ns();
	tfd_epoll_all();
	t2 = now_ns();
	kmem_usage(&used2, &slab2);
	memcg_usage(&m2);
	record("user_arm", "timerfd_epoll", "arm", "ns", rep,
	       (double)(arm_tfd_ns + (t2 - t0)) / n);
	record("user_mem", "timerfd_epoll", "mem_per_timeout", "bytes", rep,
	       (double)(used2 - used0) / n);
	record("user_mem", "timerfd_epoll", "slab_per_timeout", "bytes", rep,
	       (double)(slab2 - slab0) / n);
	memcg_record("timerfd_epoll", rep, &m0, &m2);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		tfd_set(i, 0, 0);
	t1 = now_ns();
	record("user_cancel", "timerfd", "cancel", "ns", rep, per(t0, t1));
	t0 = now_ns();
	tfd_close_all();
	t1 = now_ns();
	record("user_cancel", "timerfd", "close", "ns", rep, per(t0, t1));

	/* The pool: timerfd_settime() on idle fds, then on armed ones. */
	t0 = now_ns();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly[i], 0);
	t1 = now_ns();
	record("user_arm", "timerfd_pool", "arm", "ns", rep, per(t0, t1));
	t0 = now_ns();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly2[i], 0);
	t1 = now_ns();
	record("user_modify", "timerfd_pool", "modify", "ns", rep, per(t0, t1));
	t0 = now_ns();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], 0, 0);
	t1 = now_ns();
	record("user_cancel", "timerfd_pool", "cancel", "ns", rep, per(t0, t1));

	/* The in-process wheel: insert, re-arm (cancel + insert), cancel. */
	uw_open();
	uw_update(&uw);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dly[i]))
			die("timerfd_settime (wheel)");
	}
	t1 = now_ns();
	record("user_arm", "uwheel", "arm", "ns", rep, per(t0, t1));
	uw_update(&uw);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		uw_del(&uw, &uwt[i]);
		if (uw_add(&uw, &uwt[i], dly2[i]))
			die("timerfd_settime (wheel)");
	}
	t1 = now_ns();
	record("user_modify", "uwheel", "modify", "ns", rep, per(t0, t1));
	t0 = now_ns();
	for (i = 0; i < n; i++)
		uw_del(&uw, &uwt[i]);
	t1 = now_ns();
	record("user_cancel", "uwheel", "cancel", "ns", rep, per(t0, t1));
	record("user_mem", "uwheel", "user_per_timeout", "bytes", rep, sizeof(struct uw_timer));
	uw_close();
}

/* A deadline late enough that arming n timeouts in @arm_ns ends before it. */
static __u64 deadline_after(__u64 arm_ns)
{
	return now_ns() + 3 * arm_ns + 300000000ULL;
}

/* Until the deadline @dl and the expiry of n timerfds have surely passed. */
static void sleep_past(__u64 dl)
{
	sleep_until(dl + 200000000ULL + n * 2000ULL);
}

static void record_cpu(const char *group, const char *fac, unsigned int rep, double b0,
		       double b1)
{
	record(group, fac, "cpu_per_expiry", "ns", rep, (b1 - b0) / n);
}

static void bench_deliver(unsigned int rep)
{
	unsigned long got, i, early = 0;
	struct epoll_event *evs;
	__u64 t0, t1, dl;
	double b0, b1;
	int fd;

	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!evs)
		die("calloc");

	/* /dev/hwtimer: all expired, read in batches of records. */
	fd = hwt_open();
	dl = deadline_after(arm_hwt_ns);
	hwt_fill(dl, 0, 1);
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	b0 = busy_ns();
	hwt_wait_queued(fd);
	t0 = now_ns();
	for (got = 0; got < n;) {
		ssize_t r = read(fd, recs, READ_RECS * sizeof(*recs));

		if (r <= 0 || r % sizeof(*recs))
			die("read /dev/hwtimer");
		for (i = 0; i < (unsigned long)r / sizeof(*recs); i++)
			early += recs[i].expired_ns < recs[i].deadline_ns;
		got += r / sizeof(*recs);
	}
	t1 = now_ns();
	b1 = busy_ns();
	close(fd);
	record("user_deliver", "hwtimer", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "hwtimer", rep, b0, b1);
	if (early)
		error("deliver: %lu records expired before their deadline", early);

	/* timerfd: all expired, one read() each. */
	tfd_create_all();
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	sleep_past(dl);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		while (!tfd_read(i))
			;
	}
	t1 = now_ns();
	record("user_deliver", "timerfd", "deliver", "ns", rep, per(t0, t1));

	/* timerfd + epoll: all expired, epoll_wait() then read() each. */
	tfd_epoll_all();
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	b0 = busy_ns();
	sleep_past(dl);
	t0 = now_ns();
	epoll_drain(ep, tfd, n, evs, 0);
	t1 = now_ns();
	b1 = busy_ns();
	record("user_deliver", "timerfd_epoll", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "timerfd_epoll", rep, b0, b1);
	tfd_close_all();

	/* The pool, edge-triggered epoll: epoll_wait() then read() each. */
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dl, 1);
	b0 = busy_ns();
	sleep_past(dl);
	t0 = now_ns();
	epoll_drain(pep, pool, n, evs, 0);
	t1 = now_ns();
	b1 = busy_ns();
	record("user_deliver", "timerfd_epollet", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "timerfd_epollet", rep, b0, b1);

	/* The in-process wheel: one wake-up, then every callback. */
	uw_open();
	dl = deadline_after(arm_hwt_ns);
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dl - uw.now_ns))
			die("timerfd_settime (wheel)");
	}
	b0 = busy_ns();
	sleep_past(dl);
	t0 = now_ns();
	uw_loop(n);
	t1 = now_ns();
	b1 = busy_ns();
	record("user_deliver", "uwheel", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "uwheel", rep, b0, b1);
	uw_close();
	free(evs);
}

/*
 * The whole life of n timeouts that expire: armed, expired, consumed and
 * released; the time spent waiting for the deadline is left out, the rest
 * (on the calling thread) is summed. And of n timeouts that are cancelled.
 */
static void bench_lifecycle(unsigned int rep)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET }, *evs;
	__u64 t0, t1, t2, t3, dl;
	unsigned long got, i;
	int fd;

	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!evs)
		die("calloc");

	/* /dev/hwtimer: ARM batches, read() batches (which free them). */
	fd = hwt_open();
	dl = deadline_after(arm_hwt_ns);
	hwt_fill(dl, 0, 1);
	t0 = now_ns();
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	hwt_wait_queued(fd);
	t2 = now_ns();
	for (got = 0; got < n;) {
		ssize_t r = read(fd, recs, READ_RECS * sizeof(*recs));

		if (r <= 0 || r % sizeof(*recs))
			die("read /dev/hwtimer");
		got += r / sizeof(*recs);
	}
	t3 = now_ns();
	record("user_lifecycle", "hwtimer", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	hwt_fill_random();
	t0 = now_ns();
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	hwt_cancel(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	record("user_lifecycle", "hwtimer", "lifecycle_cancel", "ns", rep, per(t0, t1));
	close(fd);

	/*
	 * timerfd: create, settime, add to an edge-triggered epoll set;
	 * epoll_wait(), read(), close() (which takes it out of the set).
	 */
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	dl = deadline_after(arm_tfd_ns);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, dl, 1);
		ev.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd[i], &ev))
			die("epoll_ctl");
	}
	t1 = now_ns();
	sleep_past(dl);
	t2 = now_ns();
	epoll_drain(ep, tfd, n, evs, 1);
	t3 = now_ns();
	record("user_lifecycle", "timerfd", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, dly[i], 0);
		ev.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd[i], &ev))
			die("epoll_ctl");
	}
	for (i = 0; i < n; i++)
		close(tfd[i]);
	t1 = now_ns();
	record("user_lifecycle", "timerfd", "lifecycle_cancel", "ns", rep, per(t0, t1));
	close(ep);
	ep = -1;

	/* The pool: settime, epoll_wait() (edge-triggered) and read(). */
	dl = deadline_after(arm_tfd_ns);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dl, 1);
	t1 = now_ns();
	sleep_past(dl);
	t2 = now_ns();
	epoll_drain(pep, pool, n, evs, 0);
	t3 = now_ns();
	record("user_lifecycle", "timerfd_pool", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly[i], 0);
	for (i = 0; i < n; i++)
		fd_settime(pool[i], 0, 0);
	t1 = now_ns();
	record("user_lifecycle", "timerfd_pool", "lifecycle_cancel", "ns", rep, per(t0, t1));

	/* The in-process wheel: insert; one wake-up and the callbacks. */
	uw_open();
	dl = deadline_after(arm_hwt_ns);
	t0 = now_ns();
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dl - uw.now_ns))
			die("timerfd_settime (wheel)");
	}
	t1 = now_ns();
	sleep_past(dl);
	t2 = now_ns();
	uw_loop(n);
	t3 = now_ns();
	record("user_lifecycle", "uwheel", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = now_ns();
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dly[i]))
			die("timerfd_settime (wheel)");
	}
	for (i = 0; i < n; i++)
		uw_del(&uw, &uwt[i]);
	t1 = now_ns();
	record("user_lifecycle", "uwheel", "lifecycle_cancel", "ns", rep, per(t0, t1));
	uw_close();
	free(evs);
}

static void lateness_result(int which, unsigned int rep, __s64 *lat)
{
	const char *fac = lat_fac[which];
	unsigned long i, early = 0;

	qsort(lat, n, sizeof(*lat), cmp_s64);
	for (i = 0; i < n; i++) {
		__s64 v = lat[i];
		unsigned int k = 0;

		if (v < 0)
			early++;
		if (v > 0)
			k = 64 - __builtin_clzll(v);
		hist[which][k < HIST_BINS ? k : HIST_BINS]++;
	}
	record("user_lateness", fac, "p50", "ns", rep, lat[n / 2]);
	record("user_lateness", fac, "p99", "ns", rep, lat[n * 99 / 100]);
	record("user_lateness", fac, "max", "ns", rep, lat[n - 1]);
	record("user_lateness", fac, "early", "timeouts", rep, early);
}

/*
 * The first deadline of a lateness run must come after the arming ends, or
 * the first timeouts are late by the arming itself: the margin is three
 * times the arming of the same run in bench_arm(), and grows if that was
 * not enough (a busy host can slow the VM down for a while).
 */
#define LATE_TRIES	4

/* A "D" line: how long the arming took, and how early it ended. */
static void arm_detail(const char *fac, unsigned int rep, __u64 a0, __u64 a1, __u64 t0)
{
	printf("D user lateness %s rep %u: %s %llu ms, %lld ms before the first deadline\n",
	       fac, rep, "armed in", (a1 - a0) / 1000000, ((__s64)t0 - (__s64)a1) / 1000000);
}

static void bench_lateness(unsigned int rep, __s64 *lat)
{
	__u64 spread = spread_ms * 1000000ULL, t0, a0, a1, now, *dls;
	unsigned long got, i, early = 0;
	struct epoll_event *evs;
	unsigned int try;
	__s64 *klat;
	int fd, k;

	klat = calloc(n, sizeof(*klat));
	dls = calloc(n, sizeof(*dls));
	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!klat || !dls || !evs)
		die("calloc");

	/* /dev/hwtimer: blocking read() of whatever has expired. */
	for (try = 0; ; try++) {
		fd = hwt_open();
		t0 = deadline_after(arm_hwt_ns << try);
		hwt_fill(t0, spread, 1);
		a0 = now_ns();
		hwt_arm(fd, HWTIMER_BATCH_MAX);
		a1 = now_ns();
		arm_detail("hwtimer", rep, a0, a1, t0);
		if (a1 < t0 || try == LATE_TRIES - 1)
			break;
		close(fd);
	}
	for (got = 0; got < n;) {
		ssize_t r = read(fd, recs, READ_RECS * sizeof(*recs));

		if (r <= 0 || r % sizeof(*recs))
			die("read /dev/hwtimer");
		now = now_ns();
		for (i = 0; i < (unsigned long)r / sizeof(*recs) && got < n; i++, got++) {
			lat[got] = (__s64)(now - recs[i].deadline_ns);
			klat[got] = (__s64)(recs[i].expired_ns - recs[i].deadline_ns);
			early += recs[i].expired_ns < recs[i].deadline_ns;
		}
	}
	close(fd);
	lateness_result(LAT_HWT, rep, lat);
	record("user_lateness", "hwtimer", "early_kernel", "timeouts", rep, early);
	/* When the wheel expired them, as the records say, without the reader. */
	qsort(klat, n, sizeof(*klat), cmp_s64);
	record("user_lateness", "hwtimer", "expired_p50", "ns", rep, klat[n / 2]);
	record("user_lateness", "hwtimer", "expired_p99", "ns", rep, klat[n * 99 / 100]);
	record("user_lateness", "hwtimer", "expired_max", "ns", rep, klat[n - 1]);

	/* timerfd + epoll: epoll_wait(), then read() each ready timerfd. */
	tfd_create_all();
	tfd_epoll_all();
	for (try = 0; ; try++) {
		t0 = deadline_after(arm_tfd_ns << try);
		a0 = now_ns();
		for (i = 0; i < n; i++) {
			dls[i] = t0 + spread * i / n;
			tfd_set(i, dls[i], 1);
		}
		a1 = now_ns();
		arm_detail("timerfd_epoll", rep, a0, a1, t0);
		if (a1 < t0 || try == LATE_TRIES - 1)
			break;
		for (i = 0; i < n; i++)
			tfd_set(i, 0, 0);
		/* Disarming does not take back an expiration already counted. */
		for (i = 0; i < n; i++)
			tfd_read(i);
	}
	for (got = 0; got < n;) {
		k = epoll_wait(ep, evs, EPOLL_EVENTS, 120000);
		if (k <= 0)
			die("epoll_wait");
		while (k--) {
			i = evs[k].data.u64;
			if (!tfd_read(i))
				continue;
			lat[got++] = (__s64)(now_ns() - dls[i]);
		}
	}
	tfd_close_all();
	free(evs);
	free(dls);
	free(klat);
	lateness_result(LAT_TFD, rep, lat);
}

int main(int argc, char **argv)
{
	struct rlimit rl;
	unsigned int r;
	__s64 *lat;
	const struct ht_opt opts[] = {
		HT_OPT_NUM('n', n, "timeouts", 1, 10000000),
		HT_OPT_NUM('r', reps, "reps", 1, MAX_REPS),
		HT_OPT_NUM('s', spread_ms, "spread_ms", 0, 3600000),
		HT_OPT_STR('c', cgroup, "cgroup"),
		{ 0 }
	};

	if (ht_getopt(argc, argv, opts))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (cgroup)
		join_cgroup();

	/* 2n timerfds (n in the pool) plus a few: raise the limit (as root). */
	rl.rlim_cur = 2 * n + 64;
	rl.rlim_max = 2 * n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE)");

	arm_ent = calloc(n, sizeof(*arm_ent));
	cancel_ent = calloc(n, sizeof(*cancel_ent));
	recs = calloc(READ_RECS, sizeof(*recs));
	mod_ent = calloc(n, sizeof(*mod_ent));
	tfd = calloc(n, sizeof(*tfd));
	pool = calloc(n, sizeof(*pool));
	uwt = calloc(n, sizeof(*uwt));
	dly = calloc(n, sizeof(*dly));
	dly2 = calloc(n, sizeof(*dly2));
	lat = calloc(n, sizeof(*lat));
	if (!arm_ent || !cancel_ent || !mod_ent || !recs || !tfd || !pool || !uwt || !dly ||
	    !dly2 || !lat)
		die("calloc");
	/* Touch everything now, so the memory deltas see only the kernel's. */
	memset(arm_ent, 0, n * sizeof(*arm_ent));
	memset(cancel_ent, 0, n * sizeof(*cancel_ent));
	memset(recs, 0, READ_RECS * sizeof(*recs));
	memset(mod_ent, 0, n * sizeof(*mod_ent));
	memset(tfd, 0, n * sizeof(*tfd));
	memset(pool, 0, n * sizeof(*pool));
	memset(uwt, 0, n * sizeof(*uwt));
	memset(dly, 0, n * sizeof(*dly));
	memset(dly2, 0, n * sizeof(*dly2));
	memset(lat, 0, n * sizeof(*lat));
	/* The device's tick, for the in-process wheel; and the pool. */
	close(hwt_open());
	pool_create();

	printf("I user_n %lu\nI user_reps %u\nI user_spread_ms %lu\n", n, reps, spread_ms);
	for (r = 0; r < reps; r++) {
		bench_arm(r);
		bench_deliver(r);
		bench_lifecycle(r);
		bench_lateness(r, lat);
		fprintf(stderr, "hwtbench-user: repetition %u of %u done\n", r + 1, reps);
	}
	print_figs();
	return errors ? 1 : 0;
}
