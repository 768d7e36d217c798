/*
 * A ring buffer's pages and references (ringbuf.h): the control page
 * first, then the data pages, in one shared anonymous object that the
 * kernel writes through its direct map and processes map.
 */
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "ringbuf.h"

struct ring_buffer *rb_alloc(uint64_t nr_pages, bool writable)
{
	struct ring_buffer *rb = kzalloc(sizeof(*rb));
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

void rb_get(struct ring_buffer *rb)
{
	__atomic_add_fetch(&rb->refs, 1, __ATOMIC_ACQ_REL);
}

void rb_put(struct ring_buffer *rb)
{
	if (__atomic_sub_fetch(&rb->refs, 1, __ATOMIC_ACQ_REL))
		return;
	shm_release(rb->shm);
	kfree(rb);
}

bool rb_is_mapped(const struct ring_buffer *rb)
{
	return rb && __atomic_load_n(&rb->mmap_count, __ATOMIC_ACQUIRE) > 0;
}

bool rb_has_data(const struct ring_buffer *rb)
{
	return rb && rb->nr_pages;
}
