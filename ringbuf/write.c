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
 * Who writes, from where (Linux's perf_output_begin/end): any context
 * - a task or an interrupt holding the writers' lock (perf_lock), an
 * NMI holding nothing, on any CPU - may write any ring at any time,
 * nested in another writer of the same ring or beside one on another
 * CPU. No lock is taken here:
 *
 *   - rb->nest counts the writers between begin and end (atomic);
 *   - a writer reserves [pos, pos + size) by moving rb->head with a
 *     compare-and-swap, after checking the room against data_tail; the
 *     reserved bytes are its alone until its end;
 *   - data_head is published only by a writer that takes nest to 0 -
 *     no record is half-written then - and again if rb->head moved
 *     meanwhile (a writer that nested in the publish); it only moves
 *     forward (backward for a backward ring), so a stale publish from
 *     another CPU never takes it back;
 *   - a record that does not fit, or a paused ring, counts in rb->lost
 *     (atomic); the next writer takes the count with an exchange and
 *     puts a LOST record first;
 *   - the wake-up bookkeeping (written, records, wakeup_head) is atomic
 *     increments and stores: a race moves a wake-up by a record, never
 *     loses data. A wake-up only sets poll and this CPU's perf_wakeup;
 *     the pollers are woken later (perf_wakeup_pending, from irq_work
 *     after an NMI), outside any writer.
 *
 * The reader runs concurrently: data_tail is read with acquire,
 * data_head written with release after the bytes.
 */
#include <string.h>
#include <linux/errno.h>
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "ringbuf.h"
#include "core/mm/usermm.h"

static uint64_t data_size(const struct ring_buffer *rb)
{
	return rb->nr_pages * PAGE_SIZE;
}

/* Linux's ring_buffer_has_space, for a head of `head`: a writable
 * buffer keeps one byte free between head and tail (CIRC_SPACE), so it
 * never fills to the last byte; backward, the free space runs from head
 * down to tail. */
static bool room_for(struct ring_buffer *rb, uint64_t head, uint64_t size, bool backward)
{
	if (!rb->writable)
		return size <= data_size(rb);
	uint64_t tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
	uint64_t mask = data_size(rb) - 1;
	uint64_t space = backward ? (head - tail - 1) & mask : (tail - head - 1) & mask;
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

/* data_head = head, unless a publish from another CPU already put it
 * further (forward, or backward for a backward ring: data_head only
 * moves one way). */
static void publish(struct ring_buffer *rb, uint64_t head)
{
	__u64 *dh = &rb->user_page->data_head;
	__u64 cur = __atomic_load_n(dh, __ATOMIC_RELAXED);
	bool backward = rb->backward;
	while (cur != head && (int64_t)(backward ? cur - head : head - cur) > 0)
		if (__atomic_compare_exchange_n(dh, &cur, head, false, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return;
}

/* Linux's perf_output_put_handle: the writer leaves; the last one out
 * publishes data_head, and publishes again if a writer that nested
 * meanwhile moved rb->head (its own leaving saw nest > 0). */
static void put_handle(struct ring_buffer *rb)
{
	uint64_t head;
again:
	head = __atomic_load_n(&rb->head, __ATOMIC_ACQUIRE);
	if (__atomic_sub_fetch(&rb->nest, 1, __ATOMIC_ACQ_REL))
		return;
	publish(rb, head);
	if (__atomic_load_n(&rb->head, __ATOMIC_ACQUIRE) != head) {
		__atomic_add_fetch(&rb->nest, 1, __ATOMIC_ACQ_REL);
		goto again;
	}
}

static void count_lost(struct ring_buffer *rb)
{
	__atomic_add_fetch(&rb->lost, 1, __ATOMIC_RELAXED);
	put_handle(rb);
}

/* Move rb->head past `total` bytes if they fit: where the record
 * starts, or false. */
static bool reserve(struct ring_buffer *rb, uint64_t total, bool backward, uint64_t *pos)
{
	uint64_t old = __atomic_load_n(&rb->head, __ATOMIC_ACQUIRE), next;
	do {
		if (!room_for(rb, old, total, backward))
			return false;
		next = backward ? old - total : old + total;
	} while (!__atomic_compare_exchange_n(&rb->head, &old, next, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE));
	*pos = backward ? next : old;
	return true;
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
	rb->backward = backward; /* every writer of a ring agrees (set_output) */
	__atomic_add_fetch(&rb->nest, 1, __ATOMIC_ACQ_REL);
	if (__atomic_load_n(&rb->paused, __ATOMIC_RELAXED)) {
		count_lost(rb);
		return false;
	}
	bool have_lost = __atomic_load_n(&rb->lost, __ATOMIC_RELAXED) != 0;
	uint64_t total = size + (have_lost ? lost_size : 0);
	if (!reserve(rb, total, backward, &o->pos)) {
		count_lost(rb);
		return false;
	}
	o->end = o->pos + total;
	o->size = total;
	o->lost_record = have_lost;
	/* A writer nested since the load may have reported them: then this
	 * LOST record says 0, as Linux's may. */
	o->lost = have_lost ? __atomic_exchange_n(&rb->lost, 0, __ATOMIC_RELAXED) : 0;
	return true;
}

void rb_output_copy(struct rb_output *o, const void *src, uint32_t len)
{
	put_bytes(o->rb, o->pos, src, len);
	o->pos += len;
}

static void wake(struct ring_buffer *rb, uint64_t written)
{
	__atomic_store_n(&rb->wakeup_head, written, __ATOMIC_RELAXED);
	__atomic_store_n(&rb->records, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&rb->poll, 1, __ATOMIC_RELEASE);
	this_cpu()->perf_wakeup = true; /* the pollers: perf_wakeup_pending() */
}

void rb_output_end(struct rb_output *o, uint32_t wakeup_events, uint64_t watermark)
{
	struct ring_buffer *rb = o->rb;
	uint64_t written = __atomic_add_fetch(&rb->written, o->size, __ATOMIC_RELAXED);
	/* Linux's rules: every wakeup_events records, and whenever more
	 * than the watermark (half the buffer unless the writer names a
	 * smaller one) was written since the last wake-up. */
	uint64_t mark = data_size(rb) / 2;
	if (watermark && watermark < data_size(rb))
		mark = watermark;
	if (wakeup_events &&
	    __atomic_add_fetch(&rb->records, 1, __ATOMIC_RELAXED) >= wakeup_events)
		wake(rb, written);
	else if (written - __atomic_load_n(&rb->wakeup_head, __ATOMIC_RELAXED) > mark)
		wake(rb, written);
	put_handle(rb);
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
	__atomic_store_n(&rb->paused, pause, __ATOMIC_RELAXED);
	return 0;
}
