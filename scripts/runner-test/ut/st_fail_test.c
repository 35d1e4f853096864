// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a kselftest program with one passing and one
 * failing test. The runner must report the failing test.
 */
#include "kselftest_harness.h"

TEST(passes)
{
	ASSERT_EQ(2, 1 + 1);
}

TEST(fails)
{
	ASSERT_EQ(3, 1 + 1)
		TH_LOG("deliberate failure (runner self-test)");
}

TEST_HARNESS_MAIN
