/*
 * The ring buffer layer: one control page (struct perf_event_mmap_page)
 * and 0 or 2^n data pages, shared between the kernel (its direct map)
 * and every process that maps them. It moves bytes and knows nothing of
 * events: what a record says is the writer's business (pmu/records/),
 * and the writer passes what the ring needs (direction, wake-up
 * thresholds, the size of its LOST record).
 *
 * Lifetime: counted references (rb->refs): each owner's pointer (an
 * event's, and every event whose output was redirected to it) and each
 * vma mapping it. rb->mmap_count counts the vmas; when it drops to 0
 * the locked-memory charge is returned, and the owner drops the buffer
 * when it wants a new one or goes.
 *
 * Locking: writers take no lock (write.c): any context, an NMI
 * included, may write a buffer on any CPU, nested in another writer;
 * the writer's fields (head ... records) are atomics. PAUSE_OUTPUT and
 * redirection are under perf_lock. refs, mmap_count and poll are
 * atomics. rb_lock (mlock.c) guards the per-user locked-page table and
 * nests inside perf_lock.
 */
#ifndef BAREMON_RINGBUF_H
#define BAREMON_RINGBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct shared_anon;
struct mm;

struct ring_buffer {
	int refs;                  /* atomic */
	int mmap_count;            /* atomic: vmas mapping it */
	uint64_t nr_pages;         /* data pages: 0 or a power of two */
	bool writable;             /* mapped PROT_WRITE: data_tail is honoured */
	struct shared_anon *shm;   /* 1 + nr_pages pages */
	struct perf_event_mmap_page *user_page;
	/* Writing (write.c), lock-free, every field atomic: */
	uint64_t head;             /* reserved up to here: where the next
				    * record goes (forward) or where the
				    * last one starts (backward) */
	int nest;                  /* writers between begin and end */
	bool backward;             /* the writers' direction */
	uint64_t written;          /* bytes written, either direction */
	bool paused;               /* PERF_EVENT_IOC_PAUSE_OUTPUT: drop, count */
	uint64_t lost;             /* records dropped, not yet reported */
	uint64_t wakeup_head;      /* written at the last wake-up (watermark) */
	uint64_t records;          /* samples since the last wake-up */
	int poll;                  /* POLLIN owed to poll() (atomic) */
	uint32_t uid;              /* charged: the mapper's locked_vm ... */
	uint64_t charged_user;     /* ... pages charged to uid */
	uint64_t charged_pinned;   /* ... pages charged to the mm's pinned_vm */
	/* Called with each mapping's mm as it goes, when the owner set it
	 * (pmu: RDPMC rights that the mappings grant); under the mm lock. */
	void (*unmapped)(struct mm *mm);
};

/* ---- the buffer (buffer.c) ---- */

/* A new buffer of nr_pages data pages (0 or 2^n), one reference, not
 * mapped; NULL without memory. Not under a spinlock (it allocates). */
struct ring_buffer *rb_alloc(uint64_t nr_pages, bool writable);
void rb_get(struct ring_buffer *rb);
/* Drop a reference; the last one frees the pages. Any context. */
void rb_put(struct ring_buffer *rb);
/* Some vma maps it now. */
bool rb_is_mapped(const struct ring_buffer *rb);
/* It has data pages: records can go in (a control-page-only buffer
 * takes none). */
bool rb_has_data(const struct ring_buffer *rb);

/* ---- mapping (mapping.c) and locked-memory accounting (mlock.c) ---- */

/* Charge the 1 + nr_pages pages of a new buffer to the current task's
 * user (perf_event_mlock_kb per online CPU, then the mm's
 * RLIMIT_MEMLOCK): 0, -EPERM past the limits, -ENOMEM when the user
 * table is full. Takes rb_lock; the caller may hold the writers' lock. */
int rb_charge(struct ring_buffer *rb, struct mm *mm, uint64_t pages);
/* Return the charge (the last mapping went). */
void rb_uncharge(struct ring_buffer *rb, struct mm *mm);
/* One more mapping is about to be made: a reference and a mapping
 * counted, which rb_map's vma (or its failure) gives back. */
void rb_get_mapping(struct ring_buffer *rb);
/* Map the control page and data pages at addr (len bytes, shared) into
 * mm: 0 or -errno. The vma's close gives back what rb_get_mapping took
 * and, with the last mapping, the charge; a failure gives it back now. */
int rb_map(struct ring_buffer *rb, struct mm *mm, uint64_t addr, uint64_t len, int prot);

/* ---- redirection (redirect.c) ---- */

/* Point *slot (an owner's buffer pointer) at `to` (NULL: none), moving
 * the references: 0, or -EINVAL when *slot's buffer is mapped or `to`
 * is not (Linux's perf_event_set_output rules for the buffers). Under
 * the writers' lock. */
int rb_redirect(struct ring_buffer **slot, struct ring_buffer *to);

/* ---- writing (write.c): any context (NMI included), any CPU, no lock ---- */

/* Writing one record: begin with its total size (a multiple of 8), copy
 * its parts, end. */
struct rb_output {
	struct ring_buffer *rb;
	uint64_t pos;              /* where the next byte goes */
	uint64_t end;
	uint64_t head;             /* data_head once it is published */
	uint64_t size;             /* bytes reserved, LOST record included */
	uint64_t lost;             /* records dropped before this one ... */
	bool lost_record;          /* ... when the writer puts a LOST record
				    * first (lost may be 0: a nested writer
				    * reported them) */
};
/* Reserve `size` bytes in rb (which has data pages), plus `lost_size`
 * when records were dropped since the last one written (o->lost says
 * how many; the count restarts). False when the buffer is paused or a
 * writable buffer lacks the room its reader has not released
 * (data_tail): the record is dropped and counted. `backward`: head
 * decreases and the record takes [head - size, head). */
bool rb_output_begin(struct rb_output *o, struct ring_buffer *rb, uint32_t size,
		     uint32_t lost_size, bool backward);
void rb_output_copy(struct rb_output *o, const void *src, uint32_t len);
/* End the record; the last writer out publishes data_head. Owe
 * pollers a wake-up every `wakeup_events` records (0: not counted) and
 * whenever more than `watermark` bytes (0 or beyond the buffer: half of
 * it) were written since the last one. True if this record owed one. */
bool rb_output_end(struct rb_output *o, uint32_t wakeup_events, uint64_t watermark);
/* poll(): POLLIN once per wake-up, as Linux's perf_poll. */
unsigned rb_poll(struct ring_buffer *rb);
/* PERF_EVENT_IOC_PAUSE_OUTPUT: while paused every record is dropped and
 * counted. 0, or -EINVAL without data pages. */
int rb_set_paused(struct ring_buffer *rb, bool pause);

/* ---- the control page (control_page.c) ---- */

/* Rewrite the control page's fields under its seqlock: begin returns
 * the page with `lock` odd, end makes it even again. The writer fills
 * what it knows (counter index, offset, times, caps); the ring owns
 * data_head, data_tail, data_offset and data_size. */
struct perf_event_mmap_page *rb_userpage_begin(struct ring_buffer *rb);
void rb_userpage_end(struct ring_buffer *rb);

#endif
