// SPDX-License-Identifier: GPL-2.0
/*
 * HWTIMER_IOC_MODIFY against the real driving timer (hwtimer(4): a
 * timeout expires within one tick after its deadline): a timeout moved to
 * an earlier deadline whose tick stays in the wheel slot it waits in
 * expires at its new deadline, not at its old one.
 *
 * A file's wheel (kmod/hwtimer_dev_wheel.c) has 64 slots at level 0 and
 * 64 per level above; a slot of level 2 is 4096 ticks long (L2 below).
 * A timeout at least L2 away waits in a slot of level 2 or higher, and a
 * modify to an earlier tick of that slot leaves it there; only the
 * driving timer, armed for the slot's start ((I3) of hwtimer_wheel.h),
 * then brings its expiry at the new tick. A pass run for anything else
 * re-arms the driving timer for the slot's start too, so each probe has a
 * file of its own.
 *
 * The wheel's epoch is not known here, so neither are the slots'
 * boundaries. Probe j (0 to 3) modifies a timeout from D_j = N_j + L2 / 2
 * to N_j = now + L2 + j * L2 / 4: the N_j lie a quarter of a slot apart,
 * so the tick of one of them is in the first quarter of its level-2 slot
 * (whichever level it is at, its slot there contains that block of 4096
 * ticks), and D_j, half a slot later, is in the same slot. A driving
 * timer left armed for D_j makes that probe's record half a slot late
 * (2 s with the default precision's 1 ms tick); the test allows a quarter
 * slot, a thousand ticks, so that a slow or busy host does not fail it.
 */
#include "kselftest_harness.h"
#include "hwtimer_test.h"

#define HWT_PROBES	4
/* Ticks of a level-2 slot of a file's wheel: 64 at level 0, 64 above. */
#define HWT_L2_TICKS	4096ULL

TEST_F(hwt, modify_earlier_in_same_slot)
{
	uint64_t tick = self->info.tick_ns, l2 = HWT_L2_TICKS * tick;
	uint64_t base, to[HWT_PROBES], from[HWT_PROBES], id[HWT_PROBES];
	int fd[HWT_PROBES], j;

	HWT_NEED_DEV();
	if (l2 / 4 < 500 * MS || l2 > 10 * SEC)
		SKIP(return, "a level-2 slot of %llu ns: a late record too hard to tell from a slow host, or too long to wait for",
		     (unsigned long long)l2);

	for (j = 0; j < HWT_PROBES; j++) {
		fd[j] = ht_open(0);
		ASSERT_LE(0, fd[j]) TH_LOG("open %s: %s", HWT_DEV, strerror(errno));
	}
	base = now_ns();
	for (j = 0; j < HWT_PROBES; j++) {
		uint32_t status = 0;

		to[j] = base + l2 + j * (l2 / 4);
		from[j] = to[j] + l2 / 2;
		ASSERT_EQ(0, ht_arm(fd[j], j, from[j], 0, HWTIMER_TIMEOUT_ABS, &id[j]));
		ASSERT_EQ(0, ht_modify(fd[j], id[j], to[j], 0, HWTIMER_TIMEOUT_ABS, &status));
		ASSERT_EQ(HWTIMER_STATUS_PENDING, status)
			TH_LOG("probe %d: the modify found the timeout not pending", j);
	}

	for (j = 0; j < HWT_PROBES; j++) {
		struct hwtimer_expiry rec;
		int n = 0;

		/* Until well after the old deadline: a late record counts. */
		while (n == 0 && now_ns() < from[j] + HWT_WAIT_MS * MS) {
			ht_wait(fd[j], 1000);
			n = ht_read(fd[j], &rec, 1);
			if (n == -EAGAIN)
				n = 0;
		}
		ASSERT_EQ(1, n) TH_LOG("probe %d: no record by %llu ms after its old deadline",
				       j, (unsigned long long)HWT_WAIT_MS);
		EXPECT_EQ(id[j], rec.id);
		EXPECT_EQ(to[j], rec.deadline_ns);
		EXPECT_LE(to[j], rec.expired_ns) TH_LOG("probe %d: expired before its deadline", j);
		EXPECT_GT(to[j] + l2 / 4, rec.expired_ns)
			TH_LOG("probe %d: moved from +%llu to +%llu ns, it expired %llu ns late (tick %llu ns; the old deadline was %llu ns later)",
			       j, (unsigned long long)(from[j] - base),
			       (unsigned long long)(to[j] - base),
			       (unsigned long long)(rec.expired_ns - to[j]),
			       (unsigned long long)tick, (unsigned long long)(from[j] - to[j]));
		TH_LOG("probe %d: %llu ns after its deadline", j,
		       (unsigned long long)(rec.expired_ns - to[j]));
		close(fd[j]);
	}
}

TEST_HARNESS_MAIN
