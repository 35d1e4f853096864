// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: a clean KUnit suite, with a parameterised case
 * and a skipped case. The runner must count it and keep the run green.
 */
#include <kunit/test.h>
#include <linux/module.h>

static void hwt_st_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void hwt_st_skips(struct kunit *test)
{
	kunit_skip(test, "deliberate skip (runner self-test)");
}

static const unsigned int hwt_st_params[] = { 1, 2, 3 };

static void hwt_st_param_desc(const unsigned int *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "n=%u", *p);
}

KUNIT_ARRAY_PARAM(hwt_st, hwt_st_params, hwt_st_param_desc);

static void hwt_st_param(struct kunit *test)
{
	const unsigned int *p = test->param_value;

	KUNIT_EXPECT_GT(test, *p, 0u);
}

static struct kunit_case hwt_st_pass_cases[] = {
	KUNIT_CASE(hwt_st_passes),
	KUNIT_CASE(hwt_st_skips),
	KUNIT_CASE_PARAM(hwt_st_param, hwt_st_gen_params),
	{}
};

static struct kunit_suite hwt_st_pass_suite = {
	.name = "hwt_fixture_pass",
	.test_cases = hwt_st_pass_cases,
};

kunit_test_suite(hwt_st_pass_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: a clean KUnit suite");
