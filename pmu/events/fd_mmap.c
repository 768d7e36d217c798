/*
 * mmap of a perf event fd: Linux's perf_mmap rules, and which ring
 * buffer (ringbuf/) the mapping shows.
 *
 * Rules: shared mappings only, offset 0, 1 + 2^n pages (or just the
 * control page), not for an inherited per-task event; a second mapping
 * of an event shares its buffer and must have the same size. The
 * buffer's pages are charged to the mapper's locked memory
 * (ringbuf/mlock.c) when the event gets it.
 *
 * Locking: e->rb changes under perf_lock (the scheduler updates the
 * control page under it). The buffer is allocated outside it and the
 * choice made again under it.
 */
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include <linux/mman.h>
#include "event.h"
#include "core/kernel.h"
#include "pmu/x86/rdpmc.h"
#include "pmu/records/records.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"

/* e's buffer for a mapping of nr_pages data pages, with a reference and
 * a mapping counted; a new one if e has none in use. */
static int get_buffer(struct perf_event *e, struct mm *mm, uint64_t nr_pages,
		      bool writable, struct ring_buffer **out)
{
	struct ring_buffer *fresh = NULL;
	for (;;) {
		uint64_t f = spin_lock_irqsave(&perf_lock);
		struct ring_buffer *rb = e->rb;
		if (rb && !rb_is_mapped(rb)) {
			e->rb = NULL; /* unmapped since: a new size may be chosen */
			rb_put(rb);
			rb = NULL;
		}
		int r = 0;
		if (rb && rb->nr_pages != nr_pages)
			r = -EINVAL;
		else if (!rb && fresh && (r = rb_charge(fresh, mm, 1 + nr_pages)) == 0) {
			e->rb = rb = fresh; /* the event's reference */
			fresh = NULL;
		}
		if (!r && rb) {
			rb_get_mapping(rb);
			*out = rb;
			perf_event_update_userpage(e, time_since_boot_ns());
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
	if (prot & PROT_EXEC)
		return -EPERM; /* Linux: perf fds live on a noexec mount */
	if (e->cpu == -1 && e->attr.inherit)
		return -EINVAL; /* every child would write to one buffer */
	if ((flags & MAP_TYPE) == MAP_PRIVATE)
		return -EINVAL;
	if (nr_pages & (nr_pages - 1))
		return -EINVAL;
	if (off)
		return -EINVAL;
	struct ring_buffer *rb = NULL;
	int r = get_buffer(e, mm, nr_pages, prot & PROT_WRITE, &rb);
	if (r)
		return r;
	/* RDPMC rights come with the mapping; its close gives them back. */
	if (perf_rdpmc_map(e, mm))
		rb->unmapped = perf_rdpmc_unmap;
	return rb_map(rb, mm, addr, len, prot);
}
