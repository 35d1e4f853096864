// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: many timeouts behind one file descriptor.
 *
 * User space arms, cancels and modifies timeouts in batches with ioctl()
 * and reads their expirations as struct hwtimer_expiry records; the ABI is
 * include/uapi/linux/hwtimer.h and the manual page docs/hwtimer.4.
 *
 * Every timeout is a struct hwtd_timeout from a dedicated kmem_cache,
 * charged to the caller's memory cgroup. It embeds the wheel timer and the
 * list node that queues its record, so an expiry allocates nothing and the
 * memory of a file is bounded by the number of timeouts it holds, which
 * the per-file, per-user and global caps bound in turn.
 *
 * Life of a timeout (hwtd_timeout::state; every change under the file lock):
 *
 *   NEW      the arm ioctl is setting it up; an arm that fails frees it
 *    |
 *   PENDING  waits for its deadline <----------------------------+
 *    |  the callback, at the deadline                            |
 *   QUEUED   its record is on the ready list -- read(), periodic +
 *    |  read() of a one-shot; or a cancel (from PENDING too)
 *   DEAD     out of the id table; freed by whoever made it DEAD
 *
 * A modify takes PENDING or QUEUED back to PENDING, dropping the record.
 * A deadline that is already due when it is set, by an arm, a modify or
 * the re-arm of a periodic timeout, goes straight to QUEUED.
 *
 * A periodic timeout is armed again by read(), not by its callback, for the
 * first period that ends after the read, with the periods skipped
 * meanwhile reported as overruns (as fs/timerfd.c does): a tiny period
 * that nobody reads costs nothing, and a timeout has at most one record
 * queued.
 *
 * Identifiers: a file numbers its timeouts 1, 2, 3, ... with a 64-bit
 * counter, so it never hands out an id twice and a stale id cannot reach a
 * newer timeout. The live ones are in the id table, a red-black tree by id,
 * whose node is in the timeout itself: looking an id up costs O(log n)
 * under the file lock (a new id, the greatest, goes in with no walk; see
 * hwtd_id_insert() for when it is not the greatest), and
 * the table costs no memory beyond the timeouts, whatever ids are live
 * (an xarray indexed by id keeps a 576-byte node for a single live id
 * among 64, which a user who arms 64 and cancels 63 can make the case for
 * every timeout).
 *
 * Expiry runs in the wheel's callback (softirq context for the default
 * wheel). It may race with cancel, modify, read() and close() on other
 * CPUs; the rules that make this safe are on struct hwtd_file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/time_namespace.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <uapi/linux/hwtimer.h>

#include "hwtimer_compat.h"
#include "hwtimer_internal.h"

static unsigned int file_cap = 262144;
module_param(file_cap, uint, 0644);
MODULE_PARM_DESC(file_cap, "Most timeouts one open file of /dev/hwtimer may hold (default 262144)");

static unsigned int global_cap = 1048576;
module_param(global_cap, uint, 0644);
MODULE_PARM_DESC(global_cap, "Most timeouts all open files of /dev/hwtimer may hold together (default 1048576)");

static unsigned int user_cap = 524288;
module_param(user_cap, uint, 0644);
MODULE_PARM_DESC(user_cap, "Most timeouts the open files of one user (real uid of the opener) may hold together (default 524288)");

/*
 * Records one read() pass takes off the ready list per taking of the file
 * lock, and so the most timeouts it frees at once. A read() starts with a
 * buffer of HWTD_READ_STACK records on its stack; only when that came back
 * full and the caller wants more does it allocate a chunk buffer (charged
 * to its memory cgroup, freed before it returns), and if that fails it
 * goes on with the stack buffer.
 */
#define HWTD_READ_CHUNK		64
#define HWTD_READ_STACK		8

/**
 * enum hwtd_state - where a timeout is in its life
 * @HWTD_NEW: in the id table while the arm ioctl sets it up; invisible to
 *           cancel and modify, and its wheel timer was never started
 * @HWTD_PENDING: waiting for its deadline; its wheel timer is pending, or
 *               its callback is about to run
 * @HWTD_QUEUED: expired; its record is on the file's ready list
 * @HWTD_DEAD: out of the id table, to be freed by whoever took it out once
 *            no callback can run any more
 */
enum hwtd_state {
	HWTD_NEW,
	HWTD_PENDING,
	HWTD_QUEUED,
	HWTD_DEAD,
};

/**
 * struct hwtd_user - the timeouts of one user, for the per-user cap
 * @uid: the real uid, in the initial user namespace, of the credentials
 *       that opened the files (file->f_cred->uid)
 * @refs: open files of this user; the last one to close frees it
 * @count: timeouts all files of this user hold; what the per-user cap
 *         counts. Changed only with the global count, by hwtd_charge_n() and
 *         hwtd_uncharge_n().
 *
 * A timeout is charged to the user who opened its file, whoever arms it
 * through that file later (a file passed to another process), as inotify
 * charges its watches to the user who created the instance.
 */
struct hwtd_user {
	kuid_t			uid;
	refcount_t		refs;
	atomic_long_t		count;
};

/**
 * struct hwtd_file - the state of one open file of /dev/hwtimer
 * @lock: the file lock, taken with interrupts disabled, so that it can be
 *        taken from the wheel's callbacks. It protects @ids, @last,
 *        @ready, @nlive, @nqueued, @next_id, @nbusy, @wheel, @precision,
 *        @boottime
 *        and the @rb, @state, @node, @deadline, @period, @slack, @expired,
 *        @inflight and @need_sync members of every timeout of the file.
 *
 *        Nesting: the file lock is taken before a wheel base lock (timers
 *        are started, modified and cancelled under it); nothing else is
 *        taken inside: @wq is woken only after it is dropped. The callback
 *        takes it with no hwtimer lock held.
 *        Neither hwtimer_cancel_sync() nor hwtimer_shutdown_sync() is ever
 *        called under it: they wait for callbacks, which take it. Nothing is
 *        copied to or from user space under it.
 *
 *        Freeing a timeout: whoever moves it to %HWTD_DEAD under the file lock
 *        frees it after dropping the lock. A callback does all its work on
 *        the timeout under the lock, so once no arming of the timer is in
 *        flight (@inflight, counted under the lock) nothing can touch the
 *        timeout any more and it is freed at once; otherwise (@need_sync)
 *        only after hwtimer_cancel_sync() says the callback is not running
 *        (a callback that takes the lock meanwhile finds it %HWTD_DEAD and
 *        leaves it alone).
 *
 *        Freeing the file: a callback may still wake @wq after dropping the
 *        file lock, when its timeout may already be freed and no longer in
 *        @ids, so close() cannot wait for it with hwtimer_shutdown_sync().
 *        The callback therefore enters an RCU read-side critical section
 *        before it drops the lock and leaves it after the wakeup, and
 *        close() frees the file with kfree_rcu(): the file outlives every
 *        wakeup begun before close() found the file lock free. Nobody waits
 *        on @wq by then (epoll drops its entries before ->release(), readers
 *        and pollers hold a reference to the file), so such a late wakeup
 *        finds nobody to wake.
 * @ids: the live timeouts (%HWTD_NEW, %HWTD_PENDING, %HWTD_QUEUED) by id
 * @last: the node in @ids with the greatest id, NULL when @ids is empty
 * @ready: timeouts in %HWTD_QUEUED state, oldest expiry first
 * @wq: readers and pollers wait here for @nqueued to become non-zero.
 *      It is woken only when @nqueued goes from 0 to 1 (see hwtd_queue()),
 *      never under the file lock, so the cost of a wakeup (one callback
 *      per waiter: the epoll instances that watch the file, as often as
 *      they watch it) does not grow with the number of records queued.
 * @wheel: the wheel the timeouts run on, chosen by @precision and
 *         @boottime
 * @user: the user the timeouts are charged to; set at open, put at close
 * @nlive: timeouts in @ids; what the per-file cap counts
 * @nqueued: timeouts on @ready
 * @next_id: the id the next timeout gets (ids start at 1)
 * @nbusy: batch ioctls in progress on the file
 * @precision: HWTIMER_PRECISION_* of the file (HWTIMER_IOC_CONFIG)
 * @boottime: the file's clock is CLOCK_BOOTTIME, else CLOCK_MONOTONIC
 * @rcu: for the kfree_rcu() of close(), see the file lock above
 *
 * The configuration (@wheel, @precision, @boottime) changes only while
 * @nlive and @nbusy are both zero (hwtd_config()), so it stays the same
 * for the whole life of every timeout and every batch: a batch or a
 * timeout that reads it once, even without the lock, sees the value that
 * holds for as long as it runs or lives.
 */
struct hwtd_file {
	spinlock_t		lock;	/* the file lock, see above */
	struct rb_root		ids;
	struct rb_node		*last;
	struct list_head	ready;
	wait_queue_head_t	wq;
	struct hwtimer_wheel	*wheel;
	struct hwtd_user		*user;
	unsigned long		nlive;
	unsigned long		nqueued;
	u64			next_id;
	unsigned int		nbusy;
	u8			precision;
	bool			boottime;
	struct rcu_head		rcu;
};

/**
 * struct hwtd_timeout - one timeout of an open file
 * @timer: the wheel timer
 * @hf: the file it belongs to
 * @rb: in @hf->ids while it is live (not %HWTD_DEAD)
 * @node: in @hf->ready while %HWTD_QUEUED; on a private list while being
 *        freed
 * @id: the identifier user space knows it by
 * @cookie: the caller's cookie
 * @deadline: the deadline now, host ns of the file's clock (not of any
 *            time namespace: see hwtd_timens_offset())
 * @period: period in ns, 0 for a one-shot timeout
 * @slack: how late past @deadline it may expire, in ns (from the arm)
 * @expired: when the callback found the deadline reached, host time
 * @inflight: armings of @timer whose callback has not yet taken the file
 *            lock: each start of the idle timer adds one, a cancel that
 *            stops a pending arming and each callback take one away. Zero
 *            means no callback can touch the timeout any more.
 * @need_sync: set when the timeout became %HWTD_DEAD with @inflight not
 *             zero: hwtd_free_list() must then wait for the callback
 * @state: see enum hwtd_state
 *
 * Members after @hf are under the file lock, except @id and @cookie, which
 * do not change once the timeout is in @hf->ids.
 */
struct hwtd_timeout {
	struct hwtimer		timer;
	struct hwtd_file		*hf;
	struct rb_node		rb;
	struct list_head	node;
	u64			id;
	u64			cookie;
	u64			deadline;
	u64			period;
	u64			slack;
	u64			expired;
	u16			inflight;
	bool			need_sync;
	enum hwtd_state		state;
};

/* The ABI has the same layout everywhere: sizes fixed, no implicit padding. */
static_assert(sizeof(struct hwtimer_info) == 96);
static_assert(sizeof(struct hwtimer_config) == 32);
static_assert(sizeof(struct hwtimer_arm_entry) == 64);
static_assert(sizeof(struct hwtimer_get_entry) == 80);
static_assert(sizeof(struct hwtimer_cancel_entry) == 24);
static_assert(sizeof(struct hwtimer_modify_entry) == 48);
static_assert(sizeof(struct hwtimer_batch) == 40);
static_assert(sizeof(struct hwtimer_expiry) == 48);

static struct kmem_cache *hwtd_cache;
static atomic_long_t hwtd_global_count = ATOMIC_LONG_INIT(0);

/*
 * The users with files open, indexed by uid (the kuid's value): an xarray,
 * so that finding, adding and removing a user costs the same however many
 * users have files open (a user with many subordinate uids can make tens
 * of thousands of them).
 *
 * The xarray's lock protects the entries and every change of a user's
 * @refs: hwtd_user_put() drops a reference and, if it was the last, erases
 * the user under the lock, so a user found under the lock has @refs >= 1
 * and may be taken with refcount_inc(). @count is atomic and needs no
 * lock. Taken in process context only (open and close), with no other
 * lock held; __xa_insert() may drop it to allocate a node. Its nodes are
 * charged to the memory cgroup of the open that needs them
 * (XA_FLAGS_ACCOUNT: without it, nodes allocated under the lock are not).
 */
static DEFINE_XARRAY_FLAGS(hwtd_users, XA_FLAGS_ACCOUNT);

static void hwtd_lockdep_assert(struct hwtd_file *hf)
{
	lockdep_assert_held(&hf->lock);
}

static void hwtd_wake(struct hwtd_file *hf)
{
	wake_up_poll(&hf->wq, EPOLLIN | EPOLLRDNORM);
}

/* The host time of @hf's clock now (see hwtd_timens_offset()). */
static u64 hwtd_now(const struct hwtd_file *hf)
{
	return hf->boottime ? ktime_get_boottime_ns() : ktime_get_ns();
}

/**
 * hwtd_user_get() - take a reference to a user, creating it if needed
 * @uid: the real uid of the opener
 *
 * Context: process; may sleep (allocates with %GFP_KERNEL_ACCOUNT).
 * Return: the user, or NULL when it had to be allocated and that failed.
 */
static struct hwtd_user *hwtd_user_get(kuid_t uid)
{
	unsigned long index = __kuid_val(uid);
	struct hwtd_user *u, *new = NULL;
	int ret;

	for (;;) {
		xa_lock(&hwtd_users);
		u = xa_load(&hwtd_users, index);
		if (u) {
			refcount_inc(&u->refs);
			xa_unlock(&hwtd_users);
			kfree(new);
			return u;
		}
		if (new)
			break;
		xa_unlock(&hwtd_users);
		new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
		if (!new)
			return NULL;
		new->uid = uid;
		refcount_set(&new->refs, 1);
		atomic_long_set(&new->count, 0);
		/* Look again: another open may have added the user meanwhile. */
	}
	/* -EBUSY: another open added it while the lock was dropped. */
	ret = __xa_insert(&hwtd_users, index, new, GFP_KERNEL_ACCOUNT);
	if (ret == -EBUSY) {
		u = xa_load(&hwtd_users, index);
		refcount_inc(&u->refs);
	}
	xa_unlock(&hwtd_users);
	if (!ret)
		return new;
	kfree(new);
	return ret == -EBUSY ? u : NULL;
}

/**
 * hwtd_user_put() - drop a reference taken by hwtd_user_get()
 * @u: the user
 *
 * Frees @u when its last file closes; by then its files have freed all
 * their timeouts, so its count is zero.
 *
 * Context: process.
 */
static void hwtd_user_put(struct hwtd_user *u)
{
	bool last;

	xa_lock(&hwtd_users);
	last = refcount_dec_and_test(&u->refs);
	if (last)
		__xa_erase(&hwtd_users, __kuid_val(u->uid));
	xa_unlock(&hwtd_users);
	if (!last)
		return;
	WARN_ON_ONCE(atomic_long_read(&u->count));
	kfree(u);
}

/*
 * Add @n to @count unless that would take it above @cap. Unlike an
 * increment that is undone when it overshoots, this never lets the count
 * exceed the cap, not even for a moment, so callers that fail at the cap
 * cannot make a concurrent arm below it fail.
 */
static bool hwtd_count_add_below(atomic_long_t *count, long n, unsigned int cap)
{
	long c = atomic_long_read(count);

	do {
		if (c > (long)cap - n)
			return false;
	} while (!atomic_long_try_cmpxchg(count, &c, c + n));
	return true;
}

/**
 * hwtd_charge_n() - count @n more timeouts of @hf against the per-user and
 *                  the global cap
 * @hf: the file the timeouts are for
 * @n: how many, all or none
 *
 * hwtd_charge_n() and hwtd_uncharge_n() are the only places that change
 * the two counts, and they change both, so the counts cannot drift apart.
 *
 * The user's count is taken first: a user at its cap then fails without
 * touching the global count, so however often it retries it cannot make
 * another user's arm fail. A global failure briefly holds @n units of the
 * caller's own count, which is its own business.
 *
 * Return: 0, or -EDQUOT when @n more would take the files of @hf's user
 * above user_cap timeouts or all files above global_cap; then nothing is
 * charged.
 */
static int hwtd_charge_n(struct hwtd_file *hf, long n)
{
	if (!hwtd_count_add_below(&hf->user->count, n, READ_ONCE(user_cap)))
		return -EDQUOT;
	if (!hwtd_count_add_below(&hwtd_global_count, n, READ_ONCE(global_cap))) {
		atomic_long_sub(n, &hf->user->count);
		return -EDQUOT;
	}
	return 0;
}

static int hwtd_charge(struct hwtd_file *hf)
{
	return hwtd_charge_n(hf, 1);
}

/* Undo hwtd_charge_n() of @n timeouts of @hf. */
static void hwtd_uncharge_n(struct hwtd_file *hf, long n)
{
	atomic_long_sub(n, &hf->user->count);
	atomic_long_sub(n, &hwtd_global_count);
}

static void hwtd_uncharge(struct hwtd_file *hf)
{
	hwtd_uncharge_n(hf, 1);
}

/*
 * Put @t's record at the tail of the ready list, expired at @now.
 *
 * Returns true when the list was empty: only then must the caller wake
 * @hf->wq, after dropping the file lock. Everyone waiting on it saw the
 * list empty (the wait conditions are tested after joining the queue), so
 * a record added to a list that already had one wakes nobody who is not
 * already awake, and need not wake epoll either: edge-triggered users read
 * until EAGAIN (hwtimer(4)).
 */
static bool hwtd_queue(struct hwtd_file *hf, struct hwtd_timeout *t, u64 now)
{
	hwtd_lockdep_assert(hf);
	t->expired = now;
	t->state = HWTD_QUEUED;
	list_add_tail(&t->node, &hf->ready);
	return !hf->nqueued++;
}

static void hwtd_unqueue(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	hwtd_lockdep_assert(hf);
	list_del(&t->node);
	hf->nqueued--;
}

static bool hwtd_id_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct hwtd_timeout, rb)->id <
	       rb_entry(b, struct hwtd_timeout, rb)->id;
}

/*
 * Put @t, whose id was taken from @hf->next_id, in @hf->ids. Ids only
 * grow, so it usually goes to the right of every live timeout: it is
 * linked below @hf->last, which has no right child, with no walk down from
 * the root. Only when another batch took later ids and put them in first
 * (hwtd_arm_run() takes its ids before it inserts them) is there a walk.
 */
static void hwtd_id_insert(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	struct rb_node *last = hf->last;

	hwtd_lockdep_assert(hf);
	if (last && !hwtd_id_less(last, &t->rb)) {
		rb_add(&t->rb, &hf->ids, hwtd_id_less);
		return;
	}
	rb_link_node(&t->rb, last, last ? &last->rb_right : &hf->ids.rb_node);
	rb_insert_color(&t->rb, &hf->ids);
	hf->last = &t->rb;
}

static void hwtd_id_erase(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	hwtd_lockdep_assert(hf);
	if (hf->last == &t->rb)
		hf->last = rb_prev(&t->rb);
	rb_erase(&t->rb, &hf->ids);
}

/*
 * Take a timeout that is not on the ready list out of the id table. The
 * caller frees it with hwtd_free_list() after dropping the lock.
 */
static void hwtd_remove(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	hwtd_lockdep_assert(hf);
	hwtd_id_erase(hf, t);
	hf->nlive--;
	t->state = HWTD_DEAD;
	t->need_sync = t->inflight != 0;
}

/*
 * Arm @t's wheel timer for @deadline with @t's slack, counting a new arming
 * in @inflight; @now is the host clock the caller read for its whole call.
 */
static int hwtd_timer_set(struct hwtd_file *hf, struct hwtd_timeout *t,
			  u64 deadline, u64 now)
{
	int ret;

	hwtd_lockdep_assert(hf);
	/* 1: it replaced a pending arming, whose callback will not run. */
	ret = hwt_modify_range_abs_at(&t->timer, deadline, t->slack, now);
	if (!ret)
		t->inflight++;
	return ret;
}

/* Stop @t's wheel timer; a callback that already runs still comes. */
static void hwtd_timer_stop(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	hwtd_lockdep_assert(hf);
	if (hwtimer_cancel(&t->timer))
		t->inflight--;
}

/*
 * Take a %HWTD_PENDING or %HWTD_QUEUED timeout out of the file: it expires no
 * more and its record is gone. Returns the HWTIMER_STATUS_* it was in.
 */
static u32 hwtd_unlink(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	u32 status = HWTIMER_STATUS_PENDING;

	hwtd_lockdep_assert(hf);
	/* A callback that already runs will find HWTD_DEAD. */
	hwtd_timer_stop(hf, t);
	if (t->state == HWTD_QUEUED) {
		hwtd_unqueue(hf, t);
		status = HWTIMER_STATUS_EXPIRED;
	}
	hwtd_remove(hf, t);
	return status;
}

/*
 * Free the %HWTD_DEAD timeouts of @hf on @dead (linked by @node), in bulk:
 * the slab frees and the uncharge are done once per HWTD_FREE_BULK
 * timeouts, not once per timeout. Only if a callback was in flight when a
 * timeout died is there a callback to wait for: hwtimer_cancel_sync()
 * takes the wheel base lock, which read() and cancel thus avoid in the
 * common case.
 * Context: process; no file lock held.
 */
#define HWTD_FREE_BULK	16
static void hwtd_free_list(struct hwtd_file *hf, struct list_head *dead)
{
	void *objs[HWTD_FREE_BULK];
	struct hwtd_timeout *t, *tmp;
	size_t n = 0;

	list_for_each_entry_safe(t, tmp, dead, node) {
		if (t->need_sync) {
			/* Uncharge what is freed before waiting for a callback. */
			if (n) {
				kmem_cache_free_bulk(hwtd_cache, n, objs);
				hwtd_uncharge_n(hf, n);
				n = 0;
			}
			hwtimer_cancel_sync(&t->timer);
		}
		objs[n++] = t;
		if (n == ARRAY_SIZE(objs)) {
			kmem_cache_free_bulk(hwtd_cache, n, objs);
			hwtd_uncharge_n(hf, n);
			n = 0;
		}
	}
	if (n) {
		kmem_cache_free_bulk(hwtd_cache, n, objs);
		hwtd_uncharge_n(hf, n);
	}
}

static int hwtd_id_cmp(const void *key, const struct rb_node *node)
{
	u64 id = *(const u64 *)key, other = rb_entry(node, struct hwtd_timeout, rb)->id;

	return id < other ? -1 : id > other;
}

/* The live timeout @id names, or NULL (not for %HWTD_NEW ones). */
static struct hwtd_timeout *hwtd_lookup(struct hwtd_file *hf, u64 id)
{
	struct rb_node *node;
	struct hwtd_timeout *t;

	hwtd_lockdep_assert(hf);
	node = rb_find(&id, &hf->ids, hwtd_id_cmp);
	if (!node)
		return NULL;
	t = rb_entry(node, struct hwtd_timeout, rb);
	if (t->state != HWTD_PENDING && t->state != HWTD_QUEUED)
		return NULL;
	return t;
}

/*
 * The wheel callback. It runs with no hwtimer lock held and may race with
 * a cancel, modify or read() of the same timeout, so it decides under the
 * file lock whether the expiry still counts:
 *  - %HWTD_DEAD: the timeout was cancelled or consumed meanwhile;
 *  - %HWTD_QUEUED: a record is already queued (a modify made the timeout due
 *    while this callback was on its way);
 *  - the timer is pending again: a modify re-armed it while this callback
 *    was on its way; the new expiry fires on time.
 * Otherwise this is the expiry of the current deadline. The clock is read
 * after the pending test: a re-armed timer that already fired elsewhere
 * has passed its deadline, and the wheel never fires a timer before its
 * deadline, so no record's expiry time is ever before its deadline.
 */
static void hwtd_timeout_fn(struct hwtimer *timer)
{
	struct hwtd_timeout *t = from_hwtimer(t, timer, timer);
	struct hwtd_file *hf = t->hf;
	unsigned long flags;
	bool wake = false;

	/*
	 * Everything that touches @t is done under the file lock: once this
	 * callback has dropped it, whoever takes @t off the ready list may
	 * free it without waiting for the callback. The wakeup comes after,
	 * with interrupts on and the lock free, under rcu_read_lock() so that
	 * close() cannot free @hf meanwhile (see struct hwtd_file).
	 */
	spin_lock_irqsave(&hf->lock, flags);
	t->inflight--;
	if (t->state == HWTD_PENDING && !hwtimer_pending(timer))
		wake = hwtd_queue(hf, t, hwtd_now(hf));
	rcu_read_lock();
	spin_unlock_irqrestore(&hf->lock, flags);
	if (wake)
		hwtd_wake(hf);
	rcu_read_unlock();
}

/*
 * Clocks and time namespaces. Every time the device takes or gives is on
 * the file's clock (CLOCK_MONOTONIC, or CLOCK_BOOTTIME after
 * HWTIMER_IOC_CONFIG) as the calling task's time namespace shows it, the
 * clock clock_gettime() shows it; inside, deadlines are host times of that
 * clock, which the file's wheel runs on. Each call converts with the
 * namespace of the task that makes it, as timerfd_settime() and
 * clock_gettime() do, not with the opener's: a file passed to a task in
 * another time namespace shows that task the same timeouts on its own
 * clock. The namespace offset is the one of the file's clock: monotonic or
 * boottime, as timens_ktime_to_host() picks it by clockid for timerfd.
 *
 * timens_ktime_to_host() cannot serve: it calls do_timens_ktime_to_host()
 * and compares with init_time_ns, neither of which is exported to modules.
 * timens_add_monotonic() and timens_add_boottime() are inline and only
 * read the caller's offsets.
 */

/* The caller's offset of @hf's clock (namespace minus host), in ns. */
static s64 hwtd_timens_offset(const struct hwtd_file *hf)
{
	struct timespec64 ts = { };

	if (hf->boottime)
		timens_add_boottime(&ts);
	else
		timens_add_monotonic(&ts);
	return timespec64_to_ns(&ts);
}

/*
 * A time of the caller's namespace, at most KTIME_MAX, as host time. A time
 * before the namespace's offset (before the host's boot) is 0, long past;
 * as in do_timens_ktime_to_host().
 */
static u64 hwtd_time_to_host(u64 t, s64 offset)
{
	if (offset >= 0)
		return t < (u64)offset ? 0 : t - offset;
	return min_t(u64, t + (u64)-offset, KTIME_MAX);
}

/* A host time as the caller's namespace sees it, within [0, KTIME_MAX]. */
static u64 hwtd_time_from_host(u64 t, s64 offset)
{
	if (offset >= 0)
		return min_t(u64, t + offset, KTIME_MAX);
	return t < (u64)-offset ? 0 : t + offset;
}

/**
 * struct hwtd_clock - the time one batch works with
 * @now: host time of the file's clock, read once when the batch began
 * @offset: the caller's time namespace offset (hwtd_timens_offset())
 *
 * Every entry of a batch is relative to the same @now, and the clock is
 * read once per call, not per entry. @now may be a little in the past by
 * the time an entry is armed: a deadline it finds still ahead may then be
 * already due, which the wheel handles (it fires at its next tick, never
 * early); a deadline it finds due is due.
 */
struct hwtd_clock {
	u64	now;
	s64	offset;
};

static void hwtd_clock_read(const struct hwtd_file *hf, struct hwtd_clock *clk)
{
	clk->offset = hwtd_timens_offset(hf);
	clk->now = hwtd_now(hf);
}

/*
 * Timeout objects an ARM batch allocates, and a CANCEL batch frees, at a
 * time: kmem_cache_alloc_bulk() takes the slab's fast path once and
 * charges the memory cgroup once for all of them (6.1; later kernels
 * charge each from a per-CPU stock), which costs about a third of what
 * allocating them one by one does.
 */
#define HWTD_BULK	HWTD_FREE_BULK

/**
 * struct hwtd_ctx - what the entries of one batch call share
 * @clk: the clock, read once for the whole call
 * @left: entries of the call not yet processed, the current one included
 * @objs: zeroed objects allocated in bulk and not yet used
 * @nobjs: how many @objs holds
 * @dead: %HWTD_DEAD timeouts a cancel took out, to be freed in bulk
 * @ndead: how many @dead holds
 * @norun: entries to process one by one before a run is tried again
 *         (hwtd_arm_run())
 *
 * At most HWTD_BULK - 1 objects are allocated beyond what the call uses,
 * and at most HWTD_BULK dead timeouts wait to be freed; hwtd_ctx_end()
 * frees both before the call returns.
 */
struct hwtd_ctx {
	struct hwtd_clock	clk;
	u32			left;
	unsigned int		nobjs;
	void			*objs[HWTD_BULK];
	struct list_head	dead;
	unsigned int		ndead;
	u32			norun;
};

/*
 * A zeroed object for a new timeout: from @ctx's bulk allocation, which is
 * refilled for up to HWTD_BULK of the entries left when it is empty, or,
 * for the last entry of a call or when the bulk allocation fails, on its
 * own.
 */
static struct hwtd_timeout *hwtd_obj_alloc(struct hwtd_ctx *ctx)
{
	if (!ctx->nobjs && ctx->left > 1)
		ctx->nobjs = hwt_kmem_cache_alloc_bulk(hwtd_cache,
						       GFP_KERNEL_ACCOUNT | __GFP_ZERO |
						       __GFP_NOWARN,
						       min_t(u32, ctx->left, HWTD_BULK),
						       ctx->objs);
	if (ctx->nobjs)
		return ctx->objs[--ctx->nobjs];
	return kmem_cache_zalloc(hwtd_cache, GFP_KERNEL_ACCOUNT);
}

/* Queue a %HWTD_DEAD timeout on @ctx to be freed in bulk. */
static void hwtd_free_later(struct hwtd_file *hf, struct hwtd_ctx *ctx,
			    struct hwtd_timeout *t)
{
	list_add_tail(&t->node, &ctx->dead);
	if (++ctx->ndead == HWTD_BULK) {
		hwtd_free_list(hf, &ctx->dead);
		INIT_LIST_HEAD(&ctx->dead);
		ctx->ndead = 0;
	}
}

static void hwtd_ctx_begin(struct hwtd_file *hf, struct hwtd_ctx *ctx, u32 count)
{
	hwtd_clock_read(hf, &ctx->clk);
	ctx->left = count;
	ctx->nobjs = 0;
	INIT_LIST_HEAD(&ctx->dead);
	ctx->ndead = 0;
	ctx->norun = 0;
}

/* Free what @ctx still holds. Context: process; no file lock held. */
static void hwtd_ctx_end(struct hwtd_file *hf, struct hwtd_ctx *ctx)
{
	if (ctx->nobjs)
		kmem_cache_free_bulk(hwtd_cache, ctx->nobjs, ctx->objs);
	if (ctx->ndead)
		hwtd_free_list(hf, &ctx->dead);
}

/*
 * Check the timing of an arm or modify entry and compute its absolute host
 * deadline from @clk->now (host time); an absolute @expires is a time of
 * the caller's namespace, whose offset is @clk->offset.
 */
static int hwtd_check_timing(struct hwtd_file *hf, u32 flags, u64 expires,
			     u64 period, const struct hwtd_clock *clk,
			     u64 *deadline)
{
	if (flags & ~HWTIMER_TIMEOUT_FLAGS)
		return -EINVAL;
	if (period && (period < hwtimer_wheel_tick_ns(hf->wheel) ||
		       period > (u64)KTIME_MAX))
		return -EINVAL;
	if (flags & HWTIMER_TIMEOUT_ABS) {
		if (expires > (u64)KTIME_MAX)
			return -EINVAL;
		*deadline = hwtd_time_to_host(expires, clk->offset);
	} else if (check_add_overflow(clk->now, expires, deadline)) {
		return -EINVAL;
	}
	if (*deadline > (u64)KTIME_MAX)
		return -EINVAL;
	return 0;
}

/*
 * Arm a %HWTD_NEW, %HWTD_PENDING or %HWTD_QUEUED timeout for @deadline and
 * @period, dropping a queued record; or, if @deadline is due, queue a fresh
 * record at once and set *@wake if the caller must wake the file's waiters
 * (see hwtd_queue()); *@wake is only ever set, never cleared, so a run of
 * entries can share one. Due means at or before @now, the host clock the
 * caller read for its whole call. On error nothing changes.
 */
static int hwtd_arm_locked(struct hwtd_file *hf, struct hwtd_timeout *t,
			   u64 deadline, u64 period, u64 now, bool *wake)
{
	int ret;

	hwtd_lockdep_assert(hf);
	if (deadline <= now) {
		/* A timer of an earlier arm may still be pending. */
		hwtd_timer_stop(hf, t);
	} else {
		ret = hwtd_timer_set(hf, t, deadline, now);
		if (ret < 0)
			return ret;
	}
	if (t->state == HWTD_QUEUED)
		hwtd_unqueue(hf, t);
	t->deadline = deadline;
	t->period = period;
	/*
	 * Stamped with the clock read now, under the file lock, as the
	 * callback stamps its records (at or after @now, so at or after the
	 * deadline): records then leave the ready list in the order of their
	 * expiry times, which a batch's @now, read before the batch began,
	 * would not give.
	 */
	if (deadline <= now)
		*wake |= hwtd_queue(hf, t, hwtd_now(hf));
	else
		t->state = HWTD_PENDING;
	return 0;
}

/*
 * Allocate a timeout and give it an id, within the caps. It is %HWTD_NEW:
 * in @hf->ids, counted, but not armed.
 */
static struct hwtd_timeout *hwtd_timeout_new(struct hwtd_file *hf, struct hwtd_ctx *ctx,
					     u64 cookie, u64 deadline, u64 period,
					     u64 slack)
{
	struct hwtd_timeout *t;
	int ret;

	spin_lock_irq(&hf->lock);
	if (hf->nlive >= READ_ONCE(file_cap)) {
		spin_unlock_irq(&hf->lock);
		return ERR_PTR(-ENOSPC);
	}
	hf->nlive++;
	spin_unlock_irq(&hf->lock);

	ret = hwtd_charge(hf);
	if (ret)
		goto out_unlive;

	t = hwtd_obj_alloc(ctx);
	if (!t) {
		ret = -ENOMEM;
		goto out_uncharge;
	}
	hwtimer_setup(&t->timer, hf->wheel, hwtd_timeout_fn);
	t->hf = hf;
	t->cookie = cookie;
	t->deadline = deadline;
	t->period = period;
	t->slack = slack;
	t->state = HWTD_NEW;

	/* A 64-bit counter does not wrap: ids are never reused. */
	spin_lock_irq(&hf->lock);
	t->id = hf->next_id++;
	hwtd_id_insert(hf, t);
	spin_unlock_irq(&hf->lock);
	return t;

out_uncharge:
	hwtd_uncharge(hf);
out_unlive:
	spin_lock_irq(&hf->lock);
	hf->nlive--;
	spin_unlock_irq(&hf->lock);
	return ERR_PTR(ret);
}

/* Undo hwtd_timeout_new() for a timeout that never left %HWTD_NEW. */
static void hwtd_timeout_discard(struct hwtd_file *hf, struct hwtd_timeout *t)
{
	spin_lock_irq(&hf->lock);
	hwtd_id_erase(hf, t);
	hf->nlive--;
	spin_unlock_irq(&hf->lock);
	kmem_cache_free(hwtd_cache, t);
	hwtd_uncharge(hf);
}

/* An arm entry's outputs, @result, @id and @deadline_ns, are adjacent. */
static_assert(offsetof(struct hwtimer_arm_entry, id) ==
	      offsetofend(struct hwtimer_arm_entry, result));
static_assert(offsetof(struct hwtimer_arm_entry, deadline_ns) ==
	      offsetofend(struct hwtimer_arm_entry, id));

/* Write bytes @off to @end of entry @ent back to @uent in one copy. */
static int hwtd_put_out(void __user *uent, const void *ent, size_t off, size_t end)
{
	if (copy_to_user((char __user *)uent + off, (const char *)ent + off, end - off))
		return -EFAULT;
	return 0;
}

/* Write the outputs of arm entry @ent back to @uent. */
static int hwtd_arm_put(struct hwtimer_arm_entry __user *uent,
			const struct hwtimer_arm_entry *ent)
{
	return hwtd_put_out(uent, ent, offsetof(struct hwtimer_arm_entry, result),
			    offsetofend(struct hwtimer_arm_entry, deadline_ns));
}

/*
 * The hwtd_*_one() functions process one entry of a batch. They return 0
 * when the entry was processed and its result written back (*@result is
 * that result), or -EFAULT when the entry could not be read or written:
 * then it changed nothing. To keep that promise, each writes every output
 * field of its entry before it acts (arm its final values, cancel and
 * modify zeroes: output fields are ignored on input), so that a part of
 * the entry that cannot be written is found before the action, not after.
 * Only if another thread makes the entry unwritable (munmap(), mprotect())
 * between that test and the final write-back can a cancel or modify act
 * and still fail with -EFAULT (hwtimer(4), BUGS).
 */
static int hwtd_arm_one(struct hwtd_file *hf, void __user *uptr,
			struct hwtd_ctx *ctx, int *result)
{
	const struct hwtd_clock *clk = &ctx->clk;
	struct hwtimer_arm_entry __user *uent = uptr;
	struct hwtimer_arm_entry ent;
	struct hwtd_timeout *t;
	bool wake = false;
	u64 deadline;
	int ret;

	if (copy_from_user(&ent, uent, sizeof(ent)))
		return -EFAULT;
	if (ent.reserved1 || ent.slack_ns > (u64)KTIME_MAX)
		ret = -EINVAL;
	else
		ret = hwtd_check_timing(hf, ent.flags, ent.expires_ns,
					ent.period_ns, clk, &deadline);
	if (ret)
		goto out_failed;

	t = hwtd_timeout_new(hf, ctx, ent.cookie, deadline, ent.period_ns,
			     ent.slack_ns);
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out_failed;
	}

	/*
	 * Hand out the id before the timeout can expire: another thread may
	 * read its record before this ioctl returns. Failing here leaves
	 * nothing armed.
	 */
	ent.result = 0;
	ent.id = t->id;
	ent.deadline_ns = hwtd_time_from_host(deadline, clk->offset);
	if (hwtd_arm_put(uent, &ent)) {
		hwtd_timeout_discard(hf, t);
		return -EFAULT;
	}

	spin_lock_irq(&hf->lock);
	ret = hwtd_arm_locked(hf, t, deadline, ent.period_ns, clk->now, &wake);
	spin_unlock_irq(&hf->lock);
	if (ret) {
		/* Its timer was never started. */
		hwtd_timeout_discard(hf, t);
		goto out_failed;
	}
	if (wake)
		hwtd_wake(hf);
	*result = 0;
	return 0;

out_failed:
	ent.result = ret;
	ent.id = 0;
	ent.deadline_ns = 0;
	if (hwtd_arm_put(uent, &ent))
		return -EFAULT;
	*result = ret;
	return 0;
}

/*
 * Entries of an ARM or MODIFY batch taken together, as a run: one copy in
 * and one hold of the file lock for all of them, and for ARM one
 * reservation of the file cap and of the ids, one charge of the user and
 * global caps and one bulk allocation, where an entry on its own takes
 * three holds and two charges. A constant, so no hold of the file lock
 * grows with the batch; the copy of the entries is on the stack (1 KiB).
 */
#define HWTD_RUN	HWTD_BULK

/*
 * Copy the first entries of a run, at most HWTD_RUN of the @count at
 * @uent, each @size bytes, into @ents. Return: how many, or 0 when there
 * are fewer than two or the copy faults; then @ctx->norun sends them one
 * by one, which finds the entry that faults.
 */
static u32 hwtd_run_copy(struct hwtd_ctx *ctx, void *ents, const void __user *uent,
			 u32 count, size_t size)
{
	u32 n = min_t(u32, count, HWTD_RUN);

	if (n < 2)
		return 0;
	if (copy_from_user(ents, uent, n * size)) {
		ctx->norun = n;
		return 0;
	}
	return n;
}

/*
 * Arm a run of up to HWTD_RUN entries of an ARM batch, the first
 * @count at @uent, as hwtd_arm_one() would arm them one after the other.
 * The run is the longest prefix of valid entries, and it is taken only
 * when every cap has room for all of it and its objects can be allocated
 * in bulk. Otherwise this returns 0 and sets @ctx->norun: the caller arms
 * that many entries on their own, which gives each its exact error.
 *
 * Return: the entries processed. All of them were armed, except perhaps
 * the last, whose result is *@result. If *@fault is set, the entry after
 * the last one processed could not be written back: it was not armed.
 * Outputs of entries not processed are left as they were.
 */
static u32 hwtd_arm_run(struct hwtd_file *hf, void __user *uptr, u32 count,
			struct hwtd_ctx *ctx, int *result, bool *fault)
{
	struct hwtimer_arm_entry __user *uent = uptr;
	const struct hwtd_clock *clk = &ctx->clk;
	struct hwtimer_arm_entry ents[HWTD_RUN], out;
	u64 deadline[HWTD_RUN], id;
	struct hwtd_timeout *t[HWTD_RUN];
	u32 n, m, armed, j;
	bool wake = false;
	int ret = 0;

	*result = 0;
	*fault = false;
	n = hwtd_run_copy(ctx, ents, uent, count, sizeof(ents[0]));
	for (m = 0; m < n; m++) {
		struct hwtimer_arm_entry *e = &ents[m];

		if (e->reserved1 || e->slack_ns > (u64)KTIME_MAX ||
		    hwtd_check_timing(hf, e->flags, e->expires_ns, e->period_ns,
				      clk, &deadline[m]))
			break;
	}
	if (!n)
		return 0;
	if (m < 2) {
		/* The valid ones and the one that is not, one by one. */
		ctx->norun = m + 1;
		return 0;
	}

	/* The caps in the order an entry takes them: file, user, global. */
	spin_lock_irq(&hf->lock);
	if (hf->nlive + m > READ_ONCE(file_cap)) {
		spin_unlock_irq(&hf->lock);
		goto out_norun;
	}
	hf->nlive += m;
	/* A 64-bit counter does not wrap: ids are never reused. */
	id = hf->next_id;
	hf->next_id += m;
	spin_unlock_irq(&hf->lock);
	if (hwtd_charge_n(hf, m))
		goto out_unlive;
	if (!kmem_cache_alloc_bulk(hwtd_cache, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
				   __GFP_NOWARN, m, (void **)t))
		goto out_uncharge;

	for (j = 0; j < m; j++) {
		hwtimer_setup(&t[j]->timer, hf->wheel, hwtd_timeout_fn);
		t[j]->hf = hf;
		t[j]->id = id + j;
		t[j]->cookie = ents[j].cookie;
		t[j]->slack = ents[j].slack_ns;
		t[j]->state = HWTD_NEW;
		/*
		 * Hand out the id before the timeout can expire: another
		 * thread may read its record before this ioctl returns.
		 */
		out.result = 0;
		out.id = t[j]->id;
		out.deadline_ns = hwtd_time_from_host(deadline[j], clk->offset);
		if (hwtd_arm_put(&uent[j], &out)) {
			*fault = true;
			break;
		}
	}

	spin_lock_irq(&hf->lock);
	for (armed = 0; armed < j; armed++) {
		hwtd_id_insert(hf, t[armed]);
		ret = hwtd_arm_locked(hf, t[armed], deadline[armed],
				      ents[armed].period_ns, clk->now, &wake);
		if (ret) {
			/* Its timer was never started. */
			hwtd_id_erase(hf, t[armed]);
			break;
		}
	}
	hf->nlive -= m - armed;
	spin_unlock_irq(&hf->lock);
	if (wake)
		hwtd_wake(hf);
	if (armed < m) {
		kmem_cache_free_bulk(hwtd_cache, m - armed, (void **)&t[armed]);
		hwtd_uncharge_n(hf, m - armed);
	}
	if (!ret)
		return armed;

	/* Entry @armed failed; put back the outputs of those after it. */
	*fault = false;
	for (j = armed + 1; j < m; j++)
		hwtd_arm_put(&uent[j], &ents[j]);
	out.result = ret;
	out.id = 0;
	out.deadline_ns = 0;
	if (hwtd_arm_put(&uent[armed], &out)) {
		*fault = true;
		return armed;
	}
	*result = ret;
	return armed + 1;

out_uncharge:
	hwtd_uncharge_n(hf, m);
out_unlive:
	spin_lock_irq(&hf->lock);
	hf->nlive -= m;
	spin_unlock_irq(&hf->lock);
out_norun:
	/* At a cap or short of memory: the rest of the batch one by one. */
	ctx->norun = U32_MAX;
	return 0;
}

static int hwtd_cancel_one(struct hwtd_file *hf, void __user *uptr,
			   struct hwtd_ctx *ctx, int *result)
{
	struct hwtimer_cancel_entry __user *uent = uptr;
	struct hwtimer_cancel_entry ent;
	struct hwtd_timeout *t = NULL;
	u32 status = 0;
	int ret = 0;

	if (copy_from_user(&ent, uent, sizeof(ent)))
		return -EFAULT;
	/* Make sure the results can be written before cancelling anything. */
	if (put_user(0, &uent->result) || put_user(0U, &uent->status))
		return -EFAULT;
	if (ent.flags || ent.reserved) {
		ret = -EINVAL;
	} else {
		spin_lock_irq(&hf->lock);
		t = hwtd_lookup(hf, ent.id);
		if (t)
			status = hwtd_unlink(hf, t);
		else
			ret = -ENOENT;
		spin_unlock_irq(&hf->lock);
		if (t)
			hwtd_free_later(hf, ctx, t);
	}
	if (put_user(ret, &uent->result) || put_user(status, &uent->status))
		return -EFAULT;
	*result = ret;
	return 0;
}

/* A modify entry's outputs, @result, @deadline_ns and @status, are adjacent. */
static_assert(offsetof(struct hwtimer_modify_entry, deadline_ns) ==
	      offsetofend(struct hwtimer_modify_entry, result));
static_assert(offsetof(struct hwtimer_modify_entry, status) ==
	      offsetofend(struct hwtimer_modify_entry, deadline_ns));

/* Write the outputs of modify entry @ent back to @uent. */
static int hwtd_modify_put(struct hwtimer_modify_entry __user *uent,
			   const struct hwtimer_modify_entry *ent)
{
	return hwtd_put_out(uent, ent, offsetof(struct hwtimer_modify_entry, result),
			    offsetofend(struct hwtimer_modify_entry, status));
}

/*
 * Modify timeout @id for @deadline and @period under the file lock, as
 * hwtd_arm_locked() does. Return: the entry's result; *@status gets its
 * status (0 on failure).
 */
static int hwtd_modify_locked(struct hwtd_file *hf, u64 id, u64 deadline,
			      u64 period, u64 now, bool *wake, u32 *status)
{
	struct hwtd_timeout *t = hwtd_lookup(hf, id);
	u32 was;
	int ret;

	*status = 0;
	if (!t)
		return -ENOENT;
	was = t->state == HWTD_QUEUED ? HWTIMER_STATUS_EXPIRED : HWTIMER_STATUS_PENDING;
	ret = hwtd_arm_locked(hf, t, deadline, period, now, wake);
	if (!ret)
		*status = was;
	return ret;
}

static int hwtd_modify_one(struct hwtd_file *hf, void __user *uptr,
			   struct hwtd_ctx *ctx, int *result)
{
	const struct hwtd_clock *clk = &ctx->clk;
	struct hwtimer_modify_entry __user *uent = uptr;
	struct hwtimer_modify_entry ent, out = { };
	u64 deadline = 0;
	bool wake = false;
	int ret;

	if (copy_from_user(&ent, uent, sizeof(ent)))
		return -EFAULT;
	/* Make sure the results can be written before modifying anything. */
	if (hwtd_modify_put(uent, &out))
		return -EFAULT;
	if (ent.reserved)
		ret = -EINVAL;
	else
		ret = hwtd_check_timing(hf, ent.flags, ent.expires_ns,
					ent.period_ns, clk, &deadline);
	if (ret)
		goto out;

	spin_lock_irq(&hf->lock);
	ret = hwtd_modify_locked(hf, ent.id, deadline, ent.period_ns, clk->now,
				 &wake, &out.status);
	spin_unlock_irq(&hf->lock);
	if (wake)
		hwtd_wake(hf);
out:
	out.result = ret;
	out.deadline_ns = ret ? 0 : hwtd_time_from_host(deadline, clk->offset);
	if (hwtd_modify_put(uent, &out))
		return -EFAULT;
	*result = ret;
	return 0;
}

/*
 * Modify a run of up to HWTD_RUN entries of a MODIFY batch, the first
 * @count at @uent, as hwtd_modify_one() would modify them one after the
 * other, with one copy in and one hold of the file lock for all. The run
 * is the longest prefix of valid entries, and it ends at the first entry
 * that fails (no such timeout, or a re-arm that fails). Otherwise as
 * hwtd_arm_run(), whose return value and outputs this shares.
 */
static u32 hwtd_modify_run(struct hwtd_file *hf, void __user *uptr, u32 count,
			   struct hwtd_ctx *ctx, int *result, bool *fault)
{
	struct hwtimer_modify_entry __user *uent = uptr;
	const struct hwtd_clock *clk = &ctx->clk;
	struct hwtimer_modify_entry ents[HWTD_RUN], out = { };
	u64 deadline[HWTD_RUN];
	u32 status[HWTD_RUN];
	u32 n, m, done, j;
	bool wake = false;
	int ret = 0;

	*result = 0;
	*fault = false;
	n = hwtd_run_copy(ctx, ents, uent, count, sizeof(ents[0]));
	for (m = 0; m < n; m++) {
		struct hwtimer_modify_entry *e = &ents[m];

		if (e->reserved || hwtd_check_timing(hf, e->flags, e->expires_ns,
						     e->period_ns, clk, &deadline[m]))
			break;
	}
	if (!n)
		return 0;
	if (m < 2) {
		ctx->norun = m + 1;
		return 0;
	}
	/* Make sure the results can be written before modifying anything. */
	for (j = 0; j < m; j++) {
		if (hwtd_modify_put(&uent[j], &out)) {
			*fault = true;
			break;
		}
	}
	m = j;

	spin_lock_irq(&hf->lock);
	for (done = 0; done < m && !ret; done++)
		ret = hwtd_modify_locked(hf, ents[done].id, deadline[done],
					 ents[done].period_ns, clk->now, &wake,
					 &status[done]);
	spin_unlock_irq(&hf->lock);
	if (wake)
		hwtd_wake(hf);

	if (ret) {
		/*
		 * The run ends at the entry that failed: put back what those
		 * after it had, the one whose zeroing faulted included.
		 */
		for (j = done; j < m + *fault; j++)
			hwtd_modify_put(&uent[j], &ents[j]);
		*fault = false;
	}
	for (j = 0; j < done; j++) {
		bool failed = ret && j == done - 1;

		out.result = failed ? ret : 0;
		out.deadline_ns = failed ? 0 : hwtd_time_from_host(deadline[j], clk->offset);
		out.status = status[j];
		if (hwtd_modify_put(&uent[j], &out)) {
			*fault = true;
			return j;
		}
	}
	*result = ret;
	return done;
}

/*
 * A query: the timeout's state, read under the file lock, and written back
 * after it is dropped. It changes nothing, so an entry that cannot be
 * written back fails with -EFAULT having done nothing. Each entry reads
 * the clock itself, under the lock, for its @remaining_ns.
 */
static int hwtd_get_one(struct hwtd_file *hf, void __user *uptr,
			struct hwtd_ctx *ctx, int *result)
{
	const struct hwtd_clock *clk = &ctx->clk;
	struct hwtimer_get_entry __user *uent = uptr;
	struct hwtimer_get_entry ent;
	struct hwtd_timeout *t;
	u64 deadline = 0, period = 0, slack = 0, cookie = 0;
	u64 remaining = 0, overrun = 0, now;
	u32 status = 0;
	int ret = 0;

	if (copy_from_user(&ent, uent, sizeof(ent)))
		return -EFAULT;
	if (ent.flags || ent.reserved || ent.reserved2) {
		ret = -EINVAL;
	} else {
		spin_lock_irq(&hf->lock);
		t = hwtd_lookup(hf, ent.id);
		if (t) {
			now = hwtd_now(hf);
			cookie = t->cookie;
			deadline = t->deadline;
			period = t->period;
			slack = t->slack;
			if (t->state == HWTD_QUEUED) {
				status = HWTIMER_STATUS_EXPIRED;
				/* What hwtd_forward() would count if read now. */
				if (period && now > deadline)
					overrun = div64_u64(now - deadline, period);
			} else {
				status = HWTIMER_STATUS_PENDING;
				if (deadline > now)
					remaining = deadline - now;
			}
		} else {
			ret = -ENOENT;
		}
		spin_unlock_irq(&hf->lock);
	}
	if (!ret)
		deadline = hwtd_time_from_host(deadline, clk->offset);
	if (put_user(ret, &uent->result) || put_user(status, &uent->status) ||
	    put_user(cookie, &uent->cookie) ||
	    put_user(deadline, &uent->deadline_ns) ||
	    put_user(period, &uent->period_ns) ||
	    put_user(remaining, &uent->remaining_ns) ||
	    put_user(overrun, &uent->overrun) || put_user(slack, &uent->slack_ns))
		return -EFAULT;
	*result = ret;
	return 0;
}

/*
 * Run @one over the entries of a batch, or @run, where given, over runs of
 * them (0 from @run: @one takes the next entry). The clock is read once,
 * before the first entry: every relative time in the batch counts from
 * that moment.
 * The batch counts in @hf->nbusy while it runs, which keeps the file's
 * configuration, and so its clock and wheel, as they were when it began.
 */
static long hwtd_batch(struct hwtd_file *hf, struct hwtimer_batch __user *ubatch,
		       size_t entry_size,
		       int (*one)(struct hwtd_file *hf, void __user *uptr,
				  struct hwtd_ctx *ctx, int *result),
		       u32 (*run)(struct hwtd_file *hf, void __user *uptr, u32 count,
				  struct hwtd_ctx *ctx, int *result, bool *fault))
{
	struct hwtimer_batch batch;
	struct hwtd_ctx ctx;
	char __user *uent;
	u32 done, failed = 0, n;
	bool fault;
	int ret = 0, result;

	if (copy_from_user(&batch, ubatch, sizeof(batch)))
		return -EFAULT;
	if ((batch.flags & ~HWTIMER_BATCH_FLAGS) || batch.reserved[0] ||
	    batch.reserved[1] || !batch.count)
		return -EINVAL;
	if (batch.count > HWTIMER_BATCH_MAX)
		return -E2BIG;
	uent = u64_to_user_ptr(batch.entries);
	if (!access_ok(uent, (size_t)batch.count * entry_size))
		return -EFAULT;
	/* The counters must be writable before any entry is acted on. */
	if (put_user(0U, &ubatch->done) || put_user(0U, &ubatch->failed))
		return -EFAULT;

	spin_lock_irq(&hf->lock);
	hf->nbusy++;
	spin_unlock_irq(&hf->lock);
	hwtd_ctx_begin(hf, &ctx, batch.count);
	for (done = 0; done < batch.count; done += n, ctx.left -= n) {
		n = 0;
		if (run && !ctx.norun) {
			n = run(hf, uent + (size_t)done * entry_size,
				batch.count - done, &ctx, &result, &fault);
			if (fault) {
				done += n;
				ret = -EFAULT;
				break;
			}
		}
		if (!n) {
			ret = one(hf, uent + (size_t)done * entry_size, &ctx, &result);
			if (ret)
				break;
			n = 1;
			if (ctx.norun)
				ctx.norun--;
		}
		if (result) {
			failed++;
			if (!(batch.flags & HWTIMER_BATCH_CONTINUE)) {
				ret = result;
				done += n;
				break;
			}
		}
		cond_resched();
	}
	hwtd_ctx_end(hf, &ctx);
	spin_lock_irq(&hf->lock);
	hf->nbusy--;
	spin_unlock_irq(&hf->lock);

	if (put_user(done, &ubatch->done) || put_user(failed, &ubatch->failed))
		return -EFAULT;
	return ret;
}

/*
 * HWTIMER_IOC_CONFIG: the file's clock and precision, only while it holds
 * no timeout and no batch runs on it (see struct hwtd_file).
 */
static long hwtd_config(struct hwtd_file *hf, struct hwtimer_config __user *ucfg)
{
	struct hwtimer_config cfg;
	struct hwtimer_wheel *wheel;
	unsigned int clock;
	long ret = 0;

	if (copy_from_user(&cfg, ucfg, sizeof(cfg)))
		return -EFAULT;
	if (cfg.reserved[0] || cfg.reserved[1] || cfg.reserved[2])
		return -EINVAL;
	if (cfg.clockid == CLOCK_MONOTONIC)
		clock = 0;
	else if (cfg.clockid == CLOCK_BOOTTIME)
		clock = 1;
	else
		return -EINVAL;
	wheel = hwt_dev_wheel(cfg.precision, clock);
	if (!wheel)
		return -EINVAL;

	spin_lock_irq(&hf->lock);
	if (hf->nlive || hf->nbusy) {
		ret = -EBUSY;
	} else {
		hf->wheel = wheel;
		hf->precision = cfg.precision;
		hf->boottime = clock;
	}
	spin_unlock_irq(&hf->lock);
	return ret;
}

static long hwtd_info(struct hwtd_file *hf, struct hwtimer_info __user *uinfo)
{
	struct hwtimer_info info;

	memset(&info, 0, sizeof(info));
	info.abi_version = HWTIMER_ABI_VERSION;
	info.batch_max = HWTIMER_BATCH_MAX;
	info.record_size = sizeof(struct hwtimer_expiry);
	info.file_cap = READ_ONCE(file_cap);
	info.global_cap = READ_ONCE(global_cap);
	info.global_count = atomic_long_read(&hwtd_global_count);
	info.user_cap = READ_ONCE(user_cap);
	info.user_count = atomic_long_read(&hf->user->count);
	spin_lock_irq(&hf->lock);
	info.pending = hf->nlive - hf->nqueued;
	info.queued = hf->nqueued;
	info.tick_ns = hwtimer_wheel_tick_ns(hf->wheel);
	info.slots = hwtimer_wheel_slots(hf->wheel);
	info.precision = hf->precision;
	info.flags = hf->boottime ? HWTIMER_INFO_BOOTTIME : 0;
	spin_unlock_irq(&hf->lock);

	return copy_to_user(uinfo, &info, sizeof(info)) ? -EFAULT : 0;
}

static long hwtd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hwtd_file *hf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case HWTIMER_IOC_INFO:
		return hwtd_info(hf, argp);
	case HWTIMER_IOC_ARM:
		return hwtd_batch(hf, argp, sizeof(struct hwtimer_arm_entry),
				  hwtd_arm_one, hwtd_arm_run);
	case HWTIMER_IOC_CANCEL:
		return hwtd_batch(hf, argp, sizeof(struct hwtimer_cancel_entry),
				  hwtd_cancel_one, NULL);
	case HWTIMER_IOC_MODIFY:
		return hwtd_batch(hf, argp, sizeof(struct hwtimer_modify_entry),
				  hwtd_modify_one, hwtd_modify_run);
	case HWTIMER_IOC_GET:
		return hwtd_batch(hf, argp, sizeof(struct hwtimer_get_entry),
				  hwtd_get_one, NULL);
	case HWTIMER_IOC_CONFIG:
		return hwtd_config(hf, argp);
	default:
		return -ENOTTY;
	}
}

/*
 * Arm periodic @t again for the first period that ends after @now, and
 * report the periods it skips as overruns.
 */
static int hwtd_forward(struct hwtd_file *hf, struct hwtd_timeout *t, u64 now,
			u64 *overrun)
{
	u64 missed = 0, delta, next;
	int ret;

	hwtd_lockdep_assert(hf);
	if (now > t->deadline)
		missed = div64_u64(now - t->deadline, t->period);
	if (check_mul_overflow(missed + 1, t->period, &delta) ||
	    check_add_overflow(t->deadline, delta, &next) || next > (u64)KTIME_MAX)
		next = KTIME_MAX;

	ret = hwtd_timer_set(hf, t, next, now);
	if (ret < 0)
		return ret;
	*overrun = missed;
	t->deadline = next;
	t->state = HWTD_PENDING;
	return 0;
}

/*
 * Take up to @max records off the ready list into @recs. Periodic timeouts
 * are re-armed for the first period that ends after now, the clock read
 * once the lock is held: on PREEMPT_RT taking it may wait for callbacks,
 * and a stale clock would re-arm them in the past. One-shot timeouts (and
 * periodic ones that cannot be re-armed) go onto @dead for the caller to
 * free. *@offset gets the caller's time namespace offset of the file's
 * clock, read under the lock too: once the last record is taken, the file
 * may be configured for another clock.
 */
static unsigned int hwtd_dequeue(struct hwtd_file *hf, struct hwtimer_expiry *recs,
				 unsigned int max, struct list_head *dead,
				 s64 *offset)
{
	struct hwtd_timeout *t;
	unsigned int n = 0;
	u64 now;
	int ret;

	spin_lock_irq(&hf->lock);
	now = hwtd_now(hf);
	*offset = hwtd_timens_offset(hf);
	while (n < max && !list_empty(&hf->ready)) {
		struct hwtimer_expiry *rec = &recs[n++];

		t = list_first_entry(&hf->ready, struct hwtd_timeout, node);
		hwtd_unqueue(hf, t);
		memset(rec, 0, sizeof(*rec));
		rec->id = t->id;
		rec->cookie = t->cookie;
		rec->deadline_ns = t->deadline;
		rec->expired_ns = t->expired;
		if (t->period) {
			ret = hwtd_forward(hf, t, now, &rec->overrun);
			if (!ret) {
				rec->flags = HWTIMER_EXPIRY_REARMED;
				continue;
			}
			rec->error = ret;
		}
		hwtd_remove(hf, t);
		list_add_tail(&t->node, dead);
	}
	spin_unlock_irq(&hf->lock);
	return n;
}

/*
 * read(): whole records, oldest first. The file lock is held for at most
 * HWTD_READ_CHUNK records at a time (HWTD_READ_STACK when the chunk buffer
 * could not be allocated), never across a copy to user space;
 * between chunks the reader may be rescheduled, and a fatal signal ends
 * the read with the records copied so far. The clock is read once per
 * chunk, under the file lock (hwtd_dequeue()): a read() can last long,
 * and a periodic timeout re-armed from a stale clock would be due again
 * at once instead of counting overruns.
 */
static ssize_t hwtd_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct hwtimer_expiry stack_recs[HWTD_READ_STACK], *recs = stack_recs;
	struct hwtd_file *hf = file->private_data;
	size_t max = count / sizeof(*recs), chunk = HWTD_READ_STACK;
	size_t done = 0, left;
	ssize_t ret = 0;
	unsigned int n;

	if (!max)
		return -EINVAL;

	while (done < max) {
		LIST_HEAD(dead);
		s64 offset;

		/*
		 * Periodic timeouts re-armed by this read() may expire again
		 * while it runs, so a large buffer can keep it busy for long:
		 * let others run between chunks, and stop with what was copied
		 * when the task is being killed.
		 */
		if (done) {
			if (fatal_signal_pending(current))
				break;
			cond_resched();
			if (recs == stack_recs && chunk == HWTD_READ_STACK &&
			    done == HWTD_READ_STACK) {
				/* Once, after a full first chunk: more may come. */
				size_t want = min_t(size_t, max - done, HWTD_READ_CHUNK);
				struct hwtimer_expiry *p;

				p = kmalloc_array(want, sizeof(*p), GFP_KERNEL_ACCOUNT |
						  __GFP_NOWARN | __GFP_NORETRY);
				if (p) {
					recs = p;
					chunk = want;
				}
			}
		}
		n = hwtd_dequeue(hf, recs, min_t(size_t, max - done, chunk),
				 &dead, &offset);
		hwtd_free_list(hf, &dead);
		if (n) {
			unsigned int i;

			for (i = 0; offset && i < n; i++) {
				recs[i].deadline_ns =
					hwtd_time_from_host(recs[i].deadline_ns, offset);
				recs[i].expired_ns =
					hwtd_time_from_host(recs[i].expired_ns, offset);
			}
			/*
			 * Records taken off are consumed, as timerfd's ticks
			 * are: on a fault, the whole records copied count.
			 */
			left = copy_to_user(buf + done * sizeof(*recs), recs,
					    n * sizeof(*recs));
			if (left) {
				done += (n * sizeof(*recs) - left) / sizeof(*recs);
				if (!done)
					ret = -EFAULT;
				break;
			}
			done += n;
			continue;
		}
		if (done)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		ret = wait_event_interruptible(hf->wq, READ_ONCE(hf->nqueued));
		if (ret)
			break;
	}
	if (recs != stack_recs)
		kfree(recs);
	return done ? done * sizeof(*recs) : ret;
}

static __poll_t hwtd_poll(struct file *file, poll_table *wait)
{
	struct hwtd_file *hf = file->private_data;
	__poll_t events = 0;

	poll_wait(file, &hf->wq, wait);
	spin_lock_irq(&hf->lock);
	if (hf->nqueued)
		events = EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&hf->lock);
	return events;
}

static int hwtd_open(struct inode *inode, struct file *file)
{
	struct hwtd_file *hf;

	if (!hwtimer_default_wheel())
		return -ENODEV;
	hf = kzalloc(sizeof(*hf), GFP_KERNEL_ACCOUNT);
	if (!hf)
		return -ENOMEM;
	hf->user = hwtd_user_get(file->f_cred->uid);
	if (!hf->user) {
		kfree(hf);
		return -ENOMEM;
	}
	spin_lock_init(&hf->lock);
	hf->ids = RB_ROOT;
	INIT_LIST_HEAD(&hf->ready);
	init_waitqueue_head(&hf->wq);
	hf->wheel = hwtimer_default_wheel();
	hf->precision = HWTIMER_PRECISION_DEFAULT;
	hf->next_id = 1;
	file->private_data = hf;
	return stream_open(inode, file);
}

static int hwtd_release(struct inode *inode, struct file *file)
{
	struct hwtd_file *hf = file->private_data;
	struct hwtd_timeout *t, *tmp;
	struct rb_node *node;

	/*
	 * No ioctl or read() runs any more, but callbacks may: stop every
	 * timer for good, which waits for its callback, then free it all.
	 * Callbacks do not touch @hf->ids, so it needs no lock here.
	 */
	for (node = rb_first(&hf->ids); node; node = rb_next(node)) {
		t = rb_entry(node, struct hwtd_timeout, rb);
		hwtimer_shutdown_sync(&t->timer);
		cond_resched();
	}
	rbtree_postorder_for_each_entry_safe(t, tmp, &hf->ids, rb) {
		kmem_cache_free(hwtd_cache, t);
		hwtd_uncharge(hf);
		cond_resched();
	}
	hwtd_user_put(hf->user);
	/* A callback may still be waking @hf->wq: see struct hwtd_file. */
	kfree_rcu(hf, rcu);
	return 0;
}

static void hwtd_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct hwtd_file *hf = file->private_data;
	unsigned long pending, queued;
	unsigned int precision;
	bool boottime;

	spin_lock_irq(&hf->lock);
	pending = hf->nlive - hf->nqueued;
	queued = hf->nqueued;
	precision = hf->precision;
	boottime = hf->boottime;
	spin_unlock_irq(&hf->lock);

	seq_printf(m, "pending:\t%lu\nqueued:\t%lu\ncap:\t%u\n",
		   pending, queued, READ_ONCE(file_cap));
	seq_printf(m, "clockid:\t%d\nprecision:\t%u\n",
		   boottime ? CLOCK_BOOTTIME : CLOCK_MONOTONIC, precision);
	seq_printf(m, "user_count:\t%ld\nuser_cap:\t%u\n",
		   atomic_long_read(&hf->user->count), READ_ONCE(user_cap));
}

static const struct file_operations hwtd_fops = {
	.owner		= THIS_MODULE,
	.open		= hwtd_open,
	.release	= hwtd_release,
	.read		= hwtd_read,
	.poll		= hwtd_poll,
	.unlocked_ioctl	= hwtd_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.show_fdinfo	= hwtd_show_fdinfo,
};

static struct miscdevice hwtd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "hwtimer",
	.fops	= &hwtd_fops,
	.mode	= 0666,
};

int hwtd_init(void)
{
	int ret;

	/* The stress tests read /sys/kernel/slab/hwt_timeout: keep its name. */
	hwtd_cache = kmem_cache_create("hwt_timeout", sizeof(struct hwtd_timeout),
				       __alignof__(struct hwtd_timeout), 0, NULL);
	if (!hwtd_cache)
		return -ENOMEM;
	ret = misc_register(&hwtd_misc);
	if (ret)
		goto out_cache;
	return 0;

out_cache:
	kmem_cache_destroy(hwtd_cache);
	return ret;
}

void hwtd_exit(void)
{
	misc_deregister(&hwtd_misc);
	/* No file is open: each one holds a reference to the module. */
	WARN_ON(!xa_empty(&hwtd_users));
	kmem_cache_destroy(hwtd_cache);
}
