/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the user-space stress programs of stress/: TAP output
 * (through kselftest.h) and the kernel's slab files. The device's path, the
 * clock, the device's ioctls and sysfs files come from
 * tools/include/hwtimer_user.h, as for the tests and the bench. Static
 * programs, built 64-bit and (some) -m32.
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

#include "hwtimer_user.h"
#include "kselftest.h"

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

/*
 * Objects of the device's timeout cache in use, exact: the cache's per-CPU
 * slabs are flushed first (the guest boots with slub_nomerge, so the cache
 * is hwtimer's alone). -1 if the kernel does not say.
 */
static inline long ht_slab_objects(void)
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
