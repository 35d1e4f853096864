/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated machine (sim_runtime.c), for the scenarios: the clock,
 * the CPUs, what is runnable (due hrtimers, BH work, work items), fault
 * injection, the user address space, the seeded random numbers.
 */
#ifndef _SIM_RUNTIME_H
#define _SIM_RUNTIME_H

#include "sim_kernel.h"

/* Random numbers: one stream for the machine (faults, scheduling). */
struct sim_rng {
	u64	s;
};

static inline u64 sim_rng_next(struct sim_rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number in [0, n), n > 0. */
static inline u64 sim_rng_below(struct sim_rng *r, u64 n)
{
	return sim_rng_next(r) % n;
}

/* True with probability num / den. */
static inline bool sim_rng_chance(struct sim_rng *r, u64 num, u64 den)
{
	return sim_rng_below(r, den) < num;
}

extern struct sim_rng sim_mrng;

/* The clock: CLOCK_MONOTONIC ns; CLOCK_BOOTTIME is ahead by sim_boot_off. */
extern u64 sim_now;
extern u64 sim_boot_off;
/* How much local_clock() may jump per call (0: it follows the clock). */
extern u64 sim_local_jitter;
/* local_clock() jumps by @ns: the CPU spent that much on the work running. */
void sim_local_advance(u64 ns);
/* What local_clock() last read, without a reading of its own. */
u64 sim_local_peek(void);
/* The work item running (0: none; each run its own number), and sim_local_peek() as it began. */
extern u64 sim_work_run_id, sim_work_local0;
/* Called as a work item begins, before its function (it waited for a worker until then). */
extern void (*sim_work_begin_hook)(struct work_struct *w);

/* The time namespace of the task making a call (timens_add_monotonic(), _boottime()). */
extern s64 sim_timens_mono, sim_timens_boot;

/* CPUs */
extern bool sim_online[SIM_NR_CPUS];
unsigned int sim_pick_online(u64 r);
unsigned int sim_online_count(void);

/* Run in the context of CPU @cpu, process context: returns the saved state. */
struct sim_ctx {
	unsigned int	cpu;
	int		softirq;
};
struct sim_ctx sim_enter(unsigned int cpu, int softirq);
void sim_leave(struct sim_ctx saved);
/* Checks that a step returned to a clean context (no lock, irqs on, pins 0). */
void sim_check_clean(const char *where);

/* What is runnable: due hrtimers, BH work, work items. */
unsigned int sim_runnable(void);
/* Run one of them, the machine's random stream choosing. False: none. */
bool sim_run_one(void);
/* Called at each release of a spinlock (the scenario follows a call hold by hold). */
extern void (*sim_unlock_hook)(struct sim_lock *l);
/* Called at each release of a spinlock too, whatever the machine runs (the scenario's watch). */
extern void (*sim_unlock_watch)(struct sim_lock *l);
/* Called at each copy_to_user(), with what it could not copy. */
extern void (*sim_copy_to_user_hook)(const void *from, unsigned long n, unsigned long left);
/* Called as an hrtimer's callback returns, on its CPU, in softirq context. */
extern void (*sim_hrtimer_done_hook)(struct hrtimer *t);
/* Called after each thing the machine ran (the scenario's checks). */
extern void (*sim_after_item)(void);
/* The CPU the last thing ran on. */
extern int sim_item_cpu;
/* Run until nothing is runnable. */
void sim_drain(void);
/* Move the clock to @t, firing every hrtimer on time on the way. */
void sim_advance_to(u64 t);
/* Let the rest of the machine run, and the clock move up to @max_ns, between two holds of a lock. */
void sim_interleave(u64 max_ns);
bool sim_nested(void);
/* Run @fn as another CPU's task between two holds of a lock (no lock held). */
void sim_other_task(unsigned int cpu, void (*fn)(void *), void *arg);
/* Run queued work item @w now. False: it is not queued. */
bool sim_run_work_now(struct work_struct *w);
/* The earliest queued hrtimer expiry, monotonic ns; U64_MAX if none. */
u64 sim_next_hrtimer(void);
/* Whether @t is queued, and when it expires (monotonic ns). */
bool sim_hrtimer_queued(const struct hrtimer *t);
bool sim_work_queued(const struct work_struct *w);
bool sim_work_running(const struct work_struct *w);

/* CPU hotplug: the cpuhp callbacks registered by the module. */
void sim_cpu_down(unsigned int cpu, unsigned int control);
void sim_cpu_up(unsigned int cpu, unsigned int control);

/* The module: init and exit (module_init()/module_exit()). */
int sim_module_init(void);
void sim_module_exit(void);
const struct file_operations *sim_misc_fops(void);
bool sim_set_param(const char *name, u64 value);

/* Allocations */
extern long sim_allocs;			/* live kernel allocations */
extern bool sim_faults;			/* inject allocation and user-copy faults */
extern u32 sim_fault_rate;		/* per 10000 */
extern unsigned long sim_faults_injected;
extern unsigned long sim_warnings;

/* The user address space */
#define SIM_PROT_R	1
#define SIM_PROT_W	2
unsigned long sim_umap(unsigned int npages, u8 prot);
unsigned long sim_umap_pages(struct page **pages, unsigned int npages, u8 prot);
void sim_uprot(unsigned long addr, u8 prot);
u8 sim_uprot_of(unsigned long addr);
void sim_uunmap(unsigned long addr);
void *sim_uaddr(unsigned long addr, size_t len);	/* host address of user bytes (sim side) */
void sim_uwrite(unsigned long addr, const void *buf, size_t len);
void sim_uread(unsigned long addr, void *buf, size_t len);
long sim_pins(void);
void sim_reset(u64 seed);
void sim_teardown_check(void);

/* Failure reporting: a longjmp back to the run's driver. */
#include <setjmp.h>
extern jmp_buf *sim_fail_jmp;
extern char sim_fail_msg[512];
extern const char *sim_step_name;

#endif /* _SIM_RUNTIME_H */
