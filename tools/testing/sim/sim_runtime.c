// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated machine: what sim_kernel.h declares. One thing runs at a
 * time; the seed (sim_mrng) decides which of the runnable things runs
 * next, where allocations and user copies fail, and how far local_clock()
 * jumps. hrtimers fire when the clock reaches their expiry, on the CPU
 * that armed them; BH work runs on the CPU that queued it, work items on
 * theirs (any online CPU when unbound).
 */
#include "sim_runtime.h"

struct sim_rng sim_mrng;
u64 sim_now;
u64 sim_boot_off;
u64 sim_local_jitter;
static u64 sim_local_extra;

unsigned int sim_cpu;
unsigned int sim_ncpus = 4;
int sim_irqs_off;
int sim_softirq;
int sim_preempt;
static int sim_locks_held;
bool sim_online[SIM_NR_CPUS];

long sim_allocs;
bool sim_faults;
u32 sim_fault_rate;
unsigned long sim_faults_injected;
unsigned long sim_warnings;

jmp_buf *sim_fail_jmp;
char sim_fail_msg[512];
const char *sim_step_name = "";

struct module sim_this_module = { .name = "hwtimer" };

/* ---- failures -------------------------------------------------------------- */

void sim_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sim_fail_msg, sizeof(sim_fail_msg), fmt, ap);
	va_end(ap);
	if (sim_fail_jmp)
		longjmp(*sim_fail_jmp, 1);
	fprintf(stderr, "sim: %s\n", sim_fail_msg);
	exit(2);
}

/* A kernel warning is a failure: the code says it cannot happen. */
void sim_warn(const char *file, int line, const char *what)
{
	sim_warnings++;
	sim_fail("WARN_ON(%s) at %s:%d", what, file, line);
}

/* ---- contexts, locks ------------------------------------------------------------ */

static struct task_struct sim_tasks[SIM_NR_CPUS];

struct task_struct *sim_current(void)
{
	return &sim_tasks[sim_cpu];
}

void sim_cpu_relax(void)
{
	/* Nothing else can run: a spin that spins once spins for ever. */
	sim_fail("cpu_relax(): a spin that nothing can end");
}

void sim_might_sleep(const char *file, int line)
{
	if (sim_irqs_off || sim_softirq || sim_locks_held)
		sim_fail("sleeping call in atomic context at %s:%d (irqs off %d, softirq %d, locks %d)",
			 file, line, sim_irqs_off, sim_softirq, sim_locks_held);
}

void sim_lock(struct sim_lock *l, const char *file, int line)
{
	if (l->held)
		sim_fail("deadlock: lock taken again at %s:%d", file, line);
	l->held = 1;
	l->cpu = sim_cpu;
	sim_locks_held++;
}

void (*sim_unlock_hook)(struct sim_lock *l);
void (*sim_unlock_watch)(struct sim_lock *l);
void (*sim_store_hook)(const volatile void *p, bool release);

void sim_unlock(struct sim_lock *l, const char *file, int line)
{
	if (!l->held)
		sim_fail("unlock of a lock not held at %s:%d", file, line);
	l->held = 0;
	sim_locks_held--;
	if (sim_unlock_watch)
		sim_unlock_watch(l);
	if (sim_unlock_hook)
		sim_unlock_hook(l);
}

/* A mutex sleeps: it does not make its holder atomic. */
void sim_mutex_lock(struct mutex *m, const char *file, int line)
{
	sim_might_sleep(file, line);
	if (m->l.held)
		sim_fail("deadlock: mutex taken again at %s:%d", file, line);
	m->l.held = 1;
}

void sim_mutex_unlock(struct mutex *m, const char *file, int line)
{
	if (!m->l.held)
		sim_fail("unlock of a mutex not held at %s:%d", file, line);
	m->l.held = 0;
}

struct sim_ctx sim_enter(unsigned int cpu, int softirq)
{
	struct sim_ctx saved = { sim_cpu, sim_softirq };

	sim_cpu = cpu;
	sim_softirq = softirq;
	return saved;
}

void sim_leave(struct sim_ctx saved)
{
	sim_cpu = saved.cpu;
	sim_softirq = saved.softirq;
}

static int sim_nest;

void sim_check_clean(const char *where)
{
	if (sim_irqs_off || sim_locks_held || sim_preempt)
		sim_fail("%s returned with irqs off %d, locks held %d, preempt count %d",
			 where, sim_irqs_off, sim_locks_held, sim_preempt);
	/* The interrupted call's pins are its own. */
	if (sim_pins() && !sim_nest)
		sim_fail("%s left %ld user pages pinned", where, sim_pins());
}

/* ---- memory ----------------------------------------------------------------------- */

#define SIM_MAGIC	0x5173a110c8ed0001ULL
#define SIM_FREED	0x5173a110c8edfeedULL

struct sim_hdr {
	u64	magic;
	u64	size;
};

static bool sim_fault_now(void)
{
	if (!sim_faults || !sim_rng_chance(&sim_mrng, sim_fault_rate, 10000))
		return false;
	sim_faults_injected++;
	return true;
}

void *sim_alloc(size_t size, gfp_t gfp, bool zero, const char *what)
{
	struct sim_hdr *h;

	if (gfp & GFP_KERNEL)
		sim_might_sleep(what, 0);
	if (sim_fault_now())
		return NULL;
	h = malloc(sizeof(*h) + size);
	if (!h)
		sim_fail("host out of memory");
	h->magic = SIM_MAGIC;
	h->size = size;
	if (zero || (gfp & __GFP_ZERO))
		memset(h + 1, 0, size);
	else
		memset(h + 1, 0xa5, size);	/* uninitialised memory is not zero */
	sim_allocs++;
	return h + 1;
}

void sim_free(const void *p)
{
	struct sim_hdr *h;

	if (!p)
		return;
	h = (struct sim_hdr *)p - 1;
	if (h->magic != SIM_MAGIC)
		sim_fail("kfree() of %s", h->magic == SIM_FREED ? "freed memory" : "memory not allocated");
	h->magic = SIM_FREED;
	sim_allocs--;
	free(h);
}

struct page *sim_alloc_page(gfp_t gfp)
{
	struct page *p = sim_alloc(sizeof(*p), gfp & ~__GFP_ZERO, true, "page");

	if (!p)
		return NULL;
	p->addr = sim_alloc(PAGE_SIZE, gfp & ~GFP_KERNEL, !!(gfp & __GFP_ZERO), "page memory");
	if (!p->addr) {
		sim_free(p);
		return NULL;
	}
	p->refs = 1;
	return p;
}

void sim_put_page(struct page *p)
{
	if (p->refs <= 0)
		sim_fail("put_page() of a free page");
	if (--p->refs)
		return;
	if (p->vmap)
		sim_fail("page freed while vmap()ed");
	if (p->pins)
		sim_fail("page freed while pinned");
	sim_free(p->addr);
	sim_free(p);
}

/* vmap(): the pages' memory moves into one contiguous area, and back at vunmap(). */
struct sim_vmap {
	void			*mem;
	unsigned int		n;
	struct page		**pages;
	struct sim_vmap		*next;
};
static struct sim_vmap *sim_vmaps;

void *vmap(struct page **pages, unsigned int n, unsigned long flags, int prot)
{
	struct sim_vmap *v;
	unsigned int i;
	char *mem;

	sim_might_sleep("vmap", 0);
	v = sim_alloc(sizeof(*v), GFP_KERNEL, true, "vmap");
	if (!v)
		return NULL;
	mem = sim_alloc(n * PAGE_SIZE, GFP_KERNEL, false, "vmap area");
	v->pages = sim_alloc(n * sizeof(*pages), GFP_KERNEL, false, "vmap pages");
	if (!mem || !v->pages) {
		sim_free(mem);
		sim_free(v->pages);
		sim_free(v);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		memcpy(mem + i * PAGE_SIZE, pages[i]->addr, PAGE_SIZE);
		sim_free(pages[i]->addr);
		pages[i]->addr = mem + i * PAGE_SIZE;
		pages[i]->vmap = mem;
		v->pages[i] = pages[i];
	}
	v->mem = mem;
	v->n = n;
	v->next = sim_vmaps;
	sim_vmaps = v;
	return mem;
}

void vunmap(const void *addr)
{
	struct sim_vmap **pv, *v;
	unsigned int i;

	for (pv = &sim_vmaps; (v = *pv); pv = &v->next)
		if (v->mem == addr)
			break;
	if (!v)
		sim_fail("vunmap() of an address vmap() did not return");
	*pv = v->next;
	for (i = 0; i < v->n; i++) {
		struct page *p = v->pages[i];
		/* Never fails: the simulation's own bookkeeping, not the code's. */
		void *m = malloc(sizeof(struct sim_hdr) + PAGE_SIZE);
		struct sim_hdr *h = m;

		h->magic = SIM_MAGIC;
		h->size = PAGE_SIZE;
		sim_allocs++;
		memcpy(h + 1, p->addr, PAGE_SIZE);
		p->addr = h + 1;
		p->vmap = NULL;
	}
	sim_free(v->mem);
	sim_free(v->pages);
	sim_free(v);
}

/* ---- the user address space --------------------------------------------------------- */

struct sim_region {
	unsigned long	start;
	unsigned int	npages;
	struct page	**pages;
	u8		*prot;
	bool		own;		/* pages of the simulation's, freed at unmap */
	struct sim_region *next;
};
static struct sim_region *sim_regions;
static unsigned long sim_ubrk;
static long sim_npins;

static struct sim_region *sim_region_new(unsigned int npages)
{
	struct sim_region *r = calloc(1, sizeof(*r));

	r->start = sim_ubrk;
	/* A guard page between regions: overruns fault. */
	sim_ubrk += ((unsigned long)npages + 1) << PAGE_SHIFT;
	r->npages = npages;
	r->pages = calloc(npages, sizeof(*r->pages));
	r->prot = calloc(npages, 1);
	r->next = sim_regions;
	sim_regions = r;
	return r;
}

unsigned long sim_umap(unsigned int npages, u8 prot)
{
	struct sim_region *r = sim_region_new(npages);
	unsigned int i;

	r->own = true;
	for (i = 0; i < npages; i++) {
		r->pages[i] = calloc(1, sizeof(struct page));
		r->pages[i]->addr = calloc(1, PAGE_SIZE);
		r->pages[i]->refs = 1;
		r->prot[i] = prot;
	}
	return r->start;
}

unsigned long sim_umap_pages(struct page **pages, unsigned int npages, u8 prot)
{
	struct sim_region *r = sim_region_new(npages);
	unsigned int i;

	for (i = 0; i < npages; i++) {
		r->pages[i] = pages[i];
		r->prot[i] = prot;
	}
	return r->start;
}

static struct sim_region *sim_region_of(unsigned long addr, unsigned int *pg)
{
	struct sim_region *r;

	for (r = sim_regions; r; r = r->next) {
		if (addr >= r->start && addr < r->start + ((unsigned long)r->npages << PAGE_SHIFT)) {
			*pg = (addr - r->start) >> PAGE_SHIFT;
			return r;
		}
	}
	return NULL;
}

void sim_uprot(unsigned long addr, u8 prot)
{
	unsigned int pg;
	struct sim_region *r = sim_region_of(addr, &pg);

	if (r)
		r->prot[pg] = prot;
}

u8 sim_uprot_of(unsigned long addr)
{
	unsigned int pg;
	struct sim_region *r = sim_region_of(addr, &pg);

	return r ? r->prot[pg] : 0;
}

void sim_uunmap(unsigned long addr)
{
	struct sim_region **pr, *r;
	unsigned int i;

	for (pr = &sim_regions; (r = *pr); pr = &r->next)
		if (r->start == addr)
			break;
	if (!r)
		sim_fail("sim_uunmap(%#lx): no region", addr);
	*pr = r->next;
	for (i = 0; i < r->npages; i++) {
		if (r->own) {
			if (r->pages[i]->pins)
				sim_fail("user page unmapped while pinned");
			free(r->pages[i]->addr);
			free(r->pages[i]);
		} else {
			put_page(r->pages[i]);
		}
	}
	free(r->pages);
	free(r->prot);
	free(r);
}

/* The page of @addr if it has @prot, else NULL. */
static struct page *sim_upage(unsigned long addr, u8 prot)
{
	unsigned int pg;
	struct sim_region *r = sim_region_of(addr, &pg);

	if (!r || (r->prot[pg] & prot) != prot)
		return NULL;
	return r->pages[pg];
}

void *sim_uaddr(unsigned long addr, size_t len)
{
	struct page *p = sim_upage(addr, 0);

	if (!p || offset_in_page(addr) + len > PAGE_SIZE)
		sim_fail("sim_uaddr(%#lx, %zu): not within one mapped page", addr, len);
	return (char *)p->addr + offset_in_page(addr);
}

/* Copy between user bytes and @buf regardless of protection (the user's own access). */
static void sim_ucopy(unsigned long addr, void *buf, size_t len, bool out)
{
	while (len) {
		size_t n = min(len, PAGE_SIZE - offset_in_page(addr));
		struct page *p = sim_upage(addr, 0);

		if (!p)
			sim_fail("user access to unmapped %#lx", addr);
		if (out)
			memcpy((char *)p->addr + offset_in_page(addr), buf, n);
		else
			memcpy(buf, (char *)p->addr + offset_in_page(addr), n);
		addr += n;
		buf = (char *)buf + n;
		len -= n;
	}
}

void sim_uwrite(unsigned long addr, const void *buf, size_t len)
{
	sim_ucopy(addr, (void *)buf, len, true);
}

void sim_uread(unsigned long addr, void *buf, size_t len)
{
	sim_ucopy(addr, buf, len, false);
}

bool sim_access_ok(unsigned long addr, size_t n)
{
	return addr + n >= addr && addr + n <= (1UL << 47);
}

/* The kernel's copy: stops at the first byte it cannot reach, or where a fault is injected. */
static unsigned long sim_kcopy(unsigned long uaddr, void *buf, unsigned long n, bool out)
{
	unsigned long left = n, stop = n;

	sim_might_sleep(out ? "copy_to_user" : "copy_from_user", 0);
	/* An injected fault lets a random prefix through, as a fault mid-copy does. */
	if (sim_fault_now())
		stop = n ? sim_rng_below(&sim_mrng, n) : 0;
	while (left > n - stop) {
		size_t c = min(left - (n - stop), PAGE_SIZE - offset_in_page(uaddr));
		struct page *p = sim_upage(uaddr, out ? SIM_PROT_W | SIM_PROT_R : SIM_PROT_R);

		if (!p)
			return left;
		if (out)
			memcpy((char *)p->addr + offset_in_page(uaddr), buf, c);
		else
			memcpy(buf, (char *)p->addr + offset_in_page(uaddr), c);
		uaddr += c;
		buf = (char *)buf + c;
		left -= c;
	}
	return left;
}

unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	return sim_kcopy((unsigned long)from, to, n, false);
}

void (*sim_copy_to_user_hook)(const void *from, unsigned long n, unsigned long left);

unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	unsigned long left = sim_kcopy((unsigned long)to, (void *)from, n, true);

	if (sim_copy_to_user_hook)
		sim_copy_to_user_hook(from, n, left);
	return left;
}

int pin_user_pages_fast(unsigned long start, int nr, unsigned int gup_flags, struct page **pages)
{
	u8 prot = (gup_flags & FOLL_WRITE) ? SIM_PROT_R | SIM_PROT_W : SIM_PROT_R;
	int i;

	sim_might_sleep("pin_user_pages_fast", 0);
	if (sim_fault_now())
		nr = sim_rng_below(&sim_mrng, nr);
	for (i = 0; i < nr; i++) {
		struct page *p = sim_upage(start + ((unsigned long)i << PAGE_SHIFT), prot);

		if (!p)
			break;
		p->pins++;
		sim_npins++;
		pages[i] = p;
	}
	return i ? i : -EFAULT;
}

void unpin_user_pages_dirty_lock(struct page **pages, unsigned long n, bool dirty)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (pages[i]->pins <= 0)
			sim_fail("unpin of a page not pinned");
		pages[i]->pins--;
		sim_npins--;
	}
}

long sim_pins(void)
{
	return sim_npins;
}

/* ---- time ---------------------------------------------------------------------------- */

u64 ktime_get_ns(void)
{
	return sim_now;
}

u64 ktime_get_boottime_ns(void)
{
	/* Never at KTIME_MAX either (sim_hrt_never()). */
	return min_t(u64, sim_now + sim_boot_off, KTIME_MAX - 1);
}

/* The CPU clock passes work: it jumps by up to sim_local_jitter per reading. */
u64 local_clock(void)
{
	if (sim_local_jitter)
		sim_local_extra += sim_rng_below(&sim_mrng, sim_local_jitter + 1);
	return sim_now + sim_local_extra;
}

/* local_clock() jumps by @ns: the CPU spent that much on the work running. */
void sim_local_advance(u64 ns)
{
	sim_local_extra += ns;
}

/* What local_clock() last read, without moving it (the scenario's checks). */
u64 sim_local_peek(void)
{
	return sim_now + sim_local_extra;
}

/* The time namespace of the task making a call: its offsets from the host's clocks. */
s64 sim_timens_mono, sim_timens_boot;

static void sim_timens_add(struct timespec64 *ts, s64 off)
{
	s64 ns = timespec64_to_ns(ts) + off;

	ts->tv_sec = ns / (s64)NSEC_PER_SEC;
	ts->tv_nsec = ns % (s64)NSEC_PER_SEC;
}

void timens_add_monotonic(struct timespec64 *ts)
{
	sim_timens_add(ts, sim_timens_mono);
}

void timens_add_boottime(struct timespec64 *ts)
{
	sim_timens_add(ts, sim_timens_boot);
}

/* ---- hrtimers --------------------------------------------------------------------------- */

#define SIM_MAX_HRT	512
static struct hrtimer *sim_hrt[SIM_MAX_HRT];
static int sim_nhrt;
static u64 sim_hrt_seq;

static u64 sim_hrt_mono(const struct hrtimer *t)
{
	if (t->clockid == CLOCK_BOOTTIME)
		return t->expires > sim_boot_off ? t->expires - sim_boot_off : 0;
	return t->expires;
}

/*
 * The kernel's clocks never get to KTIME_MAX: an hrtimer armed for it
 * never fires (tick_program_event() stops the clock event device for it),
 * and the machine's clocks stop short of it (sim_advance_to()), where a
 * wheel's ticks from max_tick on would all have begun (hwt_tick_start())
 * and none of them be due (hwt_now_tick()).
 */
static bool sim_hrt_never(const struct hrtimer *t)
{
	return t->expires >= KTIME_MAX;
}

void hrtimer_setup(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *),
		   clockid_t clock, enum hrtimer_mode mode)
{
	memset(t, 0, sizeof(*t));
	t->function = fn;
	t->clockid = clock;
	t->idx = -1;
}

static void sim_hrt_remove(struct hrtimer *t)
{
	int i = t->idx;

	sim_hrt[i] = sim_hrt[--sim_nhrt];
	sim_hrt[i]->idx = i;
	t->idx = -1;
}

void hrtimer_start(struct hrtimer *t, ktime_t when, enum hrtimer_mode mode)
{
	if (!t->function)
		sim_fail("hrtimer_start() of an hrtimer never set up");
	if (!sim_online[sim_cpu])
		sim_fail("hrtimer_start() on offline CPU %u", sim_cpu);
	if (t->idx >= 0)
		sim_hrt_remove(t);
	if (sim_nhrt == SIM_MAX_HRT)
		sim_fail("too many hrtimers");
	t->expires = when < 0 ? 0 : when;
	t->cpu = sim_cpu;
	t->seq = ++sim_hrt_seq;
	t->idx = sim_nhrt;
	sim_hrt[sim_nhrt++] = t;
}

int hrtimer_cancel(struct hrtimer *t)
{
	if (t->running)
		sim_fail("hrtimer_cancel() from its own callback");
	if (t->idx < 0)
		return 0;
	sim_hrt_remove(t);
	return 1;
}

bool hrtimer_active(const struct hrtimer *t)
{
	return t->idx >= 0 || t->running;
}

bool sim_hrtimer_queued(const struct hrtimer *t)
{
	return t->idx >= 0;
}

u64 sim_next_hrtimer(void)
{
	u64 best = U64_MAX;
	int i;

	for (i = 0; i < sim_nhrt; i++)
		if (!sim_hrt_never(sim_hrt[i]))
			best = min(best, sim_hrt_mono(sim_hrt[i]));
	return best;
}

/* ---- work -------------------------------------------------------------------------------------- */

struct workqueue_struct {
	unsigned int	flags;
	bool		bh;
};
static struct workqueue_struct sim_bh_wq = { .bh = true };
struct workqueue_struct *system_bh_wq = &sim_bh_wq;

#define SIM_MAX_WORK	4096
static struct work_struct *sim_work[SIM_MAX_WORK];
static int sim_nwork;

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max, ...)
{
	struct workqueue_struct *wq = sim_alloc(sizeof(*wq), GFP_KERNEL, true, "workqueue");

	if (wq)
		wq->flags = flags;
	return wq;
}

static void sim_work_remove(struct work_struct *w)
{
	int i = w->idx;

	sim_work[i] = sim_work[--sim_nwork];
	sim_work[i]->idx = i;
	w->idx = -1;
}

static void sim_work_run(struct work_struct *w);

void destroy_workqueue(struct workqueue_struct *wq)
{
	int i;

	sim_might_sleep("destroy_workqueue", 0);
	/* Drains: whatever is queued runs first. */
	for (i = 0; i < sim_nwork; ) {
		if (sim_work[i]->wq == wq) {
			sim_work_run(sim_work[i]);
			i = 0;
		} else {
			i++;
		}
	}
	sim_free(wq);
}

bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *w)
{
	if (!w->func)
		sim_fail("queue_work() of a work item never set up");
	if (w->idx >= 0)
		return false;
	if (sim_nwork == SIM_MAX_WORK)
		sim_fail("too many work items");
	w->wq = wq;
	w->cpu = cpu;
	w->idx = sim_nwork;
	sim_work[sim_nwork++] = w;
	return true;
}

bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	if (wq->bh || !(wq->flags & WQ_UNBOUND))
		return queue_work_on(sim_cpu, wq, w);
	return queue_work_on(WORK_CPU_UNBOUND, wq, w);
}

bool cancel_work_sync(struct work_struct *w)
{
	sim_might_sleep("cancel_work_sync", 0);
	if (w->running)
		sim_fail("cancel_work_sync() from the work item itself");
	if (w->idx < 0)
		return false;
	sim_work_remove(w);
	return true;
}

bool sim_work_running(const struct work_struct *w)
{
	return w->running;
}

bool sim_work_queued(const struct work_struct *w)
{
	return w->idx >= 0;
}

/* ---- CPUs --------------------------------------------------------------------------------- */

unsigned int sim_online_count(void)
{
	unsigned int c, n = 0;

	for (c = 0; c < sim_ncpus; c++)
		n += sim_online[c];
	return n;
}

unsigned int sim_pick_online(u64 r)
{
	unsigned int c, k = r % sim_online_count();

	for (c = 0; c < sim_ncpus; c++)
		if (sim_online[c] && !k--)
			return c;
	sim_fail("no online CPU");
}

/* ---- running things ------------------------------------------------------------------------- */

void (*sim_hrtimer_done_hook)(struct hrtimer *t);

static void sim_hrt_run(struct hrtimer *t)
{
	struct sim_ctx saved;

	sim_hrt_remove(t);
	if (!sim_online[t->cpu])
		sim_fail("hrtimer due on offline CPU %u", t->cpu);
	saved = sim_enter(t->cpu, 1);
	sim_item_cpu = t->cpu;
	t->running = true;
	if (t->function(t) != HRTIMER_NORESTART)
		sim_fail("hrtimer callback asked for a restart");
	t->running = false;
	if (sim_hrtimer_done_hook)
		sim_hrtimer_done_hook(t);
	sim_check_clean("hrtimer callback");
	sim_leave(saved);
}

/* The work item running (the innermost), and local_clock() when it began. */
u64 sim_work_run_id, sim_work_local0;
void (*sim_work_begin_hook)(struct work_struct *w);
static u64 sim_work_runs;

static void sim_work_run(struct work_struct *w)
{
	u64 saved_id = sim_work_run_id, saved_local0 = sim_work_local0;
	struct sim_ctx saved;
	unsigned int cpu = w->cpu;

	sim_work_remove(w);
	if (cpu == WORK_CPU_UNBOUND || cpu >= sim_ncpus || !sim_online[cpu])
		cpu = sim_pick_online(sim_rng_next(&sim_mrng));
	saved = sim_enter(cpu, w->wq->bh);
	sim_item_cpu = cpu;
	sim_work_run_id = ++sim_work_runs;
	w->running = true;
	if (sim_work_begin_hook)
		sim_work_begin_hook(w);
	sim_work_local0 = sim_local_peek();
	w->func(w);
	w->running = false;
	sim_work_run_id = saved_id;
	sim_work_local0 = saved_local0;
	sim_check_clean(w->wq->bh ? "BH work" : "work item");
	sim_leave(saved);
}

static bool sim_hrt_due(const struct hrtimer *t)
{
	return !sim_hrt_never(t) && sim_hrt_mono(t) <= sim_now;
}

unsigned int sim_runnable(void)
{
	unsigned int n = sim_nwork;
	int i;

	for (i = 0; i < sim_nhrt; i++)
		n += sim_hrt_due(sim_hrt[i]);
	return n;
}

void (*sim_after_item)(void);
int sim_item_cpu;

static bool __sim_run_one(void);

bool sim_run_one(void)
{
	if (!__sim_run_one())
		return false;
	if (sim_after_item)
		sim_after_item();
	return true;
}

static bool __sim_run_one(void)
{
	unsigned int n = sim_runnable(), k;
	int i;

	if (!n)
		return false;
	k = sim_rng_below(&sim_mrng, n);
	if (k < (unsigned int)sim_nwork) {
		sim_work_run(sim_work[k]);
		return true;
	}
	k -= sim_nwork;
	/* Due hrtimers in the order of the table: by arming, deterministic. */
	for (i = 0; i < sim_nhrt; i++) {
		if (sim_hrt_due(sim_hrt[i]) && !k--) {
			sim_hrt_run(sim_hrt[i]);
			return true;
		}
	}
	sim_fail("runnable count changed");
}

void sim_drain(void)
{
	unsigned long n = 0;

	while (sim_run_one())
		if (++n > 10000000)
			sim_fail("livelock: runnable things never run out");
}

void sim_advance_to(u64 t)
{
	t = min_t(u64, t, KTIME_MAX - 1);
	for (;;) {
		u64 next;

		sim_drain();
		next = sim_next_hrtimer();
		if (next > t)
			break;
		if (next > sim_now)
			sim_now = next;
	}
	if (t > sim_now)
		sim_now = t;
}

/*
 * Between two holds of a lock, a task in a system call lets the rest of
 * the machine run: softirqs of other CPUs (and of its own, once
 * interrupts are on again), work items, and the clock moves on by up to
 * @max_ns, firing hrtimers on time on the way. Called by the scenario at a
 * release of a lock, with no lock held: what runs here runs as if on
 * another CPU, with its own interrupt state.
 */
bool sim_nested(void)
{
	return sim_nest != 0;
}

void sim_interleave(u64 max_ns)
{
	struct sim_ctx saved;
	int irqs = sim_irqs_off, preempt = sim_preempt;

	if (sim_nest || sim_softirq || sim_locks_held)
		return;
	saved = sim_enter(sim_cpu, 0);
	sim_irqs_off = 0;
	sim_preempt = 0;
	sim_nest++;
	sim_advance_to(sim_now + sim_rng_below(&sim_mrng, max_ns + 1));
	sim_nest--;
	sim_irqs_off = irqs;
	sim_preempt = preempt;
	sim_leave(saved);
}

/*
 * Run @fn as a task on CPU @cpu, in process context, interrupts on, while
 * the thing running now is between two holds of a lock (no lock held):
 * another CPU's task that gets the lock in between. Nested: nothing is
 * interleaved inside it.
 */
void sim_other_task(unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct sim_ctx saved;
	int irqs = sim_irqs_off, preempt = sim_preempt;

	if (sim_locks_held)
		sim_fail("another task run with %d locks held", sim_locks_held);
	saved = sim_enter(cpu, 0);
	sim_irqs_off = 0;
	sim_preempt = 0;
	sim_nest++;
	fn(arg);
	sim_nest--;
	sim_irqs_off = irqs;
	sim_preempt = preempt;
	sim_leave(saved);
}

/* Run work item @w now, if it is queued, as sim_run_one() would. */
bool sim_run_work_now(struct work_struct *w)
{
	if (w->idx < 0)
		return false;
	sim_work_run(w);
	if (sim_after_item)
		sim_after_item();
	return true;
}

/* ---- CPU hotplug ------------------------------------------------------------------------------ */

static int (*sim_hp_startup)(unsigned int);
static int (*sim_hp_teardown)(unsigned int);

int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int), int (*teardown)(unsigned int))
{
	sim_might_sleep("cpuhp_setup_state_nocalls", 0);
	sim_hp_startup = startup;
	sim_hp_teardown = teardown;
	return CPUHP_BP_PREPARE_DYN + 1;
}

void cpuhp_remove_state_nocalls(enum cpuhp_state state)
{
	sim_hp_startup = NULL;
	sim_hp_teardown = NULL;
}

/*
 * Take @cpu down, @control doing it: the dying CPU's hrtimers move to
 * @control (hrtimers_cpu_dying()), the CPU is gone, the teardown callback
 * runs on @control (CPUHP_BP_PREPARE_DYN), then BH work moves to @control
 * (CPUHP_SOFTIRQ_DEAD); per-CPU work items of @cpu run unbound from now on.
 */
void sim_cpu_down(unsigned int cpu, unsigned int control)
{
	struct sim_ctx saved;
	int i;

	for (i = 0; i < sim_nhrt; i++)
		if (sim_hrt[i]->cpu == cpu)
			sim_hrt[i]->cpu = control;
	sim_online[cpu] = false;
	saved = sim_enter(control, 0);
	if (sim_hp_teardown && sim_hp_teardown(cpu))
		sim_fail("CPU %u teardown failed", cpu);
	sim_check_clean("CPU teardown");
	sim_leave(saved);
	for (i = 0; i < sim_nwork; i++)
		if (sim_work[i]->cpu == cpu)
			sim_work[i]->cpu = sim_work[i]->wq->bh ? control : WORK_CPU_UNBOUND;
}

void sim_cpu_up(unsigned int cpu, unsigned int control)
{
	struct sim_ctx saved = sim_enter(control, 0);

	if (sim_hp_startup && sim_hp_startup(cpu))
		sim_fail("CPU %u prepare failed", cpu);
	sim_check_clean("CPU prepare");
	sim_leave(saved);
	sim_online[cpu] = true;
}

/* ---- devices, debugfs, modules ------------------------------------------------------------------ */

static struct miscdevice *sim_misc;

int misc_register(struct miscdevice *m)
{
	sim_misc = m;
	return 0;
}

void misc_deregister(struct miscdevice *m)
{
	sim_misc = NULL;
}

const struct file_operations *sim_misc_fops(void)
{
	return sim_misc ? sim_misc->fops : NULL;
}

long compat_ptr_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	sim_fail("compat ioctl not simulated");
}

static char sim_dentry;

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return (struct dentry *)&sim_dentry;
}

struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops)
{
	return (struct dentry *)&sim_dentry;
}

static struct notifier_block *sim_module_nb;

int register_module_notifier(struct notifier_block *nb)
{
	sim_module_nb = nb;
	return 0;
}

int unregister_module_notifier(struct notifier_block *nb)
{
	sim_module_nb = NULL;
	return 0;
}

extern const struct sim_param __start_sim_params[], __stop_sim_params[];

bool sim_set_param(const char *name, u64 value)
{
	const struct sim_param *p;

	for (p = __start_sim_params; p < __stop_sim_params; p++) {
		if (strcmp(p->name, name))
			continue;
		if (p->size == 8)
			*(u64 *)p->ptr = value;
		else
			*(u32 *)p->ptr = value;
		return true;
	}
	return false;
}

/* ---- xarray ---------------------------------------------------------------------------------- */

void *xa_load(struct xarray *xa, unsigned long index)
{
	int i;

	for (i = 0; i < xa->n; i++)
		if (xa->index[i] == index)
			return xa->entry[i];
	return NULL;
}

int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp)
{
	if (xa_load(xa, index))
		return -EBUSY;
	if (sim_fault_now())
		return -ENOMEM;
	if (xa->n == SIM_XA_MAX)
		sim_fail("xarray full");
	xa->index[xa->n] = index;
	xa->entry[xa->n++] = entry;
	return 0;
}

void *__xa_erase(struct xarray *xa, unsigned long index)
{
	int i;

	for (i = 0; i < xa->n; i++) {
		if (xa->index[i] == index) {
			void *e = xa->entry[i];

			xa->n--;
			xa->index[i] = xa->index[xa->n];
			xa->entry[i] = xa->entry[xa->n];
			return e;
		}
	}
	return NULL;
}

/* ---- a run ------------------------------------------------------------------------------------ */

void sim_reset(u64 seed)
{
	unsigned int c;

	sim_mrng.s = seed ^ 0x6a09e667f3bcc908ULL;
	sim_now = 1000 * NSEC_PER_SEC + sim_rng_below(&sim_mrng, NSEC_PER_SEC);
	sim_boot_off = sim_rng_below(&sim_mrng, 100 * NSEC_PER_SEC);
	sim_local_extra = 0;
	sim_ubrk = 0x10000000UL;
	for (c = 0; c < sim_ncpus; c++)
		sim_online[c] = true;
	sim_cpu = 0;
}

/* After the module's exit: nothing left anywhere. */
void sim_teardown_check(void)
{
	if (sim_nhrt)
		sim_fail("%d hrtimers left queued after exit", sim_nhrt);
	if (sim_nwork)
		sim_fail("%d work items left queued after exit", sim_nwork);
	if (sim_allocs)
		sim_fail("%ld allocations left after exit", sim_allocs);
	if (sim_vmaps)
		sim_fail("vmap() area left after exit");
}
