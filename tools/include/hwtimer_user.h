/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space helpers every test, stress and bench program of this tree
 * shares: the device's path, the clock, sleeping, opening the device, its
 * INFO and batch ioctls, reading and writing sysfs, procfs and cgroup
 * files, the device's allocation counters, forking workers, command-line
 * options, and TAP through kselftest.h for the programs that do not use
 * the kselftest harness.
 * Static inline only; builds 64-bit and -m32 with -Werror. Not installed,
 * not part of the ABI (that is include/uapi/linux/hwtimer.h);
 * tools/hwtimer-demo.c, the example for readers, does not use it.
 *
 * The functions are ht_*(), never hwt_*(): TEST_F(hwt, name) in the
 * kselftest harness defines a function hwt_name. They return 0 or a
 * negative errno value, so callers compare errors directly.
 */
#ifndef HWTIMER_USER_H
#define HWTIMER_USER_H

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>
#include <linux/hwtimer.h>

#include "kselftest.h"

#define HWT_DEV		"/dev/hwtimer"
#define HWT_PARAMS	"/sys/module/hwtimer/parameters/"
#define MS		1000000ULL
#define SEC		1000000000ULL

/* The capability bits of hwtimer 1.0: every one this header defines. */
#define HWT_FEATURES	(HWTIMER_FEAT_RING | HWTIMER_FEAT_GET | HWTIMER_FEAT_CONFIG | \
			 HWTIMER_FEAT_SLACK)

/* CLOCK_MONOTONIC in ns, the clock the device's deadlines are on by default. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/*
 * i386 glibc makes the 32-bit time_t system calls whenever the values fit,
 * and a kernel without CONFIG_COMPAT_32BIT_TIME has none of them (nor the
 * futex call that threads contending for a lock need). Sleep with the
 * time64 call, which every compat kernel has, and let the tests that need
 * threads or select() check for the others.
 */
#ifdef __i386__
static inline void sleep_ns(uint64_t ns)
{
	struct { int64_t sec, nsec; } ts = {
		.sec = ns / 1000000000ULL,
		.nsec = ns % 1000000000ULL,
	};

	while (syscall(SYS_clock_nanosleep_time64, CLOCK_MONOTONIC, 0, &ts, &ts) &&
	       errno == EINTR)
		;
}

static inline bool have_time32_syscalls(void)
{
	int word = 0;

	return syscall(SYS_futex, &word, FUTEX_WAKE, 1, NULL, NULL, 0) >= 0 ||
	       errno != ENOSYS;
}
#else
static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static inline bool have_time32_syscalls(void)
{
	return true;
}
#endif

/* open() the device read-write, close-on-exec, with extra @flags. */
static inline int ht_open(int flags)
{
	return open(HWT_DEV, O_RDWR | O_CLOEXEC | flags);
}

/* HWTIMER_IOC_INFO into *@info (poisoned first): 0 or -errno. */
static inline int ht_info(int fd, struct hwtimer_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, HWTIMER_IOC_INFO, info) ? -errno : 0;
}

/*
 * One batch ioctl (@cmd is HWTIMER_IOC_ARM, _CANCEL, _MODIFY or _GET) over
 * @count entries. Returns 0 or -errno; *done and *failed (if not NULL) get
 * the counters the kernel wrote back (0xdeadbeef where it wrote none).
 */
static inline int ht_batch(int fd, unsigned long cmd, void *entries, uint32_t count,
			   uint32_t flags, uint32_t *done, uint32_t *failed)
{
	struct hwtimer_batch b = {
		.entries = (uintptr_t)entries,
		.count = count,
		.flags = flags,
		.done = 0xdeadbeef,
		.failed = 0xdeadbeef,
	};
	int ret = ioctl(fd, cmd, &b) ? -errno : 0;

	if (done)
		*done = b.done;
	if (failed)
		*failed = b.failed;
	return ret;
}

/* The global count of timeouts of all open files, -1 if it cannot be read. */
static inline long ht_global_count(void)
{
	struct hwtimer_info info;
	int fd = ht_open(0);
	long n = -1;

	if (fd < 0)
		return -1;
	if (!ht_info(fd, &info))
		n = (long)info.global_count;
	close(fd);
	return n;
}

/* Write @val to the file @path (sysfs, procfs, cgroupfs): 0 or -errno. */
static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* The number at the start of the file @path (strtol() base 0), -1 if none. */
static inline long read_long(const char *path)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 0);
}

/* The module's caps that a benchmark raises: file_cap, user_cap, global_cap. */
static inline const char *ht_cap_name(unsigned int i)
{
	static const char *const names[] = { "file_cap", "user_cap", "global_cap" };

	return names[i];
}

/* Each cap's value before ht_caps_raise() changed it, -1 if it did not. */
static inline long *ht_caps_saved(void)
{
	static long saved[3] = { -1, -1, -1 };

	return saved;
}

static inline void ht_caps_restore(void)
{
	char path[128], val[32];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (ht_caps_saved()[i] < 0)
			continue;
		snprintf(path, sizeof(path), HWT_PARAMS "%s", ht_cap_name(i));
		snprintf(val, sizeof(val), "%ld", ht_caps_saved()[i]);
		if (write_file(path, val))
			fprintf(stderr, "cannot restore %s to %s\n", path, val);
	}
}

/*
 * Raise the module's caps (root) so that one file holds @need timeouts and
 * the user's files, and all files, twice that (the run's other file); print
 * "I <tag>_raised_<cap> <value>" for each cap raised, and give them back at
 * exit. Exits if a cap cannot be raised.
 */
static inline void ht_caps_raise(unsigned long need, const char *tag)
{
	char path[128], val[32];
	unsigned int i;
	long v;

	for (i = 0; i < 3; i++) {
		unsigned long want = need * (i ? 2 : 1);

		snprintf(path, sizeof(path), HWT_PARAMS "%s", ht_cap_name(i));
		v = read_long(path);
		if (v < 0 || (unsigned long)v >= want)
			continue;
		snprintf(val, sizeof(val), "%lu", want);
		if (write_file(path, val)) {
			fprintf(stderr, "cannot raise %s from %ld to %s (root?)\n", path, v, val);
			exit(1);
		}
		if (ht_caps_saved()[i] < 0)
			ht_caps_saved()[i] = v;
		printf("I %s_raised_%s %s\n", tag, ht_cap_name(i), val);
	}
	atexit(ht_caps_restore);
}

/*
 * The number after @key in the last line of the file @path that starts with
 * @key, which includes its separator ("slab " in memory.stat, "pending:" in
 * fdinfo); -1 if no line does.
 */
static inline long long read_key(const char *path, const char *key)
{
	size_t len = strlen(key);
	long long v = -1;
	char line[256];
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len))
			v = strtoll(line + len, NULL, 10);
	fclose(f);
	return v;
}

#define __printf(a, b)	__attribute__((__format__(__printf__, a, b)))

/*
 * TAP through kselftest.h: a plan, one result a check, comments. stdout is
 * made line-buffered first, so that a program that forks does not hand a
 * half-written buffer to its children (which would print it again).
 */
static inline void tap_plan(unsigned int n)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	ksft_print_header();
	ksft_set_plan(n);
}

/*
 * Format a message and hand it, with a newline, to one of kselftest's
 * printers: a result (tap(): ok or not ok as @pass says, and @pass is its
 * value; tap_skip()) or a comment (diag()).
 */
static inline __printf(2, 3)
void tap_print(void (*print)(const char *, ...), const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	print("%s\n", msg);
}

#define tap(pass, ...) ({						\
	bool __pass = (pass);						\
	tap_print(__pass ? ksft_test_result_pass : ksft_test_result_fail,	\
		  __VA_ARGS__);						\
	__pass;								\
})
#define tap_skip(...)	tap_print(ksft_test_result_skip, __VA_ARGS__)
#define diag(...)	tap_print(ksft_print_msg, __VA_ARGS__)

/* Fork a child that exits with the value of @expr: its pid, or -1, said. */
#define fork_child(expr) ({						\
	pid_t __pid = fork();						\
	if (__pid < 0)							\
		perror("fork");						\
	else if (!__pid)						\
		_exit(expr);						\
	__pid;								\
})

/* The exit status: 1 if any check failed, else 0. */
static inline int tap_status(void)
{
	return ksft_get_fail_cnt() ? 1 : 0;
}

/*
 * Command-line options, as a table that ht_getopt() runs getopt() over:
 *
 *	HT_OPT_NUM(letter, variable, name, min, max)	a number from min to max
 *	HT_OPT_STR(letter, variable, name)		a const char *
 *	HT_OPT_FLAG(letter, variable)			a bool set by the option
 *
 * where name is the argument's name in the usage line. A number's variable
 * may be an int, an unsigned int, an unsigned long or an unsigned long long
 * (so uint64_t, in both builds): its type says how it is stored, and one of
 * another type does not compile. The table ends with { 0 }.
 */
enum ht_arg_type {
	HT_ARG_NONE,
	HT_ARG_STR,
	HT_ARG_INT,
	HT_ARG_UINT,
	HT_ARG_ULONG,
	HT_ARG_ULLONG,
};

struct ht_opt {
	char letter;
	enum ht_arg_type type;
	void *var;
	const char *name;
	unsigned long long min, max;
};

#define HT_OPT_NUM(letter, var, name, min, max)				\
	{ letter, _Generic((var), int : HT_ARG_INT, unsigned int : HT_ARG_UINT,	\
			   unsigned long : HT_ARG_ULONG,		\
			   unsigned long long : HT_ARG_ULLONG),	\
	  &(var), name, min, max }
#define HT_OPT_STR(letter, var, name)					\
	{ letter, _Generic((var), const char * : HT_ARG_STR), &(var), name, 0, 0 }
#define HT_OPT_FLAG(letter, var)					\
	{ letter, _Generic((var), bool : HT_ARG_NONE), &(var), NULL, 0, 0 }

/*
 * getopt() over @opts: sets each option's variable, a number only if the
 * whole argument is one within the option's range (read as strtoull() reads
 * it with base 0: decimal, hex after 0x, octal after a leading 0).
 * Returns 0, or -1 after saying what was wrong and printing a usage line
 * made from the table (the caller exits with 2).
 */
static inline int ht_getopt(int argc, char **argv, const struct ht_opt *opts)
{
	const struct ht_opt *o;
	unsigned long long v;
	char optstr[64], *end;
	size_t len = 0;
	int c;

	for (o = opts; o->letter && len + 3 < sizeof(optstr); o++) {
		optstr[len++] = o->letter;
		if (o->type != HT_ARG_NONE)
			optstr[len++] = ':';
	}
	optstr[len] = '\0';
	while ((c = getopt(argc, argv, optstr)) != -1) {
		for (o = opts; o->letter && o->letter != c; o++)
			;
		if (!o->letter)
			goto usage;
		if (o->type == HT_ARG_NONE) {
			*(bool *)o->var = true;
			continue;
		}
		if (o->type == HT_ARG_STR) {
			*(const char **)o->var = optarg;
			continue;
		}
		errno = 0;
		v = strtoull(optarg, &end, 0);
		if (errno || end == optarg || *end || *optarg == '-' || v < o->min || v > o->max) {
			fprintf(stderr, "%s: -%c %s: not a number from %llu to %llu\n",
				argv[0], c, optarg, o->min, o->max);
			goto usage;
		}
		if (o->type == HT_ARG_INT)
			*(int *)o->var = v;
		else if (o->type == HT_ARG_UINT)
			*(unsigned int *)o->var = v;
		else if (o->type == HT_ARG_ULONG)
			*(unsigned long *)o->var = v;
		else
			*(unsigned long long *)o->var = v;
	}
	if (optind == argc)
		return 0;
usage:
	fprintf(stderr, "usage: %s", argv[0]);
	for (o = opts; o->letter; o++) {
		if (o->name)
			fprintf(stderr, " [-%c %s]", o->letter, o->name);
		else
			fprintf(stderr, " [-%c]", o->letter);
	}
	fprintf(stderr, "\n");
	return -1;
}

/*
 * What /dev/hwtimer has allocated for all its files, exact: slot chunks,
 * extra arrays, directory leaves, rings and ring pages together, from
 * debugfs (hwtimer/device). Back to its baseline once the files that
 * allocated it are closed. -1 if it cannot be read (no debugfs, not root).
 */
static inline long ht_dev_objects(void)
{
	static const char *const keys[] = {
		"chunks:", "extras:", "leaves:", "rings:", "ring_pages:",
	};
	long long v, sum = 0;
	unsigned int k;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		v = read_key("/sys/kernel/debug/hwtimer/device", keys[k]);
		if (v < 0)
			return -1;
		sum += v;
	}
	return sum;
}

#endif /* HWTIMER_USER_H */
