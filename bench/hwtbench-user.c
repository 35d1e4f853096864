// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench-user: /dev/hwtimer against timerfd and timerfd + epoll, in the
 * same boot, on the same work:
 *
 *   arm       N timeouts an hour away: batched ioctl, one ioctl each, and
 *             N timerfd_create() + timerfd_settime() (+ epoll_ctl(ADD))
 *   cancel    them: batched ioctl, one ioctl each, timerfd_settime(0)
 *   mem       kernel memory per armed timeout (/proc/meminfo deltas)
 *   deliver   N expirations, all due: read() batches of records, against
 *             read() of each timerfd, and epoll_wait() + read() per timerfd
 *   lateness  N timeouts spread over a few seconds, read as they expire:
 *             when the reader got each one, against its deadline
 *
 * Prints the same "R group facility n metric unit median min max reps"
 * lines as the kernel module (bench/report.pl reads both), "H" histogram
 * lines, "D" lines with details of a run, and "E" lines for errors (then
 * exits non-zero).
 *
 *   hwtbench-user [-n timeouts] [-r repetitions] [-s spread_ms]
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
#include <sys/timerfd.h>

#include <linux/hwtimer.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_REPS	32
#define READ_RECS	4096
#define EPOLL_EVENTS	4096
#define HIST_BINS	40
#define NSEC		1000000000ULL
#define HOUR_NS		(3600 * NSEC)

static unsigned long n = 100000;
static unsigned int reps = 3;
static unsigned long spread_ms = 2000;
static int errors;

/* One figure over the repetitions. */
struct fig {
	const char *group, *fac, *metric, *unit;
	double v[MAX_REPS];
	unsigned int cnt;
};

static struct fig figs[64];
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

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC + ts.tv_nsec;
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

/* ---- /dev/hwtimer -------------------------------------------------------- */

static struct hwtimer_arm_entry *arm_ent;
static struct hwtimer_cancel_entry *cancel_ent;
static struct hwtimer_expiry *recs;

static int hwt_open(void)
{
	struct hwtimer_info info;
	int fd = open("/dev/hwtimer", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open /dev/hwtimer");
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, HWTIMER_IOC_INFO, &info))
		die("HWTIMER_IOC_INFO");
	if (info.abi_version != HWTIMER_ABI_VERSION ||
	    info.record_size != sizeof(struct hwtimer_expiry)) {
		error("ABI version %u record size %u, expected %u and %zu",
		      info.abi_version, info.record_size, HWTIMER_ABI_VERSION,
		      sizeof(struct hwtimer_expiry));
		exit(1);
	}
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
	struct hwtimer_batch b;

	memset(&b, 0, sizeof(b));
	b.entries = (__u64)(uintptr_t)ent;
	b.count = cnt;
	if (ioctl(fd, req, &b) || b.done != cnt || b.failed) {
		error("%s: %s (done %u of %u, failed %u)", what, strerror(errno), b.done,
		      cnt, b.failed);
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

/* Wait until all n timeouts of @fd have expired and are queued. */
static void hwt_wait_queued(int fd)
{
	__u64 limit = now_ns() + 120 * NSEC;
	struct hwtimer_info info;

	for (;;) {
		memset(&info, 0, sizeof(info));
		if (ioctl(fd, HWTIMER_IOC_INFO, &info))
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

static void tfd_set(unsigned long i, __u64 t, int abs)
{
	struct itimerspec its = {
		.it_value = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC },
	};

	if (timerfd_settime(tfd[i], abs ? TFD_TIMER_ABSTIME : 0, &its, NULL))
		die("timerfd_settime");
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

/* Read one expiration of timerfd @i; false if it has not expired. */
static int tfd_read(unsigned long i)
{
	__u64 ticks;
	ssize_t r = read(tfd[i], &ticks, sizeof(ticks));

	if (r == sizeof(ticks))
		return 1;
	if (r < 0 && errno == EAGAIN)
		return 0;
	die("read timerfd");
	return 0;
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
	__u64 t0, t1, t2;
	unsigned long i;
	int fd;

	/* Batched: HWTIMER_BATCH_MAX entries per ioctl. */
	fd = hwt_open();
	hwt_fill(HOUR_NS, 0, 0);
	kmem_usage(&used0, &slab0);
	t0 = now_ns();
	hwt_arm(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	kmem_usage(&used1, &slab1);
	arm_hwt_ns = t1 - t0;
	record("user_arm", "hwtimer", "arm", "ns", rep, per(t0, t1));
	record("user_mem", "hwtimer", "mem_per_timeout", "bytes", rep,
	       (double)(used1 - used0) / n);
	record("user_mem", "hwtimer", "slab_per_timeout", "bytes", rep,
	       (double)(slab1 - slab0) / n);
	t0 = now_ns();
	hwt_cancel(fd, HWTIMER_BATCH_MAX);
	t1 = now_ns();
	record("user_cancel", "hwtimer", "cancel", "ns", rep, per(t0, t1));
	close(fd);

	/* One ioctl per timeout. */
	fd = hwt_open();
	hwt_fill(HOUR_NS, 0, 0);
	t0 = now_ns();
	hwt_arm(fd, 1);
	t1 = now_ns();
	record("user_arm", "hwtimer_single", "arm", "ns", rep, per(t0, t1));
	t0 = now_ns();
	hwt_cancel(fd, 1);
	t1 = now_ns();
	record("user_cancel", "hwtimer_single", "cancel", "ns", rep, per(t0, t1));
	close(fd);

	/* timerfd_create() + timerfd_settime() per timeout, then epoll. */
	kmem_usage(&used0, &slab0);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, HOUR_NS + i, 0);
	}
	t1 = now_ns();
	kmem_usage(&used1, &slab1);
	arm_tfd_ns = t1 - t0;
	record("user_arm", "timerfd", "arm", "ns", rep, per(t0, t1));
	record("user_mem", "timerfd", "mem_per_timeout", "bytes", rep,
	       (double)(used1 - used0) / n);
	record("user_mem", "timerfd", "slab_per_timeout", "bytes", rep,
	       (double)(slab1 - slab0) / n);
	t0 = now_ns();
	tfd_epoll_all();
	t2 = now_ns();
	kmem_usage(&used2, &slab2);
	record("user_arm", "timerfd_epoll", "arm", "ns", rep,
	       (double)(arm_tfd_ns + (t2 - t0)) / n);
	record("user_mem", "timerfd_epoll", "mem_per_timeout", "bytes", rep,
	       (double)(used2 - used0) / n);
	record("user_mem", "timerfd_epoll", "slab_per_timeout", "bytes", rep,
	       (double)(slab2 - slab0) / n);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		tfd_set(i, 0, 0);
	t1 = now_ns();
	record("user_cancel", "timerfd", "cancel", "ns", rep, per(t0, t1));
	t0 = now_ns();
	tfd_close_all();
	t1 = now_ns();
	record("user_cancel", "timerfd", "close", "ns", rep, per(t0, t1));
}

/* A deadline late enough that arming n timeouts in @arm_ns ends before it. */
static __u64 deadline_after(__u64 arm_ns)
{
	return now_ns() + 3 * arm_ns + 300000000ULL;
}

static void bench_deliver(unsigned int rep)
{
	__u64 t0, t1, dl;
	unsigned long got, i, early = 0;
	struct epoll_event *evs;
	int fd, k;

	/* /dev/hwtimer: all expired, read in batches of records. */
	fd = hwt_open();
	dl = deadline_after(arm_hwt_ns);
	hwt_fill(dl, 0, 1);
	hwt_arm(fd, HWTIMER_BATCH_MAX);
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
	close(fd);
	record("user_deliver", "hwtimer", "deliver", "ns", rep, per(t0, t1));
	if (early)
		error("deliver: %lu records expired before their deadline", early);

	/* timerfd: all expired, one read() each. */
	tfd_create_all();
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	sleep_until(dl + 200000000ULL + n * 2000ULL);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		while (!tfd_read(i))
			;
	}
	t1 = now_ns();
	record("user_deliver", "timerfd", "deliver", "ns", rep, per(t0, t1));

	/* timerfd + epoll: all expired, epoll_wait() then read() each. */
	tfd_epoll_all();
	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!evs)
		die("calloc");
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	sleep_until(dl + 200000000ULL + n * 2000ULL);
	t0 = now_ns();
	for (got = 0; got < n;) {
		k = epoll_wait(ep, evs, EPOLL_EVENTS, 10000);
		if (k <= 0)
			die("epoll_wait");
		while (k--)
			got += tfd_read(evs[k].data.u64);
	}
	t1 = now_ns();
	record("user_deliver", "timerfd_epoll", "deliver", "ns", rep, per(t0, t1));
	free(evs);
	tfd_close_all();
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
		k = epoll_wait(ep, evs, EPOLL_EVENTS, 10000);
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
	int opt;

	while ((opt = getopt(argc, argv, "n:r:s:")) != -1) {
		switch (opt) {
		case 'n':
			n = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			reps = strtoul(optarg, NULL, 0);
			break;
		case 's':
			spread_ms = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n timeouts] [-r reps] [-s spread_ms]\n",
				argv[0]);
			return 2;
		}
	}
	if (!n || !reps || reps > MAX_REPS) {
		fprintf(stderr, "need 1 <= reps <= %d and n > 0\n", MAX_REPS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	/* n timerfds plus a few: raise the limit (as root, past the hard one). */
	rl.rlim_cur = n + 64;
	rl.rlim_max = n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE)");

	arm_ent = calloc(n, sizeof(*arm_ent));
	cancel_ent = calloc(n, sizeof(*cancel_ent));
	recs = calloc(READ_RECS, sizeof(*recs));
	tfd = calloc(n, sizeof(*tfd));
	lat = calloc(n, sizeof(*lat));
	if (!arm_ent || !cancel_ent || !recs || !tfd || !lat)
		die("calloc");
	/* Touch everything now, so the memory deltas see only the kernel's. */
	memset(arm_ent, 0, n * sizeof(*arm_ent));
	memset(cancel_ent, 0, n * sizeof(*cancel_ent));
	memset(recs, 0, READ_RECS * sizeof(*recs));
	memset(tfd, 0, n * sizeof(*tfd));
	memset(lat, 0, n * sizeof(*lat));

	printf("I user_n %lu\nI user_reps %u\nI user_spread_ms %lu\n", n, reps, spread_ms);
	for (r = 0; r < reps; r++) {
		bench_arm(r);
		bench_deliver(r);
		bench_lateness(r, lat);
		fprintf(stderr, "hwtbench-user: repetition %u of %u done\n", r + 1, reps);
	}
	print_figs();
	return errors ? 1 : 0;
}
