// SPDX-License-Identifier: GPL-2.0
/*
 * hwtwake: how long the expiry softirq of /dev/hwtimer runs when N
 * timeouts of one file are due at the same tick and the file has W epoll
 * wait entries (EPS epoll instances, each watching DUPS dup()s of the
 * file, W = EPS * DUPS). A measurement for docs/security.md, not a test.
 *
 *   hwtwake N EPS DUPS [drain]
 *
 * With "drain", a second thread reads the records one at a time while they
 * expire, emptying the queue as fast as it can: the adversary that makes
 * a wakeup on every empty-to-non-empty transition as frequent as possible.
 *
 * Prints the spread of the records' expired_ns (first to last expiry) and,
 * where tracefs is there, the longest HRTIMER softirq (irq:softirq_entry to
 * irq:softirq_exit, vec 8) while the timeouts expired. Runs as root: it
 * raises RLIMIT_NOFILE and the device's caps for large N.
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include "hwtimer_user.h"

#define TRACING		"/sys/kernel/tracing/"

static int tracing_set(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "%s", file);
	return write_file(path, val);
}

/* Empty the trace buffer: opening "trace" with O_TRUNC does that. */
static void tracing_clear(void)
{
	int fd = open(TRACING "trace", O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd >= 0)
		close(fd);
}

static bool tracing_start(void)
{
	if (access(TRACING "trace", F_OK))
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);
	if (tracing_set("tracing_on", "0"))
		return false;
	tracing_clear();
	tracing_set("buffer_size_kb", "4096");
	tracing_set("events/irq/softirq_entry/filter", "vec == 8");
	tracing_set("events/irq/softirq_exit/filter", "vec == 8");
	tracing_set("events/irq/softirq_entry/enable", "1");
	tracing_set("events/irq/softirq_exit/enable", "1");
	return !tracing_set("tracing_on", "1");
}

/* The longest HRTIMER softirq in the trace, in ns; *count gets how many. */
static uint64_t tracing_stop(unsigned int *count)
{
	uint64_t entry[64] = { 0 }, longest = 0;
	char line[512];
	FILE *f;

	*count = 0;
	tracing_set("tracing_on", "0");
	f = fopen(TRACING "trace", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *cpu = strchr(line, '['), *ev = strstr(line, ": softirq_");
		unsigned long c;
		double ts;
		char *p;

		if (line[0] == '#' || !cpu || !ev)
			continue;
		c = strtoul(cpu + 1, NULL, 10);
		*ev = 0;
		p = strrchr(line, ' ');
		if (!p || c >= 64)
			continue;
		ts = strtod(p + 1, NULL);
		if (!strncmp(ev + 2, "softirq_entry", 13)) {
			entry[c] = (uint64_t)(ts * 1e9);
		} else if (entry[c]) {
			uint64_t d = (uint64_t)(ts * 1e9) - entry[c];

			if (d > longest)
				longest = d;
			if (getenv("HWTWAKE_DEBUG") && d > 1000000)
				printf("# cpu %lu: HRTIMER softirq of %llu us\n", c,
				       (unsigned long long)d / 1000);
			entry[c] = 0;
			++*count;
		}
	}
	fclose(f);
	tracing_set("events/irq/softirq_entry/enable", "0");
	tracing_set("events/irq/softirq_exit/enable", "0");
	tracing_clear();
	return longest;
}

struct drain {
	int fd;
	unsigned int want, got;
	struct hwtimer_expiry *r;
};

static void *drainer(void *arg)
{
	struct drain *d = arg;

	while (d->got < d->want) {
		ssize_t n = read(d->fd, &d->r[d->got], sizeof(d->r[0]));

		if (n == sizeof(d->r[0]))
			d->got++;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
	}
	return NULL;
}

static const char *const caps[] = {
	HWT_PARAMS "global_cap", HWT_PARAMS "user_cap", HWT_PARAMS "file_cap",
};

int main(int argc, char **argv)
{
	long old_cap[ARRAY_SIZE(caps)];
	unsigned int n, eps, dups, i, j, got = 0, nsoft = 0;
	struct epoll_event ev = { .events = EPOLLIN };
	uint64_t lo = UINT64_MAX, hi = 0, dl, longest;
	struct hwtimer_arm_entry *e;
	struct hwtimer_expiry *r;
	struct rlimit rl;
	bool drain, traced;
	struct drain d;
	pthread_t th;
	char buf[32];
	int fd, cfd;

	if (argc < 4) {
		fprintf(stderr, "usage: hwtwake N EPS DUPS [drain]\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	eps = strtoul(argv[2], NULL, 0);
	dups = strtoul(argv[3], NULL, 0);
	drain = argc > 4 && !strcmp(argv[4], "drain");

	rl.rlim_cur = rl.rlim_max = dups + eps + 64;
	if (rl.rlim_cur > 1024 && setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit");
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		old_cap[i] = read_long(caps[i]);
		snprintf(buf, sizeof(buf), "%u", 2 * n + 1024);
		if (old_cap[i] < (long)(2 * n + 1024))
			write_file(caps[i], buf);
	}

	fd = ht_open(O_NONBLOCK);
	e = calloc(HWTIMER_BATCH_MAX, sizeof(*e));
	r = calloc(n, sizeof(*r));
	if (fd < 0 || !e || !r) {
		perror("setup");
		return 1;
	}
	for (i = 0; i < dups; i++) {
		int dfd = dup(fd);

		if (dfd < 0) {
			perror("dup");
			return 1;
		}
		for (j = 0; j < eps; j++) {
			static int *ep;

			if (!ep)
				ep = calloc(eps, sizeof(*ep));
			if (!i)
				ep[j] = epoll_create1(EPOLL_CLOEXEC);
			if (ep[j] < 0 || epoll_ctl(ep[j], EPOLL_CTL_ADD, dfd, &ev)) {
				perror("epoll");
				return 1;
			}
		}
	}

	/*
	 * All due at one tick, far enough ahead to arm them all first: time
	 * the arming of one batch on a scratch file and allow three times as
	 * long per batch.
	 */
	memset(e, 0, HWTIMER_BATCH_MAX * sizeof(*e));
	for (j = 0; j < HWTIMER_BATCH_MAX; j++)
		e[j].expires_ns = 3600 * SEC;
	dl = now_ns();
	cfd = ht_open(0);
	if (cfd < 0 || ht_batch(cfd, HWTIMER_IOC_ARM, e, HWTIMER_BATCH_MAX, 0, NULL, NULL)) {
		perror("calibration");
		return 1;
	}
	close(cfd);
	dl = now_ns() + 2 * SEC + 3 * (now_ns() - dl) * (n / HWTIMER_BATCH_MAX + 1);
	for (i = 0; i < n; i += j) {
		unsigned int k = n - i < HWTIMER_BATCH_MAX ? n - i : HWTIMER_BATCH_MAX;

		memset(e, 0, k * sizeof(*e));
		for (j = 0; j < k; j++) {
			e[j].cookie = i + j;
			e[j].expires_ns = dl;
			e[j].flags = HWTIMER_TIMEOUT_ABS;
		}
		if (ht_batch(fd, HWTIMER_IOC_ARM, e, k, 0, NULL, NULL)) {
			fprintf(stderr, "arm at %u: %s\n", i, strerror(errno));
			return 1;
		}
	}
	if (now_ns() >= dl) {
		fprintf(stderr, "arming took past the deadline\n");
		return 1;
	}
	traced = tracing_start();
	if (drain) {
		d = (struct drain){ .fd = fd, .want = n, .r = r };
		pthread_create(&th, NULL, drainer, &d);
		pthread_join(th, NULL);
		got = d.got;
	} else {
		while (now_ns() < dl)
			usleep(10000);
		while (got < n) {
			ssize_t k = read(fd, r + got, (n - got) * sizeof(*r));

			if (k > 0)
				got += k / sizeof(*r);
			else if (errno == EAGAIN)
				usleep(10000);
			else
				break;
		}
	}
	longest = traced ? tracing_stop(&nsoft) : 0;
	for (i = 0; i < got; i++) {
		if (r[i].expired_ns < lo)
			lo = r[i].expired_ns;
		if (r[i].expired_ns > hi)
			hi = r[i].expired_ns;
	}
	printf("hwtwake: N=%u W=%u (%u epoll x %u dups)%s: %u records, expiry spread %llu us",
	       n, eps * dups, eps, dups, drain ? " drain" : "", got,
	       (unsigned long long)(got ? (hi - lo) / 1000 : 0));
	if (traced)
		printf(", longest HRTIMER softirq %llu us of %u",
		       (unsigned long long)longest / 1000, nsoft);
	printf("\n");
	close(fd);
	for (i = 0; i < ARRAY_SIZE(caps); i++) {
		snprintf(buf, sizeof(buf), "%ld", old_cap[i]);
		if (old_cap[i] >= 0)
			write_file(caps[i], buf);
	}
	return got == n ? 0 : 1;
}
