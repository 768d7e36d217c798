/*
 * The exporter: the export thread (export/serial_export.c, CPU 0) takes
 * the published bytes of each exported ring buffer - from the exporter's
 * position, which it keeps in data_tail, up to data_head - and sends
 * them as FRAME_EXPORT_DATA frames: payload = the u64 ring position of
 * the first byte, then up to EXPORT_CHUNK bytes. Records may straddle
 * frames; the host joins the bytes by position (a gap is a lost frame).
 *
 * Back-pressure: data_tail only moves once a frame was queued to the
 * line (all or nothing, serial_export_send), so when the line is slower
 * than the writer the ring fills, and the writer drops and counts
 * records as for any slow reader (PERF_RECORD_LOST, ringbuf/write.c).
 * Nothing is dropped here.
 *
 * Packing (export_pack, docs/export.md): on a UART, where the line and
 * not the CPU is the bound, frames carry whole records packed
 * (FRAME_EXPORT_PACKED, wire/pack.h): about 4 times the records a
 * frame. A record too large to pack into one frame goes unpacked, in
 * EXPORT_DATA frames up to its end (raw_until), so every packed frame
 * starts at a record boundary.
 *
 * Locking: export_lock (irqsave) guards which slot holds which rb and
 * the stopping flag; the thread reads them under it and sends outside
 * it. A stream's position (sent, seq) is only changed by the thread.
 * The thread frees a slot after its END frame (rb_put); a stopper
 * waits for that, and a stopper that gave up (timeout, signal) leaves
 * the thread to finish the stream, as it finishes one whose event and
 * mappings are all gone without a stop (the exporter's reference is
 * the last: record killed mid-run).
 */
#include <string.h>
#include <linux/errno.h>
#include "core/kernel.h"
#include "core/log.h"
#include "exporter.h"
#include "wire/frame.h"
#include "wire/pack.h"
#include "core/spinlock.h"
#include "serial_export.h"
#include "core/arch/tsc.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "core/proc/task.h"
#include "core/proc/waitq.h"

#define EXPORT_CHUNK (FRAME_MAX_PAYLOAD - 8)
#define FRAMES_PER_ROUND 8   /* per stream, so streams take turns */

struct stream {
	struct ring_buffer *rb;   /* NULL: free */
	uint64_t sent;            /* ring position of the next byte to send */
	uint32_t seq;             /* frames sent */
	uint64_t lost;            /* for the END frame */
	bool stopping;
	uint64_t last_progress;   /* ns: a frame went out */
	uint64_t first;           /* ring position at the start */
	uint64_t busy_ns;         /* the export thread's busy time at the start */
	uint64_t start_ns;        /* when it started */
	uint64_t raw_until;       /* packing: unpacked bytes up to here (a big record) */
	uint64_t line_bytes;      /* frame payload bytes sent: what the line carried */
};

static struct spinlock export_lock = SPINLOCK_INIT("exporter");
static struct stream streams[EXPORT_MAX_STREAMS];
static bool pack_records_on;   /* decided at the first start */

static uint64_t data_size(const struct ring_buffer *rb)
{
	return rb->nr_pages * PAGE_SIZE;
}

/* Copy n bytes from ring position pos, across page and wrap edges. */
static void get_bytes(struct ring_buffer *rb, uint64_t pos, uint8_t *dst, uint64_t n)
{
	while (n) {
		uint64_t off = pos & (data_size(rb) - 1);
		uint64_t in_page = PAGE_SIZE - off % PAGE_SIZE;
		uint64_t k = n < in_page ? n : in_page;
		memcpy(dst, (uint8_t *)shm_kaddr(rb->shm, 1 + off / PAGE_SIZE) + off % PAGE_SIZE, k);
		dst += k;
		pos += k;
		n -= k;
	}
}

static bool send_frame(struct frame *f)
{
	static uint8_t wire[FRAME_MAX_WIRE];   /* the export thread's only */
	size_t n = frame_encode(f, wire);
	return n && serial_export_send(wire, n);
}

/* Packed records from s->sent into f; the ring bytes they stand for,
 * or 0 when the next record does not pack (raw_until then ends it). */
static uint64_t pack_frame(struct stream *s, uint64_t avail, struct frame *f)
{
	static uint8_t linear[PACK_RAW_MAX];   /* the export thread's only */
	size_t n = avail < PACK_RAW_MAX ? avail : PACK_RAW_MAX, used;
	get_bytes(s->rb, s->sent, linear, n);
	size_t m = pack_records(linear, n, f->payload + 8, FRAME_MAX_PAYLOAD - 8, &used);
	if (used) {
		f->type = FRAME_EXPORT_PACKED;
		f->len = (uint16_t)(8 + m);
		return used;
	}
	size_t size = n >= 8 ? (size_t)get_le16(linear + 6) : 0;
	s->raw_until = s->sent + (size >= 8 && size <= avail ? size : avail);
	return 0;
}

/* The next frame of stream s into f (payload after the position);
 * the ring bytes it carries. */
static uint64_t make_frame(struct stream *s, uint64_t head, struct frame *f)
{
	uint64_t avail = head - s->sent;
	if (pack_records_on && s->sent >= s->raw_until) {
		uint64_t used = pack_frame(s, avail, f);
		if (used)
			return used;
	}
	uint64_t n = avail < EXPORT_CHUNK ? avail : EXPORT_CHUNK;
	if (pack_records_on && s->raw_until - s->sent < n)
		n = s->raw_until - s->sent;
	f->type = FRAME_EXPORT_DATA;
	f->len = (uint16_t)(8 + n);
	get_bytes(s->rb, s->sent, f->payload + 8, n);
	return n;
}

/* Up to FRAMES_PER_ROUND frames of stream i; true when any went. */
static bool pump_stream(int i)
{
	static struct frame f;   /* the export thread's only */
	struct stream *s = &streams[i];
	struct ring_buffer *rb = s->rb;
	bool moved = false;
	for (int k = 0; k < FRAMES_PER_ROUND; k++) {
		uint64_t head = __atomic_load_n(&rb->user_page->data_head, __ATOMIC_ACQUIRE);
		if (head == s->sent)
			break;
		f.channel = (uint8_t)i;
		f.flags = 0;
		f.seq = s->seq;
		put_le64(f.payload, s->sent);
		uint64_t n = make_frame(s, head, &f);
		if (!send_frame(&f))
			break;   /* the line is full: data_tail holds */
		s->line_bytes += f.len;
		s->sent += n;
		s->seq++;
		s->last_progress = time_since_boot_ns();
		__atomic_store_n(&rb->user_page->data_tail, s->sent, __ATOMIC_RELEASE);
		moved = true;
	}
	return moved;
}

/* A stopping stream with nothing left: its END frame. */
static bool end_stream(int i)
{
	static struct frame f;
	struct stream *s = &streams[i];
	f = (struct frame){ .type = FRAME_EXPORT_END, .channel = (uint8_t)i, .seq = s->seq,
			    .len = 16 };
	put_le64(f.payload, s->sent);
	put_le64(f.payload + 8, s->lost);
	if (!send_frame(&f))
		return false;
	/* Under -icount shift=0 with one CPU a busy ns is an instruction
	 * of that CPU: host/bench/export-bench.sh reads this line. */
	klog("export: channel %d ended: %llu bytes in %u frames over %llu ns; the export "
	     "thread was busy %llu ns meanwhile; %llu payload bytes on the line%s", i,
	     (unsigned long long)(s->sent - s->first), s->seq,
	     (unsigned long long)(time_since_boot_ns() - s->start_ns),
	     (unsigned long long)(serial_export_busy_ns() - s->busy_ns),
	     (unsigned long long)s->line_bytes, pack_records_on ? " (packed)" : "");
	struct ring_buffer *rb = s->rb;
	uint64_t fl = spin_lock_irqsave(&export_lock);
	s->rb = NULL;   /* the slot is free; rb_export_stop sees it gone */
	spin_unlock_irqrestore(&export_lock, fl);
	rb_put(rb);
	return true;
}

/* The export thread's producer: one round over the streams. */
static bool exporter_poll(void)
{
	bool moved = false;
	for (int i = 0; i < EXPORT_MAX_STREAMS; i++) {
		/* A free slot is passed without the lock: a stream started
		 * meanwhile is seen next round. Taking the lock 32 times a
		 * round cost more than the bytes a paced round sends. */
		if (!__atomic_load_n(&streams[i].rb, __ATOMIC_ACQUIRE))
			continue;
		uint64_t fl = spin_lock_irqsave(&export_lock);
		struct ring_buffer *rb = streams[i].rb;
		bool live = rb != NULL;
		/* Orphaned: the exporter holds the last reference (the event
		 * and every mapping are gone: nobody writes; no EXPORT 0 will
		 * come). End it as if stopped, or its slot stays taken. */
		if (live && !streams[i].stopping && __atomic_load_n(&rb->refs, __ATOMIC_ACQUIRE) == 1) {
			streams[i].lost = rb->lost;
			streams[i].stopping = true;
		}
		bool stopping = streams[i].stopping;
		spin_unlock_irqrestore(&export_lock, fl);
		if (!live)
			continue;
		moved |= pump_stream(i);
		uint64_t head = __atomic_load_n(&streams[i].rb->user_page->data_head,
						__ATOMIC_ACQUIRE);
		if (stopping && head == streams[i].sent)
			moved |= end_stream(i);
	}
	return moved;
}

int rb_export_start(struct ring_buffer *rb)
{
	if (!rb_has_data(rb) || !rb->writable)
		return -EINVAL;
	static bool decided;
	if (!__atomic_load_n(&decided, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&pack_records_on, serial_export_wants_packing(), __ATOMIC_RELAXED);
		__atomic_store_n(&decided, true, __ATOMIC_RELEASE);
	}
	int r = -ENOSPC;
	uint64_t fl = spin_lock_irqsave(&export_lock);
	for (int i = 0; i < EXPORT_MAX_STREAMS; i++)
		if (streams[i].rb == rb) {
			r = -EBUSY;
			goto out;
		}
	for (int i = 0; i < EXPORT_MAX_STREAMS; i++)
		if (!streams[i].rb) {
			rb_get(rb);
			uint64_t tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
			streams[i] = (struct stream){
				.rb = rb,
				.sent = tail,
				.first = tail,
				.last_progress = time_since_boot_ns(),
				.busy_ns = serial_export_busy_ns(),
				.start_ns = time_since_boot_ns(),
			};
			r = i;
			break;
		}
out:
	spin_unlock_irqrestore(&export_lock, fl);
	if (r >= 0) {
		serial_export_set_producer(exporter_poll);
		serial_export_start_thread();
	}
	return r;
}

static int find(struct ring_buffer *rb)
{
	for (int i = 0; i < EXPORT_MAX_STREAMS; i++)
		if (streams[i].rb == rb)
			return i;
	return -1;
}

/* Sleep 10 ms (no wake-up needed: the caller re-checks). */
static void nap(void)
{
	current->state = TASK_SLEEPING;
	schedule_until(time_since_boot_ns() + 10000000ULL);
	current->state = TASK_RUNNABLE;
}

int rb_export_stop(struct ring_buffer *rb, uint64_t lost)
{
	uint64_t fl = spin_lock_irqsave(&export_lock);
	int i = find(rb);
	if (i >= 0) {
		streams[i].lost = lost;
		streams[i].stopping = true;
	}
	spin_unlock_irqrestore(&export_lock, fl);
	if (i < 0)
		return -ENOENT;
	int r = 0;
	for (;;) {
		fl = spin_lock_irqsave(&export_lock);
		bool ended = streams[i].rb != rb;
		uint64_t last = streams[i].last_progress;
		spin_unlock_irqrestore(&export_lock, fl);
		if (ended)
			break;
		if (time_since_boot_ns() - last > EXPORT_STOP_S * 1000000000ULL) {
			r = -ETIMEDOUT;
			break;
		}
		if (signal_pending_current()) {
			r = -EINTR;
			break;
		}
		nap();
	}
	return r;
}
