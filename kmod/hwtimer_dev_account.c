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

#include "hwtimer_dev_account.h"

/*
 * The caps are tunables: sysfs stores them (param_set_uint()) under
 * kernel_param_lock, which nothing here takes, so each use reads them once
 * with READ_ONCE() (hwtd_file_cap(), hwtd_charge() in hwtimer_dev_account.h,
 * and below); a change takes effect at the next read, and no other data is
 * ordered by them.
 */
unsigned int hwtd_file_cap_param = 262144;
module_param_named(file_cap, hwtd_file_cap_param, uint, 0644);
MODULE_PARM_DESC(file_cap, "Most timeouts one open file of /dev/hwtimer may hold (default 262144; at most what a file's timeout table holds, 16384 x (PAGE_SIZE / 40): 1671168 with 4 KiB pages, 26836992 with 64 KiB)");

unsigned int hwtd_global_cap_param = 1048576;
module_param_named(global_cap, hwtd_global_cap_param, uint, 0644);
MODULE_PARM_DESC(global_cap, "Most timeouts all open files of /dev/hwtimer may hold together (default 1048576)");

unsigned int hwtd_user_cap_param = 524288;
module_param_named(user_cap, hwtd_user_cap_param, uint, 0644);
MODULE_PARM_DESC(user_cap, "Most timeouts the open files of one user (real uid of the opener) may hold together (default 524288)");

atomic_long_t hwtd_count = ATOMIC_LONG_INIT(0);

/**
 * hwtd_user_cap() - the per-user cap
 *
 * Context: any.
 * Return: user_cap.
 */
unsigned int hwtd_user_cap(void)
{
	return READ_ONCE(hwtd_user_cap_param);
}

/**
 * hwtd_global_cap() - the cap of all files together
 *
 * Context: any.
 * Return: global_cap.
 */
unsigned int hwtd_global_cap(void)
{
	return READ_ONCE(hwtd_global_cap_param);
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
