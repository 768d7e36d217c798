/*
 * Writing records into a perf ring buffer. data_head is the kernel's,
 * data_tail the reader's; both only grow, positions wrap modulo
 * data_size (a power of two). A writable mapping (PROT_WRITE) means
 * the reader releases space through data_tail and the kernel never
 * overwrites what it has not released; a read-only mapping is
 * overwrite mode (the oldest records are lost, nothing is counted).
 *
 * Locking: under perf_lock (one writer at a time per buffer, even when
 * several events share it). The reader runs concurrently: data_tail is
 * read with acquire, data_head written with release after the bytes.
 */
#include <string.h>
#include "event.h"
#include "kernel.h"
#include "mm.h"
#include "percpu.h"
#include "ringbuf.h"
#include "usermm.h"

static uint64_t data_size(const struct perf_buffer *rb)
{
	return rb->nr_pages * PAGE_SIZE;
}

static bool room_for(struct perf_buffer *rb, uint64_t size)
{
	if (!rb->writable)
		return size <= data_size(rb);
	uint64_t tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
	return rb->head + size - tail <= data_size(rb);
}

/* Copy len bytes to data position pos, across page and wrap edges. */
static void put_bytes(struct perf_buffer *rb, uint64_t pos, const void *src, uint64_t len)
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

/* PERF_RECORD_LOST {header, id, lost} (+ sample_id_all trailer: not yet). */
static void put_lost(struct perf_buffer *rb, struct perf_event *e)
{
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} rec = { { PERF_RECORD_LOST, 0, sizeof(rec) }, e->id, rb->lost };
	put_bytes(rb, rb->head, &rec, sizeof(rec));
	rb->head += sizeof(rec);
	rb->lost = 0;
}

struct perf_buffer *perf_event_buffer(const struct perf_event *e)
{
	while (e->parent) /* inherited copies write to the original's */
		e = e->parent;
	return e->rb;
}

bool rb_output_begin(struct perf_output *o, struct perf_event *e, uint32_t size)
{
	struct perf_buffer *rb = perf_event_buffer(e);
	o->rb = rb;
	if (!rb || !rb->nr_pages)
		return false;
	uint64_t lost_size = rb->lost ? 3 * sizeof(uint64_t) : 0;
	if (!room_for(rb, lost_size + size)) {
		rb->lost++;
		return false;
	}
	if (rb->lost)
		put_lost(rb, e);
	o->pos = rb->head;
	o->end = rb->head + size;
	return true;
}

void rb_output_copy(struct perf_output *o, const void *src, uint32_t len)
{
	put_bytes(o->rb, o->pos, src, len);
	o->pos += len;
}

static void wake(struct perf_buffer *rb)
{
	rb->wakeup_head = rb->head;
	rb->records = 0;
	__atomic_store_n(&rb->poll, 1, __ATOMIC_RELEASE);
	this_cpu()->perf_wakeup = true; /* poll_wake_all after perf_lock */
}

void rb_output_end(struct perf_output *o, struct perf_event *e, bool sample)
{
	struct perf_buffer *rb = o->rb;
	rb->head = o->end;
	__atomic_store_n(&rb->user_page->data_head, rb->head, __ATOMIC_RELEASE);
	/* Linux's rules: every wakeup_events samples (without watermark),
	 * and whenever more than the watermark (wakeup_watermark with
	 * attr.watermark, else half the buffer) was written since the last
	 * wake-up. */
	uint64_t mark = data_size(rb) / 2;
	if (e->attr.watermark && e->attr.wakeup_watermark &&
	    e->attr.wakeup_watermark < data_size(rb))
		mark = e->attr.wakeup_watermark;
	if (!e->attr.watermark && e->attr.wakeup_events && sample &&
	    ++rb->records >= e->attr.wakeup_events)
		wake(rb);
	else if (rb->head - rb->wakeup_head > mark)
		wake(rb);
}

unsigned rb_poll(struct perf_buffer *rb)
{
	return __atomic_exchange_n(&rb->poll, 0, __ATOMIC_ACQ_REL) ? 1 : 0;
}
