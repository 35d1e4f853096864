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
 *
 * Nor may a stale copy of the pointer survive on the stack: the frames of
 * kmalloc() below init's keep it after they return, and insmod's stack,
 * once it exits, is kept in the per-CPU cache of vmalloc'ed stacks
 * (cleared only when reused), which kmemleak scans like any vmalloc area.
 * 6.12-rt's boots missed the leak that way now and then. So init scrubs
 * the stack below its frame before it returns.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define HWT_ST_LEAK_SIZE	(16 * 1024)
#define HWT_ST_SCRUB_FRAME	512
#define HWT_ST_SCRUB_DEPTH	8

/* Zero 4 KiB of stack below the caller, one 512-byte frame at a time. */
static noinline void hwt_st_scrub(unsigned int depth)
{
	char buf[HWT_ST_SCRUB_FRAME];

	memzero_explicit(buf, sizeof(buf));
	if (depth > 1)
		hwt_st_scrub(depth - 1);
	/* After the call: no tail call that would reuse this frame. */
	barrier_data(buf);
}

static int __init hwt_st_leak_init(void)
{
	char *p = kmalloc(HWT_ST_LEAK_SIZE, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	strscpy(p, "hwtimer runner self-test: leaked on purpose", HWT_ST_LEAK_SIZE);
	/* The only pointer to it dies here, and its copies below. */
	hwt_st_scrub(HWT_ST_SCRUB_DEPTH);
	return 0;
}

static void __exit hwt_st_leak_exit(void)
{
}

module_init(hwt_st_leak_init);
module_exit(hwt_st_leak_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer runner self-test: a memory leak");
