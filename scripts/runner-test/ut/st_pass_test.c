// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a clean kselftest program (one pass, one skip).
 */
#include "kselftest_harness.h"

TEST(passes)
{
	ASSERT_EQ(2, 1 + 1);
}

TEST(skips)
{
	SKIP(return, "deliberate skip (runner self-test)");
}

TEST_HARNESS_MAIN
