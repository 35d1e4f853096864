/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random choices of the user-space benchmarks.
 *
 * The delays they arm and re-arm: from 10 s to 2 h, spread evenly over
 * the doublings of that range (log-uniform, linear within a doubling), so
 * that as many fall in 10 to 20 s as in 1 to 2 h, over every level of a
 * wheel and many of its slots.
 *
 * Random numbers are xorshift64* from a fixed seed, BENCH_RND_SEED, which
 * the includer defines: a run is repeatable.
 */
#ifndef BENCH_RANDOM_H
#define BENCH_RANDOM_H

#include <stdint.h>

#define DELAY_MIN_NS	(10 * 1000000000ULL)
#define DELAY_MAX_NS	(7200 * 1000000000ULL)
#define DELAY_OCTAVES	9.4919		/* log2(DELAY_MAX_NS / DELAY_MIN_NS) */

static uint64_t rnd_state = BENCH_RND_SEED;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_delay(void)
{
	double x = (double)(rnd() >> 11) / (double)(1ULL << 53) * DELAY_OCTAVES;
	unsigned int k = (unsigned int)x;
	double d = (double)DELAY_MIN_NS * (double)(1ULL << k) * (1.0 + (x - k));

	return d < (double)DELAY_MAX_NS ? (uint64_t)d : DELAY_MAX_NS - 1;
}

/*
 * Moves @cnt distinct random entries of @live[0, @nlive) to its end,
 * @live[@nlive - @cnt, @nlive), and copies them into @out.
 */
static void rnd_pick(unsigned long *live, unsigned long nlive,
		     unsigned long *out, unsigned long cnt)
{
	unsigned long j, pos, t;

	for (j = 0; j < cnt; j++) {
		pos = rnd() % (nlive - j);
		t = live[pos];
		live[pos] = live[nlive - 1 - j];
		live[nlive - 1 - j] = t;
		out[j] = t;
	}
}

#endif /* BENCH_RANDOM_H */
