/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What libhwtimer's tests (lib_test.c against the device, lib_mock_test.c
 * against a mock of its system calls) both check. Include after
 * kselftest_harness.h.
 */
#ifndef LIBHWTIMER_TEST_H
#define LIBHWTIMER_TEST_H

#include <errno.h>
#include <string.h>

/*
 * libhwtimer(3), "Return values": no function changes errno, whether it
 * succeeds or fails, but hwtimer_file_open() when it fails. @call runs
 * with errno at a value no call sets, and must leave it there.
 */
#define ERRNO_MARK	4242

#define EXPECT_KEEPS_ERRNO(expected, call)					\
	do {									\
		long __ret;							\
		int __err;							\
										\
		errno = ERRNO_MARK;						\
		__ret = (long)(call);						\
		__err = errno;							\
		EXPECT_EQ((long)(expected), __ret) TH_LOG("%s returned %ld", #call, __ret); \
		EXPECT_EQ(ERRNO_MARK, __err)					\
			TH_LOG("%s returned %ld and changed errno to %d (%s)",	\
			       #call, __ret, __err, strerror(__err));		\
	} while (0)

#endif
