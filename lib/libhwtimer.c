// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * libhwtimer: see libhwtimer.h and libhwtimer(3).
 *
 * The consumer side keeps, besides the ring, a small buffer for records
 * that came from read(): the zero-copy calls (hwtimer_file_peek() and
 * hwtimer_file_advance()) hand out records in place, from the ring or from
 * that buffer. Records are handed out in the order the kernel gives them:
 * first what the buffer holds (it was read from the kernel's queue when
 * the ring was empty, so everything since is newer), then the ring (the
 * kernel's queue only ever holds records newer than the ring's), then the
 * queue, when the ring is empty and the kernel says it overflowed: a
 * poll() moves the queue into the ring (if the ring is at least as large
 * as the read() would be), and read() takes what it leaves (or, without
 * a ring, everything).
 *
 * errno: no function changes it, whether it succeeds or fails, except
 * hwtimer_file_open() when it fails (libhwtimer(3), "Return values").
 * The system calls and allocations go through the helpers below, which
 * return -errno and put errno back as they found it, but for those of
 * hwtimer_file_open(), hwtimer_file_close() and the mmap() of
 * hwtimer_file_setup_ring(), which save and restore it themselves.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libhwtimer.h"

#define HWT_EXPORT	__attribute__((visibility("default")))

/* Records one read() into the library's own buffer takes. */
#define HWT_BUF_RECS	1024

/* What the library knows of the file's ring (struct hwtimer_file, ring_state). */
enum {
	HWT_RING_NONE,		/* the file has none */
	HWT_RING_UNSEEN,	/* it may have one the library has not mapped */
	HWT_RING_MAPPED,	/* mapped: khead, ktail and entries are set */
};

struct hwtimer_file {
	int fd;
	uint32_t features;		/* HWTIMER_FEAT_* of the module */
	unsigned int batch_max;

	/*
	 * The ring, when hwtimer_file_setup_ring() gave the file one: what
	 * the kernel reported (kept when mmap() failed, to map it later), or
	 * @broken when that made no sense.
	 */
	struct hwtimer_ring_params params;
	bool broken;
	void *map;
	size_t map_size;
	unsigned int entries;		/* a power of two, or 0: no ring */
	uint32_t *khead;		/* written here, release */
	const uint32_t *ktail;		/* written by the kernel, release */
	const uint32_t *kflags;
	const struct hwtimer_expiry *ring;
	uint32_t head;			/* our copy of *khead */

	/* Records read() returned that were not handed out yet. */
	struct hwtimer_expiry *buf;
	size_t buf_pos, buf_len;

	/*
	 * For hwtimer_file_configure(), which any thread may call while one
	 * reaps, whether records that left the kernel are not yet reaped,
	 * beside those in the ring: @held while a read() is in flight or the
	 * buffer is not empty; @ring_state (HWT_RING_*), published once the
	 * ring is mapped. Both atomic.
	 */
	unsigned int held;
	unsigned int ring_state;

	/* What the last hwtimer_file_peek() handed out. */
	size_t peeked;
	bool peeked_buf;
};

static inline uint32_t load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* ---- system calls that leave errno alone ---------------------------------- */

/* ioctl(): 0, or -errno. */
static int sys_ioctl(int fd, unsigned long req, void *arg)
{
	int saved = errno, ret;

	ret = ioctl(fd, req, arg) ? -errno : 0;
	errno = saved;
	return ret;
}

/* read(), retried on EINTR: the bytes read, or -errno. */
static ssize_t sys_read(int fd, void *buf, size_t count)
{
	int saved = errno;
	ssize_t r;

	do {
		r = read(fd, buf, count);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}

/* poll() of one descriptor: its result, or -errno (EINTR included). */
static int sys_poll(struct pollfd *pfd, int timeout)
{
	int saved = errno, r;

	r = poll(pfd, 1, timeout);
	if (r < 0)
		r = -errno;
	errno = saved;
	return r;
}

static void *sys_malloc(size_t size)
{
	int saved = errno;
	void *p = malloc(size);

	errno = saved;
	return p;
}

static void sys_clock_monotonic(struct timespec *ts)
{
	int saved = errno;

	clock_gettime(CLOCK_MONOTONIC, ts);
	errno = saved;
}

HWT_EXPORT struct hwtimer_file *hwtimer_file_open(const char *path, unsigned int flags)
{
	struct hwtimer_info info;
	struct hwtimer_file *f;
	int saved = errno, err;

	if (flags) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->fd = open(path ? path : HWTIMER_FILE_DEFAULT_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0) {
		err = errno;
		goto fail;
	}
	memset(&info, 0, sizeof(info));
	err = -sys_ioctl(f->fd, HWTIMER_IOC_INFO, &info);
	if (err)
		goto fail_close;
	/*
	 * What the library relies on: records of this size, batches. The
	 * calls that need a capability check its bit in @features.
	 */
	if (info.record_size != sizeof(struct hwtimer_expiry) || !info.batch_max) {
		err = EPROTO;
		goto fail_close;
	}
	f->features = info.features;
	f->batch_max = info.batch_max < HWTIMER_BATCH_MAX ? info.batch_max : HWTIMER_BATCH_MAX;
	errno = saved;
	return f;

fail_close:
	close(f->fd);
fail:
	free(f);
	errno = err;
	return NULL;
}

HWT_EXPORT void hwtimer_file_close(struct hwtimer_file *f)
{
	int saved = errno;

	if (!f)
		return;
	/* Nothing to report: close() releases the descriptor whatever it says. */
	if (f->map)
		munmap(f->map, f->map_size);
	close(f->fd);
	free(f->buf);
	free(f);
	errno = saved;
}

HWT_EXPORT int hwtimer_file_fd(const struct hwtimer_file *f)
{
	return f->fd;
}

HWT_EXPORT uint32_t hwtimer_file_features(const struct hwtimer_file *f)
{
	return f->features;
}

HWT_EXPORT int hwtimer_file_info(struct hwtimer_file *f, struct hwtimer_info *info)
{
	return sys_ioctl(f->fd, HWTIMER_IOC_INFO, info);
}

/*
 * Whether records that left the kernel are not yet reaped: in the ring, in
 * the buffer or on their way there, or in a ring the library has not
 * mapped and cannot look into. Any thread may ask.
 */
static bool records_held(struct hwtimer_file *f)
{
	if (__atomic_load_n(&f->held, __ATOMIC_ACQUIRE))
		return true;
	switch (__atomic_load_n(&f->ring_state, __ATOMIC_ACQUIRE)) {
	case HWT_RING_NONE: return false;
	case HWT_RING_MAPPED: return load_acquire(f->ktail) != load_acquire(f->khead);
	default: return true;
	}
}

HWT_EXPORT int hwtimer_file_configure(struct hwtimer_file *f, clockid_t clockid,
				      unsigned int precision)
{
	struct hwtimer_config cfg = { .clockid = clockid, .precision = precision };
	struct hwtimer_info info;
	int ret;

	if (!(f->features & HWTIMER_FEAT_CONFIG))
		return -EOPNOTSUPP;
	/*
	 * The kernel refuses while it holds a timeout, pending or queued;
	 * records that left it, for the ring, the buffer or a read() in
	 * flight, are the library's to count. The kernel's count comes
	 * first: when it holds none, no record can reach the ring before
	 * the change (but one of a timeout another thread arms meanwhile),
	 * so what the library sees next still holds when the kernel
	 * changes the configuration. Looked at the other way round, a
	 * timeout could expire into the ring in between. A read() that
	 * took records before the count set @held before it ran.
	 */
	memset(&info, 0, sizeof(info));
	ret = sys_ioctl(f->fd, HWTIMER_IOC_INFO, &info);
	if (ret)
		return ret;
	if (info.pending || info.queued || records_held(f))
		return -EBUSY;
	return sys_ioctl(f->fd, HWTIMER_IOC_CONFIG, &cfg);
}

/* Whether [off, off + len) lies within the mapping, aligned for @align. */
static bool in_map(const struct hwtimer_ring_params *p, uint64_t off, uint64_t len,
		   uint64_t align)
{
	return off % align == 0 && off <= p->mmap_size && len <= p->mmap_size - off;
}

HWT_EXPORT int hwtimer_file_setup_ring(struct hwtimer_file *f, unsigned int entries)
{
	struct hwtimer_ring_params *p = &f->params;
	int saved, err;
	void *map;

	if (f->map)
		return -EBUSY;
	if (f->broken)
		return -EPROTO;
	if (!entries || entries > HWTIMER_RING_MAX)
		return -EINVAL;
	if (!(f->features & HWTIMER_FEAT_RING))
		return -EOPNOTSUPP;
	/* Unless the kernel made the ring and only mapping it failed. */
	if (!p->mmap_size) {
		memset(p, 0, sizeof(*p));
		p->entries = entries;
		/* Records may go to the ring from the kernel's return on. */
		__atomic_store_n(&f->ring_state, HWT_RING_UNSEEN, __ATOMIC_SEQ_CST);
		err = sys_ioctl(f->fd, HWTIMER_IOC_RING, p);
		if (err) {
			memset(p, 0, sizeof(*p));
			/* EBUSY: the file has a ring, made behind the library. */
			if (err != -EBUSY)
				__atomic_store_n(&f->ring_state, HWT_RING_NONE, __ATOMIC_RELEASE);
			return err == -ENOTTY ? -EOPNOTSUPP : err;
		}
		/*
		 * The kernel is trusted, but what it reports is checked before
		 * it is used as an address: a ring of at least @entries
		 * records, a power of two, every word and record inside the
		 * mapping. The ring it made cannot be used: the file's records
		 * go there from now on.
		 */
		if (p->entries < entries || p->entries > HWTIMER_RING_MAX ||
		    (p->entries & (p->entries - 1)) || !p->mmap_size ||
		    p->mmap_size > SIZE_MAX ||
		    !in_map(p, p->head_off, sizeof(uint32_t), sizeof(uint32_t)) ||
		    !in_map(p, p->tail_off, sizeof(uint32_t), sizeof(uint32_t)) ||
		    !in_map(p, p->flags_off, sizeof(uint32_t), sizeof(uint32_t)) ||
		    !in_map(p, p->records_off,
			    (uint64_t)p->entries * sizeof(struct hwtimer_expiry),
			    sizeof(uint64_t))) {
			f->broken = true;
			return -EPROTO;
		}
	}
	saved = errno;
	map = mmap(NULL, p->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		   HWTIMER_RING_OFF);
	err = map == MAP_FAILED ? -errno : 0;
	errno = saved;
	if (err)
		return err;
	f->map = map;
	f->map_size = p->mmap_size;
	f->khead = (uint32_t *)((char *)map + p->head_off);
	f->ktail = (const uint32_t *)((char *)map + p->tail_off);
	f->kflags = (const uint32_t *)((char *)map + p->flags_off);
	f->ring = (const struct hwtimer_expiry *)((char *)map + p->records_off);
	f->head = __atomic_load_n(f->khead, __ATOMIC_RELAXED);
	f->entries = p->entries;
	__atomic_store_n(&f->ring_state, HWT_RING_MAPPED, __ATOMIC_RELEASE);
	return 0;
}

HWT_EXPORT unsigned int hwtimer_file_ring_entries(const struct hwtimer_file *f)
{
	return f->entries;
}

/* ---- batches ------------------------------------------------------------ */

/*
 * One batch operation over any number of entries of @size bytes: slices of
 * at most batch_max entries, one ioctl each, with the ioctl's own rules
 * (hwtimer(4)): without HWTIMER_BATCH_CONTINUE, stop at the first entry
 * that fails, with its error; with it, process everything. @res gets the
 * totals over the slices.
 */
static int batch(struct hwtimer_file *f, unsigned long cmd, void *entries, size_t size,
		 size_t count, unsigned int flags, struct hwtimer_batch_result *res)
{
	size_t done = 0, failed = 0;
	int ret = 0;

	if (flags & ~HWTIMER_BATCH_FLAGS) {
		ret = -EINVAL;
		goto out;
	}
	while (done < count) {
		size_t n = count - done < f->batch_max ? count - done : f->batch_max;
		struct hwtimer_batch b = {
			.entries = (uintptr_t)((char *)entries + done * size),
			.count = (uint32_t)n,
			.flags = flags,
		};

		ret = sys_ioctl(f->fd, cmd, &b);
		if (ret) {
			/* done is written unless the header itself was refused. */
			if (b.done <= n) {
				done += b.done;
				failed += b.failed <= b.done ? b.failed : b.done;
			}
			break;
		}
		done += n;
		failed += b.failed <= n ? b.failed : n;
	}
out:
	if (res) {
		res->done = done;
		res->failed = failed;
	}
	return ret;
}

HWT_EXPORT int hwtimer_file_arm_batch(struct hwtimer_file *f, struct hwtimer_arm_entry *entries,
				      size_t count, unsigned int flags,
				      struct hwtimer_batch_result *res)
{
	return batch(f, HWTIMER_IOC_ARM, entries, sizeof(*entries), count, flags, res);
}

HWT_EXPORT int hwtimer_file_cancel_batch(struct hwtimer_file *f,
					 struct hwtimer_cancel_entry *entries, size_t count,
					 unsigned int flags, struct hwtimer_batch_result *res)
{
	return batch(f, HWTIMER_IOC_CANCEL, entries, sizeof(*entries), count, flags, res);
}

HWT_EXPORT int hwtimer_file_modify_batch(struct hwtimer_file *f,
					 struct hwtimer_modify_entry *entries, size_t count,
					 unsigned int flags, struct hwtimer_batch_result *res)
{
	return batch(f, HWTIMER_IOC_MODIFY, entries, sizeof(*entries), count, flags, res);
}

HWT_EXPORT int hwtimer_file_get_batch(struct hwtimer_file *f, struct hwtimer_get_entry *entries,
				      size_t count, unsigned int flags,
				      struct hwtimer_batch_result *res)
{
	if (!(f->features & HWTIMER_FEAT_GET)) {
		if (res)
			res->done = res->failed = 0;
		return -EOPNOTSUPP;
	}
	return batch(f, HWTIMER_IOC_GET, entries, sizeof(*entries), count, flags, res);
}

/*
 * A batch of one: the entry's own result when it was processed, else the
 * ioctl's error.
 */
static int one(struct hwtimer_file *f, unsigned long cmd, void *entry, int32_t *result)
{
	struct hwtimer_batch b = { .entries = (uintptr_t)entry, .count = 1 };
	int ret = sys_ioctl(f->fd, cmd, &b);

	if (!ret)
		return 0;
	return b.done == 1 && *result < 0 ? *result : ret;
}

HWT_EXPORT int hwtimer_file_arm(struct hwtimer_file *f, uint64_t cookie, uint64_t expires_ns,
				uint64_t period_ns, unsigned int flags, uint64_t *id)
{
	struct hwtimer_arm_entry e = {
		.cookie = cookie,
		.expires_ns = expires_ns,
		.period_ns = period_ns,
		.flags = flags,
	};
	int ret = one(f, HWTIMER_IOC_ARM, &e, &e.result);

	if (!ret && id)
		*id = e.id;
	return ret;
}

HWT_EXPORT int hwtimer_file_cancel(struct hwtimer_file *f, uint64_t id)
{
	struct hwtimer_cancel_entry e = { .id = id };
	int ret = one(f, HWTIMER_IOC_CANCEL, &e, &e.result);

	return ret ? ret : (int)e.status;
}

HWT_EXPORT int hwtimer_file_modify(struct hwtimer_file *f, uint64_t id, uint64_t expires_ns,
				   uint64_t period_ns, unsigned int flags, uint64_t *deadline_ns)
{
	struct hwtimer_modify_entry e = {
		.id = id,
		.expires_ns = expires_ns,
		.period_ns = period_ns,
		.flags = flags,
	};
	int ret = one(f, HWTIMER_IOC_MODIFY, &e, &e.result);

	if (ret)
		return ret;
	if (deadline_ns)
		*deadline_ns = e.deadline_ns;
	return (int)e.status;
}

HWT_EXPORT int hwtimer_file_get(struct hwtimer_file *f, uint64_t id,
				struct hwtimer_get_entry *entry)
{
	int ret;

	memset(entry, 0, sizeof(*entry));
	entry->id = id;
	if (!(f->features & HWTIMER_FEAT_GET)) {
		entry->result = -EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	ret = one(f, HWTIMER_IOC_GET, entry, &entry->result);
	/* The call's own error, where the kernel did not reach the entry. */
	if (ret)
		entry->result = ret;
	return ret;
}

/* ---- records -------------------------------------------------------------- */

/*
 * Records in the ring from our head: at most the ring's size, or the
 * kernel broke the protocol (-EIO).
 */
static ssize_t ring_avail(struct hwtimer_file *f)
{
	uint32_t n;

	if (!f->entries)
		return 0;
	n = load_acquire(f->ktail) - f->head;
	if (n > f->entries)
		return -EIO;
	if (n)
		return n;
	/*
	 * Empty. The kernel wakes the file's waiters only for records that
	 * arrive once it has seen a head that consumed every earlier one, so
	 * our last head store must be visible to it before we look again
	 * and let the caller sleep: a store, then loads, needs a full
	 * barrier (hwtimer(4), the ring and edge-triggered epoll), which
	 * pairs with the kernel's between its stores of the tail and flags
	 * and its load of the head (hwtd_hold_end()). Then the flags before
	 * the tail, each with acquire semantics, pairing with the kernel's
	 * release stores (hwtd_ring_publish()): a set flag is stored before
	 * the tail of the records that came with it, so after the acquire
	 * of the tail above, the flag that came with that tail is seen; a
	 * flag cleared because the kernel moved its queue into the ring is
	 * stored after the tail that covers those records, so after an
	 * acquire that sees it clear, the tail below covers them. Either
	 * way, "empty and no overflow" is never concluded while records
	 * wait.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (load_acquire(f->kflags) & HWTIMER_RING_OVERFLOW)
		return 0;
	n = load_acquire(f->ktail) - f->head;
	return n > f->entries ? -EIO : (ssize_t)n;
}

/* Whether read() may find records: no ring, or the ring's queue is not empty. */
static bool read_may_help(const struct hwtimer_file *f)
{
	return !f->entries || (load_acquire(f->kflags) & HWTIMER_RING_OVERFLOW);
}

/*
 * read() up to @max records into @recs: their number, 0 when the kernel
 * has none queued, or -errno.
 *
 * It must not block (hwtimer_file_open(3), NOTES), and the caller may
 * have cleared O_NONBLOCK on the descriptor: FIONBIO sets it again first.
 * A poll() first would not do: another thread's cancel, or any poll or
 * batch call or expiry pass that moves the kernel's queue into the ring,
 * can empty the queue between the two. One system call more per read(),
 * never on the ring's path.
 */
static ssize_t read_recs(struct hwtimer_file *f, struct hwtimer_expiry *recs, size_t max)
{
	size_t bytes = (max < SSIZE_MAX / sizeof(*recs) ? max : SSIZE_MAX / sizeof(*recs)) *
		       sizeof(*recs);
	int nonblock = 1;
	ssize_t r;

	/* Until the caller's held_update(): see hwtimer_file_configure(). */
	__atomic_store_n(&f->held, 1, __ATOMIC_SEQ_CST);
	r = sys_ioctl(f->fd, FIONBIO, &nonblock);
	if (r)
		return r;
	r = sys_read(f->fd, recs, bytes);
	if (r < 0)
		return r == -EAGAIN ? 0 : r;
	if ((size_t)r % sizeof(*recs) || (size_t)r > bytes)
		return -EIO;
	return r / (ssize_t)sizeof(*recs);
}

/*
 * The ring is empty and the kernel's queue holds records: a poll() that
 * does not wait moves them into the ring, as far as it has room
 * (hwtimer(4)), where they are taken in place. One system call for up to
 * a ring of records, each copied once, where read() copies each twice
 * (into the kernel's buffer, then out): in the benchmark, half the
 * kernel's time per record (docs/benchmarks.md). Whatever it leaves,
 * read() takes. Only for a ring that holds at least the @want records the
 * read() would take: a smaller one would cost more system calls.
 */
static bool ring_refill_pays(const struct hwtimer_file *f, size_t want)
{
	return f->entries && f->entries >= want;
}

static void ring_refill(struct hwtimer_file *f)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };

	while (sys_poll(&pfd, 0) == -EINTR)
		;
}

/* Whether the buffer holds records, for hwtimer_file_configure(). */
static void held_update(struct hwtimer_file *f)
{
	__atomic_store_n(&f->held, f->buf_pos != f->buf_len, __ATOMIC_RELEASE);
}

static void ring_release(struct hwtimer_file *f, uint32_t n)
{
	f->head += n;
	store_release(f->khead, f->head);
}

/*
 * How many times a reaping call looks at the ring again after a read()
 * found the kernel's queue empty although the ring said it overflowed:
 * a poll() or batch ioctl in another thread moved the queue into the ring
 * meanwhile. The kernel clears the flag when its queue empties, so one
 * more look sees either records or a clear flag.
 */
#define HWT_READ_RETRIES	2

HWT_EXPORT ssize_t hwtimer_file_reap(struct hwtimer_file *f, struct hwtimer_expiry *recs,
				     size_t max)
{
	unsigned int tries = 0;
	bool polled = false;
	size_t got = 0, n;
	ssize_t avail, r;

	f->peeked = 0;
	/* First what an earlier read() left in the buffer. */
	n = f->buf_len - f->buf_pos;
	if (n && max) {
		n = n < max ? n : max;
		memcpy(recs, f->buf + f->buf_pos, n * sizeof(*recs));
		f->buf_pos += n;
		held_update(f);
		got = n;
		if (got == max)
			return got;
	}
	if (!max)
		return 0;
again:
	/* Then the ring, in up to two spans (it may wrap). */
	avail = ring_avail(f);
	if (avail < 0)
		return got ? (ssize_t)got : avail;
	if (avail) {
		uint32_t mask = f->entries - 1, idx = f->head & mask, first;
		size_t take = (size_t)avail < max - got ? (size_t)avail : max - got;

		first = f->entries - idx;
		if (first > take)
			first = take;
		memcpy(recs + got, f->ring + idx, first * sizeof(*recs));
		memcpy(recs + got + first, f->ring, (take - first) * sizeof(*recs));
		ring_release(f, take);
		got += take;
		/* The ring was not empty: the queue's turn comes when it is. */
		return got;
	}
	/* The ring is empty: the kernel's queue, if it may hold any. */
	if (!read_may_help(f))
		return got;
	if (!polled && ring_refill_pays(f, max - got)) {
		polled = true;
		ring_refill(f);
		goto again;
	}
	r = read_recs(f, recs + got, max - got);
	held_update(f);
	if (r < 0)
		return got ? (ssize_t)got : r;
	if (!r && f->entries && tries++ < HWT_READ_RETRIES)
		goto again;
	return got + r;
}

HWT_EXPORT ssize_t hwtimer_file_peek(struct hwtimer_file *f, const struct hwtimer_expiry **recs)
{
	unsigned int tries = 0;
	bool polled = false;
	ssize_t avail, r;

	f->peeked = 0;
	while (f->buf_pos == f->buf_len) {
		avail = ring_avail(f);
		if (avail < 0)
			return avail;
		if (avail) {
			uint32_t idx = f->head & (f->entries - 1);
			size_t first = f->entries - idx;

			f->peeked = (size_t)avail < first ? (size_t)avail : first;
			f->peeked_buf = false;
			*recs = f->ring + idx;
			return f->peeked;
		}
		if (!read_may_help(f))
			return 0;
		if (!polled && ring_refill_pays(f, HWT_BUF_RECS)) {
			polled = true;
			ring_refill(f);
			continue;
		}
		if (!f->buf) {
			f->buf = sys_malloc(HWT_BUF_RECS * sizeof(*f->buf));
			if (!f->buf)
				return -ENOMEM;
		}
		r = read_recs(f, f->buf, HWT_BUF_RECS);
		if (r > 0) {
			f->buf_pos = 0;
			f->buf_len = r;
		}
		held_update(f);
		if (r < 0)
			return r;
		/* Empty although the ring overflowed: see hwtimer_file_reap(). */
		if (!r && (!f->entries || tries++ >= HWT_READ_RETRIES))
			return 0;
	}
	f->peeked = f->buf_len - f->buf_pos;
	f->peeked_buf = true;
	*recs = f->buf + f->buf_pos;
	return f->peeked;
}

HWT_EXPORT void hwtimer_file_advance(struct hwtimer_file *f, size_t n)
{
	if (n > f->peeked)
		n = f->peeked;
	f->peeked -= n;
	if (!n)
		return;
	if (f->peeked_buf) {
		f->buf_pos += n;
		held_update(f);
	} else {
		ring_release(f, (uint32_t)n);
	}
}

HWT_EXPORT ssize_t hwtimer_file_wait(struct hwtimer_file *f, struct hwtimer_expiry *recs,
				     size_t max, int timeout_ms)
{
	struct pollfd pfd = { .fd = f->fd, .events = POLLIN };
	struct timespec start, now;
	int left = timeout_ms, r;
	ssize_t n;

	if (timeout_ms > 0)
		sys_clock_monotonic(&start);
	for (;;) {
		if (max) {
			n = hwtimer_file_reap(f, recs, max);
		} else {
			const struct hwtimer_expiry *p;

			n = hwtimer_file_peek(f, &p);
		}
		if (n || !left)
			return n;
		r = sys_poll(&pfd, left);
		if (r < 0)
			return r;
		if (!r)
			return 0;
		if (pfd.revents & (POLLERR | POLLNVAL))
			return -EIO;
		if (timeout_ms > 0) {
			int64_t ms;

			sys_clock_monotonic(&now);
			ms = (int64_t)(now.tv_sec - start.tv_sec) * 1000 +
			     (now.tv_nsec - start.tv_nsec) / 1000000;
			left = ms >= timeout_ms ? 0 : timeout_ms - (int)ms;
		}
	}
}
