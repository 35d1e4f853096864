// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: pinning the user memory of a batch (hwtimer_dev_pin.h).
 * The pages holding the next HWTD_HOLD_MAX entries and the batch header are
 * pinned before the file lock is taken (pin_user_pages_fast(): short-term,
 * as an O_DIRECT read), each for writing where it is writable, and copied
 * through the kernel's mapping of them under the lock.
 */
#include <linux/bug.h>
#include <linux/highmem.h>
#include <linux/mm.h>

#include "hwtimer_dev_pin.h"

/*
 * Pin the pages of the @len bytes at @uaddr (@len at most what
 * HWTD_PIN_PAGES pages hold), each for writing where it is writable, else
 * for reading where it is readable, up to the first page that is neither.
 * All at once for writing first: the common case, one call. Return: how
 * many bytes from @uaddr can be read; hwtd_up_writable() tells which can
 * be written. Fewer than @len where a page is not mapped, not accessible,
 * or not memory the kernel can pin.
 */
size_t hwtd_pin(struct hwtd_upages *up, unsigned long uaddr, size_t len)
{
	int n, got;

	up->uaddr = uaddr;
	up->start = uaddr & PAGE_MASK;
	n = DIV_ROUND_UP(uaddr + len - up->start, PAGE_SIZE);
	if (WARN_ON_ONCE(n > HWTD_PIN_PAGES))
		n = HWTD_PIN_PAGES;
	got = max(pin_user_pages_fast(up->start, n, FOLL_WRITE, up->pages), 0);
	up->writable = BIT(got) - 1;
	for (up->npages = got; up->npages < n; up->npages++) {
		unsigned long addr = up->start + ((unsigned long)up->npages << PAGE_SHIFT);
		struct page **page = &up->pages[up->npages];

		if (pin_user_pages_fast(addr, 1, FOLL_WRITE, page) == 1)
			up->writable |= BIT(up->npages);
		else if (pin_user_pages_fast(addr, 1, 0, page) != 1)
			break;
	}
	if (!IS_ENABLED(CONFIG_HIGHMEM))
		for (n = 0; n < up->npages; n++)
			up->kaddr[n] = page_address(up->pages[n]);
	if (!up->npages)
		return 0;
	return min(len, up->start + ((size_t)up->npages << PAGE_SHIFT) - up->uaddr);
}

/* Whether the @len bytes at offset @off of the pinned range can be written. */
bool hwtd_up_writable(const struct hwtd_upages *up, size_t off, size_t len)
{
	size_t pos = up->uaddr - up->start + off;
	unsigned int first = pos >> PAGE_SHIFT, last = (pos + len - 1) >> PAGE_SHIFT;

	if (last >= up->npages)
		return false;
	return (up->writable & GENMASK(last, first)) == GENMASK(last, first);
}

void hwtd_unpin(struct hwtd_upages *up)
{
	int i;

	if (hwtd_up_all_writable(up)) {
		unpin_user_pages_dirty_lock(up->pages, up->npages, true);
	} else {
		for (i = 0; i < up->npages; i++)
			unpin_user_pages_dirty_lock(&up->pages[i], 1, up->writable & BIT(i));
	}
	up->npages = 0;
	up->writable = 0;
}

/* hwtd_up_copy() of bytes that span pages: a page at a time. */
void __hwtd_up_copy(struct hwtd_upages *up, size_t pos, void *buf,
		    size_t len, bool out)
{
	while (len) {
		size_t n = min(len, PAGE_SIZE - offset_in_page(pos));

		if (WARN_ON_ONCE(!hwtd_page_copy(up, pos, buf, n, out)))
			return;
		pos += n;
		buf += n;
		len -= n;
	}
}

