// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer-demo - thousands of timeouts behind one /dev/hwtimer descriptor.
 *
 * An event loop, as a server would run one, written with libhwtimer
 * (libhwtimer(3)): it arms one-shot timeouts with mixed delays in
 * batches, cancels a share of each batch right away (as when the
 * operation a timeout guarded completes), keeps a few periodic timeouts
 * running, and takes the expirations from the file's completion ring, in
 * place, when epoll says the file is readable (a module without rings
 * gives them through read(), which the library does for it). Before it
 * stops the periodic ones it asks the kernel how they are doing
 * (hwtimer_file_get_batch(): state, deadline, time left, overrun so far).
 * At the end it prints what happened: armed, cancelled, fired, early
 * (which must be 0) and a histogram of how late the expirations were, in
 * wheel ticks.
 *
 *   hwtimer-demo [-n timeouts] [-c cancel-percent] [-d max-delay-ms]
 *                [-r ring-entries]
 *
 * Exit status: 0 when every timeout armed either fired or was cancelled,
 * exactly once, and none fired early; 1 otherwise; 2 on a usage or setup
 * error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <libhwtimer.h>

#define CHUNK		512			/* timeouts armed per loop turn */
#define NPERIODIC	8
#define PERIOD_NS	((uint64_t)10 * 1000000)
#define BUCKETS		8

enum { FREE, ARMED, CANCELLED, FIRED };

struct demo {
	struct hwtimer_file *f;
	unsigned int n;
	uint64_t tick;
	struct hwtimer_arm_entry *arm;
	unsigned char *state;
	uint64_t armed, refused, cancelled, cancel_expired, fired, early, bad;
	uint64_t periodic_records, overruns, late_sum, max_late;
	uint64_t hist[BUCKETS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "hwtimer-demo: %s: %s\n", what, strerror(err));
	exit(2);
}

/* Arm timeouts [first, first + count) and cancel some of them at once. */
static void arm_chunk(struct demo *d, unsigned int first, unsigned int count,
		      unsigned int cancel_pct)
{
	struct hwtimer_cancel_entry can[CHUNK];
	unsigned int slot[CHUNK], i, k, ncancel = 0;

	int err;

	/* Every entry is processed; each one's result says how it went. */
	err = hwtimer_file_arm_batch(d->f, d->arm + first, count, HWTIMER_BATCH_CONTINUE, NULL);
	if (err)
		die("hwtimer_file_arm_batch", -err);
	for (i = first; i < first + count; i++) {
		if (d->arm[i].result) {
			d->refused++;
			continue;
		}
		d->state[i] = ARMED;
		d->armed++;
		if ((unsigned int)rand() % 100 < cancel_pct) {
			memset(&can[ncancel], 0, sizeof(can[0]));
			can[ncancel].id = d->arm[i].id;
			slot[ncancel++] = i;
		}
	}
	if (!ncancel)
		return;
	err = hwtimer_file_cancel_batch(d->f, can, ncancel, HWTIMER_BATCH_CONTINUE, NULL);
	if (err)
		die("hwtimer_file_cancel_batch", -err);
	for (k = 0; k < ncancel; k++) {
		if (can[k].result) {
			d->bad++;
			continue;
		}
		d->state[slot[k]] = CANCELLED;
		d->cancelled++;
		/* It had expired already: its unread record was discarded. */
		if (can[k].status == HWTIMER_STATUS_EXPIRED)
			d->cancel_expired++;
	}
}

/* HWTIMER_IOC_GET on the periodic timeouts: print what the kernel says. */
static void show_periodic(struct demo *d, const struct hwtimer_arm_entry *per)
{
	struct hwtimer_get_entry get[NPERIODIC];
	uint64_t now;
	unsigned int i;
	int err;

	memset(get, 0, sizeof(get));
	for (i = 0; i < NPERIODIC; i++)
		get[i].id = per[i].id;
	now = now_ns();
	err = hwtimer_file_get_batch(d->f, get, NPERIODIC, HWTIMER_BATCH_CONTINUE, NULL);
	if (err)
		die("hwtimer_file_get_batch", -err);
	printf("\nperiodic timeouts, as HWTIMER_IOC_GET reports them:\n");
	for (i = 0; i < NPERIODIC; i++) {
		const struct hwtimer_get_entry *g = &get[i];

		if (g->result || g->cookie != per[i].cookie ||
		    (g->status != HWTIMER_STATUS_PENDING &&
		     g->status != HWTIMER_STATUS_EXPIRED)) {
			printf("  id %" PRIu64 ": unexpected: result %d status %u\n",
			       (uint64_t)g->id, g->result, g->status);
			d->bad++;
			continue;
		}
		printf("  id %" PRIu64 ": %-7s deadline %+8.3f ms from now, %" PRIu64
		       " ms period, %.3f ms left, overrun %" PRIu64 "\n", (uint64_t)g->id,
		       g->status == HWTIMER_STATUS_PENDING ? "pending" : "expired",
		       ((double)g->deadline_ns - (double)now) / 1e6,
		       (uint64_t)g->period_ns / 1000000, g->remaining_ns / 1e6,
		       (uint64_t)g->overrun);
	}
}

/* Lateness bucket: 0, 1, 2, 3, 4-7, 8-15, 16-31, 32+ ticks. */
static unsigned int bucket(uint64_t late, uint64_t tick)
{
	uint64_t t = late / tick;
	unsigned int b;

	if (t < 4)
		return t;
	for (b = 4, t >>= 2; t > 1 && b < BUCKETS - 1; t >>= 1)
		b++;
	return b;
}

static const char *const bucket_name[BUCKETS] = {
	"0", "1", "2", "3", "4-7", "8-15", "16-31", "32+",
};

/* Take every record ready now, in place. */
static void drain(struct demo *d)
{
	const struct hwtimer_expiry *rec;
	ssize_t n, k;

	while ((n = hwtimer_file_peek(d->f, &rec)) > 0) {
		for (k = 0; k < n; k++) {
			const struct hwtimer_expiry *r = &rec[k];
			uint64_t late;

			if (r->cookie >= UINT64_MAX - NPERIODIC) {
				d->periodic_records++;
				d->overruns += r->overrun;
				continue;
			}
			if (r->cookie >= d->n || d->state[r->cookie] != ARMED ||
			    d->arm[r->cookie].id != r->id) {
				fprintf(stderr, "unexpected record: id %" PRIu64 " cookie %" PRIu64 "\n",
					(uint64_t)r->id, (uint64_t)r->cookie);
				d->bad++;
				continue;
			}
			d->state[r->cookie] = FIRED;
			d->fired++;
			if (r->expired_ns < r->deadline_ns) {
				d->early++;
				continue;
			}
			late = r->expired_ns - r->deadline_ns;
			d->late_sum += late;
			if (late > d->max_late)
				d->max_late = late;
			d->hist[bucket(late, d->tick)]++;
		}
		hwtimer_file_advance(d->f, n);
	}
	if (n < 0)
		die("hwtimer_file_peek", -n);
}

static void report(const struct demo *d, uint64_t elapsed)
{
	unsigned int i;

	printf("\nran for %.2f s\n%-10s %" PRIu64 "\n", elapsed / 1e9, "armed", d->armed);
	printf("%-10s %" PRIu64 " (%" PRIu64 " of them had expired, unread)\n",
	       "cancelled", d->cancelled, d->cancel_expired);
	printf("%-10s %" PRIu64 "\n%-10s %" PRIu64 "\n", "fired", d->fired, "early", d->early);
	printf("%-10s %" PRIu64 " records, %" PRIu64 " overruns (%u timeouts, %" PRIu64
	       " ms period)\n", "periodic", d->periodic_records, d->overruns, NPERIODIC,
	       PERIOD_NS / 1000000);
	printf("\nlateness in ticks of %" PRIu64 " us (expiry - deadline):\n", d->tick / 1000);
	for (i = 0; i < BUCKETS; i++) {
		unsigned int bar = d->fired ? (unsigned int)(d->hist[i] * 50 / d->fired) : 0;

		printf("  %6s %8" PRIu64 " %5.1f%% ", bucket_name[i], d->hist[i],
		       d->fired ? 100.0 * d->hist[i] / d->fired : 0.0);
		while (bar--)
			putchar('#');
		putchar('\n');
	}
	if (d->fired)
		printf("mean %.1f us, max %.1f us late\n", d->late_sum / 1e3 / d->fired,
		       d->max_late / 1e3);
}

int main(int argc, char **argv)
{
	unsigned int cancel_pct = 20, max_delay_ms = 200, ring = 4096, next = 0, i;
	struct hwtimer_arm_entry per[NPERIODIC];
	struct hwtimer_cancel_entry stop[NPERIODIC];
	struct epoll_event ev = { .events = EPOLLIN };
	struct demo d = { .n = 10000 };
	struct hwtimer_info info;
	uint64_t t0, give_up;
	int ep, opt, err;

	while ((opt = getopt(argc, argv, "n:c:d:r:h")) != -1) {
		switch (opt) {
		case 'n':
			d.n = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			cancel_pct = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			max_delay_ms = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			ring = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n timeouts] [-c cancel-percent] [-d max-delay-ms] [-r ring-entries]\n",
				argv[0]);
			return 2;
		}
	}
	if (!d.n || cancel_pct > 100 || !max_delay_ms) {
		fprintf(stderr, "hwtimer-demo: bad arguments\n");
		return 2;
	}

	d.f = hwtimer_file_open(NULL, 0);
	if (!d.f)
		die("hwtimer_file_open", errno);
	err = hwtimer_file_info(d.f, &info);
	if (err)
		die("hwtimer_file_info", -err);
	d.tick = info.tick_ns;
	printf("hwtimer capabilities %#x: tick %" PRIu64 " ns, %u slots (precision %u), file cap %" PRIu64
	       ", user cap %" PRIu64 ", global cap %" PRIu64 "\n", info.features,
	       d.tick, info.slots, info.precision, (uint64_t)info.file_cap,
	       (uint64_t)info.user_cap, (uint64_t)info.global_cap);
	/* A ring, where the module has rings; else records come by read(). */
	err = ring ? hwtimer_file_setup_ring(d.f, ring) : -EOPNOTSUPP;
	if (err && err != -EOPNOTSUPP)
		die("hwtimer_file_setup_ring", -err);
	if (hwtimer_file_ring_entries(d.f))
		printf("records in a ring of %u\n", hwtimer_file_ring_entries(d.f));
	else
		printf("records by read() (%s)\n", ring ? "the module has no ring" : "-r 0");
	printf("arming %u one-shot timeouts, delays 0-%u ms (a tenth due at once), cancelling %u%%, and %u periodic ones\n",
	       d.n, max_delay_ms, cancel_pct, NPERIODIC);

	d.arm = calloc(d.n, sizeof(*d.arm));
	d.state = calloc(d.n, 1);
	if (!d.arm || !d.state)
		die("calloc", errno);
	srand(1);
	for (i = 0; i < d.n; i++) {
		d.arm[i].cookie = i;
		if (i % 10)
			d.arm[i].expires_ns = (uint64_t)(rand() % (max_delay_ms * 1000)) * 1000;
	}

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, hwtimer_file_fd(d.f), &ev))
		die("epoll", errno);

	memset(per, 0, sizeof(per));
	for (i = 0; i < NPERIODIC; i++) {
		per[i].cookie = UINT64_MAX - i;
		per[i].expires_ns = PERIOD_NS;
		per[i].period_ns = PERIOD_NS < d.tick ? d.tick : PERIOD_NS;
	}
	t0 = now_ns();
	err = hwtimer_file_arm_batch(d.f, per, NPERIODIC, 0, NULL);
	if (err)
		die("hwtimer_file_arm_batch (periodic)", -err);

	give_up = t0 + (uint64_t)max_delay_ms * 1000000 + (uint64_t)60 * 1000000000;
	while ((next < d.n || d.fired + d.cancelled < d.armed) && now_ns() < give_up) {
		if (next < d.n) {
			unsigned int count = d.n - next < CHUNK ? d.n - next : CHUNK;

			arm_chunk(&d, next, count, cancel_pct);
			next += count;
		}
		/* Do not block while there is arming left to do. */
		if (epoll_wait(ep, &ev, 1, next < d.n ? 0 : 1000) > 0)
			drain(&d);
	}

	show_periodic(&d, per);
	for (i = 0; i < NPERIODIC; i++)
		stop[i] = (struct hwtimer_cancel_entry){ .id = per[i].id };
	err = hwtimer_file_cancel_batch(d.f, stop, NPERIODIC, 0, NULL);
	if (err)
		die("hwtimer_file_cancel_batch (periodic)", -err);
	report(&d, now_ns() - t0);

	close(ep);
	hwtimer_file_close(d.f);
	if (d.early || d.bad || d.refused || d.fired + d.cancelled != d.armed) {
		printf("FAIL: %" PRIu64 " early, %" PRIu64 " refused, %" PRIu64
		       " unexpected, %" PRIu64 " unaccounted\n", d.early, d.refused, d.bad,
		       d.armed - d.fired - d.cancelled);
		return 1;
	}
	printf("OK: every timeout fired or was cancelled exactly once, none early\n");
	return 0;
}
