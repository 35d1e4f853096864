// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a TAP program that plans two results, reports
 * one, and dies of SIGABRT. No "not ok" line is ever printed: the runner
 * must still count it as failed, from its exit status and short plan.
 */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	printf("TAP version 13\n1..2\nok 1 before_the_crash\n");
	fflush(stdout);
	abort();
}
