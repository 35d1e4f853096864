/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/hwtimer: the user memory of a batch, pinned for a hold of the file
 * lock (hwtimer_dev_pin.c). A pinned page cannot fault, so each entry is
 * copied in, acted on and its outputs written back under one hold, whatever
 * another thread does to the memory meanwhile. The copies are inline: a
 * batch makes two or three per entry.
 */
#ifndef _HWTIMER_DEV_PIN_H
#define _HWTIMER_DEV_PIN_H

#include <linux/highmem.h>
#include <linux/mm.h>

#include "hwtimer_dev.h"

/* The most pages HWTD_HOLD_MAX entries of the largest kind can span. */
#define HWTD_PIN_PAGES	(DIV_ROUND_UP(HWTD_HOLD_MAX * sizeof(struct hwtimer_get_entry), \
				      PAGE_SIZE) + 1)

/**
 * struct hwtd_upages - user memory pinned for a hold of the file lock
 * @uaddr: the user address of its first byte that matters
 * @start: @uaddr's page
 * @npages: pages pinned from @start
 * @writable: bit i set: page i is pinned for writing (the others for
 *            reading only: read-only mappings, the zero page...)
 * @pages: the pages
 * @kaddr: without CONFIG_HIGHMEM, their kernel addresses, found once when
 *         they are pinned rather than at each entry's copies (on a
 *         SPARSEMEM kernel without VMEMMAP, page_address() is three
 *         dependent loads)
 */
struct hwtd_upages {
	unsigned long	uaddr;
	unsigned long	start;
	int		npages;
	unsigned long	writable;
	struct page	*pages[HWTD_PIN_PAGES];
	void		*kaddr[HWTD_PIN_PAGES];
};

static_assert(HWTD_PIN_PAGES <= BITS_PER_LONG);

size_t hwtd_pin(struct hwtd_upages *up, unsigned long uaddr, size_t len);

/* Whether every page hwtd_pin() pinned is pinned for writing. */
static inline bool hwtd_up_all_writable(const struct hwtd_upages *up)
{
	return up->writable == BIT(up->npages) - 1;
}

bool hwtd_up_writable(const struct hwtd_upages *up, size_t off, size_t len);
void hwtd_unpin(struct hwtd_upages *up);
void __hwtd_up_copy(struct hwtd_upages *up, size_t pos, void *buf, size_t len, bool out);

/*
 * Copy @n bytes at @pos of the pinned pages (from @up->start), all within
 * one page, to (@out) or from @buf. Return: false, with nothing copied,
 * when that page is not pinned, or not for writing when @out (the zero
 * page...).
 */
static __always_inline bool hwtd_page_copy(struct hwtd_upages *up, size_t pos, void *buf,
					   size_t n, bool out)
{
	unsigned int i = pos >> PAGE_SHIFT;
	char *k;

	if (i >= up->npages || (out && !(up->writable & BIT(i))))
		return false;
	if (IS_ENABLED(CONFIG_HIGHMEM))
		k = kmap_local_page(up->pages[i]);
	else
		k = up->kaddr[i];
	k += offset_in_page(pos);
	if (out)
		memcpy(k, buf, n);
	else
		memcpy(buf, k, n);
	if (IS_ENABLED(CONFIG_HIGHMEM))
		kunmap_local(k);
	return true;
}

/*
 * Copy @len bytes at offset @off of the pinned range to (@out) or from
 * @buf. Inline for the common case: bytes within one page, whose @len is
 * a constant in each operation's copy of hwtd_batch(), copied with a few
 * moves.
 */
static __always_inline void hwtd_up_copy(struct hwtd_upages *up, size_t off, void *buf,
					 size_t len, bool out)
{
	size_t pos = up->uaddr - up->start + off;

	if (likely(offset_in_page(pos) + len <= PAGE_SIZE) &&
	    likely(hwtd_page_copy(up, pos, buf, len, out)))
		return;
	__hwtd_up_copy(up, pos, buf, len, out);
}

#endif /* _HWTIMER_DEV_PIN_H */
