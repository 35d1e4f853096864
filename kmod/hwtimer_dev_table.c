// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: the timeout table, where a file keeps its timeouts.
 *
 * Each timeout is a 40-byte struct hwtd_timeout in memory the file owns: a
 * page-sized chunk of them (HWTD_CHUNK_TIMEOUTS, PAGE_SIZE / 40: 102 with
 * 4 KiB pages, 1638 with 64 KiB), charged to the memory cgroup of the task
 * whose call grew the table. A fixed two-level directory finds a chunk by
 * number: HWTD_DIR_LEAVES pointers in the file, HWTD_LEAF_CHUNKS chunks per
 * leaf, each with its page's address, its free list's head and counts
 * (struct hwtd_chunk), so that a timeout's lookup, allocation and free
 * touch the page only at the timeout itself. Nothing is ever reallocated
 * or copied under the file lock: chunks, leaves and extra arrays are
 * allocated with the lock dropped, as spares, and taken under it.
 *
 * Identifiers: a timeout's id is its generation (upper 32 bits) and its
 * index (lower 32). Generations start at 1, so no id is 0, and an entry's
 * generation goes up by one each time it is freed, so a stale id never
 * names a newer timeout (ABA). An entry whose generation would wrap is
 * retired, never used again: one entry lost per 2^32 reuses of it. A chunk
 * given back and allocated again starts its entries above every
 * generation that chunk number ever had (struct hwtd_leaf::floor).
 *
 * Free entries sit on per-chunk free lists; a new timeout takes one from
 * the lowest chunk that has one (two bitmaps find it), so live timeouts
 * gather in the low chunks and a file that shrinks empties its high ones.
 * The highest chunk is given back once it is empty and the chunk below it
 * is at least half free (the hysteresis keeps a file that hovers at a
 * chunk boundary from allocating and freeing a chunk per timeout); chunk
 * 0 stays until the file is closed.
 *
 * The lists the layers above keep their timeouts on (the wheel's slots,
 * the todo list of an expiry pass, the kernel queue of records) are
 * linked through the timeouts by index (hwtimer_dev_table.h).
 *
 * Everything here runs under the file lock, but hwtd_table_prealloc() and
 * hwtd_table_destroy(), which run in process context without it.
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "hwtimer_dev_table.h"

struct hwtd_table_stats hwtd_table_stats;

static_assert(sizeof(struct hwtd_timeout) == 40);
static_assert(sizeof(struct hwtd_chunk) == 24);
static_assert(HWTD_CHUNK_TIMEOUTS >= 64 && HWTD_CHUNK_TIMEOUTS < HWTD_OFF_NIL);
static_assert(sizeof(struct hwtd_leaf) <= PAGE_SIZE);
/* Indexes stay below 2^31: %HWTD_NIL is never one. */
static_assert((u64)HWTD_MAX_CHUNKS << order_base_2(HWTD_CHUNK_TIMEOUTS) < (1ULL << 31));

/* Generations of a chunk number that was used up: never allocated again. */
#define HWTD_FLOOR_DEAD		U32_MAX

#define HWTD_EXTRA_BYTES	(HWTD_CHUNK_TIMEOUTS * sizeof(struct hwtd_extra))

/* Free what @p points to, if anything, and count it out of @count. */
static void hwtd_free_counted(void *p, atomic_long_t *count)
{
	if (!p)
		return;
	kfree(p);
	atomic_long_dec(count);
}

static void hwtd_room_set(struct hwtd_file *file, u32 n)
{
	__set_bit(n % HWTD_LEAF_CHUNKS, file->dir[n / HWTD_LEAF_CHUNKS]->room);
	__set_bit(n / HWTD_LEAF_CHUNKS, file->leaves_with_room);
}

static void hwtd_room_clear(struct hwtd_file *file, u32 n)
{
	struct hwtd_leaf *leaf = file->dir[n / HWTD_LEAF_CHUNKS];

	__clear_bit(n % HWTD_LEAF_CHUNKS, leaf->room);
	if (bitmap_empty(leaf->room, HWTD_LEAF_CHUNKS))
		__clear_bit(n / HWTD_LEAF_CHUNKS, file->leaves_with_room);
}

/*
 * Chunk number @n as a fresh chunk, from the spare page. Its timeouts start
 * at the generation after its floor, all free, or all retired when that
 * chunk number has used up its generations. Return: -EAGAIN when a spare
 * page or leaf is missing (hwtd_table_prealloc() makes them).
 */
static int hwtd_chunk_add(struct hwtd_file *file, u32 n)
{
	struct hwtd_leaf *leaf = file->dir[n / HWTD_LEAF_CHUNKS];
	struct hwtd_timeout *page;
	struct hwtd_chunk *c;
	u32 floor, i;

	if (!leaf) {
		if (!file->spare_leaf)
			return -EAGAIN;
		leaf = file->spare_leaf;
		file->spare_leaf = NULL;
		file->dir[n / HWTD_LEAF_CHUNKS] = leaf;
	}
	if (!file->spare_chunk)
		return -EAGAIN;
	page = file->spare_chunk;
	file->spare_chunk = NULL;
	floor = leaf->floor[n % HWTD_LEAF_CHUNKS];

	for (i = 0; i < HWTD_CHUNK_TIMEOUTS; i++) {
		struct hwtd_timeout *s = &page[i];

		memset(s, 0, sizeof(*s));
		s->gen = floor + 1;
		s->state = floor == HWTD_FLOOR_DEAD ? HWTD_RETIRED : HWTD_FREE;
		s->link.next = i + 1 < HWTD_CHUNK_TIMEOUTS ? i + 1 : HWTD_OFF_NIL;
	}
	c = &leaf->chunk[n % HWTD_LEAF_CHUNKS];
	c->timeouts = page;
	c->extra = NULL;
	c->gen_hi = floor;
	if (floor == HWTD_FLOOR_DEAD) {
		c->free = HWTD_OFF_NIL;
		c->nfree = 0;
	} else {
		c->free = 0;
		c->nfree = HWTD_CHUNK_TIMEOUTS;
	}
	file->nchunks = n + 1;
	if (c->nfree) {
		hwtd_room_set(file, n);
		/* Every lower chunk is full: it grows only then. */
		file->low = n;
	}
	return 0;
}

/**
 * hwtd_chunk_with_room() - the lowest chunk with room, for hwtd_timeout_alloc()
 * @file: the file, whose @low is %HWTD_NIL
 *
 * Only when every chunk is full is a chunk added, from the spares.
 *
 * Context: the file lock held.
 * Return: the chunk's number, now @file->low; -EAGAIN when the table must
 * grow and a spare chunk or leaf is missing; -ENOSPC when the directory is
 * full.
 */
int hwtd_chunk_with_room(struct hwtd_file *file)
{
	unsigned long l, k;
	u32 n;
	int ret;

	hwtd_lockdep_assert(file);
	for (;;) {
		if (file->low != HWTD_NIL)
			return file->low;
		l = find_first_bit(file->leaves_with_room, HWTD_DIR_LEAVES);
		if (l < HWTD_DIR_LEAVES) {
			k = find_first_bit(file->dir[l]->room, HWTD_LEAF_CHUNKS);
			file->low = l * HWTD_LEAF_CHUNKS + k;
			return file->low;
		}
		n = file->nchunks;
		if (n >= HWTD_MAX_CHUNKS)
			return -ENOSPC;
		ret = hwtd_chunk_add(file, n);
		if (ret)
			return ret;
		/* A chunk whose generations are used up has no room: next. */
	}
}

/**
 * hwtd_chunk_filled() - hwtd_timeout_alloc() took chunk @n's last free timeout
 * @file: the file
 * @n: the chunk, @file->low
 *
 * Context: the file lock held.
 */
void hwtd_chunk_filled(struct hwtd_file *file, u32 n)
{
	hwtd_room_clear(file, n);
	file->low = HWTD_NIL;
}

/* Free a chunk's memory, or keep it as the file's spares. */
static void hwtd_chunk_release(struct hwtd_file *file, struct hwtd_chunk *c)
{
	if (c->extra && !file->spare_extra)
		file->spare_extra = c->extra;
	else
		hwtd_free_counted(c->extra, &hwtd_table_stats.extras);
	if (!file->spare_chunk)
		file->spare_chunk = c->timeouts;
	else
		hwtd_free_counted(c->timeouts, &hwtd_table_stats.chunks);
	c->timeouts = NULL;
	c->extra = NULL;
}

/*
 * Whether the highest chunk should be given back: it is empty, and the
 * chunk below it has at least half its timeouts free.
 */
static bool hwtd_trim_due(struct hwtd_file *file)
{
	u32 n = file->nchunks;

	return n >= 2 && hwtd_chunk_nr(file, n - 1)->nfree == HWTD_CHUNK_TIMEOUTS &&
	       hwtd_chunk_nr(file, n - 2)->nfree >= HWTD_CHUNK_TIMEOUTS / 2;
}

/* Give back at most @max highest chunks that are due; return how many. */
static unsigned int hwtd_trim_some(struct hwtd_file *file, unsigned int max)
{
	struct hwtd_leaf *leaf;
	struct hwtd_chunk *c;
	unsigned int done = 0;
	u32 n;

	hwtd_lockdep_assert(file);
	while (done < max && hwtd_trim_due(file)) {
		n = file->nchunks - 1;
		leaf = file->dir[n / HWTD_LEAF_CHUNKS];
		c = &leaf->chunk[n % HWTD_LEAF_CHUNKS];
		/* Above every generation it handed out. */
		leaf->floor[n % HWTD_LEAF_CHUNKS] = c->gen_hi;
		hwtd_room_clear(file, n);
		if (file->low == n)
			file->low = HWTD_NIL;
		file->nchunks = n;
		hwtd_chunk_release(file, c);
		done++;
	}
	return done;
}

/**
 * hwtd_chunk_freed() - hwtd_timeout_free() left chunk @n with one free timeout,
 * half of them, or all of them
 * @file: the file
 * @n: the chunk
 *
 * Only these frees can give a full chunk room, or make a give-back due
 * (hwtd_trim_due()): then up to two chunks are given back.
 *
 * Context: the file lock held.
 */
void hwtd_chunk_freed(struct hwtd_file *file, u32 n)
{
	if (hwtd_chunk_nr(file, n)->nfree == 1) {
		hwtd_room_set(file, n);
		if (file->low != HWTD_NIL && n < file->low)
			file->low = n;
	} else {
		hwtd_trim_some(file, 2);
	}
}

/**
 * hwtd_trim() - give back the chunks a shrunk file no longer needs
 * @file: the file
 *
 * hwtd_timeout_free() gives back at most two chunks each time; after a burst
 * of frees, more may be due. This gives them back %HWTD_HOLD_MAX at a time
 * per hold of the file lock.
 *
 * Context: process; takes the file lock.
 * Return: true if it gave back any.
 */
bool hwtd_trim(struct hwtd_file *file)
{
	unsigned int n, total = 0;

	do {
		spin_lock_bh(&file->lock);
		n = hwtd_trim_some(file, HWTD_HOLD_MAX);
		spin_unlock_bh(&file->lock);
		total += n;
		cond_resched();
	} while (n == HWTD_HOLD_MAX);
	return total;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_trim);

/**
 * hwtd_extra_set() - set the period and slack of a timeout
 * @file: the file
 * @idx: the timeout's index
 * @period: the period, 0 for none
 * @slack: the slack, 0 for none
 *
 * Context: the file lock held.
 * Return: 0, or -EAGAIN when the chunk needs an extra array and there is
 * no spare (hwtd_table_prealloc() makes one); then nothing changed.
 */
int hwtd_extra_set(struct hwtd_file *file, u32 idx, u64 period, u64 slack)
{
	struct hwtd_chunk *c = hwtd_chunk_nr(file, idx >> HWTD_IDX_SHIFT);
	struct hwtd_extra *x;

	hwtd_lockdep_assert(file);
	if (!c->extra) {
		if (!period && !slack)
			return 0;
		if (!file->spare_extra)
			return -EAGAIN;
		c->extra = file->spare_extra;
		file->spare_extra = NULL;
		memset(c->extra, 0, HWTD_EXTRA_BYTES);
	}
	x = &c->extra[idx & (BIT(HWTD_IDX_SHIFT) - 1)];
	x->period = period;
	x->slack = slack;
	return 0;
}

/**
 * hwtd_table_prealloc() - make the spares the table may need
 * @file: the file
 * @extra: an extra array is needed too
 *
 * Allocates, with %GFP_KERNEL_ACCOUNT and the file lock dropped, a spare
 * chunk, a spare leaf when the next chunk starts a leaf that does not
 * exist, and a spare extra array if asked, each only if the file has none.
 * An allocation another caller made meanwhile is freed again.
 *
 * Context: process; may sleep; takes the file lock.
 * Return: 0, or -ENOMEM.
 */
int hwtd_table_prealloc(struct hwtd_file *file, bool extra)
{
	struct hwtd_timeout *c = NULL;
	struct hwtd_extra *x = NULL;
	struct hwtd_leaf *l = NULL;
	bool need_c, need_x, need_l;
	int ret = 0;

	spin_lock_bh(&file->lock);
	need_c = !file->spare_chunk;
	need_x = extra && !file->spare_extra;
	need_l = !file->spare_leaf && file->nchunks < HWTD_MAX_CHUNKS &&
		 !file->dir[file->nchunks / HWTD_LEAF_CHUNKS];
	spin_unlock_bh(&file->lock);

	if (need_c) {
		c = kmalloc(HWTD_CHUNK_BYTES, GFP_KERNEL_ACCOUNT);
		if (!c)
			ret = -ENOMEM;
	}
	if (need_x) {
		x = kzalloc(HWTD_EXTRA_BYTES, GFP_KERNEL_ACCOUNT);
		if (!x)
			ret = -ENOMEM;
	}
	if (need_l) {
		l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
		if (!l)
			ret = -ENOMEM;
	}

	spin_lock_bh(&file->lock);
	if (c && !file->spare_chunk) {
		file->spare_chunk = c;
		atomic_long_inc(&hwtd_table_stats.chunks);
		c = NULL;
	}
	if (x && !file->spare_extra) {
		file->spare_extra = x;
		atomic_long_inc(&hwtd_table_stats.extras);
		x = NULL;
	}
	if (l && !file->spare_leaf) {
		file->spare_leaf = l;
		atomic_long_inc(&hwtd_table_stats.leaves);
		l = NULL;
	}
	spin_unlock_bh(&file->lock);
	kfree(c);
	kfree(x);
	kfree(l);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_table_prealloc);

/**
 * hwtd_table_destroy() - free every chunk, extra array and leaf of a file
 * @file: the file, which nothing else can reach any more
 *
 * Context: process; may sleep (reschedules between leaves).
 */
void hwtd_table_destroy(struct hwtd_file *file)
{
	unsigned int l, k;

	for (l = 0; l < HWTD_DIR_LEAVES; l++) {
		struct hwtd_leaf *leaf = file->dir[l];

		if (!leaf)
			continue;
		for (k = 0; k < HWTD_LEAF_CHUNKS; k++) {
			struct hwtd_chunk *c = &leaf->chunk[k];

			if (!c->timeouts)
				continue;
			hwtd_free_counted(c->extra, &hwtd_table_stats.extras);
			hwtd_free_counted(c->timeouts, &hwtd_table_stats.chunks);
		}
		hwtd_free_counted(leaf, &hwtd_table_stats.leaves);
		file->dir[l] = NULL;
		cond_resched();
	}
	file->nchunks = 0;
	hwtd_free_counted(file->spare_chunk, &hwtd_table_stats.chunks);
	hwtd_free_counted(file->spare_extra, &hwtd_table_stats.extras);
	hwtd_free_counted(file->spare_leaf, &hwtd_table_stats.leaves);
	file->spare_chunk = NULL;
	file->spare_extra = NULL;
	file->spare_leaf = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_table_destroy);

/* ---- lists ---------------------------------------------------------------- */

/* Every list empty: each head linked to itself. */
void hwtd_lists_init(struct hwtd_file *file)
{
	u32 i;

	for (i = 0; i < HWTD_NLISTS; i++) {
		file->heads[i].next = HWTD_HEAD | i;
		file->heads[i].prev = HWTD_HEAD | i;
	}
}

/* Move every timeout of list @src to the tail of @dst, in O(1); @src ends empty. */
void hwtd_list_splice(struct hwtd_file *file, u32 dst, u32 src)
{
	struct hwtd_link *s = &file->heads[src], *d = &file->heads[dst];
	u32 first = s->next, last = s->prev, tail = d->prev;

	if (first == (HWTD_HEAD | src))
		return;
	hwtd_link(file, tail)->next = first;
	hwtd_link(file, first)->prev = tail;
	hwtd_link(file, last)->next = HWTD_HEAD | dst;
	d->prev = last;
	s->next = HWTD_HEAD | src;
	s->prev = HWTD_HEAD | src;
}
