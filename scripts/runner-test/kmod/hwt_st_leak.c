// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: leaks one allocation at load. The runner must
 * fail the run on kmemleak's "unreferenced object" report.
 *
 * 16 KiB, more than the largest kmalloc cache (8 KiB), so that it comes
 * from the page allocator on every kernel. A slab object is not reliably
 * reported from 7.3 on: kmalloc caches have per-CPU sheaves there, arrays
 * of free objects' addresses, themselves kmalloc()ed and so scanned by
 * kmemleak; an allocation takes the last address of the array without
 * clearing its slot (alloc_from_pcs(), "pcs->main->size--" in
 * mm/slub.c), and that stale copy keeps the leaked object referenced
 * until the slot is reused. The 200 bytes leaked here before were never
 * reported on 7.3.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define HWT_ST_LEAK_SIZE	(16 * 1024)

static int __init hwt_st_leak_init(void)
{
	char *p = kmalloc(HWT_ST_LEAK_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "hwtimer runner self-test: leaked on purpose", HWT_ST_LEAK_SIZE);
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
