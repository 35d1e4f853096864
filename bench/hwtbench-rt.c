// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench-rt: how late a waiting thread wakes up for a timeout through
 * /dev/hwtimer and through a timerfd, idle and with CPU-bound threads
 * competing, in one run (on PREEMPT_RT both expire in the softirq
 * thread, which the competing threads delay).
 *
 *   hwtbench-rt [-n rounds] [-d max_delay_us] [-p fifo_priority] [-r reps]
 *
 * A waiter thread, pinned to the first CPU and, with -p, SCHED_FIFO at that
 * priority (default 10, as an RT user runs the thread that waits for a
 * deadline; -p 0 is SCHED_OTHER), takes turns between the two: it arms
 * one timeout for an absolute deadline a random delay of max_delay/10 to
 * max_delay ahead (default 1 to 10 ms), blocks in read() until it expires
 * and reads the clock: the lateness is that time minus the deadline. On
 * the device the timeout is one HWTIMER_IOC_ARM entry (HWTIMER_TIMEOUT_ABS)
 * and the read returns its record; on the timerfd it is
 * timerfd_settime(TFD_TIMER_ABSTIME) and the read returns the expiry count.
 *
 * Phase "idle" runs the rounds with nothing else to do; phase "loaded"
 * with one busy-looping SCHED_OTHER thread pinned to each CPU (the
 * waiter's included). Each phase is repeated -r times (default 3); each
 * figure is printed as "R wake_<phase> <facility> <rounds> <metric> ns
 * median min max reps" over the repetitions, as hwtbench.ko prints its
 * own, for bench/report.pl, which sets the RT target: on PREEMPT_RT the
 * device's p99 lateness at most timerfd's plus one tick of the device's
 * wheel ("I wake_tick_ns").
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/timerfd.h>

#include "hwtimer_user.h"

enum { F_HWT, F_TFD, NR_F };
static const char *const fname[NR_F] = { "hwtimer", "timerfd" };

static unsigned int rounds = 2000, max_delay_us = 10000, prio = 10, reps = 3;
static atomic_bool hogs_stop;

static void die(const char *what)
{
	fprintf(stderr, "hwtbench-rt: %s: %s\n", what, strerror(errno));
	printf("E hwtbench-rt: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static void *hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 0 };
	volatile unsigned long spin = 0;

	/* Threads inherit the creator's policy: the waiter's SCHED_FIFO. */
	errno = pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (errno)
		die("pthread_setschedparam");
	pin((unsigned long)arg);
	while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed))
		spin++;
	return NULL;
}

static uint64_t rnd_state = 0x6877746d72740001ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* One timeout through @f: its lateness in ns (negative: early). */
static int64_t one(int f, int fd, uint64_t delay)
{
	uint64_t deadline = now_ns() + delay, woke;

	if (f == F_HWT) {
		struct hwtimer_arm_entry arm = {
			.expires_ns = deadline,
			.flags = HWTIMER_TIMEOUT_ABS,
		};
		struct hwtimer_expiry rec;

		if (ht_batch(fd, HWTIMER_IOC_ARM, &arm, 1, 0, NULL, NULL) || arm.result)
			die("HWTIMER_IOC_ARM");
		if (read(fd, &rec, sizeof(rec)) != sizeof(rec))
			die("read /dev/hwtimer");
		woke = now_ns();
	} else {
		struct itimerspec its = {
			.it_value = { .tv_sec = deadline / SEC, .tv_nsec = deadline % SEC },
		};
		uint64_t n;

		if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd_settime");
		if (read(fd, &n, sizeof(n)) != sizeof(n))
			die("read timerfd");
		woke = now_ns();
	}
	return (int64_t)(woke - deadline);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* "R group facility n metric unit median min max reps" over @v[0..reps). */
static void result(const char *group, int f, const char *metric, const char *unit,
		   double *v)
{
	double s[64];
	unsigned int i;

	for (i = 0; i < reps; i++)
		s[i] = v[i];
	qsort(s, reps, sizeof(s[0]), cmp_dbl);
	printf("R %s %s %u %s %s %.3f %.3f %.3f %u\n", group, fname[f], rounds, metric,
	       unit, reps & 1 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2, s[0],
	       s[reps - 1], reps);
}

static void phase(const char *group, int fds[NR_F], unsigned int nhogs)
{
	static double p50[NR_F][64], p99[NR_F][64], mx[NR_F][64], early[NR_F][64];
	pthread_t th[256];
	int64_t *late[NR_F];
	unsigned int r, i, f;

	for (f = 0; f < NR_F; f++) {
		late[f] = calloc(rounds, sizeof(*late[f]));
		if (!late[f])
			die("calloc");
	}
	atomic_store(&hogs_stop, false);
	for (i = 0; i < nhogs; i++)
		if (pthread_create(&th[i], NULL, hog, (void *)(unsigned long)i))
			die("pthread_create");
	for (r = 0; r < reps; r++) {
		for (i = 0; i < rounds; i++) {
			uint64_t lo = max_delay_us * 100ULL, hi = max_delay_us * 1000ULL;

			/* Alternate which goes first, so neither always follows the other. */
			for (f = 0; f < NR_F; f++) {
				unsigned int g = (f + i) % NR_F;

				late[g][i] = one(g, fds[g], lo + rnd() % (hi - lo + 1));
			}
		}
		for (f = 0; f < NR_F; f++) {
			qsort(late[f], rounds, sizeof(late[f][0]), cmp64);
			p50[f][r] = late[f][rounds / 2];
			p99[f][r] = late[f][rounds * 99 / 100];
			mx[f][r] = late[f][rounds - 1];
			early[f][r] = 0;
			for (i = 0; i < rounds && late[f][i] < 0; i++)
				early[f][r]++;
		}
	}
	atomic_store(&hogs_stop, true);
	for (i = 0; i < nhogs; i++)
		pthread_join(th[i], NULL);
	for (f = 0; f < NR_F; f++) {
		result(group, f, "p50", "ns", p50[f]);
		result(group, f, "p99", "ns", p99[f]);
		result(group, f, "max", "ns", mx[f]);
		result(group, f, "early", "timeouts", early[f]);
		free(late[f]);
	}
}

int main(int argc, char **argv)
{
	const struct ht_opt opts[] = {
		HT_OPT_NUM('n', rounds, "rounds", 100, 10000000),
		HT_OPT_NUM('d', max_delay_us, "max_delay_us", 10, 10000000),
		HT_OPT_NUM('p', prio, "fifo_priority", 0, 99),
		HT_OPT_NUM('r', reps, "reps", 1, 63),
		{ 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct hwtimer_info info;
	int fds[NR_F];

	if (ht_getopt(argc, argv, opts))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fds[F_HWT] = ht_open(0);
	if (fds[F_HWT] < 0)
		die(HWT_DEV);
	if (ht_info(fds[F_HWT], &info))
		die("HWTIMER_IOC_INFO");
	fds[F_TFD] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fds[F_TFD] < 0)
		die("timerfd_create");
	pin(0);
	if (prio) {
		struct sched_param sp = { .sched_priority = prio };

		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			die("sched_setscheduler");
	}
	printf("I wake_tick_ns %llu\n", (unsigned long long)info.tick_ns);
	printf("I wake_waiter %s %u\n", prio ? "SCHED_FIFO" : "SCHED_OTHER", prio);
	printf("I wake_hogs %ld\n", ncpu);
	phase("wake_idle", fds, 0);
	phase("wake_loaded", fds, ncpu > 256 ? 256 : ncpu);
	close(fds[F_TFD]);
	close(fds[F_HWT]);
	return 0;
}
