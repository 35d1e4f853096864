// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: the caps. A file holds at most file_cap timeouts, the
 * files of one user (the real uid of the opener) at most user_cap
 * together, and all files at most global_cap. The per-file cap is the
 * file's own count (struct hwtd_file, @nlive, checked by the arm
 * operation); the other two are counted here, at the moment a timeout is
 * armed and when it ends, never charged and given back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "hwtimer_internal.h"
#include "hwtimer_dev_account.h"

/*
 * The caps are tunables: sysfs stores them (param_set_uint()) under
 * kernel_param_lock, which nothing here takes, so each use reads them once
 * with READ_ONCE(); a change takes effect at the next read, and no other
 * data is ordered by them.
 */
static unsigned int file_cap = 262144;
module_param(file_cap, uint, 0644);
MODULE_PARM_DESC(file_cap, "Most timeouts one open file of /dev/hwtimer may hold (default 262144; at most what a file's timeout table holds, 16384 x (PAGE_SIZE / 40): 1671168 with 4 KiB pages, 26836992 with 64 KiB)");

/**
 * hwtd_file_cap() - the per-file cap as it takes effect
 *
 * At most what a file's timeout table holds, so that a file below it
 * finds a free entry (unless entries were retired, each after 2^32 uses),
 * and HWTIMER_IOC_INFO reports the cap that holds.
 *
 * Context: any.
 * Return: file_cap, or what the table holds if that is less.
 */
unsigned int hwtd_file_cap(void)
{
	return min_t(unsigned int, READ_ONCE(file_cap), HWTD_MAX_TIMEOUTS);
}

static unsigned int global_cap = 1048576;
module_param(global_cap, uint, 0644);
MODULE_PARM_DESC(global_cap, "Most timeouts all open files of /dev/hwtimer may hold together (default 1048576)");

static unsigned int user_cap = 524288;
module_param(user_cap, uint, 0644);
MODULE_PARM_DESC(user_cap, "Most timeouts the open files of one user (real uid of the opener) may hold together (default 524288)");

static atomic_long_t hwtd_count = ATOMIC_LONG_INIT(0);

/**
 * hwtd_user_cap() - the per-user cap
 *
 * Context: any.
 * Return: user_cap.
 */
unsigned int hwtd_user_cap(void)
{
	return READ_ONCE(user_cap);
}

/**
 * hwtd_global_cap() - the cap of all files together
 *
 * Context: any.
 * Return: global_cap.
 */
unsigned int hwtd_global_cap(void)
{
	return READ_ONCE(global_cap);
}

/**
 * hwtd_global_count() - the timeouts all files hold
 *
 * Context: any.
 * Return: the count.
 */
long hwtd_global_count(void)
{
	return atomic_long_read(&hwtd_count);
}

/*
 * The users with files open, indexed by uid (the kuid's value): an xarray,
 * so that finding, adding and removing a user costs the same however many
 * users have files open.
 *
 * The xarray's lock protects the entries and every change of a user's
 * @refs: hwtd_user_put() drops a reference and, if it was the last, erases
 * the user under the lock, so a user found under the lock has @refs >= 1
 * and may be taken with refcount_inc(). @count is atomic and needs no
 * lock. Taken in process context only (open and close), with no other
 * lock held; __xa_insert() may drop it to allocate a node. Its nodes are
 * charged to the memory cgroup of the open that needs them
 * (XA_FLAGS_ACCOUNT).
 */
static DEFINE_XARRAY_FLAGS(hwtd_users, XA_FLAGS_ACCOUNT);

/**
 * hwtd_user_get() - take a reference to a user, creating it if needed
 * @uid: the real uid of the opener
 *
 * Context: process; may sleep (allocates with %GFP_KERNEL_ACCOUNT).
 * Return: the user, or NULL when it had to be allocated and that failed.
 */
struct hwtd_user *hwtd_user_get(kuid_t uid)
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
void hwtd_user_put(struct hwtd_user *u)
{
	bool last;

	xa_lock(&hwtd_users);
	last = refcount_dec_and_test(&u->refs);
	if (last)
		__xa_erase(&hwtd_users, __kuid_val(u->uid));
	xa_unlock(&hwtd_users);
	if (!last)
		return;
	/*
	 * Each file uncharged all it held before its put; xa_lock and
	 * refcount_dec_and_test() (RELEASE, and ACQUIRE for the last) order
	 * those atomic_long_sub()s before this read.
	 */
	WARN_ON_ONCE(atomic_long_read(&u->count));
	kfree(u);
}

/**
 * hwtd_charge() - count one more timeout of a file against the caps
 * @file: the file
 *
 * At the moment the timeout is armed (under the file lock, with nothing
 * left that can fail): hwtd_charge() and hwtd_uncharge() are the only
 * places that change the per-user and the global count. The user's count
 * is taken first: a user at its cap then fails without touching the
 * global count, so it cannot make another user's arm fail however often
 * it retries. A global failure briefly holds one unit of the caller's own
 * user count, its own business. Counts only: no order with anything else
 * (hwt_count_inc_below()).
 *
 * Context: any.
 * Return: 0, or -EDQUOT; then nothing is charged.
 */
int hwtd_charge(struct hwtd_file *file)
{
	if (!hwt_count_inc_below(&file->user->count, READ_ONCE(user_cap)))
		return -EDQUOT;
	if (!hwt_count_inc_below(&hwtd_count, READ_ONCE(global_cap))) {
		atomic_long_dec(&file->user->count);
		return -EDQUOT;
	}
	return 0;
}

/**
 * hwtd_uncharge() - uncount timeouts that ended
 * @file: their file
 * @n: how many
 *
 * Context: any.
 */
void hwtd_uncharge(struct hwtd_file *file, long n)
{
	atomic_long_sub(n, &file->user->count);
	atomic_long_sub(n, &hwtd_count);
}

/**
 * hwtd_account_exit() - the device goes: no user is left
 *
 * Context: module exit, every file closed.
 */
void hwtd_account_exit(void)
{
	WARN_ON(!xa_empty(&hwtd_users));
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * hwtd_kunit_global_count() - the device's global count of timeouts
 *
 * Context: any.
 * Return: the count.
 */
long hwtd_kunit_global_count(void)
{
	return hwtd_global_count();
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_kunit_global_count);

#endif
