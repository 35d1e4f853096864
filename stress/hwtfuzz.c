// SPDX-License-Identifier: GPL-2.0
/*
 * hwtfuzz: an ioctl fuzzer for /dev/hwtimer, built 64-bit and -m32 (the
 * compat path).
 *
 *   hwtfuzz [-t seconds] [-s seed] [-j workers]    fuzz for a fixed time
 *   hwtfuzz -S                                     sanity check: the device works
 *
 * The fuzzer forks -j worker processes (default 3). Worker 1 (and every
 * third after it) lives in a time namespace whose CLOCK_MONOTONIC is ahead
 * of the host's by about a day, worker 2 (and every third) in one behind it
 * by half the uptime: the worker unshare()s CLONE_NEWTIME, writes
 * /proc/self/timens_offsets, and a child it forks, which enters the
 * namespace, does the fuzzing. Two files are opened before the fork and
 * shared by all workers, so records armed on one clock are read on
 * another; each worker opens more of its own.
 *
 * Each call is one of: an ioctl with a valid, mutated (size, direction,
 * number, type) or random command; a read() with a random buffer and size;
 * poll(); write(), lseek() and mmap() of a page at offset 0;
 * closing and opening a file again; an epoll operation (several epoll
 * instances per worker watch dup()s of the fuzzed files, edge- and
 * level-triggered, one-shot or not, one of them nested in another; adds,
 * modifies, deletes, closes of dups and of instances, and waits); or a
 * write-back check (below). Arguments point to NULL, an unmapped address, a
 * kernel address, a read-only page, an odd offset, a header or an array that
 * runs into an inaccessible or a read-only page, or valid memory filled with
 * random, boundary or mutated values: counts (0, 1, the batch limit and
 * past it, huge), flags and reserved fields (random bits), times and periods
 * (0, a tick, INT64_MAX, U64_MAX, the edges of the namespace's clock), and
 * ids (recently issued, with bits flipped, random). The kernel only ever
 * writes into the fuzzer's scratch pages, never into its own state.
 *
 * HWTIMER_IOC_CONFIG gets valid and invalid clocks and precisions, and
 * arguments it cannot read; CLOCK_BOOTTIME only on a worker's own files
 * (the clock checks below skip those, and their rings until they are
 * reopened), never from random memory.
 *
 * Checks, besides "no crash, no kernel report":
 *  - every call returns success or an errno the ABI documents; an INFO
 *    leaves its reserved fields zero and, on a worker's own file, reports
 *    the clock CONFIG last set; a GET entry that succeeded has a
 *    documented status (and no remaining time when expired), one that
 *    failed has every output field zero; a read() returns whole records;
 *  - time namespaces: the written-back deadline_ns of every entry that
 *    succeeded, and the deadline_ns and expired_ns of every record read,
 *    are on the caller's clock: within the range that clock can show
 *    (hwtimer(4), TIME NAMESPACES), deadline <= expired <= now, and a delay
 *    written back as now + delay;
 *  - EFAULT write-back, on a file of the worker's own: a batch whose array
 *    runs from a writable page into a read-only one (entries straddling the
 *    edge), or whose done/failed counters are read-only, fails with EFAULT
 *    at exactly the first entry whose output fields cannot be written, and
 *    arms or cancels nothing past it (the file's pending + queued count,
 *    from INFO, changes by exactly the entries that succeeded);
 *  - epoll: every event is EPOLLIN | EPOLLRDNORM and nothing else;
 *  - the ring: only the whole ring, shared, not executable, at offset 0
 *    maps; the offset just past it fails with EINVAL even right after a
 *    mapping of it, and mremap() to grow a mapping with EFAULT. A worker
 *    killed by SIGBUS or SIGSEGV prints the address and the mapping.
 *
 * Output: TAP, the calls per second and per operation, and a
 * "fuzz calls=N abi=64|32" line (stress/lib.sh sums it).
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "hwtimer_user.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

#define NFD		3	/* files of a worker's own */
#define NSHARED		2	/* files all workers share */
#define NEP		3	/* epoll instances per worker */
#define NDUP		16	/* dup()s of fuzzed files watched by them */
#define NIDS		256
#define MAX_WORKERS	16
#define KTIME_MAX	((uint64_t)INT64_MAX)

/*
 * The fuzzer's clock is CLOCK_MONOTONIC_COARSE (of its namespace, as
 * CLOCK_MONOTONIC) wherever it can be: the test kernels run on the HPET
 * under TCG, which the vDSO cannot read, and a clock_gettime() system call
 * that reads it costs as much as a fuzzed call. The coarse clock is never
 * ahead of CLOCK_MONOTONIC, so it serves as the lower bound of a check; the
 * upper bound is read from CLOCK_MONOTONIC, only when there is something to
 * check.
 */
static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/* How far ahead of the host's the clock of an "ahead" namespace is. */
#define AHEAD_S		100000

enum { OP_IOCTL, OP_READ, OP_OTHER, OP_EPOLL, OP_EFAULT, OP_RING, NOPS };

/* What an unexpected result is about: each has its TAP line. */
enum { BAD_CALL, BAD_TIMENS, BAD_EFAULT, BAD_EPOLL, NBAD };
static const char *const op_name[NOPS] = {
	"ioctl", "read", "poll/write/lseek/mmap/reopen", "epoll", "write-back check",
	"ring: setup, mmap, head, fork",
};

/* What a worker did, in memory shared with the parent. */
struct wstats {
	unsigned long calls, unexpected[NBAD], errcount[160];
	unsigned long op_n[NOPS];
	uint64_t op_ns[NOPS];
	unsigned long wb_checked, recs_checked;
	unsigned long efault_checks, epoll_waits, epoll_events;
	unsigned long ring_maps, ring_recs, ring_checked;
	int64_t offset_ns;		/* its clock minus the host's */
	int timens;			/* 1 in a namespace, 0 host, -errno: none */
	int done;			/* it reached the end of its time */
};

static struct wstats *stats, *me;

/*
 * The arena, per worker: pages 0-1 read-write scratch, 2 PROT_NONE, 3
 * read-only (holding a batch header), 4 read-write, 5 read-only (zeroes:
 * valid entries of every kind, so that the kernel would act on them if it
 * could write their results back).
 */
static unsigned char *arena;
static size_t pg;
static uint64_t ids[NIDS];
static unsigned int nids;
static uint64_t seed_state;
static uint64_t clock_lo, clock_hi;	/* what this worker's clock can show */
static int fds[NFD + NSHARED], efd = -1;
static int ep[NEP] = { -1, -1, -1 }, dups[NDUP];
/*
 * Which of fds[] this worker made CLOCK_BOOTTIME files: only its own
 * (index NSHARED and up), so that no other worker's checks see a clock it
 * does not expect. Their deadlines and records are on CLOCK_BOOTTIME,
 * which a time namespace here does not offset: the clock checks skip them.
 */
static bool boottime[NFD + NSHARED];
/*
 * Which of them may hold CLOCK_BOOTTIME records in their ring: one that
 * was ever made CLOCK_BOOTTIME, until it is reopened. A record written to
 * the ring has left the kernel, so HWTIMER_IOC_CONFIG may switch the file
 * back to CLOCK_MONOTONIC while the ring still holds records stamped on
 * CLOCK_BOOTTIME (hwtimer(4), HWTIMER_IOC_CONFIG): the ring checks skip
 * those files.
 */
static bool ring_boottime[NFD + NSHARED];
/*
 * Which of them have a ring this worker scribbled on (or a child it forked
 * did): what it holds may be the worker's own writes over records, or
 * stale slots that a head or tail it overwrote points at, not the kernel's
 * records. The ring checks skip those files until they are reopened.
 */
static bool ring_dirty[NFD + NSHARED];

#define RW_END		(arena + 2 * pg)	/* end of the scratch pages */
#define RO_HDR		(arena + 3 * pg)	/* read-only batch header */
#define EDGE		(arena + 5 * pg)	/* read-write page 4 | read-only 5 */

static uint64_t rnd64(void)
{
	/* xorshift64*: reproducible from -s (per worker, not across them). */
	seed_state ^= seed_state >> 12;
	seed_state ^= seed_state << 25;
	seed_state ^= seed_state >> 27;
	return seed_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd(uint32_t n)
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static bool chance(unsigned int pct)
{
	return rnd(100) < pct;
}

/* Count an unexpected result of kind @what; print the first few. */
static __printf(2, 3) void bad(int what, const char *fmt, ...)
{
	char buf[320];
	va_list ap;
	int n;

	if (me->unexpected[what]++ >= 10)
		return;
	n = snprintf(buf, sizeof(buf), "# worker %d: ", (int)(me - stats));
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	/* One write: the workers share stdout. */
	if (write(STDOUT_FILENO, buf, n) < 0)
		return;
}

/* Is [p, p + len) in memory the fuzzer may read back (and the kernel write)? */
static bool writable(const void *p, size_t len)
{
	const unsigned char *c = p;

	return (c >= arena && c + len <= RW_END) ||
	       (c >= arena + 4 * pg && c + len <= EDGE);
}

/*
 * A "pointer" for the kernel: anything but the fuzzer's own memory. @wide:
 * it goes into a 64-bit field that the kernel uses whole (the entries of a
 * batch), not into a pointer argument that -m32 cuts to 32 bits.
 */
static uint64_t fuzz_ptr(size_t need, bool wide)
{
	switch (rnd(13)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)(arena + 2 * pg);		/* PROT_NONE */
	case 2:
		return (uintptr_t)(arena + 3 * pg);		/* read-only */
	case 3:
		/* Runs into the PROT_NONE page. */
		return (uintptr_t)(RW_END - 1 - rnd(need ? need : 1));
	case 4:
		if (sizeof(long) == 8)
			return 0xffffffff81000000ULL + rnd(4096);
		return 0xffffe000ULL + rnd(4096);		/* past the compat TASK_SIZE */
	case 5:
		/*
		 * Kernel space; or for -m32, past 4 GiB (only through the
		 * 64-bit entries field: a pointer argument would be cut to 32
		 * bits and might land in the fuzzer's own memory).
		 */
		if (sizeof(long) == 8 || wide)
			return 0xffff888000000000ULL | rnd64();
		return 0xffffe000ULL + rnd(0x1fff);
	case 6:
		return (uintptr_t)(arena + 1 + rnd(pg));	/* misaligned */
	case 7:
		return 1 + rnd(4096);				/* the zero page region */
	case 8:
		/* Runs from a writable page into a read-only one. */
		return (uintptr_t)(EDGE - 1 - rnd(need ? need : 1));
	default:
		return (uintptr_t)(arena + 8 * rnd(pg / 8));	/* aligned, valid */
	}
}

static uint64_t fuzz_u64(void)
{
	static const uint64_t special[] = {
		0, 1, 2, 999, 1000000, 1000000 - 1, 1000000 + 1, 10 * MS, SEC,
		INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX, UINT64_MAX - 1,
		1ULL << 32, (1ULL << 32) - 1, 1ULL << 63, 3600 * SEC,
	};

	switch (rnd(7)) {
	case 0:
		return rnd64();
	case 1:
		return coarse_ns() + rnd(100) * MS;	/* an absolute deadline */
	case 2:
		return rnd(20) * MS;
	case 3:
		/* The edges of this worker's clock. */
		switch (rnd(4)) {
		case 0:
			return clock_lo - rnd(3);
		case 1:
			return clock_lo + rnd(3);
		case 2:
			return clock_hi - rnd(3);
		default:
			return clock_hi + rnd(3);
		}
	default:
		return special[rnd(ARRAY_SIZE(special))];
	}
}

static uint32_t fuzz_flags(uint32_t valid)
{
	switch (rnd(5)) {
	case 0:
		return (uint32_t)rnd64();
	case 1:
		return 1U << rnd(32);
	case 2:
		return valid;
	default:
		return 0;
	}
}

static uint64_t fuzz_id(void)
{
	uint64_t id = nids ? ids[rnd(nids < NIDS ? nids : NIDS)] : 1;

	switch (rnd(6)) {
	case 0:
		return rnd64();
	case 1:
		return id ^ (1ULL << rnd(64));		/* another index or generation */
	case 2:
		return id + 1;
	case 3:
		return 0;
	default:
		return id;
	}
}

static uint32_t fuzz_count(void)
{
	switch (rnd(8)) {
	case 0:
		return 0;
	case 1:
		return HWTIMER_BATCH_MAX;
	case 2:
		return HWTIMER_BATCH_MAX + 1;
	case 3:
		return (uint32_t)rnd64();
	case 4:
		return 1 + rnd(64);
	default:
		return 1 + rnd(4);
	}
}

static size_t entry_size(unsigned long cmd)
{
	return cmd == HWTIMER_IOC_ARM ? sizeof(struct hwtimer_arm_entry) :
	       cmd == HWTIMER_IOC_CANCEL ? sizeof(struct hwtimer_cancel_entry) :
	       cmd == HWTIMER_IOC_GET ? sizeof(struct hwtimer_get_entry) :
	       sizeof(struct hwtimer_modify_entry);
}

/* Fill the entries at @p that lie in writable memory with fuzzed values. */
static void fill_entries(unsigned long cmd, unsigned char *p, uint32_t count, size_t size)
{
	uint32_t i;

	for (i = 0; i < count && writable(p + i * size, size); i++) {
		unsigned char *e = p + i * size;

		if (chance(5)) {
			uint32_t k;

			for (k = 0; k < size; k++)
				e[k] = rnd64();
			continue;
		}
		memset(e, 0, size);
		if (cmd == HWTIMER_IOC_ARM) {
			struct hwtimer_arm_entry a = { 0 };

			a.cookie = rnd64();
			a.expires_ns = fuzz_u64();
			a.period_ns = chance(70) ? 0 : fuzz_u64();
			a.flags = fuzz_flags(HWTIMER_TIMEOUT_ABS);
			a.result = rnd64();
			a.id = rnd64();
			if (chance(5)) {
				/* A slack (valid up to INT64_MAX), or a reserved field. */
				if (chance(50))
					a.slack_ns = rnd64();
				else
					a.reserved = rnd64();
			}
			memcpy(e, &a, sizeof(a));
		} else if (cmd == HWTIMER_IOC_CANCEL) {
			struct hwtimer_cancel_entry c = { 0 };

			c.id = fuzz_id();
			c.flags = chance(90) ? 0 : fuzz_flags(0);
			c.reserved = chance(95) ? 0 : rnd64();
			memcpy(e, &c, sizeof(c));
		} else if (cmd == HWTIMER_IOC_GET) {
			struct hwtimer_get_entry g;

			/* Output fields hold junk: the kernel ignores them. */
			memset(&g, 0xa5, sizeof(g));
			g.id = fuzz_id();
			g.flags = chance(90) ? 0 : fuzz_flags(0);
			g.reserved = chance(95) ? 0 : rnd64();
			g.reserved2 = chance(95) ? 0 : rnd64();
			memcpy(e, &g, sizeof(g));
		} else {
			struct hwtimer_modify_entry m = { 0 };

			m.id = fuzz_id();
			m.expires_ns = fuzz_u64();
			m.period_ns = chance(70) ? 0 : fuzz_u64();
			m.flags = fuzz_flags(HWTIMER_TIMEOUT_ABS);
			m.reserved = chance(95) ? 0 : rnd64();
			memcpy(e, &m, sizeof(m));
		}
	}
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * A deadline written back for an entry that succeeded, on this worker's
 * clock: an absolute one as asked, moved into what the clock can show; a
 * delay from a time between @before and @after.
 */
static void check_deadline(const char *what, uint32_t flags, uint64_t expires,
			   uint64_t deadline, uint64_t before, uint64_t *after)
{
	uint64_t lo, hi;

	me->wb_checked++;
	if (flags & HWTIMER_TIMEOUT_ABS) {
		lo = hi = clamp(expires, clock_lo, clock_hi);
	} else {
		/* It succeeded, so expires <= KTIME_MAX: no overflow. */
		lo = clamp(before + expires, clock_lo, clock_hi);
		if (!*after)
			*after = now_ns();
		hi = clamp(*after + expires, clock_lo, clock_hi);
	}
	if (deadline < lo || deadline > hi)
		bad(BAD_TIMENS, "%s of %s %#llx wrote back deadline_ns %llu, not in [%llu, %llu] (clock offset %lld ns)",
		    what, flags & HWTIMER_TIMEOUT_ABS ? "absolute" : "delay",
		    (unsigned long long)expires, (unsigned long long)deadline,
		    (unsigned long long)lo, (unsigned long long)hi,
		    (long long)me->offset_ns);
}

/*
 * After a batch with @done entries processed at @p, started at @before:
 * remember the ids an ARM handed out, and check the deadlines written back.
 */
static void after_batch(unsigned long cmd, unsigned char *p, uint32_t done,
			uint64_t before, bool boot)
{
	size_t size = entry_size(cmd);
	uint64_t after = 0;
	uint32_t i;

	for (i = 0; i < done && writable(p + i * size, size); i++) {
		if (cmd == HWTIMER_IOC_ARM) {
			struct hwtimer_arm_entry a;

			memcpy(&a, p + i * size, size);
			if (a.result)
				continue;
			if (a.id)
				ids[nids++ % NIDS] = a.id;
			if (!boot)
				check_deadline("ARM", a.flags, a.expires_ns, a.deadline_ns,
				       before, &after);
		} else if (cmd == HWTIMER_IOC_GET) {
			struct hwtimer_get_entry g;

			memcpy(&g, p + i * size, size);
			if (g.result &&
			    (g.status || g.cookie || g.deadline_ns || g.period_ns ||
			     g.remaining_ns || g.overrun || g.slack_ns))
				bad(BAD_CALL, "GET of id %llu failed (%d) but left output fields not zero",
				    (unsigned long long)g.id, g.result);
			else if (!g.result && g.status != HWTIMER_STATUS_PENDING &&
				 g.status != HWTIMER_STATUS_EXPIRED)
				bad(BAD_CALL, "GET of id %llu succeeded with status %u",
				    (unsigned long long)g.id, g.status);
			else if (!g.result && g.status == HWTIMER_STATUS_EXPIRED &&
				 g.remaining_ns)
				bad(BAD_CALL, "GET of expired id %llu: remaining_ns %llu, not 0",
				    (unsigned long long)g.id,
				    (unsigned long long)g.remaining_ns);
		} else if (cmd == HWTIMER_IOC_MODIFY) {
			struct hwtimer_modify_entry m;

			memcpy(&m, p + i * size, size);
			if (!m.result && !boot)
				check_deadline("MODIFY", m.flags, m.expires_ns,
					       m.deadline_ns, before, &after);
		}
	}
}

static void note_errno(int err, bool ours)
{
	static const int ok[] = {
		EINVAL, EFAULT, ENOTTY, E2BIG, ENOENT, ENOSPC, EDQUOT, ENOMEM,
		EBUSY, EAGAIN, ESPIPE, ENODEV, EACCES, EPERM,
	};
	unsigned int i;

	me->errcount[err < 160 && err > 0 ? err : 0]++;
	if (!ours)
		return;
	for (i = 0; i < ARRAY_SIZE(ok); i++)
		if (err == ok[i])
			return;
	bad(BAD_CALL, "unexpected errno %d (%s)", err, strerror(err));
}

static const unsigned long cmds[] = {
	HWTIMER_IOC_INFO, HWTIMER_IOC_ARM, HWTIMER_IOC_CANCEL, HWTIMER_IOC_MODIFY,
	HWTIMER_IOC_GET, HWTIMER_IOC_CONFIG, HWTIMER_IOC_RING,
};

static unsigned long fuzz_cmd(unsigned long *base)
{
	unsigned long cmd = cmds[rnd(ARRAY_SIZE(cmds))];

	*base = cmd;
	switch (rnd(10)) {
	case 0:		/* another size */
		return (cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       ((unsigned long)rnd(1 << _IOC_SIZEBITS) << _IOC_SIZESHIFT);
	case 1:		/* another direction */
		return (cmd & ~(_IOC_DIRMASK << _IOC_DIRSHIFT)) |
		       ((unsigned long)rnd(4) << _IOC_DIRSHIFT);
	case 2:		/* another number of the same type */
		*base = 0;
		return (cmd & ~(_IOC_NRMASK << _IOC_NRSHIFT)) |
		       ((unsigned long)rnd(256) << _IOC_NRSHIFT);
	case 3:		/* anything */
		*base = 0;
		return (uint32_t)rnd64();
	default:
		return cmd;
	}
}

static void fuzz_batch(int fd, unsigned long cmd, unsigned long base, bool boot)
{
	size_t esize = entry_size(base);
	struct hwtimer_batch b = { 0 }, back;
	unsigned char *where, *ent;
	uint64_t entries, before;
	size_t hdr = sizeof(b);
	int ret;

	b.count = fuzz_count();
	switch (rnd(10)) {
	case 0:
	case 1:
		entries = fuzz_ptr(0, true);
		break;
	case 2:
		/* Ends on the read-write page before the read-only one. */
		entries = (uintptr_t)(EDGE - (1 + rnd(8)) * esize - (chance(50) ? rnd(esize) : 0));
		break;
	default:
		entries = (uintptr_t)(arena + 8 * rnd(pg / 8) + (chance(10) ? rnd(8) : 0));
		break;
	}
	b.entries = entries;
	b.flags = fuzz_flags(HWTIMER_BATCH_CONTINUE);
	if (chance(5))
		b.reserved[rnd(2)] = rnd64();
	b.done = rnd64();
	b.failed = rnd64();
	ent = (unsigned char *)(uintptr_t)entries;
	if (entries == (uintptr_t)ent && writable(ent, 1))
		fill_entries(base, ent, b.count, esize);
	/*
	 * The header: valid, where it straddles the guard page, or where its
	 * counters are read-only. A valid one goes on the other scratch page
	 * than the entries' start, but long arrays still run into it.
	 */
	switch (rnd(20)) {
	case 0:
		where = RW_END - 1 - rnd(sizeof(b));
		hdr = RW_END - where;
		break;
	case 1:
		where = EDGE - offsetof(struct hwtimer_batch, done) - rnd(8);
		hdr = EDGE - where;
		break;
	default:
		where = (ent >= arena + pg && ent < RW_END ? arena : arena + pg) +
			8 * rnd(pg / 8 - 8);
		break;
	}
	memcpy(where, &b, hdr);
	before = coarse_ns();
	ret = ioctl(fd, cmd, where);
	if (ret < 0)
		note_errno(errno, _IOC_TYPE(cmd) == HWTIMER_IOC_MAGIC);
	if (cmd != base || !writable(where, sizeof(b)))
		return;
	/*
	 * What the kernel says it did, if it got as far as writing it (and
	 * no entry it wrote overlaps the counters).
	 */
	memcpy(&back, where, sizeof(back));
	if ((ret && back.done == b.done) || back.done > b.count ||
	    (ent < where + sizeof(b) && ent + (size_t)back.done * esize > where))
		return;
	after_batch(base, ent, back.done, before, boot);
}

/*
 * CONFIG on fds[@slot]: mostly valid values, CLOCK_BOOTTIME only on a file
 * of the worker's own. The argument is scrubbed afterwards, so that a
 * random command later pointed at the scratch pages cannot find a valid
 * CLOCK_BOOTTIME configuration there and apply it to a shared file.
 */
static int fuzz_config(int fd, int slot, unsigned long cmd)
{
	struct hwtimer_config *c = (void *)(arena + 8 * rnd(pg / 8 - 8));
	bool own = slot >= NSHARED;
	uintptr_t p;
	int ret;

	if (chance(10)) {
		/* An argument the kernel cannot read whole: EFAULT. */
		switch (rnd(3)) {
		case 0:
			p = 0;
			break;
		case 1:
			p = (uintptr_t)(arena + 2 * pg);	/* PROT_NONE */
			break;
		default:
			/* Runs into the PROT_NONE page. */
			p = (uintptr_t)(RW_END - 1 - rnd(sizeof(*c) - 1));
			memset((void *)p, 0, RW_END - (unsigned char *)p);
			break;
		}
		return ioctl(fd, cmd, p);
	}
	memset(c, 0, sizeof(*c));
	switch (rnd(10)) {
	case 0:
		c->clockid = (int32_t)rnd64();
		if (c->clockid == CLOCK_BOOTTIME && !own)
			c->clockid = -1;
		break;
	case 1:
	case 2:
	case 3:
		c->clockid = own ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
		break;
	default:
		c->clockid = CLOCK_MONOTONIC;
		break;
	}
	c->precision = chance(90) ? rnd(3) : (uint32_t)rnd64();
	if (chance(5))
		c->reserved[rnd(3)] = rnd64();
	ret = ioctl(fd, cmd, c);
	if (!ret && own) {
		boottime[slot] = c->clockid == CLOCK_BOOTTIME;
		ring_boottime[slot] |= boottime[slot];
	}
	memset(c, 0xff, sizeof(*c));
	return ret;
}

static void fuzz_ioctl(int *fdp)
{
	unsigned long base, cmd = fuzz_cmd(&base);
	bool ours = _IOC_TYPE(cmd) == HWTIMER_IOC_MAGIC;
	int fd = *fdp, slot = fdp - fds;
	uint64_t arg;
	int ret;

	if (base == HWTIMER_IOC_INFO && chance(80)) {
		struct hwtimer_info *info = (void *)(arena + 8 * rnd(pg / 8 - 12));

		memset(info, 0xa5, sizeof(*info));
		ret = ioctl(fd, cmd, info);
		if (!ret && cmd == HWTIMER_IOC_INFO &&
		    (info->reserved || info->precision > HWTIMER_PRECISION_COARSE ||
		     (info->clockid != CLOCK_MONOTONIC && info->clockid != CLOCK_BOOTTIME) ||
		     info->features != HWT_FEATURES))
			bad(BAD_CALL, "INFO left junk (precision %u, clockid %d, features %#x)",
			    info->precision, info->clockid, info->features);
		else if (!ret && cmd == HWTIMER_IOC_INFO && slot >= NSHARED &&
			 (info->clockid == CLOCK_BOOTTIME) != !!boottime[slot])
			bad(BAD_CALL, "INFO says the clock is %d, but CONFIG chose %s",
			    info->clockid, boottime[slot] ? "CLOCK_BOOTTIME" : "CLOCK_MONOTONIC");
	} else if (cmd == HWTIMER_IOC_CONFIG) {
		/* Never with random memory: see fuzz_config(). */
		ret = fuzz_config(fd, slot, cmd);
	} else if (base && base != HWTIMER_IOC_INFO && base != HWTIMER_IOC_CONFIG &&
		   chance(85)) {
		/* It notes its own errno. */
		fuzz_batch(fd, cmd, base, slot >= NSHARED && boottime[slot]);
		ret = 0;
	} else {
		/* Random values only where they cannot reach the fuzzer's memory. */
		arg = chance(50) || sizeof(long) == 4 ? fuzz_ptr(64, false) : rnd64();
		ret = ioctl(fd, cmd, (unsigned long)arg);
	}
	if (ret < 0)
		note_errno(errno, ours);
}

/* Records @from a file of this worker's clock are on that clock. */
static void check_records(const struct hwtimer_expiry *r, size_t n, uint64_t after,
			  const char *from, int slot)
{
	size_t i;

	for (i = 0; i < n; i++, me->recs_checked++) {
		if (r[i].deadline_ns < clock_lo || r[i].deadline_ns > r[i].expired_ns ||
		    r[i].expired_ns > after || r[i].expired_ns > clock_hi)
			bad(BAD_TIMENS, "record id %llu (%s %d): deadline_ns %llu expired_ns %llu, read at %llu, clock from %llu (offset %lld ns)",
			    (unsigned long long)r[i].id, from, slot,
			    (unsigned long long)r[i].deadline_ns,
			    (unsigned long long)r[i].expired_ns,
			    (unsigned long long)after, (unsigned long long)clock_lo,
			    (long long)me->offset_ns);
	}
}

static void fuzz_read(int *fdp)
{
	int fd = *fdp, slot = fdp - fds;
	struct hwtimer_expiry *recs;
	size_t len;
	uint64_t buf;
	ssize_t n;

	/* FIONBIO from a random command may have cleared it. */
	fcntl(fd, F_SETFL, O_NONBLOCK);
	switch (rnd(5)) {
	case 0:
		len = rnd(100);
		break;
	case 1:
		len = (size_t)rnd64();
		break;
	default:
		len = sizeof(struct hwtimer_expiry) * (1 + rnd(40));
		break;
	}
	buf = chance(70) ? (uintptr_t)(arena + rnd(pg)) : fuzz_ptr(len, false);
	if (buf >= (uintptr_t)arena && buf < (uintptr_t)RW_END &&
	    len > (uintptr_t)RW_END - buf && chance(50))
		len = (uintptr_t)RW_END - buf;
	recs = (struct hwtimer_expiry *)(uintptr_t)buf;
	n = read(fd, recs, len);
	if (n < 0) {
		note_errno(errno, true);
	} else if (n % sizeof(struct hwtimer_expiry)) {
		bad(BAD_CALL, "read returned %zd bytes", n);
	} else if (n && writable(recs, n)) {
		struct hwtimer_expiry copy[40];
		size_t k = n / sizeof(copy[0]);

		memcpy(copy, recs, (k < 40 ? k : 40) * sizeof(copy[0]));
		if (slot < NSHARED || !boottime[slot])
			check_records(copy, k < 40 ? k : 40, now_ns(), "read of file", slot);
	}
}

static struct hwtimer_ring_params ringp[NFD + NSHARED];

static int reopen(int *fd)
{
	if (fd >= fds && fd < fds + NFD + NSHARED) {
		boottime[fd - fds] = false;
		ring_boottime[fd - fds] = false;
		ring_dirty[fd - fds] = false;
		memset(&ringp[fd - fds], 0, sizeof(ringp[0]));
	}
	close(*fd);
	*fd = ht_open(O_NONBLOCK);
	if (*fd < 0) {
		bad(BAD_CALL, "open: %s", strerror(errno));
		exit(2);
	}
	return *fd;
}

static void fuzz_other(int *fd)
{
	struct pollfd p = { .fd = *fd, .events = POLLIN | POLLOUT | POLLPRI };
	void *m;

	switch (rnd(6)) {
	case 0:
		if (poll(&p, 1, 0) < 0)
			note_errno(errno, true);
		break;
	case 1:
		if (write(*fd, arena, rnd(100)) < 0)
			note_errno(errno, false);
		break;
	case 2:
		if (lseek(*fd, rnd(100), SEEK_SET) < 0)
			note_errno(errno, true);
		break;
	case 3:
		m = mmap(NULL, pg, PROT_READ, MAP_SHARED, *fd, 0);
		if (m == MAP_FAILED)
			note_errno(errno, true);
		else
			munmap(m, pg);
		break;
	default:
		reopen(fd);
		break;
	}
}

/*
 * Read until EAGAIN, checking what comes, as an edge-triggered waiter must;
 * the clock of the records only if the file is on CLOCK_MONOTONIC (a dup()
 * of one of the worker's own files may be on CLOCK_BOOTTIME).
 */
static void drain(int fd)
{
	struct hwtimer_expiry r[16];
	struct hwtimer_info info;
	bool boot;
	ssize_t n;
	int i;

	boot = !ioctl(fd, HWTIMER_IOC_INFO, &info) &&
	       info.clockid == CLOCK_BOOTTIME;
	for (i = 0; i < 8; i++) {
		n = read(fd, r, sizeof(r));
		if (n <= 0)
			break;
		if (!boot)
			check_records(r, n / sizeof(r[0]), now_ns(), "read of dup fd", fd);
	}
}

/*
 * Epoll fan-out: NEP instances (the last also watches the first) watch
 * dup()s of the fuzzed files; add, modify, delete, close and wait.
 */
static void fuzz_epoll(void)
{
	struct epoll_event ev = { 0 }, evs[8];
	int e = rnd(NEP), d = rnd(NDUP), n, i;

	if (ep[e] < 0) {
		ep[e] = epoll_create1(EPOLL_CLOEXEC);
		if (ep[e] < 0) {
			note_errno(errno, true);
			return;
		}
		if (e == NEP - 1 && ep[0] >= 0) {
			ev.events = EPOLLIN;
			epoll_ctl(ep[e], EPOLL_CTL_ADD, ep[0], &ev);
		}
	}
	ev.events = EPOLLIN | EPOLLRDNORM | (chance(50) ? EPOLLET : 0) |
		    (chance(10) ? EPOLLONESHOT : 0);
	ev.data.u64 = d;
	switch (rnd(10)) {
	case 0:
	case 1:
		/* A new dup of a fuzzed file, watched by one or more instances. */
		if (dups[d] >= 0)
			close(dups[d]);
		dups[d] = dup(fds[rnd(NFD + NSHARED)]);
		if (dups[d] < 0) {
			note_errno(errno, true);
			return;
		}
		for (i = 0; i < NEP; i++)
			if (ep[i] >= 0 && (i == e || chance(30)) &&
			    epoll_ctl(ep[i], EPOLL_CTL_ADD, dups[d], &ev))
				/*
				 * EEXIST: a closed dup's watch stays while the
				 * file lives, and dup() may give its number again.
				 */
				note_errno(errno, errno != EEXIST);
		break;
	case 2:
		/* Errors are fine: it may not be watched. */
		if (dups[d] >= 0 && epoll_ctl(ep[e], EPOLL_CTL_MOD, dups[d], &ev))
			note_errno(errno, false);
		break;
	case 3:
		if (dups[d] >= 0 && epoll_ctl(ep[e], EPOLL_CTL_DEL, dups[d], NULL))
			note_errno(errno, false);
		break;
	case 4:
		/* The watches stay: the file lives on in its other fds. */
		if (dups[d] >= 0)
			close(dups[d]);
		dups[d] = -1;
		break;
	case 5:
		if (chance(20)) {
			close(ep[e]);
			ep[e] = -1;
			break;
		}
		/* fall through */
	default:
		n = epoll_wait(ep[e], evs, ARRAY_SIZE(evs), chance(5) ? 1 : 0);
		me->epoll_waits++;
		if (n < 0) {
			note_errno(errno, true);
			break;
		}
		me->epoll_events += n;
		for (i = 0; i < n; i++) {
			if (evs[i].events & ~(uint32_t)(EPOLLIN | EPOLLRDNORM))
				bad(BAD_EPOLL, "epoll event %#x: more than EPOLLIN | EPOLLRDNORM",
				    evs[i].events);
			d = evs[i].data.u64;
			if (d < NDUP && dups[d] >= 0 && chance(50)) {
				fcntl(dups[d], F_SETFL, O_NONBLOCK);
				drain(dups[d]);
			}
		}
		break;
	}
}

/* An ARM entry's outputs (result, id, deadline_ns) end here. */
#define ARM_OUT_END	(offsetof(struct hwtimer_arm_entry, deadline_ns) + \
			 sizeof(((struct hwtimer_arm_entry *)0)->deadline_ns))

/* This worker's own file's pending + queued timeouts. */
static long long own_count(void)
{
	struct hwtimer_info info;

	if (ht_info(efd, &info)) {
		bad(BAD_EFAULT, "INFO: %s", strerror(errno));
		return -1;
	}
	return (long long)(info.pending + info.queued);
}

/*
 * A batch of @count entries of @cmd at @ent, with its header at @hdr: the
 * first entry whose output fields (@out_end bytes into it) reach the
 * read-only page must stop it with EFAULT, and nothing past it may be done.
 * @delta: +1 for each ARM entry that succeeded, -1 for each CANCEL.
 */
static void efault_batch(unsigned long cmd, unsigned char *ent, uint32_t count,
			 size_t out_end, int delta, struct hwtimer_batch *hdr,
			 bool hdr_ro)
{
	size_t size = entry_size(cmd);
	uint32_t first_bad, i, done = 0, ok = 0;
	long long c0, c1;
	int ret, err;

	for (first_bad = 0; first_bad < count; first_bad++)
		if (ent + first_bad * size + out_end > EDGE)
			break;
	c0 = own_count();
	ret = ioctl(efd, cmd, hdr);
	err = errno;
	c1 = own_count();
	me->efault_checks++;
	if (hdr_ro) {
		if (ret != -1 || err != EFAULT)
			bad(BAD_EFAULT, "ARM with done/failed read-only: %s, not EFAULT",
			    ret ? strerror(err) : "success");
	} else if (!ret) {
		bad(BAD_EFAULT, "%s with an entry's results read-only succeeded",
		    cmd == HWTIMER_IOC_ARM ? "ARM" : "CANCEL");
	} else {
		done = hdr->done;
		for (i = 0; i < done && i < first_bad; i++) {
			const unsigned char *e = ent + i * size;
			int32_t result;

			memcpy(&result, e + (cmd == HWTIMER_IOC_ARM ?
					     offsetof(struct hwtimer_arm_entry, result) :
					     offsetof(struct hwtimer_cancel_entry, result)),
			       sizeof(result));
			ok += !result;
		}
		if ((err == EFAULT && done != first_bad) || done > first_bad)
			bad(BAD_EFAULT, "%s: %s, done %u; the first entry that cannot be written back is %u",
			    cmd == HWTIMER_IOC_ARM ? "ARM" : "CANCEL", strerror(err), done,
			    first_bad);
	}
	if (c0 >= 0 && c1 >= 0 && c1 - c0 != (long long)ok * delta)
		bad(BAD_EFAULT, "%s: %s after %u entries done, %u of them succeeded, but the file's timeouts went from %lld to %lld%s",
		    cmd == HWTIMER_IOC_ARM ? "ARM" : "CANCEL", strerror(err), done, ok,
		    c0, c1, hdr_ro ? " (its done/failed were read-only)" : "");
}

static void fill_arm(struct hwtimer_arm_entry *a, unsigned int i)
{
	memset(a, 0, sizeof(*a));
	a->cookie = i;
	a->expires_ns = chance(50) ? 0 : 3600 * SEC;	/* due now, or pending */
	a->result = 1;
}

/* EFAULT write-back, on the worker's own file efd. */
static void fuzz_efault(void)
{
	struct hwtimer_batch *hdr = (void *)arena, b = { 0 };
	struct hwtimer_arm_entry a;
	struct hwtimer_cancel_entry c;
	unsigned char *ent;
	uint32_t k, count, i;
	size_t size, part;

	if (own_count() > 512)
		reopen(&efd);
	memset(hdr, 0, sizeof(*hdr));
	hdr->flags = chance(50) ? HWTIMER_BATCH_CONTINUE : 0;
	switch (rnd(4)) {
	case 0:
		/* ARM: an array that runs into the read-only page. */
		size = sizeof(a);
		k = 1 + rnd(6);
		part = chance(50) ? rnd(size) : 0;
		ent = EDGE - k * size - part;
		/* Entry k may still be writable where it matters; k + 1 is not. */
		count = k + 2 + rnd(2);
		for (i = 0; i < count && ent + i * size < EDGE; i++) {
			size_t room = EDGE - (ent + i * size);

			fill_arm(&a, i);
			memcpy(ent + i * size, &a, room < size ? room : size);
		}
		hdr->entries = (uintptr_t)ent;
		hdr->count = count;
		efault_batch(HWTIMER_IOC_ARM, ent, count,
			     ARM_OUT_END, 1, hdr, false);
		break;
	case 1:
		/* CANCEL of live timeouts, the array running into it. */
		k = 1 + rnd(8);
		ent = arena + pg;
		for (i = 0; i < k; i++)
			fill_arm((struct hwtimer_arm_entry *)ent + i, i);
		if (ht_batch(efd, HWTIMER_IOC_ARM, ent, k, 0, NULL, NULL))
			return;
		/*
		 * Entry k - 1 starts @part bytes before the edge: from 8 to
		 * 19, its id is writable (live) and its results are not.
		 */
		size = sizeof(c);
		part = chance(80) ? 8 + rnd(12) : rnd(size);
		ent = EDGE - (k - 1) * size - part;
		count = k + 1 + rnd(2);
		for (i = 0; i < count && ent + i * size < EDGE; i++) {
			size_t room = EDGE - (ent + i * size);

			memset(&c, 0, sizeof(c));
			if (i < k)
				c.id = ((struct hwtimer_arm_entry *)(arena + pg))[i].id;
			c.result = 1;
			memcpy(ent + i * size, &c, room < size ? room : size);
		}
		hdr->entries = (uintptr_t)ent;
		hdr->count = count;
		efault_batch(HWTIMER_IOC_CANCEL, ent, hdr->count,
			     offsetof(struct hwtimer_cancel_entry, reserved), -1, hdr, false);
		break;
	case 2:
		/* done and failed on the read-only page. */
		count = 1 + rnd(4);
		for (i = 0; i < count; i++)
			fill_arm((struct hwtimer_arm_entry *)(arena + pg) + i, i);
		b.entries = (uintptr_t)(arena + pg);
		b.count = count;
		b.flags = hdr->flags;
		hdr = (void *)(EDGE - offsetof(struct hwtimer_batch, done));
		memcpy(hdr, &b, offsetof(struct hwtimer_batch, done));
		efault_batch(HWTIMER_IOC_ARM, arena + pg, count,
			     ARM_OUT_END, 1, hdr, true);
		break;
	default:
		/* The whole header read-only (it points at page 4). */
		fill_arm(&a, 0);
		memcpy(arena + 4 * pg, &a, sizeof(a));
		efault_batch(HWTIMER_IOC_ARM, arena + 4 * pg, 1,
			     ARM_OUT_END, 1,
			     (void *)RO_HDR, true);
		break;
	}
}

/*
 * The completion ring (hwtimer(4), RING). A worker's mappings of rings,
 * of its own files or the shared ones: up to NMAP at a time.
 */
#define NMAP	4
static struct {
	unsigned char *m;
	size_t len;
	off_t off;
	struct hwtimer_ring_params p;	/* its layout, when known */
	int slot;			/* the fds[] slot it was mapped from */
} maps[NMAP];

/*
 * A worker killed by SIGBUS or SIGSEGV says where: the address, the code,
 * and which of its ring mappings holds it. Then it dies of the signal as
 * before (and fails the run).
 */
static void crash_handler(int sig, siginfo_t *si, void *uc)
{
	const unsigned char *a = si->si_addr;
	char buf[320];
	int n, k;

	(void)uc;
	n = snprintf(buf, sizeof(buf), "# worker %d: %s at %p, si_code %d",
		     (int)(me - stats), sig == SIGBUS ? "SIGBUS" : "SIGSEGV",
		     si->si_addr, si->si_code);
	for (k = 0; k < NMAP; k++) {
		if (!maps[k].m || a < maps[k].m || a >= maps[k].m + maps[k].len)
			continue;
		n += snprintf(buf + n, sizeof(buf) - n,
			      ", in map %d: %p + %#zx of %#zx at offset %#llx, ring entries %u, mmap_size %#llx",
			      k, (void *)maps[k].m, (size_t)(a - maps[k].m), maps[k].len,
			      (unsigned long long)maps[k].off, maps[k].p.entries,
			      (unsigned long long)maps[k].p.mmap_size);
		break;
	}
	if (k == NMAP)
		n += snprintf(buf + n, sizeof(buf) - n, ", in no ring mapping");
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDOUT_FILENO, buf, n) < 0)
		_exit(2);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_crashes(void)
{
	struct sigaction sa = { .sa_sigaction = crash_handler, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

/*
 * A mapping of the ring is never longer than the ring: neither a mapping
 * of the offset just past it, placed right after it (which mm merges into
 * an adjacent mapping of the file whose flags match, without asking the
 * device), nor mremap() growing it in place. Either would leave pages that
 * raise SIGBUS when touched (hwtimer(4), RING: EINVAL, EFAULT).
 */
static void ring_adjacent(int fd, const struct hwtimer_ring_params *rp)
{
	size_t len = rp->mmap_size;
	unsigned char *m, *r;
	void *x;

	m = mmap(NULL, 2 * len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	r = mmap(m, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (r == MAP_FAILED) {
		note_errno(errno, true);
		munmap(m, 2 * len);
		return;
	}
	me->ring_maps++;
	x = mmap(m + len, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, len);
	if (x != MAP_FAILED)
		bad(BAD_CALL, "mmap() at offset %#zx, right after a mapping of the ring of %#zx bytes, succeeded",
		    len, len);
	else if (errno != EINVAL)
		bad(BAD_CALL, "mmap() at offset %#zx right after the ring: %s, not EINVAL", len,
		    strerror(errno));
	munmap(m + len, len);
	x = mremap(m, len, 2 * len, 0);
	if (x != MAP_FAILED)
		bad(BAD_CALL, "mremap() of a ring mapping from %#zx to %#zx bytes succeeded", len,
		    2 * len);
	else if (errno != EFAULT)
		bad(BAD_CALL, "mremap() to grow a ring mapping: %s, not EFAULT", strerror(errno));
	munmap(m, 2 * len);
}

/* HWTIMER_IOC_RING with good, bad and boundary parameters. */
static void ring_setup(int fd, struct hwtimer_ring_params *p)
{
	memset(p, 0, sizeof(*p));
	switch (rnd(6)) {
	case 0:
		p->entries = rnd64();
		break;
	case 1:
		p->entries = chance(50) ? 0 : HWTIMER_RING_MAX + rnd(3);
		break;
	case 2:
		p->entries = 1 + rnd(64);
		p->flags = fuzz_flags(0);
		p->reserved[rnd(4)] = fuzz_u64();
		break;
	default:
		p->entries = 1 + rnd(chance(90) ? 256 : HWTIMER_RING_MAX);
		break;
	}
	if (ioctl(fd, HWTIMER_IOC_RING, p))
		note_errno(errno, true);
}

/*
 * Check the records a mapped ring of fds[@slot] holds (if @check and no
 * scribble has been there), consume them, then scribble half the time.
 */
static void ring_use(unsigned char *m, size_t len, const struct hwtimer_ring_params *rp,
		     bool check, int slot)
{
	uint32_t *head = (uint32_t *)(m + rp->head_off);
	uint32_t tail = __atomic_load_n((uint32_t *)(m + rp->tail_off), __ATOMIC_ACQUIRE);
	struct hwtimer_expiry *recs = (void *)(m + rp->records_off);
	struct hwtimer_expiry copy[40];
	uint32_t h = *head, n = 0;
	size_t off;

	while (h != tail && n < 40 && tail - h <= rp->entries)
		copy[n++] = recs[h++ & (rp->entries - 1)];
	if (check && !ring_dirty[slot] && n) {
		check_records(copy, n, now_ns(), "ring of file", slot);
		me->ring_checked += n;
	}
	me->ring_recs += n;
	__atomic_store_n(head, h, __ATOMIC_RELEASE);
	if (chance(50))
		return;
	/* Hostile writes anywhere in it hurt only what this worker reads. */
	ring_dirty[slot] = true;
	switch (rnd(4)) {
	case 0:
		*head = rnd64();
		break;
	case 1:
		*head = tail + rnd(3) * rp->entries + rnd(2);
		break;
	case 2:
		off = rnd(len);
		memset(m + off, rnd(256), 1 + rnd(len - off < 64 ? len - off : 64));
		break;
	default:
		*(uint32_t *)(m + rnd(len / 4) * 4) = rnd64();
		break;
	}
}

/*
 * Map a ring with a good or bad offset, length, protection and sharing;
 * check what a good mapping holds, scribble over it (half the time), and
 * unmap it, or leave it mapped while the file is closed, or fork with it.
 */
static void fuzz_ring(int *fdp)
{
	int fd = *fdp, slot = fdp - fds, k = rnd(NMAP), prot, flags;
	struct hwtimer_ring_params p, *rp = &ringp[slot];
	size_t len;
	off_t off;
	void *m;

	switch (rnd(8)) {
	case 0:
		ring_setup(fd, &p);
		if (!p.flags && p.entries && p.mmap_size && !rp->entries)
			*rp = p;
		return;
	case 1:
		/* Unmap, or change the protection of, a mapping under load. */
		if (!maps[k].m)
			return;
		if (chance(30) && mprotect(maps[k].m, maps[k].len,
					   chance(50) ? PROT_READ | PROT_EXEC : PROT_READ))
			note_errno(errno, true);
		munmap(maps[k].m, maps[k].len);
		maps[k].m = NULL;
		return;
	case 2:
		/* Fork: the child scribbles on the shared ring and arms. */
		if (!maps[k].m || !maps[k].p.entries || !chance(10))
			return;
		ring_dirty[maps[k].slot] = true;
		if (!fork()) {
			struct hwtimer_arm_entry a = { .cookie = 1 };

			*(uint32_t *)(maps[k].m + maps[k].p.head_off) = rnd64();
			ht_batch(fd, HWTIMER_IOC_ARM, &a, 1, 0, NULL, NULL);
			_exit(0);
		}
		wait(NULL);
		return;
	case 3:
		if (rp->entries)
			ring_adjacent(fd, rp);
		return;
	default:
		break;
	}
	if (!rp->entries) {
		memset(&p, 0, sizeof(p));
		p.entries = 1 + rnd(chance(90) ? 64 : 4096);
		if (!ioctl(fd, HWTIMER_IOC_RING, &p))
			*rp = p;
		else if (errno != EBUSY)
			note_errno(errno, true);
	}
	/* Another worker's ring of a shared file: its length unknown. */
	len = rp->entries ? rp->mmap_size : pg * (1 + rnd(4));
	off = 0;
	prot = PROT_READ | PROT_WRITE;
	flags = MAP_SHARED;
	switch (rnd(8)) {
	case 0:
		len = chance(50) ? rnd64() % (64 * pg) : len + pg * (1 + rnd(2));
		break;
	case 1:
		off = pg * (1 + rnd(4));
		break;
	case 2:
		prot = chance(50) ? PROT_READ | PROT_EXEC : PROT_READ;
		break;
	case 3:
		flags = MAP_PRIVATE;
		break;
	default:
		break;
	}
	m = mmap(NULL, len, prot, flags, fd, off);
	if (m == MAP_FAILED) {
		note_errno(errno, true);
		return;
	}
	/* Only the ring, whole, shared and not executable, maps. */
	if (off || (prot & PROT_EXEC) || flags != MAP_SHARED ||
	    (rp->entries && (len + pg - 1) / pg * pg != rp->mmap_size)) {
		bad(BAD_CALL, "mmap() of %#zx bytes at offset %#llx, prot %#x, flags %#x succeeded (ring %#llx bytes)",
		    len, (unsigned long long)off, prot, flags,
		    (unsigned long long)rp->mmap_size);
		munmap(m, len);
		return;
	}
	me->ring_maps++;
	if (maps[k].m)
		munmap(maps[k].m, maps[k].len);
	maps[k].m = m;
	maps[k].len = len;
	maps[k].off = off;
	memset(&maps[k].p, 0, sizeof(maps[k].p));
	if (rp->entries && (prot & PROT_WRITE) && len >= rp->mmap_size) {
		maps[k].p = *rp;
		maps[k].slot = slot;
		ring_use(m, len, rp, slot >= NSHARED && !ring_boottime[slot], slot);
	}
	/* Sometimes the file goes while it stays mapped. */
	if (chance(10))
		reopen(fdp);
}

static uint64_t fuzz_op(int op, int *fd)
{
	uint64_t t0 = coarse_ns();

	switch (op) {
	case OP_IOCTL:
		fuzz_ioctl(fd);
		break;
	case OP_READ:
		fuzz_read(fd);
		break;
	case OP_OTHER:
		fuzz_other(fd);
		break;
	case OP_EPOLL:
		fuzz_epoll();
		break;
	case OP_RING:
		fuzz_ring(fd);
		break;
	default:
		fuzz_efault();
		break;
	}
	me->calls++;
	me->op_n[op]++;
	/* In jiffies: the sum over many calls is what counts. */
	return coarse_ns() - t0;
}

static int pick_op(void)
{
	uint32_t r = rnd(1000);

	if (r < 700)
		return OP_IOCTL;
	if (r < 850)
		return OP_READ;
	if (r < 900)
		return OP_OTHER;
	if (r < 960)
		return OP_EPOLL;
	if (r < 980)
		return OP_RING;
	return OP_EFAULT;
}

static int setup_arena(void)
{
	struct hwtimer_batch *b;

	pg = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, 6 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		return -errno;
	b = (void *)RO_HDR;
	b->entries = (uintptr_t)(arena + 4 * pg);
	b->count = 1;
	if (mprotect(arena + 2 * pg, pg, PROT_NONE) ||
	    mprotect(arena + 3 * pg, pg, PROT_READ) ||
	    mprotect(arena + 5 * pg, pg, PROT_READ))
		return -errno;
	return 0;
}

/*
 * What the end's checks count over all workers, each worker has done:
 * batches that fault at their write-back, epoll waits, mapped rings, and
 * in a time namespace records and write-backs checked on its clock.
 */
static bool covered(void)
{
	return me->efault_checks && me->epoll_waits && me->op_n[OP_RING] &&
	       me->ring_maps && (me->timens != 1 || (me->recs_checked && me->wb_checked));
}

/*
 * The fuzzing loop of one worker, until @end (host time + offset), and on
 * (60 s at most) until covered(): a slow or busy host gives a worker fewer
 * calls in its time, and the checks must not then find a kind missing.
 */
static void fuzz(uint64_t end)
{
	unsigned int e;
	int i;

	if (setup_arena()) {
		bad(BAD_CALL, "arena: %s", strerror(errno));
		exit(2);
	}
	for (i = NSHARED; i < NFD + NSHARED; i++)
		fds[i] = -1, reopen(&fds[i]);
	efd = -1;
	reopen(&efd);
	for (i = 0; i < NDUP; i++)
		dups[i] = -1;
	while (coarse_ns() < end || (!covered() && coarse_ns() < end + 60 * SEC)) {
		for (e = 0; e < 64; e++) {
			int op = pick_op();

			me->op_ns[op] += fuzz_op(op, &fds[rnd(NFD + NSHARED)]);
		}
	}
	me->done = 1;
}

/*
 * Worker @w: in the host's time namespace, or in a new one ahead of or
 * behind it (set up here, entered by a child that fuzzes); returns the exit
 * status.
 */
static int worker(int w, uint64_t end)
{
	int64_t off_s = 0;
	uint64_t host;
	char buf[64];
	int pfd, len, status;
	pid_t pid;

	me = &stats[w];
	catch_crashes();
	seed_state ^= (w + 1) * 0x9e3779b97f4a7c15ULL;
	if (w % 3 == 1)
		off_s = AHEAD_S;
	else if (w % 3 == 2)
		off_s = -(int64_t)(now_ns() / SEC / 2);
	clock_lo = 0;
	clock_hi = KTIME_MAX;
	if (!off_s) {
		fuzz(end);
		return 0;
	}
	if (unshare(CLONE_NEWTIME)) {
		/* No CONFIG_TIME_NS: fuzz on the host's clock. */
		me->timens = -errno;
		fuzz(end);
		return 0;
	}
	pfd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	len = snprintf(buf, sizeof(buf), "monotonic %lld 0\n", (long long)off_s);
	if (pfd < 0 || write(pfd, buf, len) != len) {
		bad(BAD_TIMENS, "timens_offsets \"monotonic %lld 0\": %s", (long long)off_s,
		    strerror(errno));
		return 2;
	}
	close(pfd);
	me->timens = 1;
	me->offset_ns = off_s * (int64_t)SEC;
	host = now_ns();
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		/* In the namespace: its clock is off the host's by the offset. */
		int64_t skew = (int64_t)(now_ns() - host) - me->offset_ns;

		if (skew < 0 || skew > 60 * (int64_t)SEC)
			bad(BAD_TIMENS, "CLOCK_MONOTONIC in the namespace is %lld ns off the host's, not %lld",
			    (long long)(skew + me->offset_ns), (long long)me->offset_ns);
		/*
		 * Ahead, times before the host clock's start show as its
		 * start; INT64_MAX is every namespace's limit (hwtimer(4)).
		 */
		clock_lo = off_s > 0 ? (uint64_t)me->offset_ns : 0;
		clock_hi = KTIME_MAX;
		fuzz(end + me->offset_ns);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The device works: arm, read, cancel, modify, periodic, global count. */
static int sanity(void)
{
	struct hwtimer_arm_entry a[10];
	struct hwtimer_expiry r[10];
	struct hwtimer_cancel_entry c = { 0 };
	struct hwtimer_modify_entry m = { 0 };
	struct pollfd p;
	struct hwtimer_info info;
	unsigned int i, got = 0, seen = 0;
	uint64_t t0 = now_ns();
	int fd = ht_open(0), ret;

	tap_plan(6);
	if (fd < 0) {
		tap(false, "open: %s", strerror(errno));
		return 1;
	}
	tap(!ht_info(fd, &info) && info.features == HWT_FEATURES &&
	    !info.pending && !info.queued, "INFO of a fresh file");
	memset(a, 0, sizeof(a));
	for (i = 0; i < 10; i++) {
		a[i].cookie = 1000 + i;
		a[i].expires_ns = (1 + i) * MS;
	}
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, 10, 0, NULL, NULL);
	p.fd = fd;
	p.events = POLLIN;
	while (!ret && got < 10 && now_ns() - t0 < 10 * SEC) {
		ssize_t n;

		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = read(fd, r, sizeof(r));
		for (i = 0; n > 0 && i < n / sizeof(r[0]); i++, got++)
			if (r[i].cookie >= 1000 && r[i].cookie < 1010 &&
			    r[i].expired_ns >= r[i].deadline_ns)
				seen |= 1U << (r[i].cookie - 1000);
	}
	tap(!ret && got == 10 && seen == 0x3ff, "10 timeouts armed and read back (%u)", got);

	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL);
	m.id = a[0].id;
	m.expires_ns = 3600 * SEC;
	c.id = a[0].id;
	tap(!ret && !ht_batch(fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) &&
	    !ht_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL) &&
	    c.status == HWTIMER_STATUS_PENDING, "modify and cancel");

	memset(a, 0, sizeof(a));
	a[0].expires_ns = MS;
	a[0].period_ns = 2 * MS;
	ret = ht_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL);
	for (i = 0, got = 0; !ret && i < 3 && now_ns() - t0 < 20 * SEC; ) {
		if (poll(&p, 1, 1000) > 0 && read(fd, r, sizeof(r)) == sizeof(r[0]) &&
		    r[0].flags & HWTIMER_EXPIRY_REARMED)
			i++;
	}
	tap(i == 3, "a periodic timeout fires again and again");
	c.id = a[0].id;
	tap(!ht_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL), "and cancels");
	close(fd);
	tap(ht_global_count() == 0, "global count back to 0 (%ld)", ht_global_count());
	return tap_status();
}

int main(int argc, char **argv)
{
	struct wstats sum = { 0 };
	unsigned long ns_recs = 0, ns_wb = 0;
	int secs = 10, nw = 3, w, status, crashed = 0, nns = 0, nons = 0;
	uint64_t seed = 0, t0, end, elapsed;
	pid_t pids[MAX_WORKERS];
	bool sanity_only = false;
	const struct ht_opt opts[] = {
		HT_OPT_NUM('t', secs, "seconds", 1, 1000000),
		HT_OPT_NUM('s', seed, "seed", 0, UINT64_MAX),
		HT_OPT_NUM('j', nw, "workers", 1, MAX_WORKERS),
		HT_OPT_FLAG('S', sanity_only),
		{ 0 }
	};
	unsigned int e;

	if (ht_getopt(argc, argv, opts))
		return 2;
	if (sanity_only)
		return sanity();
	if (access(HWT_DEV, F_OK)) {
		printf("1..0 # SKIP no %s\n", HWT_DEV);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	/* The workers' lines must not be buffered across fork(). */
	setvbuf(stdout, NULL, _IOLBF, 0);
	seed_state = seed ? seed : now_ns() | 1;
	tap_plan(5);
	diag("seed %#llx, %d s, %d workers, %d-bit", (unsigned long long)seed_state, secs,
	     nw, (int)sizeof(long) * 8);

	stats = mmap(NULL, nw * sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	for (w = 0; w < NSHARED; w++) {
		fds[w] = ht_open(O_NONBLOCK);
		if (fds[w] < 0) {
			perror("open");
			return 2;
		}
	}
	t0 = now_ns();
	end = t0 + (uint64_t)secs * SEC;
	for (w = 0; w < nw; w++) {
		pids[w] = fork_child(worker(w, end));
		if (pids[w] < 0)
			return 2;
	}
	for (w = 0; w < NSHARED; w++)
		close(fds[w]);
	for (w = 0; w < nw; w++) {
		struct wstats *s = &stats[w];
		int op;

		if (waitpid(pids[w], &status, 0) != pids[w] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) || !s->done) {
			diag("worker %d: %s %d, %s", w,
			     WIFSIGNALED(status) ? "killed by signal" : "exit status",
			     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			     s->done ? "finished" : "did not finish");
			crashed++;
		}
		sum.calls += s->calls;
		for (e = 0; e < NBAD; e++)
			sum.unexpected[e] += s->unexpected[e];
		for (e = 0; e < ARRAY_SIZE(sum.errcount); e++)
			sum.errcount[e] += s->errcount[e];
		for (op = 0; op < NOPS; op++) {
			sum.op_n[op] += s->op_n[op];
			sum.op_ns[op] += s->op_ns[op];
		}
		sum.wb_checked += s->wb_checked;
		sum.recs_checked += s->recs_checked;
		sum.efault_checks += s->efault_checks;
		sum.epoll_waits += s->epoll_waits;
		sum.epoll_events += s->epoll_events;
		sum.ring_maps += s->ring_maps;
		sum.ring_recs += s->ring_recs;
		sum.ring_checked += s->ring_checked;
		if (s->timens == 1) {
			nns++;
			ns_recs += s->recs_checked;
			ns_wb += s->wb_checked;
			diag("worker %d: time namespace, clock %+lld s off the host's: %lu calls, %lu records and %lu write-backs checked",
			     w, (long long)(s->offset_ns / (int64_t)SEC), s->calls,
			     s->recs_checked, s->wb_checked);
		} else if (s->timens < 0) {
			nons++;
			diag("worker %d: unshare(CLONE_NEWTIME): %s; fuzzed on the host's clock",
			     w, strerror(-s->timens));
		}
	}
	elapsed = now_ns() - t0;

	printf("# errnos:");
	for (e = 0; e < ARRAY_SIZE(sum.errcount); e++)
		if (sum.errcount[e])
			printf(" %s %lu", e ? strerrorname_np(e) : "other", sum.errcount[e]);
	printf("\n");
	for (w = 0; w < NOPS; w++)
		if (sum.op_n[w])
			diag("%-30s %9lu calls, %6.1f us each", op_name[w], sum.op_n[w],
			     sum.op_ns[w] / 1e3 / sum.op_n[w]);
	diag("%.0f calls/s (%lu in %.1f s, %d workers)", sum.calls / (elapsed / 1e9),
	     sum.calls, elapsed / 1e9, nw);
	printf("fuzz calls=%lu abi=%d\n", sum.calls, (int)sizeof(long) * 8);

	tap(!sum.unexpected[BAD_CALL] && !crashed,
	    "%lu calls in %d s by %d workers: every result one the ABI documents (%lu unexpected), no worker died (%d)",
	    sum.calls, secs, nw, sum.unexpected[BAD_CALL], crashed);
	if (nw < 2)
		tap_skip("time namespaces: -j 1 runs no worker in one");
	else if (nons)
		tap_skip("time namespaces: unshare(CLONE_NEWTIME) failed (no CONFIG_TIME_NS?), see above");
	else
		tap(nns && ns_recs && ns_wb && !sum.unexpected[BAD_TIMENS],
		    "%d workers in time namespaces: %lu records and %lu written-back deadlines on their clocks (%lu wrong, of %lu and %lu in all workers)",
		    nns, ns_recs, ns_wb, sum.unexpected[BAD_TIMENS], sum.recs_checked,
		    sum.wb_checked);
	tap(sum.efault_checks && !sum.unexpected[BAD_EFAULT],
	    "%lu batches whose results or counters cannot be written back: EFAULT at the first, nothing done past it (%lu wrong)",
	    sum.efault_checks, sum.unexpected[BAD_EFAULT]);
	tap(sum.epoll_waits && !sum.unexpected[BAD_EPOLL],
	    "%lu epoll waits over %d instances per worker watching dups: %lu events, all EPOLLIN | EPOLLRDNORM (%lu wrong)",
	    sum.epoll_waits, NEP, sum.epoll_events, sum.unexpected[BAD_EPOLL]);
	tap(sum.op_n[OP_RING] && sum.ring_maps,
	    "%lu ring calls: %lu rings mapped and scribbled on (hostile heads, writes anywhere, fork, unmap, close while mapped), %lu records taken from them (%lu checked on their clock)",
	    sum.op_n[OP_RING], sum.ring_maps, sum.ring_recs, sum.ring_checked);
	return tap_status();
}
