/*
 * Writing records into a perf ring buffer. data_head is the kernel's,
 * data_tail the reader's; positions wrap modulo data_size (a power of
 * two). data_head grows, or with attr.write_backward shrinks from 0
 * (as a u64: the newest record starts at data_head, older ones follow
 * it). A writable mapping (PROT_WRITE) means
 * the reader releases space through data_tail and the kernel never
 * overwrites what it has not released; a read-only mapping is
 * overwrite mode (the oldest records are lost, nothing is counted).
 *
 * Locking: under perf_lock (one writer at a time per buffer, even when
 * several events share it). The reader runs concurrently: data_tail is
 * read with acquire, data_head written with release after the bytes.
 */
#include <string.h>
#include "pmu/event.h"
#include "kernel.h"
#include "mm/mm.h"
#include "arch/percpu.h"
#include "ringbuf.h"
#include "mm/usermm.h"

static uint64_t data_size(const struct perf_buffer *rb)
{
	return rb->nr_pages * PAGE_SIZE;
}

/* Linux's ring_buffer_has_space: a writable buffer keeps one byte
 * free between head and tail (CIRC_SPACE), so it never fills to the
 * last byte; backward, the free space runs from head down to tail. */
static bool room_for(struct perf_buffer *rb, uint64_t size, bool backward)
{
	if (!rb->writable)
		return size <= data_size(rb);
	uint64_t tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
	uint64_t mask = data_size(rb) - 1;
	uint64_t space = backward ? (rb->head - tail - 1) & mask : (tail - rb->head - 1) & mask;
	return space >= size;
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

static struct perf_event *root_of(const struct perf_event *e)
{
	while (e->parent) /* inherited copies write to the original's */
		e = e->parent;
	return (struct perf_event *)e;
}

struct perf_buffer *perf_event_buffer(const struct perf_event *e)
{
	return root_of(e)->rb;
}

static uint32_t lost_size(struct perf_event *root)
{
	return 3 * sizeof(uint64_t) + rb_id_size(root);
}

/* PERF_RECORD_LOST {header, id, lost, sample_id} for the records
 * dropped since the last one written, at the start of o's space. */
static void put_lost(struct perf_output *o, struct perf_event *root)
{
	struct perf_buffer *rb = o->rb;
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} rec = { { PERF_RECORD_LOST, 0, (uint16_t)lost_size(root) }, root->id, rb->lost };
	rb_output_copy(o, &rec, sizeof(rec));
	rb_put_id(o, root);
	rb->lost = 0;
}

/* Linux's __perf_output_begin: a paused buffer (PAUSE_OUTPUT) or one
 * without room drops the record and counts it; the count goes out as a
 * LOST record just before the next record that fits. Backward
 * (attr.write_backward): head decreases and the record, LOST first,
 * takes [head - size, head). */
bool rb_output_begin(struct perf_output *o, struct perf_event *e, uint32_t size)
{
	struct perf_event *root = root_of(e);
	struct perf_buffer *rb = root->rb;
	o->rb = rb;
	if (!rb || !rb->nr_pages)
		return false;
	if (rb->paused) {
		rb->lost++;
		root->lost_samples++; /* PERF_FORMAT_LOST, as Linux */
		return false;
	}
	bool backward = e->attr.write_backward;
	uint64_t total = size + (rb->lost ? lost_size(root) : 0);
	if (!room_for(rb, total, backward)) {
		rb->lost++;
		root->lost_samples++;
		return false;
	}
	o->pos = backward ? rb->head - total : rb->head;
	o->end = o->pos + total;
	o->head = backward ? o->pos : o->end;
	o->size = total;
	if (rb->lost)
		put_lost(o, root);
	return true;
}

void rb_output_copy(struct perf_output *o, const void *src, uint32_t len)
{
	put_bytes(o->rb, o->pos, src, len);
	o->pos += len;
}

static void wake(struct perf_buffer *rb)
{
	rb->wakeup_head = rb->written;
	rb->records = 0;
	__atomic_store_n(&rb->poll, 1, __ATOMIC_RELEASE);
	this_cpu()->perf_wakeup = true; /* poll_wake_all after perf_lock */
}

void rb_output_end(struct perf_output *o, struct perf_event *e, bool sample)
{
	struct perf_buffer *rb = o->rb;
	rb->head = o->head;
	rb->written += o->size;
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
	else if (rb->written - rb->wakeup_head > mark)
		wake(rb);
}

unsigned rb_poll(struct perf_buffer *rb)
{
	return __atomic_exchange_n(&rb->poll, 0, __ATOMIC_ACQ_REL) ? 1 : 0;
}
