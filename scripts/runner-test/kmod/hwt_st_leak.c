// SPDX-License-Identifier: GPL-2.0
/*
 * Runner self-test fixture: leaks two allocations at load, each holding
 * the same text. The runner must fail the run on kmemleak's "unreferenced
 * object" report of either.
 *
 * One is 200 bytes from a kmalloc cache, one 16 KiB, more than the largest
 * kmalloc cache (8 KiB), from the page allocator: each kernel reliably
 * reports one of them. 6.12-rt's boots did not report the 16 KiB one (two
 * runs of two, cause not found; its 200 bytes had always been reported),
 * and 7.3 does not report the 200 bytes. A slab object is not reliably
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
 * So init scrubs the stack below its frame before it returns.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define HWT_ST_LEAK_SMALL	200
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

static const char hwt_st_text[] = "hwtimer runner self-test: leaked on purpose";

/* A leaked allocation of @size, or false. */
static noinline bool hwt_st_leak(size_t size)
{
	char *p = kmalloc(size, GFP_KERNEL);

	if (!p)
		return false;
	strscpy(p, hwt_st_text, size);
	return true;
}

static int __init hwt_st_leak_init(void)
{
	if (!hwt_st_leak(HWT_ST_LEAK_SMALL) || !hwt_st_leak(HWT_ST_LEAK_SIZE))
		return -ENOMEM;
	/* The only pointers to them died above; now their copies below. */
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
