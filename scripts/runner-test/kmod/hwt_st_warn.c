// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: loads fine but hits WARN_ON(1). The runner must
 * fail the run on the WARNING in the kernel log, whatever the tests said.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init hwt_st_warn_init(void)
{
	WARN_ON(1);
	return 0;
}

static void __exit hwt_st_warn_exit(void)
{
}

module_init(hwt_st_warn_init);
module_exit(hwt_st_warn_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: WARN_ON(1) at load");
