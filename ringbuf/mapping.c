/*
 * Mapping a ring buffer into a process: one shared vma over the control
 * page and the data pages, never copied at fork nor split. Each vma
 * holds a reference and counts in rb->mmap_count; its close hook (under
 * the mm lock, interrupts off) gives both back and, with the last
 * mapping, the locked-memory charge (mlock.c).
 */
#include "core/mm/usermm.h"
#include "ringbuf.h"

void rb_get_mapping(struct ring_buffer *rb)
{
	__atomic_add_fetch(&rb->refs, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&rb->mmap_count, 1, __ATOMIC_ACQ_REL);
}

/* A mapping of rb is gone: the last one returns its charge. */
static void vma_close(struct mm *mm, void *priv)
{
	struct ring_buffer *rb = priv;
	if (rb->unmapped)
		rb->unmapped(mm);
	if (__atomic_sub_fetch(&rb->mmap_count, 1, __ATOMIC_ACQ_REL) == 0)
		rb_uncharge(rb, mm);
	rb_put(rb);
}

static const struct vma_ops rb_vma_ops = { .close = vma_close };

int rb_map(struct ring_buffer *rb, struct mm *mm, uint64_t addr, uint64_t len, int prot)
{
	int r = mm_map_shm(mm, addr, len, prot, VMA_DONTCOPY | VMA_NOSPLIT | VMA_NOEXEC, rb->shm,
			   &rb_vma_ops, rb, "anon_inode:[perf_event]"); /* Linux's name */
	if (r)
		vma_close(mm, rb); /* undo this mapping's count */
	return r;
}
