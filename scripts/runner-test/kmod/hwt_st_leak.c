// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: leaks one allocation at load. The runner must
 * fail the run on kmemleak's "unreferenced object" report.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static int __init hwt_st_leak_init(void)
{
	char *p = kmalloc(200, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "hwtimer runner self-test: leaked on purpose", 200);
	/* The only pointer to it dies here. */
	return 0;
}

static void __exit hwt_st_leak_exit(void)
{
}

module_init(hwt_st_leak_init);
module_exit(hwt_st_leak_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: a memory leak");
