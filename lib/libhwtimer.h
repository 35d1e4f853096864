/* SPDX-License-Identifier: LGPL-2.1 OR MIT */
/*
 * libhwtimer - the user-space library of /dev/hwtimer, as liburing is for
 * io_uring: open and configure a file, set up and map its completion ring,
 * arm, cancel, modify and query timeouts one at a time or in batches of any
 * size, and reap expiration records from the ring (records waiting in the
 * kernel's queue behind a full ring are polled into it), falling back to
 * read() where the ring cannot serve them (a file without a ring, or
 * records a poll left in the kernel's queue).
 *
 * The structures are the kernel's own (<linux/hwtimer.h>, installed with
 * the library); the full reference is the section 3 manual pages
 * (libhwtimer(3) and one page per group of functions) and hwtimer(4) for
 * the device.
 *
 * Conventions (libhwtimer(3), "Return values"): hwtimer_file_open() returns
 * NULL and sets errno when it fails; hwtimer_file_close() and
 * hwtimer_file_advance() return nothing; hwtimer_file_fd(),
 * hwtimer_file_features() and hwtimer_file_ring_entries() cannot fail;
 * every other function returns 0 or more on success and a negative errno
 * value on failure. No function changes errno, whether it succeeds or
 * fails, except hwtimer_file_open() when it fails. Thread safety: see
 * libhwtimer(3), "THREAD SAFETY".
 */
#ifndef LIBHWTIMER_H
#define LIBHWTIMER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <linux/hwtimer.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBHWTIMER_VERSION_MAJOR	1
#define LIBHWTIMER_VERSION_MINOR	0

/* The device node hwtimer_file_open() opens when given no path. */
#define HWTIMER_FILE_DEFAULT_PATH	"/dev/hwtimer"

/* An open file of the device, with its ring if it has one; opaque. */
struct hwtimer_file;

/* What a batch call did: entries processed, and those whose result is not 0. */
struct hwtimer_batch_result {
	size_t done;
	size_t failed;
};

/* Opening, configuring, the ring: hwtimer_file_open(3), _setup_ring(3). */
struct hwtimer_file *hwtimer_file_open(const char *path, unsigned int flags);
void hwtimer_file_close(struct hwtimer_file *f);
int hwtimer_file_fd(const struct hwtimer_file *f);
uint32_t hwtimer_file_features(const struct hwtimer_file *f);
int hwtimer_file_info(struct hwtimer_file *f, struct hwtimer_info *info);
int hwtimer_file_configure(struct hwtimer_file *f, clockid_t clockid, unsigned int precision);
int hwtimer_file_setup_ring(struct hwtimer_file *f, unsigned int entries);
unsigned int hwtimer_file_ring_entries(const struct hwtimer_file *f);

/* Timeouts: hwtimer_file_arm(3), _cancel(3), _modify(3), _get(3). */
int hwtimer_file_arm(struct hwtimer_file *f, uint64_t cookie, uint64_t expires_ns,
		     uint64_t period_ns, unsigned int flags, uint64_t *id);
int hwtimer_file_arm_batch(struct hwtimer_file *f, struct hwtimer_arm_entry *entries,
			   size_t count, unsigned int flags, struct hwtimer_batch_result *res);
int hwtimer_file_cancel(struct hwtimer_file *f, uint64_t id);
int hwtimer_file_cancel_batch(struct hwtimer_file *f, struct hwtimer_cancel_entry *entries,
			      size_t count, unsigned int flags, struct hwtimer_batch_result *res);
int hwtimer_file_modify(struct hwtimer_file *f, uint64_t id, uint64_t expires_ns,
			uint64_t period_ns, unsigned int flags, uint64_t *deadline_ns);
int hwtimer_file_modify_batch(struct hwtimer_file *f, struct hwtimer_modify_entry *entries,
			      size_t count, unsigned int flags, struct hwtimer_batch_result *res);
int hwtimer_file_get(struct hwtimer_file *f, uint64_t id, struct hwtimer_get_entry *entry);
int hwtimer_file_get_batch(struct hwtimer_file *f, struct hwtimer_get_entry *entries,
			   size_t count, unsigned int flags, struct hwtimer_batch_result *res);

/* Records: hwtimer_file_reap(3), hwtimer_file_wait(3). */
ssize_t hwtimer_file_reap(struct hwtimer_file *f, struct hwtimer_expiry *recs, size_t max);
ssize_t hwtimer_file_peek(struct hwtimer_file *f, const struct hwtimer_expiry **recs);
void hwtimer_file_advance(struct hwtimer_file *f, size_t n);
ssize_t hwtimer_file_wait(struct hwtimer_file *f, struct hwtimer_expiry *recs, size_t max,
			  int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif /* LIBHWTIMER_H */
