/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/hwtimer: records and the expiry pass (hwtimer_dev_records.c): the
 * layer above the wheel, below the ABI.
 */
#ifndef _HWTIMER_DEV_RECORDS_H
#define _HWTIMER_DEV_RECORDS_H

#include "hwtimer_dev.h"
#include "hwtimer_dev_table.h"
#include "hwtimer_dev_wheel.h"

extern struct workqueue_struct *hwtd_wq;

/* The completion rings of all files, for debugfs and tests. */
struct hwtd_ring_stats {
	atomic_long_t	rings;
	atomic_long_t	ring_pages;
};

extern struct hwtd_ring_stats hwtd_ring_stats;

/* Holds of the file lock */
u64 hwtd_hold_now(struct hwtd_file *file, struct hwtd_hold *hold);
void hwtd_hold_end(struct hwtd_file *file, struct hwtd_hold *hold);
void hwtd_hold_wake(struct hwtd_file *file, struct hwtd_hold *hold);

/* Records */
void hwtd_deliver(struct hwtd_file *file, struct hwtd_hold *hold, u32 idx);
unsigned int hwtd_refill(struct hwtd_file *file, struct hwtd_hold *hold, unsigned int max);
unsigned int hwtd_dequeue(struct hwtd_file *file, struct hwtd_hold *hold,
			  struct hwtimer_expiry *recs, unsigned int max, s64 offset);
bool hwtd_has_records(struct hwtd_file *file);

/* The expiry pass */
bool hwtd_expire(struct hwtd_file *file, struct hwtd_hold *hold, unsigned int *budget);
void hwtd_expiry_init(struct hwtd_file *file,
		      struct hwtimer_wheel *wheels[HWTD_PRECISIONS][HWTD_CLOCKS]);
void hwtd_expiry_stop(struct hwtd_file *file);
int hwtd_expiry_wq_init(void);
void hwtd_expiry_wq_exit(void);

/* The ring */
long hwtd_ring_setup(struct hwtd_file *file, struct hwtimer_ring_params __user *uparams);
int hwtd_mmap(struct file *filp, struct vm_area_struct *vma);
void hwtd_ring_free(struct hwtd_file *file);
u32 hwtd_ring_entries(struct hwtd_file *file);

/**
 * hwtd_take_out() - take a live timeout out of the wheel or the kernel queue
 * @file: the file
 * @idx: the timeout, %HWTD_PENDING or %HWTD_QUEUED
 *
 * Context: the file lock held.
 * Return: %HWTIMER_STATUS_PENDING or %HWTIMER_STATUS_EXPIRED (its record,
 * which waited in the kernel queue, is discarded).
 */
static __always_inline u32 hwtd_take_out(struct hwtd_file *file, u32 idx)
{
	if (hwtd_timeout_at(file, idx)->state != HWTD_QUEUED) {
		hwtd_wheel_remove(file, idx);
		return HWTIMER_STATUS_PENDING;
	}
	hwtd_list_del(file, idx);
	WRITE_ONCE(file->nqueued, file->nqueued - 1);
	return HWTIMER_STATUS_EXPIRED;
}

/**
 * hwtd_end() - end a timeout: free its entry, count it out
 * @file: the file
 * @hold: the hold, which uncharges it from the caps when it ends
 * @idx: the timeout, on no list
 *
 * Context: the file lock held.
 */
static inline void hwtd_end(struct hwtd_file *file, struct hwtd_hold *hold, u32 idx)
{
	hwtd_timeout_free(file, idx);
	file->nlive--;
	hold->freed++;
}

#endif /* _HWTIMER_DEV_RECORDS_H */
