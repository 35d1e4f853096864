// SPDX-License-Identifier: GPL-2.0
/*
 * hwtfuzz: an ioctl fuzzer for /dev/hwtimer, built 64-bit and -m32 (the
 * compat path).
 *
 *   hwtfuzz [-t seconds] [-s seed]     fuzz for a fixed time
 *   hwtfuzz -S                         sanity check: the device works
 *
 * Each call is one of: an ioctl with a valid, mutated (size, direction,
 * number, type) or random command; a read() with a random buffer and size;
 * poll(); write(), lseek() and mmap() (which the device does not have); or
 * closing and opening a file again. Arguments point to NULL, an unmapped
 * address, a kernel address, a read-only page, an odd offset, a header or an
 * array that runs into an inaccessible page, or valid memory filled with
 * random, boundary or mutated values: counts (0, 1, the batch limit and
 * past it, huge), flags and reserved fields (random bits), times and periods
 * (0, a tick, INT64_MAX, U64_MAX), and ids (recently issued, with bits
 * flipped, random). The kernel only ever writes into the fuzzer's scratch
 * pages, never into its own state.
 *
 * Every call must return success or an errno the ABI documents; an INFO
 * must leave its reserved fields zero, a read() must return whole records.
 * The time budget, the number of calls and the errnos seen are reported;
 * the VM then runs the sanity check (-S) and the device's own tests.
 *
 * Output: TAP, and a "fuzz calls=N abi=64|32" line.
 */
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>

#include "hwts_user.h"

#define NFD	4
#define NIDS	256

static unsigned char *arena;	/* 2 RW pages, 1 PROT_NONE, 1 read-only */
static size_t pg;
static uint64_t ids[NIDS];
static unsigned int nids;
static unsigned long calls, unexpected, errcount[160];
static uint64_t seed_state;

static uint64_t rnd64(void)
{
	/* xorshift64*: reproducible from -s. */
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

/*
 * A "pointer" for the kernel: anything but the fuzzer's own memory. @wide:
 * it goes into a 64-bit field that the kernel uses whole (the entries of a
 * batch), not into a pointer argument that -m32 cuts to 32 bits.
 */
static uint64_t fuzz_ptr(size_t need, bool wide)
{
	switch (rnd(12)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)(arena + 2 * pg);		/* PROT_NONE */
	case 2:
		return (uintptr_t)(arena + 3 * pg);		/* read-only */
	case 3:
		/* Runs into the PROT_NONE page. */
		return (uintptr_t)(arena + 2 * pg - 1 - rnd(need ? need : 1));
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

	switch (rnd(6)) {
	case 0:
		return rnd64();
	case 1:
		return now_ns() + rnd(100) * MS;	/* an absolute deadline */
	case 2:
		return rnd(20) * MS;
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

/* Fill @count entries of @size at @p (valid memory) with fuzzed values. */
static void fill_entries(unsigned long cmd, unsigned char *p, uint32_t count, size_t size)
{
	uint32_t i;

	for (i = 0; i < count && p + (i + 1) * size <= arena + 2 * pg; i++) {
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
			if (chance(5))
				a.reserved[rnd(2)] = rnd64();
			memcpy(e, &a, sizeof(a));
		} else if (cmd == HWTIMER_IOC_CANCEL) {
			struct hwtimer_cancel_entry c = { 0 };

			c.id = fuzz_id();
			c.flags = chance(90) ? 0 : fuzz_flags(0);
			c.reserved = chance(95) ? 0 : rnd64();
			memcpy(e, &c, sizeof(c));
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

/* Remember the ids an ARM handed out (entries in valid memory only). */
static void harvest(unsigned char *p, uint32_t count)
{
	const size_t size = sizeof(struct hwtimer_arm_entry);
	uint32_t i;

	if (p < arena || p >= arena + 2 * pg)
		return;
	for (i = 0; i < count && p + (i + 1) * size <= arena + 2 * pg; i++) {
		struct hwtimer_arm_entry a;

		memcpy(&a, p + i * size, size);
		if (!a.result && a.id)
			ids[nids++ % NIDS] = a.id;
	}
}

static void note_errno(int err, bool ours)
{
	static const int ok[] = {
		EINVAL, EFAULT, ENOTTY, E2BIG, ENOENT, ENOSPC, EDQUOT, ENOMEM,
		EBUSY, EAGAIN, ESPIPE, ENODEV, EACCES,
	};
	unsigned int i;

	errcount[err < 160 && err > 0 ? err : 0]++;
	if (!ours)
		return;
	for (i = 0; i < ARRAY_SIZE(ok); i++)
		if (err == ok[i])
			return;
	if (unexpected++ < 10)
		printf("# unexpected errno %d (%s)\n", err, strerror(err));
}

static const unsigned long cmds[] = {
	HWTIMER_IOC_INFO, HWTIMER_IOC_ARM, HWTIMER_IOC_CANCEL, HWTIMER_IOC_MODIFY,
};

static unsigned long fuzz_cmd(unsigned long *base)
{
	unsigned long cmd = cmds[rnd(4)];

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

static void fuzz_ioctl(int fd)
{
	unsigned long base, cmd = fuzz_cmd(&base);
	bool ours = _IOC_TYPE(cmd) == HWTIMER_IOC_MAGIC;
	uint64_t arg;
	int ret;

	if (base == HWTIMER_IOC_INFO && chance(80)) {
		struct hwtimer_info *info = (void *)(arena + 8 * rnd(pg / 8 - 12));

		memset(info, 0xa5, sizeof(*info));
		ret = ioctl(fd, cmd, info);
		if (!ret && cmd == HWTIMER_IOC_INFO &&
		    (info->reserved[0] || info->reserved[1] ||
		     info->abi_version != HWTIMER_ABI_VERSION)) {
			printf("# INFO left junk in its reserved fields\n");
			unexpected++;
		}
	} else if (base && base != HWTIMER_IOC_INFO && chance(85)) {
		size_t esize = base == HWTIMER_IOC_ARM ? sizeof(struct hwtimer_arm_entry) :
			       base == HWTIMER_IOC_CANCEL ? sizeof(struct hwtimer_cancel_entry) :
			       sizeof(struct hwtimer_modify_entry);
		struct hwtimer_batch b = { 0 };
		unsigned char *where;
		uint64_t entries;

		b.count = fuzz_count();
		if (chance(70))
			entries = (uintptr_t)(arena + 8 * rnd(pg / 8) + (chance(10) ? rnd(8) : 0));
		else
			entries = fuzz_ptr(0, true);
		b.entries = entries;
		b.flags = fuzz_flags(HWTIMER_BATCH_CONTINUE);
		if (chance(5))
			b.reserved[rnd(2)] = rnd64();
		b.done = rnd64();
		b.failed = rnd64();
		if (entries >= (uintptr_t)arena && entries < (uintptr_t)(arena + 2 * pg))
			fill_entries(base, (unsigned char *)(uintptr_t)entries, b.count, esize);
		/* The header: valid, or where it straddles the guard page. */
		if (chance(90))
			where = arena + pg + 8 * rnd(pg / 8 - 8);
		else
			where = arena + 2 * pg - 1 - rnd(sizeof(b));
		memcpy(where, &b, where + sizeof(b) <= arena + 2 * pg ? sizeof(b) :
		       (size_t)(arena + 2 * pg - where));
		ret = ioctl(fd, cmd, where);
		if (cmd == HWTIMER_IOC_ARM)
			harvest((unsigned char *)(uintptr_t)entries, b.count);
	} else {
		/* Random values only where they cannot reach the fuzzer's memory. */
		arg = chance(50) || sizeof(long) == 4 ? fuzz_ptr(64, false) : rnd64();
		ret = ioctl(fd, cmd, (unsigned long)arg);
	}
	calls++;
	if (ret < 0)
		note_errno(errno, ours);
}

static void fuzz_read(int fd)
{
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
	if (buf >= (uintptr_t)arena && buf < (uintptr_t)(arena + 2 * pg) &&
	    len > (uintptr_t)(arena + 2 * pg) - buf && chance(50))
		len = (uintptr_t)(arena + 2 * pg) - buf;
	n = read(fd, (void *)(uintptr_t)buf, len);
	calls++;
	if (n < 0) {
		note_errno(errno, true);
	} else if (n % sizeof(struct hwtimer_expiry)) {
		printf("# read returned %zd bytes\n", n);
		unexpected++;
	}
}

static void fuzz_other(int *fd)
{
	struct pollfd p = { .fd = *fd, .events = POLLIN | POLLOUT | POLLPRI };
	void *m;

	calls++;
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
		close(*fd);
		*fd = hwt_open(O_NONBLOCK);
		if (*fd < 0) {
			perror("open");
			exit(2);
		}
		break;
	}
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
	int fd = hwt_open(0), ret;

	tap_plan(6);
	if (fd < 0) {
		tap(false, "open: %s", strerror(errno));
		return 1;
	}
	tap(!hwt_info(fd, &info) && info.abi_version == HWTIMER_ABI_VERSION &&
	    !info.pending && !info.queued, "INFO of a fresh file");
	memset(a, 0, sizeof(a));
	for (i = 0; i < 10; i++) {
		a[i].cookie = 1000 + i;
		a[i].expires_ns = (1 + i) * MS;
	}
	ret = hwt_batch(fd, HWTIMER_IOC_ARM, a, 10, 0, NULL, NULL);
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

	ret = hwt_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL);
	m.id = a[0].id;
	m.expires_ns = 3600 * SEC;
	c.id = a[0].id;
	tap(!ret && !hwt_batch(fd, HWTIMER_IOC_MODIFY, &m, 1, 0, NULL, NULL) &&
	    !hwt_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL) &&
	    c.status == HWTIMER_STATUS_PENDING, "modify and cancel");

	memset(a, 0, sizeof(a));
	a[0].expires_ns = MS;
	a[0].period_ns = 2 * MS;
	ret = hwt_batch(fd, HWTIMER_IOC_ARM, a, 1, 0, NULL, NULL);
	for (i = 0, got = 0; !ret && i < 3 && now_ns() - t0 < 20 * SEC; ) {
		if (poll(&p, 1, 1000) > 0 && read(fd, r, sizeof(r)) == sizeof(r[0]) &&
		    r[0].flags & HWTIMER_EXPIRY_REARMED)
			i++;
	}
	tap(i == 3, "a periodic timeout fires again and again");
	c.id = a[0].id;
	tap(!hwt_batch(fd, HWTIMER_IOC_CANCEL, &c, 1, 0, NULL, NULL), "and cancels");
	close(fd);
	tap(hwt_global_count() == 0, "global count back to 0 (%ld)", hwt_global_count());
	return tap_failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t end, seed = 0;
	int fds[NFD], opt, secs = 10, i;
	unsigned int e;

	while ((opt = getopt(argc, argv, "t:s:S")) != -1) {
		switch (opt) {
		case 't':
			secs = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			return sanity();
		default:
			fprintf(stderr, "usage: %s [-t seconds] [-s seed] | -S\n", argv[0]);
			return 2;
		}
	}
	if (access(HWT_DEV, F_OK)) {
		printf("1..0 # SKIP no %s\n", HWT_DEV);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN);
	seed_state = seed ? seed : now_ns() | 1;
	tap_plan(1);
	diag("seed %#llx, %d s, %d-bit", (unsigned long long)seed_state, secs,
	     (int)sizeof(long) * 8);

	pg = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	mprotect(arena + 2 * pg, pg, PROT_NONE);
	mprotect(arena + 3 * pg, pg, PROT_READ);
	for (i = 0; i < NFD; i++) {
		fds[i] = hwt_open(O_NONBLOCK);
		if (fds[i] < 0) {
			perror("open");
			return 2;
		}
	}

	end = now_ns() + (uint64_t)secs * SEC;
	while (now_ns() < end) {
		for (e = 0; e < 64; e++) {
			int *fd = &fds[rnd(NFD)];
			uint32_t r = rnd(100);

			if (r < 75)
				fuzz_ioctl(*fd);
			else if (r < 93)
				fuzz_read(*fd);
			else if (r < 99 || chance(50))
				fuzz_other(fd);
			else
				fuzz_ioctl(*fd);
		}
	}
	for (i = 0; i < NFD; i++)
		close(fds[i]);

	printf("# errnos:");
	for (e = 0; e < ARRAY_SIZE(errcount); e++)
		if (errcount[e])
			printf(" %s %lu", e ? strerrorname_np(e) : "other", errcount[e]);
	printf("\n");
	printf("fuzz calls=%lu abi=%d\n", calls, (int)sizeof(long) * 8);
	tap(!unexpected, "%lu calls in %d s, no unexpected result (%lu)", calls, secs, unexpected);
	return tap_failed ? 1 : 0;
}
