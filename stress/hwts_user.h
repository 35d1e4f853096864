/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user-space stress programs of stress/: TAP output
 * (through kselftest.h), the clock, the device's ioctls and the kernel's
 * slab and fault-injection files. Static programs, built 64-bit and (some)
 * -m32.
 */
#ifndef HWTS_USER_H
#define HWTS_USER_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/hwtimer.h>

#include "kselftest.h"

#define HWT_DEV		"/dev/hwtimer"
#define HWT_PARAMS	"/sys/module/hwtimer/parameters/"
#define MS		1000000ULL
#define SEC		1000000000ULL

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

/* Format a message and hand it, with a newline, to one of kselftest's printers. */
static inline void tap_vprint(void (*print)(const char *, ...), const char *fmt, va_list ap)
{
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	print("%s\n", msg);
}

/* A result: ok or not ok, with the message; returns @pass. */
static inline __printf(2, 3)
bool tap(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vprint(pass ? ksft_test_result_pass : ksft_test_result_fail, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __printf(1, 2)
void tap_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vprint(ksft_test_result_skip, fmt, ap);
	va_end(ap);
}

static inline __printf(1, 2)
void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vprint(ksft_print_msg, fmt, ap);
	va_end(ap);
}

/* The exit status: 1 if any check failed, else 0. */
static inline int tap_status(void)
{
	return ksft_get_fail_cnt() ? 1 : 0;
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static inline int hwt_open(int flags)
{
	return open(HWT_DEV, O_RDWR | O_CLOEXEC | flags);
}

static inline int hwt_info(int fd, struct hwtimer_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	return ioctl(fd, HWTIMER_IOC_INFO, info) ? -errno : 0;
}

/* One batch ioctl: 0 or -errno; *done and *failed as written back. */
static inline int hwt_batch(int fd, unsigned long cmd, void *entries, uint32_t count,
			    uint32_t flags, uint32_t *done, uint32_t *failed)
{
	struct hwtimer_batch b;
	int ret;

	memset(&b, 0, sizeof(b));
	b.entries = (uintptr_t)entries;
	b.count = count;
	b.flags = flags;
	b.done = 0xdeadbeef;
	b.failed = 0xdeadbeef;
	ret = ioctl(fd, cmd, &b) ? -errno : 0;
	if (done)
		*done = b.done;
	if (failed)
		*failed = b.failed;
	return ret;
}

/* The global count of timeouts of all open files, -1 if it cannot be read. */
static inline long hwt_global_count(void)
{
	struct hwtimer_info info;
	int fd = hwt_open(0);
	long n = -1;

	if (fd < 0)
		return -1;
	if (!hwt_info(fd, &info))
		n = (long)info.global_count;
	close(fd);
	return n;
}

static inline int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

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

/*
 * Objects of the device's timeout cache in use, exact: the cache's per-CPU
 * slabs are flushed first (the guest boots with slub_nomerge, so the cache
 * is hwtimer's alone). -1 if the kernel does not say.
 */
static inline long hwt_slab_objects(void)
{
	char line[512];
	long active = -1;
	FILE *f;

	write_file("/sys/kernel/slab/hwt_timeout/shrink", "1");
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "hwt_timeout ", 12)) {
			active = strtol(line + 12, NULL, 10);
			break;
		}
	}
	fclose(f);
	return active;
}

#endif /* HWTS_USER_H */
