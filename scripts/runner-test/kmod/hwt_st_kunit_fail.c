// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a KUnit suite with one passing and one failing
 * case. The runner must report the failing case and fail the run.
 */
#include <kunit/test.h>
#include <linux/module.h>

static void hwt_st_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void hwt_st_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1 + 1, 3, "deliberate failure (runner self-test)");
}

static struct kunit_case hwt_st_fail_cases[] = {
	KUNIT_CASE(hwt_st_passes),
	KUNIT_CASE(hwt_st_fails),
	{}
};

static struct kunit_suite hwt_st_fail_suite = {
	.name = "hwt_fixture_fail",
	.test_cases = hwt_st_fail_cases,
};

kunit_test_suite(hwt_st_fail_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: a failing KUnit case");
