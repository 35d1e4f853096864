// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench-dev: what each entry of /dev/hwtimer's data path costs in the
 * kernel, for the instruction-count boot of make bench-icount (bench/lib.sh),
 * where a guest ns is a guest instruction: QEMU's -icount shift=0 on one
 * vCPU, so a CLOCK_MONOTONIC interval read in user space counts every
 * instruction that CPU ran in it, the kernel's included. In any other boot
 * the same figures are ns.
 *
 * At each size S of -S (default 1000 and 100000), two files hold S random
 * timeouts each (delays of 10 s to 2 h, log-uniform, as hwtbench-user's):
 * file A with a completion ring (mmap'd), file B without one, read() from.
 * Then, -r times:
 *
 *   arm, modify, cancel   -c rounds on file A: one ioctl arming -k (1024)
 *                         more timeouts, one modifying -k random pending
 *                         ones to new random delays, one cancelling -k
 *                         random victims (S pending again); each timed
 *                         around its ioctl(). The median round's time,
 *                         less an empty ioctl's (an unknown command, which
 *                         the device answers ENOTTY: the system call and
 *                         the VFS's dispatch) measured the same way, over
 *                         -k: the kernel's work per entry, the batch's own
 *                         (header, pinning, clock, locking) shared out
 *   deliver               -k timeouts armed on file A for one absolute
 *                         deadline two ticks ahead (in level 0 of the
 *                         file's wheel); the program then reads the clock
 *                         in a loop. Where the clock jumps, the CPU was
 *                         elsewhere: the gap whose span holds a record's
 *                         expired_ns is the interrupt that ran the file's
 *                         expiry pass (with the softirq and whatever else
 *                         ran then). The median gap of -p passes, less that
 *                         of a pass with one record measured the same way,
 *                         over -k - 1: what one more record costs the pass,
 *                         its expiry and its write into the ring
 *   cascade               the same with the deadline 100 ticks ahead, in
 *                         level 1, whose bucket the pass first moves to
 *                         level 0: less the pass from level 0, over -k,
 *                         what a record costs the pass per level it waited
 *                         in above 0
 *   deliver_queue         the same as deliver on file B: the pass queues
 *                         the records in the kernel for read()
 *   read                  one read() taking the -k records of that pass,
 *                         less an empty read() (O_NONBLOCK, EAGAIN), over
 *                         -k
 *
 * Each figure but cascade also has a _with_entry twin: the same time not
 * less the empty call or the one-record pass, over -k, what the entry into
 * the kernel (the system call, or the interrupt) adds when a batch of -k
 * shares it. The empty ioctl, the empty read and the one-record pass are
 * printed too (ioctl_empty, read_empty, pass_one). Every figure is the median over the
 * repetitions of each repetition's median, in "R dev hwtimer S metric ns
 * median min max reps" lines (bench/report.pl); "D" lines give details,
 * "E" lines errors (then the exit status is 1).
 *
 *   hwtbench-dev [-S sizes] [-r repetitions] [-k batch] [-c rounds] [-p passes]
 *
 * To hold the largest size in one file, the program raises the module's
 * file_cap, user_cap and global_cap (as root) while it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "hwtimer_user.h"

#define BENCH_NAME	"dev"
#include "bench_report.h"

#define BENCH_RND_SEED	0x6877746d64657621ULL
#include "bench_random.h"

#define MAX_REPS	32
#define MAX_ROUNDS	64
#define MAX_PASSES	16
#define MAX_SIZES	8
/* A clock jump in the spin longer than this: the CPU ran something else. */
#define GAP_NS		1000
#define MAX_GAPS	256
/* Tries at a pass whose records did not all land in the spin's gaps. */
#define PASS_TRIES	4

/* A command no device answers but with ENOTTY: the empty ioctl. */
#define HWTB_IOC_EMPTY	_IOWR(HWTIMER_IOC_MAGIC, 0x3f, struct hwtimer_batch)

static const char *sizes_arg = "1000,100000";
static unsigned int reps = 3, rounds = 16, passes = 5;
static unsigned int k = 1024;
static unsigned long sizes[MAX_SIZES];
static unsigned int nsizes;
static uint64_t tick_ns;

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = t / SEC, .tv_nsec = t % SEC };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v[0..@cnt-1] (sorts them). */
static double median(double *v, unsigned int cnt)
{
	qsort(v, cnt, sizeof(v[0]), cmp_double);
	return cnt & 1 ? v[cnt / 2] : (v[cnt / 2 - 1] + v[cnt / 2]) / 2;
}

/* ---- figures ---------------------------------------------------------------- */

struct fig {
	const char *metric;
	unsigned long n;
	double v[MAX_REPS];
	unsigned int cnt;
};

static struct fig figs[64];
static unsigned int nfigs;

static void record(const char *metric, unsigned long n, unsigned int rep, double v)
{
	unsigned int i;

	for (i = 0; i < nfigs; i++)
		if (!strcmp(figs[i].metric, metric) && figs[i].n == n)
			break;
	if (i == nfigs) {
		if (nfigs == ARRAY_SIZE(figs)) {
			error("too many figures: %s", metric);
			return;
		}
		memset(&figs[i], 0, sizeof(figs[i]));
		figs[i].metric = metric;
		figs[i].n = n;
		nfigs++;
	}
	figs[i].v[rep] = v;
	if (figs[i].cnt < rep + 1)
		figs[i].cnt = rep + 1;
}

static void print_figs(void)
{
	unsigned int i;

	/* The method's parameters, for the report's note. */
	printf("R dev - 0 batch entries %u %u %u 1\n", k, k, k);
	printf("R dev - 0 rounds count %u %u %u 1\n", rounds, rounds, rounds);
	printf("R dev - 0 passes count %u %u %u 1\n", passes, passes, passes);
	for (i = 0; i < nfigs; i++) {
		struct fig *f = &figs[i];
		double v[MAX_REPS], med;

		memcpy(v, f->v, f->cnt * sizeof(v[0]));
		med = median(v, f->cnt);
		printf("R dev hwtimer %lu %s ns %.3f %.3f %.3f %u\n", f->n, f->metric, med, v[0],
		       v[f->cnt - 1], f->cnt);
	}
}

/* ---- the files ---------------------------------------------------------------- */

/**
 * struct dfile - one file of the benchmark
 * @fd: its descriptor
 * @head: with a ring, its head (the program writes it)
 * @tail: with a ring, its tail (the kernel writes it)
 * @recs: with a ring, its records
 * @mask: with a ring, its entries - 1
 * @map: with a ring, the mapping, of @map_size bytes
 */
struct dfile {
	int fd;
	uint32_t *head;
	const uint32_t *tail;
	const struct hwtimer_expiry *recs;
	uint32_t mask;
	void *map;
	size_t map_size;
};

static struct hwtimer_arm_entry *arm_ent;
static struct hwtimer_cancel_entry *cancel_ent;
static struct hwtimer_modify_entry *mod_ent;
static struct hwtimer_expiry *rbuf;

/* The ids of file A's timeouts, by index; which indexes are pending, free. */
static uint64_t *ids;
static unsigned long *live, nlive, *freel, nfree;

static void dfile_open(struct dfile *f, bool ring)
{
	struct hwtimer_ring_params p;
	struct hwtimer_info info;

	memset(f, 0, sizeof(*f));
	f->fd = ht_open(ring ? 0 : O_NONBLOCK);
	if (f->fd < 0)
		die("open " HWT_DEV);
	if (ht_info(f->fd, &info))
		die("HWTIMER_IOC_INFO");
	if (info.record_size != sizeof(struct hwtimer_expiry)) {
		error("record size %u, expected %zu", info.record_size,
		      sizeof(struct hwtimer_expiry));
		exit(1);
	}
	tick_ns = info.tick_ns;
	if (!ring)
		return;
	memset(&p, 0, sizeof(p));
	p.entries = 2 * k;
	if (ioctl(f->fd, HWTIMER_IOC_RING, &p))
		die("HWTIMER_IOC_RING");
	f->map_size = p.mmap_size;
	f->map = mmap(NULL, f->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		      HWTIMER_RING_OFF);
	if (f->map == MAP_FAILED)
		die("mmap of the ring");
	f->head = (uint32_t *)((char *)f->map + p.head_off);
	f->tail = (const uint32_t *)((char *)f->map + p.tail_off);
	f->recs = (const struct hwtimer_expiry *)((char *)f->map + p.records_off);
	f->mask = p.entries - 1;
}

static void dfile_close(struct dfile *f)
{
	if (f->map)
		munmap(f->map, f->map_size);
	close(f->fd);
}

/* One batch ioctl whose @cnt entries must all succeed. */
static void batch(struct dfile *f, unsigned long cmd, void *ent, unsigned int cnt,
		  const char *what)
{
	uint32_t done, failed;
	int ret = ht_batch(f->fd, cmd, ent, cnt, 0, &done, &failed);

	if (ret || done != cnt || failed) {
		error("%s: %s (done %u of %u, failed %u)", what, strerror(-ret), done, cnt,
		      failed);
		exit(1);
	}
}

/* The same, timed: the ns (instructions) around the ioctl(). */
static double timed_batch(struct dfile *f, unsigned long cmd, void *ent, unsigned int cnt,
			  const char *what)
{
	struct hwtimer_batch b = { .entries = (uintptr_t)ent, .count = cnt };
	uint64_t t0, t1;
	int ret;

	t0 = now_ns();
	ret = ioctl(f->fd, cmd, &b);
	t1 = now_ns();
	if (ret || b.done != cnt || b.failed) {
		error("%s: %s (done %u of %u, failed %u)", what, ret ? strerror(errno) : "-",
		      b.done, cnt, b.failed);
		exit(1);
	}
	return (double)(t1 - t0);
}

/* An empty ioctl, timed as timed_batch() times one. */
static double timed_empty_ioctl(struct dfile *f)
{
	struct hwtimer_batch b = { 0 };
	uint64_t t0, t1;
	int ret;

	t0 = now_ns();
	ret = ioctl(f->fd, HWTB_IOC_EMPTY, &b);
	t1 = now_ns();
	if (!ret || errno != ENOTTY) {
		error("the empty ioctl returned %d (%s), expected ENOTTY", ret, strerror(errno));
		exit(1);
	}
	return (double)(t1 - t0);
}

/* Arm @cnt timeouts at random delays; into ids[] by the indexes @idx if any. */
static void arm_random(struct dfile *f, const unsigned long *idx, unsigned int cnt,
		       double *t)
{
	unsigned int j;

	memset(arm_ent, 0, cnt * sizeof(*arm_ent));
	for (j = 0; j < cnt; j++) {
		arm_ent[j].cookie = idx ? idx[j] : j;
		arm_ent[j].expires_ns = rnd_delay();
	}
	if (t)
		*t = timed_batch(f, HWTIMER_IOC_ARM, arm_ent, cnt, "HWTIMER_IOC_ARM");
	else
		batch(f, HWTIMER_IOC_ARM, arm_ent, cnt, "HWTIMER_IOC_ARM");
	for (j = 0; idx && j < cnt; j++)
		ids[idx[j]] = arm_ent[j].id;
}

/* @s random timeouts pending in @f (file A: their ids kept, S pending). */
static void populate(struct dfile *f, unsigned long s, bool keep)
{
	static unsigned long idx[HWTIMER_BATCH_MAX];
	unsigned long done, c, j;

	if (keep) {
		nlive = nfree = 0;
		for (j = s + k; j-- > 0;)
			freel[nfree++] = j;
	}
	for (done = 0; done < s; done += c) {
		c = s - done < HWTIMER_BATCH_MAX ? s - done : HWTIMER_BATCH_MAX;
		for (j = 0; keep && j < c; j++)
			idx[j] = live[nlive++] = freel[--nfree];
		arm_random(f, keep ? idx : NULL, c, NULL);
	}
}

/* @cnt distinct random pending timeouts of file A into @out; taken out with @remove. */
static void pick_victims(unsigned long *out, unsigned long cnt, bool remove)
{
	rnd_pick(live, nlive, out, cnt);
	if (remove)
		nlive -= cnt;
}

/*
 * One repetition's arm, modify and cancel rounds on file A and its empty
 * ioctls: the median of each into @med (arm, modify, cancel, empty).
 */
static void ops_rounds(struct dfile *f, double med[4])
{
	static unsigned long idx[HWTIMER_BATCH_MAX];
	double ta[MAX_ROUNDS], tm[MAX_ROUNDS], tc[MAX_ROUNDS], te[MAX_ROUNDS];
	unsigned int c, j;

	for (c = 0; c < rounds; c++) {
		for (j = 0; j < k; j++)
			idx[j] = live[nlive++] = freel[--nfree];
		arm_random(f, idx, k, &ta[c]);

		pick_victims(idx, k, false);
		memset(mod_ent, 0, k * sizeof(*mod_ent));
		for (j = 0; j < k; j++) {
			mod_ent[j].id = ids[idx[j]];
			mod_ent[j].expires_ns = rnd_delay();
		}
		tm[c] = timed_batch(f, HWTIMER_IOC_MODIFY, mod_ent, k, "HWTIMER_IOC_MODIFY");

		pick_victims(idx, k, true);
		memset(cancel_ent, 0, k * sizeof(*cancel_ent));
		for (j = 0; j < k; j++)
			cancel_ent[j].id = ids[idx[j]];
		tc[c] = timed_batch(f, HWTIMER_IOC_CANCEL, cancel_ent, k, "HWTIMER_IOC_CANCEL");
		for (j = 0; j < k; j++)
			freel[nfree++] = idx[j];

		te[c] = timed_empty_ioctl(f);
	}
	med[0] = median(ta, rounds);
	med[1] = median(tm, rounds);
	med[2] = median(tc, rounds);
	med[3] = median(te, rounds);
}

/* ---- deliveries ------------------------------------------------------------------ */

struct gap {
	uint64_t t0, t1;
	bool used;
};

/*
 * Read the clock in a loop until @end; the jumps of more than GAP_NS into
 * @g. Return: how many.
 */
static unsigned int spin(uint64_t end, struct gap *g)
{
	uint64_t prev = now_ns(), t;
	unsigned int n = 0;

	do {
		t = now_ns();
		if (t - prev > GAP_NS && n < MAX_GAPS) {
			g[n].t0 = prev;
			g[n].t1 = t;
			g[n].used = false;
			n++;
		}
		prev = t;
	} while (t < end);
	return n;
}

/* Mark the gap that holds @t; false if none does. */
static bool gap_mark(struct gap *g, unsigned int n, uint64_t t)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (g[i].t0 <= t && t <= g[i].t1) {
			g[i].used = true;
			return true;
		}
	}
	return false;
}

static double gaps_used(const struct gap *g, unsigned int n)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (g[i].used)
			sum += (double)(g[i].t1 - g[i].t0);
	return sum;
}

/*
 * Where the timeouts of a pass wait in the file's wheel: in level 0, the
 * deadline a few ticks ahead, so that the pass takes each off its bucket
 * once and expires it; or in level 1, the deadline 100 ticks ahead, so
 * that the pass first cascades the level-1 bucket (the wheel's clock
 * reaches its start on the way to the deadline's tick) and takes each
 * off twice. A deadline a few ticks ahead whose tick lies past a
 * multiple of 64 of the wheel's clock is in level 1 too: the median
 * over the passes leaves those few out.
 */
enum { LEVEL0, LEVEL1 };

/*
 * @cnt timeouts of @f due at one deadline: the CPU time of the gaps in
 * which their expiry pass wrote their records (file A: into the ring,
 * consumed here) or queued them (file B: read here, timed into *@tread
 * unless it is NULL). Negative when a record did not land in a gap (then
 * the caller tries again).
 */
static double pass(struct dfile *f, unsigned int cnt, int level, double *tread)
{
	static struct gap g[MAX_GAPS];
	uint64_t dl, t0, t1, lead;
	unsigned int j, n, got = 0;
	uint32_t tail0 = f->tail ? __atomic_load_n(f->tail, __ATOMIC_ACQUIRE) : 0;
	bool ok = true;
	ssize_t r;

	/* Level 0: past the arming of @cnt (well under a ms), a few ticks. */
	lead = level == LEVEL0 ? (tick_ns < MS ? 2 * MS : 2 * tick_ns) : 100 * tick_ns;
	dl = now_ns() + lead;
	memset(arm_ent, 0, cnt * sizeof(*arm_ent));
	for (j = 0; j < cnt; j++) {
		arm_ent[j].cookie = j;
		arm_ent[j].flags = HWTIMER_TIMEOUT_ABS;
		arm_ent[j].expires_ns = dl;
	}
	batch(f, HWTIMER_IOC_ARM, arm_ent, cnt, "HWTIMER_IOC_ARM (deliver)");
	if (level == LEVEL1)
		sleep_until(dl - 2 * MS);
	/* The file's tick at or after the deadline, and one more of its wheel's. */
	n = spin(dl + 3 * tick_ns + MS, g);

	if (f->tail) {
		uint32_t tail = __atomic_load_n(f->tail, __ATOMIC_ACQUIRE);

		got = tail - tail0;
		for (j = 0; j < got && j < cnt; j++)
			ok &= gap_mark(g, n, f->recs[(tail0 + j) & f->mask].expired_ns);
		__atomic_store_n(f->head, tail, __ATOMIC_RELEASE);
	} else {
		t0 = now_ns();
		r = read(f->fd, rbuf, (size_t)cnt * sizeof(*rbuf));
		t1 = now_ns();
		if (r < 0 && errno != EAGAIN)
			die("read " HWT_DEV);
		got = r > 0 ? r / sizeof(*rbuf) : 0;
		for (j = 0; j < got; j++)
			ok &= gap_mark(g, n, rbuf[j].expired_ns);
		if (tread)
			*tread = (double)(t1 - t0);
	}
	if (got != cnt) {
		error("%u of %u records came by %llu ms after their deadline", got, cnt,
		      (unsigned long long)((3 * tick_ns + MS) / MS));
		exit(1);
	}
	return ok ? gaps_used(g, n) : -1;
}

/* pass(), tried again while a record falls outside the gaps. */
static double pass_try(struct dfile *f, unsigned int cnt, int level, double *tread,
		       const char *what)
{
	unsigned int t;
	double v;

	for (t = 0; t < PASS_TRIES; t++) {
		v = pass(f, cnt, level, tread);
		if (v >= 0)
			return v;
		printf("D dev %s pass of %u: a record outside the spin's gaps, again\n", what, cnt);
	}
	error("%s: %u passes of %u records without their records in the spin's gaps", what,
	      PASS_TRIES, cnt);
	exit(1);
}

/* An empty read(): O_NONBLOCK, nothing queued. */
static double timed_empty_read(struct dfile *f)
{
	uint64_t t0, t1;
	ssize_t r;

	t0 = now_ns();
	r = read(f->fd, rbuf, (size_t)k * sizeof(*rbuf));
	t1 = now_ns();
	if (r >= 0 || errno != EAGAIN) {
		error("the empty read returned %zd (%s), expected EAGAIN", r, strerror(errno));
		exit(1);
	}
	return (double)(t1 - t0);
}

/* "D" line text: the values of @v, then their median (which sorts them). */
static double list_median(char *buf, size_t len, double *v, unsigned int cnt)
{
	unsigned int i;
	int o = 0;

	for (i = 0; i < cnt && o >= 0 && (size_t)o < len; i++)
		o += snprintf(buf + o, len - o, "%s%.0f", i ? " " : "", v[i]);
	return median(v, cnt);
}

/*
 * One repetition's deliveries at size @s: into the ring of @a, from level
 * 0 and from level 1 of its wheel; into the kernel queue of @b, and read()
 * from it.
 */
static void deliveries(struct dfile *a, struct dfile *b, unsigned long s, unsigned int rep)
{
	double ra1[MAX_PASSES], rak[MAX_PASSES], rc[MAX_PASSES], qb1[MAX_PASSES];
	double qbk[MAX_PASSES], rd[MAX_PASSES], re[MAX_PASSES];
	double g1, gk, gc, q1, qk, tr, te;
	char l1[160], lk[160], lc[160], lq1[160], lqk[160];
	unsigned int p;

	for (p = 0; p < passes; p++) {
		ra1[p] = pass_try(a, 1, LEVEL0, NULL, "ring");
		rak[p] = pass_try(a, k, LEVEL0, NULL, "ring");
		rc[p] = pass_try(a, k, LEVEL1, NULL, "ring, level 1");
		qb1[p] = pass_try(b, 1, LEVEL0, NULL, "queue");
		qbk[p] = pass_try(b, k, LEVEL0, &rd[p], "queue");
		re[p] = timed_empty_read(b);
	}
	g1 = list_median(l1, sizeof(l1), ra1, passes);
	gk = list_median(lk, sizeof(lk), rak, passes);
	gc = list_median(lc, sizeof(lc), rc, passes);
	q1 = list_median(lq1, sizeof(lq1), qb1, passes);
	qk = list_median(lqk, sizeof(lqk), qbk, passes);
	tr = median(rd, passes);
	te = median(re, passes);
	printf("D dev %lu rep %u: passes into the ring of 1 record: %s; of %u: %s; of %u from level 1: %s\n",
	       s, rep, l1, k, lk, k, lc);
	printf("D dev %lu rep %u: passes into the queue of 1 record: %s; of %u: %s; read of %u %.0f, empty %.0f\n",
	       s, rep, lq1, k, lqk, k, tr, te);
	record("deliver", s, rep, (gk - g1) / (k - 1));
	record("deliver_with_entry", s, rep, gk / k);
	record("cascade", s, rep, (gc - gk) / k);
	record("deliver_queue", s, rep, (qk - q1) / (k - 1));
	record("deliver_queue_with_entry", s, rep, qk / k);
	record("pass_one", s, rep, g1);
	record("read", s, rep, (tr - te) / k);
	record("read_with_entry", s, rep, tr / k);
	record("read_empty", s, rep, te);
}

static void bench_size(unsigned long s)
{
	struct dfile a, b;
	double med[4];
	unsigned int rep;

	dfile_open(&a, true);
	dfile_open(&b, false);
	populate(&a, s, true);
	populate(&b, s, false);
	printf("D dev %lu: %lu timeouts pending in each file, tick %llu ns\n", s, s,
	       (unsigned long long)tick_ns);
	for (rep = 0; rep < reps; rep++) {
		ops_rounds(&a, med);
		printf("D dev %lu rep %u: arm %.0f, modify %.0f, cancel %.0f of %u; empty ioctl %.0f\n",
		       s, rep, med[0], med[1], med[2], k, med[3]);
		record("arm", s, rep, (med[0] - med[3]) / k);
		record("arm_with_entry", s, rep, med[0] / k);
		record("modify", s, rep, (med[1] - med[3]) / k);
		record("modify_with_entry", s, rep, med[1] / k);
		record("cancel", s, rep, (med[2] - med[3]) / k);
		record("cancel_with_entry", s, rep, med[2] / k);
		record("ioctl_empty", s, rep, med[3]);
		deliveries(&a, &b, s, rep);
	}
	dfile_close(&a);
	dfile_close(&b);
}

/*
 * What two clock reads in a row cost: the spin's step, which must stay well
 * below GAP_NS (a clock read that is a system call would not).
 */
static void clock_check(void)
{
	double v[101];
	unsigned int i;
	uint64_t t0;

	for (i = 0; i < 101; i++) {
		t0 = now_ns();
		v[i] = (double)(now_ns() - t0);
	}
	printf("D dev two clock reads in a row: %.0f ns\n", median(v, 101));
	if (v[50] * 4 > GAP_NS) {
		error("a clock read costs %.0f ns, too much to tell the CPU's gaps (%d ns)",
		      v[50], GAP_NS);
		exit(1);
	}
}

static int parse_sizes(void)
{
	const char *p = sizes_arg;
	char *end;

	nsizes = 0;
	while (*p) {
		if (nsizes == MAX_SIZES)
			return -1;
		sizes[nsizes] = strtoul(p, &end, 10);
		if (end == p || !sizes[nsizes])
			return -1;
		nsizes++;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return nsizes ? 0 : -1;
}

static void *alloc(size_t cnt, size_t size)
{
	void *p = calloc(cnt, size);

	if (!p)
		die("calloc");
	/* Touched now: no page fault inside a timed call. */
	memset(p, 0, cnt * size);
	return p;
}

int main(int argc, char **argv)
{
	const struct ht_opt opts[] = {
		HT_OPT_STR('S', sizes_arg, "sizes"),
		HT_OPT_NUM('r', reps, "repetitions", 1, MAX_REPS),
		HT_OPT_NUM('k', k, "batch", 2, HWTIMER_BATCH_MAX),
		HT_OPT_NUM('c', rounds, "rounds", 1, MAX_ROUNDS),
		HT_OPT_NUM('p', passes, "passes", 1, MAX_PASSES),
		{ 0 },
	};
	unsigned long most = 0;
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ht_getopt(argc, argv, opts))
		return 2;
	if (parse_sizes()) {
		fprintf(stderr, "%s: -S takes up to %d sizes, comma-separated\n", argv[0],
			MAX_SIZES);
		return 2;
	}
	for (i = 0; i < nsizes; i++)
		if (sizes[i] > most)
			most = sizes[i];
	ht_caps_raise(most + 2 * k, "dev");
	arm_ent = alloc(HWTIMER_BATCH_MAX, sizeof(*arm_ent));
	cancel_ent = alloc(k, sizeof(*cancel_ent));
	mod_ent = alloc(k, sizeof(*mod_ent));
	rbuf = alloc(k, sizeof(*rbuf));
	ids = alloc(most + k, sizeof(*ids));
	live = alloc(most + k, sizeof(*live));
	freel = alloc(most + k, sizeof(*freel));
	printf("I dev_batch %u\n", k);
	clock_check();
	for (i = 0; i < nsizes; i++)
		bench_size(sizes[i]);
	print_figs();
	return errors ? 1 : 0;
}
