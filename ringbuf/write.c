/*
 * Writing records into a ring buffer. data_head is the kernel's,
 * data_tail the reader's; positions wrap modulo data_size (a power of
 * two). data_head grows, or for a backward writer (attr.write_backward)
 * shrinks from 0 (as a u64: the newest record starts at data_head,
 * older ones follow it). A writable mapping (PROT_WRITE) means the
 * reader releases space through data_tail and the kernel never
 * overwrites what it has not released; a read-only mapping is
 * overwrite mode (the oldest records are lost, nothing is counted).
 *
 * Locking: under the writers' lock (perf_lock for perf events): one
 * writer at a time per buffer, even when several owners share it. The
 * reader runs concurrently: data_tail is read with acquire, data_head
 * written with release after the bytes.
 */
#include <string.h>
#include <linux/errno.h>
#include "kernel.h"
#include "mm/mm.h"
#include "arch/percpu.h"
#include "ringbuf.h"
#include "mm/usermm.h"

static uint64_t data_size(const struct ring_buffer *rb)
{
	return rb->nr_pages * PAGE_SIZE;
}

/* Linux's ring_buffer_has_space: a writable buffer keeps one byte
 * free between head and tail (CIRC_SPACE), so it never fills to the
 * last byte; backward, the free space runs from head down to tail. */
static bool room_for(struct ring_buffer *rb, uint64_t size, bool backward)
{
	if (!rb->writable)
		return size <= data_size(rb);
	uint64_t tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
	uint64_t mask = data_size(rb) - 1;
	uint64_t space = backward ? (rb->head - tail - 1) & mask : (tail - rb->head - 1) & mask;
	return space >= size;
}

/* Copy len bytes to data position pos, across page and wrap edges. */
static void put_bytes(struct ring_buffer *rb, uint64_t pos, const void *src, uint64_t len)
{
	const uint8_t *s = src;
	while (len) {
		uint64_t off = pos & (data_size(rb) - 1);
		uint64_t in_page = PAGE_SIZE - off % PAGE_SIZE;
		uint64_t n = len < in_page ? len : in_page;
		memcpy((uint8_t *)shm_kaddr(rb->shm, 1 + off / PAGE_SIZE) + off % PAGE_SIZE, s, n);
		s += n;
		pos += n;
		len -= n;
	}
}

/* Linux's __perf_output_begin: a paused buffer (PAUSE_OUTPUT) or one
 * without room drops the record and counts it; the count goes out as a
 * LOST record (the writer's) just before the next record that fits.
 * Backward, head decreases and the record, LOST first, takes
 * [head - size, head). */
bool rb_output_begin(struct rb_output *o, struct ring_buffer *rb, uint32_t size,
		     uint32_t lost_size, bool backward)
{
	o->rb = rb;
	if (rb->paused) {
		rb->lost++;
		return false;
	}
	uint64_t total = size + (rb->lost ? lost_size : 0);
	if (!room_for(rb, total, backward)) {
		rb->lost++;
		return false;
	}
	o->pos = backward ? rb->head - total : rb->head;
	o->end = o->pos + total;
	o->head = backward ? o->pos : o->end;
	o->size = total;
	o->lost = rb->lost;
	rb->lost = 0;
	return true;
}

void rb_output_copy(struct rb_output *o, const void *src, uint32_t len)
{
	put_bytes(o->rb, o->pos, src, len);
	o->pos += len;
}

static void wake(struct ring_buffer *rb)
{
	rb->wakeup_head = rb->written;
	rb->records = 0;
	__atomic_store_n(&rb->poll, 1, __ATOMIC_RELEASE);
	this_cpu()->perf_wakeup = true; /* poll_wake_all after perf_lock */
}

void rb_output_end(struct rb_output *o, uint32_t wakeup_events, uint64_t watermark)
{
	struct ring_buffer *rb = o->rb;
	rb->head = o->head;
	rb->written += o->size;
	__atomic_store_n(&rb->user_page->data_head, rb->head, __ATOMIC_RELEASE);
	/* Linux's rules: every wakeup_events records, and whenever more
	 * than the watermark (half the buffer unless the writer names a
	 * smaller one) was written since the last wake-up. */
	uint64_t mark = data_size(rb) / 2;
	if (watermark && watermark < data_size(rb))
		mark = watermark;
	if (wakeup_events && ++rb->records >= wakeup_events)
		wake(rb);
	else if (rb->written - rb->wakeup_head > mark)
		wake(rb);
}

unsigned rb_poll(struct ring_buffer *rb)
{
	return __atomic_exchange_n(&rb->poll, 0, __ATOMIC_ACQ_REL) ? 1 : 0;
}

/* Linux's PAUSE_OUTPUT acts on the buffer, whoever writes to it. */
int rb_set_paused(struct ring_buffer *rb, bool pause)
{
	if (!rb_has_data(rb))
		return -EINVAL;
	rb->paused = pause;
	return 0;
}
