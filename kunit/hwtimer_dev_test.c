// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of /dev/hwtimer's timeout table and per-file wheel, on files
 * with a manual clock (hwtd_file_create_manual()): the batch operations'
 * own functions arm, cancel and modify (hwtd_kunit_op()), the expiry pass
 * runs at a time the test sets (hwtd_kunit_run()), and records are read as
 * read() takes them (hwtd_kunit_read()).
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/slab.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer_kunit.h"
#include "hwtimer_dev_records.h"

#define KD_TICK		1000ULL
#define KD_EPOCH	5000ULL

/* When tick @t begins. */
static u64 kd_tick_time(u64 t)
{
	return KD_EPOCH + t * KD_TICK;
}

/* The first tick at or after @d. */
static u64 kd_tick_of(u64 d)
{
	return d <= KD_EPOCH ? 0 : DIV_ROUND_UP_ULL(d - KD_EPOCH, KD_TICK);
}

static struct hwtd_file *kd_file(struct kunit *test)
{
	struct hwtd_file *file = hwtd_file_create_manual(KD_TICK, KD_EPOCH);

	KUNIT_ASSERT_NOT_NULL(test, file);
	return file;
}

/* Arm an absolute deadline at clock @now; returns the id (0 on failure). */
static u64 kd_arm(struct kunit *test, struct hwtd_file *file, u64 now, u64 deadline,
		  u64 period, u64 slack, u64 cookie)
{
	struct hwtimer_arm_entry e = {
		.cookie = cookie, .expires_ns = deadline, .period_ns = period,
		.flags = HWTIMER_TIMEOUT_ABS, .slack_ns = slack,
	};

	KUNIT_EXPECT_EQ_MSG(test, 0, hwtd_kunit_op(file, HWTIMER_IOC_ARM, &e, now),
			    "arm of deadline %llu at %llu", deadline, now);
	KUNIT_EXPECT_EQ(test, deadline, e.deadline_ns);
	return e.id;
}

static int kd_cancel(struct hwtd_file *file, u64 id)
{
	struct hwtimer_cancel_entry e = { .id = id };

	return hwtd_kunit_op(file, HWTIMER_IOC_CANCEL, &e, 0);
}

/* Modify timeout @id to absolute @deadline at clock @now; returns its status. */
static u32 kd_modify(struct kunit *test, struct hwtd_file *file, u64 now, u64 id,
		     u64 deadline)
{
	struct hwtimer_modify_entry e = {
		.id = id, .expires_ns = deadline, .flags = HWTIMER_TIMEOUT_ABS,
	};

	KUNIT_EXPECT_EQ_MSG(test, 0, hwtd_kunit_op(file, HWTIMER_IOC_MODIFY, &e, now),
			    "modify to deadline %llu at %llu", deadline, now);
	KUNIT_EXPECT_EQ(test, deadline, e.deadline_ns);
	return e.status;
}

/*
 * Timeouts at random deadlines over @span ticks, the clock moved in random
 * steps of up to @step ticks, sometimes to a tick boundary, sometimes just
 * before one, and before each pass in the first half of the span up to
 * @nmod random timeouts not yet expired modified to a new random deadline
 * after the clock and within the span, earlier or later than their own:
 * after each pass, exactly the timeouts whose tick (of their last
 * deadline) has begun have a record (never early, never a tick late), and
 * records come in tick order. Spans up to 2^34 ticks cascade through six
 * levels.
 */
static void kd_exact_mod(struct kunit *test, unsigned int n, u64 span, u64 step,
			 unsigned int nmod)
{
	struct hwtd_file *file = kd_file(test);
	struct hwtimer_expiry *r;
	u64 *dl, *id, now = KD_EPOCH, last_tick = 0, end;
	unsigned int i, k, got, total = 0;
	bool *seen;

	dl = kunit_kcalloc(test, n, sizeof(*dl), GFP_KERNEL);
	id = kunit_kcalloc(test, n, sizeof(*id), GFP_KERNEL);
	seen = kunit_kcalloc(test, n, sizeof(*seen), GFP_KERNEL);
	r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, dl && id && seen && r);
	for (i = 0; i < n; i++) {
		dl[i] = KD_EPOCH + 1 + get_random_u64() % (span * KD_TICK);
		/* A quarter on tick boundaries exactly. */
		if (!(i % 4))
			dl[i] = kd_tick_time(kd_tick_of(dl[i]));
		id[i] = kd_arm(test, file, now, dl[i], 0, 0, i);
	}
	end = KD_EPOCH + (span + 1) * KD_TICK;
	while (total < n && now < end) {
		u64 t = 1 + get_random_u64() % step;

		/* In the first half, to deadlines within the span. */
		for (k = 0; now < KD_EPOCH + span / 2 * KD_TICK && k < nmod; k++) {
			i = get_random_u32() % n;
			if (seen[i])
				continue;
			/* After the clock, so not due at the modify. */
			dl[i] = now + 1 + get_random_u64() % (span / 2 * KD_TICK);
			if (!(k % 4))
				dl[i] = kd_tick_time(kd_tick_of(dl[i]));
			KUNIT_EXPECT_EQ_MSG(test, HWTIMER_STATUS_PENDING,
					    kd_modify(test, file, now, id[i], dl[i]),
					    "modify of timeout %u", i);
		}
		now = kd_tick_time(kd_tick_of(now) + t);
		if (get_random_u32() & 1)
			now--;		/* just before the boundary */
		hwtd_kunit_run(file, now);
		got = hwtd_kunit_read(file, r, n);
		for (k = 0; k < got; k++) {
			i = r[k].cookie;
			KUNIT_ASSERT_LT(test, i, n);
			KUNIT_EXPECT_FALSE_MSG(test, seen[i], "timeout %u read twice", i);
			seen[i] = true;
			KUNIT_EXPECT_EQ(test, id[i], r[k].id);
			KUNIT_EXPECT_EQ(test, dl[i], r[k].deadline_ns);
			KUNIT_EXPECT_EQ(test, now, r[k].expired_ns);
			KUNIT_EXPECT_LE_MSG(test, kd_tick_time(kd_tick_of(dl[i])), now,
					    "timeout %u early: deadline %llu, tick %llu, now %llu",
					    i, dl[i], kd_tick_of(dl[i]), now);
			KUNIT_EXPECT_GE_MSG(test, kd_tick_of(dl[i]), last_tick,
					    "record of tick %llu after one of tick %llu",
					    kd_tick_of(dl[i]), last_tick);
			last_tick = kd_tick_of(dl[i]);
		}
		total += got;
		/* Every timeout whose tick has begun has its record. */
		for (i = 0; i < n; i++)
			if (!seen[i] && kd_tick_time(kd_tick_of(dl[i])) <= now)
				KUNIT_FAIL(test, "timeout %u (tick %llu) late at %llu",
					   i, kd_tick_of(dl[i]), now);
		last_tick = 0;
	}
	KUNIT_EXPECT_EQ(test, n, total);
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	hwtd_file_destroy_manual(file);
}

static void kd_exact(struct kunit *test, unsigned int n, u64 span, u64 step)
{
	kd_exact_mod(test, n, span, step, 0);
}

static void dev_exact_near(struct kunit *test)
{
	kd_exact(test, 2000, 5000, 7);
}

static void dev_exact_cascades(struct kunit *test)
{
	kd_exact(test, 2000, 1ULL << 20, 1ULL << 12);
}

static void dev_exact_far(struct kunit *test)
{
	kd_exact(test, 500, 1ULL << 34, 1ULL << 28);
}

/* The same, with 20 modifies before each pass, in a short and a long span. */
static void dev_exact_modify(struct kunit *test)
{
	kd_exact_mod(test, 2000, 5000, 7, 20);
	kd_exact_mod(test, 1000, 1ULL << 20, 1ULL << 12, 20);
}

/* The list timeout @id is linked into: the head its chain reaches first. */
static u32 kd_list_of(struct hwtd_file *file, u64 id)
{
	u32 idx, i;

	spin_lock_irq(&file->lock);
	if (!hwtd_lookup(file, id, &idx)) {
		spin_unlock_irq(&file->lock);
		return HWTD_NIL;
	}
	for (i = hwtd_timeout_at(file, idx)->link.next; !(i & HWTD_HEAD);
	     i = hwtd_timeout_at(file, i)->link.next)
		;
	spin_unlock_irq(&file->lock);
	return i & ~HWTD_HEAD;
}

/*
 * A modify to a later tick leaves the timeout in its slot, and the pass
 * that reaches the slot re-places it, without a record; a modify to an
 * earlier tick moves it at once. Either way it expires at its new tick,
 * not before.
 */
static void dev_modify_in_place(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	struct hwtimer_expiry r[2];
	u64 id, id2, ev;
	u32 b;

	/* Tick 100 from clock 0: level 1, slot 1 (ticks 64 to 127). */
	id = kd_arm(test, file, KD_EPOCH, kd_tick_time(100), 0, 0, 1);
	b = kd_list_of(file, id);
	KUNIT_EXPECT_EQ(test, HWT_LVL_SIZE + 1, b);
	KUNIT_EXPECT_EQ(test, HWTIMER_STATUS_PENDING,
			kd_modify(test, file, KD_EPOCH, id, kd_tick_time(200)));
	KUNIT_EXPECT_EQ_MSG(test, b, kd_list_of(file, id),
			    "a modify to a later tick moved the timeout");
	spin_lock_irq(&file->lock);
	ev = hwtd_next_event(file);
	spin_unlock_irq(&file->lock);
	KUNIT_EXPECT_EQ_MSG(test, 64, ev, "the old slot's start is the next event");
	/* The old slot begins, then the old tick passes: no record. */
	hwtd_kunit_run(file, kd_tick_time(64));
	hwtd_kunit_run(file, kd_tick_time(100));
	hwtd_kunit_run(file, kd_tick_time(200) - 1);
	KUNIT_EXPECT_EQ(test, 0, hwtd_kunit_read(file, r, 2));
	KUNIT_EXPECT_NE(test, b, kd_list_of(file, id));
	hwtd_kunit_run(file, kd_tick_time(200));
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 2));
	KUNIT_EXPECT_EQ(test, id, r[0].id);
	KUNIT_EXPECT_EQ(test, kd_tick_time(200), r[0].deadline_ns);

	/* Tick 300 from clock 200: level 1, slot 4; tick 250: level 0, 58. */
	id2 = kd_arm(test, file, kd_tick_time(200), kd_tick_time(300), 0, 0, 2);
	KUNIT_EXPECT_EQ(test, HWT_LVL_SIZE + 4, kd_list_of(file, id2));
	KUNIT_EXPECT_EQ(test, HWTIMER_STATUS_PENDING,
			kd_modify(test, file, kd_tick_time(200), id2, kd_tick_time(250)));
	KUNIT_EXPECT_EQ(test, 58, kd_list_of(file, id2));
	hwtd_kunit_run(file, kd_tick_time(250) - 1);
	KUNIT_EXPECT_EQ(test, 0, hwtd_kunit_read(file, r, 2));
	hwtd_kunit_run(file, kd_tick_time(250));
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 2));
	KUNIT_EXPECT_EQ(test, id2, r[0].id);
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	hwtd_file_destroy_manual(file);
}

/*
 * A slacked timeout expires on a tick of its window, never before its
 * deadline's tick nor after the last tick that begins by deadline + slack,
 * and timeouts with overlapping windows share ticks.
 */
static void dev_slack(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	u64 *dl, slack = 100 * KD_TICK, now, prev = U64_MAX;
	unsigned int i, k, got, ticks = 0;
	struct hwtimer_expiry *r;

	dl = kunit_kcalloc(test, 256, sizeof(*dl), GFP_KERNEL);
	r = kunit_kcalloc(test, 64, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, dl && r);
	for (i = 0; i < 256; i++) {
		dl[i] = KD_EPOCH + 10 * KD_TICK + get_random_u64() % (1000 * KD_TICK);
		kd_arm(test, file, KD_EPOCH, dl[i], 0, slack, i);
	}
	for (now = KD_EPOCH; now <= KD_EPOCH + 1200 * KD_TICK; now += KD_TICK) {
		hwtd_kunit_run(file, now);
		while ((got = hwtd_kunit_read(file, r, 64))) {
			for (k = 0; k < got; k++) {
				i = r[k].cookie;
				KUNIT_EXPECT_LE(test, kd_tick_time(kd_tick_of(dl[i])), now);
				KUNIT_EXPECT_LE_MSG(test, now, dl[i] + slack,
						    "timeout %u: deadline %llu slack %llu expired %llu",
						    i, dl[i], slack, now);
			}
			if (now != prev)
				ticks++;
			prev = now;
		}
	}
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	/* 256 deadlines over 1000 ticks, 100-tick windows: far fewer ticks. */
	KUNIT_EXPECT_LT_MSG(test, ticks, 64U, "%u ticks with expiries", ticks);
	hwtd_file_destroy_manual(file);
}

/*
 * Ids: never 0, never given twice; an entry whose generation would wrap is
 * retired and never used again.
 */
static void dev_ids(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	struct hwtd_timeout *s;
	u64 id, id2, far = KD_EPOCH + 1000000 * KD_TICK;
	u32 idx;

	id = kd_arm(test, file, KD_EPOCH, far, 0, 0, 1);
	KUNIT_EXPECT_NE(test, 0, id);
	KUNIT_EXPECT_EQ(test, 1, id >> 32);
	KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, id));
	KUNIT_EXPECT_EQ(test, -ENOENT, kd_cancel(file, id));
	/* The same entry, the next generation. */
	id2 = kd_arm(test, file, KD_EPOCH, far, 0, 0, 2);
	KUNIT_EXPECT_EQ(test, (u32)id, (u32)id2);
	KUNIT_EXPECT_EQ(test, 2, id2 >> 32);
	KUNIT_EXPECT_EQ(test, -ENOENT, kd_cancel(file, id));

	/* Its generation at the top: used once more, then retired. */
	spin_lock_irq(&file->lock);
	s = hwtd_lookup(file, id2, &idx);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->gen = U32_MAX;
	spin_unlock_irq(&file->lock);
	id2 = (u64)U32_MAX << 32 | idx;
	KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, id2));
	spin_lock_irq(&file->lock);
	KUNIT_EXPECT_EQ(test, HWTD_RETIRED, hwtd_timeout_find(file, idx)->state);
	spin_unlock_irq(&file->lock);
	id = kd_arm(test, file, KD_EPOCH, far, 0, 0, 3);
	KUNIT_EXPECT_NE_MSG(test, idx, (u32)id, "a retired entry was used again");
	KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, id));
	hwtd_file_destroy_manual(file);
}

/*
 * A file that shrinks gives its chunks back (all but the first), and a
 * chunk allocated again never hands out an id it handed out before.
 */
static void dev_chunks(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	unsigned int n = 20 * HWTD_CHUNK_TIMEOUTS, i, j;
	u64 far = KD_EPOCH + 1000000 * KD_TICK, *ids;
	long g0 = hwtd_kunit_global_count();

	ids = kunit_kcalloc(test, 2 * n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	for (i = 0; i < n; i++)
		ids[i] = kd_arm(test, file, KD_EPOCH, far, 0, 0, i);
	KUNIT_EXPECT_EQ(test, 20, file->nchunks);
	KUNIT_EXPECT_EQ(test, g0 + n, hwtd_kunit_global_count());
	/* Cancelled in a scattered order. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, ids[(i * 7919) % n]));
	hwtd_trim(file);
	KUNIT_EXPECT_EQ(test, 1, file->nchunks);
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	KUNIT_EXPECT_EQ(test, g0, hwtd_kunit_global_count());
	for (i = 0; i < n; i++)
		ids[n + i] = kd_arm(test, file, KD_EPOCH, far, 0, 0, i);
	KUNIT_EXPECT_EQ(test, 20, file->nchunks);
	for (i = n; i < 2 * n; i++)
		for (j = 0; j < n; j++)
			if (ids[i] == ids[j])
				KUNIT_FAIL(test, "id %llx handed out twice", ids[i]);
	hwtd_file_destroy_manual(file);
	KUNIT_EXPECT_EQ(test, g0, hwtd_kunit_global_count());
}

/*
 * Each chunk's count and free list, kept in its leaf, as its timeouts say:
 * the count is the free ones, the free list holds each once, and the
 * chunk is marked as having room exactly when it has a free one.
 */
static void kd_check_chunks(struct kunit *test, struct hwtd_file *file)
{
	unsigned int k, i, nfree, nlist;
	struct hwtd_chunk *c;
	bool room;
	u32 off;

	spin_lock_irq(&file->lock);
	for (k = 0; k < file->nchunks; k++) {
		c = hwtd_chunk_nr(file, k);
		nfree = 0;
		for (i = 0; i < HWTD_CHUNK_TIMEOUTS; i++)
			nfree += c->timeouts[i].state == HWTD_FREE;
		nlist = 0;
		for (off = c->free; off != HWTD_OFF_NIL && nlist <= HWTD_CHUNK_TIMEOUTS;
		     off = c->timeouts[off].link.next) {
			if (off >= HWTD_CHUNK_TIMEOUTS ||
			    c->timeouts[off].state != HWTD_FREE) {
				KUNIT_FAIL(test, "chunk %u: free list holds %u, not a free timeout",
					   k, off);
				break;
			}
			nlist++;
		}
		KUNIT_EXPECT_EQ_MSG(test, nfree, c->nfree, "chunk %u: free count", k);
		KUNIT_EXPECT_EQ_MSG(test, nfree, nlist, "chunk %u: free list length", k);
		room = test_bit(k % HWTD_LEAF_CHUNKS, file->dir[k / HWTD_LEAF_CHUNKS]->room);
		KUNIT_EXPECT_EQ_MSG(test, nfree != 0, room, "chunk %u: room bit", k);
	}
	spin_unlock_irq(&file->lock);
}

/*
 * A table past its first directory leaf: ids name chunk and offset, the
 * chunks' counts hold, and a chunk of the second leaf given back and
 * allocated again starts above the generations it handed out.
 */
static void dev_leaves(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	unsigned int per = HWTD_CHUNK_TIMEOUTS, nch = HWTD_LEAF_CHUNKS + 2;
	unsigned int n = nch * per, i;
	u64 far = KD_EPOCH + 1000000 * KD_TICK, id, *ids;

	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	for (i = 0; i < n; i++)
		ids[i] = kd_arm(test, file, KD_EPOCH, far, 0, 0, i);
	KUNIT_ASSERT_EQ(test, nch, file->nchunks);
	KUNIT_EXPECT_NOT_NULL(test, file->dir[1]);
	KUNIT_EXPECT_EQ(test, (u64)1 << 32 | (nch - 1) << HWTD_IDX_SHIFT | (per - 1),
			ids[n - 1]);
	/* Every other timeout of the last chunk. */
	for (i = n - per; i < n; i += 2)
		KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, ids[i]));
	kd_check_chunks(test, file);
	/* The rest of the last two chunks: the last one is given back. */
	for (i = n - 2 * per; i < n; i++)
		if (i < n - per || (i - (n - per)) % 2)
			KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, ids[i]));
	hwtd_trim(file);
	KUNIT_EXPECT_EQ(test, nch - 1, file->nchunks);
	kd_check_chunks(test, file);
	/* Chunk nch - 2 first, its timeouts' second generation; then nch - 1. */
	for (i = 0; i < 2 * per; i++) {
		id = kd_arm(test, file, KD_EPOCH, far, 0, 0, i);
		KUNIT_EXPECT_EQ_MSG(test, (u64)(nch - 2 + i / per), (u32)id >> HWTD_IDX_SHIFT,
				    "arm %u went to the wrong chunk", i);
		KUNIT_EXPECT_EQ_MSG(test, 2, id >> 32, "arm %u: generation", i);
	}
	KUNIT_EXPECT_EQ(test, nch, file->nchunks);
	kd_check_chunks(test, file);
	hwtd_file_destroy_manual(file);
}

/*
 * A burst due at one tick: one hold of the file lock expires at most
 * HWTD_HOLD_MAX of them; the whole pass expires them all, in order.
 */
static void dev_chunked(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	unsigned int n = 10 * HWTD_HOLD_MAX, i, budget = HWTD_HOLD_MAX, got;
	u64 dl = KD_EPOCH + 10 * KD_TICK;
	struct hwtd_hold hold = { };
	struct hwtimer_expiry *r;
	bool done;

	r = kunit_kcalloc(test, n, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	for (i = 0; i < n; i++)
		kd_arm(test, file, KD_EPOCH, dl, 0, 0, i);
	WRITE_ONCE(file->manual_now, dl);
	spin_lock_irq(&file->lock);
	file->target = kd_tick_of(dl);
	done = hwtd_expire(file, &hold, &budget);
	hwtd_hold_end(file, &hold);
	spin_unlock_irq(&file->lock);
	KUNIT_EXPECT_FALSE(test, done);
	KUNIT_EXPECT_EQ(test, 0, budget);
	KUNIT_EXPECT_LE(test, file->nqueued, (unsigned long)HWTD_HOLD_MAX);
	hwtd_kunit_run(file, dl);
	got = hwtd_kunit_read(file, r, n);
	KUNIT_EXPECT_EQ(test, n, got);
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	hwtd_file_destroy_manual(file);
}

/*
 * A pass runs the wheel up to its target tick, the one that contained the
 * clock when it began, and no further, however late the clock is by then:
 * what came due after its start waits for the next pass.
 */
static void dev_expire_stops_at_target(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	unsigned int budget = HWTD_HOLD_MAX;
	struct hwtd_hold hold = { };
	struct hwtimer_expiry r[2];
	u64 early, late;
	bool done;

	early = kd_arm(test, file, KD_EPOCH, kd_tick_time(5), 0, 0, 1);
	late = kd_arm(test, file, KD_EPOCH, kd_tick_time(20), 0, 0, 2);
	WRITE_ONCE(file->manual_now, kd_tick_time(30));
	spin_lock_irq(&file->lock);
	file->target = 10;
	done = hwtd_expire(file, &hold, &budget);
	hwtd_hold_end(file, &hold);
	KUNIT_EXPECT_TRUE_MSG(test, done, "a pass to tick 10 was not done with it");
	KUNIT_EXPECT_EQ_MSG(test, 10, file->clk, "the wheel's clock did not stop at the target");
	KUNIT_EXPECT_EQ_MSG(test, 1, file->nqueued, "records of a pass to tick 10");
	spin_unlock_irq(&file->lock);
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 2));
	KUNIT_EXPECT_EQ_MSG(test, early, r[0].id, "the timeout of tick 5 did not expire first");
	/* The next pass, begun at tick 30, takes the one of tick 20. */
	hwtd_kunit_run(file, kd_tick_time(30));
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 2));
	KUNIT_EXPECT_EQ_MSG(test, late, r[0].id, "the timeout of tick 20 did not expire next");
	KUNIT_EXPECT_EQ(test, 0, file->nlive);
	hwtd_file_destroy_manual(file);
}

/*
 * Periodic: re-armed when its record is read, for the first period after
 * the read, the periods skipped counted; one record in the kernel at most.
 */
static void dev_periodic(struct kunit *test)
{
	struct hwtd_file *file = kd_file(test);
	u64 period = 10 * KD_TICK, dl = KD_EPOCH + period, id;
	struct hwtimer_expiry r[4];

	id = kd_arm(test, file, KD_EPOCH, dl, period, 0, 9);
	hwtd_kunit_run(file, dl + 35 * KD_TICK);
	hwtd_kunit_run(file, dl + 55 * KD_TICK);
	KUNIT_EXPECT_EQ(test, 1, file->nqueued);
	WRITE_ONCE(file->manual_now, dl + 55 * KD_TICK);
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 4));
	KUNIT_EXPECT_EQ(test, id, r[0].id);
	KUNIT_EXPECT_EQ(test, dl, r[0].deadline_ns);
	KUNIT_EXPECT_EQ(test, dl + 35 * KD_TICK, r[0].expired_ns);
	KUNIT_EXPECT_EQ(test, 5, r[0].overrun);
	KUNIT_EXPECT_EQ(test, HWTIMER_EXPIRY_REARMED, r[0].flags);
	/* Next: the first period after the read, dl + 6 periods. */
	hwtd_kunit_run(file, dl + 6 * period - 1);
	KUNIT_EXPECT_EQ(test, 0, file->nqueued);
	hwtd_kunit_run(file, dl + 6 * period);
	KUNIT_ASSERT_EQ(test, 1, hwtd_kunit_read(file, r, 4));
	KUNIT_EXPECT_EQ(test, dl + 6 * period, r[0].deadline_ns);
	KUNIT_EXPECT_EQ(test, 0, kd_cancel(file, id));
	hwtd_file_destroy_manual(file);
}

static struct kunit_case dev_cases[] = {
	KUNIT_CASE(dev_exact_near),
	KUNIT_CASE(dev_exact_cascades),
	KUNIT_CASE(dev_exact_far),
	KUNIT_CASE(dev_exact_modify),
	KUNIT_CASE(dev_modify_in_place),
	KUNIT_CASE(dev_slack),
	KUNIT_CASE(dev_ids),
	KUNIT_CASE(dev_chunks),
	KUNIT_CASE(dev_leaves),
	KUNIT_CASE(dev_chunked),
	KUNIT_CASE(dev_expire_stops_at_target),
	KUNIT_CASE(dev_periodic),
	{}
};

static struct kunit_suite dev_suite = {
	.name = "hwtimer_dev",
	.test_cases = dev_cases,
};

kunit_test_suites(&dev_suite);
