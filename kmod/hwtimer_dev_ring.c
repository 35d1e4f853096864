// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hwtimer: where records go. A timeout that expires leaves its
 * wheel as a record: into the file's completion ring when it has one with
 * room and nothing waits before it, else into the kernel queue, a FIFO
 * linked through the slots, which read() empties and which moves to the
 * ring as room appears (at each expiry pass and at each call that looks
 * at the file: poll, ioctl).
 *
 * The ring is io_uring's completion queue for struct hwtimer_expiry
 * records: pages of the file (charged to the memory cgroup of the task
 * that made it), mapped by user space with mmap() and by the kernel with
 * vmap(). The kernel writes records at its own copy of the tail and
 * publishes the tail with release semantics; user space reads up to the
 * tail and writes the head. The head is hostile input: it is read with
 * smp_load_acquire() once per hold of the file lock, never used as an
 * index, and a head that claims more records than the ring holds (tail -
 * head > entries) makes the ring count as full, so records wait in the
 * kernel queue until user space writes a sane head. Records are written at
 * tail & mask only. Nothing the kernel reads back from the shared pages
 * but the head; user space may scribble anywhere in them and only hurts
 * what it reads.
 *
 * A record that leaves the kernel (to the ring, or by read()) consumes the
 * timeout: a one-shot one ends, its slot is freed and its id dies; a
 * periodic one is armed again for the first period that ends after that
 * moment, the periods skipped counted as its overrun (fs/timerfd.c's
 * rule), so a timeout has at most one record in the kernel.
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hwtimer_compat.h"
#include "hwtimer_dev.h"

/* The layout of the ring's mapping: head, tail, flags, then the records. */
#define HWTD_RING_HEAD_OFF	0
#define HWTD_RING_TAIL_OFF	64
#define HWTD_RING_FLAGS_OFF	128
#define HWTD_RING_RECORDS_OFF	192

/**
 * struct hwtd_ring - a file's completion ring
 * @kaddr: the kernel's mapping of @pages
 * @head: in @kaddr, written by user space
 * @utail: in @kaddr, the tail user space reads
 * @uflags: in @kaddr, the HWTIMER_RING_* flags user space reads
 * @recs: in @kaddr, the records
 * @pages: the pages, @npages of them
 * @npages: pages of the mapping
 * @entries: records it holds, a power of two
 * @tail: the kernel's tail: one past the last record written
 * @flags: the flags last written to @uflags
 * @offset: the time namespace offsets, monotonic and boottime, of the task
 *          that made the ring: its records carry that namespace's times
 *
 * Every member but the shared pages' contents is set once, or changed
 * under the file lock.
 */
struct hwtd_ring {
	void			*kaddr;
	u32			*head;
	u32			*utail;
	u32			*uflags;
	struct hwtimer_expiry	*recs;
	struct page		**pages;
	unsigned int		npages;
	u32			entries;
	u32			tail;
	u32			flags;
	s64			offset[HWTD_CLOCKS];
};

/**
 * hwtd_hold_now() - the file's clock for this hold of the file lock
 * @hf: the file
 * @hold: the hold
 *
 * Context: the file lock held.
 * Return: host ns of the file's clock, read at the first call in @hold.
 */
u64 hwtd_hold_now(struct hwtd_file *hf, struct hwtd_hold *hold)
{
	hwtd_lockdep_assert(hf);
	if (!hold->have_now) {
		hold->now = hwtd_clock_now(hf);
		hold->have_now = true;
	}
	return hold->now;
}

/*
 * Records the ring can take in this hold: the head is read once per hold;
 * a hostile one (more used than the ring holds) leaves no room.
 */
static u32 hwtd_ring_room(struct hwtd_file *hf, struct hwtd_hold *hold)
{
	struct hwtd_ring *ring = hf->ring;
	u32 used;

	if (!hold->have_room) {
		/* Pairs with user space's release of the head. */
		used = ring->tail - smp_load_acquire(ring->head);
		hold->room = used > ring->entries ? 0 : ring->entries - used;
		hold->have_room = true;
	}
	return hold->room;
}

/*
 * hwtd_leave() stores each of these fields, and the records it writes are
 * not zeroed first (the ring's entry, read()'s buffer): a field added to
 * the record must be stored there too, or read() would show kernel bytes.
 */
static_assert(sizeof(struct hwtimer_expiry) == 48 &&
	      offsetofend(struct hwtimer_expiry, reserved) == 48);

/*
 * A periodic timeout's record leaves: armed again for the first period
 * that ends after the hold's clock, the periods skipped counted in the
 * record's overrun. Out of line: the rare case of hwtd_leave().
 */
static noinline void hwtd_leave_rearm(struct hwtd_file *hf, struct hwtd_hold *hold,
				      u32 idx, struct hwtd_extra *x,
				      struct hwtimer_expiry *rec)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);
	u64 now, missed = 0, delta, next;

	now = hwtd_hold_now(hf, hold);
	if (now > s->deadline)
		missed = div64_u64(now - s->deadline, x->period);
	if (check_mul_overflow(missed + 1, x->period, &delta) ||
	    check_add_overflow(s->deadline, delta, &next))
		next = U64_MAX;
	rec->overrun = missed;
	rec->flags = HWTIMER_EXPIRY_REARMED;
	s->deadline = next;
	s->tick = hwtd_tick(hf, next, x->slack);
	if (WARN_ON_ONCE(!hwtd_place(hf, idx))) {
		/* Never: @next is after @now. Let the next pass expire it. */
		hwtd_list_add(hf, HWTD_LIST_TODO, idx);
		return;
	}
	if (!hf->processing && s->tick < hf->armed)
		hwtd_arm_timer(hf, s->tick, now);
}

/**
 * hwtd_leave() - the record of an expired timeout leaves the kernel
 * @hf: the file
 * @hold: the hold
 * @idx: the slot, expired (its @expired set) and on no list
 * @rec: set to the record
 * @offset: the time namespace offset its times are shown in
 *
 * A one-shot timeout ends; a periodic one is armed again
 * (hwtd_leave_rearm()). Inline: each record of the ring and of read()
 * leaves here.
 *
 * Context: the file lock held.
 */
static __always_inline void hwtd_leave(struct hwtd_file *hf, struct hwtd_hold *hold,
				       u32 idx, struct hwtimer_expiry *rec, s64 offset)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);
	struct hwtd_extra *x = hwtd_extra(hf, idx);

	/*
	 * Every field, one store each (no padding: 48 bytes): a memset()
	 * through @rec, whose alignment gcc does not know, was a string store
	 * per record.
	 */
	rec->id = hwtd_id(s, idx);
	rec->cookie = s->cookie;
	rec->deadline_ns = hwtd_time_from_host(s->deadline, offset);
	rec->expired_ns = hwtd_time_from_host(s->expired, offset);
	rec->overrun = 0;
	rec->flags = 0;
	rec->reserved = 0;
	if (likely(!x || !x->period))
		hwtd_end(hf, hold, idx);
	else
		hwtd_leave_rearm(hf, hold, idx, x, rec);
}

/*
 * Write the record of expired slot @idx into the ring, which has room:
 * straight into its entry, which the tail published at the hold's end
 * covers. Only the kernel's copy of a record's fields is ever read.
 */
static __always_inline void hwtd_ring_put(struct hwtd_file *hf, struct hwtd_hold *hold,
					  u32 idx)
{
	struct hwtd_ring *ring = hf->ring;

	hwtd_leave(hf, hold, idx, &ring->recs[ring->tail & (ring->entries - 1)],
		   ring->offset[hf->boottime]);
	ring->tail++;
	hold->room--;
}

/**
 * hwtd_deliver() - a due timeout expires: its record goes out
 * @hf: the file
 * @hold: the hold, whose clock stamps the record
 * @idx: the slot, pending and on no list
 *
 * To the ring if the file has one with room and the kernel queue is
 * empty (records keep their order), else to the tail of the kernel queue.
 *
 * Context: the file lock held.
 */
void hwtd_deliver(struct hwtd_file *hf, struct hwtd_hold *hold, u32 idx)
{
	struct hwtd_slot *s = hwtd_slot_at(hf, idx);

	s->expired = hwtd_hold_now(hf, hold);
	if (!hold->delivered) {
		hold->delivered = true;
		hold->empty0 = !hf->nqueued;
		hold->tail0 = hf->ring ? hf->ring->tail : 0;
	}
	if (hf->ring && !hf->nqueued && hwtd_ring_room(hf, hold)) {
		hwtd_ring_put(hf, hold, idx);
		return;
	}
	s->state = HWTD_QUEUED;
	hwtd_list_add(hf, HWTD_LIST_QUEUE, idx);
	hf->nqueued++;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_deliver);

/**
 * hwtd_refill() - move records from the kernel queue to the ring
 * @hf: the file
 * @hold: the hold
 * @max: the most records to move
 *
 * Context: the file lock held.
 * Return: the records moved; fewer than @max when the queue is empty, the
 * ring full, or there is no ring.
 */
unsigned int hwtd_refill(struct hwtd_file *hf, struct hwtd_hold *hold, unsigned int max)
{
	unsigned int n = 0;
	u32 idx;

	hwtd_lockdep_assert(hf);
	if (!hf->ring)
		return 0;
	while (n < max && hf->nqueued && hwtd_ring_room(hf, hold)) {
		idx = hwtd_list_first(hf, HWTD_LIST_QUEUE);
		hwtd_list_del(hf, idx);
		hf->nqueued--;
		hwtd_ring_put(hf, hold, idx);
		n++;
	}
	return n;
}

/**
 * hwtd_dequeue() - take records off the kernel queue, for read()
 * @hf: the file
 * @hold: the hold
 * @recs: where the records go
 * @max: the most to take
 * @offset: the time namespace offset their times are shown in
 *
 * Context: the file lock held.
 * Return: how many were taken.
 */
unsigned int hwtd_dequeue(struct hwtd_file *hf, struct hwtd_hold *hold,
			  struct hwtimer_expiry *recs, unsigned int max, s64 offset)
{
	unsigned int n = 0;
	u32 idx;

	hwtd_lockdep_assert(hf);
	while (n < max) {
		idx = hwtd_list_first(hf, HWTD_LIST_QUEUE);
		if (idx == HWTD_NIL)
			break;
		hwtd_list_del(hf, idx);
		hf->nqueued--;
		hwtd_leave(hf, hold, idx, &recs[n++], offset);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_dequeue);

/*
 * Publish the ring's tail and flags word, in the order the consumer's
 * checks need (Documentation/memory-barriers.txt: each release below pairs
 * with an acquire load of the same word by the consumer, libhwtimer's
 * ring_avail() for one):
 *
 *  - the records below the tail before the tail: the tail is stored with
 *    release semantics; a consumer that loads it with acquire semantics
 *    then reads whole records;
 *  - a %HWTIMER_RING_OVERFLOW that this hold sets before the tail: a
 *    consumer that has loaded the new tail (acquire) and emptied the ring
 *    then sees the flag and takes the queue's records, instead of taking
 *    the ring for all there is;
 *  - a flag that this hold clears after the tail, with release semantics:
 *    a consumer that loads the flags (acquire) and finds them clear, then
 *    loads the tail, sees every record this hold moved from the queue into
 *    the ring, so that "clear, and the ring empty" means nothing waits.
 *
 * A consumer that loads the flags first and the tail next (as the wait
 * protocol of hwtimer(4) has it) thus never concludes that nothing waits
 * while records do, whichever of the two changed last.
 */
static void hwtd_ring_publish(struct hwtd_ring *ring, u32 flags)
{
	if (flags != ring->flags && flags) {
		ring->flags = flags;
		WRITE_ONCE(*ring->uflags, flags);
	}
	smp_store_release(ring->utail, ring->tail);
	if (flags != ring->flags) {
		ring->flags = flags;
		smp_store_release(ring->uflags, flags);
	}
}

/**
 * hwtd_hold_end() - finish a hold of the file lock
 * @hf: the file
 * @hold: the hold
 *
 * Publishes the ring's tail and flags (hwtd_ring_publish()), uncharges the
 * timeouts that ended, and decides whether the file's waiters must be
 * woken: when records arrived on a file that had none. Without a ring that
 * is the kernel queue going from empty to not; with one, the queue was
 * empty and, read after the tail and the flags were published and a full
 * barrier, the head had consumed every record written before this hold
 * (or is hostile). A consumer that stores the head, issues a full barrier
 * and then loads the flags and the tail (hwtimer(4), RING) therefore
 * either sees what this hold published or is woken: the two full barriers
 * order each side's store before its load, so at least one of the two
 * loads sees the other side's store.
 *
 * Context: the file lock held.
 */
void hwtd_hold_end(struct hwtd_file *hf, struct hwtd_hold *hold)
{
	struct hwtd_ring *ring = hf->ring;
	u32 used0;

	hwtd_lockdep_assert(hf);
	if (ring)
		hwtd_ring_publish(ring, hf->nqueued ? HWTIMER_RING_OVERFLOW : 0);
	if (hold->freed) {
		hwtd_uncharge(hf, hold->freed);
		hold->freed = 0;
	}
	if (!hold->delivered || !hold->empty0)
		return;
	/*
	 * A blocked read() takes only the kernel queue: it is woken when the
	 * queue fills, also when the ring still holds records (then the
	 * file had records, and its pollers are not woken).
	 */
	if (hf->nqueued)
		hold->rwake = true;
	if (!ring) {
		hold->wake = true;
		return;
	}
	/*
	 * The tail and flags above before the head below; pairs with the
	 * consumer's full barrier between its store of the head and its
	 * loads of the flags and the tail (see the comment above).
	 */
	smp_mb();
	used0 = hold->tail0 - READ_ONCE(*ring->head);
	if (!used0 || used0 > ring->entries)
		hold->wake = true;
}
EXPORT_SYMBOL_IF_KUNIT(hwtd_hold_end);

/**
 * hwtd_hold_wake() - wake the file's waiters if the hold said so
 * @hf: the file
 * @hold: the hold, ended
 *
 * Context: any; the file lock not held.
 */
void hwtd_hold_wake(struct hwtd_file *hf, struct hwtd_hold *hold)
{
	if (hold->wake && wq_has_sleeper(&hf->wq))
		wake_up_poll(&hf->wq, EPOLLIN | EPOLLRDNORM);
	if (hold->rwake && wq_has_sleeper(&hf->rwq))
		wake_up(&hf->rwq);
	hold->wake = false;
	hold->rwake = false;
}

/**
 * hwtd_has_records() - whether the file has a record to consume
 * @hf: the file
 *
 * Moves queued records to the ring first, as far as it has room:
 * %HWTD_CHUNK records per hold of the file lock, and at most the ring's
 * size in all, however fast another thread consumes them.
 *
 * Context: process, may sleep (between holds); takes the file lock.
 * Return: true when the ring or the kernel queue holds a record (or the
 * ring's head is hostile).
 */
bool hwtd_has_records(struct hwtd_file *hf)
{
	struct hwtd_hold hold;
	unsigned int moved, total = 0;
	bool ret;

	for (;;) {
		memset(&hold, 0, sizeof(hold));
		spin_lock_irq(&hf->lock);
		moved = hwtd_refill(hf, &hold, HWTD_CHUNK);
		hwtd_hold_end(hf, &hold);
		ret = hf->nqueued || (hf->ring && hf->ring->tail != READ_ONCE(*hf->ring->head));
		spin_unlock_irq(&hf->lock);
		total += moved;
		if (moved < HWTD_CHUNK || total >= hwtd_ring_entries(hf))
			return ret;
		cond_resched();
	}
}

/**
 * hwtd_ring_entries() - the size of the file's ring
 * @hf: the file
 *
 * Context: any.
 * Return: the records it holds, 0 without a ring.
 */
u32 hwtd_ring_entries(struct hwtd_file *hf)
{
	/* Pairs with the release in hwtd_ring_setup(). */
	struct hwtd_ring *ring = smp_load_acquire(&hf->ring);

	return ring ? ring->entries : 0;
}

static void hwtd_ring_destroy(struct hwtd_ring *ring)
{
	unsigned int i;

	if (ring->kaddr)
		vunmap(ring->kaddr);
	for (i = 0; i < ring->npages; i++) {
		if (!ring->pages[i])
			continue;
		put_page(ring->pages[i]);
		atomic_long_dec(&hwtd_stats.ring_pages);
	}
	kvfree(ring->pages);
	kfree(ring);
	atomic_long_dec(&hwtd_stats.rings);
}

/**
 * hwtd_ring_free() - free the file's ring
 * @hf: the file, being released: no mapping of the ring is left (each
 *      holds a reference to the file)
 *
 * Context: process.
 */
void hwtd_ring_free(struct hwtd_file *hf)
{
	if (hf->ring)
		hwtd_ring_destroy(hf->ring);
	hf->ring = NULL;
}

static struct hwtd_ring *hwtd_ring_alloc(u32 entries)
{
	size_t size = HWTD_RING_RECORDS_OFF + (size_t)entries * sizeof(struct hwtimer_expiry);
	struct hwtd_ring *ring;
	unsigned int i;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return NULL;
	atomic_long_inc(&hwtd_stats.rings);
	ring->entries = entries;
	ring->npages = DIV_ROUND_UP(size, PAGE_SIZE);
	ring->pages = kvcalloc(ring->npages, sizeof(*ring->pages), GFP_KERNEL_ACCOUNT);
	if (!ring->pages) {
		ring->npages = 0;
		goto out_free;
	}
	for (i = 0; i < ring->npages; i++) {
		ring->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!ring->pages[i])
			goto out_free;
		atomic_long_inc(&hwtd_stats.ring_pages);
	}
	ring->kaddr = vmap(ring->pages, ring->npages, VM_MAP, PAGE_KERNEL);
	if (!ring->kaddr)
		goto out_free;
	ring->head = ring->kaddr + HWTD_RING_HEAD_OFF;
	ring->utail = ring->kaddr + HWTD_RING_TAIL_OFF;
	ring->uflags = ring->kaddr + HWTD_RING_FLAGS_OFF;
	ring->recs = ring->kaddr + HWTD_RING_RECORDS_OFF;
	return ring;

out_free:
	hwtd_ring_destroy(ring);
	return NULL;
}

/**
 * hwtd_ring_setup() - HWTIMER_IOC_RING: give the file a completion ring
 * @hf: the file
 * @uparams: struct hwtimer_ring_params
 *
 * The layout is written back before the ring is installed, so a call that
 * fails installs nothing.
 *
 * Context: process; may sleep.
 * Return: 0, -EINVAL, -EBUSY (the file has a ring), -ENOMEM or -EFAULT.
 */
long hwtd_ring_setup(struct hwtd_file *hf, struct hwtimer_ring_params __user *uparams)
{
	struct hwtimer_ring_params p;
	struct hwtd_ring *ring;
	struct hwtd_hold hold = { };
	long ret = 0;

	if (copy_from_user(&p, uparams, sizeof(p)))
		return -EFAULT;
	if (p.flags || p.reserved[0] || p.reserved[1] || p.reserved[2] ||
	    p.reserved[3] || !p.entries || p.entries > HWTIMER_RING_MAX)
		return -EINVAL;
	if (hwtd_ring_entries(hf))
		return -EBUSY;
	ring = hwtd_ring_alloc(roundup_pow_of_two(p.entries));
	if (!ring)
		return -ENOMEM;
	ring->offset[0] = hwtd_timens_offset(false);
	ring->offset[1] = hwtd_timens_offset(true);

	p.entries = ring->entries;
	p.head_off = HWTD_RING_HEAD_OFF;
	p.tail_off = HWTD_RING_TAIL_OFF;
	p.flags_off = HWTD_RING_FLAGS_OFF;
	p.records_off = HWTD_RING_RECORDS_OFF;
	p.mmap_size = (u64)ring->npages << PAGE_SHIFT;
	if (copy_to_user(uparams, &p, sizeof(p))) {
		hwtd_ring_destroy(ring);
		return -EFAULT;
	}

	spin_lock_irq(&hf->lock);
	if (hf->ring) {
		ret = -EBUSY;
	} else {
		/* Its setup before it, for hwtd_mmap() and the lockless readers. */
		smp_store_release(&hf->ring, ring);
		/* Records already queued go to the ring, in order. */
		hwtd_refill(hf, &hold, HWTD_CHUNK);
		hwtd_hold_end(hf, &hold);
	}
	spin_unlock_irq(&hf->lock);
	if (ret)
		hwtd_ring_destroy(ring);
	return ret;
}

static vm_fault_t hwtd_ring_fault(struct vm_fault *vmf)
{
	struct hwtd_ring *ring = vmf->vma->vm_private_data;
	struct page *page;

	if (vmf->pgoff >= ring->npages)
		return VM_FAULT_SIGBUS;
	page = ring->pages[vmf->pgoff];
	get_page(page);
	vmf->page = page;
	return 0;
}

/* The ring holds data user space writes: never executable. */
static int hwtd_ring_mprotect(struct vm_area_struct *vma, unsigned long start,
			      unsigned long end, unsigned long newflags)
{
	return (newflags & VM_EXEC) ? -EACCES : 0;
}

static const struct vm_operations_struct hwtd_ring_vm_ops = {
	.fault		= hwtd_ring_fault,
	.mprotect	= hwtd_ring_mprotect,
};

/**
 * hwtd_mmap() - map the file's ring
 * @file: the file
 * @vma: the mapping: offset %HWTIMER_RING_OFF, the ring's whole length,
 *       shared, not executable
 *
 * The pages are faulted in one by one from the ring's own; the kernel
 * writes through its own mapping, so unmapping cannot hurt it, and the
 * mapping holds a reference to the file, so the ring lives as long as it.
 *
 * VM_DONTEXPAND, as io_uring's rings: the mapping must never cover more
 * than the ring. Without it mremap() could grow it, and mmap() of the file
 * at the offset just past the ring, placed right after a mapping of it,
 * would merge with that mapping without calling here (mm merges a new
 * file mapping into an adjacent one whose flags, file and offset match
 * before it calls ->mmap): both would succeed, and touching the pages past
 * the ring raise SIGBUS. The flag makes the ring's mappings differ from a
 * new one's flags, and mremap() to grow them fail with EFAULT.
 *
 * Context: process, mmap lock held for writing.
 * Return: 0; -ENODEV (no ring), -EINVAL (offset, length, not shared),
 * -EPERM (executable).
 */
int hwtd_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct hwtd_file *hf = file->private_data;
	/* Pairs with the release in hwtd_ring_setup(). */
	struct hwtd_ring *ring = smp_load_acquire(&hf->ring);

	if (!ring)
		return -ENODEV;
	if (vma->vm_pgoff != HWTIMER_RING_OFF >> PAGE_SHIFT ||
	    vma->vm_end - vma->vm_start != (unsigned long)ring->npages << PAGE_SHIFT ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	hwt_vm_flags_set(vma, VM_DONTEXPAND);
	vma->vm_ops = &hwtd_ring_vm_ops;
	vma->vm_private_data = ring;
	return 0;
}
