/*
 * mmap of a perf event: the ring buffer, Linux's rules and its
 * locked-memory accounting.
 *
 * Rules (perf_mmap): shared mappings only, offset 0, 1 + 2^n pages (or
 * just the control page), not for an inherited per-task event; a second
 * mapping of an event shares its buffer and must have the same size.
 *
 * Accounting: a user may lock perf_event_mlock_kb per online CPU in
 * perf buffers (control page included); pages beyond that count against
 * the process's RLIMIT_MEMLOCK (mm->pinned_vm) and are EPERM past it,
 * unless perf_event_paranoid is -1 or the caller is root. The charge is
 * returned when the last mapping of the buffer goes.
 *
 * Locking: e->rb changes under perf_lock (the scheduler updates the
 * control page under it); rb_lock (irqsave, inside perf_lock) guards
 * the per-user table. The vma close hook runs under the mm lock with
 * interrupts off.
 */
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include <linux/mman.h>
#include "pmu/event.h"
#include "pmu/rdpmc.h"
#include "kernel.h"
#include "mm/mm.h"
#include "ringbuf.h"
#include "proc/sched.h"
#include "proc/task.h"
#include "arch/tsc.h"
#include "mm/usermm.h"
#include "fs/vfs.h"

static struct spinlock rb_lock = SPINLOCK_INIT("perf-rb");

/* ---- per-user locked pages ---- */

#define MAX_USERS 64
static struct { uint32_t uid; uint64_t pages; bool used; } users[MAX_USERS];

/* The uid's counter, made if new; NULL when the table is full. Under
 * rb_lock. */
static uint64_t *user_locked(uint32_t uid)
{
	int free = -1;
	for (int i = 0; i < MAX_USERS; i++) {
		if (users[i].used && users[i].uid == uid)
			return &users[i].pages;
		if (!users[i].used && free < 0)
			free = i;
	}
	if (free < 0)
		return NULL;
	users[free].used = true;
	users[free].uid = uid;
	users[free].pages = 0;
	return &users[free].pages;
}

static unsigned online_cpus(void)
{
	return popcount64(sched_online_mask());
}

/* Charge `pages` for a new buffer to the caller: 0 or -EPERM. Under
 * rb_lock. */
static int charge(struct perf_buffer *rb, struct mm *mm, uint64_t pages)
{
	uint64_t *locked = user_locked(current->uid);
	if (!locked)
		return -ENOMEM;
	int kb = sysctl_perf_event_mlock_kb();
	uint64_t limit = kb > 0 ? (uint64_t)kb / (PAGE_SIZE / 1024) * online_cpus() : 0;
	uint64_t want = *locked + pages;
	uint64_t extra = want > limit ? want - limit : 0;
	uint64_t memlock = rlimit_cur(RLIMIT_MEMLOCK) / PAGE_SIZE;
	if (mm->pinned_vm + extra > memlock && sysctl_perf_event_paranoid() > -1 &&
	    current->euid != 0)
		return -EPERM;
	*locked += pages - extra;
	mm->pinned_vm += extra;
	rb->uid = current->uid;
	rb->charged_user = pages - extra;
	rb->charged_pinned = extra;
	return 0;
}

static int charge_locked(struct perf_buffer *rb, struct mm *mm, uint64_t pages)
{
	spin_lock(&rb_lock);
	int r = charge(rb, mm, pages);
	spin_unlock(&rb_lock);
	return r;
}

static void uncharge(struct perf_buffer *rb, struct mm *mm)
{
	uint64_t f = spin_lock_irqsave(&rb_lock);
	uint64_t *locked = user_locked(rb->uid);
	if (locked)
		*locked -= rb->charged_user;
	mm->pinned_vm -= rb->charged_pinned < mm->pinned_vm ? rb->charged_pinned
							    : mm->pinned_vm;
	rb->charged_user = rb->charged_pinned = 0;
	spin_unlock_irqrestore(&rb_lock, f);
}

/* ---- the buffer ---- */

static struct perf_buffer *rb_alloc(uint64_t nr_pages, bool writable)
{
	struct perf_buffer *rb = kzalloc(sizeof(*rb));
	if (!rb)
		return NULL;
	rb->shm = shm_create(1 + nr_pages);
	if (!rb->shm) {
		kfree(rb);
		return NULL;
	}
	rb->refs = 1;
	rb->nr_pages = nr_pages;
	rb->writable = writable;
	rb->user_page = shm_kaddr(rb->shm, 0);
	rb->user_page->data_offset = PAGE_SIZE;
	rb->user_page->data_size = nr_pages * PAGE_SIZE;
	return rb;
}

void rb_put(struct perf_buffer *rb)
{
	if (__atomic_sub_fetch(&rb->refs, 1, __ATOMIC_ACQ_REL))
		return;
	shm_release(rb->shm);
	kfree(rb);
}

/* The last mapping of rb is gone: return its charge. */
static void vma_close(struct mm *mm, void *priv)
{
	struct perf_buffer *rb = priv;
	if (rb->rdpmc)
		perf_rdpmc_unmap(mm);
	if (__atomic_sub_fetch(&rb->mmap_count, 1, __ATOMIC_ACQ_REL) == 0)
		uncharge(rb, mm);
	rb_put(rb);
}

static const struct vma_ops rb_vma_ops = { .close = vma_close };

/* e's buffer for a mapping of nr_pages data pages, with a reference and
 * a mapping counted; a new one if e has none in use. */
static int get_buffer(struct perf_event *e, struct mm *mm, uint64_t nr_pages,
		      bool writable, struct perf_buffer **out)
{
	struct perf_buffer *fresh = NULL;
	for (;;) {
		uint64_t f = spin_lock_irqsave(&perf_lock);
		struct perf_buffer *rb = e->rb;
		if (rb && __atomic_load_n(&rb->mmap_count, __ATOMIC_ACQUIRE) == 0) {
			e->rb = NULL; /* unmapped since: a new size may be chosen */
			rb_put(rb);
			rb = NULL;
		}
		int r = 0;
		if (rb && rb->nr_pages != nr_pages)
			r = -EINVAL;
		else if (!rb && fresh && (r = charge_locked(fresh, mm, 1 + nr_pages)) == 0) {
			e->rb = rb = fresh; /* the event's reference */
			fresh = NULL;
			perf_record_kernel_ksymbol(e); /* attr.ksymbol (ksymbol.c) */
		}
		if (!r && rb) {
			__atomic_add_fetch(&rb->refs, 1, __ATOMIC_ACQ_REL);
			__atomic_add_fetch(&rb->mmap_count, 1, __ATOMIC_ACQ_REL);
			*out = rb;
			rb_update_userpage(e, time_since_boot_ns());
		}
		spin_unlock_irqrestore(&perf_lock, f);
		if (r || rb) {
			if (fresh)
				rb_put(fresh);
			return r;
		}
		if (!(fresh = rb_alloc(nr_pages, writable)))
			return -ENOMEM;
	}
}

int perf_mmap(struct file *f, struct mm *mm, uint64_t addr, uint64_t len,
	      int prot, int flags, uint64_t off)
{
	struct perf_event *e = f->priv;
	uint64_t nr_pages = len / PAGE_SIZE - 1;
	if (e->cpu == -1 && e->attr.inherit)
		return -EINVAL; /* every child would write to one buffer */
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		return -EINVAL;
	if (nr_pages & (nr_pages - 1))
		return -EINVAL;
	if (off)
		return -EINVAL;
	struct perf_buffer *rb;
	int r = get_buffer(e, mm, nr_pages, prot & PROT_WRITE, &rb);
	if (r)
		return r;
	rb->rdpmc = perf_rdpmc_map(e, mm); /* its event's, as every mapping's */
	r = mm_map_shm(mm, addr, len, prot, VMA_DONTCOPY | VMA_NOSPLIT, rb->shm,
		       &rb_vma_ops, rb, "");
	if (r)
		vma_close(mm, rb); /* undo this mapping's count */
	return r;
}
