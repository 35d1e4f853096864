// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench-user: /dev/hwtimer against what user space uses instead, in
 * the same boot, on the same work:
 *
 *   hwtimer         the device through libhwtimer: batches of any size,
 *                   records from the file's completion ring (its largest,
 *                   HWTIMER_RING_MAX), taken in place with
 *                   hwtimer_file_peek()/advance(), read() where the ring
 *                   overflowed (or, on a module without rings, always)
 *   hwtimer_raw     the device through plain ioctl() batches of 4096 and
 *                   read() of 4096 records, no ring
 *   hwtimer_single  plain ioctl(), one entry per call
 *   timerfd         one timerfd per timeout, created and closed with it
 *   timerfd_pool    a pool of timerfds created once and re-armed with
 *                   timerfd_settime()
 *   timerfd_epoll   ... waited for with level-triggered epoll
 *   timerfd_epollet ... with edge-triggered epoll (the pool)
 *   io_uring        IORING_OP_TIMEOUT requests through liburing, on a
 *                   SINGLE_ISSUER | DEFER_TASKRUN ring where the kernel
 *                   has them (6.1 does), up to 4096 SQEs per submit:
 *                   TIMEOUT_REMOVE to cancel, TIMEOUT_REMOVE with
 *                   IORING_TIMEOUT_UPDATE to modify; completions reaped
 *                   as they are posted (the cancelled timeout's own
 *                   -ECANCELED completion included)
 *   uwheel          an in-process hierarchical timing wheel driven by one
 *                   timerfd (bench/uwheel.h), as libuv, nginx or timeout.c
 *                   users have it
 *
 *   arm       N timeouts at random delays of 10 s to 2 h (log-uniform, so
 *             spread over the slots and levels of the wheel)
 *   cancel    them, in arming order; cancel_random: N/4 random victims
 *             among the N pending
 *   modify    N armed timeouts re-armed to new random delays, in arming
 *             order; modify_random: in a random order. io_uring's cancel
 *             and modify search its list of timeouts, so its random
 *             victims are measured within a time budget (-b ms, at least
 *             16 of them): the cost per operation at N pending
 *   mem       kernel memory per armed timeout: /proc/meminfo deltas, and
 *             the memory cgroup's memory.current and memory.stat (slab,
 *             kernel) deltas when run in one (-c)
 *   deliver   N expirations, all due: records taken from the ring or by
 *             read(), against read() of each timerfd, epoll_wait() +
 *             read() per timerfd, io_uring's completions, and the wheel's
 *             one wake-up; also the CPU time of the whole system per
 *             expiration (/proc/stat, softirq included) from the end of
 *             the arming to the last expiration taken; for the device
 *             through libhwtimer again by parts (user_deliver_parts): the
 *             records taken in place from the ring and those the library
 *             had to fetch, each with its time in the library's calls
 *             (the system calls among them) and in the loop over them
 *   lifecycle N timeouts armed, expired and consumed (or armed and
 *             cancelled), the wait for the deadline excluded
 *   lateness  N timeouts spread over a few seconds, taken as they expire:
 *             when the reader got each one, against its deadline
 *   scale     at each size S of -S (default 1k, 100k, 1M), S random
 *             timeouts pending, then 16 chunks of -k (1024) operations:
 *             arm 1024 more, modify 1024 random ones, cancel 1024 random
 *             victims;
 *             ns per operation of the median chunk (io_uring's cancel and
 *             modify within the time budget), for the device, io_uring
 *             (up to -U pending: its 1M run took 27 minutes of the VM, see
 *             docs/benchmarks.md), the pool (while it has the fds) and the
 *             wheel
 *
 * Prints the same "R group facility n metric unit median min max reps"
 * lines as the kernel module (bench/report.pl reads both), "H" histogram
 * lines, "D" lines with details of a run, "I" lines about it, and "E"
 * lines for errors (then exits non-zero).
 *
 *   hwtbench-user [-n timeouts] [-r repetitions] [-s spread_ms] [-c cgroup]
 *                 [-S sizes] [-b budget_ms] [-k chunk] [-R scale_reps] [-U max]
 *                 [-p] [-t] [-C]
 *
 * With -c the program moves itself into the cgroup v2 directory given
 * (created if needed; its parent must have the memory controller enabled
 * for its children) before anything is allocated, so that every kernel
 * allocation it causes is charged to a non-root memory cgroup, as for a
 * service under systemd or in a container. -S takes a comma-separated
 * list of sizes ("" for none), -k the operations per chunk of the scale
 * benchmark (1024), -R how many of the repetitions run it (1: each size's
 * figure is the median of its 16 chunks). -p measures the peers only, without
 * /dev/hwtimer: the same program, run natively on a host, says which of
 * the VM's ratios between peers carry over to hardware; -t leaves out the
 * columns that need a timerfd per timeout (timerfd, the pool, epoll), for
 * a host whose RLIMIT_NOFILE cannot be raised to 2N; -C times the
 * operations by the thread's CPU time instead of the wall clock, for a
 * host that runs other work (the times of deliveries then leave out the
 * interrupt and softirq side). To hold the
 * largest size in one file, the program raises the module's file_cap,
 * user_cap and global_cap (as root) while it runs.
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
#include <liburing.h>

#include "hwtimer_user.h"
#include "libhwtimer.h"
#include "uwheel.h"

/* The delays of the arm, cancel and modify runs. */
#define BENCH_NAME	"user"
#include "bench_report.h"

#define BENCH_RND_SEED	0x6877746d62656e63ULL
#include "bench_random.h"

#define MAX_REPS	32
#define MAX_SIZES	8
#define READ_RECS	4096
#define EPOLL_EVENTS	4096
#define HIST_BINS	40
#define NSEC		1000000000ULL
#define HOUR_NS		(3600 * NSEC)
/* The scale benchmark: CHUNKS chunks of -k operations (at most CHUNK_MAX). */
#define CHUNK_MAX	HWTIMER_BATCH_MAX
#define CHUNKS		16
/* The fewest random victims a budget-limited io_uring run takes. */
#define MIN_VICTIMS	16

static unsigned long n = 100000;
static unsigned int reps = 3;
static unsigned long spread_ms = 2000;
static unsigned long budget_ms = 2000;
/* The largest size the scale benchmark runs io_uring at (-U). */
static unsigned long ur_scale_max = 10000000;
static unsigned long chunk = 1024;
static unsigned int scale_reps = 1;
static const char *cgroup;
static const char *sizes_arg = "1000,100000,1000000";
static bool peers_only, no_tfd, cpu_clock;
static unsigned long sizes[MAX_SIZES];
static unsigned int nsizes;

/* One figure over the repetitions; @fn is its N. */
struct fig {
	const char *group, *fac, *metric, *unit;
	unsigned long fn;
	double v[MAX_REPS];
	unsigned int cnt;
};

static struct fig figs[400];
static unsigned int nfigs;

/* Lateness histograms: bin 0 not late (or early), bin k [2^(k-1), 2^k) ns. */
enum { LAT_HWT, LAT_TFD, LAT_NR };
static const char *const lat_fac[LAT_NR] = { "hwtimer", "timerfd_epoll" };
static unsigned long long hist[LAT_NR][HIST_BINS + 1];

/* A libhwtimer or liburing call failed with -@err. */
static void die_err(const char *what, int err)
{
	errno = -err;
	die(what);
}

/*
 * The clock of the measured intervals: CLOCK_MONOTONIC, or with -C the
 * thread's CPU time, which a host busy with other work does not inflate
 * (the system calls' work is in it; interrupts and softirqs are not).
 */
static __u64 mclock(void)
{
	struct timespec ts;

	if (!cpu_clock)
		return now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * NSEC + ts.tv_nsec;
}

static void sleep_until(__u64 t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void record_n(const char *group, const char *fac, const char *metric,
		     const char *unit, unsigned long fn, unsigned int rep, double v)
{
	unsigned int i;

	for (i = 0; i < nfigs; i++) {
		if (!strcmp(figs[i].group, group) && !strcmp(figs[i].fac, fac) &&
		    !strcmp(figs[i].metric, metric) && figs[i].fn == fn)
			break;
	}
	if (i == nfigs) {
		if (nfigs == ARRAY_SIZE(figs)) {
			error("too many figures: %s %s %s", group, fac, metric);
			return;
		}
		memset(&figs[nfigs], 0, sizeof(figs[nfigs]));
		figs[nfigs].group = group;
		figs[nfigs].fac = fac;
		figs[nfigs].metric = metric;
		figs[nfigs].unit = unit;
		figs[nfigs].fn = fn;
		nfigs++;
	}
	figs[i].v[rep] = v;
	if (figs[i].cnt < rep + 1)
		figs[i].cnt = rep + 1;
}

static void record(const char *group, const char *fac, const char *metric,
		   const char *unit, unsigned int rep, double v)
{
	record_n(group, fac, metric, unit, n, rep, v);
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
		printf("R %s %s %lu %s %s %.3f %.3f %.3f %u\n", f->group, f->fac, f->fn,
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

/*
 * Before a column's timed phase: wait until the system is quiet
 * (at most one clock tick of busy time in 200 ms, or 10 s at most), so
 * that work an earlier phase left behind is not charged to the next one:
 * an io_uring ring closed with 75k timeouts pending cancels them in a
 * kworker after io_uring_queue_exit() returns. Prints what it waited.
 */
static void wait_quiet(const char *what)
{
	double tick = 1e9 / sysconf(_SC_CLK_TCK), b0, b1, waited = 0;
	unsigned int i, ms = 0;
	bool quiet = false;

	b0 = busy_ns();
	for (i = 0; i < 50 && !quiet; i++) {
		usleep(200000);
		ms += 200;
		b1 = busy_ns();
		quiet = b1 - b0 <= tick;
		if (!quiet)
			waited += b1 - b0;
		b0 = b1;
	}
	if (waited)
		printf("D user settle before %s: %.0f ms of others' CPU waited out in %u ms%s\n",
		       what, waited / 1e6, ms, quiet ? "" : " (not quiet)");
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

/* A random order of 0..@cnt-1 into @perm (Fisher-Yates). */
static void shuffle(unsigned long *perm, unsigned long cnt)
{
	unsigned long i, j, t;

	for (i = 0; i < cnt; i++)
		perm[i] = i;
	for (i = cnt; i > 1; i--) {
		j = rnd() % i;
		t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

/*
 * The random victims of this repetition: @perm for modify, @perm2 for
 * cancel (io_uring's modify moves its victim to the end of its list: the
 * same order again would find each at the head).
 */
static unsigned long *perm, *perm2;

/* ---- /dev/hwtimer --------------------------------------------------------- */

static struct hwtimer_arm_entry *arm_ent;
static struct hwtimer_cancel_entry *cancel_ent;
static struct hwtimer_modify_entry *mod_ent;
static struct hwtimer_expiry *recs;
static __u64 hwt_tick_ns = 1000000;	/* the uwheel's tick with -p */
static unsigned int ring_entries;

/* Check the module's records are ours and it takes @need timeouts in one file. */
static void hwt_check(const struct hwtimer_info *info, unsigned long need)
{
	if (info->record_size != sizeof(struct hwtimer_expiry)) {
		error("record size %u, expected %zu", info->record_size,
		      sizeof(struct hwtimer_expiry));
		exit(1);
	}
	hwt_tick_ns = info->tick_ns;
	if (info->file_cap < need) {
		error("file_cap %llu is below %lu timeouts", (unsigned long long)info->file_cap,
		      need);
		exit(1);
	}
}

/* A file through libhwtimer, with the largest ring the module gives. */
static struct hwtimer_file *lib_open(unsigned long need)
{
	struct hwtimer_file *f = hwtimer_file_open(NULL, 0);
	struct hwtimer_info info;
	int err;

	if (!f)
		die("hwtimer_file_open");
	err = hwtimer_file_info(f, &info);
	if (err)
		die_err("hwtimer_file_info", err);
	hwt_check(&info, need);
	err = hwtimer_file_setup_ring(f, HWTIMER_RING_MAX);
	if (err && err != -EOPNOTSUPP)
		die_err("hwtimer_file_setup_ring", err);
	ring_entries = hwtimer_file_ring_entries(f);
	return f;
}

/* Every entry of a libhwtimer batch must succeed. */
static void lib_check(int err, const struct hwtimer_batch_result *r, unsigned long cnt,
		      const char *what)
{
	if (err || r->done != cnt || r->failed) {
		error("%s: %s (done %zu of %lu, failed %zu)", what, strerror(-err), r->done,
		      cnt, r->failed);
		exit(1);
	}
}

static void lib_arm(struct hwtimer_file *f, struct hwtimer_arm_entry *e, unsigned long cnt)
{
	struct hwtimer_batch_result r;

	lib_check(hwtimer_file_arm_batch(f, e, cnt, 0, &r), &r, cnt, "hwtimer_file_arm_batch");
}

static void lib_cancel(struct hwtimer_file *f, struct hwtimer_cancel_entry *e,
		       unsigned long cnt)
{
	struct hwtimer_batch_result r;

	lib_check(hwtimer_file_cancel_batch(f, e, cnt, 0, &r), &r, cnt,
		  "hwtimer_file_cancel_batch");
}

static void lib_modify(struct hwtimer_file *f, struct hwtimer_modify_entry *e,
		       unsigned long cnt)
{
	struct hwtimer_batch_result r;

	lib_check(hwtimer_file_modify_batch(f, e, cnt, 0, &r), &r, cnt,
		  "hwtimer_file_modify_batch");
}

/*
 * Take @cnt records in place (the ring, read() behind it), waiting for
 * them if needed; count those that expired before their deadline.
 */
/*
 * Where lib_take()'s time goes: records handed out in place from the ring
 * and those the library read() into its buffer (the kernel queue's, when
 * the ring overflowed), each with the time in the library's calls (the
 * system calls among them) and in the loop over the records.
 */
struct take_split {
	unsigned long recs[2];
	__u64 call_ns[2], loop_ns[2];
};

enum { TAKE_RING, TAKE_READ };

static void lib_take(struct hwtimer_file *f, unsigned long cnt, unsigned long *early,
		     struct take_split *sp)
{
	const struct hwtimer_expiry *r, *ring = NULL;
	unsigned long got = 0;
	unsigned int src;
	__u64 t0, t1, t2;
	ssize_t k, i;

	while (got < cnt) {
		t0 = sp ? mclock() : 0;
		k = hwtimer_file_peek(f, &r);
		if (!k)
			k = hwtimer_file_wait(f, NULL, 0, 10000);
		if (k > 0)
			k = hwtimer_file_peek(f, &r);
		if (k <= 0) {
			error("hwtimer_file_peek: %s after %lu of %lu records",
			      k ? strerror(-k) : "nothing for 10 s", got, cnt);
			exit(1);
		}
		t1 = sp ? mclock() : 0;
		if ((unsigned long)k > cnt - got)
			k = cnt - got;
		for (i = 0; early && i < k; i++)
			*early += r[i].expired_ns < r[i].deadline_ns;
		hwtimer_file_advance(f, k);
		got += k;
		if (!sp)
			continue;
		t2 = mclock();
		/* The ring's first records are at its start: head 0. */
		if (!ring)
			ring = r;
		src = r >= ring && r < ring + hwtimer_file_ring_entries(f) ? TAKE_RING : TAKE_READ;
		sp->recs[src] += k;
		sp->call_ns[src] += t1 - t0;
		sp->loop_ns[src] += t2 - t1;
	}
}

/* Until no timeout of the file waits for its deadline (each expired). */
static void wait_expired(int fd)
{
	__u64 limit = now_ns() + 120 * NSEC;
	struct hwtimer_info info;

	for (;;) {
		if (ht_info(fd, &info))
			die("HWTIMER_IOC_INFO");
		if (!info.pending)
			return;
		if (now_ns() > limit) {
			error("%llu of %lu timeouts have not expired in 120 s",
			      (unsigned long long)info.pending, n);
			exit(1);
		}
		usleep(10000);
	}
}

/* The same through plain ioctl() and read(), no ring: hwtimer_raw. */
static int raw_open(void)
{
	struct hwtimer_info info;
	int fd = ht_open(0);

	if (fd < 0)
		die("open " HWT_DEV);
	if (ht_info(fd, &info))		/* errno as the ioctl left it */
		die("HWTIMER_IOC_INFO");
	hwt_check(&info, n);
	return fd;
}

/* One ioctl batch over entries [i, i + cnt); every entry must succeed. */
static void raw_batch(int fd, unsigned long req, void *ent, unsigned int cnt,
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
static void raw_arm(int fd, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < n; i += per) {
		unsigned int cnt = n - i < per ? n - i : per;

		raw_batch(fd, HWTIMER_IOC_ARM, &arm_ent[i], cnt, "HWTIMER_IOC_ARM");
	}
}

/* Cancel entries of the first @cnt timeouts of arm_ent, in @order (or 0..cnt-1). */
static void fill_cancel(const unsigned long *order, unsigned long cnt)
{
	unsigned long i;

	memset(cancel_ent, 0, cnt * sizeof(*cancel_ent));
	for (i = 0; i < cnt; i++)
		cancel_ent[i].id = arm_ent[order ? order[i] : i].id;
}

/* Modify entries re-arming timeouts of arm_ent to the delays of dly2. */
static void fill_modify(const unsigned long *order, unsigned long cnt)
{
	unsigned long i;

	memset(mod_ent, 0, cnt * sizeof(*mod_ent));
	for (i = 0; i < cnt; i++) {
		unsigned long k = order ? order[i] : i;

		mod_ent[i].id = arm_ent[k].id;
		mod_ent[i].expires_ns = dly2[k];
	}
}

static void raw_cancel(int fd, unsigned long cnt, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < cnt; i += per) {
		unsigned int c = cnt - i < per ? cnt - i : per;

		raw_batch(fd, HWTIMER_IOC_CANCEL, &cancel_ent[i], c, "HWTIMER_IOC_CANCEL");
	}
}

static void raw_modify(int fd, unsigned long cnt, unsigned int per)
{
	unsigned long i;

	for (i = 0; i < cnt; i += per) {
		unsigned int c = cnt - i < per ? cnt - i : per;

		raw_batch(fd, HWTIMER_IOC_MODIFY, &mod_ent[i], c, "HWTIMER_IOC_MODIFY");
	}
}

/* Read @cnt records with read() of READ_RECS; count the early ones. */
static void raw_read(int fd, unsigned long cnt, unsigned long *early)
{
	unsigned long got, i;

	for (got = 0; got < cnt;) {
		ssize_t r = read(fd, recs, READ_RECS * sizeof(*recs));

		if (r <= 0 || r % sizeof(*recs))
			die("read /dev/hwtimer");
		for (i = 0; early && i < (unsigned long)r / sizeof(*recs); i++)
			*early += recs[i].expired_ns < recs[i].deadline_ns;
		got += r / sizeof(*recs);
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

/* ---- timerfd --------------------------------------------------------------- */

static int *tfd;
static int ep = -1;

/*
 * The pool: timerfds created once, in an edge-triggered epoll set: n, and
 * chunk more for the scale benchmark.
 */
static int *pool;
static unsigned long pool_n;
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
	for (i = 0; i < pool_n; i++) {
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

/* ---- io_uring ---------------------------------------------------------------- */

#define UR_SQ		4096		/* SQEs per submit, at most */
#define UR_CQ		65536		/* IORING_MAX_CQ_ENTRIES */
#define UR_TAG		(1ULL << 63)	/* user_data of a remove or an update */

static struct io_uring ur;
static struct __kernel_timespec ur_ts[UR_SQ];	/* read by the kernel at submit */
static unsigned int ur_nts;
static const char *ur_setup;

/*
 * A ring as a liburing user sets one up for many timeouts: SQEs in
 * batches of up to 4096, a CQ as large as the kernel allows, and
 * SINGLE_ISSUER | DEFER_TASKRUN where the kernel has them (completions
 * are then posted when the issuer asks for them, in one go).
 */
static void ur_open(void)
{
	static const unsigned int modes[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_SINGLE_ISSUER,
		0,
	};
	static const char *const names[] = { "single_issuer+defer_taskrun",
					     "single_issuer", "plain" };
	struct io_uring_params p;
	unsigned int i;
	int r = -EINVAL;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		memset(&p, 0, sizeof(p));
		p.flags = modes[i] | IORING_SETUP_CQSIZE;
		p.cq_entries = UR_CQ;
		r = io_uring_queue_init_params(UR_SQ, &ur, &p);
		if (r != -EINVAL)
			break;
	}
	if (r)
		die_err("io_uring_queue_init_params", r);
	if (!ur_setup) {
		ur_setup = names[i];
		printf("I user_io_uring_setup %s sq %u cq %u\n", ur_setup, p.sq_entries,
		       p.cq_entries);
	}
	ur_nts = 0;
}

static void ur_close(void)
{
	io_uring_queue_exit(&ur);
}

static void ur_submit(void)
{
	int r = io_uring_submit(&ur);

	if (r < 0)
		die_err("io_uring_submit", r);
	ur_nts = 0;
}

/* An SQE; the queued ones are submitted first when the SQ is full. */
static struct io_uring_sqe *ur_sqe(void)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ur);

	if (!sqe) {
		ur_submit();
		sqe = io_uring_get_sqe(&ur);
		if (!sqe) {
			error("io_uring_get_sqe: no SQE after a submit");
			exit(1);
		}
	}
	return sqe;
}

static struct __kernel_timespec *ur_time(__u64 t)
{
	struct __kernel_timespec *ts = &ur_ts[ur_nts++];

	ts->tv_sec = t / NSEC;
	ts->tv_nsec = t % NSEC;
	return ts;
}

/*
 * Take @want completions of timeouts that expired (-ETIME): deliver and
 * lifecycle, where every timeout armed is due.
 */
static void ur_reap(unsigned long want, int expect)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	struct io_uring_cqe *cqe;
	unsigned long got = 0;
	unsigned int head, k;
	int r;

	while (got < want) {
		k = 0;
		io_uring_for_each_cqe(&ur, head, cqe) {
			if (cqe->res != expect || cqe->user_data & UR_TAG) {
				error("io_uring completion of %llx: %d, expected %d",
				      (unsigned long long)cqe->user_data, cqe->res, expect);
				exit(1);
			}
			k++;
		}
		io_uring_cq_advance(&ur, k);
		got += k;
		if (got >= want)
			break;
		/* Enters the kernel, which runs the deferred completions. */
		r = io_uring_wait_cqe_timeout(&ur, &cqe, &ts);
		if (r) {
			error("io_uring_wait_cqe: %s after %lu of %lu completions",
			      strerror(-r), got, want);
			exit(1);
		}
	}
	if (got > want) {
		error("io_uring: %lu completions, expected %lu", got, want);
		exit(1);
	}
}

/*
 * Timeouts of the arm, cancel and modify runs that expired meanwhile (their
 * delays start at 10 s, and a slow run can last longer): their -ETIME
 * completions, and the removes and updates that found them gone.
 */
static unsigned long ur_expired, ur_missed;

/*
 * Take the completions of @ops removes (@removes) or updates: each gives
 * one, 0 when it found its timeout, and a removed timeout gives its own,
 * -ECANCELED; timeouts that expire meanwhile give -ETIME.
 */
static void ur_reap_ops(unsigned long ops, bool removes)
{
	struct __kernel_timespec ts = { .tv_sec = 10 };
	unsigned long tags = 0, found = 0, cancelled = 0;
	struct io_uring_cqe *cqe;
	unsigned int head, k;
	int r;

	while (tags < ops || cancelled < found) {
		k = 0;
		io_uring_for_each_cqe(&ur, head, cqe) {
			k++;
			if (cqe->user_data & UR_TAG) {
				tags++;
				if (!cqe->res) {
					found += removes;
					continue;
				}
				if (cqe->res == -ENOENT || cqe->res == -EALREADY) {
					ur_missed++;
					continue;
				}
			} else if (cqe->res == -ECANCELED && removes) {
				cancelled++;
				continue;
			} else if (cqe->res == -ETIME) {
				ur_expired++;
				continue;
			}
			error("io_uring completion of %llx: %d", (unsigned long long)cqe->user_data,
			      cqe->res);
			exit(1);
		}
		io_uring_cq_advance(&ur, k);
		if (tags >= ops && cancelled >= found)
			break;
		/* Enters the kernel, which runs the deferred completions. */
		r = io_uring_wait_cqe_timeout(&ur, &cqe, &ts);
		if (r) {
			error("io_uring_wait_cqe: %s with %lu of %lu completions", strerror(-r),
			      tags, ops);
			exit(1);
		}
	}
	if (tags > ops || cancelled > found) {
		error("io_uring: %lu and %lu completions, expected %lu and %lu", tags, cancelled,
		      ops, found);
		exit(1);
	}
}

/*
 * Arm the timeouts @idx[0..cnt-1] (0..cnt-1 with @idx NULL), each with
 * user_data index + 1: at the delays @d[index], or at the absolute
 * deadline @abs_dl when @d is NULL.
 */
static void ur_arm(const unsigned long *idx, unsigned long cnt, const __u64 *d, __u64 abs_dl)
{
	unsigned long i;

	for (i = 0; i < cnt; i++) {
		struct io_uring_sqe *sqe = ur_sqe();
		unsigned long k = idx ? idx[i] : i;

		io_uring_prep_timeout(sqe, ur_time(d ? d[k] : abs_dl), 0,
				      d ? 0 : IORING_TIMEOUT_ABS);
		sqe->user_data = k + 1;
	}
	ur_submit();
}

/*
 * Cancel (@delays NULL) or re-arm to @delays the timeouts @victims[0..cnt-1]
 * (indexes), in batches of up to UR_SQ, each submitted and its completions
 * taken. With a @budget_ns, in batches that grow from MIN_VICTIMS, stopping
 * once the budget is spent: the number of victims done.
 */
static unsigned long ur_remove(const unsigned long *victims, unsigned long cnt,
			       const __u64 *delays, __u64 budget_ns)
{
	unsigned long done = 0, batch = budget_ns ? MIN_VICTIMS : UR_SQ, i;
	__u64 t0 = mclock();

	while (done < cnt) {
		unsigned long c = cnt - done < batch ? cnt - done : batch;

		for (i = done; i < done + c; i++) {
			struct io_uring_sqe *sqe = ur_sqe();
			__u64 ud = victims[i] + 1;

			if (delays)
				io_uring_prep_timeout_update(sqe, ur_time(delays[victims[i]]),
							     ud, 0);
			else
				io_uring_prep_timeout_remove(sqe, ud, 0);
			sqe->user_data = UR_TAG | ud;
		}
		ur_submit();
		ur_reap_ops(c, !delays);
		done += c;
		if (budget_ns && mclock() - t0 >= budget_ns)
			break;
		if (batch < UR_SQ)
			batch *= 2;
	}
	return done;
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

/* ---- the benchmarks ---------------------------------------------------------- */

/* Times of this repetition, to place later deadlines after the arming. */
static __u64 arm_hwt_ns, arm_tfd_ns, arm_ur_ns;
/* 0..n-1, the arming order, as a victim list. */
static unsigned long *ident;

static double per(__u64 t0, __u64 t1)
{
	return (double)(t1 - t0) / n;
}

static double per_k(__u64 t0, __u64 t1, unsigned long k)
{
	return (double)(t1 - t0) / k;
}

/* Kernel memory around an arming, as user_mem figures of a facility. */
struct memsnap {
	long long used, slab;
	struct memcg m;
};

static void mem_snap(struct memsnap *s)
{
	kmem_usage(&s->used, &s->slab);
	memcg_usage(&s->m);
}

static void mem_record(const char *fac, unsigned int rep, const struct memsnap *a,
		       const struct memsnap *b)
{
	record("user_mem", fac, "mem_per_timeout", "bytes", rep, (double)(b->used - a->used) / n);
	record("user_mem", fac, "slab_per_timeout", "bytes", rep, (double)(b->slab - a->slab) / n);
	memcg_record(fac, rep, &a->m, &b->m);
}

/* The random victims of a cancel_random run: a quarter of the N pending. */
static unsigned long n_victims(void)
{
	return n / 4 ? n / 4 : 1;
}

/* Arm, cancel and modify through libhwtimer, with a ring (hwtimer). */
static void arm_lib(unsigned int rep)
{
	unsigned long nr = n_victims();
	struct memsnap m0, m1;
	struct hwtimer_file *f;
	__u64 t0, t1;

	f = lib_open(n);
	hwt_fill_random();
	mem_snap(&m0);
	t0 = mclock();
	lib_arm(f, arm_ent, n);
	t1 = mclock();
	mem_snap(&m1);
	arm_hwt_ns = t1 - t0;
	record("user_arm", "hwtimer", "arm", "ns", rep, per(t0, t1));
	mem_record("hwtimer", rep, &m0, &m1);
	fill_cancel(NULL, n);
	t0 = mclock();
	lib_cancel(f, cancel_ent, n);
	t1 = mclock();
	record("user_cancel", "hwtimer", "cancel", "ns", rep, per(t0, t1));

	hwt_fill_random();
	lib_arm(f, arm_ent, n);
	fill_modify(NULL, n);
	t0 = mclock();
	lib_modify(f, mod_ent, n);
	t1 = mclock();
	record("user_modify", "hwtimer", "modify", "ns", rep, per(t0, t1));
	fill_modify(perm, n);
	t0 = mclock();
	lib_modify(f, mod_ent, n);
	t1 = mclock();
	record("user_modify_random", "hwtimer", "modify", "ns", rep, per(t0, t1));
	fill_cancel(perm2, nr);
	t0 = mclock();
	lib_cancel(f, cancel_ent, nr);
	t1 = mclock();
	record("user_cancel_random", "hwtimer", "cancel", "ns", rep, per_k(t0, t1, nr));
	hwtimer_file_close(f);
}

/* The same through plain ioctl() batches (hwtimer_raw), and one by one. */
static void arm_raw(unsigned int rep)
{
	unsigned long nr = n_victims();
	__u64 t0, t1;
	int fd;

	fd = raw_open();
	hwt_fill_random();
	t0 = mclock();
	raw_arm(fd, HWTIMER_BATCH_MAX);
	t1 = mclock();
	record("user_arm", "hwtimer_raw", "arm", "ns", rep, per(t0, t1));
	fill_cancel(NULL, n);
	t0 = mclock();
	raw_cancel(fd, n, HWTIMER_BATCH_MAX);
	t1 = mclock();
	record("user_cancel", "hwtimer_raw", "cancel", "ns", rep, per(t0, t1));
	hwt_fill_random();
	raw_arm(fd, HWTIMER_BATCH_MAX);
	fill_modify(NULL, n);
	t0 = mclock();
	raw_modify(fd, n, HWTIMER_BATCH_MAX);
	t1 = mclock();
	record("user_modify", "hwtimer_raw", "modify", "ns", rep, per(t0, t1));
	fill_modify(perm, n);
	t0 = mclock();
	raw_modify(fd, n, HWTIMER_BATCH_MAX);
	t1 = mclock();
	record("user_modify_random", "hwtimer_raw", "modify", "ns", rep, per(t0, t1));
	fill_cancel(perm2, nr);
	t0 = mclock();
	raw_cancel(fd, nr, HWTIMER_BATCH_MAX);
	t1 = mclock();
	record("user_cancel_random", "hwtimer_raw", "cancel", "ns", rep, per_k(t0, t1, nr));
	close(fd);

	/* One ioctl per timeout. */
	fd = raw_open();
	hwt_fill_random();
	t0 = mclock();
	raw_arm(fd, 1);
	t1 = mclock();
	record("user_arm", "hwtimer_single", "arm", "ns", rep, per(t0, t1));
	fill_modify(NULL, n);
	t0 = mclock();
	raw_modify(fd, n, 1);
	t1 = mclock();
	record("user_modify", "hwtimer_single", "modify", "ns", rep, per(t0, t1));
	fill_cancel(NULL, n);
	t0 = mclock();
	raw_cancel(fd, n, 1);
	t1 = mclock();
	record("user_cancel", "hwtimer_single", "cancel", "ns", rep, per(t0, t1));
	close(fd);
}

/* A timerfd per timeout; then the pool, re-armed with timerfd_settime(). */
static void arm_timerfd(unsigned int rep)
{
	unsigned long nr = n_victims(), i;
	struct memsnap m0, m1, m2;
	__u64 t0, t1, t2;

	mem_snap(&m0);
	t0 = mclock();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, dly[i], 0);
	}
	t1 = mclock();
	mem_snap(&m1);
	arm_tfd_ns = t1 - t0;
	record("user_arm", "timerfd", "arm", "ns", rep, per(t0, t1));
	mem_record("timerfd", rep, &m0, &m1);
	t0 = mclock();
	tfd_epoll_all();
	t2 = mclock();
	mem_snap(&m2);
	record("user_arm", "timerfd_epoll", "arm", "ns", rep,
	       (double)(arm_tfd_ns + (t2 - t0)) / n);
	mem_record("timerfd_epoll", rep, &m0, &m2);
	t0 = mclock();
	for (i = 0; i < n; i++)
		tfd_set(i, 0, 0);
	t1 = mclock();
	record("user_cancel", "timerfd", "cancel", "ns", rep, per(t0, t1));
	t0 = mclock();
	tfd_close_all();
	t1 = mclock();
	record("user_cancel", "timerfd", "close", "ns", rep, per(t0, t1));

	/* The pool: timerfd_settime() on idle fds, then on armed ones. */
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly[i], 0);
	t1 = mclock();
	record("user_arm", "timerfd_pool", "arm", "ns", rep, per(t0, t1));
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly2[i], 0);
	t1 = mclock();
	record("user_modify", "timerfd_pool", "modify", "ns", rep, per(t0, t1));
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[perm[i]], dly2[perm[i]], 0);
	t1 = mclock();
	record("user_modify_random", "timerfd_pool", "modify", "ns", rep, per(t0, t1));
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], 0, 0);
	t1 = mclock();
	record("user_cancel", "timerfd_pool", "cancel", "ns", rep, per(t0, t1));
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly[i], 0);
	t0 = mclock();
	for (i = 0; i < nr; i++)
		fd_settime(pool[perm2[i]], 0, 0);
	t1 = mclock();
	record("user_cancel_random", "timerfd_pool", "cancel", "ns", rep, per_k(t0, t1, nr));
	for (i = 0; i < n; i++)
		fd_settime(pool[i], 0, 0);
}

/*
 * io_uring: arm; cancel and modify in arming order (the victim is always
 * at the head of the ring's list of timeouts) and of random victims,
 * within the time budget.
 */
static void arm_io_uring(unsigned int rep)
{
	__u64 t0, t1, budget = budget_ms * 1000000ULL;
	struct memsnap m0, m1;
	unsigned long k;

	ur_open();
	mem_snap(&m0);
	t0 = mclock();
	ur_arm(NULL, n, dly, 0);
	t1 = mclock();
	mem_snap(&m1);
	arm_ur_ns = t1 - t0;
	record("user_arm", "io_uring", "arm", "ns", rep, per(t0, t1));
	mem_record("io_uring", rep, &m0, &m1);
	t0 = mclock();
	ur_remove(ident, n, NULL, 0);
	t1 = mclock();
	record("user_cancel", "io_uring", "cancel", "ns", rep, per(t0, t1));

	ur_arm(NULL, n, dly, 0);
	t0 = mclock();
	ur_remove(ident, n, dly2, 0);
	t1 = mclock();
	record("user_modify", "io_uring", "modify", "ns", rep, per(t0, t1));
	t0 = mclock();
	k = ur_remove(perm, n, dly2, budget);
	t1 = mclock();
	record("user_modify_random", "io_uring", "modify", "ns", rep, per_k(t0, t1, k));
	printf("D user io_uring rep %u: %lu random modifies of %lu in %llu ms\n", rep, k, n,
	       (unsigned long long)(t1 - t0) / 1000000);
	t0 = mclock();
	k = ur_remove(perm2, n_victims(), NULL, budget);
	t1 = mclock();
	record("user_cancel_random", "io_uring", "cancel", "ns", rep, per_k(t0, t1, k));
	printf("D user io_uring rep %u: %lu random cancels of %lu in %llu ms\n", rep, k, n,
	       (unsigned long long)(t1 - t0) / 1000000);
	/* The ring's exit cancels the rest. */
	ur_close();
}

/* The in-process wheel: insert, re-arm (unlink + insert), unlink. */
static void arm_uwheel(unsigned int rep)
{
	unsigned long nr = n_victims(), i;
	__u64 t0, t1;

	uw_open();
	uw_update(&uw);
	t0 = mclock();
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dly[i]))
			die("timerfd_settime (wheel)");
	}
	t1 = mclock();
	record("user_arm", "uwheel", "arm", "ns", rep, per(t0, t1));
	uw_update(&uw);
	t0 = mclock();
	for (i = 0; i < n; i++) {
		uw_del(&uw, &uwt[i]);
		if (uw_add(&uw, &uwt[i], dly2[i]))
			die("timerfd_settime (wheel)");
	}
	t1 = mclock();
	record("user_modify", "uwheel", "modify", "ns", rep, per(t0, t1));
	t0 = mclock();
	for (i = 0; i < n; i++) {
		uw_del(&uw, &uwt[perm[i]]);
		if (uw_add(&uw, &uwt[perm[i]], dly2[perm[i]]))
			die("timerfd_settime (wheel)");
	}
	t1 = mclock();
	record("user_modify_random", "uwheel", "modify", "ns", rep, per(t0, t1));
	t0 = mclock();
	for (i = 0; i < n; i++)
		uw_del(&uw, &uwt[i]);
	t1 = mclock();
	record("user_cancel", "uwheel", "cancel", "ns", rep, per(t0, t1));
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dly[i]))
			die("timerfd_settime (wheel)");
	}
	t0 = mclock();
	for (i = 0; i < nr; i++)
		uw_del(&uw, &uwt[perm2[i]]);
	t1 = mclock();
	record("user_cancel_random", "uwheel", "cancel", "ns", rep, per_k(t0, t1, nr));
	for (i = 0; i < n; i++)
		uw_del(&uw, &uwt[i]);
	record("user_mem", "uwheel", "user_per_timeout", "bytes", rep, sizeof(struct uw_timer));
	uw_close();
}

static void bench_arm(unsigned int rep)
{
	draw_delays();
	shuffle(perm, n);
	shuffle(perm2, n);
	if (!peers_only) {
		wait_quiet("arm hwtimer");
		arm_lib(rep);
		wait_quiet("arm hwtimer_raw");
		arm_raw(rep);
	}
	if (!no_tfd) {
		wait_quiet("arm timerfd");
		arm_timerfd(rep);
	}
	wait_quiet("arm io_uring");
	arm_io_uring(rep);
	wait_quiet("arm uwheel");
	arm_uwheel(rep);
}

/* A deadline late enough that arming n timeouts in @arm_ns ends before it. */
static __u64 deadline_after(__u64 arm_ns)
{
	return now_ns() + 3 * arm_ns + 300000000ULL;
}

/*
 * Until the deadline @dl and the expiry of n kernel timers (timerfd,
 * io_uring: one hrtimer each) have surely passed.
 */
static void sleep_past(__u64 dl)
{
	sleep_until(dl + 200000000ULL + n * 10000ULL);
}

static void record_cpu(const char *group, const char *fac, unsigned int rep, double b0,
		       double b1)
{
	record(group, fac, "cpu_per_expiry", "ns", rep, (b1 - b0) / n);
}

/* timerfd, one per timeout, with and without epoll; the pool with epoll ET. */
static void deliver_timerfd(unsigned int rep, struct epoll_event *evs)
{
	unsigned long i;
	__u64 t0, t1, dl;
	double b0, b1;

	/* timerfd: all expired, one read() each. */
	tfd_create_all();
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	sleep_past(dl);
	t0 = mclock();
	for (i = 0; i < n; i++) {
		while (!tfd_read(i))
			;
	}
	t1 = mclock();
	record("user_deliver", "timerfd", "deliver", "ns", rep, per(t0, t1));

	/* timerfd + epoll: all expired, epoll_wait() then read() each. */
	wait_quiet("deliver timerfd_epoll");
	tfd_epoll_all();
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		tfd_set(i, dl, 1);
	b0 = busy_ns();
	sleep_past(dl);
	t0 = mclock();
	epoll_drain(ep, tfd, n, evs, 0);
	t1 = mclock();
	b1 = busy_ns();
	record("user_deliver", "timerfd_epoll", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "timerfd_epoll", rep, b0, b1);
	tfd_close_all();

	/* The pool, edge-triggered epoll: epoll_wait() then read() each. */
	wait_quiet("deliver timerfd_epollet");
	dl = deadline_after(arm_tfd_ns);
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dl, 1);
	b0 = busy_ns();
	sleep_past(dl);
	t0 = mclock();
	epoll_drain(pep, pool, n, evs, 0);
	t1 = mclock();
	b1 = busy_ns();
	record("user_deliver", "timerfd_epollet", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "timerfd_epollet", rep, b0, b1);
}

/* lib_take()'s parts: ns per record of each source, and their counts. */
static void record_split(unsigned int rep, const struct take_split *sp)
{
	static const char *const metric[][3] = {
		[TAKE_RING] = { "ring_records", "ring_call", "ring_loop" },
		[TAKE_READ] = { "read_records", "read_call", "read_loop" },
	};
	unsigned int s;

	for (s = TAKE_RING; s <= TAKE_READ; s++) {
		if (!sp->recs[s])
			continue;
		record("user_deliver_parts", "hwtimer", metric[s][0], "count", rep, sp->recs[s]);
		record("user_deliver_parts", "hwtimer", metric[s][1], "ns", rep,
		       (double)sp->call_ns[s] / sp->recs[s]);
		record("user_deliver_parts", "hwtimer", metric[s][2], "ns", rep,
		       (double)sp->loop_ns[s] / sp->recs[s]);
	}
}

static void bench_deliver(unsigned int rep)
{
	struct take_split split;
	unsigned long i, early = 0;
	struct epoll_event *evs;
	struct hwtimer_file *f;
	__u64 t0, t1, dl;
	double b0, b1;
	int fd;

	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!evs)
		die("calloc");

	if (!peers_only) {
		/* libhwtimer: all expired, taken in place from the ring. */
		wait_quiet("deliver hwtimer");
		f = lib_open(n);
		dl = deadline_after(arm_hwt_ns);
		hwt_fill(dl, 0, 1);
		lib_arm(f, arm_ent, n);
		b0 = busy_ns();
		wait_expired(hwtimer_file_fd(f));
		t0 = mclock();
		lib_take(f, n, &early, NULL);
		t1 = mclock();
		b1 = busy_ns();
		hwtimer_file_close(f);
		record("user_deliver", "hwtimer", "deliver", "ns", rep, per(t0, t1));
		record_cpu("user_deliver", "hwtimer", rep, b0, b1);

		/* Again, timed by parts (the clock reads cost a little). */
		wait_quiet("deliver hwtimer, by parts");
		f = lib_open(n);
		dl = deadline_after(arm_hwt_ns);
		hwt_fill(dl, 0, 1);
		lib_arm(f, arm_ent, n);
		wait_expired(hwtimer_file_fd(f));
		memset(&split, 0, sizeof(split));
		lib_take(f, n, &early, &split);
		hwtimer_file_close(f);
		record_split(rep, &split);

		/* Plain read() of READ_RECS records. */
		wait_quiet("deliver hwtimer_raw");
		fd = raw_open();
		dl = deadline_after(arm_hwt_ns);
		hwt_fill(dl, 0, 1);
		raw_arm(fd, HWTIMER_BATCH_MAX);
		b0 = busy_ns();
		wait_expired(fd);
		t0 = mclock();
		raw_read(fd, n, &early);
		t1 = mclock();
		b1 = busy_ns();
		close(fd);
		record("user_deliver", "hwtimer_raw", "deliver", "ns", rep, per(t0, t1));
		record_cpu("user_deliver", "hwtimer_raw", rep, b0, b1);
		if (early)
			error("deliver: %lu records expired before their deadline", early);
	}

	if (!no_tfd)
		deliver_timerfd(rep, evs);

	/* io_uring: all expired, their completions taken. */
	wait_quiet("deliver io_uring");
	ur_open();
	dl = deadline_after(arm_ur_ns);
	ur_arm(NULL, n, NULL, dl);
	b0 = busy_ns();
	sleep_past(dl);
	t0 = mclock();
	ur_reap(n, -ETIME);
	t1 = mclock();
	b1 = busy_ns();
	ur_close();
	record("user_deliver", "io_uring", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "io_uring", rep, b0, b1);

	/* The in-process wheel: one wake-up, then every callback. */
	wait_quiet("deliver uwheel");
	uw_open();
	dl = deadline_after(arm_tfd_ns);
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dl - uw.now_ns))
			die("timerfd_settime (wheel)");
	}
	b0 = busy_ns();
	sleep_past(dl);
	t0 = mclock();
	uw_loop(n);
	t1 = mclock();
	b1 = busy_ns();
	record("user_deliver", "uwheel", "deliver", "ns", rep, per(t0, t1));
	record_cpu("user_deliver", "uwheel", rep, b0, b1);
	uw_close();
	free(evs);
}

/* The lifecycle of a timerfd per timeout, and of the pool's. */
static void lifecycle_timerfd(unsigned int rep, struct epoll_event *evs)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	__u64 t0, t1, t2, t3, dl;
	unsigned long i;

	/*
	 * timerfd: create, settime, add to an edge-triggered epoll set;
	 * epoll_wait(), read(), close() (which takes it out of the set).
	 */
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	dl = deadline_after(arm_tfd_ns);
	t0 = mclock();
	for (i = 0; i < n; i++) {
		tfd[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		if (tfd[i] < 0)
			die("timerfd_create");
		tfd_set(i, dl, 1);
		ev.data.u64 = i;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd[i], &ev))
			die("epoll_ctl");
	}
	t1 = mclock();
	sleep_past(dl);
	t2 = mclock();
	epoll_drain(ep, tfd, n, evs, 1);
	t3 = mclock();
	record("user_lifecycle", "timerfd", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = mclock();
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
	t1 = mclock();
	record("user_lifecycle", "timerfd", "lifecycle_cancel", "ns", rep, per(t0, t1));
	close(ep);
	ep = -1;

	/* The pool: settime, epoll_wait() (edge-triggered) and read(). */
	dl = deadline_after(arm_tfd_ns);
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dl, 1);
	t1 = mclock();
	sleep_past(dl);
	t2 = mclock();
	epoll_drain(pep, pool, n, evs, 0);
	t3 = mclock();
	record("user_lifecycle", "timerfd_pool", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = mclock();
	for (i = 0; i < n; i++)
		fd_settime(pool[i], dly[i], 0);
	for (i = 0; i < n; i++)
		fd_settime(pool[i], 0, 0);
	t1 = mclock();
	record("user_lifecycle", "timerfd_pool", "lifecycle_cancel", "ns", rep, per(t0, t1));
}

/*
 * The whole life of n timeouts that expire: armed, expired, consumed and
 * released; the time spent waiting for the deadline is left out, the rest
 * (on the calling thread) is summed. And of n timeouts that are cancelled.
 */
static void bench_lifecycle(unsigned int rep)
{
	struct epoll_event *evs;
	__u64 t0, t1, t2, t3, dl;
	struct hwtimer_file *f;
	unsigned long i;
	int fd;

	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!evs)
		die("calloc");

	if (!peers_only) {
		/* libhwtimer: ARM batches, the records from the ring. */
		wait_quiet("lifecycle hwtimer");
		f = lib_open(n);
		dl = deadline_after(arm_hwt_ns);
		hwt_fill(dl, 0, 1);
		t0 = mclock();
		lib_arm(f, arm_ent, n);
		t1 = mclock();
		wait_expired(hwtimer_file_fd(f));
		t2 = mclock();
		lib_take(f, n, NULL, NULL);
		t3 = mclock();
		record("user_lifecycle", "hwtimer", "lifecycle", "ns", rep,
		       (double)(t1 - t0 + t3 - t2) / n);
		hwt_fill_random();
		t0 = mclock();
		lib_arm(f, arm_ent, n);
		fill_cancel(NULL, n);
		lib_cancel(f, cancel_ent, n);
		t1 = mclock();
		record("user_lifecycle", "hwtimer", "lifecycle_cancel", "ns", rep, per(t0, t1));
		hwtimer_file_close(f);

		/* Plain ARM batches, read() batches. */
		wait_quiet("lifecycle hwtimer_raw");
		fd = raw_open();
		dl = deadline_after(arm_hwt_ns);
		hwt_fill(dl, 0, 1);
		t0 = mclock();
		raw_arm(fd, HWTIMER_BATCH_MAX);
		t1 = mclock();
		wait_expired(fd);
		t2 = mclock();
		raw_read(fd, n, NULL);
		t3 = mclock();
		record("user_lifecycle", "hwtimer_raw", "lifecycle", "ns", rep,
		       (double)(t1 - t0 + t3 - t2) / n);
		hwt_fill_random();
		t0 = mclock();
		raw_arm(fd, HWTIMER_BATCH_MAX);
		fill_cancel(NULL, n);
		raw_cancel(fd, n, HWTIMER_BATCH_MAX);
		t1 = mclock();
		record("user_lifecycle", "hwtimer_raw", "lifecycle_cancel", "ns", rep, per(t0, t1));
		close(fd);
	}

	if (!no_tfd) {
		wait_quiet("lifecycle timerfd");
		lifecycle_timerfd(rep, evs);
	}

	/* io_uring: TIMEOUT SQEs; their completions. Or removed in arming order. */
	wait_quiet("lifecycle io_uring");
	ur_open();
	dl = deadline_after(arm_ur_ns);
	t0 = mclock();
	ur_arm(NULL, n, NULL, dl);
	t1 = mclock();
	sleep_past(dl);
	t2 = mclock();
	ur_reap(n, -ETIME);
	t3 = mclock();
	record("user_lifecycle", "io_uring", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = mclock();
	ur_arm(NULL, n, dly, 0);
	ur_remove(ident, n, NULL, 0);
	t1 = mclock();
	record("user_lifecycle", "io_uring", "lifecycle_cancel", "ns", rep, per(t0, t1));
	ur_close();

	/* The in-process wheel: insert; one wake-up and the callbacks. */
	wait_quiet("lifecycle uwheel");
	uw_open();
	dl = deadline_after(arm_tfd_ns);
	t0 = mclock();
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dl - uw.now_ns))
			die("timerfd_settime (wheel)");
	}
	t1 = mclock();
	sleep_past(dl);
	t2 = mclock();
	uw_loop(n);
	t3 = mclock();
	record("user_lifecycle", "uwheel", "lifecycle", "ns", rep,
	       (double)(t1 - t0 + t3 - t2) / n);
	t0 = mclock();
	uw_update(&uw);
	for (i = 0; i < n; i++) {
		if (uw_add(&uw, &uwt[i], dly[i]))
			die("timerfd_settime (wheel)");
	}
	for (i = 0; i < n; i++)
		uw_del(&uw, &uwt[i]);
	t1 = mclock();
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
	struct hwtimer_file *f = NULL;
	struct epoll_event *evs;
	unsigned int try;
	__s64 *klat;
	int k;

	klat = calloc(n, sizeof(*klat));
	dls = calloc(n, sizeof(*dls));
	evs = calloc(EPOLL_EVENTS, sizeof(*evs));
	if (!klat || !dls || !evs)
		die("calloc");

	/* libhwtimer: a blocking wait for whatever has expired. */
	for (try = 0; !peers_only; try++) {
		f = lib_open(n);
		t0 = deadline_after(arm_hwt_ns << try);
		hwt_fill(t0, spread, 1);
		a0 = now_ns();
		lib_arm(f, arm_ent, n);
		a1 = now_ns();
		arm_detail("hwtimer", rep, a0, a1, t0);
		if (a1 < t0 || try == LATE_TRIES - 1)
			break;
		hwtimer_file_close(f);
	}
	for (got = 0; !peers_only && got < n;) {
		ssize_t r = hwtimer_file_wait(f, recs, READ_RECS, 10000);

		if (r <= 0) {
			error("hwtimer_file_wait: %s after %lu of %lu records",
			      r ? strerror(-r) : "nothing for 10 s", got, n);
			exit(1);
		}
		now = now_ns();
		for (i = 0; i < (unsigned long)r && got < n; i++, got++) {
			lat[got] = (__s64)(now - recs[i].deadline_ns);
			klat[got] = (__s64)(recs[i].expired_ns - recs[i].deadline_ns);
			early += recs[i].expired_ns < recs[i].deadline_ns;
		}
	}
	if (!peers_only) {
		hwtimer_file_close(f);
		lateness_result(LAT_HWT, rep, lat);
		record("user_lateness", "hwtimer", "early_kernel", "timeouts", rep, early);
		/* When the wheel expired them, as the records say, without the reader. */
		qsort(klat, n, sizeof(*klat), cmp_s64);
		record("user_lateness", "hwtimer", "expired_p50", "ns", rep, klat[n / 2]);
		record("user_lateness", "hwtimer", "expired_p99", "ns", rep, klat[n * 99 / 100]);
		record("user_lateness", "hwtimer", "expired_max", "ns", rep, klat[n - 1]);
	}

	/* timerfd + epoll: epoll_wait(), then read() each ready timerfd. */
	if (no_tfd)
		goto out;
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
	lateness_result(LAT_TFD, rep, lat);
out:
	free(evs);
	free(dls);
	free(klat);
}

/* ---- scale: the cost per operation at 1k, 100k, 1M pending ------------------- */

static unsigned long scale_cap;		/* largest size + CHUNKS * chunk */
static __u64 *sdly;			/* each timeout's delay */
static __u64 *sid;			/* the device's id of each timeout */
static unsigned long *live, nlive;	/* timeouts pending */
static unsigned long *freel, nfree;	/* indexes not in use */
static struct uw_timer *suwt;
static struct hwtimer_file *sfile;
static struct hwtimer_arm_entry sarm[HWTIMER_BATCH_MAX];
static struct hwtimer_cancel_entry scan[CHUNK_MAX];
static struct hwtimer_modify_entry smod[CHUNK_MAX];

/* @k distinct random pending timeouts into @out; taken out of live with @remove. */
static void pick_victims(unsigned long *out, unsigned long k, bool remove)
{
	rnd_pick(live, nlive, out, k);
	if (remove)
		nlive -= k;
}

static void sc_lib_arm(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	memset(sarm, 0, k * sizeof(sarm[0]));
	for (j = 0; j < k; j++) {
		sarm[j].cookie = idx[j];
		sarm[j].expires_ns = sdly[idx[j]];
	}
	lib_arm(sfile, sarm, k);
	for (j = 0; j < k; j++)
		sid[idx[j]] = sarm[j].id;
}

static void sc_lib_cancel(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	memset(scan, 0, k * sizeof(scan[0]));
	for (j = 0; j < k; j++)
		scan[j].id = sid[idx[j]];
	lib_cancel(sfile, scan, k);
}

static void sc_lib_modify(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	memset(smod, 0, k * sizeof(smod[0]));
	for (j = 0; j < k; j++) {
		smod[j].id = sid[idx[j]];
		smod[j].expires_ns = sdly[idx[j]];
	}
	lib_modify(sfile, smod, k);
}

static void sc_uw_arm(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	for (j = 0; j < k; j++) {
		if (uw_add(&uw, &suwt[idx[j]], sdly[idx[j]]))
			die("timerfd_settime (wheel)");
	}
}

static void sc_uw_cancel(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	for (j = 0; j < k; j++)
		uw_del(&uw, &suwt[idx[j]]);
}

static void sc_uw_modify(const unsigned long *idx, unsigned long k)
{
	sc_uw_cancel(idx, k);
	sc_uw_arm(idx, k);
}

static void sc_pool_arm(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	for (j = 0; j < k; j++)
		fd_settime(pool[idx[j]], sdly[idx[j]], 0);
}

static void sc_pool_cancel(const unsigned long *idx, unsigned long k)
{
	unsigned long j;

	for (j = 0; j < k; j++)
		fd_settime(pool[idx[j]], 0, 0);
}

struct scale_fac {
	const char *fac;
	void (*arm)(const unsigned long *idx, unsigned long k);
	void (*cancel)(const unsigned long *idx, unsigned long k);
	void (*modify)(const unsigned long *idx, unsigned long k);
};

static double median_per_op(double *v)
{
	qsort(v, CHUNKS, sizeof(v[0]), cmp_double);
	return (v[CHUNKS / 2 - 1] + v[CHUNKS / 2]) / 2 / chunk;
}

/*
 * @s timeouts of @sf pending, then CHUNKS chunks: arm chunk more, modify
 * chunk random ones (to new random delays), cancel chunk random victims;
 * ns per operation of the median chunk of each. Returns with the
 * timeouts still pending (live[0..nlive-1]).
 */
static void scale_run(const struct scale_fac *sf, unsigned long s, unsigned int rep)
{
	static unsigned long idx[HWTIMER_BATCH_MAX];
	double ca[CHUNKS], cc[CHUNKS], cm[CHUNKS];
	unsigned long done, k, j, c;
	__u64 t0, t1;

	nlive = nfree = 0;
	for (j = s + chunk; j-- > 0;)
		freel[nfree++] = j;
	for (done = 0; done < s; done += k) {
		k = s - done < HWTIMER_BATCH_MAX ? s - done : HWTIMER_BATCH_MAX;
		for (j = 0; j < k; j++)
			idx[j] = live[nlive++] = freel[--nfree];
		sf->arm(idx, k);
	}
	for (c = 0; c < CHUNKS; c++) {
		for (j = 0; j < chunk; j++)
			idx[j] = live[nlive++] = freel[--nfree];
		t0 = mclock();
		sf->arm(idx, chunk);
		t1 = mclock();
		ca[c] = t1 - t0;
		pick_victims(idx, chunk, false);
		for (j = 0; j < chunk; j++)
			sdly[idx[j]] = rnd_delay();
		t0 = mclock();
		sf->modify(idx, chunk);
		t1 = mclock();
		cm[c] = t1 - t0;
		pick_victims(idx, chunk, true);
		t0 = mclock();
		sf->cancel(idx, chunk);
		t1 = mclock();
		cc[c] = t1 - t0;
		for (j = 0; j < chunk; j++)
			freel[nfree++] = idx[j];
	}
	record_n("user_scale", sf->fac, "arm", "ns", s, rep, median_per_op(ca));
	record_n("user_scale", sf->fac, "cancel_random", "ns", s, rep, median_per_op(cc));
	record_n("user_scale", sf->fac, "modify_random", "ns", s, rep, median_per_op(cm));
}

/*
 * io_uring: arming in the same chunks, each followed by the removal of as
 * many of the oldest (at the head of its list: no search) to keep @s
 * pending; then random victims within the time budget, once for modify
 * and once for cancel.
 */
static void scale_io_uring(unsigned long s, unsigned int rep)
{
	__u64 t0, t1, ta, budget = budget_ms * 1000000ULL;
	double ca[CHUNKS];
	unsigned long c, k, j;

	if (s > ur_scale_max) {
		printf("D user scale io_uring %lu rep %u: not run (-U %lu)\n", s, rep, ur_scale_max);
		return;
	}
	ur_open();
	ta = mclock();
	ur_arm(NULL, s, sdly, 0);
	printf("D user scale io_uring %lu rep %u: %lu armed in %llu ms\n", s, rep, s,
	       (unsigned long long)(mclock() - ta) / 1000000);
	ta = mclock();
	for (c = 0; c < CHUNKS; c++) {
		t0 = mclock();
		ur_arm(ident + s + c * chunk, chunk, sdly, 0);
		t1 = mclock();
		ca[c] = t1 - t0;
		ur_remove(ident + c * chunk, chunk, NULL, 0);
	}
	printf("D user scale io_uring %lu rep %u: %d chunks armed and as many oldest removed in %llu ms\n",
	       s, rep, CHUNKS, (unsigned long long)(mclock() - ta) / 1000000);
	record_n("user_scale", "io_uring", "arm", "ns", s, rep, median_per_op(ca));
	/* Pending: CHUNKS * chunk .. s + CHUNKS * chunk - 1; random victims among them. */
	nlive = 0;
	for (j = 0; j < s; j++)
		live[nlive++] = CHUNKS * chunk + j;
	for (j = 0; j < s; j++)
		sdly[live[j]] = rnd_delay();
	pick_victims(freel, s, false);
	t0 = mclock();
	k = ur_remove(freel, s, sdly, budget);
	t1 = mclock();
	record_n("user_scale", "io_uring", "modify_random", "ns", s, rep, per_k(t0, t1, k));
	printf("D user scale io_uring %lu rep %u: %lu random modifies in %llu ms\n", s, rep, k,
	       (unsigned long long)(t1 - t0) / 1000000);
	pick_victims(freel, s, false);
	t0 = mclock();
	k = ur_remove(freel, s, NULL, budget);
	t1 = mclock();
	record_n("user_scale", "io_uring", "cancel_random", "ns", s, rep, per_k(t0, t1, k));
	printf("D user scale io_uring %lu rep %u: %lu random cancels in %llu ms\n", s, rep, k,
	       (unsigned long long)(t1 - t0) / 1000000);
	ta = mclock();
	ur_close();
	printf("D user scale io_uring %lu rep %u: closed in %llu ms\n", s, rep,
	       (unsigned long long)(mclock() - ta) / 1000000);
}

static void bench_scale(unsigned int rep)
{
	static const struct scale_fac lib_fac = {
		"hwtimer", sc_lib_arm, sc_lib_cancel, sc_lib_modify,
	}, uw_fac = {
		"uwheel", sc_uw_arm, sc_uw_cancel, sc_uw_modify,
	}, pool_fac = {
		"timerfd_pool", sc_pool_arm, sc_pool_cancel, sc_pool_arm,
	};
	unsigned long s, i, j;
	__u64 t[5];

	for (i = 0; i < nsizes; i++) {
		s = sizes[i];
		for (j = 0; j < scale_cap; j++)
			sdly[j] = rnd_delay();
		t[0] = now_ns();
		if (!peers_only) {
			sfile = lib_open(s + chunk);
			scale_run(&lib_fac, s, rep);
			hwtimer_file_close(sfile);
		}
		t[1] = now_ns();
		scale_io_uring(s, rep);
		t[2] = now_ns();
		uw_open();
		for (j = 0; j < scale_cap; j++)
			uw_timer_init(&suwt[j], uw_cb);
		uw_update(&uw);
		scale_run(&uw_fac, s, rep);
		uw_close();
		t[3] = now_ns();
		/* The pool has n + chunk timerfds. */
		if (s + chunk <= pool_n) {
			scale_run(&pool_fac, s, rep);
			sc_pool_cancel(live, nlive);
		}
		t[4] = now_ns();
		printf("D user scale %lu rep %u took ms: hwtimer %llu, io_uring %llu, uwheel %llu, timerfd_pool %llu\n",
		       s, rep, (t[1] - t[0]) / 1000000, (t[2] - t[1]) / 1000000,
		       (t[3] - t[2]) / 1000000, (t[4] - t[3]) / 1000000);
	}
}

/* -S: a comma-separated list of sizes, "" for none. */
static int parse_sizes(void)
{
	const char *p = sizes_arg;
	char *end;

	nsizes = 0;
	while (*p) {
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || !v || v > 10000000 || (*end && *end != ',') ||
		    nsizes == MAX_SIZES) {
			fprintf(stderr, "hwtbench-user: -S %s: 1 to 10000000, at most %d\n",
				sizes_arg, MAX_SIZES);
			return -1;
		}
		sizes[nsizes++] = v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* calloc() that dies, and touches the memory. */
static void *alloc(size_t cnt, size_t size)
{
	void *p = calloc(cnt ? cnt : 1, size);

	if (!p)
		die("calloc");
	memset(p, 0, cnt * size);
	return p;
}

int main(int argc, char **argv)
{
	unsigned long max_size = 0, i;
	struct rlimit rl;
	unsigned int r;
	__s64 *lat;
	const struct ht_opt opts[] = {
		HT_OPT_NUM('n', n, "timeouts", 1, 10000000),
		HT_OPT_NUM('r', reps, "reps", 1, MAX_REPS),
		HT_OPT_NUM('s', spread_ms, "spread_ms", 0, 3600000),
		HT_OPT_STR('c', cgroup, "cgroup"),
		HT_OPT_STR('S', sizes_arg, "sizes"),
		HT_OPT_NUM('b', budget_ms, "budget_ms", 1, 600000),
		HT_OPT_NUM('k', chunk, "chunk", 16, CHUNK_MAX),
		HT_OPT_NUM('R', scale_reps, "scale_reps", 0, MAX_REPS),
		HT_OPT_NUM('U', ur_scale_max, "io_uring_scale_max", 0, 10000000),
		HT_OPT_FLAG('p', peers_only),
		HT_OPT_FLAG('t', no_tfd),
		HT_OPT_FLAG('C', cpu_clock),
		{ 0 }
	};

	if (ht_getopt(argc, argv, opts) || parse_sizes())
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (cgroup)
		join_cgroup();
	for (i = 0; i < nsizes; i++)
		max_size = sizes[i] > max_size ? sizes[i] : max_size;
	scale_cap = nsizes ? max_size + CHUNKS * chunk : 0;
	pool_n = no_tfd ? 0 : n + chunk;

	/* 2n timerfds (n + chunk in the pool) plus a few: raise the limit (as root). */
	rl.rlim_cur = 2 * n + chunk + 64;
	rl.rlim_max = 2 * n + chunk + 64;
	if (!no_tfd && setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE) (-t leaves out the timerfd columns)");

	/* Everything touched now, so the memory deltas see only the kernel's. */
	arm_ent = alloc(n, sizeof(*arm_ent));
	cancel_ent = alloc(n, sizeof(*cancel_ent));
	mod_ent = alloc(n, sizeof(*mod_ent));
	recs = alloc(READ_RECS, sizeof(*recs));
	tfd = alloc(n, sizeof(*tfd));
	pool = alloc(pool_n, sizeof(*pool));
	uwt = alloc(n, sizeof(*uwt));
	dly = alloc(n, sizeof(*dly));
	dly2 = alloc(n, sizeof(*dly2));
	lat = alloc(n, sizeof(*lat));
	perm = alloc(n, sizeof(*perm));
	perm2 = alloc(n, sizeof(*perm2));
	ident = alloc(n > scale_cap ? n : scale_cap, sizeof(*ident));
	for (i = 0; i < (n > scale_cap ? n : scale_cap); i++)
		ident[i] = i;
	sdly = alloc(scale_cap, sizeof(*sdly));
	sid = alloc(scale_cap, sizeof(*sid));
	live = alloc(scale_cap, sizeof(*live));
	freel = alloc(scale_cap, sizeof(*freel));
	suwt = alloc(scale_cap, sizeof(*suwt));

	if (!peers_only) {
		/* The device's tick, for the in-process wheel; room for the largest size. */
		hwtimer_file_close(lib_open(n));
		if (nsizes)
			ht_caps_raise(max_size + chunk, "user");
	}
	if (!no_tfd)
		pool_create();

	printf("I user_n %lu\nI user_reps %u\nI user_spread_ms %lu\nI user_budget_ms %lu\n", n,
	       reps, spread_ms, budget_ms);
	printf("I user_sizes %s\nI user_chunk %lu\n", nsizes ? sizes_arg : "none", chunk);
	if (no_tfd)
		printf("I user_no_timerfd 1\n");
	if (cpu_clock)
		printf("I user_clock thread_cputime\n");
	if (peers_only)
		printf("I user_peers_only 1\n");
	else if (ring_entries)
		printf("I user_ring_entries %u\n", ring_entries);
	else
		printf("I user_ring_entries 0 (the module has no ring: records by read())\n");
	for (r = 0; r < reps; r++) {
		__u64 t[6];

		t[0] = now_ns();
		bench_arm(r);
		t[1] = now_ns();
		bench_deliver(r);
		t[2] = now_ns();
		bench_lifecycle(r);
		t[3] = now_ns();
		bench_lateness(r, lat);
		t[4] = now_ns();
		/* Once: 16 chunks at each size make their own median. */
		if (r < scale_reps)
			bench_scale(r);
		t[5] = now_ns();
		printf("D user rep %u took %llu s: arm %llu, deliver %llu, lifecycle %llu, lateness %llu, scale %llu\n",
		       r, (t[5] - t[0]) / NSEC, (t[1] - t[0]) / NSEC, (t[2] - t[1]) / NSEC,
		       (t[3] - t[2]) / NSEC, (t[4] - t[3]) / NSEC, (t[5] - t[4]) / NSEC);
		fprintf(stderr, "hwtbench-user: repetition %u of %u done\n", r + 1, reps);
	}
	/* Expected to be small against the operations: a slow run. */
	printf("I user_io_uring_expired_meanwhile %lu\nI user_io_uring_ops_on_expired %lu\n",
	       ur_expired, ur_missed);
	print_figs();
	return errors ? 1 : 0;
}
