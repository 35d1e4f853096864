// SPDX-License-Identifier: GPL-2.0
/*
 * hwtimer_stress: accounting stress and fault injection for the wheel API.
 *
 * Not part of the product: `make stress`, `make stress-smoke` and the stress
 * smoke of `make check` load it in the debug VM (stress/guest.sh), once per
 * run. It is a KUnit suite, hwtimer_stress, with one case per run: acct,
 * drace and faults, each followed by the parameterised case of its checks
 * (acct_checks...). KUnit runs the suite while the module loads and prints
 * its KTAP to the kernel log, which the host parses (scripts/parse-log.awk):
 *
 *   insmod hwtimer_stress.ko run=acct acct=duration_ms=5000,extra=2
 *   insmod hwtimer_stress.ko run=drace drace_cycles=300
 *   insmod hwtimer_stress.ko run=faults
 *   rmmod hwtimer_stress
 *
 * Module parameters:
 *   run           the runs, comma-separated (default: all three). The
 *                 others are skipped as "not selected", which
 *                 scripts/parse-log.awk counts as neither passed nor
 *                 skipped, and their checks cases have no parameters.
 *   acct          acct's settings, key=value separated by commas: duration_ms
 *                 (at most 240000: KUnit gives a case 300 s), extra (threads
 *                 beyond one per CPU), priv, shared, chaos (timers per
 *                 wheel), doomed_ms (destroy period of the doomed wheel, 0:
 *                 never), doomed_pct (share of the operations that go to
 *                 it), cap (the capped wheel's max_pending), rearm (% of
 *                 callbacks that re-arm), far (% of far-future delays).
 *   drace_cycles  drace's N (default 200).
 *
 * Bad parameters fail the suite's init. A run's case does the run and
 * records its checks; the case after it, <run>_checks, has one parameter
 * per check, named by the check's message with its values, and each is
 * one KUnit result: an expectation that fails with that message when the
 * check failed. The run's own case fails when the run could not be done
 * (setup, a fault the create did not handle). A run's case also logs its
 * counts ("# acct: ..."), and last its summary line
 * ("# acct: ledger armed=... ops=...", "# faults: faults wheel_create
 * points=... injected=..."), which stress/guest.sh reads back from dmesg for
 * the run's totals.
 *
 * The accounting stress ("acct")
 * ------------------------------
 * One kthread per online CPU plus @extra more start, modify, cancel and
 * cancel_sync timers at random for @duration_ms, on five wheels: the
 * default wheel (shared with /dev/hwtimer), a softirq wheel, a process-
 * context (%HWTIMER_WHEEL_PROCESS) wheel, a wheel with a small pending cap,
 * and a "doomed" wheel that is destroyed and created again every
 * @doomed_ms while the threads keep hammering it, alternating softirq and
 * process context. Callbacks re-arm some timers. At the end the threads
 * stop, every wheel but the default one is destroyed with timers still
 * pending, and the timers of the default wheel are shut down.
 *
 * Each timer keeps a ledger, so that every start is seen to resolve exactly
 * once: by its callback (fired), by a cancel that returned 1 (cancelled),
 * by a modify that returned 1 (replaced), or by destroy handing it back.
 *
 *  - Ledger timers (private to one thread, or shared by all) keep the
 *    deadlines of their outstanding starts in a small FIFO under their own
 *    spinlock, which is held across each start, modify and cancel and taken
 *    by the callback: a fire pops the oldest deadline and checks that it is
 *    not early; a cancel, a replacing modify or a hand-back pops the newest
 *    (the one pending). A pop from an empty FIFO is a duplicate. Thread-side
 *    operations are serialised by a mutex, so hwtimer_cancel_sync() runs
 *    without the spinlock and resolves everything left in the FIFO: after
 *    it the timer is idle, so a later fire would be a duplicate and a
 *    non-empty FIFO with a return of 0 a lost timer.
 *  - Chaos timers are shared by all threads without any lock: concurrent
 *    start, modify and cancel of the same timer from several CPUs. They only
 *    count their outstanding starts (incremented before the call, so the
 *    count can never legitimately go below zero). Their callbacks never
 *    re-arm and they are never cancelled with cancel_sync, whose return
 *    value cannot count two starts it may cancel.
 *
 * At the end every FIFO must be empty and every count zero: a leftover is a
 * lost timer, a negative count a duplicate. The wheels' own counters must
 * agree with the ledgers and say that nothing fired early.
 *
 * Destroying the doomed wheel while the threads run: a thread that gets
 * -ESHUTDOWN from it acknowledges and leaves that wheel alone. The wheel
 * holds one "sentinel" timer that nobody touches; destroy hands it back
 * first or last, and its hand-back waits until every thread has
 * acknowledged, so no thread uses a timer of the wheel once destroy frees
 * it. Then every timer of the wheel must be idle with an empty ledger, and
 * the timers are set up again on a new wheel of the same name.
 *
 * Destroy racing modify ("drace", N = drace_cycles)
 * --------------------------------------------------
 * N cycles of: a wheel with 64 timers pending an hour away, one thread per
 * CPU modifying them (so they move between the CPUs' bases), destroy at a
 * random moment. A modify that fails with -ESHUTDOWN must leave its timer
 * pending, so destroy hands back all 64, every cycle.
 *
 * Fault injection ("faults")
 * --------------------------
 * Creates wheels of several shapes with current->fail_nth set to 1, 2, ...
 * (the mechanism behind /proc/self/fail-nth; with failslab's
 * ignore-gfp-wait off, every slab allocation is a fault point) until a
 * create succeeds with no fault injected. Each create must fail with
 * -ENOMEM or succeed (a fault it tolerates) and give a working wheel; the
 * name must be free again afterwards. kmemleak, at the end of the VM run,
 * finds what a failed create left behind. Without CONFIG_FAULT_INJECTION
 * the case is skipped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hwtimer.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "hwtimer_kunit_compat.h"

#define MS			1000000ULL
#define SEC			1000000000ULL

/* Deadlines a ledger timer can have outstanding: one pending, one firing. */
#define HWTS_QLEN		4
#define HWTS_MAX_WORKERS	64
/* Below KUnit's time limit of a case, 300 s. */
#define HWTS_MAX_DURATION_MS	240000

enum hwts_wheel_idx {
	HWTS_W_DEFAULT,
	HWTS_W_SOFT,
	HWTS_W_PROC,
	HWTS_W_CAP,
	HWTS_W_DOOMED,
	HWTS_NWHEELS
};

enum hwts_kind {
	HWTS_LEDGER,
	HWTS_CHAOS,
	HWTS_SENTINEL,
};

struct hwts_wheel;

/**
 * struct hwts_obj - a timer under test and its ledger
 * @timer: the timer
 * @ws: the wheel it belongs to
 * @lock: protects @q and @qlen; held across start, modify and cancel of a
 *        %HWTS_LEDGER timer and by its callback and hand-back. Taken with
 *        interrupts disabled, before the wheel's base lock. A raw lock:
 *        hwtimer's API works under one on PREEMPT_RT too, and a spinlock_t
 *        there disables migration while held, which in 6.12-rt trips a
 *        scheduler WARN (affine_move_task() from migrate_enable()) when
 *        CPU hotplug re-affines these pinned workers inside the section:
 *        a kernel bug, not this module's, that the hotplug step must not
 *        turn into a failed run.
 * @op: serialises the threads' operations on a %HWTS_LEDGER timer
 * @q: deadlines of the outstanding starts, oldest first
 * @qlen: entries in @q
 * @out: %HWTS_CHAOS: starts not resolved yet
 * @kind: enum hwts_kind
 * @rearm: the callback may start the timer again
 */
struct hwts_obj {
	struct hwtimer		timer;
	struct hwts_wheel	*ws;
	raw_spinlock_t		lock;	/* see above */
	struct mutex		op;	/* see above */
	u64			q[HWTS_QLEN];
	unsigned int		qlen;
	atomic_t		out;
	u8			kind;
	bool			rearm;
};

/* Counters of one wheel (all its generations for the doomed one). */
struct hwts_ledger {
	atomic64_t	armed;		/* successful starts and modifies */
	atomic64_t	fired;		/* callbacks */
	atomic64_t	cancelled;	/* resolved by cancel or cancel_sync */
	atomic64_t	replaced;	/* resolved by a modify returning 1 */
	atomic64_t	handed;		/* resolved by destroy's hand-back */
	atomic64_t	rearmed;	/* starts made by callbacks */
	atomic64_t	lost;
	atomic64_t	dup;
	atomic64_t	early;
	atomic64_t	ctx;		/* callbacks in the wrong context */
	atomic64_t	busy;		/* -EBUSY: the pending cap */
	atomic64_t	already;	/* -EALREADY: start of a pending timer */
	atomic64_t	shutdown;	/* -ESHUTDOWN from the doomed wheel */
	atomic64_t	errors;		/* anything else unexpected */
	atomic64_t	max_late;	/* ns */
};

/**
 * struct hwts_wheel - a wheel under test
 * @name: its name
 * @cfg: how it is created (not for the default wheel)
 * @w: the wheel
 * @run: the run it belongs to
 * @owned: created and destroyed here (all but the default wheel)
 * @doomed: destroyed and created again while the threads run
 * @dying: the doomed wheel's destroy has begun (set before it, cleared once
 *         the wheel is created again, before the threads may use it)
 * @process: callbacks run in process context
 * @tick_ns: its tick
 * @objs: its timers: @npriv per worker, then @nshared, @nchaos, 1 sentinel
 * @nobjs: entries in @objs
 * @npriv: private ledger timers per worker
 * @nshared: shared ledger timers
 * @nchaos: chaos timers
 * @gen: generation of the doomed wheel, bumped when it is created again
 * @acks: workers that saw -ESHUTDOWN from generation @gen
 * @cycles: times the doomed wheel was destroyed while the threads ran
 * @destroy_n: what destroy returned, summed
 * @stats_early: the wheels' own early counters, summed
 * @l: the ledger totals
 */
struct hwts_wheel {
	char			name[HWTIMER_NAME_MAX];
	struct hwtimer_wheel_config cfg;
	struct hwtimer_wheel	*w;
	struct hwts_run		*run;
	bool			owned;
	bool			doomed;
	bool			dying;
	bool			process;
	u64			tick_ns;
	struct hwts_obj		*objs;
	unsigned int		nobjs;
	unsigned int		npriv;
	unsigned int		nshared;
	unsigned int		nchaos;
	unsigned long		gen;
	atomic_t		acks;
	unsigned long		cycles;
	unsigned long		destroy_n;
	u64			stats_early;
	struct hwts_ledger	l;
};

struct hwts_worker {
	struct task_struct	*task;
	struct hwts_run		*run;
	unsigned int		idx;
	unsigned long		acked[HWTS_NWHEELS];
	struct rnd_state	rnd;
	u64			ops;
};

struct hwts_params {
	unsigned int	duration_ms;
	unsigned int	extra;
	unsigned int	priv;
	unsigned int	shared;
	unsigned int	chaos;
	unsigned int	doomed_ms;
	unsigned int	cap;
	unsigned int	rearm;
	unsigned int	far;
	unsigned int	doomed_pct;
};

struct hwts_run {
	struct hwts_params	p;
	struct hwts_wheel	ws[HWTS_NWHEELS];
	struct hwts_worker	*workers;
	unsigned int		nworkers;
	bool			cycling;
};

/* The checks a run records: acct has 22. */
#define HWTS_MAX_CHECKS		32

/**
 * struct hwts_check - one check of a run, reported as one KUnit result
 * @pass: it held
 * @msg: what was checked, with its values: the name of its result (no
 *       '#' in it, which would start a KTAP directive)
 */
struct hwts_check {
	bool	pass;
	char	msg[KUNIT_PARAM_DESC_SIZE];
};

/*
 * The checks of one run: recorded by the run's case, reported one by one,
 * each as one parameter, by the case "<run>_checks" that follows it.
 */
struct hwts_checks {
	unsigned int		n;
	struct hwts_check	c[HWTS_MAX_CHECKS];
};

static struct hwts_checks hwts_acct_checks;
static struct hwts_checks hwts_drace_checks;
static struct hwts_checks hwts_faults_checks;

/*
 * One check of a run (the run's case has its struct hwts_checks in
 * test->priv): recorded here, judged as a KUnit expectation of its own
 * in the checks case, whose message says what was checked and with which
 * values when it fails.
 */
static __printf(3, 4) void hwts_check(struct kunit *test, bool pass, const char *fmt, ...)
{
	struct hwts_checks *cs = test->priv;
	struct hwts_check *c;
	va_list args;

	if (cs->n == HWTS_MAX_CHECKS) {
		KUNIT_FAIL(test, "more than %u checks", HWTS_MAX_CHECKS);
		return;
	}
	c = &cs->c[cs->n++];
	c->pass = pass;
	va_start(args, fmt);
	vscnprintf(c->msg, sizeof(c->msg), fmt, args);
	va_end(args);
}

static void hwts_max(atomic64_t *max, u64 v)
{
	s64 old = atomic64_read(max);

	while ((u64)old < v) {
		s64 cur = atomic64_cmpxchg(max, old, v);

		if (cur == old)
			break;
		old = cur;
	}
}

/* ---- the ledger FIFO (under obj->lock) ---------------------------------- */

static bool hwts_push(struct hwts_obj *o, u64 deadline)
{
	lockdep_assert_held(&o->lock);
	if (o->qlen == HWTS_QLEN) {
		pr_err("%s: %u starts of one timer outstanding\n", o->ws->name, o->qlen);
		atomic64_inc(&o->ws->l.errors);
		return false;
	}
	o->q[o->qlen++] = deadline;
	return true;
}

static bool hwts_pop_oldest(struct hwts_obj *o, u64 *deadline)
{
	lockdep_assert_held(&o->lock);
	if (!o->qlen)
		return false;
	*deadline = o->q[0];
	o->qlen--;
	memmove(&o->q[0], &o->q[1], o->qlen * sizeof(o->q[0]));
	return true;
}

/* Remove the entry @back places from the newest (0: the newest). */
static bool hwts_pop_back(struct hwts_obj *o, unsigned int back)
{
	unsigned int i;

	lockdep_assert_held(&o->lock);
	if (back >= o->qlen)
		return false;
	i = o->qlen - 1 - back;
	memmove(&o->q[i], &o->q[i + 1], (o->qlen - 1 - i) * sizeof(o->q[0]));
	o->qlen--;
	return true;
}

/* A resolution of a pending (newest) start: cancel, replace or hand-back. */
static void hwts_resolve_newest(struct hwts_obj *o, atomic64_t *counter,
				unsigned int back)
{
	if (!hwts_pop_back(o, back))
		atomic64_inc(&o->ws->l.dup);
	atomic64_inc(counter);
}

/*
 * @o's pending timer was resolved, and @counter says how: cancelled,
 * replaced or handed back. A %HWTS_LEDGER timer's newest start goes (under
 * its lock); a %HWTS_CHAOS timer has one start fewer out.
 */
static void hwts_resolve_pending(struct hwts_obj *o, atomic64_t *counter)
{
	if (o->kind != HWTS_CHAOS) {
		hwts_resolve_newest(o, counter, 0);
		return;
	}
	if (atomic_dec_return(&o->out) < 0)
		atomic64_inc(&o->ws->l.dup);
	atomic64_inc(counter);
}

static void hwts_count_error(struct hwts_wheel *ws, int ret)
{
	switch (ret) {
	case -EBUSY:
		atomic64_inc(&ws->l.busy);
		break;
	case -EALREADY:
		atomic64_inc(&ws->l.already);
		break;
	case -ESHUTDOWN:
		atomic64_inc(&ws->l.shutdown);
		break;
	default:
		atomic64_inc(&ws->l.errors);
		pr_err("%s: unexpected error %d\n", ws->name, ret);
		break;
	}
}

/* ---- callbacks ------------------------------------------------------------ */

static u64 hwts_rand_delay(struct hwts_wheel *ws, u32 r, u32 r2)
{
	u64 tick = ws->tick_ns;

	/* Far: cancelled, replaced or handed back by destroy. */
	if (r % 100 < ws->run->p.far)
		return SEC + (u64)(r2 % 20) * SEC;
	r /= 100;
	switch (r % 19) {
	case 0:
		return 0;				/* due now */
	case 1 ... 8:
		return r2 % (4 * tick);			/* within a few ticks */
	case 9 ... 14:
		return 4 * tick + r2 % (252 * tick);	/* levels 0 and 1 */
	default:
		return r2 % (100 * MS);			/* up to 100 ms */
	}
}

static void hwts_check_context(struct hwts_wheel *ws)
{
	bool ok = ws->process ? in_task() : in_serving_softirq();

	if (!ok)
		atomic64_inc(&ws->l.ctx);
}

static void hwts_ledger_fn(struct hwtimer *timer)
{
	struct hwts_obj *o = from_hwtimer(o, timer, timer);
	struct hwts_wheel *ws = o->ws;
	unsigned long flags;
	u64 now, d;
	/* Before the raw lock: get_random_u32() takes a spinlock_t on RT. */
	u32 r = get_random_u32(), r2 = get_random_u32();
	int ret;

	hwts_check_context(ws);
	raw_spin_lock_irqsave(&o->lock, flags);
	now = ktime_get_ns();
	if (!hwts_pop_oldest(o, &d)) {
		atomic64_inc(&ws->l.dup);
	} else if (now < d) {
		atomic64_inc(&ws->l.early);
		pr_err("%s: timer fired %llu ns early\n", ws->name, d - now);
	} else {
		hwts_max(&ws->l.max_late, now - d);
	}
	atomic64_inc(&ws->l.fired);

	if (o->rearm && r % 100 < ws->run->p.rearm) {
		d = now + hwts_rand_delay(ws, r >> 8, r2);
		if (hwts_push(o, d)) {
			ret = hwtimer_start(timer, d, HWTIMER_MODE_ABS);
			if (ret) {
				hwts_pop_back(o, 0);
				if (ret == -EBUSY)
					atomic64_inc(&ws->l.busy);
				else if (ret == -EALREADY)
					atomic64_inc(&ws->l.already);
				/* Destroy, or shutdown at the end of the run. */
				else if (ret != -ESHUTDOWN && ret != -EIDRM)
					hwts_count_error(ws, ret);
			} else {
				atomic64_inc(&ws->l.armed);
				atomic64_inc(&ws->l.rearmed);
			}
		}
	}
	raw_spin_unlock_irqrestore(&o->lock, flags);

	/* Widen the window in which the callback runs and cancel_sync waits. */
	if (ws->process && !(r & 0x3f0000))
		usleep_range(20, 100);
	else if (!(r & 0x7f0000))
		udelay(5);
}

static void hwts_chaos_fn(struct hwtimer *timer)
{
	struct hwts_obj *o = from_hwtimer(o, timer, timer);

	hwts_check_context(o->ws);
	if (atomic_dec_return(&o->out) < 0)
		atomic64_inc(&o->ws->l.dup);
	atomic64_inc(&o->ws->l.fired);
}

static void hwts_sentinel_fn(struct hwtimer *timer)
{
	struct hwts_obj *o = from_hwtimer(o, timer, timer);

	/* An hour away: it never fires during a run. */
	atomic64_inc(&o->ws->l.errors);
}

/*
 * Destroy hands back @timer. For the doomed wheel's sentinel during a run,
 * wait until every worker has stopped using the wheel's timers.
 */
static void hwts_unprocessed(struct hwtimer *timer, void *arg)
{
	struct hwts_obj *o = from_hwtimer(o, timer, timer);
	struct hwts_wheel *ws = o->ws;
	struct hwts_run *run = ws->run;
	unsigned long flags;

	raw_spin_lock_irqsave(&o->lock, flags);
	hwts_resolve_pending(o, &ws->l.handed);
	raw_spin_unlock_irqrestore(&o->lock, flags);

	/*
	 * Polled, not a wait queue: the workers' wake_up() would take a
	 * spinlock_t, which on PREEMPT_RT disables migration while held,
	 * and 6.12-rt's scheduler WARN (see &struct hwts_obj.lock) fires
	 * when CPU hotplug re-affines a pinned worker inside that section.
	 */
	if (o->kind == HWTS_SENTINEL && READ_ONCE(run->cycling)) {
		unsigned long t0 = jiffies;

		while (atomic_read(&ws->acks) < run->nworkers) {
			if (time_after(jiffies, t0 + 30 * HZ)) {
				pr_err("%s: workers still use the wheel being destroyed (%d of %u left it)\n",
				       ws->name, atomic_read(&ws->acks), run->nworkers);
				t0 = jiffies;
			}
			usleep_range(50, 100);
		}
	}
}

/* ---- thread-side operations ----------------------------------------------- */

static u32 hwts_rand(struct hwts_worker *wk)
{
	return prandom_u32_state(&wk->rnd);
}

/* Start or modify, relative or absolute. */
static int hwts_arm_call(struct hwtimer *t, unsigned int op, u64 now, u64 delay)
{
	switch (op) {
	case 0:
		return hwtimer_start(t, delay, HWTIMER_MODE_REL);
	case 1:
		return hwtimer_start(t, now + delay, HWTIMER_MODE_ABS);
	case 2:
		return hwtimer_modify(t, delay, HWTIMER_MODE_REL);
	default:
		return hwtimer_modify(t, now + delay, HWTIMER_MODE_ABS);
	}
}

static int hwts_ledger_op(struct hwts_worker *wk, struct hwts_obj *o)
{
	struct hwts_wheel *ws = o->ws;
	u32 r = hwts_rand(wk);
	unsigned int op = r % 100;
	unsigned long flags;
	u64 now, delay;
	int ret = 0, n;

	mutex_lock(&o->op);
	if (op < 65) {
		delay = hwts_rand_delay(ws, r >> 8, hwts_rand(wk));
		op %= 4;
		raw_spin_lock_irqsave(&o->lock, flags);
		/*
		 * A relative start measures from a clock read inside the call:
		 * @now + @delay is a lower bound of its deadline.
		 */
		now = ktime_get_ns();
		if (hwts_push(o, now + delay)) {
			ret = hwts_arm_call(&o->timer, op, now, delay);
			if (ret < 0) {
				hwts_pop_back(o, 0);
				hwts_count_error(ws, ret);
			} else {
				atomic64_inc(&ws->l.armed);
				if (ret == 1)
					hwts_resolve_newest(o, &ws->l.replaced, 1);
			}
		}
		raw_spin_unlock_irqrestore(&o->lock, flags);
	} else if (op < 85) {
		raw_spin_lock_irqsave(&o->lock, flags);
		if (hwtimer_cancel(&o->timer) == 1)
			hwts_resolve_pending(o, &ws->l.cancelled);
		raw_spin_unlock_irqrestore(&o->lock, flags);
	} else if (op < 95) {
		ret = hwtimer_cancel_sync(&o->timer);
		raw_spin_lock_irqsave(&o->lock, flags);
		n = o->qlen;
		/*
		 * Destroy removes a pending timer, then hands it back with no
		 * lock held: in between, cancel_sync finds it idle and returns
		 * 0 with its start outstanding. The hand-back resolves that
		 * start, and hwts_settle() checks that nothing is left: the
		 * FIFO stays as it is.
		 */
		if (ret || !n || !READ_ONCE(ws->dying)) {
			if (ret == 1 && !n)
				atomic64_inc(&ws->l.dup);
			if (ret == 0 && n) {
				atomic64_add(n, &ws->l.lost);
				pr_err("%s: cancel_sync returned 0 with %d starts outstanding\n",
				       ws->name, n);
			}
			if (ret < 0)
				atomic64_inc(&ws->l.errors);
			else
				atomic64_add(n, &ws->l.cancelled);
			o->qlen = 0;
		}
		raw_spin_unlock_irqrestore(&o->lock, flags);
		ret = 0;
	} else {
		/* Lockless snapshots against everything else going on. */
		if (hwtimer_state(&o->timer) > HWTIMER_RUNNING)
			atomic64_inc(&ws->l.errors);
		hwtimer_pending(&o->timer);
	}
	mutex_unlock(&o->op);
	return ret;
}

static int hwts_chaos_op(struct hwts_worker *wk, struct hwts_obj *o)
{
	struct hwts_wheel *ws = o->ws;
	u32 r = hwts_rand(wk);
	unsigned int op = r % 100;
	u64 delay;
	int ret = 0;

	if (op < 70) {
		delay = hwts_rand_delay(ws, r >> 8, hwts_rand(wk));
		atomic_inc(&o->out);
		ret = hwts_arm_call(&o->timer, op % 4, ktime_get_ns(), delay);
		if (ret < 0) {
			atomic_dec(&o->out);
			hwts_count_error(ws, ret);
			return ret;
		}
		atomic64_inc(&ws->l.armed);
		if (ret == 1)
			hwts_resolve_pending(o, &ws->l.replaced);
		return 0;
	}
	if (op < 95) {
		if (hwtimer_cancel(&o->timer) == 1)
			hwts_resolve_pending(o, &ws->l.cancelled);
		return 0;
	}
	if (hwtimer_state(&o->timer) > HWTIMER_RUNNING)
		atomic64_inc(&ws->l.errors);
	return 0;
}

static void hwts_ack(struct hwts_worker *wk, unsigned int wi, unsigned long gen)
{
	struct hwts_wheel *ws = &wk->run->ws[wi];

	if (wk->acked[wi] == gen)
		return;
	wk->acked[wi] = gen;
	atomic_inc(&ws->acks);
}

/* The wheel to use: the doomed one @doomed_pct % of the time. */
static unsigned int hwts_pick_wheel(struct hwts_run *run, u32 r)
{
	if (r % 100 < run->p.doomed_pct)
		return HWTS_W_DOOMED;
	return (r >> 8) % HWTS_W_DOOMED;
}

static void hwts_step(struct hwts_worker *wk)
{
	struct hwts_run *run = wk->run;
	u32 r = hwts_rand(wk);
	unsigned int wi = hwts_pick_wheel(run, r), k = (r >> 16) % 100, i;
	struct hwts_wheel *ws = &run->ws[wi];
	unsigned long gen = 0;
	struct hwts_obj *o;
	int ret;

	if (ws->doomed) {
		/* Pairs with the release in hwts_doomed_cycle(): timers set up. */
		gen = smp_load_acquire(&ws->gen);
		if (wk->acked[wi] == gen)
			return;
	}
	r = hwts_rand(wk);
	if (k < 40)
		i = wk->idx * ws->npriv + r % ws->npriv;
	else if (k < 70)
		i = run->nworkers * ws->npriv + r % ws->nshared;
	else
		i = run->nworkers * ws->npriv + ws->nshared + r % ws->nchaos;
	o = &ws->objs[i];
	if (o->kind == HWTS_CHAOS)
		ret = hwts_chaos_op(wk, o);
	else
		ret = hwts_ledger_op(wk, o);
	if (ret == -ESHUTDOWN) {
		if (ws->doomed)
			hwts_ack(wk, wi, gen);
		else
			atomic64_inc(&ws->l.errors);
	}
}

static int hwts_worker_fn(void *arg)
{
	struct hwts_worker *wk = arg;
	unsigned int ncpus = nr_cpu_ids, cpu;

	while (!kthread_should_stop()) {
		hwts_step(wk);
		if (!(++wk->ops & 63)) {
			cond_resched();
			/*
			 * Move now and then, so timers migrate between bases;
			 * the first workers go back to their own CPU.
			 */
			if (!(wk->ops & 1023)) {
				cpu = wk->idx < ncpus && hwts_rand(wk) & 1 ?
				      wk->idx : hwts_rand(wk) % ncpus;
				if (cpu_online(cpu))
					set_cpus_allowed_ptr(current, cpumask_of(cpu));
			}
		}
	}
	return 0;
}

/* ---- setting up, checking and tearing down -------------------------------- */

static void hwts_setup_objs(struct hwts_wheel *ws)
{
	unsigned int i;

	for (i = 0; i < ws->nobjs; i++) {
		struct hwts_obj *o = &ws->objs[i];
		hwtimer_fn_t fn = o->kind == HWTS_CHAOS ? hwts_chaos_fn :
				  o->kind == HWTS_SENTINEL ? hwts_sentinel_fn :
				  hwts_ledger_fn;

		hwtimer_setup(&o->timer, ws->w, fn);
	}
}

static int hwts_start_sentinel(struct hwts_wheel *ws)
{
	struct hwts_obj *o = &ws->objs[ws->nobjs - 1];
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&o->lock, flags);
	hwts_push(o, ktime_get_ns() + 3600 * SEC);
	ret = hwtimer_start(&o->timer, 3600 * SEC, HWTIMER_MODE_REL);
	if (ret)
		hwts_pop_back(o, 0);
	else
		atomic64_inc(&ws->l.armed);
	raw_spin_unlock_irqrestore(&o->lock, flags);
	return ret;
}

static int hwts_wheel_init(struct hwts_run *run, unsigned int wi)
{
	struct hwts_wheel *ws = &run->ws[wi];
	static const char * const names[HWTS_NWHEELS] = {
		"default", "hwts-soft", "hwts-proc", "hwts-cap", "hwts-doomed",
	};
	unsigned int i, nw = run->nworkers;

	strscpy(ws->name, names[wi], sizeof(ws->name));
	ws->run = run;
	ws->gen = 1;
	ws->cfg.name = ws->name;
	switch (wi) {
	case HWTS_W_DEFAULT:
		ws->w = hwtimer_default_wheel();
		break;
	case HWTS_W_SOFT:
		ws->cfg.tick_ns = 100000;
		ws->cfg.slots = 64;
		break;
	case HWTS_W_PROC:
		ws->cfg.tick_ns = 500000;
		ws->cfg.slots = 16;
		ws->cfg.flags = HWTIMER_WHEEL_PROCESS;
		break;
	case HWTS_W_CAP:
		ws->cfg.tick_ns = 250000;
		ws->cfg.slots = 256;
		ws->cfg.max_pending = run->p.cap;
		break;
	case HWTS_W_DOOMED:
		ws->cfg.tick_ns = 200000;
		ws->cfg.slots = 32;
		ws->doomed = true;
		break;
	}
	ws->process = ws->cfg.flags & HWTIMER_WHEEL_PROCESS;
	ws->owned = wi != HWTS_W_DEFAULT;
	if (ws->owned) {
		ws->w = hwtimer_wheel_create(&ws->cfg);
		if (IS_ERR(ws->w)) {
			int ret = PTR_ERR(ws->w);

			ws->w = NULL;
			return ret;
		}
	}
	ws->tick_ns = hwtimer_wheel_tick_ns(ws->w);

	ws->npriv = run->p.priv;
	ws->nshared = run->p.shared;
	ws->nchaos = run->p.chaos;
	ws->nobjs = nw * ws->npriv + ws->nshared + ws->nchaos + 1;
	ws->objs = kvcalloc(ws->nobjs, sizeof(*ws->objs), GFP_KERNEL);
	if (!ws->objs)
		return -ENOMEM;
	for (i = 0; i < ws->nobjs; i++) {
		struct hwts_obj *o = &ws->objs[i];

		o->ws = ws;
		raw_spin_lock_init(&o->lock);
		mutex_init(&o->op);
		if (i == ws->nobjs - 1)
			o->kind = HWTS_SENTINEL;
		else if (i >= nw * ws->npriv + ws->nshared)
			o->kind = HWTS_CHAOS;
		else
			o->kind = HWTS_LEDGER;
		o->rearm = o->kind == HWTS_LEDGER && i % 2;
	}
	hwts_setup_objs(ws);
	if (ws->doomed)
		return hwts_start_sentinel(ws);
	return 0;
}

/*
 * Settle the ledgers of @ws's timers once the threads are gone. Destroy has
 * handed back the pending timers of a wheel of ours; the default wheel is
 * not ours to destroy, so each of its timers is shut down here, which
 * cancels it if pending. Then no start may be left outstanding.
 */
static void hwts_settle(struct hwts_wheel *ws)
{
	unsigned int i;

	for (i = 0; i < ws->nobjs; i++) {
		struct hwts_obj *o = &ws->objs[i];
		unsigned long flags;
		int ret = 0, out;

		if (!ws->owned)
			ret = hwtimer_shutdown_sync(&o->timer);
		raw_spin_lock_irqsave(&o->lock, flags);
		if (ret == 1)
			hwts_resolve_pending(o, &ws->l.cancelled);
		if (o->qlen) {
			pr_err("%s: timer %u: %u starts never resolved\n",
			       ws->name, i, o->qlen);
			atomic64_add(o->qlen, &ws->l.lost);
			o->qlen = 0;
		}
		out = atomic_xchg(&o->out, 0);
		if (out > 0) {
			pr_err("%s: chaos timer %u: %d starts never resolved\n",
			       ws->name, i, out);
			atomic64_add(out, &ws->l.lost);
		} else if (out < 0) {
			atomic64_add(-out, &ws->l.dup);
		}
		raw_spin_unlock_irqrestore(&o->lock, flags);
		if (!ws->owned && (hwtimer_start(&o->timer, 0, HWTIMER_MODE_REL) != -EIDRM ||
				   hwtimer_state(&o->timer) != HWTIMER_SHUTDOWN))
			atomic64_inc(&ws->l.errors);
	}
}

static void hwts_read_early(struct hwts_wheel *ws)
{
	struct hwtimer_stats s;

	hwtimer_wheel_stats(ws->w, &s);
	ws->stats_early += s.early;
}

/* Destroy @ws's wheel, count what it hands back and settle the ledgers. */
static void hwts_destroy(struct hwts_wheel *ws)
{
	s64 before = atomic64_read(&ws->l.handed);
	unsigned long n;

	hwts_read_early(ws);
	/* Before destroy: its removals are ordered after it by the base locks. */
	WRITE_ONCE(ws->dying, true);
	n = hwtimer_wheel_destroy(ws->w, hwts_unprocessed, NULL);
	ws->w = NULL;
	ws->destroy_n += n;
	if (atomic64_read(&ws->l.handed) - before != n) {
		pr_err("%s: destroy returned %lu, handed back %lld\n", ws->name,
		       n, atomic64_read(&ws->l.handed) - before);
		atomic64_inc(&ws->l.errors);
	}
	hwts_settle(ws);
}

/* The doomed wheel: destroy it under the threads' feet, create it again. */
static int hwts_doomed_cycle(struct hwts_wheel *ws)
{
	int ret;

	hwts_destroy(ws);
	ws->cycles++;
	atomic_set(&ws->acks, 0);
	/* Alternate softirq and process-context callbacks. */
	ws->cfg.flags ^= HWTIMER_WHEEL_PROCESS;
	ws->process = ws->cfg.flags & HWTIMER_WHEEL_PROCESS;
	ws->w = hwtimer_wheel_create(&ws->cfg);
	if (IS_ERR(ws->w)) {
		ret = PTR_ERR(ws->w);
		ws->w = NULL;
		pr_err("%s: cannot create it again: %d\n", ws->name, ret);
		return ret;
	}
	hwts_setup_objs(ws);
	ret = hwts_start_sentinel(ws);
	WRITE_ONCE(ws->dying, false);
	/* The workers may use it again: pairs with the acquire in hwts_step(). */
	smp_store_release(&ws->gen, ws->gen + 1);
	return ret;
}

/* The end of the default wheel's timers: shut down and settled. */
static void hwts_shutdown_default(struct hwts_wheel *ws)
{
	hwts_settle(ws);
	hwts_read_early(ws);
}

static void hwts_wheel_free(struct hwts_wheel *ws)
{
	if (ws->w && ws->owned)
		hwtimer_wheel_destroy(ws->w, hwts_unprocessed, NULL);
	else if (ws->w && ws->objs)
		hwts_shutdown_default(ws);
	kvfree(ws->objs);
	ws->objs = NULL;
	ws->w = NULL;
}

static int hwts_acct(struct kunit *test, struct hwts_params *p)
{
	struct hwts_run *run;
	struct hwts_ledger tot;
	unsigned long end, next_doom, settle_end;
	bool settled;
	unsigned int i;
	u64 sum[8] = {}, ops = 0;
	int ret = 0;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->p = *p;
	run->nworkers = min_t(unsigned int, num_online_cpus() + p->extra,
			      HWTS_MAX_WORKERS);
	run->workers = kcalloc(run->nworkers, sizeof(*run->workers), GFP_KERNEL);
	if (!run->workers) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < HWTS_NWHEELS; i++) {
		ret = hwts_wheel_init(run, i);
		if (ret) {
			KUNIT_FAIL(test, "wheel %u set up: %d", i, ret);
			goto out_wheels;
		}
	}

	kunit_info(test, "%u ms, %u threads (%u CPUs online), %u wheels, %u/%u/%u private/shared/chaos timers, doomed wheel every %u ms",
		   p->duration_ms, run->nworkers, num_online_cpus(), HWTS_NWHEELS,
		   p->priv, p->shared, p->chaos, p->doomed_ms);

	WRITE_ONCE(run->cycling, true);
	for (i = 0; i < run->nworkers; i++) {
		struct hwts_worker *wk = &run->workers[i];
		struct task_struct *task;

		wk->run = run;
		wk->idx = i;
		prandom_seed_state(&wk->rnd, get_random_u64());
		task = kthread_create(hwts_worker_fn, wk, "hwts/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			KUNIT_FAIL(test, "kthread %u: %d", i, ret);
			break;
		}
		get_task_struct(task);
		wk->task = task;
		if (i < nr_cpu_ids && cpu_online(i))
			set_cpus_allowed_ptr(task, cpumask_of(i));
		wake_up_process(task);
	}

	/*
	 * For @duration_ms, and on until the doomed wheel went at least once
	 * (its check requires it): a host that held the run for the whole
	 * duration must not make it fail.
	 */
	end = jiffies + msecs_to_jiffies(p->duration_ms);
	next_doom = jiffies + msecs_to_jiffies(p->doomed_ms);
	while (!ret && (time_before(jiffies, end) ||
			(p->doomed_ms && !run->ws[HWTS_W_DOOMED].cycles))) {
		msleep(min(20U, p->duration_ms));
		if (p->doomed_ms && time_after_eq(jiffies, next_doom) &&
		    (time_before(jiffies, end) || !run->ws[HWTS_W_DOOMED].cycles)) {
			ret = hwts_doomed_cycle(&run->ws[HWTS_W_DOOMED]);
			next_doom = jiffies + msecs_to_jiffies(p->doomed_ms);
		}
	}
	WRITE_ONCE(run->cycling, false);
	for (i = 0; i < run->nworkers; i++) {
		struct hwts_worker *wk = &run->workers[i];

		if (!wk->task)
			continue;
		kthread_stop(wk->task);
		put_task_struct(wk->task);
		wk->task = NULL;
		ops += wk->ops;
	}

	/* The hammering stopped: destroy the wheels with timers pending. */
	for (i = 0; i < HWTS_NWHEELS; i++) {
		struct hwts_wheel *ws = &run->ws[i];
		struct hwtimer_stats s;

		if (!ws->w)
			continue;
		if (!ws->owned) {
			hwts_shutdown_default(ws);
			ws->w = NULL;
			continue;
		}
		/*
		 * Only the ledger used these wheels: their counters must agree,
		 * once the callbacks in flight (counted by the wheel before
		 * they run, by the ledger as they run) are done, and the
		 * timers they re-armed have fired: up to 30 s, which only a
		 * hang takes (it was 50 sleeps of 20 ms).
		 */
		settled = false;
		for (settle_end = jiffies + 30 * HZ; !ws->doomed;) {
			hwtimer_wheel_stats(ws->w, &s);
			settled = s.started == atomic64_read(&ws->l.armed) &&
				  s.fired == atomic64_read(&ws->l.fired) &&
				  s.cancelled == atomic64_read(&ws->l.cancelled);
			if (settled || time_after(jiffies, settle_end))
				break;
			msleep(20);
		}
		if (!ws->doomed && !settled) {
			pr_err("%s: wheel counters started %llu fired %llu cancelled %llu, ledger %lld %lld %lld\n",
			       ws->name, s.started, s.fired, s.cancelled,
			       atomic64_read(&ws->l.armed),
			       atomic64_read(&ws->l.fired),
			       atomic64_read(&ws->l.cancelled));
			atomic64_inc(&ws->l.errors);
		}
		hwts_destroy(ws);
	}

	memset(&tot, 0, sizeof(tot));
	for (i = 0; i < HWTS_NWHEELS; i++) {
		struct hwts_wheel *ws = &run->ws[i];
		struct hwts_ledger *l = &ws->l;
		s64 resolved = atomic64_read(&l->fired) + atomic64_read(&l->cancelled) +
			       atomic64_read(&l->replaced) + atomic64_read(&l->handed);

		kunit_info(test, "%-11s armed %lld (by callbacks %lld) fired %lld cancelled %lld replaced %lld handed back %lld; busy %lld already %lld shutdown %lld; late max %llu us",
			   ws->name, atomic64_read(&l->armed), atomic64_read(&l->rearmed),
			   atomic64_read(&l->fired), atomic64_read(&l->cancelled),
			   atomic64_read(&l->replaced), atomic64_read(&l->handed),
			   atomic64_read(&l->busy), atomic64_read(&l->already),
			   atomic64_read(&l->shutdown),
			   div_u64(atomic64_read(&l->max_late), 1000));
		if (ws->doomed)
			kunit_info(test, "%-11s destroyed and created again %lu times under load",
				   ws->name, ws->cycles);
		hwts_check(test, atomic64_read(&l->armed) == resolved,
			   "%s: armed %lld == fired + cancelled + replaced + handed back %lld",
			   ws->name, atomic64_read(&l->armed), resolved);
		sum[0] += atomic64_read(&l->armed);
		sum[1] += atomic64_read(&l->fired);
		sum[2] += atomic64_read(&l->cancelled);
		sum[3] += atomic64_read(&l->replaced);
		sum[4] += atomic64_read(&l->handed);
		sum[5] += atomic64_read(&l->lost);
		sum[6] += atomic64_read(&l->dup);
		sum[7] += atomic64_read(&l->early) + ws->stats_early;
		hwts_check(test, !atomic64_read(&l->lost) && !atomic64_read(&l->dup),
			   "%s: nothing lost (%lld), nothing duplicated (%lld)",
			   ws->name, atomic64_read(&l->lost), atomic64_read(&l->dup));
		hwts_check(test, !atomic64_read(&l->early) && !ws->stats_early,
			   "%s: nothing early (ledger %lld, wheel counter %llu)", ws->name,
			   atomic64_read(&l->early), ws->stats_early);
		hwts_check(test, !atomic64_read(&l->errors) && !atomic64_read(&l->ctx),
			   "%s: no unexpected result (%lld), callbacks in their context (%lld wrong)",
			   ws->name, atomic64_read(&l->errors), atomic64_read(&l->ctx));
		if (ws->doomed)
			hwts_check(test, !p->doomed_ms || ws->cycles,
				   "%s: destroyed under load %lu times", ws->name, ws->cycles);
	}
	kunit_info(test, "ledger armed=%llu fired=%llu cancelled=%llu replaced=%llu handed_back=%llu lost=%llu duplicated=%llu early=%llu ops=%llu",
		   sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7],
		   ops + sum[1]);
	hwts_check(test, sum[0] && sum[0] == sum[1] + sum[2] + sum[3] + sum[4] &&
		   !sum[5] && !sum[6] && !sum[7],
		   "every start resolved exactly once: armed == fired + cancelled + replaced + handed back");

out_wheels:
	for (i = 0; i < HWTS_NWHEELS; i++)
		hwts_wheel_free(&run->ws[i]);
	kfree(run->workers);
out_free:
	kfree(run);
	return ret;
}

/* ---- destroy racing with modify ------------------------------------------- */

#define HWTS_DRACE_TIMERS	64

/**
 * struct hwts_drace - "drace": destroy a wheel while modify moves its timers
 * @w: the wheel of this cycle
 * @timers: all pending, an hour away, for the whole cycle
 * @gen: the cycle; workers leave the wheel alone once they saw -ESHUTDOWN
 *       from it, until @gen moves on
 * @acks: workers that saw -ESHUTDOWN in this cycle
 * @nworkers: worker threads, one per online CPU
 * @handed: timers destroy handed back in this cycle
 * @wheel_cancelled: the wheels' cancel counters at destroy, summed
 * @errors: unexpected results
 * @stop: the workers exit
 * @wq: the first hand-back waits here for @acks
 */
struct hwts_drace {
	struct hwtimer_wheel	*w;
	struct hwtimer		timers[HWTS_DRACE_TIMERS];
	unsigned long		gen;
	atomic_t		acks;
	unsigned int		nworkers;
	unsigned int		handed;
	u64			wheel_cancelled;
	atomic_t		errors;
	bool			stop;
	wait_queue_head_t	wq;
};

static void hwts_drace_fn(struct hwtimer *timer)
{
}

static void hwts_drace_unprocessed(struct hwtimer *timer, void *arg)
{
	struct hwts_drace *d = arg;

	/* No worker may touch the timers once destroy returns. */
	if (!d->handed++) {
		struct hwtimer_stats s;

		wait_event(d->wq, atomic_read(&d->acks) >= d->nworkers);
		/* Nobody cancels here: a cancel count is a modify losing a timer. */
		hwtimer_wheel_stats(d->w, &s);
		d->wheel_cancelled += s.cancelled;
	}
}

static int hwts_drace_worker(void *arg)
{
	struct hwts_drace *d = arg;
	unsigned long acked = 0, gen;
	struct rnd_state rnd;
	int ret;

	prandom_seed_state(&rnd, get_random_u64());
	while (!kthread_should_stop()) {
		/* Pairs with the release in hwts_drace(): timers set up. */
		gen = smp_load_acquire(&d->gen);
		if (gen == acked || READ_ONCE(d->stop)) {
			usleep_range(10, 50);
			continue;
		}
		/* From this CPU: the timer moves here from wherever it is. */
		ret = hwtimer_modify(&d->timers[prandom_u32_state(&rnd) % HWTS_DRACE_TIMERS],
				     3600 * SEC, HWTIMER_MODE_REL);
		if (ret == -ESHUTDOWN) {
			acked = gen;
			atomic_inc(&d->acks);
			wake_up(&d->wq);
		} else if (ret != 1) {
			atomic_inc(&d->errors);
		}
		if (prandom_u32_state(&rnd) % 8 == 0) {
			unsigned int cpu = prandom_u32_state(&rnd) % nr_cpu_ids;

			if (cpu_online(cpu))
				set_cpus_allowed_ptr(current, cpumask_of(cpu));
		}
	}
	return 0;
}

/*
 * Every cycle: a new wheel with HWTS_DRACE_TIMERS timers pending, one
 * thread per CPU modifying them (so they move between the CPUs' bases),
 * and destroy after a random moment. A modify either works (1) or fails
 * with -ESHUTDOWN, which leaves the timer as it was: pending, so destroy
 * hands it back. Every timer must come back every cycle.
 */
static int hwts_drace(struct kunit *test, unsigned int cycles)
{
	struct task_struct *tasks[HWTS_MAX_WORKERS];
	struct hwtimer_wheel_config cfg = {
		.name = "hwts-drace", .tick_ns = 1000000, .slots = 64,
	};
	unsigned int c, i, n, lost = 0, bad_cycles = 0;
	struct hwts_drace *d;
	int ret = 0;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	init_waitqueue_head(&d->wq);
	d->nworkers = min_t(unsigned int, num_online_cpus(), HWTS_MAX_WORKERS);
	for (i = 0; i < d->nworkers; i++) {
		tasks[i] = kthread_create(hwts_drace_worker, d, "hwts-drace/%u", i);
		if (IS_ERR(tasks[i])) {
			ret = PTR_ERR(tasks[i]);
			d->nworkers = i;
			goto out_stop;
		}
		get_task_struct(tasks[i]);
		wake_up_process(tasks[i]);
	}

	for (c = 0; c < cycles; c++) {
		d->w = hwtimer_wheel_create(&cfg);
		if (IS_ERR(d->w)) {
			ret = PTR_ERR(d->w);
			goto out_stop;
		}
		for (i = 0; i < HWTS_DRACE_TIMERS; i++) {
			hwtimer_setup(&d->timers[i], d->w, hwts_drace_fn);
			if (hwtimer_start(&d->timers[i], 3600 * SEC, HWTIMER_MODE_REL))
				atomic_inc(&d->errors);
		}
		d->handed = 0;
		atomic_set(&d->acks, 0);
		/* The workers may go: pairs with the acquire in the worker. */
		smp_store_release(&d->gen, c + 1);
		usleep_range(20, 20 + get_random_u32_below(2000));
		n = hwtimer_wheel_destroy(d->w, hwts_drace_unprocessed, d);
		if (n != HWTS_DRACE_TIMERS || d->handed != n) {
			if (!bad_cycles++)
				pr_err("drace cycle %u: destroy handed back %u (%u) of %u pending timers\n",
				       c, n, d->handed, HWTS_DRACE_TIMERS);
			lost += HWTS_DRACE_TIMERS - min_t(unsigned int, n, HWTS_DRACE_TIMERS);
		}
		if (!n)
			wait_event(d->wq, atomic_read(&d->acks) >= d->nworkers);
	}

out_stop:
	WRITE_ONCE(d->stop, true);
	for (i = 0; i < d->nworkers; i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
	}
	kunit_info(test, "%u cycles of %u pending timers, %u workers: %u timers lost in %u cycles (the wheels counted %llu cancelled)",
		   c, HWTS_DRACE_TIMERS, d->nworkers, lost, bad_cycles, d->wheel_cancelled);
	hwts_check(test, !ret && !lost,
		   "destroy under concurrent modify: every pending timer handed back (%u lost)",
		   lost);
	hwts_check(test, !atomic_read(&d->errors), "no unexpected modify result (%d)",
		   atomic_read(&d->errors));
	kunit_info(test, "ledger armed=%llu fired=0 cancelled=0 replaced=0 handed_back=%llu lost=%u duplicated=0 early=0 ops=%llu",
		   (u64)c * HWTS_DRACE_TIMERS, (u64)c * HWTS_DRACE_TIMERS - lost, lost,
		   2ULL * c * HWTS_DRACE_TIMERS);
	kfree(d);
	return ret;
}

/* ---- fault injection of wheel creation ------------------------------------ */

#ifdef CONFIG_FAULT_INJECTION
static void hwts_nop_fn(struct hwtimer *timer)
{
}

/* Returns the fault points tried, or -errno. */
static int hwts_fault_one(struct kunit *test, const struct hwtimer_wheel_config *cfg,
			  unsigned int *injected)
{
	struct hwtimer_wheel *w;
	struct hwtimer t;
	unsigned int n, left;
	int ret;

	for (n = 1; n < 10000; n++) {
		WRITE_ONCE(current->fail_nth, n);
		w = hwtimer_wheel_create(cfg);
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
		if (IS_ERR(w)) {
			ret = PTR_ERR(w);
			if (left || ret != -ENOMEM) {
				KUNIT_FAIL(test, "fault %u creating %s: %d (fault %sinjected)",
					   n, cfg->name, ret, left ? "not " : "");
				return -EINVAL;
			}
			(*injected)++;
			continue;
		}
		/*
		 * It worked (perhaps around the fault): it must work fully. An
		 * hour away, so that it is pending at the cancel however long
		 * the host holds this task.
		 */
		hwtimer_setup_on_stack(&t, w, hwts_nop_fn);
		ret = hwtimer_start(&t, 3600 * SEC, HWTIMER_MODE_REL);
		if (ret || hwtimer_cancel(&t) != 1) {
			KUNIT_FAIL(test, "fault %u: wheel %s created but broken: %d",
				   n, cfg->name, ret);
			hwtimer_wheel_destroy(w, NULL, NULL);
			destroy_hwtimer_on_stack(&t);
			return -EINVAL;
		}
		destroy_hwtimer_on_stack(&t);
		WRITE_ONCE(current->fail_nth, 1);
		ret = hwtimer_wheel_destroy(w, NULL, NULL);
		WRITE_ONCE(current->fail_nth, 0);
		if (ret) {
			KUNIT_FAIL(test, "wheel %s: destroy handed back %d", cfg->name, ret);
			return -EINVAL;
		}
		if (left)
			return n;
		(*injected)++;
	}
	KUNIT_FAIL(test, "%s: still faulting after %u points", cfg->name, n);
	return -EINVAL;
}

static void hwts_faults(struct kunit *test)
{
	static const struct hwtimer_wheel_config cfgs[] = {
		{ .name = "hwts-fault-soft", .tick_ns = 1000000, .slots = 512 },
		{ .name = "hwts-fault-proc", .tick_ns = 100000, .slots = 16,
		  .flags = HWTIMER_WHEEL_PROCESS },
		{ .name = "hwts-fault-big", .tick_ns = 10000, .slots = 65536,
		  .max_pending = 10 },
	};
	unsigned int i, total = 0, injected = 0;
	int n;

	for (i = 0; i < ARRAY_SIZE(cfgs); i++) {
		struct hwtimer_wheel *w;

		n = hwts_fault_one(test, &cfgs[i], &injected);
		if (n < 0)
			return;
		total += n;
		/* Nothing of a failed create may stay behind: the name is free. */
		w = hwtimer_wheel_create(&cfgs[i]);
		hwts_check(test, !IS_ERR(w), "wheel %s: %d fault points, then created again",
			   cfgs[i].name, n);
		if (!IS_ERR(w))
			hwtimer_wheel_destroy(w, NULL, NULL);
	}
	kunit_info(test, "faults wheel_create points=%u injected=%u", total, injected);
}
#else
static void hwts_faults(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}
#endif

/* ---- the KUnit suite -------------------------------------------------------- */

static char hwts_run_param[32] = "acct,drace,faults";
module_param_string(run, hwts_run_param, sizeof(hwts_run_param), 0444);
MODULE_PARM_DESC(run, "Cases to run, comma-separated: acct, drace, faults (default all)");

static char hwts_acct_param[256];
module_param_string(acct, hwts_acct_param, sizeof(hwts_acct_param), 0444);
MODULE_PARM_DESC(acct, "acct's settings, key=value,... (default: none changed)");

static unsigned int hwts_drace_cycles = 200;
module_param_named(drace_cycles, hwts_drace_cycles, uint, 0444);
MODULE_PARM_DESC(drace_cycles, "drace's destroy cycles (default 200)");

/* acct's settings: the defaults, then the acct parameter's. */
static struct hwts_params hwts_acct_params;

static int hwts_parse(char *buf, struct hwts_params *p)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "duration_ms", offsetof(struct hwts_params, duration_ms) },
		{ "extra", offsetof(struct hwts_params, extra) },
		{ "priv", offsetof(struct hwts_params, priv) },
		{ "shared", offsetof(struct hwts_params, shared) },
		{ "chaos", offsetof(struct hwts_params, chaos) },
		{ "doomed_ms", offsetof(struct hwts_params, doomed_ms) },
		{ "cap", offsetof(struct hwts_params, cap) },
		{ "rearm", offsetof(struct hwts_params, rearm) },
		{ "far", offsetof(struct hwts_params, far) },
		{ "doomed_pct", offsetof(struct hwts_params, doomed_pct) },
	};
	char *tok, *val;
	unsigned int i;

	while ((tok = strsep(&buf, ", \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strcmp(tok, keys[i].key))
				break;
		if (i == ARRAY_SIZE(keys) ||
		    kstrtouint(val, 0, (unsigned int *)((char *)p + keys[i].off)))
			return -EINVAL;
	}
	if (!p->duration_ms || !p->priv || !p->shared || !p->chaos ||
	    p->duration_ms > HWTS_MAX_DURATION_MS || p->priv > 64 || p->shared > 4096 ||
	    p->chaos > 4096 || p->extra > HWTS_MAX_WORKERS || p->rearm > 100 ||
	    p->far > 100 || p->doomed_pct > 100)
		return -EINVAL;
	return 0;
}

/* The next name of a comma or space separated list; its length in @len. */
static const char *hwts_next_name(const char *s, size_t *len)
{
	s += strspn(s, ", ");
	*len = strcspn(s, ", ");
	return s;
}

static bool hwts_selected(const char *name)
{
	const char *s;
	size_t len;

	for (s = hwts_next_name(hwts_run_param, &len); len;
	     s = hwts_next_name(s + len, &len))
		if (len == strlen(name) && !strncmp(s, name, len))
			return true;
	return false;
}

/*
 * KUnit in 6.1 runs a module's suites from the MODULE_STATE_COMING
 * notifier, which load_module() calls before it parses the load's
 * parameters (6.12 runs them at MODULE_STATE_LIVE, after module_init()).
 * While the module is coming, apply them here with their own setters;
 * load_module() sets them again afterwards, to the same values.
 */
static int hwts_apply_args(void)
{
#ifdef MODULE
	struct module *mod = THIS_MODULE;
	char *args, *next, *param, *val;
	unsigned int i;
	int ret = 0;

	if (mod->state != MODULE_STATE_COMING || !hwt_module_args(mod))
		return 0;
	args = kstrdup(hwt_module_args(mod), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	next = skip_spaces(args);
	kernel_param_lock(mod);
	while (!ret && *next) {
		next = next_arg(next, &param, &val);
		for (i = 0; i < mod->num_kp; i++)
			if (!strcmp(mod->kp[i].name, param))
				break;
		/* Not one of ours: load_module() judges it. */
		if (i == mod->num_kp)
			continue;
		ret = val ? mod->kp[i].ops->set(val, &mod->kp[i]) : -EINVAL;
	}
	kernel_param_unlock(mod);
	kfree(args);
	return ret;
#else
	return 0;
#endif
}

static int hwts_suite_init(struct kunit_suite *suite)
{
	char acct[sizeof(hwts_acct_param)];
	struct kunit_case *c;
	const char *s;
	size_t len;
	int ret;

	ret = hwts_apply_args();
	if (ret) {
		pr_err("bad module parameters: %d\n", ret);
		return ret;
	}
	for (s = hwts_next_name(hwts_run_param, &len); len;
	     s = hwts_next_name(s + len, &len)) {
		/* A run's case; its checks case is not one to name. */
		for (c = suite->test_cases; c->run_case; c++)
			if (!c->generate_params && len == strlen(c->name) &&
			    !strncmp(s, c->name, len))
				break;
		if (!c->run_case) {
			pr_err("run=%s: no case %.*s\n", hwts_run_param, (int)len, s);
			return -EINVAL;
		}
	}
	hwts_acct_checks.n = 0;
	hwts_drace_checks.n = 0;
	hwts_faults_checks.n = 0;
	hwts_acct_params = (struct hwts_params) {
		.duration_ms = 2000, .extra = 2, .priv = 4, .shared = 16,
		.chaos = 16, .doomed_ms = 200, .cap = 16, .rearm = 30,
		.far = 5, .doomed_pct = 20,
	};
	strscpy(acct, hwts_acct_param, sizeof(acct));
	ret = hwts_parse(acct, &hwts_acct_params);
	if (ret)
		pr_err("acct=%s: bad settings\n", hwts_acct_param);
	return ret;
}

/*
 * A case the run parameter does not name is skipped, with a reason that
 * scripts/parse-log.awk recognises: it counts such a case as neither
 * passed nor skipped.
 */
static void hwts_select(struct kunit *test)
{
	if (!hwts_selected(test->name))
		kunit_skip(test, "not selected (run=%s)", hwts_run_param);
}

/*
 * A run that stopped on an error fails its case; one that ended without
 * one must have recorded its checks, or its checks case would report
 * nothing and pass unseen.
 */
static void hwts_run_done(struct kunit *test, int ret)
{
	const struct hwts_checks *cs = test->priv;

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "the run stopped on error %d", ret);
	if (!ret)
		KUNIT_EXPECT_GT_MSG(test, cs->n, 0U, "the run recorded no checks");
}

static void hwts_acct_case(struct kunit *test)
{
	hwts_select(test);
	test->priv = &hwts_acct_checks;
	hwts_run_done(test, hwts_acct(test, &hwts_acct_params));
}

static void hwts_drace_case(struct kunit *test)
{
	hwts_select(test);
	test->priv = &hwts_drace_checks;
	hwts_run_done(test, hwts_drace(test, hwts_drace_cycles));
}

static void hwts_faults_case(struct kunit *test)
{
	hwts_select(test);
	test->priv = &hwts_faults_checks;
	hwts_faults(test);
	hwts_run_done(test, 0);
}

/*
 * The parameters of a checks case: the checks its run recorded, in their
 * order, each named by its message. None when the run was not selected,
 * was skipped or stopped before its checks.
 */
static const void *hwts_next_check(const struct hwts_checks *cs, const void *prev,
				   char *desc)
{
	const struct hwts_check *c = prev ? (const struct hwts_check *)prev + 1 : cs->c;

	if (c >= cs->c + cs->n)
		return NULL;
	strscpy(desc, c->msg, KUNIT_PARAM_DESC_SIZE);
	return c;
}

static const void *hwts_acct_check_params(HWT_KUNIT_GEN_TEST const void *prev, char *desc)
{
	return hwts_next_check(&hwts_acct_checks, prev, desc);
}

static const void *hwts_drace_check_params(HWT_KUNIT_GEN_TEST const void *prev, char *desc)
{
	return hwts_next_check(&hwts_drace_checks, prev, desc);
}

static const void *hwts_faults_check_params(HWT_KUNIT_GEN_TEST const void *prev, char *desc)
{
	return hwts_next_check(&hwts_faults_checks, prev, desc);
}

/* One check of a run, one result: it fails with its message and values. */
static void hwts_check_case(struct kunit *test)
{
	const struct hwts_check *c = test->param_value;

	KUNIT_EXPECT_TRUE_MSG(test, c->pass, "%s", c->msg);
}

/*
 * Each run's case, named as the run parameter names them, then the case
 * of its checks.
 */
static struct kunit_case hwts_cases[] = {
	{ .run_case = hwts_acct_case, .name = "acct" },
	{ .run_case = hwts_check_case, .name = "acct_checks",
	  .generate_params = hwts_acct_check_params },
	{ .run_case = hwts_drace_case, .name = "drace" },
	{ .run_case = hwts_check_case, .name = "drace_checks",
	  .generate_params = hwts_drace_check_params },
	{ .run_case = hwts_faults_case, .name = "faults" },
	{ .run_case = hwts_check_case, .name = "faults_checks",
	  .generate_params = hwts_faults_check_params },
	{}
};

static struct kunit_suite hwts_suite = {
	.name = "hwtimer_stress",
	.suite_init = hwts_suite_init,
	.test_cases = hwts_cases,
};

kunit_test_suite(hwts_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer accounting stress and fault injection (test only)");
MODULE_AUTHOR("hwtimer developers");
