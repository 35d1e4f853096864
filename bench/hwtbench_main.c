// SPDX-License-Identifier: GPL-2.0
/*
 * hwtbench: the in-kernel benchmark of hwtimer against timer_list and
 * hrtimer, run in one boot so that every figure has its anchor measured
 * under the same conditions.
 *
 * This file holds the plumbing: parameters, the benchmark's own wheel, the
 * timer callbacks, the per-CPU worker kthreads and the results buffer. The
 * benchmarks themselves are in hwtbench_kernel.c.
 *
 * Use (bench/guest.sh does this):
 *
 *   insmod hwtbench.ko [parameters]
 *   echo all > /sys/kernel/debug/hwtbench/run     # or one benchmark's name
 *   cat /sys/kernel/debug/hwtbench/results
 *
 * The write returns when the benchmark is done. The results are lines of
 * text (see hwtb_result()), which bench/report.pl turns into the table and
 * the JSON and CSV files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hwtbench.h"

/* ---- parameters --------------------------------------------------------- */

unsigned int hwtb_reps = 5;
module_param_named(reps, hwtb_reps, uint, 0644);
MODULE_PARM_DESC(reps, "Repetitions of the cheap measurements (default 5)");

unsigned long hwtb_calib_lines = 1UL << 20;
module_param_named(calib_lines, hwtb_calib_lines, ulong, 0644);
MODULE_PARM_DESC(calib_lines, "Cache lines the cache_miss calib row chases through (default 1048576: 64 MiB)");

unsigned long hwtb_sizes[8] = { 1000, 100000, 1000000 };
unsigned int hwtb_nsizes = 3;
module_param_array_named(sizes, hwtb_sizes, ulong, &hwtb_nsizes, 0644);
MODULE_PARM_DESC(sizes, "Timers already pending in the start+cancel and modify runs (default 1000,100000,1000000)");

unsigned long hwtb_pairs = 50000;
module_param_named(pairs, hwtb_pairs, ulong, 0644);
MODULE_PARM_DESC(pairs, "Start+cancel pairs (and modifies) per CPU per repetition (default 50000)");

unsigned long hwtb_expiry_n = 1000000;
module_param_named(expiry_n, hwtb_expiry_n, ulong, 0644);
MODULE_PARM_DESC(expiry_n, "Timers in the expiry runs (default 1000000)");

unsigned int hwtb_expiry_reps = 3;
module_param_named(expiry_reps, hwtb_expiry_reps, uint, 0644);
MODULE_PARM_DESC(expiry_reps, "Repetitions of the expiry runs (default 3)");

unsigned long hwtb_far_n = 1000000;
module_param_named(far_n, hwtb_far_n, ulong, 0644);
MODULE_PARM_DESC(far_n, "Far-future timers in the per-tick run (default 1000000)");

unsigned int hwtb_window_ms = 2000;
module_param_named(window_ms, hwtb_window_ms, uint, 0644);
MODULE_PARM_DESC(window_ms, "Length of one per-tick measuring window (default 2000)");

unsigned int hwtb_tick_reps = 3;
module_param_named(tick_reps, hwtb_tick_reps, uint, 0644);
MODULE_PARM_DESC(tick_reps, "Repetitions of the per-tick windows (default 3)");

unsigned int hwtb_idle_ms = 5000;
module_param_named(idle_ms, hwtb_idle_ms, uint, 0644);
MODULE_PARM_DESC(idle_ms, "Length of one idle window (default 5000)");

unsigned int hwtb_idle_reps = 3;
module_param_named(idle_reps, hwtb_idle_reps, uint, 0644);
MODULE_PARM_DESC(idle_reps, "Repetitions of each idle window (default 3)");

unsigned long hwtb_late_n = 100000;
module_param_named(late_n, hwtb_late_n, ulong, 0644);
MODULE_PARM_DESC(late_n, "Timers in the lateness run (default 100000)");

unsigned int hwtb_late_reps = 3;
module_param_named(late_reps, hwtb_late_reps, uint, 0644);
MODULE_PARM_DESC(late_reps, "Repetitions of the lateness run (default 3)");

unsigned int hwtb_late_revs = 2;
module_param_named(late_revs, hwtb_late_revs, uint, 0644);
MODULE_PARM_DESC(late_revs, "Delays of the lateness run spread over this many wheel revolutions (default 2)");

unsigned long hwtb_scale_pairs = 100000;
module_param_named(scale_pairs, hwtb_scale_pairs, ulong, 0644);
MODULE_PARM_DESC(scale_pairs, "Start+cancel pairs per CPU in the scaling run (default 100000)");

u64 hwtb_cycle_tick_ns = 20000;
module_param_named(cycle_tick_ns, hwtb_cycle_tick_ns, ullong, 0644);
MODULE_PARM_DESC(cycle_tick_ns, "Tick of the wheel of the cascade-cycle run, in ns (default 20000)");

unsigned int hwtb_cycle_slots;
module_param_named(cycle_slots, hwtb_cycle_slots, uint, 0644);
MODULE_PARM_DESC(cycle_slots, "Level-0 slots of the wheel of the cascade-cycle run (default 0: slots)");

u64 hwtb_tick_ns;
module_param_named(tick_ns, hwtb_tick_ns, ullong, 0444);
MODULE_PARM_DESC(tick_ns, "Tick of the benchmark wheel in ns (default 0: one jiffy, as timer_list)");

unsigned int hwtb_slots = 512;
module_param_named(slots, hwtb_slots, uint, 0444);
MODULE_PARM_DESC(slots, "Level-0 slots of the benchmark wheel (default 512)");

/* ---- the wheel and the callbacks ---------------------------------------- */

struct hwtimer_wheel *hwtb_wheel;

const char *const hwtb_fac_name[HWTB_NR_FAC] = {
	[HWTB_HWT] = "hwtimer",
	[HWTB_TL] = "timer_list",
	[HWTB_HRT] = "hrtimer",
};

DEFINE_PER_CPU(struct hwtb_pcpu, hwtb_pcpu);

/* Every callback does the same work whatever the facility. */
static __always_inline void hwtb_fire_count(void)
{
	struct hwtb_pcpu *p = this_cpu_ptr(&hwtb_pcpu);

	WRITE_ONCE(p->fired, p->fired + 1);
}

static __always_inline void hwtb_fire_expire(void)
{
	struct hwtb_pcpu *p = this_cpu_ptr(&hwtb_pcpu);
	u64 n = p->fired + 1;

	if (n == 1)
		WRITE_ONCE(p->first, ktime_get_ns());
	if (n == p->expect)
		WRITE_ONCE(p->last, ktime_get_ns());
	WRITE_ONCE(p->fired, n);
}

/* @v holds the deadline until the timer fires, its lateness afterwards. */
static __always_inline void hwtb_fire_late(s64 *v)
{
	*v = (s64)(ktime_get_ns() - (u64)*v);
	hwtb_fire_count();
}

void hwtb_cb_hwt_count(struct hwtimer *t)
{
	hwtb_fire_count();
}

void hwtb_cb_hwt_expire(struct hwtimer *t)
{
	hwtb_fire_expire();
}

void hwtb_cb_hwt_late(struct hwtimer *t)
{
	hwtb_fire_late(&container_of(t, struct hwtb_hwt, t)->v);
}

void hwtb_cb_tl_count(struct timer_list *t)
{
	hwtb_fire_count();
}

void hwtb_cb_tl_expire(struct timer_list *t)
{
	hwtb_fire_expire();
}

void hwtb_cb_tl_late(struct timer_list *t)
{
	hwtb_fire_late(&container_of(t, struct hwtb_tl, t)->v);
}

enum hrtimer_restart hwtb_cb_hrt_count(struct hrtimer *t)
{
	hwtb_fire_count();
	return HRTIMER_NORESTART;
}

enum hrtimer_restart hwtb_cb_hrt_expire(struct hrtimer *t)
{
	hwtb_fire_expire();
	return HRTIMER_NORESTART;
}

enum hrtimer_restart hwtb_cb_hrt_late(struct hrtimer *t)
{
	hwtb_fire_late(&container_of(t, struct hwtb_hrt, t)->v);
	return HRTIMER_NORESTART;
}

/* ---- workers ------------------------------------------------------------ */

/*
 * A worker sleeps until hwtb_crew_run() bumps the generation, waits at the
 * start line until every worker of the crew is there (so they measure at
 * the same time), runs the step and reports back.
 */
static int hwtb_worker_fn(void *data)
{
	struct hwtb_worker *w = data;
	struct hwtb_crew *c = w->crew;
	unsigned long gen = 0;

	for (;;) {
		wait_event_interruptible(c->wq, kthread_should_stop() ||
					 READ_ONCE(c->gen) != gen);
		if (kthread_should_stop())
			break;
		if (READ_ONCE(c->gen) == gen)
			continue;
		/* Pairs with the smp_wmb() in hwtb_crew_run(): see the step. */
		smp_rmb();
		gen = READ_ONCE(c->gen);
		atomic_inc(&c->arrived);
		while (atomic_read(&c->arrived) < c->nr)
			cpu_relax();
		c->step(w);
		if (atomic_dec_and_test(&c->left))
			complete(&c->done);
	}
	return 0;
}

/**
 * hwtb_crew_create - start a worker on each of the first @nr online CPUs
 * @nr: number of workers, at most num_online_cpus()
 * @fac: the facility the steps drive first (the caller may change it
 *       between steps)
 *
 * Context: process context.
 * Return: the crew, or an ERR_PTR().
 */
struct hwtb_crew *hwtb_crew_create(unsigned int nr, int fac)
{
	struct hwtb_crew *c;
	unsigned int i = 0, cpu;

	c = kzalloc(struct_size(c, w, nr), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->nr = nr;
	c->fac = fac;
	init_waitqueue_head(&c->wq);
	init_completion(&c->done);
	for_each_online_cpu(cpu) {
		struct hwtb_worker *w = &c->w[i];

		if (i == nr)
			break;
		w->crew = c;
		w->cpu = cpu;
		w->idx = i;
		prandom_seed_state(&w->rnd, 0x6877746dULL + i);
		w->task = kthread_create_on_cpu(hwtb_worker_fn, w, cpu, "hwtbench/%u");
		if (IS_ERR(w->task)) {
			int ret = PTR_ERR(w->task);

			w->task = NULL;
			hwtb_crew_destroy(c);
			return ERR_PTR(ret);
		}
		wake_up_process(w->task);
		i++;
	}
	if (i < nr) {
		hwtb_crew_destroy(c);
		return ERR_PTR(-ENODEV);
	}
	return c;
}

/**
 * hwtb_crew_run - run one step on every worker of a crew and wait for it
 * @c: the crew
 * @step: the step; its parameters are in @c->arg and @c->fac
 *
 * Context: process context; sleeps until every worker is done.
 */
void hwtb_crew_run(struct hwtb_crew *c, hwtb_step_fn step)
{
	c->step = step;
	atomic_set(&c->arrived, 0);
	atomic_set(&c->left, c->nr);
	reinit_completion(&c->done);
	/* The step and its arguments are visible before the new generation. */
	smp_wmb();
	WRITE_ONCE(c->gen, c->gen + 1);
	wake_up_all(&c->wq);
	wait_for_completion(&c->done);
}

/**
 * hwtb_crew_free - cancel and free the timers of one facility
 * @c: the crew
 * @fac: the facility
 *
 * Context: process context.
 */
void hwtb_crew_free(struct hwtb_crew *c, int fac)
{
	unsigned int i;
	unsigned long k;

	for (i = 0; i < c->nr; i++) {
		struct hwtb_worker *w = &c->w[i];

		if (w->objs[fac]) {
			for (k = 0; k < w->nobjs[fac]; k++) {
				hwtb_cancel_sync(fac, hwtb_obj(fac, w->objs[fac], k));
				if (!(k & 1023))
					cond_resched();
			}
		}
		if (w->probes[fac]) {
			for (k = 0; k < HWTB_NPROBES; k++)
				hwtb_cancel_sync(fac, hwtb_obj(fac, w->probes[fac], k));
		}
		kvfree(w->objs[fac]);
		kvfree(w->probes[fac]);
		w->objs[fac] = NULL;
		w->probes[fac] = NULL;
		w->nobjs[fac] = 0;
	}
}

/**
 * hwtb_crew_alloc - give each worker its share of @total timers of @fac
 * @c: the crew
 * @fac: the facility
 * @total: timers over the whole crew
 * @cb: what their callback does (enum hwtb_cb)
 *
 * Each worker also gets %HWTB_NPROBES idle timers for start+cancel pairs.
 *
 * Context: process context.
 * Return: 0 or -ENOMEM (then nothing is left allocated for @fac).
 */
int hwtb_crew_alloc(struct hwtb_crew *c, int fac, unsigned long total, int cb)
{
	unsigned int i;
	unsigned long k;

	for (i = 0; i < c->nr; i++) {
		struct hwtb_worker *w = &c->w[i];
		unsigned long n = total / c->nr + (i < total % c->nr);

		w->nobjs[fac] = n;
		w->objs[fac] = kvcalloc(max(n, 1UL), hwtb_size(fac), GFP_KERNEL);
		w->probes[fac] = kvcalloc(HWTB_NPROBES, hwtb_size(fac), GFP_KERNEL);
		if (!w->objs[fac] || !w->probes[fac]) {
			hwtb_crew_free(c, fac);
			return -ENOMEM;
		}
		for (k = 0; k < n; k++) {
			hwtb_setup(fac, hwtb_obj(fac, w->objs[fac], k), cb);
			if (!(k & 1023))
				cond_resched();
		}
		for (k = 0; k < HWTB_NPROBES; k++)
			hwtb_setup(fac, hwtb_obj(fac, w->probes[fac], k), HWTB_CB_COUNT);
	}
	return 0;
}

/**
 * hwtb_crew_destroy - stop the workers and free the crew and its timers
 * @c: the crew
 *
 * Context: process context.
 */
void hwtb_crew_destroy(struct hwtb_crew *c)
{
	unsigned int i;
	int fac;

	for (fac = 0; fac < HWTB_NR_FAC; fac++)
		hwtb_crew_free(c, fac);
	for (i = 0; i < c->nr; i++) {
		if (c->w[i].task)
			kthread_stop(c->w[i].task);
		kvfree(c->w[i].tab);
	}
	kfree(c);
}

/* ---- results ------------------------------------------------------------ */

/* The output of the last run; hwtb_mutex protects it and the runs. */
static DEFINE_MUTEX(hwtb_mutex);
static char *hwtb_buf;
static size_t hwtb_len;
static bool hwtb_truncated;
#define HWTB_BUF_SIZE	SZ_1M

/**
 * hwtb_out - append a line (or part of one) to the results
 * @fmt: printf format
 *
 * Context: process context, under hwtb_mutex (a benchmark run).
 */
void hwtb_out(const char *fmt, ...)
{
	size_t room = HWTB_BUF_SIZE - hwtb_len;
	va_list ap;
	int n;

	lockdep_assert_held(&hwtb_mutex);
	va_start(ap, fmt);
	n = vsnprintf(hwtb_buf + hwtb_len, room, fmt, ap);
	va_end(ap);
	if (n >= room)
		hwtb_truncated = true;
	else
		hwtb_len += n;
}

static int hwtb_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * hwtb_sort - sort values in ascending order
 * @v: the values
 * @cnt: how many
 */
void hwtb_sort(s64 *v, size_t cnt)
{
	sort(v, cnt, sizeof(*v), hwtb_cmp, NULL);
}

/**
 * hwtb_median - the median of some values (sorts them)
 * @v: the values
 * @cnt: how many, at least 1
 *
 * Return: the middle value, or the mean of the two middle ones.
 */
s64 hwtb_median(s64 *v, unsigned int cnt)
{
	hwtb_sort(v, cnt);
	if (cnt & 1)
		return v[cnt / 2];
	return (v[cnt / 2 - 1] + v[cnt / 2]) / 2;
}

/* Format a value in thousandths as a decimal number with 3 fraction digits. */
static const char *hwtb_fmt(char *buf, size_t len, s64 milli)
{
	u64 a = milli < 0 ? -(u64)milli : milli;

	snprintf(buf, len, "%s%llu.%03llu", milli < 0 ? "-" : "", a / HWTB_MILLI,
		 a % HWTB_MILLI);
	return buf;
}

/**
 * hwtb_result - record one measured figure
 * @group: the benchmark
 * @fac: the facility (enum hwtb_fac), or -1 for none
 * @n: the size parameter (timers), or 0
 * @metric: what was measured
 * @unit: its unit
 * @milli: the value of each repetition, in thousandths of @unit
 * @cnt: repetitions, at least 1
 *
 * Prints "R group facility n metric unit median min max reps".
 */
void hwtb_result(const char *group, int fac, unsigned long n, const char *metric,
		 const char *unit, const s64 *milli, unsigned int cnt)
{
	s64 v[HWTB_MAX_REPS];
	char a[32], b[32], c[32];

	cnt = clamp(cnt, 1U, (unsigned int)HWTB_MAX_REPS);
	memcpy(v, milli, cnt * sizeof(*v));
	hwtb_median(v, cnt);
	hwtb_out("R %s %s %lu %s %s %s %s %s %u\n", group,
		 fac < 0 ? "-" : hwtb_fac_name[fac], n, metric, unit,
		 hwtb_fmt(a, sizeof(a), cnt & 1 ? v[cnt / 2] :
			  (v[cnt / 2 - 1] + v[cnt / 2]) / 2),
		 hwtb_fmt(b, sizeof(b), v[0]), hwtb_fmt(c, sizeof(c), v[cnt - 1]), cnt);
}

/**
 * hwtb_result_one - record a figure that is not repeated
 * @group: see hwtb_result()
 * @fac: see hwtb_result()
 * @n: see hwtb_result()
 * @metric: see hwtb_result()
 * @unit: see hwtb_result()
 * @milli: the value in thousandths of @unit
 */
void hwtb_result_one(const char *group, int fac, unsigned long n,
		     const char *metric, const char *unit, s64 milli)
{
	hwtb_result(group, fac, n, metric, unit, &milli, 1);
}

/* ---- debugfs ------------------------------------------------------------ */

static struct dentry *hwtb_dir;

static ssize_t hwtb_run_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char what[32];
	size_t len = min(count, sizeof(what) - 1);
	int ret;

	if (copy_from_user(what, ubuf, len))
		return -EFAULT;
	what[len] = '\0';
	strim(what);

	mutex_lock(&hwtb_mutex);
	hwtb_len = 0;
	hwtb_truncated = false;
	hwtb_buf[0] = '\0';
	ret = hwtb_run_kernel(strim(what));
	if (hwtb_truncated)
		pr_warn("results truncated at %u bytes\n", HWTB_BUF_SIZE);
	mutex_unlock(&hwtb_mutex);
	return ret < 0 ? ret : count;
}

static ssize_t hwtb_results_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&hwtb_mutex);
	ret = simple_read_from_buffer(ubuf, count, ppos, hwtb_buf, hwtb_len);
	mutex_unlock(&hwtb_mutex);
	return ret;
}

static const struct file_operations hwtb_run_fops = {
	.owner = THIS_MODULE,
	.write = hwtb_run_write,
	.llseek = noop_llseek,
};

static const struct file_operations hwtb_results_fops = {
	.owner = THIS_MODULE,
	.read = hwtb_results_read,
	.llseek = default_llseek,
};

static int __init hwtb_init(void)
{
	struct hwtimer_wheel_config cfg = {
		.name = "hwtbench",
		.tick_ns = hwtb_tick_ns ? hwtb_tick_ns : TICK_NSEC,
		.slots = hwtb_slots,
	};

	if (!hwtb_reps || hwtb_reps > HWTB_MAX_REPS || !hwtb_expiry_reps ||
	    hwtb_expiry_reps > HWTB_MAX_REPS || !hwtb_idle_reps ||
	    hwtb_idle_reps > HWTB_MAX_REPS || !hwtb_late_reps ||
	    hwtb_late_reps > HWTB_MAX_REPS || !hwtb_tick_reps ||
	    hwtb_tick_reps > HWTB_MAX_REPS) {
		pr_err("repetition counts must be 1 to %d\n", HWTB_MAX_REPS);
		return -EINVAL;
	}

	hwtb_buf = kvmalloc(HWTB_BUF_SIZE, GFP_KERNEL);
	if (!hwtb_buf)
		return -ENOMEM;
	hwtb_buf[0] = '\0';

	hwtb_wheel = hwtimer_wheel_create(&cfg);
	if (IS_ERR(hwtb_wheel)) {
		int ret = PTR_ERR(hwtb_wheel);

		pr_err("cannot create the benchmark wheel: %d\n", ret);
		kvfree(hwtb_buf);
		return ret;
	}

	hwtb_dir = debugfs_create_dir("hwtbench", NULL);
	debugfs_create_file("run", 0200, hwtb_dir, NULL, &hwtb_run_fops);
	debugfs_create_file("results", 0400, hwtb_dir, NULL, &hwtb_results_fops);
	pr_info("ready: tick %llu ns, %u slots, %u CPUs\n",
		hwtimer_wheel_tick_ns(hwtb_wheel), hwtimer_wheel_slots(hwtb_wheel),
		num_online_cpus());
	return 0;
}

static void __exit hwtb_exit(void)
{
	unsigned long left;

	debugfs_remove_recursive(hwtb_dir);
	left = hwtimer_wheel_destroy(hwtb_wheel, NULL, NULL);
	if (left)
		pr_err("%lu timers were left on the benchmark wheel\n", left);
	kvfree(hwtb_buf);
}

module_init(hwtb_init);
module_exit(hwtb_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hwtimer benchmark: hwtimer, timer_list and hrtimer side by side");
MODULE_AUTHOR("hwtimer developers");
