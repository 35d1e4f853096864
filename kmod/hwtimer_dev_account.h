/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/hwtimer: the caps (hwtimer_dev_account.c). */
#ifndef _HWTIMER_DEV_ACCOUNT_H
#define _HWTIMER_DEV_ACCOUNT_H

#include <linux/atomic.h>

#include "hwtimer_count.h"
#include "hwtimer_dev.h"

/* The module's parameters file_cap, global_cap and user_cap; the global count. */
extern unsigned int hwtd_file_cap_param;
extern unsigned int hwtd_global_cap_param;
extern unsigned int hwtd_user_cap_param;
extern atomic_long_t hwtd_count;

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
static inline unsigned int hwtd_file_cap(void)
{
	return min_t(unsigned int, READ_ONCE(hwtd_file_cap_param), HWTD_MAX_TIMEOUTS);
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
 * user count, its own business.
 *
 * Context: any.
 * Return: 0, or -EDQUOT; then nothing is charged.
 */
static inline int hwtd_charge(struct hwtd_file *file)
{
	if (!hwt_count_inc_below(&file->user->count, READ_ONCE(hwtd_user_cap_param)))
		return -EDQUOT;
	if (!hwt_count_inc_below(&hwtd_count, READ_ONCE(hwtd_global_cap_param))) {
		atomic_long_dec(&file->user->count);
		return -EDQUOT;
	}
	return 0;
}

unsigned int hwtd_user_cap(void);
unsigned int hwtd_global_cap(void);
long hwtd_global_count(void);
struct hwtd_user *hwtd_user_get(kuid_t uid);
void hwtd_user_put(struct hwtd_user *u);
void hwtd_uncharge(struct hwtd_file *file, long n);
void hwtd_account_exit(void);

/**
 * hwtd_hold_uncharge() - uncharge the timeouts that ended in a hold so far
 * @file: the file
 * @hold: the hold, whose @freed they are
 *
 * At the hold's end (hwtd_hold_end()), or earlier when an arm of the same
 * hold would fail with -EDQUOT: one atomic subtraction per count for all
 * the timeouts the hold ended, not one per timeout.
 *
 * Context: the file lock held.
 */
static inline void hwtd_hold_uncharge(struct hwtd_file *file, struct hwtd_hold *hold)
{
	hwtd_lockdep_assert(file);
	hwtd_uncharge(file, hold->freed);
	hold->freed = 0;
}

#endif /* _HWTIMER_DEV_ACCOUNT_H */
