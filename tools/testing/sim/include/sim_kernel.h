/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel, as far as hwtimer's sources need it, in user space: every
 * linux/ header of include/ is a stub that includes this file. Types and
 * helpers are plain C; what has behaviour (the clock, hrtimers, BH work,
 * workqueues, CPUs, allocations, user memory) calls into sim_runtime.c,
 * which the seed drives. Locks are checked, never contended: the
 * simulation runs one thing at a time.
 */
#ifndef _SIM_KERNEL_H
#define _SIM_KERNEL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- compiler, config ---------------------------------------------------- */

#define LINUX_VERSION_CODE		KERNEL_VERSION(7, 3, 0)
#define KERNEL_VERSION(a, b, c)		(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define KBUILD_MODNAME			"hwtimer"

#define __ARG_PLACEHOLDER_1		0,
#define __take_second_arg(__ignored, val, ...) val
#define __is_defined(x)			___is_defined(x)
#define ___is_defined(val)		____is_defined(__ARG_PLACEHOLDER_##val)
#define ____is_defined(arg1_or_junk)	__take_second_arg(arg1_or_junk 1, 0)
#define IS_ENABLED(option)		(__is_defined(option) || __is_defined(option##_MODULE))
#define IS_BUILTIN(option)		__is_defined(option)

#undef __always_inline
/* Inlining is the compiler's choice here: nothing depends on it. */
#define __always_inline			inline
#define noinline			__attribute__((__noinline__))
#define __aligned(x)			__attribute__((__aligned__(x)))
#define __maybe_unused			__attribute__((__unused__))
#define __must_check			__attribute__((__warn_unused_result__))
#define __init
#define __exit
#define __user
#define __percpu
#define __iomem
#define __rcu
#define __force
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define __acquire(x)			((void)0)
#define __release(x)			((void)0)
#define likely(x)			__builtin_expect(!!(x), 1)
#define unlikely(x)			__builtin_expect(!!(x), 0)
#define data_race(x)			(x)
static inline void sim_barrier(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#define barrier()			sim_barrier()
#undef static_assert
#define static_assert(expr, ...)	_Static_assert((expr), #expr)
#define BUILD_BUG_ON(c)			_Static_assert(!(c), #c)

/* ---- types ----------------------------------------------------------------- */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef unsigned long long __u64;
typedef int8_t __s8;
typedef int16_t __s16;
typedef int32_t __s32;
typedef long long __s64;
typedef unsigned long long __aligned_u64 __attribute__((aligned(8)));
typedef s64 ktime_t;
typedef unsigned int gfp_t;
typedef unsigned int __poll_t;
typedef int vm_fault_t;
typedef u64 phys_addr_t;
typedef struct { unsigned int val; } kuid_t;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		(-S64_MAX - 1)
#define KTIME_MAX	S64_MAX
#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL
#define BITS_PER_LONG	64
#define BITS_PER_BYTE	8

#define GLOBAL_ROOT_UID		((kuid_t){ 0 })
#define KUIDT_INIT(v)		((kuid_t){ v })
#define __kuid_val(u)		((u).val)

/* ---- ioctl numbers (asm-generic) --------------------------------------------- */

#define _IOC_NRBITS	8
#define _IOC_TYPEBITS	8
#define _IOC_SIZEBITS	14
#define _IOC_NRSHIFT	0
#define _IOC_TYPESHIFT	(_IOC_NRSHIFT + _IOC_NRBITS)
#define _IOC_SIZESHIFT	(_IOC_TYPESHIFT + _IOC_TYPEBITS)
#define _IOC_DIRSHIFT	(_IOC_SIZESHIFT + _IOC_SIZEBITS)
#define _IOC_NONE	0U
#define _IOC_WRITE	1U
#define _IOC_READ	2U
#define _IOC(dir, type, nr, size) \
	(((dir) << _IOC_DIRSHIFT) | ((type) << _IOC_TYPESHIFT) | \
	 ((nr) << _IOC_NRSHIFT) | ((size) << _IOC_SIZESHIFT))
#define _IO(type, nr)		_IOC(_IOC_NONE, (type), (nr), 0)
#define _IOR(type, nr, t)	_IOC(_IOC_READ, (type), (nr), sizeof(t))
#define _IOW(type, nr, t)	_IOC(_IOC_WRITE, (type), (nr), sizeof(t))
#define _IOWR(type, nr, t)	_IOC(_IOC_READ | _IOC_WRITE, (type), (nr), sizeof(t))

/* ---- failure reporting (sim_runtime.c) ----------------------------------------- */

void sim_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void sim_warn(const char *file, int line, const char *what);

#define WARN_ON(c) ({ bool __c = !!(c); if (unlikely(__c)) sim_warn(__FILE__, __LINE__, #c); __c; })
#define WARN_ON_ONCE(c)		WARN_ON(c)
#define WARN(c, fmt...)		WARN_ON(c)
#define WARN_ONCE(c, fmt...)	WARN_ON(c)
#define BUG_ON(c)		do { if (unlikely(c)) sim_fail("BUG_ON(%s) at %s:%d", #c, __FILE__, __LINE__); } while (0)
#define BUG()			sim_fail("BUG() at %s:%d", __FILE__, __LINE__)
#define pr_err(fmt...)		((void)0)
#define pr_info(fmt...)		((void)0)
#define pr_warn(fmt...)		((void)0)
#define pr_debug(fmt...)	((void)0)

/* ---- arithmetic ------------------------------------------------------------ */

#define BIT(n)			(1UL << (n))
#define BIT_ULL(n)		(1ULL << (n))
#define GENMASK(h, l)		(((~0UL) << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define offsetofend(T, m)	(offsetof(T, m) + sizeof(((T *)0)->m))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define typeof_member(T, m)	typeof(((T *)0)->m)

#define min(a, b)	({ typeof(a) __a = (a); typeof(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b)	({ typeof(a) __a = (a); typeof(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(t, a, b)	({ t __a = (a); t __b = (b); __a < __b ? __a : __b; })
#define max_t(t, a, b)	({ t __a = (a); t __b = (b); __a > __b ? __a : __b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)

#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d)	__builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)

static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 div_u64(u64 a, u32 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }

static inline int fls64(u64 x) { return x ? 64 - __builtin_clzll(x) : 0; }
static inline int fls(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
static inline unsigned long __ffs(unsigned long x) { return __builtin_ctzl(x); }
static inline unsigned long __ffs64(u64 x) { return __builtin_ctzll(x); }
#define ilog2(n)		((n) ? 63 - __builtin_clzll((u64)(n)) : -1)
#define is_power_of_2(n)	((n) != 0 && (((n) & ((n) - 1)) == 0))
#define roundup_pow_of_two(n)	((n) <= 1 ? 1UL : 1UL << fls64((u64)(n) - 1))
#define order_base_2(n)		((n) > 1 ? ilog2((n) - 1) + 1 : 0)

/* ---- bitmaps ---------------------------------------------------------------- */

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] |= 1UL << (nr % BITS_PER_LONG);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[nr / BITS_PER_LONG] &= ~(1UL << (nr % BITS_PER_LONG));
}

#define set_bit(nr, addr)	__set_bit(nr, addr)
#define clear_bit(nr, addr)	__clear_bit(nr, addr)

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return (addr[nr / BITS_PER_LONG] >> (nr % BITS_PER_LONG)) & 1;
}

static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
					  unsigned long off)
{
	unsigned long w;

	if (off >= size)
		return size;
	w = addr[off / BITS_PER_LONG] & (~0UL << (off % BITS_PER_LONG));
	off -= off % BITS_PER_LONG;
	for (;;) {
		if (w) {
			off += __builtin_ctzl(w);
			return off < size ? off : size;
		}
		off += BITS_PER_LONG;
		if (off >= size)
			return size;
		w = addr[off / BITS_PER_LONG];
	}
}

static inline bool bitmap_empty(const unsigned long *addr, unsigned long nbits);

static inline unsigned long find_first_bit(const unsigned long *addr, unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

static inline bool bitmap_empty(const unsigned long *addr, unsigned long nbits)
{
	return find_first_bit(addr, nbits) >= nbits;
}

/* ---- lists ---------------------------------------------------------------------- */

#define LIST_POISON1	((void *)0x100)
#define LIST_POISON2	((void *)0x122)

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *l)
{
	l->next = l;
	l->prev = l;
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

static inline void list_del_init(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	INIT_LIST_HEAD(e);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member)	list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_for_each_entry(pos, head, member)					\
	for (pos = list_first_entry(head, typeof(*pos), member);		\
	     &pos->member != (head); pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)				\
	for (pos = list_first_entry(head, typeof(*pos), member),		\
	     n = list_next_entry(pos, member);					\
	     &pos->member != (head); pos = n, n = list_next_entry(n, member))

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

/*
 * Marked stores are told to the scenario (sim_store_hook), in program
 * order, with whether they are releases: what a consumer that loads a
 * word with acquire semantics is guaranteed to see is every store before
 * the release that wrote it.
 */
extern void (*sim_store_hook)(const volatile void *p, bool release);

static inline void sim_store_note(const volatile void *p, bool release)
{
	if (unlikely(sim_store_hook))
		sim_store_hook(p, release);
}

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)							\
	do {									\
		*(volatile typeof(x) *)&(x) = (v);				\
		sim_store_note(&(x), false);					\
	} while (0)
#define smp_load_acquire(p)	({ typeof(*(p)) __v = READ_ONCE(*(p)); barrier(); __v; })
#define smp_store_release(p, v)							\
	do {									\
		typeof(p) __p = (p);						\
		barrier();							\
		*(volatile typeof(*__p) *)__p = (v);				\
		sim_store_note(__p, true);					\
	} while (0)
#define smp_mb()		barrier()
#define smp_wmb()		barrier()
#define smp_rmb()		barrier()

#define INIT_HLIST_HEAD(h)	((h)->first = NULL)
#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)

static inline bool hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

static inline bool hlist_unhashed_lockless(const struct hlist_node *h)
{
	return !READ_ONCE(h->pprev);
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	WRITE_ONCE(n->next, first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	WRITE_ONCE(h->first, n);
	WRITE_ONCE(n->pprev, &h->first);
}

static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	struct hlist_node **pprev = n->pprev;

	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
}

static inline bool hlist_is_singular_node(struct hlist_node *n, struct hlist_head *h)
{
	return !n->next && n->pprev == &h->first;
}

/* ---- atomics -------------------------------------------------------------------- */

typedef struct { long counter; } atomic_long_t;
typedef struct { int counter; } atomic_t;
typedef struct { atomic_t refs; } refcount_t;

#define ATOMIC_LONG_INIT(v)	{ (v) }
#define atomic_long_read(a)	READ_ONCE((a)->counter)
#define atomic_long_set(a, v)	WRITE_ONCE((a)->counter, v)
#define atomic_long_inc(a)	((a)->counter++)
#define atomic_long_dec(a)	((a)->counter--)
#define atomic_long_sub(n, a)	((a)->counter -= (n))
#define atomic_long_add(n, a)	((a)->counter += (n))

static inline bool atomic_long_try_cmpxchg(atomic_long_t *a, long *old, long new)
{
	if (a->counter == *old) {
		a->counter = new;
		return true;
	}
	*old = a->counter;
	return false;
}

#define refcount_set(r, v)	((r)->refs.counter = (v))
#define refcount_inc(r)		((r)->refs.counter++)
#define refcount_dec_and_test(r) (--(r)->refs.counter == 0)

/* ---- errors ------------------------------------------------------------------------ */

#define MAX_ERRNO	4095
#define ERESTARTSYS	512
#define ENOTSUPP	524
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long e) { return (void *)e; }
static inline long PTR_ERR(const void *p) { return (long)p; }
static inline bool IS_ERR(const void *p) { return IS_ERR_VALUE((unsigned long)p); }
static inline bool IS_ERR_OR_NULL(const void *p) { return !p || IS_ERR(p); }

/* ---- CPUs, contexts, locks (checked, never contended) ---------------------------- */

#define SIM_NR_CPUS	8
extern unsigned int sim_cpu;		/* the CPU running now */
extern unsigned int sim_ncpus;		/* possible CPUs */
extern int sim_irqs_off;		/* interrupts disabled, nesting depth */
extern int sim_softirq;			/* in softirq context */
extern int sim_preempt;			/* preempt_count(), what the code may change */

struct task_struct {
	int	pid;
	char	comm[16];
};
struct task_struct *sim_current(void);
#define current			sim_current()

#define smp_processor_id()	(sim_cpu)
#define raw_smp_processor_id()	(sim_cpu)
#define cpu_to_node(cpu)	0
#define NUMA_NO_NODE		(-1)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < sim_ncpus; (cpu)++)
#define num_possible_cpus()	(sim_ncpus)

void sim_cpu_relax(void);
#define cpu_relax()		sim_cpu_relax()
void sim_might_sleep(const char *file, int line);
#define might_sleep()		sim_might_sleep(__FILE__, __LINE__)
#define cond_resched()		({ might_sleep(); 0; })
#define preempt_count()		(sim_preempt)
#define preempt_count_set(c)	(sim_preempt = (c))
#define in_interrupt()		(sim_softirq)
#define in_softirq()		(sim_softirq)

#define local_irq_save(f)	do { (f) = sim_irqs_off++; } while (0)
#define local_irq_restore(f)	do { sim_irqs_off--; (void)(f); } while (0)
#define local_irq_disable()	(sim_irqs_off++)
#define local_irq_enable()	(sim_irqs_off--)

struct sim_lock {
	int		held;
	unsigned int	cpu;
};
typedef struct sim_lock raw_spinlock_t;
typedef struct sim_lock spinlock_t;
struct mutex {
	struct sim_lock l;
};

void sim_lock(struct sim_lock *l, const char *file, int line);
void sim_unlock(struct sim_lock *l, const char *file, int line);

#define raw_spin_lock_init(l)		((l)->held = 0)
#define spin_lock_init(l)		((l)->held = 0)
#define raw_spin_lock(l)		sim_lock(l, __FILE__, __LINE__)
#define raw_spin_unlock(l)		sim_unlock(l, __FILE__, __LINE__)
#define raw_spin_lock_nested(l, s)	sim_lock(l, __FILE__, __LINE__)
#define raw_spin_lock_irq(l)		do { local_irq_disable(); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irq(l)		do { raw_spin_unlock(l); local_irq_enable(); } while (0)
#define raw_spin_lock_irqsave(l, f)	do { local_irq_save(f); raw_spin_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, f) do { raw_spin_unlock(l); local_irq_restore(f); } while (0)
#define spin_lock(l)			raw_spin_lock(l)
#define spin_unlock(l)			raw_spin_unlock(l)
#define spin_lock_irq(l)		raw_spin_lock_irq(l)
#define spin_unlock_irq(l)		raw_spin_unlock_irq(l)
#define spin_lock_bh(l)			raw_spin_lock(l)
#define spin_unlock_bh(l)		raw_spin_unlock(l)
#define spin_lock_irqsave(l, f)		raw_spin_lock_irqsave(l, f)
#define spin_unlock_irqrestore(l, f)	raw_spin_unlock_irqrestore(l, f)
#define lockdep_assert_held(l) \
	do { if (unlikely(!(l)->held)) sim_fail("lock not held at %s:%d", __FILE__, __LINE__); } while (0)
#define DEFINE_MUTEX(name)		struct mutex name = { { 0, 0 } }
void sim_mutex_lock(struct mutex *m, const char *file, int line);
void sim_mutex_unlock(struct mutex *m, const char *file, int line);
#define mutex_lock(m)			sim_mutex_lock(m, __FILE__, __LINE__)
#define mutex_unlock(m)			sim_mutex_unlock(m, __FILE__, __LINE__)
#define SINGLE_DEPTH_NESTING		1

struct lock_class_key { int dummy; };
struct lockdep_map { int dummy; };
/* Without CONFIG_LOCKDEP, as the kernel's: the maps are not evaluated (no member). */
#define lockdep_register_key(k)		((void)(k))
#define lockdep_unregister_key(k)	((void)(k))
#define lockdep_init_map(m, n, k, s)	do { (void)(n); (void)(k); } while (0)
#define lock_map_acquire(m)		do { } while (0)
#define lock_map_release(m)		do { } while (0)
#define lock_acquire_exclusive(m, s, t, n, i) do { } while (0)

#define synchronize_rcu()		might_sleep()
#define rcu_read_lock()			((void)0)
#define rcu_read_unlock()		((void)0)

/* ---- per-CPU memory ----------------------------------------------------------------- */

void *sim_alloc(size_t size, gfp_t gfp, bool zero, const char *what);
void sim_free(const void *p);
#define alloc_percpu(type)	((type *)sim_alloc(sizeof(type) * SIM_NR_CPUS, GFP_KERNEL, true, "percpu"))
#define free_percpu(p)		sim_free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[cpu])
#define this_cpu_ptr(p)		(&(p)[sim_cpu])

/* ---- memory --------------------------------------------------------------------------- */

#define GFP_KERNEL		0x1u
#define GFP_ATOMIC		0x2u
#define GFP_NOWAIT		0x4u
#define __GFP_ACCOUNT		0x10u
#define __GFP_NOWARN		0x20u
#define __GFP_NORETRY		0x40u
#define __GFP_ZERO		0x80u
#define GFP_KERNEL_ACCOUNT	(GFP_KERNEL | __GFP_ACCOUNT)

#define kmalloc(n, g)		sim_alloc(n, g, false, "kmalloc")
#define kzalloc(n, g)		sim_alloc(n, g, true, "kzalloc")
#define kvmalloc(n, g)		sim_alloc(n, g, false, "kvmalloc")
#define kvzalloc(n, g)		sim_alloc(n, g, true, "kvzalloc")
static inline void *sim_alloc_array(size_t n, size_t size, gfp_t g, bool zero, const char *what)
{
	size_t b;

	if (__builtin_mul_overflow(n, size, &b))
		return NULL;
	return sim_alloc(b, g, zero, what);
}
#define kmalloc_array(n, s, g)	sim_alloc_array(n, s, g, false, "kmalloc_array")
#define kcalloc(n, s, g)	sim_alloc_array(n, s, g, true, "kcalloc")
#define kvcalloc(n, s, g)	sim_alloc_array(n, s, g, true, "kvcalloc")
#define kvmalloc_array(n, s, g)	sim_alloc_array(n, s, g, false, "kvmalloc_array")
#define kfree(p)		sim_free(p)
#define kvfree(p)		sim_free(p)
#define bitmap_zalloc_node(n, g, node) \
	((unsigned long *)sim_alloc_array(BITS_TO_LONGS(n), sizeof(long), g, true, "bitmap"))
#define bitmap_zalloc(n, g)	bitmap_zalloc_node(n, g, 0)
#define bitmap_free(p)		sim_free(p)

static inline ssize_t strscpy(char *d, const char *s, size_t n)
{
	size_t l = strnlen(s, n);

	if (!n)
		return -E2BIG;
	if (l == n) {
		memcpy(d, s, n - 1);
		d[n - 1] = 0;
		return -E2BIG;
	}
	memcpy(d, s, l + 1);
	return l;
}

#define PAGE_SHIFT		12
#define PAGE_SIZE		(1UL << PAGE_SHIFT)
#define PAGE_MASK		(~(PAGE_SIZE - 1))
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

/* A page: its memory (moved, not copied, by vmap()), a reference count. */
struct page {
	void	*addr;
	int	refs;
	int	pins;
	void	*vmap;		/* the vmap() area it is in, or NULL */
};

struct page *sim_alloc_page(gfp_t gfp);
void sim_put_page(struct page *p);
#define alloc_page(g)		sim_alloc_page(g)
#define put_page(p)		sim_put_page(p)
#define get_page(p)		((p)->refs++)
#define page_address(p)		((p)->addr)
#define kmap_local_page(p)	((p)->addr)
#define kunmap_local(a)		((void)(a))
#define VM_MAP			0x4
#define PAGE_KERNEL		0
void *vmap(struct page **pages, unsigned int n, unsigned long flags, int prot);
void vunmap(const void *addr);

/* ---- user memory (sim_runtime.c: a simulated address space) ------------------------- */

#define FOLL_WRITE		0x1
#define u64_to_user_ptr(x)	((void __user *)(uintptr_t)(x))
#define access_ok(p, n)		sim_access_ok((unsigned long)(p), n)
bool sim_access_ok(unsigned long addr, size_t n);
unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);
unsigned long copy_to_user(void __user *to, const void *from, unsigned long n);
int pin_user_pages_fast(unsigned long start, int nr, unsigned int gup_flags, struct page **pages);
void unpin_user_pages_dirty_lock(struct page **pages, unsigned long n, bool dirty);

/* ---- time ------------------------------------------------------------------------------ */

u64 ktime_get_ns(void);
u64 ktime_get_boottime_ns(void);
u64 local_clock(void);
#define ns_to_ktime(ns)		((ktime_t)(ns))
#define ktime_to_ns(k)		((s64)(k))

struct timespec64 {
	s64	tv_sec;
	long	tv_nsec;
};

static inline s64 timespec64_to_ns(const struct timespec64 *ts)
{
	return ts->tv_sec * (s64)NSEC_PER_SEC + ts->tv_nsec;
}

void timens_add_monotonic(struct timespec64 *ts);
void timens_add_boottime(struct timespec64 *ts);

/* ---- hrtimers --------------------------------------------------------------------------- */

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode {
	HRTIMER_MODE_ABS = 0x0,
	HRTIMER_MODE_REL = 0x1,
	HRTIMER_MODE_PINNED = 0x2,
	HRTIMER_MODE_SOFT = 0x4,
	HRTIMER_MODE_ABS_PINNED_SOFT = 0x6,
};

struct hrtimer {
	enum hrtimer_restart	(*function)(struct hrtimer *);
	clockid_t		clockid;
	u64			expires;
	u64			seq;		/* order among equal expiries */
	unsigned int		cpu;
	int			idx;		/* in the simulation's table, -1: not queued */
	bool			running;
};

void hrtimer_setup(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *),
		   clockid_t clock, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *t, ktime_t when, enum hrtimer_mode mode);
int hrtimer_cancel(struct hrtimer *t);
bool hrtimer_active(const struct hrtimer *t);

/* ---- work, BH work ---------------------------------------------------------------------- */

struct work_struct;
typedef void (*work_func_t)(struct work_struct *);
struct workqueue_struct;

struct work_struct {
	work_func_t		func;
	struct workqueue_struct	*wq;
	unsigned int		cpu;		/* U32_MAX: any */
	int			idx;		/* in the simulation's table, -1: not queued */
	bool			running;
};

#define WQ_UNBOUND	0x2
#define WQ_HIGHPRI	0x10
#define WQ_PERCPU	0x100
#define WORK_CPU_UNBOUND U32_MAX

#define INIT_WORK(w, f)	do { (w)->func = (f); (w)->wq = NULL; (w)->idx = -1; (w)->running = false; } while (0)
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max, ...);
void destroy_workqueue(struct workqueue_struct *wq);
bool queue_work_on(int cpu, struct workqueue_struct *wq, struct work_struct *w);
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);
extern struct workqueue_struct *system_bh_wq;

/* ---- wait queues ------------------------------------------------------------------------- */

typedef struct { int waiters; } wait_queue_head_t;
#define init_waitqueue_head(q)	((q)->waiters = 0)
#define wake_up_all(q)		((void)(q))
#define wake_up(q)		((void)(q))
#define wake_up_poll(q, m)	((void)(q))
#define wq_has_sleeper(q)	((q)->waiters != 0)
/* Nothing else runs while a task waits here: a wait that must wait is a hang. */
#define wait_event(q, cond) \
	do { might_sleep(); if (!(cond)) sim_fail("wait_event(%s) would never return at %s:%d", #cond, __FILE__, __LINE__); } while (0)
#define wait_event_interruptible(q, cond) ({ might_sleep(); (cond) ? 0 : -ERESTARTSYS; })
#define fatal_signal_pending(t)	false
#define signal_pending(t)	false

/* ---- files, devices ----------------------------------------------------------------------- */

struct cred {
	kuid_t	uid;
};
struct inode {
	int	dummy;
};
struct file;
struct vm_area_struct;
struct poll_table_struct {
	int	dummy;
};
typedef struct poll_table_struct poll_table;
#define poll_wait(f, q, p)	((void)(q))
#define EPOLLIN			0x1
#define EPOLLRDNORM		0x40

struct seq_file {
	void	*private;
};
static inline __attribute__((format(printf, 2, 3))) void seq_printf(struct seq_file *m,
									  const char *fmt, ...)
{
}

struct file_operations {
	void	*owner;
	int	(*open)(struct inode *, struct file *);
	int	(*release)(struct inode *, struct file *);
	ssize_t	(*read)(struct file *, char __user *, size_t, loff_t *);
	__poll_t (*poll)(struct file *, poll_table *);
	int	(*mmap)(struct file *, struct vm_area_struct *);
	long	(*unlocked_ioctl)(struct file *, unsigned int, unsigned long);
	long	(*compat_ioctl)(struct file *, unsigned int, unsigned long);
	void	(*show_fdinfo)(struct seq_file *, struct file *);
	int	(*show)(struct seq_file *, void *);
};

struct file {
	void			*private_data;
	unsigned int		f_flags;
	const struct cred	*f_cred;
};

long compat_ptr_ioctl(struct file *f, unsigned int cmd, unsigned long arg);
#define stream_open(i, f)	0

#define MISC_DYNAMIC_MINOR	255
struct miscdevice {
	int				minor;
	const char			*name;
	const struct file_operations	*fops;
	unsigned short			mode;
};
int misc_register(struct miscdevice *m);
void misc_deregister(struct miscdevice *m);

#define DEFINE_SHOW_ATTRIBUTE(name)						\
	static const struct file_operations name##_fops = { .show = name##_show }

struct dentry;
struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, unsigned short mode, struct dentry *parent,
				   void *data, const struct file_operations *fops);
#define debugfs_remove_recursive(d)	((void)(d))
#define debugfs_remove(d)		((void)(d))
#define debugfs_lookup(n, p)		((struct dentry *)NULL)
#define dput(d)				((void)(d))

/* mmap */
#define VM_READ		0x1UL
#define VM_WRITE	0x2UL
#define VM_EXEC		0x4UL
#define VM_SHARED	0x8UL
#define VM_DONTEXPAND	0x40000UL
#define VM_FAULT_SIGBUS	0x2

struct vm_fault;
struct vm_operations_struct {
	vm_fault_t	(*fault)(struct vm_fault *);
	int		(*mprotect)(struct vm_area_struct *, unsigned long, unsigned long,
				    unsigned long);
};

struct vm_area_struct {
	unsigned long				vm_start;
	unsigned long				vm_end;
	unsigned long				vm_pgoff;
	unsigned long				vm_flags;
	const struct vm_operations_struct	*vm_ops;
	void					*vm_private_data;
};

struct vm_fault {
	struct vm_area_struct	*vma;
	unsigned long		pgoff;
	struct page		*page;
};

#define vm_flags_set(vma, f)	((vma)->vm_flags |= (f))

/* ---- modules, parameters, hotplug --------------------------------------------------------- */

struct module {
	const char	*name;
};
extern struct module sim_this_module;
#define THIS_MODULE		(&sim_this_module)

#define MODULE_LICENSE(x)
#define MODULE_DESCRIPTION(x)
#define MODULE_AUTHOR(x)
#define MODULE_VERSION(x)
#define MODULE_PARM_DESC(n, d)
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_IF_KUNIT(s)
#define VISIBLE_IF_KUNIT	static

/* A module's init and exit, called by the simulation at each load. */
#define module_init(fn)		int sim_module_init(void) { return fn(); }
#define module_exit(fn)		void sim_module_exit(void) { fn(); }

/* Parameters: named pointers in a section the simulation walks. */
struct sim_param {
	const char	*name;
	void		*ptr;
	size_t		size;
};
#define module_param_named(name, var, type, perm)				\
	static const struct sim_param __sim_param_##name			\
	__attribute__((used, section("sim_params"), aligned(8))) = { #name, &(var), sizeof(var) }
#define module_param(name, type, perm)	module_param_named(name, name, type, perm)

#define MODULE_STATE_GOING	2
#define NOTIFY_DONE		0
#define NOTIFY_OK		1
struct notifier_block {
	int	(*notifier_call)(struct notifier_block *, unsigned long, void *);
};
int register_module_notifier(struct notifier_block *nb);
int unregister_module_notifier(struct notifier_block *nb);

enum cpuhp_state { CPUHP_INVALID = -1, CPUHP_BP_PREPARE_DYN = 50 };
int cpuhp_setup_state_nocalls(enum cpuhp_state state, const char *name,
			      int (*startup)(unsigned int), int (*teardown)(unsigned int));
void cpuhp_remove_state_nocalls(enum cpuhp_state state);

/* ---- xarray (the per-user table: small, an array) ---------------------------------------------- */

#define XA_FLAGS_ACCOUNT	1
#define SIM_XA_MAX		64
struct xarray {
	int		n;
	unsigned long	index[SIM_XA_MAX];
	void		*entry[SIM_XA_MAX];
	struct sim_lock	lock;
};
#define DEFINE_XARRAY_FLAGS(name, flags)	struct xarray name = { 0 }
#define xa_lock(xa)		sim_lock(&(xa)->lock, __FILE__, __LINE__)
#define xa_unlock(xa)		sim_unlock(&(xa)->lock, __FILE__, __LINE__)
void *xa_load(struct xarray *xa, unsigned long index);
int __xa_insert(struct xarray *xa, unsigned long index, void *entry, gfp_t gfp);
void *__xa_erase(struct xarray *xa, unsigned long index);
#define xa_empty(xa)		((xa)->n == 0)

/* ---- tracepoints: empty inlines -------------------------------------------------------------- */

#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	static inline void trace_##name(proto) { }

/* ---- debugobjects: not configured ---------------------------------------------------------- */

struct debug_obj_descr;

#endif /* _SIM_KERNEL_H */
