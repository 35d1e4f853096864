/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the user-space benchmarks report a failure: an "E <BENCH_NAME>: "
 * line that bench/report.pl counts, and a non-zero exit status when main()
 * returns errors != 0. The includer defines BENCH_NAME.
 */
#ifndef BENCH_REPORT_H
#define BENCH_REPORT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errors;

static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	printf("E " BENCH_NAME ": ");
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

#endif /* BENCH_REPORT_H */
