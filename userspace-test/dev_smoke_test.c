// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of /dev/hwtimer: the node is there, is a character device, and
 * can be opened and closed. Every test SKIPs when the device is absent, so
 * the program also runs (and says why it did nothing) on a machine without
 * the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "hwtimer_user.h"

TEST(node_is_char_device)
{
	struct stat st;

	if (stat(HWT_DEV, &st) && errno == ENOENT)
		SKIP(return, "%s does not exist (module not loaded)", HWT_DEV);
	ASSERT_EQ(0, stat(HWT_DEV, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
}

TEST(open_close)
{
	int fd = ht_open(0);

	if (fd < 0 && errno == ENOENT)
		SKIP(return, "%s does not exist (module not loaded)", HWT_DEV);
	ASSERT_LE(0, fd)
		TH_LOG("open(%s): %s", HWT_DEV, strerror(errno));
	ASSERT_EQ(0, close(fd));
}

/* Many opens at once: each file is independent and all close cleanly. */
TEST(open_many)
{
	int fds[64];
	unsigned int i;

	if (access(HWT_DEV, F_OK) && errno == ENOENT)
		SKIP(return, "%s does not exist (module not loaded)", HWT_DEV);
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = ht_open(0);
		ASSERT_LE(0, fds[i])
			TH_LOG("open #%u: %s", i, strerror(errno));
	}
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		ASSERT_EQ(0, close(fds[i]));
}

TEST_HARNESS_MAIN
