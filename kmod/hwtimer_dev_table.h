/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/hwtimer: the timeout table, the lowest layer of the device
 * (hwtimer_dev.h). What a batch entry or an expiry does to each timeout
 * is inline here: finding it by index or id, taking and freeing one, and
 * the lists linked through the timeouts by index. What they rarely need
 * (finding a chunk with room, growing, giving back) is in
 * hwtimer_dev_table.c.
 */
#ifndef _HWTIMER_DEV_TABLE_H
#define _HWTIMER_DEV_TABLE_H

#include "hwtimer_dev.h"

/* What the tables of all files hold, for debugfs and tests. */
struct hwtd_table_stats {
	atomic_long_t	chunks;
	atomic_long_t	extras;
	atomic_long_t	leaves;
};

extern struct hwtd_table_stats hwtd_table_stats;

/* Chunk number @n, which exists (its leaf does). */
static inline struct hwtd_chunk *hwtd_chunk_nr(struct hwtd_file *file, u32 n)
{
	return &file->dir[n / HWTD_LEAF_CHUNKS]->chunk[n % HWTD_LEAF_CHUNKS];
}

/* The timeout at index @idx, which names one (from a list, a free list). */
static inline struct hwtd_timeout *hwtd_timeout_at(struct hwtd_file *file, u32 idx)
{
	struct hwtd_chunk *chunk = hwtd_chunk_nr(file, idx >> HWTD_IDX_SHIFT);

	return &chunk->timeouts[idx & (BIT(HWTD_IDX_SHIFT) - 1)];
}

/**
 * hwtd_timeout_find() - the timeout at an index
 * @file: the file
 * @idx: an index, as found in an id; any value
 *
 * Context: the file lock held.
 * Return: the timeout, whatever its state, or NULL when @idx names none.
 */
static inline struct hwtd_timeout *hwtd_timeout_find(struct hwtd_file *file, u32 idx)
{
	u32 n = idx >> HWTD_IDX_SHIFT, off = idx & (BIT(HWTD_IDX_SHIFT) - 1);

	if (n >= file->nchunks || off >= HWTD_CHUNK_TIMEOUTS)
		return NULL;
	return &hwtd_chunk_nr(file, n)->timeouts[off];
}

/**
 * hwtd_lookup() - the live timeout an id names
 * @file: the file
 * @id: an id from user space; any value
 * @idx: set to the timeout's index
 *
 * Context: the file lock held.
 * Return: the timeout (%HWTD_PENDING or %HWTD_QUEUED, of the id's
 * generation), or NULL.
 */
static inline struct hwtd_timeout *hwtd_lookup(struct hwtd_file *file, u64 id, u32 *idx)
{
	struct hwtd_timeout *s;

	hwtd_lockdep_assert(file);
	*idx = (u32)id;
	s = hwtd_timeout_find(file, *idx);
	if (!s || s->gen != (u32)(id >> 32) ||
	    (s->state != HWTD_PENDING && s->state != HWTD_QUEUED))
		return NULL;
	return s;
}

/* hwtimer_dev_table.c */
int hwtd_chunk_with_room(struct hwtd_file *file);
void hwtd_chunk_filled(struct hwtd_file *file, u32 n);
void hwtd_chunk_freed(struct hwtd_file *file, u32 n);
int hwtd_table_prealloc(struct hwtd_file *file, bool extra);
void hwtd_table_destroy(struct hwtd_file *file);
bool hwtd_trim(struct hwtd_file *file);
int hwtd_extra_set(struct hwtd_file *file, u32 idx, u64 period, u64 slack);
void hwtd_lists_init(struct hwtd_file *file);
void hwtd_list_splice(struct hwtd_file *file, u32 dst, u32 src);

static inline u64 hwtd_id(const struct hwtd_timeout *s, u32 idx)
{
	return (u64)s->gen << 32 | idx;
}

/**
 * hwtd_timeout_alloc() - take a free timeout of the table
 * @file: the file
 * @idx: set to its index
 *
 * It comes from the lowest chunk with room (hwtd_chunk_with_room()). It
 * is left %HWTD_FREE with its generation set, and its extra (period,
 * slack) zeroed if its chunk has extras: the caller fills it and makes it
 * live.
 *
 * Context: the file lock held.
 * Return: 0; -EAGAIN when the table must grow and a spare chunk or leaf is
 * missing; -ENOSPC when the directory is full.
 */
static inline int hwtd_timeout_alloc(struct hwtd_file *file, u32 *idx)
{
	struct hwtd_chunk *c;
	struct hwtd_timeout *s;
	int n;

	hwtd_lockdep_assert(file);
	if (likely(file->low != HWTD_NIL)) {
		n = file->low;
	} else {
		n = hwtd_chunk_with_room(file);
		if (n < 0)
			return n;
	}
	c = hwtd_chunk_nr(file, n);
	s = &c->timeouts[c->free];
	*idx = (u32)n << HWTD_IDX_SHIFT | c->free;
	c->free = s->link.next;
	c->nfree--;
	if (s->gen > c->gen_hi)
		c->gen_hi = s->gen;
	if (!c->nfree)
		hwtd_chunk_filled(file, n);
	if (c->extra)
		memset(&c->extra[*idx & (BIT(HWTD_IDX_SHIFT) - 1)], 0,
		       sizeof(struct hwtd_extra));
	return 0;
}

/**
 * hwtd_timeout_free() - give a timeout back to the table
 * @file: the file
 * @idx: its index
 *
 * Bumps the generation, so the timeout's id is dead for good, or retires
 * the entry if the generation would wrap; may give back up to two chunks
 * (hwtd_chunk_freed()).
 *
 * Context: the file lock held.
 */
static inline void hwtd_timeout_free(struct hwtd_file *file, u32 idx)
{
	u32 n = idx >> HWTD_IDX_SHIFT, off = idx & (BIT(HWTD_IDX_SHIFT) - 1);
	struct hwtd_chunk *c = hwtd_chunk_nr(file, n);
	struct hwtd_timeout *s = &c->timeouts[off];

	hwtd_lockdep_assert(file);
	if (unlikely(s->gen == U32_MAX)) {
		/* Never on the free list: the chunk is never given back. */
		s->state = HWTD_RETIRED;
		return;
	}
	s->gen++;
	s->state = HWTD_FREE;
	s->link.next = c->free;
	c->free = off;
	c->nfree++;
	if (c->nfree == 1 || c->nfree == HWTD_CHUNK_TIMEOUTS / 2 ||
	    c->nfree == HWTD_CHUNK_TIMEOUTS)
		hwtd_chunk_freed(file, n);
}

/**
 * hwtd_extra_get() - the period and slack of a timeout
 * @file: the file
 * @idx: the timeout's index
 *
 * Context: the file lock held.
 * Return: its &struct hwtd_extra, or NULL when its chunk has none (then
 * both are 0).
 */
static inline struct hwtd_extra *hwtd_extra_get(struct hwtd_file *file, u32 idx)
{
	struct hwtd_chunk *c = hwtd_chunk_nr(file, idx >> HWTD_IDX_SHIFT);

	if (!c->extra)
		return NULL;
	return &c->extra[idx & (BIT(HWTD_IDX_SHIFT) - 1)];
}

/* The links of timeout or list head @i. */
static inline struct hwtd_link *hwtd_link(struct hwtd_file *file, u32 i)
{
	if (i & HWTD_HEAD)
		return &file->heads[i & ~HWTD_HEAD];
	return &hwtd_timeout_at(file, i)->link;
}

/* The first timeout of @list, or %HWTD_NIL when it is empty. */
static inline u32 hwtd_list_first(struct hwtd_file *file, u32 list)
{
	u32 i = file->heads[list].next;

	return (i & HWTD_HEAD) ? HWTD_NIL : i;
}

/* Put timeout @idx, whose links are @l, at the tail of @list. */
static inline void hwtd_list_add_link(struct hwtd_file *file, u32 list, u32 idx,
				      struct hwtd_link *l)
{
	struct hwtd_link *h = &file->heads[list];
	u32 tail = h->prev;

	l->next = HWTD_HEAD | list;
	l->prev = tail;
	hwtd_link(file, tail)->next = idx;
	h->prev = idx;
}

/* Put timeout @idx at the tail of @list. */
static inline void hwtd_list_add(struct hwtd_file *file, u32 list, u32 idx)
{
	hwtd_list_add_link(file, list, idx, hwtd_link(file, idx));
}

/*
 * Take timeout @idx off whatever list it is on. Return: the list it left
 * empty, or %HWTD_NIL: then both its neighbours were that list's head.
 */
static inline u32 hwtd_list_del(struct hwtd_file *file, u32 idx)
{
	struct hwtd_link *l = hwtd_link(file, idx);
	u32 prev = l->prev, next = l->next;

	hwtd_link(file, prev)->next = next;
	hwtd_link(file, next)->prev = prev;
	if (prev == next && (prev & HWTD_HEAD))
		return prev & ~HWTD_HEAD;
	return HWTD_NIL;
}

#endif /* _HWTIMER_DEV_TABLE_H */
