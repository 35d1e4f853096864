// SPDX-License-Identifier: GPL-2.0
/*
 * The simulation's driver and model (README): loads the module (its real
 * init), runs seeded random operations against the device (through its
 * file operations, with user buffers in simulated user memory) and the
 * kernel API (wheels of its own, hotplug of CPUs), and checks each step
 * against a model of what hwtimer(4) and include/linux/hwtimer.h promise,
 * and the driver invariant against the structures themselves.
 */
#include <getopt.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_runtime.h"
#include "hwtimer_internal.h"
#include "hwtimer_dev.h"
#include "hwtimer_dev_records.h"
#include "hwtimer_dev_table.h"
#include "hwtimer_dev_account.h"

#define check(c, fmt...)	do { if (unlikely(!(c))) sim_fail(fmt); } while (0)

/* ---- operations --------------------------------------------------------------- */

enum op_kind {
	OP_ADVANCE, OP_RUN, OP_OPEN, OP_CLOSE, OP_CONFIG, OP_RING, OP_ARM, OP_MODIFY,
	OP_CANCEL, OP_GET, OP_READ, OP_DRAIN, OP_INFO, OP_POLL, OP_API_START, OP_API_MODIFY,
	OP_API_CANCEL, OP_CPU, OP_API_BURST, OP_SUSPEND, OP_CLOSE_PASS, OP_DRAIN_POLL, OP_FLOOD,
	OP_PFLOOD, OP_API_PAST, OP_API_FAR, OP_ADVANCE_DUE,
	OP_NKINDS
};

static const char *const op_names[OP_NKINDS] = {
	"advance", "run", "open", "close", "config", "ring", "arm", "modify", "cancel", "get",
	"read", "drain", "info", "poll", "api_start", "api_modify", "api_cancel", "cpu", "api_burst", "suspend",
	"close_pass", "drain_poll", "flood", "pflood", "api_past", "api_far", "advance_due",
};

/* How often each is drawn. */
static const unsigned int op_weight[OP_NKINDS] = {
	[OP_ADVANCE] = 30, [OP_RUN] = 8, [OP_OPEN] = 2, [OP_CLOSE] = 1, [OP_CONFIG] = 2,
	[OP_RING] = 2, [OP_ARM] = 20, [OP_MODIFY] = 14, [OP_CANCEL] = 5, [OP_GET] = 4,
	[OP_READ] = 5, [OP_DRAIN] = 6, [OP_INFO] = 2, [OP_POLL] = 2, [OP_API_START] = 10,
	[OP_API_MODIFY] = 8, [OP_API_CANCEL] = 3, [OP_CPU] = 1, [OP_API_BURST] = 1, [OP_SUSPEND] = 1,
	[OP_CLOSE_PASS] = 1, [OP_DRAIN_POLL] = 3, [OP_FLOOD] = 1, [OP_PFLOOD] = 1, [OP_API_PAST] = 1,
	[OP_API_FAR] = 1, [OP_ADVANCE_DUE] = 8,
};

/* An operation: a kind and random numbers it reads against the state of the moment. */
struct op {
	u8	kind;
	u64	r[4];
};

/* ---- the run's configuration -------------------------------------------------------- */

static struct {
	u64		seed;
	unsigned int	nops;
	bool		faults;
	bool		verbose;
	bool		no_invariant;	/* only the promises, not the structures */
	u64		tick[HWTD_PRECISIONS];
	u32		slots[HWTD_PRECISIONS];
	u32		file_cap, user_cap, global_cap;
	u64		max_pending;	/* the default wheel's cap, 0 for none */
} cfg;

static struct sim_rng orng;	/* the operations' stream */
static unsigned long cur_op;	/* index of the operation running */
static const struct op *cur;

/* ---- the model of the device -------------------------------------------------------- */

#define MAX_FILES	4
#define MAX_TO		1024
#define NUSERS		2

struct mto {			/* a live timeout */
	u64	id;
	u64	cookie;
	u64	deadline;	/* file clock, host */
	u64	period;
	u64	slack;
	u64	armed_at;	/* when it was armed or re-armed */
	u64	item;		/* the pass (pass_epoch) that last made its record */
};

struct mfile {
	bool			open;
	struct file		filp;
	struct cred		cred;
	struct hwtd_file	*k;
	unsigned int		user;
	bool			boottime;
	unsigned int		precision;
	u64			tick;
	struct mto		to[MAX_TO];
	unsigned int		nto;
	u64			dead[16];	/* recently ended ids */
	unsigned int		ndead;
	/* the ring, as user space sees it */
	unsigned long		ring_addr;
	u32			ring_entries;
	struct hwtimer_ring_params rp;
	u32			seen;		/* records observed up to here */
	u64			last_expired;
	u64			max_deadline;	/* of records seen with a deadline that was ahead */
	u64			seq;		/* which open of the run */
	u64			pass_epoch;	/* passes seen to end, + 1 */
	s64			ring_off[HWTD_CLOCKS];	/* namespace of the ring's maker */
	unsigned long		records;
};

static struct mfile files[MAX_FILES];

/* Time namespaces: 0 is the host's; the others are ahead or behind. */
#define NNS	3
static s64 ns_off[NNS][HWTD_CLOCKS];
static unsigned int cur_ns;	/* the namespace of the task making this operation's calls */

static void set_task_ns(unsigned int ns)
{
	cur_ns = ns;
	sim_timens_mono = ns_off[ns][0];
	sim_timens_boot = ns_off[ns][1];
}

/* A host time as a namespace shows it: hwtimer(4)'s clamp to [0, INT64_MAX]. */
static u64 to_ns(u64 t, s64 off)
{
	if (off >= 0)
		return t > (u64)KTIME_MAX - off ? KTIME_MAX : t + off;
	return t < (u64)-off ? 0 : min_t(u64, t + off, KTIME_MAX);
}

static s64 task_off(const struct mfile *f)
{
	return ns_off[cur_ns][f->boottime];
}
static const struct file_operations *fops;
static struct inode the_inode;

/* Every id a file of this run handed out: an id is never handed out twice (hwtimer(4)). */
#define IDSET_BITS	16
static struct { u64 id, seq; } idset[1 << IDSET_BITS];	/* seq 0: empty */
static unsigned long idset_n;
static u64 open_seq;

static bool idset_add(u64 seq, u64 id)
{
	u64 h = (id ^ seq * 0xff51afd7ed558ccdULL) * 0x9e3779b97f4a7c15ULL;
	unsigned int i = h >> (64 - IDSET_BITS);

	while (idset[i].seq) {
		if (idset[i].seq == seq && idset[i].id == id)
			return false;
		i = (i + 1) & ((1 << IDSET_BITS) - 1);
	}
	if (idset_n++ > (3 << IDSET_BITS) / 4)
		return true;	/* full: stop remembering, never a false failure */
	idset[i].id = id;
	idset[i].seq = seq;
	return true;
}

static u64 file_now(const struct mfile *f)
{
	return f->boottime ? ktime_get_boottime_ns() : ktime_get_ns();
}

static struct mto *mto_find(struct mfile *f, u64 id)
{
	unsigned int i;

	for (i = 0; i < f->nto; i++)
		if (f->to[i].id == id)
			return &f->to[i];
	return NULL;
}

static void mto_end(struct mfile *f, struct mto *m)
{
	f->dead[f->ndead++ % ARRAY_SIZE(f->dead)] = m->id;
	*m = f->to[--f->nto];
}

static long model_user_count(unsigned int user)
{
	long n = 0;
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open && files[i].user == user)
			n += files[i].nto;
	return n;
}

static long model_global_count(void)
{
	long n = 0;
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open)
			n += files[i].nto;
	return n;
}

struct batch;
static struct batch *bat;
static struct mfile *read_file;	/* a read() is under way on it */

/* Records seen after a thing the machine ran are that thing's. */
static bool in_item;

/*
 * The latest a record of @m may be stamped: a tick after its deadline (or
 * its arming, if later), or the end of its slack if that is later. The
 * man page's "slack plus one tick" bound, made exact: a slacked timeout
 * takes the last tick that begins by deadline + slack, or the first tick
 * at or after the deadline when none does (hwt_slack_tick()).
 */
static u64 latest_of(u64 deadline, u64 armed_at, u64 slack, u64 tick)
{
	u64 base = max(deadline, armed_at), r;

	if (check_add_overflow(base, max(slack, tick), &r))
		return U64_MAX;
	return r;
}

static u64 mto_latest(const struct mfile *f, const struct mto *m)
{
	return latest_of(m->deadline, m->armed_at, m->slack, f->tick);
}

static void pass_record(struct mfile *f, const struct mto *m);

/*
 * A record left the kernel at time @now (file clock, host), its times shown
 * in the namespace of offset @off: check it against the model.
 */
static void model_record(struct mfile *f, const struct hwtimer_expiry *urec, u64 now, s64 off,
			 const char *how)
{
	struct mto *m = mto_find(f, urec->id);
	struct hwtimer_expiry r = *urec, *rec = &r;
	u64 latest, missed = 0, next, delta;

	/* Namespace times, then the host's for the checks (expiries are never clamped here). */
	check(!m || rec->deadline_ns == to_ns(m->deadline, off),
	      "file %ld: record of id %#llx has deadline %llu, the model %llu (namespace offset %lld)",
	      f - files, rec->id, rec->deadline_ns, to_ns(m->deadline, off), off);
	rec->deadline_ns = m ? m->deadline : 0;
	rec->expired_ns -= off;

	f->records++;
	if (cfg.verbose)
		printf("  file %ld: %s record id %#llx deadline %llu expired %llu overrun %llu at %llu\n",
		       f - files, how, rec->id, rec->deadline_ns, rec->expired_ns, rec->overrun, now);
	check(m, "file %ld: %s record of id %#llx, which is not live (cookie %llu): a record twice, or of a cancelled timeout",
	      f - files, how, rec->id, rec->cookie);
	check(rec->cookie == m->cookie, "file %ld: record of id %#llx has cookie %llu, armed with %llu",
	      f - files, rec->id, rec->cookie, m->cookie);
	check(rec->expired_ns >= m->deadline,
	      "file %ld: EARLY record: id %#llx cookie %llu expired at %llu, %llu ns before its deadline %llu",
	      f - files, rec->id, rec->cookie, rec->expired_ns, m->deadline - rec->expired_ns, m->deadline);
	latest = mto_latest(f, m);
	check(rec->expired_ns <= latest,
	      "file %ld: LATE record: id %#llx cookie %llu deadline %llu (armed at %llu, slack %llu, tick %llu) expired at %llu, %llu ns after the latest allowed",
	      f - files, rec->id, rec->cookie, m->deadline, m->armed_at, m->slack, f->tick,
	      rec->expired_ns, rec->expired_ns - latest);
	check(rec->expired_ns <= now, "file %ld: record stamped %llu, in the future of %llu", f - files,
	      rec->expired_ns, now);
	check(rec->expired_ns >= f->last_expired,
	      "file %ld: records out of order: expired_ns %llu after %llu", f - files, rec->expired_ns,
	      f->last_expired);
	f->last_expired = rec->expired_ns;
	/*
	 * An expiry pass expires each timeout once at most (hwtimer_dev_records.c),
	 * however many slices (items) it takes: a pass is the items from one in
	 * which the file was found out of a pass to the next such.
	 */
	if (in_item) {
		check(m->item != f->pass_epoch, "file %ld: one pass made two records of id %#llx",
		      f - files, m->id);
		m->item = f->pass_epoch;
		pass_record(f, m);
	}
	/* A timeout without slack never comes after one whose deadline is a tick or more later. */
	if (m->armed_at < m->deadline) {
		if (!m->slack)
			check(f->max_deadline < m->deadline + f->tick,
			      "file %ld: record of deadline %llu comes after one of deadline %llu, a tick (%llu) or more later",
			      f - files, m->deadline, f->max_deadline, f->tick);
		f->max_deadline = max(f->max_deadline, m->deadline);
	}
	if (!m->period) {
		check(rec->flags == 0 && rec->overrun == 0, "file %ld: one-shot record with flags %u overrun %llu",
		      f - files, rec->flags, rec->overrun);
		mto_end(f, m);
		return;
	}
	if (now > m->deadline)
		missed = (now - m->deadline) / m->period;
	check(rec->flags == HWTIMER_EXPIRY_REARMED && rec->overrun == missed,
	      "file %ld: periodic record id %#llx: flags %u overrun %llu, the model %llu (left at %llu, deadline %llu, period %llu)",
	      f - files, rec->id, rec->flags, rec->overrun, missed, now, m->deadline, m->period);
	if (check_mul_overflow(missed + 1, m->period, &delta) ||
	    check_add_overflow(m->deadline, delta, &next))
		next = U64_MAX;
	m->deadline = next;
	m->armed_at = now;
}

/* New records in a file's ring: they left the kernel now. */
static void observe_ring(struct mfile *f)
{
	u32 tail, flags;

	if (!f->ring_addr)
		return;
	sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
	/* Each hold publishes the flags word: records wait in the kernel, or not. */
	sim_uread(f->ring_addr + f->rp.flags_off, &flags, 4);
	check(flags == (f->k->nqueued ? HWTIMER_RING_OVERFLOW : 0),
	      "file %ld: ring flags %#x with %lu records in the kernel queue", f - files, flags,
	      f->k->nqueued);
	check(tail - f->seen <= f->ring_entries, "file %ld: ring tail %u runs %u past the records seen",
	      f - files, tail, tail - f->seen);
	while (f->seen != tail) {
		struct hwtimer_expiry rec;

		sim_uread(f->ring_addr + f->rp.records_off +
			  (f->seen & (f->ring_entries - 1)) * sizeof(rec), &rec, sizeof(rec));
		model_record(f, &rec, file_now(f), f->ring_off[f->boottime], "ring");
		f->seen++;
	}
}

/*
 * hwtimer(4), RING: poll(), a batch ioctl with a valid header and each
 * expiry pass of the file move the records waiting in the kernel queue to
 * the ring as far as it has room. Once one of them has, records wait there
 * (HWTIMER_RING_OVERFLOW) only while the ring is full: a record goes to
 * the queue only when the ring is full or the queue is not empty, and
 * nothing but user space frees room. Until the next of them, room freed by
 * a store of the head (op_drain()), and a new ring (RING moves one hold of
 * records), may leave records queued with the ring not full: owed.
 */
static struct {
	bool	owed;		/* room freed since the last refill that promises it */
	u64	target;		/* the file's pass, by its target tick, seen to end last */
} ringfill[MAX_FILES];

static void ring_room_freed(struct mfile *f)
{
	ringfill[f - files].owed = true;
}

static void ring_refilled(struct mfile *f)
{
	ringfill[f - files].owed = false;
}

/*
 * After each thing the machine runs: a file's pass that ended in it filled
 * the ring. Its target (a tick after the last pass's) tells a new pass;
 * the same target again only spares a check.
 */
static void ring_note_passes(void)
{
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++) {
		struct hwtd_file *k = files[i].k;

		if (!files[i].open || k->processing || k->closing ||
		    k->target == ringfill[i].target)
			continue;
		ringfill[i].target = k->target;
		ring_refilled(&files[i]);
	}
}

/* HWTIMER_RING_OVERFLOW only with the ring full, unless room was freed since. */
static void check_ring_filled(struct mfile *f)
{
	u32 head, tail, flags;

	if (!f->ring_addr || ringfill[f - files].owed)
		return;
	sim_uread(f->ring_addr + f->rp.head_off, &head, 4);
	sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
	sim_uread(f->ring_addr + f->rp.flags_off, &flags, 4);
	check(!(flags & HWTIMER_RING_OVERFLOW) || tail - head >= f->ring_entries,
	      "file %ld: records wait in the kernel queue (flags %#x, %lu queued) while the ring has room: head %u tail %u of %u entries, after a poll, batch or pass",
	      f - files, flags, f->k->nqueued, head, tail, f->ring_entries);
}

/* ---- the model of the API users ---------------------------------------------------------- */

#define MAX_WHEELS	4
#define MAX_ATIMERS	512

struct mwheel {
	struct hwtimer_wheel	*w;
	struct hwtimer_wheel_config c;
	char			name[16];
	u64			tick;
	unsigned long		pending;
};

struct atimer {
	struct hwtimer	t;
	unsigned int	wheel;
	bool		pending;
	u64		deadline;
	u64		slack;
	u64		armed_at;
	u64		period;		/* re-armed by its callback with hwtimer_forward() */
	unsigned int	periods_left;
	unsigned long	fired;
};

static struct mwheel wheels[MAX_WHEELS];
static unsigned int nwheels;
static struct atimer atimers[MAX_ATIMERS];

static u64 wheel_now(const struct mwheel *mw)
{
	return (mw->c.flags & HWTIMER_WHEEL_BOOTTIME) ? ktime_get_boottime_ns() : ktime_get_ns();
}

static u64 atimer_latest(const struct atimer *a)
{
	return latest_of(a->deadline, a->armed_at, a->slack, wheels[a->wheel].tick);
}

static void atimer_fn(struct hwtimer *t)
{
	struct atimer *a = container_of(t, struct atimer, t);
	struct mwheel *mw = &wheels[a->wheel];
	u64 now = wheel_now(mw), over, expect;
	int ret;

	check(a->pending, "API timer %ld fired but is not pending (twice, or after a cancel)", a - atimers);
	check(now >= a->deadline, "API timer %ld EARLY: fired at %llu, deadline %llu", a - atimers, now,
	      a->deadline);
	check(now <= atimer_latest(a),
	      "API timer %ld LATE: fired at %llu, deadline %llu (armed at %llu, slack %llu, tick %llu)",
	      a - atimers, now, a->deadline, a->armed_at, a->slack, mw->tick);
	check(!hwtimer_pending(t), "API timer %ld pending in its own callback", a - atimers);
	a->pending = false;
	a->fired++;
	mw->pending--;
	/* Periodic for a while: a short period against a long advance would fire without end. */
	if (!a->period || !a->periods_left--)
		return;
	over = hwtimer_forward(t, a->period);
	expect = now >= a->deadline ? (now - a->deadline) / a->period + 1 : 0;
	check(over == expect, "hwtimer_forward() returned %llu, the model %llu", over, expect);
	a->deadline += over * a->period;
	check(hwtimer_expires(t) == min_t(u64, a->deadline, KTIME_MAX),
	      "hwtimer_expires() %llu after forward, the model %llu", hwtimer_expires(t), a->deadline);
	ret = hwtimer_start(t, hwtimer_expires(t), HWTIMER_MODE_ABS);
	if (mw->c.max_pending && mw->pending >= mw->c.max_pending) {
		check(ret == -EBUSY, "re-arm at the cap returned %d", ret);
		return;
	}
	check(ret == 0, "re-arm from the callback returned %d", ret);
	a->pending = true;
	a->armed_at = now;
	a->slack = mw->c.slack_ns;
	mw->pending++;
}

/* ---- the invariants, read from the structures ------------------------------------------- */

static void check_base(struct hwtimer_wheel *w, unsigned int cpu)
{
	struct hwt_base *base = per_cpu_ptr(w->bases, cpu);
	u64 ev, need;

	if (w->stopped || cfg.no_invariant)
		return;
	if (base->offline) {
		check(!base->npending, "wheel %s: offline CPU %u's base holds %lu timers", w->name, cpu,
		      base->npending);
		return;
	}
	/* A pass of a process-context wheel may be interrupted between two holds. */
	if (base->processing && sim_nested() && sim_work_running(&base->work))
		return;
	check(!base->processing, "wheel %s: base %u processing between steps", w->name, cpu);
	if (!base->npending)
		return;
	if (!hlist_empty(&base->due) || base->cascading) {
		need = hwt_tick_start(&w->time, base->clk);
	} else {
		ev = hwt_next_event(&w->geom, base->pending_map, base->clk);
		if (ev == U64_MAX)
			return;
		need = hwt_tick_start(&w->time, ev);
	}
	if (sim_hrtimer_queued(&base->hrt) && (u64)base->hrt.expires <= need)
		return;
	if (sim_work_queued(&base->cont.work) || sim_work_queued(&base->work))
		return;
	sim_fail("INVARIANT: wheel %s base %u: work at %llu (clk %llu, next_event %llu, armed %llu) but its hrtimer is %s %llu",
		 w->name, cpu, need, base->clk, base->next_event, base->armed,
		 sim_hrtimer_queued(&base->hrt) ? "armed for" : "not armed, last", (u64)base->hrt.expires);
}

static const struct hwt_geom *file_geom(void)
{
	static struct hwt_geom g;

	if (!g.levels)
		hwt_geom_init(&g, HWT_LVL_SIZE);
	return &g;
}

static void check_file(struct mfile *f)
{
	struct hwtd_file *k = f->k;
	u64 ev, need;

	if (cfg.no_invariant)
		return;
	if (k->closing)
		return;
	if (k->processing) {
		check(sim_work_queued(&k->work) || (sim_nested() && sim_work_running(&k->work)),
		      "file %ld: in a pass between steps with no work queued", f - files);
		return;
	}
	check(k->heads[HWTD_LIST_TODO].next & HWTD_HEAD, "file %ld: todo list not empty outside a pass",
	      f - files);
	ev = hwt_next_event(file_geom(), k->occupied, k->clk);
	if (ev == U64_MAX)
		return;
	/*
	 * A slot that began already (a periodic timeout re-armed relative to
	 * a clock that has not moved since the last pass) cannot have its
	 * driver armed before the per-CPU wheel's next tick: that one does.
	 */
	need = max(hwt_tick_start(&k->time, ev),
		   hwt_tick_start(&k->time, hwt_now_tick(&k->time, file_now(f)) + 1));
	/* Or armed for a tick that has begun: its pass, due, takes every slot begun. */
	check((k->armed <= ev || hwt_tick_start(&k->time, k->armed) <= file_now(f)) &&
	      hwtimer_pending(k->timer) &&
	      hwt_tick_start(&k->time, k->timer->expires) <= need,
	      "INVARIANT: file %ld: earliest occupied slot starts at tick %llu (clk %llu) but the driving timer is %s tick %llu (armed %llu)",
	      f - files, ev, k->clk, hwtimer_pending(k->timer) ? "armed for" : "not armed, last",
	      k->timer->expires, k->armed);
}

/* Live timeouts past their latest time must be waiting in the kernel queue, stamped in time. */
static void check_overdue(struct mfile *f)
{
	u64 now = file_now(f);
	unsigned int i;

	if (f->k->closing)
		return;
	for (i = 0; i < f->nto; i++) {
		struct mto *m = &f->to[i];
		struct hwtd_timeout *s;

		if (now <= mto_latest(f, m))
			continue;
		s = hwtd_timeout_find(f->k, (u32)m->id);
		check(s && s->state == HWTD_QUEUED,
		      "file %ld: LATE: id %#llx cookie %llu deadline %llu (armed at %llu, slack %llu, tick %llu) not expired at %llu (state %d)",
		      f - files, m->id, m->cookie, m->deadline, m->armed_at, m->slack, f->tick, now,
		      s ? s->state : -1);
		check(s->expired >= m->deadline && s->expired <= mto_latest(f, m),
		      "file %ld: id %#llx queued with expiry time %llu outside [%llu, %llu]", f - files, m->id,
		      s->expired, m->deadline, mto_latest(f, m));
	}
}

static void check_api_overdue(void)
{
	unsigned int i;

	for (i = 0; i < MAX_ATIMERS; i++) {
		struct atimer *a = &atimers[i];

		if (!a->pending)
			continue;
		check(wheel_now(&wheels[a->wheel]) <= atimer_latest(a),
		      "API timer %u LATE: deadline %llu (armed at %llu, slack %llu, tick %llu) still pending at %llu",
		      i, a->deadline, a->armed_at, a->slack, wheels[a->wheel].tick, wheel_now(&wheels[a->wheel]));
	}
}

/* @only_cpu: the bases of that CPU only (what one thing run there can change), else all. */
static void check_all(bool overdue, int only_cpu)
{
	unsigned int i, cpu;

	for (i = 0; i < MAX_FILES; i++) {
		if (!files[i].open)
			continue;
		observe_ring(&files[i]);
		check_ring_filled(&files[i]);
		check_file(&files[i]);
		if (overdue)
			check_overdue(&files[i]);
	}
	for (i = 0; i < nwheels; i++)
		for (cpu = 0; wheels[i].w && cpu < sim_ncpus; cpu++)
			if (only_cpu < 0 || (int)cpu == only_cpu)
				check_base(wheels[i].w, cpu);
	/* The device's wheels: every file has a timer on each. */
	for (i = 0; i < MAX_FILES; i++) {
		unsigned int p, c;

		if (!files[i].open)
			continue;
		for (p = 0; p < HWTD_PRECISIONS; p++)
			for (c = 0; c < HWTD_CLOCKS; c++)
				for (cpu = 0; cpu < sim_ncpus; cpu++)
					if (only_cpu < 0 || (int)cpu == only_cpu)
						check_base(files[i].k->timers[p][c].timer.wheel, cpu);
		break;
	}
	if (overdue)
		check_api_overdue();
	/* Not while read() holds records it took off and has not copied out yet. */
	check(read_file || atomic_long_read(&hwtd_count) == model_global_count(),
	      "global count %ld, the model %ld", atomic_long_read(&hwtd_count), model_global_count());
}

/* After each thing the machine runs: records that reached a ring left the kernel now. */
static void after_item(void)
{
	unsigned int i;

	ring_note_passes();
	in_item = true;
	check_all(false, sim_item_cpu);
	in_item = false;
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open && !files[i].k->processing)
			files[i].pass_epoch++;
}

/* ---- slow passes: the clock moves during a file's expiry pass ------------------------------ */

/*
 * A pass that goes on in the device's workqueue takes time: between two of
 * its holds of the file lock the clock moves, other CPUs run their
 * softirqs and work, and a user thread may empty the ring with no system
 * call (audit mutant 09's finding: a continuation that never ends under
 * periodic load). In the seeds that have them (slow_pass_rate), the
 * machine is slow: local_clock() jumps past a pass's budget at each
 * reading, so that a pass of more than one hold goes on in its work item,
 * and as that work item begins and at its releases of the file lock the
 * machine runs like that for up to slow_pass_ticks of the file's ticks.
 * The model checks what hwtimer_dev_records.c says of a pass:
 *
 *  - it takes only what was due when it began (its target, the tick that
 *    contains the clock of its first hold): a record made in a pass is of
 *    a deadline at or before that clock, even as the clock moves on and
 *    periodic timeouts whose records leave are re-armed; what comes due
 *    during the pass waits for the next one, a tick after this one ends
 *    at the latest, so a timeout due when the clock moves is granted the
 *    time the pass still takes;
 *  - a slice in the work item begins a new hold only while local_clock()
 *    is within HWTIMER_PASS_NS of the slice's beginning (plus one reading's
 *    jump): a slice is at most HWTIMER_PASS_NS plus one hold, and a pass that
 *    does not end goes on in slices queued one after another.
 */
static u32 slow_pass_rate;	/* per 1000 releases; 0: the clock stands still in a pass */
static u32 slow_pass_ticks;

/*
 * op_close_pass() runs: it makes local_clock() jump past a slice's budget
 * at once, and moves the clock on between two holds of a slice.
 */
static bool close_pass_jitter;

static struct mpass {
	u64	seq;		/* the open of the file it is of */
	u64	epoch;		/* the pass (pass_epoch) whose beginning is known */
	u64	begin;		/* the file's clock at that pass's first hold, host */
	u64	target;		/* the target tick that hold set */
	u64	run;		/* the work item's run that released the lock last, 0: none */
	u64	released;	/* sim_local_peek() at that release */
	u64	jitter;		/* sim_local_jitter when that run first released the lock */
} mpass[MAX_FILES];

static struct mpass *mpass_of(struct mfile *f)
{
	struct mpass *p = &mpass[f - files];

	if (p->seq != f->seq) {
		memset(p, 0, sizeof(*p));
		p->seq = f->seq;
	}
	return p;
}

static void slow_pass_setup(u64 seed)
{
	struct sim_rng r = { seed ^ 0x5105ba55c0ffee11ULL };

	slow_pass_rate = sim_rng_chance(&r, 1, 2) ? 100 + sim_rng_below(&r, 901) : 0;
	slow_pass_ticks = 1 + sim_rng_below(&r, 4);
	/* A slow machine: a pass of more than one hold runs out of its budget. */
	if (slow_pass_rate)
		sim_local_jitter = max_t(u64, sim_local_jitter, HWTIMER_PASS_NS + sim_rng_below(&r, HWTIMER_PASS_NS));
	memset(mpass, 0, sizeof(mpass));
}

/* A record made by a pass (in_item): of a timeout due when the pass began. */
static void pass_record(struct mfile *f, const struct mto *m)
{
	struct mpass *p = mpass_of(f);

	if (p->epoch != f->pass_epoch)
		return;
	/*
	 * By its tick: the target the pass's first hold set, as the first
	 * release after it saw it (the machine's clock may move at releases
	 * of other locks within that hold, in the operations that race it).
	 */
	/* Or armed during the pass, already due: it goes to the pass's todo list. */
	check(hwt_expiry_tick(&f->k->time, m->deadline) <= p->target ||
	      (m->armed_at > p->begin && m->deadline <= m->armed_at),
	      "file %ld: a pass that began at %llu (target tick %llu) made a record of id %#llx, due at %llu: a pass takes only what was due when it began",
	      f - files, p->begin, p->target, m->id, m->deadline);
}

/* Between two holds of @f's pass, in its work item: the machine runs on. */
static void slow_pass_run(struct mfile *f)
{
	u64 now;
	u32 head, tail;
	unsigned int i;

	/* The records so far left at this hold's clock; a user thread may empty the ring. */
	in_item = true;
	observe_ring(f);
	in_item = false;
	/*
	 * Only while the pass goes on: its later holds refill the ring
	 * (check_ring_filled() holds it to that at its end).
	 */
	if (f->ring_addr && f->k->processing && sim_rng_chance(&sim_mrng, 1, 2)) {
		sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
		head = tail;
		sim_uwrite(f->ring_addr + f->rp.head_off, &head, 4);
		ring_room_freed(f);
	}
	sim_interleave(slow_pass_ticks * f->tick);
	/* What is due now waits for this pass to end, and the next to begin. */
	now = file_now(f);
	for (i = 0; i < f->nto; i++)
		if (f->to[i].deadline <= now)
			f->to[i].armed_at = max(f->to[i].armed_at, now);
}

/* A work item begins: a pass's continuation waited for a worker, the machine running on. */
static void pass_work_begins(struct work_struct *w)
{
	unsigned int i;

	if (!slow_pass_rate || !cur || cur->kind == OP_CLOSE || sim_nested())
		return;
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open && w == &files[i].k->work && files[i].k->processing &&
		    sim_rng_chance(&sim_mrng, slow_pass_rate, 1000))
			slow_pass_run(&files[i]);
}

/* At each release of a spinlock: a file's pass, seen from its file lock. */
static void pass_watch(struct sim_lock *l)
{
	struct mfile *f = NULL;
	struct mpass *p;
	unsigned int i;

	/* Not in a close: the file goes, and its memory may be another's. */
	if (!cur || cur->kind == OP_CLOSE)
		return;
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open && l == &files[i].k->lock)
			f = &files[i];
	if (!f)
		return;
	p = mpass_of(f);
	if (!f->k->processing) {
		p->run = 0;
		return;
	}
	/* The first release in a pass: the end of its first hold, whose clock is the target's. */
	if (p->epoch != f->pass_epoch) {
		p->epoch = f->pass_epoch;
		p->begin = file_now(f);
		p->target = f->k->target;
	}
	/*
	 * In the driving timer's callback, after a hold with more to do: its
	 * budget is spent, and the pass goes on in the work item.
	 */
	if (sim_softirq) {
		if (slow_pass_rate && !sim_work_running(&f->k->work) && !sim_work_queued(&f->k->work))
			sim_local_advance(HWTIMER_PASS_NS);
		return;
	}
	/* Only the work item's own releases, between two holds or at a slice's end. */
	if (sim_nested() || !sim_work_running(&f->k->work))
		return;
	/*
	 * Not in a run during which an operation changed how far local_clock()
	 * jumps (op_close_pass() makes it jump past a slice's budget at once).
	 */
	if (p->run != sim_work_run_id)
		p->jitter = sim_local_jitter;
	if (p->run == sim_work_run_id && p->jitter == sim_local_jitter && !close_pass_jitter)
		check(p->released <= sim_work_local0 + sim_local_jitter + HWTIMER_PASS_NS,
		      "file %ld: a slice of its pass began a hold at local_clock() %llu, %llu ns after the slice began: more than HWTIMER_PASS_NS (%llu) plus one hold",
		      f - files, p->released, p->released - sim_work_local0, (u64)HWTIMER_PASS_NS);
	p->run = sim_work_run_id;
	p->released = sim_local_peek();
	if (slow_pass_rate && sim_rng_chance(&sim_mrng, slow_pass_rate, 1000))
		slow_pass_run(f);
}

/* ---- operations on the device -------------------------------------------------------------- */

static struct mfile *pick_file(u64 r)
{
	unsigned int i, n = 0, k;

	for (i = 0; i < MAX_FILES; i++)
		n += files[i].open;
	if (!n)
		return NULL;
	k = r % n;
	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open && !k--)
			return &files[i];
	return NULL;
}

static unsigned int user_cpu(u64 r)
{
	return sim_pick_online(r);
}

/* Run a file operation on a CPU, in process context. */
#define FCALL(cpu, expr) ({							\
	struct sim_ctx __s = sim_enter(cpu, 0);					\
	typeof(expr) __r = (expr);						\
	sim_check_clean(op_names[cur->kind]);					\
	sim_leave(__s);								\
	__r;									\
})

static void op_open(void)
{
	unsigned int i;
	struct mfile *f = NULL;
	int ret;

	for (i = 0; i < MAX_FILES; i++)
		if (!files[i].open)
			f = &files[i];
	if (!f)
		return;
	memset(f, 0, sizeof(*f));
	f->user = cur->r[0] % NUSERS;
	f->cred.uid = KUIDT_INIT(1000 + f->user);
	f->filp.f_cred = &f->cred;
	f->filp.f_flags = O_RDWR | O_NONBLOCK;
	ret = FCALL(user_cpu(cur->r[1]), fops->open(&the_inode, &f->filp));
	if (ret) {
		check(ret == -ENOMEM && sim_faults, "open() returned %d", ret);
		return;
	}
	f->open = true;
	f->seq = ++open_seq;
	f->pass_epoch = 1;
	f->k = f->filp.private_data;
	f->tick = cfg.tick[0];
}

/* With no file open, the device holds nothing: its own counts of what it allocated. */
static void check_no_files_left(void)
{
	struct hwtd_table_stats *t = &hwtd_table_stats;
	struct hwtd_ring_stats *r = &hwtd_ring_stats;
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++)
		if (files[i].open)
			return;
	check(!atomic_long_read(&hwtd_files) && !atomic_long_read(&t->chunks) &&
	      !atomic_long_read(&t->extras) && !atomic_long_read(&t->leaves) &&
	      !atomic_long_read(&r->rings) && !atomic_long_read(&r->ring_pages) &&
	      !atomic_long_read(&hwtd_count),
	      "no file open, yet the device holds files %ld chunks %ld extras %ld leaves %ld rings %ld ring pages %ld timeouts %ld",
	      atomic_long_read(&hwtd_files), atomic_long_read(&t->chunks),
	      atomic_long_read(&t->extras), atomic_long_read(&t->leaves),
	      atomic_long_read(&r->rings), atomic_long_read(&r->ring_pages),
	      atomic_long_read(&hwtd_count));
}

/* How far the clock may move at each interleaving of the call running (0: none). */
static u64 interleave_ns;
static u32 interleave_rate = 250;	/* per 1000 releases */

static bool interleave_now(void)
{
	return interleave_ns && !sim_softirq && !sim_nested() &&
	       sim_rng_chance(&sim_mrng, interleave_rate, 1000);
}

static struct hwtd_file *interleave_file;

/* At the releases of @interleave_file's lock. */
static void interleave_hook(struct sim_lock *l)
{
	if (l == &interleave_file->lock && interleave_now())
		sim_interleave(interleave_ns);
}

static void op_close(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	int ret;

	if (!f)
		return;
	if (f->ring_addr)
		sim_uunmap(f->ring_addr);
	f->ring_addr = 0;
	/* Expirations race with the close: passes run at its releases of locks. */
	interleave_ns = cur->r[2] % 3 ? 0 : (cur->r[2] >> 8) % (4 * f->tick);
	interleave_file = f->k;
	sim_unlock_hook = interleave_hook;
	ret = FCALL(user_cpu(cur->r[1]), fops->release(&the_inode, &f->filp));
	sim_unlock_hook = NULL;
	check(ret == 0, "release() returned %d", ret);
	f->open = false;
	f->nto = 0;
	check_no_files_left();
}

/* A user buffer of @len bytes at a random offset in its pages; returns its address. */
static unsigned long ubuf(size_t len, u64 r, unsigned long *region)
{
	/* At a page's start, anywhere, or ending just past a page boundary. */
	unsigned int off = r % 3 == 0 ? 0 : r % 3 == 1 ? ((r >> 8) % PAGE_SIZE) & ~7UL :
			   (PAGE_SIZE - (len / 2 & ~7UL) % PAGE_SIZE) % PAGE_SIZE;
	unsigned int npages = DIV_ROUND_UP(off + len, PAGE_SIZE);

	*region = sim_umap(npages, SIM_PROT_R | SIM_PROT_W);
	return *region + off;
}

static void op_config(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_config c = { };
	unsigned long region, a;
	long ret;

	if (!f)
		return;
	c.clockid = (cur->r[1] & 1) ? CLOCK_BOOTTIME : CLOCK_MONOTONIC;
	c.precision = (cur->r[1] >> 1) % (HWTD_PRECISIONS + (cur->r[1] % 16 == 0));
	a = ubuf(sizeof(c), cur->r[2], &region);
	sim_uwrite(a, &c, sizeof(c));
	ret = FCALL(user_cpu(cur->r[3]), fops->unlocked_ioctl(&f->filp, HWTIMER_IOC_CONFIG, a));
	sim_uunmap(region);
	if (c.precision >= HWTD_PRECISIONS) {
		check(ret == -EINVAL || (ret == -EFAULT && sim_faults), "CONFIG precision %u returned %ld",
		      c.precision, ret);
		return;
	}
	if (ret == -EFAULT && sim_faults)
		return;
	if (f->nto) {
		check(ret == -EBUSY, "CONFIG with %u live timeouts returned %ld", f->nto, ret);
		return;
	}
	check(ret == 0, "CONFIG returned %ld", ret);
	f->boottime = c.clockid == CLOCK_BOOTTIME;
	f->precision = c.precision;
	f->tick = cfg.tick[c.precision];
	f->last_expired = 0;
	f->max_deadline = 0;
}

/* ---- RING's and mmap()'s arguments, as hwtimer(4) words them ------------------------------ */

/* HWTIMER_IOC_RING with *@p, from user memory placed by @r; *@p is read back. */
static long ring_ioctl(struct mfile *f, struct hwtimer_ring_params *p, u64 r)
{
	unsigned long region, a;
	long ret;

	a = ubuf(sizeof(*p), r, &region);
	sim_uwrite(a, p, sizeof(*p));
	ret = FCALL(user_cpu(cur->r[3]), fops->unlocked_ioctl(&f->filp, HWTIMER_IOC_RING, a));
	sim_uread(a, p, sizeof(*p));
	sim_uunmap(region);
	return ret;
}

/* How many records to ask for: mostly a few, sometimes more than two holds, or the most. */
static u32 ring_entries_wanted(u64 r)
{
	switch ((r >> 40) % 32) {
	case 0:
		return HWTIMER_RING_MAX;
	case 1 ... 4:
		return HWTD_HOLD_MAX + 1 + r % HWTD_HOLD_MAX;
	case 5:
		return 2 * HWTD_HOLD_MAX + 1 + r % 128;
	default:
		return 1 + r % 80;
	}
}

/* RING with one argument hwtimer(4) refuses: EINVAL, and no ring made. */
static void ring_bad_params(struct mfile *f, u64 r)
{
	struct hwtimer_ring_params p = { .entries = 1 + r % HWTIMER_RING_MAX };
	long ret;

	switch ((r >> 20) % 4) {
	case 0:
		p.entries = 0;
		break;
	case 1:
		p.entries = (r >> 24) % 2 ? HWTIMER_RING_MAX + 1 : U32_MAX;
		break;
	case 2:
		p.flags = 1U << (r >> 24) % 32;
		break;
	default:
		p.reserved[(r >> 24) % 4] = 1ULL << (r >> 26) % 64;
		break;
	}
	ret = ring_ioctl(f, &p, r >> 8);
	check(ret == -EINVAL || (ret == -EFAULT && sim_faults),
	      "RING with entries %u flags %#x reserved %#llx %#llx %#llx %#llx returned %ld, not EINVAL",
	      p.entries, p.flags, p.reserved[0], p.reserved[1], p.reserved[2], p.reserved[3], ret);
}

/* ->mmap() of a mapping of @npages pages at page @pgoff of the file, with @flags. */
static long ring_mmap(struct mfile *f, struct vm_area_struct *vma, unsigned long npages,
		      unsigned long pgoff, unsigned long flags)
{
	memset(vma, 0, sizeof(*vma));
	vma->vm_start = 0x7f0000000000UL;
	vma->vm_end = vma->vm_start + (npages << PAGE_SHIFT);
	vma->vm_pgoff = pgoff;
	vma->vm_flags = flags;
	return FCALL(user_cpu(cur->r[3]), fops->mmap(&f->filp, vma));
}

/* mmap() of a file without a ring, whatever the mapping: ENODEV. */
static void ring_mmap_none(struct mfile *f, u64 r)
{
	struct vm_area_struct vma;
	unsigned long pgoff = (r >> 8) % 2 ? 0 : 1 + (r >> 9) % 4;
	unsigned long flags = VM_READ | VM_WRITE | VM_SHARED | ((r >> 12) % 4 ? 0 : VM_EXEC);
	long ret;

	ret = ring_mmap(f, &vma, 1 + r % 4, pgoff, flags);
	check(ret == -ENODEV,
	      "mmap() of a file without a ring (%lu pages at page %lu, flags %#lx) returned %ld, not ENODEV",
	      (vma.vm_end - vma.vm_start) >> PAGE_SHIFT, pgoff, flags, ret);
}

/*
 * mmap() of the ring of @n pages with one argument wrong: an offset not
 * HWTIMER_RING_OFF (up to just past the ring), a length not mmap_size, a
 * private mapping (EINVAL), or PROT_EXEC (EPERM).
 */
static void ring_mmap_bad(struct mfile *f, unsigned int n, u64 r)
{
	unsigned long len = n, pgoff = HWTIMER_RING_OFF >> PAGE_SHIFT;
	unsigned long flags = VM_READ | VM_WRITE | VM_SHARED;
	struct vm_area_struct vma;
	long want = -EINVAL, ret;

	switch (r % 5) {
	case 0:
		pgoff = 1 + (r >> 8) % n;
		len = (r >> 16) % 2 ? n : 1;
		break;
	case 1:
		len = n + 1 + (r >> 8) % 2;
		break;
	case 2:
		len = n > 1 ? 1 + (r >> 8) % (n - 1) : 2;
		break;
	case 3:
		flags &= ~VM_SHARED;
		break;
	default:
		flags |= VM_EXEC;
		want = -EPERM;
		break;
	}
	ret = ring_mmap(f, &vma, len, pgoff, flags);
	check(ret == want,
	      "mmap() of a ring of %u pages: %lu pages at page %lu, flags %#lx returned %ld, hwtimer(4) %ld",
	      n, len, pgoff, flags, ret, want);
}

/*
 * The ring's mapping of @n pages: never more than the ring (VM_DONTEXPAND:
 * mremap() cannot grow it; a page past it, were it reached, is SIGBUS),
 * and never executable (mprotect(): EACCES).
 */
static void ring_check_vma(struct vm_area_struct *vma, unsigned int n)
{
	struct vm_fault vmf = { .vma = vma, .pgoff = n };
	const struct vm_operations_struct *ops = vma->vm_ops;
	vm_fault_t vr;

	check(vma->vm_flags & VM_DONTEXPAND, "the ring's mapping may grow: flags %#lx",
	      vma->vm_flags);
	vr = ops->fault(&vmf);
	check(vr == VM_FAULT_SIGBUS,
	      "a fault of page %u of a ring of %u pages returned %#x, not SIGBUS", n, n, vr);
	check(ops->mprotect(vma, vma->vm_start, vma->vm_end, vma->vm_flags | VM_EXEC) == -EACCES,
	      "mprotect() of the ring to executable did not fail with EACCES");
	check(!ops->mprotect(vma, vma->vm_start, vma->vm_end, VM_READ | VM_SHARED),
	      "mprotect() of the ring to read-only failed");
}

/*
 * Before a file's first RING, sometimes: mmap() (ENODEV), RING with a bad
 * argument (EINVAL); neither makes a ring, so the RING after succeeds.
 */
static void ring_abi_before(struct mfile *f)
{
	u64 r = cur->r[0] >> 16;

	if (r % 2)
		ring_mmap_none(f, r >> 1);
	if ((r >> 1) % 2)
		ring_bad_params(f, cur->r[2] >> 3);
}

static void op_ring(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_ring_params p = { };
	struct vm_area_struct vma;
	struct page **pages;
	unsigned int i, n;
	u32 want;
	long ret;

	if (!f)
		return;
	if (!f->ring_entries)
		ring_abi_before(f);
	want = ring_entries_wanted(cur->r[1]);
	p.entries = want;
	ret = ring_ioctl(f, &p, cur->r[2]);
	if (f->ring_entries) {
		check(ret == -EBUSY || (ret == -EFAULT && sim_faults), "a second RING returned %ld", ret);
		return;
	}
	if (ret && sim_faults && (ret == -ENOMEM || ret == -EFAULT))
		return;
	check(ret == 0, "RING of %u entries returned %ld", want, ret);
	/* hwtimer(4): rounded up to a power of two; 192 bytes and 48 a record, in whole pages. */
	check(p.entries == roundup_pow_of_two(want) &&
	      p.mmap_size == DIV_ROUND_UP(192 + (u64)p.entries * sizeof(struct hwtimer_expiry),
					  PAGE_SIZE) * PAGE_SIZE &&
	      p.records_off + (u64)p.entries * sizeof(struct hwtimer_expiry) <= p.mmap_size &&
	      max(max(p.head_off, p.tail_off), p.flags_off) + 4 <= p.records_off,
	      "RING of %u: entries %u mmap_size %llu head %u tail %u flags %u records %u", want,
	      p.entries, p.mmap_size, p.head_off, p.tail_off, p.flags_off, p.records_off);
	n = p.mmap_size / PAGE_SIZE;
	if ((cur->r[3] >> 8) % 2)
		ring_mmap_bad(f, n, cur->r[3] >> 9);
	ret = ring_mmap(f, &vma, n, HWTIMER_RING_OFF >> PAGE_SHIFT, VM_READ | VM_WRITE | VM_SHARED);
	check(ret == 0, "mmap() of the ring returned %ld", ret);
	pages = calloc(n, sizeof(*pages));
	for (i = 0; i < n; i++) {
		struct vm_fault vmf = { .vma = &vma, .pgoff = i };

		check(vma.vm_ops->fault(&vmf) == 0, "ring fault of page %u failed", i);
		pages[i] = vmf.page;
	}
	ring_check_vma(&vma, n);
	f->ring_addr = sim_umap_pages(pages, n, SIM_PROT_R | SIM_PROT_W);
	free(pages);
	/* Its records show the times of its maker's namespace. */
	f->ring_off[0] = ns_off[cur_ns][0];
	f->ring_off[1] = ns_off[cur_ns][1];
	f->ring_entries = p.entries;
	f->rp = p;
	f->seen = 0;
	/* Records queued before went to the ring (one hold's worth): they left now. */
	observe_ring(f);
	ring_room_freed(f);
}

static void op_drain(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	u32 head, tail, k;

	if (!f || !f->ring_addr)
		return;
	sim_uread(f->ring_addr + f->rp.head_off, &head, 4);
	sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
	k = cur->r[1] % 3 ? tail - head : cur->r[1] % (tail - head + 1);
	head += k;
	/* The user's store-release of the head: no system call. */
	sim_uwrite(f->ring_addr + f->rp.head_off, &head, 4);
	if (k)
		ring_room_freed(f);
}

/* poll() moves queued records to the ring, hold by hold: they leave at their hold. */
static struct mfile *poll_file;

/*
 * hwtimer(4), POLL: readable (EPOLLIN | EPOLLRDNORM) while the ring or the
 * kernel queue holds a record. poll() answers for its last hold of the
 * file lock: what that left, before anything else runs, is noted at each
 * release (-1: none yet).
 */
static int poll_ready;

static void poll_note_ready(struct mfile *f)
{
	u32 head, tail, flags;

	if (!f->ring_addr) {
		/* What INFO reports as queued, and read() would take. */
		poll_ready = !!f->k->nqueued;
		return;
	}
	sim_uread(f->ring_addr + f->rp.head_off, &head, 4);
	sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
	sim_uread(f->ring_addr + f->rp.flags_off, &flags, 4);
	poll_ready = tail != head || (flags & HWTIMER_RING_OVERFLOW);
}

static void check_poll(struct mfile *f, __poll_t mask)
{
	__poll_t want = poll_ready ? EPOLLIN | EPOLLRDNORM : 0;

	check(poll_ready >= 0, "file %ld: poll() never took the file lock", f - files);
	check(mask == want,
	      "file %ld: poll() returned %#x, the model %#x (ring %s, %lu records queued)", f - files,
	      mask, want, f->ring_addr ? "mapped" : "none", f->k->nqueued);
	/* It moved the queue to the ring as far as it has room. */
	ring_refilled(f);
}

static void poll_unlock_hook(struct sim_lock *l)
{
	if (l != &poll_file->k->lock || sim_softirq || sim_nested())
		return;
	observe_ring(poll_file);
	poll_note_ready(poll_file);
	if (interleave_now())
		sim_interleave(interleave_ns);
}

static void op_poll(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	__poll_t mask;

	if (!f)
		return;
	poll_file = f;
	interleave_ns = cur->r[2] % 3 ? 0 : (cur->r[2] >> 8) % (4 * f->tick);
	sim_unlock_hook = poll_unlock_hook;
	poll_ready = -1;
	mask = FCALL(user_cpu(cur->r[1]), fops->poll(&f->filp, NULL));
	sim_unlock_hook = NULL;
	observe_ring(f);
	check_poll(f, mask);
}

/* hwtimer(4)'s example: take what the ring holds, store the head, poll(). */
static void op_drain_poll(void)
{
	op_drain();
	op_poll();
}

/*
 * read(): each hold takes records off the kernel queue, then they are
 * copied out; other CPUs may run between the two. The model takes each
 * chunk at its copy, as leaving at the time of its hold: the whole
 * records copied are the reader's, the rest lost to the fault that
 * stopped the copy (hwtimer(4): consumed all the same).
 */
static u64 read_hold_time;
static struct hwtimer_expiry read_got[64];
static unsigned int read_ngot;

static unsigned long read_nqueued;

static void read_unlock_hook(struct sim_lock *l)
{
	if (l != &read_file->k->lock || sim_softirq || sim_nested())
		return;
	read_hold_time = file_now(read_file);
	/*
	 * Others run only after a hold that took nothing: the model takes a
	 * chunk at its copy, and must do so before anything else leaves.
	 */
	if (read_file->k->nqueued == read_nqueued && interleave_now()) {
		sim_interleave(interleave_ns);
		read_nqueued = read_file->k->nqueued;
	}
}

static void read_copy_hook(const void *from, unsigned long n, unsigned long left)
{
	const struct hwtimer_expiry *recs = from;
	unsigned long i, whole = (n - left) / sizeof(*recs);

	for (i = 0; i < n / sizeof(*recs); i++) {
		model_record(read_file, &recs[i], read_hold_time, task_off(read_file),
			     i < whole ? "read" : "read (lost to a fault)");
		if (i < whole && read_ngot < ARRAY_SIZE(read_got))
			read_got[read_ngot++] = recs[i];
	}
}

static void op_read(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	unsigned int max = 1 + cur->r[1] % 24, i;
	struct hwtimer_expiry rec;
	unsigned long region, a;
	ssize_t ret;

	if (!f)
		return;
	a = ubuf(max * sizeof(rec), cur->r[2], &region);
	read_file = f;
	read_ngot = 0;
	read_nqueued = f->k->nqueued;
	interleave_ns = cur->r[3] % 3 ? 0 : (cur->r[3] >> 8) % (4 * f->tick);
	sim_copy_to_user_hook = read_copy_hook;
	sim_unlock_hook = read_unlock_hook;
	ret = FCALL(user_cpu(cur->r[3]), fops->read(&f->filp, (char *)a, max * sizeof(rec), NULL));
	sim_unlock_hook = NULL;
	sim_copy_to_user_hook = NULL;
	read_file = NULL;
	if (ret == -EAGAIN) {
		check(!read_ngot, "read() returned EAGAIN after taking %u records", read_ngot);
	} else if (ret < 0) {
		check(ret == -EFAULT && sim_faults && !read_ngot, "read() returned %zd", ret);
	} else {
		check(ret == (ssize_t)(read_ngot * sizeof(rec)), "read() returned %zd, %u records copied",
		      ret, read_ngot);
		for (i = 0; i < read_ngot; i++) {
			sim_uread(a + i * sizeof(rec), &rec, sizeof(rec));
			check(!memcmp(&rec, &read_got[i], sizeof(rec)), "read(): record %u differs in the buffer", i);
		}
	}
	sim_uunmap(region);
}

static void op_info(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_info info;
	unsigned long region, a;
	long ret;

	if (!f)
		return;
	a = ubuf(sizeof(info), cur->r[2], &region);
	ret = FCALL(user_cpu(cur->r[3]), fops->unlocked_ioctl(&f->filp, HWTIMER_IOC_INFO, a));
	sim_uread(a, &info, sizeof(info));
	sim_uunmap(region);
	if (ret == -EFAULT && sim_faults)
		return;
	check(ret == 0, "INFO returned %ld", ret);
	{
		struct seq_file m = { };

		FCALL(user_cpu(cur->r[3]), (fops->show_fdinfo(&m, &f->filp), 0));
	}
	check(info.pending + info.queued == f->nto, "INFO: pending %llu + queued %llu, the model %u live",
	      info.pending, info.queued, f->nto);
	check((long)info.user_count == model_user_count(f->user), "INFO: user_count %llu, the model %ld",
	      info.user_count, model_user_count(f->user));
	check((long)info.global_count == model_global_count(), "INFO: global_count %llu, the model %ld",
	      info.global_count, model_global_count());
	check(info.tick_ns == f->tick, "INFO: tick %llu, the model %llu", info.tick_ns, f->tick);
}

/* ---- batches -------------------------------------------------------------------------------- */

/* A time ahead of now: near, at each level of the file's wheel, far, or past. */
static u64 pick_delay(u64 tick, u64 r)
{
	unsigned int cls = r % 16;
	u64 x = r >> 8;

	switch (cls) {
	case 0:
		return 0;
	case 1: case 2: case 3: case 4:
		return x % (64 * tick);				/* level 0 */
	case 5: case 6: case 7:
		return 64 * tick + x % (4032 * tick);		/* level 1 */
	case 8: case 9:
		return 4096 * tick + x % (258048 * tick);	/* level 2 */
	case 10:
		return x % (1ULL << 50);			/* far */
	case 11:
		return (x % 64) * tick;				/* on a tick boundary from now */
	case 12:
		return x % (1ULL << 62);			/* very far */
	default:
		return x % (200 * tick);
	}
}

/*
 * An entry's timing as hwtimer(4) has it: times in the caller's namespace
 * (offset @off), at most INT64_MAX there; *@host the deadline on the host's
 * clock, *@out the one written back (a deadline before the host clock's
 * start is long past: the namespace's time of host 0).
 */
static int timing_check(struct mfile *f, u32 flags, u64 expires, u64 period, u64 now, s64 off,
			u64 *host, u64 *out)
{
	u64 ns;

	if (flags & ~HWTIMER_TIMEOUT_FLAGS)
		return -EINVAL;
	if (period && (period < f->tick || period > (u64)KTIME_MAX))
		return -EINVAL;
	if (flags & HWTIMER_TIMEOUT_ABS)
		ns = expires;
	else if (check_add_overflow(to_ns(now, off), expires, &ns))
		return -EINVAL;
	if (ns > (u64)KTIME_MAX)
		return -EINVAL;
	*out = ns;
	if (off < 0) {
		*host = ns + (u64)-off;
	} else if (ns >= (u64)off) {
		*host = ns - off;
	} else {
		*host = 0;
		*out = off;
	}
	return 0;
}

/*
 * A batch in flight. The model follows it hold by hold: at each release
 * of the file lock (sim_unlock_hook) it reads the entries the kernel has
 * written back since, and the records it published to the ring, and
 * replays them in the order the kernel made them: a hold moves queued
 * records to the ring first, then processes its entries, each of which
 * may deliver a record at once (a deadline already past).
 */
#define POISON	0x55aa

struct batch {
	struct mfile	*f;
	unsigned int	cmd;
	size_t		size;
	unsigned int	n;
	unsigned long	eaddr;
	u8		ents[160 * sizeof(struct hwtimer_get_entry)];
	u8		orig[160 * sizeof(struct hwtimer_get_entry)];
	unsigned int	next;		/* entries the model has replayed */
	u64		now;		/* the call's clock: relative times count from it */
	u64		hnow;		/* the clock of the hold being replayed */
	bool		started;	/* the call has read its clock */
	s64		off;		/* the caller's namespace offset of the file's clock */
	int		first_err;
	unsigned int	nfailed;
	unsigned long	q0;		/* records queued when the hold began */
};

static s32 *ent_result(struct batch *b, unsigned int i)
{
	u8 *e = b->ents + i * b->size;

	switch (b->cmd) {
	case HWTIMER_IOC_ARM:
		return &((struct hwtimer_arm_entry *)e)->result;
	case HWTIMER_IOC_MODIFY:
		return &((struct hwtimer_modify_entry *)e)->result;
	case HWTIMER_IOC_CANCEL:
		return &((struct hwtimer_cancel_entry *)e)->result;
	default:
		return &((struct hwtimer_get_entry *)e)->result;
	}
}

static void entry_failed(struct batch *b, int err)
{
	b->nfailed++;
	if (!b->first_err)
		b->first_err = err;
}

/*
 * Replay entry @i against the model. Return: the id of a timeout whose
 * record it delivered at once, if it may have (else 0).
 */
static u64 verify_entry(struct batch *b, unsigned int i)
{
	struct mfile *f = b->f;
	u64 now = b->now, hnow = b->hnow, host = 0, out = 0;
	int expect;

	if (b->cmd == HWTIMER_IOC_ARM) {
		struct hwtimer_arm_entry *e = (void *)(b->ents + i * b->size);

		expect = e->slack_ns > (u64)KTIME_MAX ? -EINVAL :
			 timing_check(f, e->flags, e->expires_ns, e->period_ns, now, b->off, &host, &out);
		if (!expect && f->nto >= min_t(u32, cfg.file_cap, HWTD_MAX_TIMEOUTS))
			expect = -ENOSPC;
		/* Memory comes before the caps' charge. */
		if (e->result == -ENOMEM && sim_faults && !expect)
			expect = -ENOMEM;
		/* A timeout stops counting when it ends (hwtimer(4)), in its hold too. */
		if (!expect && (model_user_count(f->user) >= cfg.user_cap ||
				model_global_count() >= cfg.global_cap))
			expect = -EDQUOT;
		check(e->result == expect,
		      "ARM entry %u (expires %llu flags %#x period %llu slack %llu): result %d, the model %d",
		      i, e->expires_ns, e->flags, e->period_ns, e->slack_ns, e->result, expect);
		if (expect) {
			check(!e->id && !e->deadline_ns, "ARM entry %u failed with outputs set", i);
			entry_failed(b, expect);
			return 0;
		}
		check(!mto_find(f, e->id), "ARM returned id %#llx, which is live", e->id);
		check(idset_add(f->seq, e->id), "ARM returned id %#llx, which the file handed out before",
		      e->id);
		check(f->nto < MAX_TO, "model full");
		check(e->deadline_ns == out, "ARM deadline_ns %llu, the model %llu", e->deadline_ns, out);
		if (cfg.verbose)
			printf("  file %ld: armed id %#llx deadline %llu period %llu slack %llu\n", f - files,
			       e->id, host, e->period_ns, e->slack_ns);
		f->to[f->nto++] = (struct mto){ .id = e->id, .cookie = e->cookie, .deadline = host,
						.period = e->period_ns, .slack = e->slack_ns,
						.armed_at = hnow };
		return e->id;
	}
	if (b->cmd == HWTIMER_IOC_MODIFY) {
		struct hwtimer_modify_entry *e = (void *)(b->ents + i * b->size);
		struct mto *m;

		expect = timing_check(f, e->flags, e->expires_ns, e->period_ns, now, b->off, &host, &out);
		m = mto_find(f, e->id);
		if (!expect && !m)
			expect = -ENOENT;
		if (e->result == -ENOMEM && sim_faults && !expect)
			expect = -ENOMEM;
		check(e->result == expect, "MODIFY entry %u (id %#llx expires %llu flags %#x): result %d, the model %d",
		      i, e->id, e->expires_ns, e->flags, e->result, expect);
		if (expect) {
			entry_failed(b, expect);
			return 0;
		}
		check(e->deadline_ns == out, "MODIFY deadline_ns %llu, the model %llu", e->deadline_ns, out);
		if (e->status == HWTIMER_STATUS_PENDING)
			check(hnow <= mto_latest(f, m), "MODIFY found id %#llx (deadline %llu) pending past its latest time %llu",
			      m->id, m->deadline, mto_latest(f, m));
		else
			check(e->status == HWTIMER_STATUS_EXPIRED && hnow >= m->deadline,
			      "MODIFY status %u of id %#llx (deadline %llu, now %llu)", e->status, m->id,
			      m->deadline, now);
		if (cfg.verbose)
			printf("  file %ld: modified id %#llx deadline %llu -> %llu status %u\n", f - files,
			       m->id, m->deadline, host, e->status);
		m->deadline = host;
		m->period = e->period_ns;
		m->armed_at = hnow;
		return m->id;
	}
	if (b->cmd == HWTIMER_IOC_CANCEL) {
		struct hwtimer_cancel_entry *e = (void *)(b->ents + i * b->size);
		struct mto *m = mto_find(f, e->id);

		expect = m ? 0 : -ENOENT;
		check(e->result == expect, "CANCEL entry %u (id %#llx): result %d, the model %d", i,
		      e->id, e->result, expect);
		if (expect) {
			entry_failed(b, expect);
			return 0;
		}
		if (e->status == HWTIMER_STATUS_PENDING)
			check(hnow <= mto_latest(f, m), "CANCEL found id %#llx pending past its latest time", m->id);
		else
			check(e->status == HWTIMER_STATUS_EXPIRED && hnow >= m->deadline,
			      "CANCEL status %u for id %#llx (deadline %llu, now %llu)", e->status, m->id,
			      m->deadline, now);
		mto_end(f, m);
		return 0;
	}
	{
		struct hwtimer_get_entry *e = (void *)(b->ents + i * b->size);
		struct mto *m = mto_find(f, e->id);

		check(e->result == (m ? 0 : -ENOENT), "GET entry %u (id %#llx): result %d", i, e->id,
		      e->result);
		if (!m) {
			entry_failed(b, -ENOENT);
			return 0;
		}
		check(e->cookie == m->cookie && e->deadline_ns == to_ns(m->deadline, b->off) &&
		      e->period_ns == m->period && e->slack_ns == m->slack,
		      "GET id %#llx: cookie %llu deadline %llu period %llu slack %llu, the model %llu %llu %llu %llu",
		      m->id, e->cookie, e->deadline_ns, e->period_ns, e->slack_ns, m->cookie,
		      m->deadline, m->period, m->slack);
		if (e->status == HWTIMER_STATUS_PENDING) {
			check(hnow <= mto_latest(f, m), "GET: id %#llx pending past its latest time", m->id);
			/* GET reads the clock in its hold. */
			check(e->remaining_ns == (m->deadline > hnow ? m->deadline - hnow : 0),
			      "GET: remaining %llu, the model %llu", e->remaining_ns, m->deadline - hnow);
		} else {
			u64 over = m->period && hnow > m->deadline ? (hnow - m->deadline) / m->period : 0;

			check(e->status == HWTIMER_STATUS_EXPIRED && hnow >= m->deadline,
			      "GET: status %u of id %#llx (deadline %llu, now %llu)", e->status, m->id,
			      m->deadline, now);
			/* What a read would count now. */
			check(e->overrun == over && !e->remaining_ns,
			      "GET: id %#llx expired with overrun %llu remaining %llu, the model %llu and 0",
			      m->id, e->overrun, e->remaining_ns, over);
		}
		return 0;
	}
}

#define MAX_HOLD_RECS	256

/* A hold of the file lock ended: replay what it did. */
static void batch_sync(struct batch *b)
{
	struct mfile *f = b->f;
	struct hwtimer_expiry recs[MAX_HOLD_RECS];
	unsigned int nrec = 0, p, i, nref;
	u32 tail = f->seen;

	b->hnow = file_now(f);
	sim_uread(b->eaddr, b->ents, b->n * b->size);
	for (p = b->next; p < b->n; p++)
		if (*ent_result(b, p) == POISON)
			break;
	if (f->ring_addr) {
		sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
		check(tail - f->seen <= f->ring_entries && tail - f->seen <= MAX_HOLD_RECS,
		      "file %ld: ring tail %u runs %u past the records seen", f - files, tail, tail - f->seen);
		for (; f->seen + nrec != tail; nrec++)
			sim_uread(f->ring_addr + f->rp.records_off +
				  ((f->seen + nrec) & (f->ring_entries - 1)) * sizeof(recs[0]),
				  &recs[nrec], sizeof(recs[0]));
	}
	/*
	 * The hold moved min(queued before it, its room, HWTD_HOLD_MAX) records from
	 * the queue first (hwtd_refill()); the records after those are the entries'
	 * own, delivered at once, in the order of the entries.
	 */
	nref = 0;
	if (f->ring_addr) {
		u32 head, used, room;

		sim_uread(f->ring_addr + f->rp.head_off, &head, 4);
		used = f->seen - head;
		room = used > f->ring_entries ? 0 : f->ring_entries - used;
		nref = min(min_t(u32, b->q0, room), min_t(u32, HWTD_HOLD_MAX, nrec));
	}
	for (i = 0; i < nref; i++)
		model_record(f, &recs[i], b->hnow, f->ring_off[f->boottime], "ring (refill)");
	for (; b->next < p; b->next++) {
		u64 id = verify_entry(b, b->next);

		if (id && i < nrec && recs[i].id == id) {
			model_record(f, &recs[i], b->hnow, f->ring_off[f->boottime], "ring (at once)");
			i++;
		}
	}
	check(i == nrec, "file %ld: %u records in the ring the hold did not make (%u refilled, %u at once)",
	      f - files, nrec - i, nref, i - nref);
	b->q0 = f->k->nqueued;
	f->seen = tail;
}

static void batch_unlock_hook(struct sim_lock *l)
{
	if (!bat || l != &bat->f->k->lock || sim_softirq || sim_nested())
		return;
	batch_sync(bat);
	if (interleave_now()) {
		sim_interleave(interleave_ns);
		/* What the passes in between did, the ring's observer has seen. */
		bat->q0 = bat->f->k->nqueued;
	}
	/* The first release is nbusy's: the call reads its clock right after it. */
	if (!bat->started) {
		bat->started = true;
		bat->now = file_now(bat->f);
	}
}

/* Whether the user can read all of [@a, @a + @len) and write [@o, @o + @olen) of it. */
static bool user_ok(unsigned long a, size_t len, u8 prot)
{
	unsigned long pg;

	for (pg = a & PAGE_MASK; pg < a + len; pg += PAGE_SIZE)
		if ((sim_uprot_of(pg) & prot) != prot)
			return false;
	return true;
}

/* Whether the batch can act on the entry at @a: readable whole, its outputs writable. */
static bool entry_ok(unsigned int cmd, unsigned long a, size_t size)
{
#define OUT_OK(type, first, last)						\
	user_ok(a + offsetof(type, first),					\
		offsetofend(type, last) - offsetof(type, first), SIM_PROT_R | SIM_PROT_W)

	if (!user_ok(a, size, SIM_PROT_R))
		return false;
	switch (cmd) {
	case HWTIMER_IOC_ARM:
		return OUT_OK(struct hwtimer_arm_entry, result, deadline_ns);
	case HWTIMER_IOC_MODIFY:
		return OUT_OK(struct hwtimer_modify_entry, result, status);
	case HWTIMER_IOC_CANCEL:
		return OUT_OK(struct hwtimer_cancel_entry, result, status);
	default:
		return OUT_OK(struct hwtimer_get_entry, result, status) &&
		       OUT_OK(struct hwtimer_get_entry, cookie, slack_ns);
	}
#undef OUT_OK
}

/* Run a batch of @n entries (written at @ents) through the ioctl; replay it into the model. */
static void run_batch(struct mfile *f, unsigned int cmd, void *ents, unsigned int n, size_t size,
		      unsigned int flags)
{
	static struct batch b;
	struct hwtimer_batch hb = { };
	unsigned long hreg, h, region;
	unsigned int i, bad;
	long ret;

	memset(&b, 0, sizeof(b));
	b.f = f;
	b.cmd = cmd;
	b.size = size;
	b.n = n;
	b.now = file_now(f);
	b.off = task_off(f);
	b.q0 = f->k->nqueued;
	memcpy(b.ents, ents, n * size);
	for (i = 0; i < n; i++)
		*ent_result(&b, i) = POISON;
	memcpy(b.orig, b.ents, n * size);
	b.eaddr = ubuf(n * size, cur->r[2], &region);
	sim_uwrite(b.eaddr, b.ents, n * size);
	/* Sometimes a page of the entries read-only, or not there: the batch stops before it. */
	bad = n;
	if (cur->r[2] % 11 == 0 && (b.eaddr + n * size - 1) / PAGE_SIZE > b.eaddr / PAGE_SIZE) {
		unsigned long first = b.eaddr & PAGE_MASK, last = (b.eaddr + n * size - 1) & PAGE_MASK;
		unsigned long pg = (cur->r[2] >> 16) % 3 ? last :
				   first + ((cur->r[2] >> 18) % ((last - first) / PAGE_SIZE + 1)) * PAGE_SIZE;

		sim_uprot(pg, (cur->r[2] >> 8) % 2 ? SIM_PROT_R : 0);
		for (i = 0; i < n && bad == n; i++)
			if (!entry_ok(cmd, b.eaddr + i * size, size))
				bad = i;
		if (cfg.verbose)
			printf("  entries' page %#lx %s: entry %u of %u the first out of reach\n", pg,
			       (cur->r[2] >> 8) % 2 ? "read-only" : "unmapped", bad, n);
	}
	h = ubuf(sizeof(hb), cur->r[2] >> 1, &hreg);
	hb.entries = b.eaddr;
	hb.count = n;
	hb.flags = flags;
	hb.done = 0xdead;
	hb.failed = 0xbeef;
	sim_uwrite(h, &hb, sizeof(hb));
	bat = &b;
	sim_unlock_hook = batch_unlock_hook;
	interleave_ns = cur->r[3] % 3 ? 0 : (cur->r[3] >> 8) % (4 * f->tick);
	ret = FCALL(user_cpu(cur->r[3]), fops->unlocked_ioctl(&f->filp, cmd, h));
	sim_unlock_hook = NULL;
	bat = NULL;
	batch_sync(&b);
	sim_uread(h, &hb, sizeof(hb));
	sim_uunmap(hreg);
	sim_uunmap(region);
	for (i = b.next; i < n; i++)
		check(!memcmp(b.ents + i * size, b.orig + i * size, size),
		      "%s entry %u past the last processed (%u) was written", op_names[cur->kind], i, b.next);
	if (ret == -EFAULT && sim_faults)
		return;
	check(hb.done == b.next, "%s: done %u, the entries written back %u", op_names[cur->kind], hb.done,
	      b.next);
	check(hb.failed == b.nfailed, "%s: failed %u, the model %u", op_names[cur->kind], hb.failed,
	      b.nfailed);
	if (!(flags & HWTIMER_BATCH_CONTINUE) && b.first_err)
		check(ret == b.first_err, "%s returned %ld, done %u of %u, the model %d",
		      op_names[cur->kind], ret, hb.done, n, b.first_err);
	else if (bad < n)
		check(ret == -EFAULT && hb.done == bad,
		      "%s returned %ld, done %u of %u, the model EFAULT at entry %u (its page %s)",
		      op_names[cur->kind], ret, hb.done, n, bad,
		      (cur->r[2] >> 8) % 2 ? "read-only" : "unmapped");
	else
		check(ret == 0 && hb.done == n, "%s returned %ld, done %u of %u", op_names[cur->kind], ret,
		      hb.done, n);
	observe_ring(f);
	/* Its header was valid: it moved the queue to the ring as far as it has room. */
	ring_refilled(f);
}

static void op_arm(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_arm_entry e[150];
	unsigned int n, i, flags;
	u64 now, r;

	if (!f)
		return;
	/* A few mostly, sometimes more than a hold's worth (HWTD_HOLD_MAX). */
	n = 1 + cur->r[1] % (cur->r[1] % 8 ? 4 : cur->r[1] % 3 ? 48 : ARRAY_SIZE(e));
	n = min(n, MAX_TO - f->nto);
	if (!n)
		return;
	flags = cur->r[1] % 5 ? HWTIMER_BATCH_CONTINUE : 0;
	r = cur->r[1] >> 8;
	memset(e, 0, sizeof(e));
	now = file_now(f);
	for (i = 0; i < n; i++) {
		r = sim_rng_next(&(struct sim_rng){ r + i });
		e[i].cookie = cur_op << 8 | i;
		e[i].expires_ns = pick_delay(f->tick, r);
		/* A burst: the whole batch on one tick, or nearly (passes of many holds). */
		if (n > 8 && cur->r[2] % 3 == 0)
			e[i].expires_ns = pick_delay(f->tick, cur->r[2] >> 2) + (cur->r[2] % 2 ? 0 : r % f->tick);
		if (r % 7 == 0) {
			e[i].flags = HWTIMER_TIMEOUT_ABS;
			e[i].expires_ns = r % 11 ? to_ns(now, task_off(f)) + e[i].expires_ns -
						   (r % 13 ? 0 : f->tick * 3) :
					  r % 2 ? (u64)KTIME_MAX - r % 1000 : r % 1000;
		}
		if (r % 9 == 0)
			e[i].period_ns = f->tick * (1 + (r >> 20) % 50) - (r % 5 == 0);
		if (r % 11 == 0)
			e[i].slack_ns = (r >> 24) % (100 * f->tick);
		if (r % 97 == 0)
			e[i].flags |= 0x100;
	}
	run_batch(f, HWTIMER_IOC_ARM, e, n, sizeof(e[0]), flags);
}

/*
 * A flood, on a file with a ring: more timeouts due at once than it has
 * room for, a hold's worth and more left in the kernel queue (its refills
 * then take more than a hold: hwtimer(4) says as far as the ring has
 * room); most already due, delivered by the batch, some a few ticks ahead,
 * for a pass to deliver.
 */
static void op_flood(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_arm_entry e[150];
	unsigned int n, k, i, done = 0;
	u32 head, tail;
	u64 t, r = cur->r[1];

	if (!f || !f->ring_addr)
		return;
	sim_uread(f->ring_addr + f->rp.head_off, &head, 4);
	sim_uread(f->ring_addr + f->rp.tail_off, &tail, 4);
	n = f->ring_entries - min(tail - head, f->ring_entries) + HWTD_HOLD_MAX + 1 +
	    r % HWTD_HOLD_MAX;
	while (done < n && f->open && MAX_TO > f->nto) {
		k = min(min(n - done, (unsigned int)ARRAY_SIZE(e)), MAX_TO - f->nto);
		memset(e, 0, sizeof(e));
		t = to_ns(file_now(f), task_off(f));
		for (i = 0; i < k; i++) {
			r = sim_rng_next(&(struct sim_rng){ r + i });
			e[i].cookie = cur_op << 12 | (done + i);
			e[i].flags = HWTIMER_TIMEOUT_ABS;
			e[i].expires_ns = r % 4 ? t - min(t, r % (3 * f->tick)) :
					  t + r % (4 * f->tick);
		}
		run_batch(f, HWTIMER_IOC_ARM, e, k, sizeof(e[0]), HWTIMER_BATCH_CONTINUE);
		done += k;
	}
}

/*
 * An id to act on: a live one mostly, else a dead or a made-up one. Once
 * per batch, so that the model tells which record an entry delivered.
 */
static u64 __pick_id(struct mfile *f, u64 r)
{
	if (f->nto && r % 8)
		return f->to[(r >> 4) % f->nto].id;
	if (f->ndead && r % 2)
		return f->dead[(r >> 4) % min_t(unsigned int, f->ndead, ARRAY_SIZE(f->dead))];
	return r >> 3;
}

static u64 pick_id_once(struct mfile *f, u64 r, const void *ents, size_t size, unsigned int i)
{
	u64 id = __pick_id(f, r);
	unsigned int j;

	for (j = 0; j < i; j++)
		if (*(const u64 *)((const char *)ents + j * size) == id)
			return (r >> 3) | 1ULL << 62;
	return id;
}

#define pick_id(f, r, e, i)	pick_id_once(f, r, e, sizeof((e)[0]), i)

static void op_modify(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_modify_entry e[150];
	unsigned int n, i, flags;
	u64 now, r;

	if (!f)
		return;
	n = 1 + cur->r[1] % (cur->r[1] % 8 ? 3 : cur->r[1] % 3 ? 32 : ARRAY_SIZE(e));
	flags = cur->r[1] % 5 ? HWTIMER_BATCH_CONTINUE : 0;
	r = cur->r[1] >> 8;
	memset(e, 0, sizeof(e));
	now = file_now(f);
	for (i = 0; i < n; i++) {
		struct mto *m;

		r = sim_rng_next(&(struct sim_rng){ r + i });
		e[i].id = pick_id(f, r, e, i);
		m = mto_find(f, e[i].id);
		e[i].flags = HWTIMER_TIMEOUT_ABS;
		if (m && r % 3 == 0 && m->deadline > now && m->deadline <= (u64)KTIME_MAX) {
			/* Earlier, by less than a level-1 slot mostly: the late-modify class. */
			u64 back = (r >> 16) % (r % 2 ? 64 * f->tick : m->deadline - now);

			e[i].expires_ns = to_ns(m->deadline - back, task_off(f));
		} else if (m && r % 7 == 2 && m->deadline > now + 8 * f->tick) {
			/* Just ahead of the call's clock: passes in between may pass it. */
			e[i].expires_ns = to_ns(now + 1 + (r >> 16) % (6 * f->tick), task_off(f));
		} else if (m && r % 3 == 1 && m->deadline <= (u64)KTIME_MAX - (1ULL << 40)) {
			e[i].expires_ns = to_ns(m->deadline + (r >> 16) % (4096 * f->tick), task_off(f));
		} else {
			e[i].flags = 0;
			e[i].expires_ns = pick_delay(f->tick, r >> 5);
		}
		if (m && m->period && r % 4)
			e[i].period_ns = m->period;
		else if (r % 13 == 0)
			e[i].period_ns = f->tick * (1 + (r >> 30) % 20);
	}
	run_batch(f, HWTIMER_IOC_MODIFY, e, n, sizeof(e[0]), flags);
}

static void op_cancel(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_cancel_entry e[16];
	unsigned int n, i, flags;
	u64 r;

	if (!f)
		return;
	n = 1 + cur->r[1] % ARRAY_SIZE(e);
	flags = cur->r[1] % 5 ? HWTIMER_BATCH_CONTINUE : 0;
	r = cur->r[1] >> 8;
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		r = sim_rng_next(&(struct sim_rng){ r + i });
		e[i].id = pick_id(f, r, e, i);
	}
	run_batch(f, HWTIMER_IOC_CANCEL, e, n, sizeof(e[0]), flags);
}

static void op_get(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_get_entry e[8];
	unsigned int n, i;

	if (!f)
		return;
	n = 1 + cur->r[1] % ARRAY_SIZE(e);
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++)
		e[i].id = pick_id(f, sim_rng_next(&(struct sim_rng){ cur->r[1] + i }), e, i);
	run_batch(f, HWTIMER_IOC_GET, e, n, sizeof(e[0]), HWTIMER_BATCH_CONTINUE);
}

/* ---- operations on the kernel API -------------------------------------------------------------- */

/* The model of an API timer just started or modified; false when it was refused. */
static bool api_armed(struct atimer *a, bool modify, int ret, u64 deadline, u64 slack, u64 now)
{
	struct mwheel *mw = &wheels[a->wheel];

	if (!modify && a->pending) {
		check(ret == -EALREADY, "hwtimer_start() of a pending timer returned %d", ret);
		return false;
	}
	if (!a->pending && mw->c.max_pending && mw->pending >= mw->c.max_pending) {
		check(ret == -EBUSY, "start at the cap returned %d", ret);
		return false;
	}
	check(ret == (modify ? a->pending : 0), "hwtimer_%s() returned %d, the model %d",
	      modify ? "modify" : "start", ret, modify ? a->pending : 0);
	if (!a->pending)
		mw->pending++;
	if (cfg.verbose)
		printf("  API timer %ld (wheel %u) %s: deadline %llu slack %llu at %llu\n", a - atimers,
		       a->wheel, modify ? "modified" : "started", deadline, slack, now);
	check(hwtimer_expires(&a->t) == deadline && hwtimer_pending(&a->t),
	      "API timer %ld: hwtimer_expires() %llu pending %d after a start, the model %llu",
	      a - atimers, hwtimer_expires(&a->t), hwtimer_pending(&a->t), deadline);
	a->pending = true;
	a->deadline = deadline;
	a->slack = slack;
	a->armed_at = now;
	a->period = 0;
	return true;
}

static void op_api_arm(bool modify)
{
	struct atimer *a = &atimers[cur->r[0] % MAX_ATIMERS];
	struct mwheel *mw = &wheels[a->wheel];
	u64 r = cur->r[1], now, t, deadline, slack;
	enum hwtimer_mode mode = r % 3 ? HWTIMER_MODE_REL : HWTIMER_MODE_ABS;
	bool dflt = r % 4 != 0;
	struct sim_ctx s;
	int ret;

	if (!mw->w)
		return;
	now = wheel_now(mw);
	t = pick_delay(mw->tick, r >> 4);
	if (modify && a->pending && r % 2)
		t = a->deadline > now ? (a->deadline - now) - (r >> 20) % (a->deadline - now + 1) : 0;
	if (mode == HWTIMER_MODE_ABS)
		t = now + t - (r % 11 == 0 ? mw->tick : 0);
	slack = dflt ? mw->c.slack_ns : (r >> 40) % (50 * mw->tick);
	deadline = mode == HWTIMER_MODE_REL ? (t >= (u64)KTIME_MAX - now ? KTIME_MAX : now + t) :
		   min_t(u64, t, KTIME_MAX);
	s = sim_enter(user_cpu(cur->r[2]), cur->r[2] % 5 == 0);
	if (modify)
		ret = dflt ? hwtimer_modify(&a->t, t, mode) : hwtimer_modify_range(&a->t, t, slack, mode);
	else
		ret = dflt ? hwtimer_start(&a->t, t, mode) : hwtimer_start_range(&a->t, t, slack, mode);
	sim_check_clean("hwtimer_start/modify");
	sim_leave(s);
	if (!api_armed(a, modify, ret, deadline, slack, now))
		return;
	a->period = (r >> 8) % 6 == 0 ? mw->tick * (1 + (r >> 50) % 30) : 0;
	a->periods_left = 1 + (r >> 12) % 16;
}

static void op_api_cancel(void)
{
	struct atimer *a = &atimers[cur->r[0] % MAX_ATIMERS];
	struct sim_ctx s;
	int ret;

	if (!wheels[a->wheel].w)
		return;
	s = sim_enter(user_cpu(cur->r[2]), 0);
	check(hwtimer_state(&a->t) == (a->pending ? HWTIMER_PENDING : HWTIMER_IDLE),
	      "hwtimer_state() %d, the model %s", hwtimer_state(&a->t), a->pending ? "pending" : "idle");
	switch (cur->r[1] % 4) {
	case 0:
	case 1:
		ret = hwtimer_cancel(&a->t);
		break;
	case 2:
		ret = hwtimer_cancel_sync(&a->t);
		break;
	default:
		/* For good: no start until it is set up again. */
		ret = hwtimer_shutdown_sync(&a->t);
		check(hwtimer_state(&a->t) == HWTIMER_SHUTDOWN, "hwtimer_state() after shutdown: %d",
		      hwtimer_state(&a->t));
		check(hwtimer_start(&a->t, 1000, HWTIMER_MODE_REL) == -EIDRM &&
		      hwtimer_modify(&a->t, 1000, HWTIMER_MODE_REL) == -EIDRM,
		      "start or modify after shutdown did not fail with EIDRM");
		hwtimer_setup(&a->t, wheels[a->wheel].w, atimer_fn);
		break;
	}
	sim_check_clean("hwtimer_cancel");
	sim_leave(s);
	check(ret == a->pending, "hwtimer_cancel returned %d, the model %d", ret, a->pending);
	if (a->pending)
		wheels[a->wheel].pending--;
	a->pending = false;
}

/* Many timers of one wheel on one tick, or a few: long passes, big cascades. */
static void op_api_burst(void)
{
	struct mwheel *mw = &wheels[cur->r[0] % nwheels];
	u64 r = cur->r[1], now = wheel_now(mw), delay = pick_delay(mw->tick, r >> 8);
	unsigned int i, n = 0, want = 20 + r % 200;
	struct sim_ctx s = sim_enter(user_cpu(cur->r[2]), 0);

	for (i = 0; i < MAX_ATIMERS && n < want; i++) {
		struct atimer *a = &atimers[(cur->r[3] + i) % MAX_ATIMERS];
		u64 d = delay + (r % 3 ? 0 : (r >> 20) % (4 * mw->tick));
		int ret;

		if (a->pending || &wheels[a->wheel] != mw)
			continue;
		n++;
		ret = hwtimer_start_range(&a->t, d, 0, HWTIMER_MODE_REL);
		if (mw->c.max_pending && mw->pending >= mw->c.max_pending) {
			check(ret == -EBUSY, "start at the cap returned %d", ret);
			continue;
		}
		check(ret == 0, "hwtimer_start() returned %d", ret);
		mw->pending++;
		a->pending = true;
		a->deadline = d >= (u64)KTIME_MAX - now ? KTIME_MAX : now + d;
		a->slack = 0;
		a->armed_at = now;
		a->period = 0;
	}
	sim_check_clean("hwtimer_start");
	sim_leave(s);
}

static void op_cpu(void)
{
	unsigned int cpu = cur->r[0] % sim_ncpus;

	if (sim_online[cpu]) {
		if (sim_online_count() < 2)
			return;
		sim_online[cpu] = false;
		{
			unsigned int control = sim_pick_online(cur->r[1]);
			u64 next = sim_next_hrtimer();

			sim_online[cpu] = true;
			/*
			 * Sometimes with work under way: the clock at the next
			 * hrtimer, and only part of what is due run (a pass
			 * that stopped with timers on its due list, a BH
			 * continuation queued on the CPU that goes).
			 */
			if (cur->r[2] % 2 && next != U64_MAX && next - sim_now < 100 * cfg.tick[0] &&
			    !sim_runnable()) {
				unsigned int k = cur->r[2] % 3;

				sim_now = max(sim_now, next);
				while (k-- && sim_run_one())
					;
			}
			if (cfg.verbose)
				printf("  CPU %u down (control %u), %u runnable\n", cpu, control, sim_runnable());
			sim_cpu_down(cpu, control);
		}
	} else {
		sim_cpu_up(cpu, sim_pick_online(cur->r[1]));
	}
}

/* ---- time --------------------------------------------------------------------------------------- */

/*
 * A suspend: CLOCK_BOOTTIME jumps, CLOCK_MONOTONIC does not. What was due
 * on a boottime clock during it comes at the resume: the model counts it
 * as armed then.
 */
static void op_suspend(void)
{
	u64 len = cur->r[0] % (cur->r[0] % 3 ? 200 * cfg.tick[0] : 60 * NSEC_PER_SEC), boot;
	unsigned int i, k;

	sim_drain();
	sim_boot_off += len;
	boot = ktime_get_boottime_ns();
	for (i = 0; i < MAX_FILES; i++) {
		if (!files[i].open || !files[i].boottime)
			continue;
		for (k = 0; k < files[i].nto; k++)
			if (files[i].to[k].deadline < boot)
				files[i].to[k].armed_at = max(files[i].to[k].armed_at, boot);
	}
	for (i = 0; i < MAX_ATIMERS; i++) {
		struct atimer *a = &atimers[i];

		if (a->pending && (wheels[a->wheel].c.flags & HWTIMER_WHEEL_BOOTTIME) && a->deadline < boot)
			a->armed_at = max(a->armed_at, boot);
	}
}

static void op_advance(void)
{
	u64 r = cur->r[0], next = sim_next_hrtimer(), t;

	switch (r % 6) {
	case 0:		/* to the next hrtimer */
		t = next == U64_MAX ? sim_now + 1000 : next;
		break;
	case 1:		/* a little */
		t = sim_now + (r >> 8) % (2 * cfg.tick[1]);
		break;
	case 2:		/* a few ticks of the default precision */
		t = sim_now + (r >> 8) % (70 * cfg.tick[0]);
		break;
	case 3:		/* far: a level-1 revolution */
		t = sim_now + (r >> 8) % (5000 * cfg.tick[0]);
		break;
	default:	/* just past the next hrtimer */
		t = next == U64_MAX ? sim_now + 1 : next + (r >> 8) % 3;
		break;
	}
	sim_advance_to(max(t, sim_now));
}

/*
 * The clock reaches the next hrtimer, which has expired but not run: its
 * softirq is pending when the next operation begins (on this CPU or
 * another), as on a machine where a system call runs between a timer's
 * interrupt and its softirq; mostly an ARM batch comes at once. The next
 * operation that moves the clock runs it.
 */
static void op_advance_due(void)
{
	u64 next = sim_next_hrtimer();

	if (next == U64_MAX || next >= KTIME_MAX - 1)
		return;
	sim_advance_to(next - 1);
	if (sim_next_hrtimer() != next)
		return;
	sim_now = next;
	/* Mostly a batch before that softirq: what a due driver must survive. */
	if (cur->r[3] % 4)
		op_arm();
}

static void op_run(void)
{
	unsigned int n = 1 + cur->r[0] % 4;

	while (n-- && sim_run_one())
		;
}

/* ---- a close racing an expiry pass ------------------------------------------------------ */

/*
 * hwtd_release() (hwtimer_dev.c) begins with hwtd_wheel_stop(): it sets
 * @closing under the file lock, then shuts the driving timers down
 * (hwtimer_shutdown_sync(), which waits for a callback running), then
 * cancel_work_sync() waits for the pass's work item. A pass on another
 * CPU can find @closing set at any hold of the file lock after the first:
 * between two of its holds, the closing task's first part runs; if the
 * pass is in its work item, the timers' shutdown completes too (their
 * callbacks are not running), and only cancel_work_sync() waits for it.
 * Or the close begins with no pass under way, and the driving timer fires
 * before its shutdown. Either way, from the moment @closing is set, no
 * pass may do any work (hwtd_pass_holds() stops at its next hold,
 * hwtd_wheel_pass_begin() begins none) nor arm a driving timer already
 * shut down (hwtd_arm_timer()).
 */
enum { CP_NONE, CP_CLOSING };

static struct {
	struct mfile	*f;
	int		state;
	bool		busy;		/* the closing task runs */
	bool		shutdown;	/* and shut the timers down */
	u64		snap;		/* what the file held when it began closing */
} cp;

/* What a pass changes: the wheel's clock, the timeouts, the queue. */
static u64 cp_digest(void)
{
	struct hwtd_file *k = cp.f->k;
	u64 h = k->clk * 31 + k->cascaded;
	unsigned int i;

	h = h * 31 + k->nlive;
	h = h * 31 + k->nqueued;
	for (i = 0; i < cp.f->nto; i++) {
		struct hwtd_timeout *s = hwtd_timeout_find(k, (u32)cp.f->to[i].id);

		if (s)
			h = (h * 31 + s->state) * 31 + s->deadline + s->tick;
	}
	return h;
}

/* The closing task's first part: hwtd_wheel_stop() up to cancel_work_sync(). */
static void cp_begin_close(void *arg)
{
	struct hwtd_file *k = cp.f->k;
	unsigned int p, c;

	cp.busy = true;
	/* The user unmaps the ring and closes: the last fput() calls release(). */
	if (cp.f->ring_addr) {
		observe_ring(cp.f);
		sim_uunmap(cp.f->ring_addr);
	}
	cp.f->ring_addr = 0;
	spin_lock_irq(&k->lock);
	k->closing = true;
	spin_unlock_irq(&k->lock);
	if (cp.shutdown)
		for (p = 0; p < HWTD_PRECISIONS; p++)
			for (c = 0; c < HWTD_CLOCKS; c++)
				hwtimer_shutdown_sync(&k->timers[p][c].timer);
	cp.busy = false;
	cp.state = CP_CLOSING;
	cp.snap = cp_digest();
	if (cfg.verbose)
		printf("  file %ld begins closing%s\n", cp.f - files,
		       cp.shutdown ? ", its driving timers shut down" : "");
}

static void cp_check(const char *when)
{
	check(cp.state != CP_CLOSING || cp_digest() == cp.snap,
	      "file %ld: an expiry pass went on after the file began closing (%s)", cp.f - files, when);
}

/* At the releases of the file lock: by a pass of the file, the close may begin. */
static void close_pass_hook(struct sim_lock *l)
{
	struct hwtd_file *k = cp.f->k;

	if (l != &k->lock || cp.busy)
		return;
	if (cp.state == CP_CLOSING) {
		cp_check("at a release of the file lock");
		return;
	}
	if (!k->processing || sim_nested())
		return;
	/* The pass runs in its work item, or in its driving timer's callback. */
	if (sim_work_running(&k->work) && sim_rng_chance(&sim_mrng, 1, 2))
		cp.shutdown = true;
	else if (sim_softirq && sim_rng_chance(&sim_mrng, 1, 4))
		cp.shutdown = false;
	else
		return;
	sim_other_task(user_cpu(cur->r[1]), cp_begin_close, NULL);
}

/* More than two holds' worth (HWTD_HOLD_MAX) of timeouts due on one tick. */
static void cp_burst(struct mfile *f)
{
	struct hwtimer_arm_entry e[150];
	unsigned int n = min(130 + cur->r[1] % 21, MAX_TO - f->nto), i;
	u64 d = f->tick * (1 + (cur->r[1] >> 8) % 3);

	if (n < 2 * HWTD_HOLD_MAX)
		return;
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		e[i].cookie = cur_op << 8 | i;
		e[i].expires_ns = d + (cur->r[1] >> 16) % f->tick;
	}
	run_batch(f, HWTIMER_IOC_ARM, e, n, sizeof(e[0]), HWTIMER_BATCH_CONTINUE);
	/* And as many again on the same tick, sometimes. */
	n = min(n, MAX_TO - f->nto);
	if (cur->r[1] % 3 == 0 && n >= 2 * HWTD_HOLD_MAX)
		run_batch(f, HWTIMER_IOC_ARM, e, n, sizeof(e[0]), HWTIMER_BATCH_CONTINUE);
}

static void op_close_pass(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtd_file *k;
	unsigned int i;
	u64 jitter;
	int ret;

	if (!f)
		return;
	k = f->k;
	/* Mostly, a burst on one tick first: a pass of many holds. */
	if (cur->r[1] % 4)
		cp_burst(f);
	memset(&cp, 0, sizeof(cp));
	cp.f = f;
	close_pass_jitter = true;
	sim_unlock_hook = close_pass_hook;
	/* Sometimes slow CPUs: the pass goes on in its work item, slice by slice. */
	jitter = sim_local_jitter;
	if (cur->r[1] % 8 < 3)
		sim_local_jitter = max_t(u64, jitter, 2 * HWTIMER_PASS_NS);
	/* A pass of the file: its continuation, or one its driving timer begins. */
	for (i = 0; i < 8 && cp.state == CP_NONE; i++) {
		u64 next = sim_next_hrtimer();

		if (sim_run_work_now(&k->work))
			continue;
		if (next == U64_MAX || next > sim_now + 64 * f->tick)
			break;
		sim_advance_to(max(next, sim_now));
	}
	if (cp.state == CP_NONE) {
		/* No pass under way: the close begins, and the driving timer may fire. */
		cp.shutdown = false;
		sim_other_task(user_cpu(cur->r[1]), cp_begin_close, NULL);
		if (hwtimer_pending(k->timer) && cur->r[2] % 2) {
			u64 t = hwt_tick_start(&k->time, k->armed);

			if (k->boottime)
				t = t > sim_boot_off ? t - sim_boot_off : 0;
			if (t <= sim_now + 64 * f->tick)
				sim_advance_to(max(t + 2 * f->tick, sim_now));
		}
	}
	sim_unlock_hook = NULL;
	sim_local_jitter = jitter;
	close_pass_jitter = false;
	cp_check("when the closing task went on");
	if (cp.shutdown)
		for (i = 0; i < HWTD_PRECISIONS * HWTD_CLOCKS; i++)
			check(!hwtimer_pending(&k->timers[i / HWTD_CLOCKS][i % HWTD_CLOCKS].timer),
			      "file %ld: a driving timer armed after its shutdown", f - files);
	ret = FCALL(user_cpu(cur->r[1]), fops->release(&the_inode, &f->filp));
	check(ret == 0, "release() returned %d", ret);
	f->open = false;
	f->nto = 0;
	check_no_files_left();
}

/*
 * Periodic load: more than two holds' worth of periodic timeouts due on
 * one tick a few ticks ahead, of periods of one to three ticks, on one
 * file: passes of several holds, which go on in the work item, every
 * period for as long as their records leave.
 */
static void op_pflood(void)
{
	struct mfile *f = pick_file(cur->r[0]);
	struct hwtimer_arm_entry e[150];
	unsigned int n, i;

	if (!f)
		return;
	n = 2 * HWTD_HOLD_MAX + cur->r[1] % (ARRAY_SIZE(e) - 2 * HWTD_HOLD_MAX + 1);
	n = min(n, MAX_TO - f->nto);
	if (!n)
		return;
	memset(e, 0, sizeof(e));
	for (i = 0; i < n; i++) {
		e[i].cookie = cur_op << 8 | i;
		e[i].expires_ns = (cur->r[2] % 4) * f->tick;
		e[i].period_ns = f->tick * (1 + (cur->r[3] >> (i % 32)) % 3);
	}
	run_batch(f, HWTIMER_IOC_ARM, e, n, sizeof(e[0]), HWTIMER_BATCH_CONTINUE);
}

/* ---- the ends of a wheel's time: before its epoch, past its last tick ----------------------- */

/*
 * A wheel's epoch is the time it was created (hwtimer_wheel_create(): "the
 * wheel's epoch is now"): its tick 0 holds every deadline up to it, and its
 * ticks from max_tick on begin at KTIME_MAX (struct hwt_time). Two
 * operations arm API timers at those ends, with ABS deadlines: api_past
 * before the epoch, with a slack that ends before it too, so the timer
 * fires at the next tick (include/linux/hwtimer.h: "a deadline already
 * past fires at the next tick (or at a later one within the slack)", and
 * no later tick is); api_far within a tick of KTIME_MAX, with a slack
 * that reaches past it, so the wheel may pick a tick after max_tick. And
 * after a base's hrtimer ran its pass, the model checks that the pass
 * armed it for later than now unless something is due now: the far
 * future costs nothing per tick (hwtimer_wheel.h).
 */
static u64 wheel_epoch[MAX_WHEELS];	/* the wheel's clock when it was created */

static void ends_setup(void)
{
	unsigned int i;

	for (i = 0; i < nwheels; i++)
		wheel_epoch[i] = wheels[i].w ? wheel_now(&wheels[i]) : 0;
}

/*
 * The far future costs nothing per tick (hwtimer_wheel.h): a base's
 * hrtimer, armed by a pass that ended or by a start, is armed for later
 * than now, or for KTIME_MAX (where every tick from max_tick on begins),
 * unless something is due now.
 */
static void check_base_not_past(struct hwt_base *base, const char *how)
{
	struct hwtimer_wheel *w = base->wheel;
	u64 now = (w->flags & HWTIMER_WHEEL_BOOTTIME) ? ktime_get_boottime_ns() : ktime_get_ns();
	u64 ev;

	if (!sim_hrtimer_queued(&base->hrt) || base->processing || base->offline ||
	    (u64)base->hrt.expires > now || base->hrt.expires == KTIME_MAX)
		return;
	if (!hlist_empty(&base->due) || base->cascading)
		return;
	ev = hwt_next_event(&w->geom, base->pending_map, base->clk);
	check(ev != U64_MAX && now >= w->time.epoch_ns &&
	      ev <= (now - w->time.epoch_ns) / w->time.tick_ns,
	      "wheel %s: %s armed base %u's hrtimer for %lld, not after now %llu, with nothing due (next event tick %llu, max_tick %llu): the far future costs nothing per tick",
	      w->name, how, base->cpu, (long long)base->hrt.expires, now, ev, w->time.max_tick);
}

/* A base's hrtimer ran its pass. */
static void base_pass_done(struct hrtimer *t)
{
	check_base_not_past(container_of(t, struct hwt_base, hrt), "a pass");
}

static int ends_arm(struct atimer *a, bool modify, u64 deadline, u64 slack, u64 r)
{
	struct sim_ctx s = sim_enter(user_cpu(r), r % 5 == 0);
	int ret;

	if (modify)
		ret = hwtimer_modify_range(&a->t, deadline, slack, HWTIMER_MODE_ABS);
	else
		ret = hwtimer_start_range(&a->t, deadline, slack, HWTIMER_MODE_ABS);
	sim_check_clean("hwtimer_start/modify");
	sim_leave(s);
	return ret;
}

/* An ABS deadline before the wheel's epoch, its slack ending before it too. */
static void op_api_past(void)
{
	struct atimer *a = &atimers[cur->r[0] % MAX_ATIMERS];
	u64 epoch = wheel_epoch[a->wheel], now, deadline, slack;
	bool modify = a->pending && cur->r[3] % 2;
	int ret;

	if (!wheels[a->wheel].w || epoch < 2)
		return;
	now = wheel_now(&wheels[a->wheel]);
	deadline = cur->r[1] % (epoch - 1);
	slack = 1 + cur->r[2] % (epoch - 1 - deadline);
	ret = ends_arm(a, modify, deadline, slack, cur->r[3]);
	/* The slack window ended before now: the next tick, as a slack of 0 has it. */
	api_armed(a, modify, ret, deadline, 0, now);
}

/* An ABS deadline within a tick of KTIME_MAX, with a slack past it. */
static void op_api_far(void)
{
	struct atimer *a = &atimers[cur->r[0] % MAX_ATIMERS];
	struct mwheel *mw = &wheels[a->wheel];
	bool modify = a->pending && cur->r[3] % 2;
	u64 deadline, slack, before;
	struct hwt_base *base;
	struct sim_ctx s;
	int ret;

	if (!mw->w)
		return;
	deadline = (u64)KTIME_MAX - cur->r[1] % mw->tick;
	switch (cur->r[2] % 4) {
	case 0:
		slack = KTIME_MAX;
		break;
	case 1:
		slack = mw->tick * (1 + (cur->r[2] >> 8) % 64);
		break;
	default:
		slack = 1ULL << (30 + (cur->r[2] >> 8) % 33);
		break;
	}
	base = per_cpu_ptr(mw->w->bases, user_cpu(cur->r[3]));
	/* An hrtimer expired before the start, its softirq pending (advance_due), is not its. */
	before = sim_hrtimer_queued(&base->hrt) ? (u64)base->hrt.expires : U64_MAX;
	ret = ends_arm(a, modify, deadline, slack, cur->r[3]);
	api_armed(a, modify, ret, deadline, slack, wheel_now(mw));
	if (!a->pending)
		return;
	if (!sim_hrtimer_queued(&base->hrt) || (u64)base->hrt.expires != before)
		check_base_not_past(base, "a start");
	/*
	 * Not left for the clock to reach: at KTIME_MAX a tick past max_tick
	 * has begun (hwt_tick_start()) but is not due (hwt_now_tick()), and
	 * the base's hrtimer, armed for KTIME_MAX, would fire for ever (a
	 * clock the kernel never reaches; the machine's can).
	 */
	s = sim_enter(user_cpu(cur->r[3]), 0);
	ret = hwtimer_cancel(&a->t);
	sim_check_clean("hwtimer_cancel");
	sim_leave(s);
	check(ret == 1, "API timer %ld: cancel of a far timer returned %d", a - atimers, ret);
	a->pending = false;
	mw->pending--;
}

/* ---- the ring's stores, in the order the kernel makes them -------------------------------- */

/*
 * hwtimer(4)'s ring: the kernel stores the tail with release semantics,
 * and a consumer loads it with acquire semantics; hwtd_ring_publish()
 * sets a HWTIMER_RING_OVERFLOW before the tail, so that a consumer that
 * loaded the new tail and emptied the ring sees the flag and takes the
 * kernel queue's records. A run makes the kernel's stores one after the
 * other, in program order (the shims tell each marked store,
 * sim_store_hook): at a store-release of a tail, the ring's words hold
 * exactly what a consumer that loads that tail with acquire semantics is
 * guaranteed to see (later stores it may or may not see yet). So at each
 * store of a ring's tail the model checks that it is a release, and that
 * the flags word already shows HWTIMER_RING_OVERFLOW if records wait in
 * the kernel queue.
 */
static struct {
	const volatile void	*tail;	/* the kernel's address of the ring's tail, NULL: none */
	u64			seq;	/* of the open it is of */
} ring_words[MAX_FILES];

/* The rings mapped so far: their words, as the kernel writes them (vmap()ed pages). */
static void ring_words_update(void)
{
	unsigned int i;

	for (i = 0; i < MAX_FILES; i++) {
		struct mfile *f = &files[i];

		ring_words[i].tail = f->open && f->ring_addr ?
				     sim_uaddr(f->ring_addr + f->rp.tail_off, 4) : NULL;
		ring_words[i].seq = f->seq;
	}
}

static void ring_store(const volatile void *p, bool release)
{
	unsigned int i;
	u32 flags;

	/* Not in a close: the ring goes, and its memory may be another's. */
	if (!cur || cur->kind == OP_CLOSE)
		return;
	for (i = 0; i < MAX_FILES; i++) {
		struct mfile *f = &files[i];

		if (p != ring_words[i].tail || !f->open || f->seq != ring_words[i].seq)
			continue;
		check(release, "file %u: the ring's tail stored without release semantics", i);
		sim_uread(f->ring_addr + f->rp.flags_off, &flags, 4);
		check(!f->k->nqueued || (flags & HWTIMER_RING_OVERFLOW),
		      "file %u: ring tail published (release) with %lu records in the kernel queue and flags %#x before it: a consumer that loads the tail (acquire) need not see HWTIMER_RING_OVERFLOW",
		      i, f->k->nqueued, flags);
	}
}

/* ---- a run ---------------------------------------------------------------------------------------- */

static void gen_ops(struct op *ops, unsigned int n)
{
	unsigned int total = 0, i, k;

	for (k = 0; k < OP_NKINDS; k++)
		total += op_weight[k];
	for (i = 0; i < n; i++) {
		u64 w = sim_rng_below(&orng, total);

		for (k = 0; w >= op_weight[k]; k++)
			w -= op_weight[k];
		ops[i].kind = k;
		for (w = 0; w < 4; w++)
			ops[i].r[w] = sim_rng_next(&orng);
	}
}

static void (*const op_fn[OP_NKINDS])(void) = {
	[OP_ADVANCE] = op_advance, [OP_RUN] = op_run, [OP_OPEN] = op_open, [OP_CLOSE] = op_close,
	[OP_CONFIG] = op_config, [OP_RING] = op_ring, [OP_ARM] = op_arm, [OP_MODIFY] = op_modify,
	[OP_CANCEL] = op_cancel, [OP_GET] = op_get, [OP_READ] = op_read, [OP_DRAIN] = op_drain,
	[OP_INFO] = op_info, [OP_POLL] = op_poll, [OP_CPU] = op_cpu, [OP_SUSPEND] = op_suspend,
	[OP_CLOSE_PASS] = op_close_pass, [OP_DRAIN_POLL] = op_drain_poll, [OP_FLOOD] = op_flood,
	[OP_PFLOOD] = op_pflood, [OP_API_PAST] = op_api_past, [OP_API_FAR] = op_api_far,
	[OP_ADVANCE_DUE] = op_advance_due,
};

static void unprocessed(struct hwtimer *t, void *arg)
{
	struct atimer *a = container_of(t, struct atimer, t);

	check(a->pending, "destroy handed back API timer %ld, which is not pending", a - atimers);
	a->pending = false;
	wheels[a->wheel].pending--;
	(*(unsigned long *)arg)++;
}

/* The world of a seed: ticks, slots, caps, CPUs, the API's wheels. */
static void setup_world(struct sim_rng *wr)
{
	static const u64 ticks[] = { 10000, 100000, 1000000, 10000000, 3000000, 250000 };
	unsigned int i;

	sim_ncpus = 2 + sim_rng_below(wr, 3);
	for (i = 0; i < HWTD_PRECISIONS; i++) {
		cfg.tick[i] = ticks[sim_rng_below(wr, ARRAY_SIZE(ticks))] + sim_rng_below(wr, 3) * 1000;
		cfg.slots[i] = 16u << sim_rng_below(wr, 9);
	}
	cfg.file_cap = sim_rng_chance(wr, 1, 3) ? 1 + sim_rng_below(wr, 40) : 262144;
	cfg.user_cap = sim_rng_chance(wr, 1, 3) ? 1 + sim_rng_below(wr, 60) : 524288;
	cfg.global_cap = sim_rng_chance(wr, 1, 4) ? 1 + sim_rng_below(wr, 80) : 1048576;
	cfg.max_pending = sim_rng_chance(wr, 1, 4) ? 1 + sim_rng_below(wr, 40) : 0;
	/* local_clock() per reading: still, a little, or past a pass's budget (HWTIMER_PASS_NS) at once. */
	switch (sim_rng_below(wr, 4)) {
	case 0:
		sim_local_jitter = 0;
		break;
	case 1:
	case 2:
		sim_local_jitter = sim_rng_below(wr, 400000);
		break;
	default:
		sim_local_jitter = 500000 + sim_rng_below(wr, 3000000);
		break;
	}
	sim_fault_rate = cfg.faults ? 1 + sim_rng_below(wr, 300) : 0;
	/* Time namespaces, half the seeds: one ahead of the host's clocks, one behind. */
	memset(ns_off, 0, sizeof(ns_off));
	if (sim_rng_chance(wr, 1, 2)) {
		ns_off[1][0] = sim_rng_below(wr, 1000 * NSEC_PER_SEC);
		ns_off[1][1] = sim_rng_below(wr, 1000 * NSEC_PER_SEC);
		ns_off[2][0] = -(s64)sim_rng_below(wr, sim_now / 2);
		ns_off[2][1] = -(s64)sim_rng_below(wr, sim_now / 2);
	}
}

static void load_module(void)
{
	check(sim_set_param("tick_ns", cfg.tick[0]) && sim_set_param("slots", cfg.slots[0]) &&
	      sim_set_param("fine_tick_ns", cfg.tick[1]) && sim_set_param("fine_slots", cfg.slots[1]) &&
	      sim_set_param("coarse_tick_ns", cfg.tick[2]) &&
	      sim_set_param("coarse_slots", cfg.slots[2]) &&
	      sim_set_param("file_cap", cfg.file_cap) && sim_set_param("user_cap", cfg.user_cap) &&
	      sim_set_param("global_cap", cfg.global_cap) &&
	      sim_set_param("max_pending", cfg.max_pending), "a module parameter is missing");
	check(sim_module_init() == 0, "module init failed");
	fops = sim_misc_fops();
	check(fops, "no device registered");
}

static void create_wheels(struct sim_rng *wr)
{
	unsigned int i;

	nwheels = 1 + sim_rng_below(wr, MAX_WHEELS);
	for (i = 0; i < nwheels; i++) {
		struct mwheel *mw = &wheels[i];

		memset(mw, 0, sizeof(*mw));
		if (i == 0) {
			mw->w = hwtimer_default_wheel();
			mw->c.slack_ns = 0;
			mw->c.max_pending = cfg.max_pending;
		} else {
			snprintf(mw->name, sizeof(mw->name), "sim%u", i);
			mw->c.name = mw->name;
			mw->c.tick_ns = 10000 * (1 + sim_rng_below(wr, 1000));
			mw->c.slots = 16 + sim_rng_below(wr, 1000);
			mw->c.flags = sim_rng_below(wr, 4);
			mw->c.max_pending = sim_rng_chance(wr, 1, 3) ? 1 + sim_rng_below(wr, 30) : 0;
			mw->c.slack_ns = sim_rng_chance(wr, 1, 3) ? sim_rng_below(wr, 20 * mw->c.tick_ns) : 0;
			mw->w = hwtimer_wheel_create(&mw->c);
			check(!IS_ERR(mw->w), "hwtimer_wheel_create(%s) failed: %ld", mw->name, PTR_ERR(mw->w));
		}
		mw->tick = hwtimer_wheel_tick_ns(mw->w);
		if (i == 0)
			mw->c.flags = 0;
	}
	for (i = 0; i < MAX_ATIMERS; i++) {
		memset(&atimers[i], 0, sizeof(atimers[i]));
		atimers[i].wheel = i % nwheels;
		hwtimer_setup(&atimers[i].t, wheels[atimers[i].wheel].w, atimer_fn);
	}
}

static void destroy_wheels(void)
{
	unsigned int i;

	for (i = 0; i < MAX_ATIMERS; i++) {
		if (atimers[i].pending && i % 2)
			check(hwtimer_cancel_sync(&atimers[i].t) == 1, "cancel_sync at the end");
		if (atimers[i].pending && i % 2) {
			atimers[i].pending = false;
			wheels[atimers[i].wheel].pending--;
		}
	}
	for (i = 0; i < MAX_ATIMERS; i++) {
		if (atimers[i].pending && atimers[i].wheel == 0) {
			check(hwtimer_cancel(&atimers[i].t) == 1, "cancel at the end");
			atimers[i].pending = false;
			wheels[0].pending--;
		}
	}
	for (i = 0; i < nwheels; i++) {
		struct hwtimer_stats st;
		unsigned long fired = 0, k;

		for (k = 0; k < MAX_ATIMERS; k++)
			if (atimers[k].wheel == i)
				fired += atimers[k].fired;
		hwtimer_wheel_stats(wheels[i].w, &st);
		check(!st.early && st.fired == fired && st.pending == wheels[i].pending,
		      "wheel %u stats: early %llu, fired %llu pending %llu, the model %lu and %lu", i,
		      st.early, st.fired, st.pending, fired, wheels[i].pending);
	}
	for (i = 1; i < nwheels; i++) {
		unsigned long n = 0, expect = wheels[i].pending, got;

		got = hwtimer_wheel_destroy(wheels[i].w, unprocessed, &n);
		check(got == expect && n == expect && !wheels[i].pending,
		      "destroy of %s handed back %lu (returned %lu), the model %lu pending", wheels[i].name,
		      n, got, expect);
		wheels[i].w = NULL;
	}
}

/* One run: @keep (NULL: all) says which of the seed's operations run. */
static unsigned long run(u64 seed, unsigned int nops, const unsigned char *keep, unsigned long *failed_at)
{
	struct sim_rng wr = { seed * 0x9e3779b97f4a7c15ULL + 1 };
	struct op *ops = calloc(nops, sizeof(*ops));
	unsigned long done = 0, i;
	unsigned int k;

	orng.s = seed ^ 0xa5a5a5a5deadbeefULL;
	gen_ops(ops, nops);
	sim_reset(seed);
	memset(&cfg.tick, 0, sizeof(cfg.tick));
	setup_world(&wr);
	slow_pass_setup(seed);
	memset(files, 0, sizeof(files));
	*failed_at = ULONG_MAX;
	cur_op = ULONG_MAX;
	load_module();
	create_wheels(&wr);
	ends_setup();
	sim_faults = cfg.faults;
	sim_after_item = after_item;
	sim_unlock_watch = pass_watch;
	sim_work_begin_hook = pass_work_begins;
	sim_hrtimer_done_hook = base_pass_done;
	sim_store_hook = ring_store;
	memset(ring_words, 0, sizeof(ring_words));
	for (i = 0; i < nops; i++) {
		if (keep && !keep[i])
			continue;
		cur_op = i;
		cur = &ops[i];
		*failed_at = i;
		sim_step_name = op_names[cur->kind];
		set_task_ns((cur->r[3] >> 40) % NNS);
		ring_words_update();
		if (cfg.verbose)
			printf("op %lu: %s at %llu\n", i, op_names[cur->kind], sim_now);
		switch (cur->kind) {
		case OP_API_START:
			op_api_arm(false);
			break;
		case OP_API_MODIFY:
			op_api_arm(true);
			break;
		case OP_API_CANCEL:
			op_api_cancel();
			break;
		case OP_API_BURST:
			op_api_burst();
			break;
		default:
			op_fn[cur->kind]();
		}
		check_all(cur->kind == OP_ADVANCE, -1);
		done++;
	}
	/* The end: close everything, let what is left run, destroy, unload. */
	*failed_at = ULONG_MAX;
	sim_step_name = "teardown";
	sim_faults = false;
	for (k = 0; k < MAX_FILES; k++) {
		static struct op close_op = { .kind = OP_CLOSE };

		if (!files[k].open)
			continue;
		cur = &close_op;
		close_op.r[0] = 0;
		op_close();
	}
	for (k = 0; k < sim_ncpus; k++)
		if (!sim_online[k])
			sim_cpu_up(k, sim_pick_online(k));
	destroy_wheels();
	sim_drain();
	check(!atomic_long_read(&hwtd_count), "global count %ld after every file closed",
	      atomic_long_read(&hwtd_count));
	sim_after_item = NULL;
	sim_unlock_watch = NULL;
	sim_work_begin_hook = NULL;
	sim_hrtimer_done_hook = NULL;
	sim_store_hook = NULL;
	sim_module_exit();
	sim_teardown_check();
	free(ops);
	return done;
}

/* ---- the driver: seeds in child processes, shrinking on failure ---------------------------------- */

struct result {
	bool		failed;
	unsigned long	ops;
	unsigned long	failed_at;
	char		msg[512];
};

/*
 * Run in a child: the module's static state starts clean each time, and a
 * crash is a failure like any other. Started by run_start(), collected by
 * run_wait(); run_child() does both.
 */
struct child {
	pid_t	pid;
	int	fd;
	u64	seed;
	bool	faults;
};

static struct child run_start(u64 seed, bool faults, unsigned int nops, const unsigned char *keep)
{
	struct child c = { .seed = seed, .faults = faults };
	int fd[2];

	if (pipe(fd))
		exit(3);
	fflush(stdout);
	c.pid = fork();
	if (c.pid < 0)
		exit(3);
	if (!c.pid) {
		struct result res = { };
		jmp_buf jb;

		close(fd[0]);
		cfg.faults = faults;
		sim_fail_jmp = &jb;
		if (setjmp(jb)) {
			res.failed = true;
			snprintf(res.msg, sizeof(res.msg), "%s", sim_fail_msg);
		} else {
			res.ops = run(seed, nops, keep, &res.failed_at);
		}
		fflush(stdout);
		if (write(fd[1], &res, sizeof(res)) != sizeof(res))
			_exit(3);
		exit(0);	/* atexit handlers: coverage data */
	}
	close(fd[1]);
	c.fd = fd[0];
	return c;
}

static struct result run_wait(struct child *c)
{
	struct result res = { };
	int st = 0;

	if (read(c->fd, &res, sizeof(res)) != sizeof(res)) {
		waitpid(c->pid, &st, 0);
		res.failed = true;
		res.failed_at = ULONG_MAX;
		snprintf(res.msg, sizeof(res.msg), "crashed (%s %d)",
			 WIFSIGNALED(st) ? "signal" : "exit", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	} else {
		waitpid(c->pid, NULL, 0);
	}
	close(c->fd);
	return res;
}

static struct result run_child(u64 seed, unsigned int nops, const unsigned char *keep)
{
	struct child c = run_start(seed, cfg.faults, nops, keep);

	return run_wait(&c);
}

/* Keep lists: "3,5-9,12". */
static void print_keep(FILE *out, const unsigned char *keep, unsigned int n)
{
	unsigned int i, j;
	bool first = true;

	for (i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		for (j = i; j + 1 < n && keep[j + 1]; j++)
			;
		fprintf(out, "%s%u", first ? "" : ",", i);
		if (j > i)
			fprintf(out, "-%u", j);
		first = false;
		i = j;
	}
}

static unsigned char *parse_keep(const char *s, unsigned int n)
{
	unsigned char *keep = calloc(n, 1);

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (; a <= b && a < n; a++)
			keep[a] = 1;
		s = *end ? end + 1 : end;
	}
	return keep;
}

/* Two failures are the same when their messages agree up to the first number. */
static bool same_failure(const char *a, const char *b)
{
	size_t n = strcspn(b, "0123456789");

	return !strncmp(a, b, n);
}

/* Delta debugging: drop chunks of operations while the run still fails the same way. */
static unsigned char *shrink(u64 seed, unsigned int nops, unsigned long failed_at, unsigned int budget,
			     const char *want)
{
	unsigned int n = failed_at == ULONG_MAX ? nops : failed_at + 1, chunk, i, j, tries = 0;
	unsigned char *keep = calloc(nops, 1);
	bool progress;

	memset(keep, 1, n);
	for (chunk = n / 2; chunk >= 1; chunk = progress ? chunk : chunk / 2) {
		progress = false;
		for (i = 0; i < n && tries < budget; i += chunk) {
			unsigned char save[4096];
			unsigned int len = min(chunk, n - i), kept = 0;
			struct result r;

			if (len > sizeof(save))
				len = sizeof(save);
			for (j = 0; j < len; j++)
				kept += keep[i + j];
			if (!kept)
				continue;
			memcpy(save, keep + i, len);
			memset(keep + i, 0, len);
			tries++;
			r = run_child(seed, nops, keep);
			if (r.failed && same_failure(r.msg, want))
				progress = true;
			else
				memcpy(keep + i, save, len);
		}
		if (tries >= budget || (!progress && chunk == 1))
			break;
	}
	return keep;
}

static void print_ops(u64 seed, unsigned int nops, const unsigned char *keep)
{
	struct op *ops = calloc(nops, sizeof(*ops));
	unsigned int i;

	orng.s = seed ^ 0xa5a5a5a5deadbeefULL;
	gen_ops(ops, nops);
	for (i = 0; i < nops; i++)
		if (keep[i])
			printf("  op %u: %s %#llx %#llx %#llx %#llx\n", i, op_names[ops[i].kind],
			       ops[i].r[0], ops[i].r[1], ops[i].r[2], ops[i].r[3]);
	free(ops);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: sim [--seed N] [--seeds K] [--ops M] [--faults | --faults-every F] [--jobs J]\n"
		"           [--keep LIST] [--verbose] [--all] [--no-shrink] [--shrink-budget B]\n"
		"           [--no-invariant]\n"
		"  runs seeds N .. N+K-1, M operations each, J at a time; with fault injection\n"
		"  (allocations, user copies, pinning) for all seeds or every F-th; stops at the\n"
		"  first failure unless --all, and shrinks it to a replayable --keep LIST of the\n"
		"  seed's operations (--verbose prints what each operation did); --no-invariant\n"
		"  checks only the promises, not the driver invariant read from the structures\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' }, { "seeds", required_argument, NULL, 'n' },
		{ "ops", required_argument, NULL, 'o' }, { "faults", no_argument, NULL, 'f' },
		{ "keep", required_argument, NULL, 'k' }, { "all", no_argument, NULL, 'a' },
		{ "no-shrink", no_argument, NULL, 'x' }, { "verbose", no_argument, NULL, 'v' },
		{ "shrink-budget", required_argument, NULL, 'b' }, { "jobs", required_argument, NULL, 'j' },
		{ "faults-every", required_argument, NULL, 'F' },
		{ "no-invariant", no_argument, NULL, 'I' }, { }
	};
	u64 seed = 1, nseeds = 1000, next, fail_seed = U64_MAX;
	struct child kids[16];
	unsigned int nrun = 0, jobs = 2, fault_every = 0;
	struct result fail_res = { };
	bool fail_faults = false;
	unsigned char *keep = NULL;
	unsigned long passed = 0, failed = 0, total_ops = 0;
	const char *keep_arg = NULL;
	bool all = false, do_shrink = true;
	unsigned int budget = 3000;
	struct timespec t0, t1;
	double secs;
	int c;

	cfg.nops = 1000;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			nseeds = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			cfg.nops = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			cfg.faults = true;
			break;
		case 'k':
			keep_arg = optarg;
			break;
		case 'j':
			jobs = clamp(strtoul(optarg, NULL, 0), 1UL, ARRAY_SIZE(kids));
			break;
		case 'I':
			cfg.no_invariant = true;
			break;
		case 'F':
			fault_every = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			all = true;
			break;
		case 'x':
			do_shrink = false;
			break;
		case 'v':
			cfg.verbose = true;
			break;
		case 'b':
			budget = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (keep_arg) {
		keep = parse_keep(keep_arg, cfg.nops);
		nseeds = 1;
	}
	/* Seeds run @jobs at a time; the lowest failing one is reported, whatever the timing. */
	next = seed;
	while (next < seed + nseeds || nrun) {
		struct result r;
		unsigned int k;

		while (nrun < jobs && next < seed + nseeds && (all || fail_seed == U64_MAX)) {
			bool faults = cfg.faults || (fault_every && next % fault_every == 0);

			kids[nrun++] = run_start(next++, faults, cfg.nops, keep);
		}
		if (!nrun)
			break;
		r = run_wait(&kids[0]);
		if (!r.failed) {
			passed++;
			total_ops += r.ops;
		} else {
			failed++;
			if (kids[0].seed < fail_seed) {
				fail_seed = kids[0].seed;
				fail_faults = kids[0].faults;
				fail_res = r;
			}
			if (all)
				printf("FAIL seed %llu%s: %s\n", kids[0].seed, kids[0].faults ? " (faults)" : "",
				       r.msg);
		}
		for (k = 1; k < nrun; k++)
			kids[k - 1] = kids[k];
		nrun--;
	}
	if (fail_seed != U64_MAX) {
		struct result r = fail_res;

		cfg.faults = fail_faults;
		if (!all)
			printf("FAIL seed %llu%s: %s\n", fail_seed, fail_faults ? " (faults)" : "", r.msg);
		if (r.failed_at != ULONG_MAX)
			printf("  at op %lu\n", r.failed_at);
		if (!keep && do_shrink) {
			unsigned int n = 0, i;
			char want[512];

			snprintf(want, sizeof(want), "%s", r.msg);
			keep = shrink(fail_seed, cfg.nops, r.failed_at, budget, want);
			r = run_child(fail_seed, cfg.nops, keep);
			for (i = 0; i < cfg.nops; i++)
				n += keep[i];
			printf("shrunk to %u operations: %s\n", n, r.msg);
			print_ops(fail_seed, cfg.nops, keep);
			printf("replay: %s --seed %llu --ops %u%s --keep ", argv[0], fail_seed, cfg.nops,
			       fail_faults ? " --faults" : "");
			print_keep(stdout, keep, cfg.nops);
			printf(" --verbose\n");
		} else if (!keep) {
			printf("replay: %s --seed %llu --ops %u%s --verbose\n", argv[0], fail_seed, cfg.nops,
			       fail_faults ? " --faults" : "");
		}
	}
	free(keep);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("sim: %lu operations over %lu seeds in %.1f s: %.0f operations/s\n", total_ops,
	       passed + failed, secs, total_ops / (secs > 0 ? secs : 1));
	/* Seeds, counted as scripts/runner.sh counts its items. */
	printf("%lu passed, %lu failed, 0 skipped\n", passed, failed);
	return failed ? 1 : 0;
}
