/*
 * The perf ring buffer behind an event's mmap: one control page (struct
 * perf_event_mmap_page) and 0 or 2^n data pages, shared between the
 * kernel (its direct map) and every process that maps it.
 *
 * Lifetime: counted references (rb->refs): the event that owns it
 * (e->rb) and each vma mapping it. rb->mmap_count counts the vmas; when
 * it drops to 0 the locked-memory charge is returned and the event
 * drops the buffer at its next mmap or when freed.
 */
#ifndef BAREMON_RINGBUF_H
#define BAREMON_RINGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct perf_event;
struct shared_anon;
struct file;
struct mm;

struct perf_buffer {
	int refs;                  /* atomic */
	int mmap_count;            /* atomic: vmas mapping it */
	uint64_t nr_pages;         /* data pages: 0 or a power of two */
	bool writable;             /* mapped PROT_WRITE: data_tail is honoured */
	struct shared_anon *shm;   /* 1 + nr_pages pages */
	struct perf_event_mmap_page *user_page;
	/* Writing (write.c), under perf_lock: */
	uint64_t head;             /* data_head: where the next record goes
				    * (forward) or where the last one
				    * starts (write_backward) */
	uint64_t written;          /* bytes written, either direction */
	bool paused;               /* PERF_EVENT_IOC_PAUSE_OUTPUT: drop, count */
	uint64_t lost;             /* records dropped, not yet reported */
	uint64_t wakeup_head;      /* written at the last wake-up (watermark) */
	uint64_t records;          /* samples since the last wake-up */
	int poll;                  /* POLLIN owed to poll() (atomic) */
	uint32_t uid;              /* charged: the mapper's locked_vm ... */
	uint64_t charged_user;     /* ... pages charged to uid */
	uint64_t charged_pinned;   /* ... pages charged to the mm's pinned_vm */
	bool rdpmc;                /* its mappings allow RDPMC (pmu/rdpmc.c) */
};

/* file_ops.mmap of a perf event fd (Linux's perf_mmap rules). */
int perf_mmap(struct file *f, struct mm *mm, uint64_t addr, uint64_t len,
	      int prot, int flags, uint64_t off);
/* Send e's records to out's buffer (NULL: back to none). 0 or -EINVAL
 * (Linux's restrictions, see output.c). */
int rb_set_output(struct perf_event *e, struct perf_event *out);
/* Drop the event's reference (the event is being freed). */
void rb_put(struct perf_buffer *rb);
/* Writing one record: begin with its total size (a multiple of 8), copy
 * its parts, end. begin fails (false) when a writable buffer lacks the
 * room the reader has not released (data_tail): the record is dropped
 * and counted, and a PERF_RECORD_LOST goes out before the next one that
 * fits. Under perf_lock, on any CPU. */
struct perf_output {
	struct perf_buffer *rb;
	uint64_t pos;              /* where the next byte goes */
	uint64_t end;
	uint64_t head;             /* data_head once it is published */
	uint64_t size;             /* bytes reserved, LOST record included */
};
bool rb_output_begin(struct perf_output *o, struct perf_event *e, uint32_t size);
/* Where e's records go: its own buffer, or its original's for an
 * inherited copy (NULL: nowhere). */
struct perf_buffer *perf_event_buffer(const struct perf_event *e);
void rb_output_copy(struct perf_output *o, const void *src, uint32_t len);
/* Publish data_head; wake pollers per wakeup_events / wakeup_watermark
 * (`sample`: the record counts toward wakeup_events). */
void rb_output_end(struct perf_output *o, struct perf_event *e, bool sample);
/* poll(): POLLIN once per wake-up, as Linux's perf_poll. */
unsigned rb_poll(struct perf_buffer *rb);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on e's buffer: 0, or -EINVAL when it
 * has no data pages (output.c). */
int rb_pause(struct perf_event *e, bool pause);

/* sample_id_all trailer of e's non-sample records (trailer.c). */
uint32_t rb_id_size(const struct perf_event *e);
void rb_put_id(struct perf_output *o, const struct perf_event *e);

/* clock.c: attr.use_clockid. The time of e's records now; open's
 * check (0 or -EINVAL) of the clock for pmu and the group leader. */
struct pmu;
uint64_t perf_event_clock(const struct perf_event *e);
int perf_clock_check(const struct perf_event_attr *a, const struct pmu *pmu,
		     const struct perf_event *leader);

/* sideband.c: fn(e, arg) for every event of t's context and this
 * CPU's that side-band records go to (enabled, CPU matching, a buffer
 * to write to). Under perf_lock. */
struct task;
void perf_sb_iterate(struct task *t, void (*fn)(struct perf_event *, void *), void *arg);

/* switch.c: PERF_RECORD_SWITCH / SWITCH_CPU_WIDE for a context switch
 * on this CPU, out of prev (current is prev) toward next, or into next
 * (current is next) from prev. Scheduler context: rq lock held,
 * interrupts off; takes perf_lock; pollers are woken later. */
void perf_record_switch(struct task *prev, struct task *next, bool in);

/* read.c: PERF_RECORD_READ of inherited copy c (attr.inherit_stat)
 * into its original's buffer, as c leaves its task. Under perf_lock. */
void perf_record_read(struct perf_event *c);

/* buildid.c: the NT_GNU_BUILD_ID of a checked ELF image into out
 * (zero-filled to BUILD_ID_MAX); its length, 0 if it has none. */
#define BUILD_ID_MAX 20
unsigned elf_build_id(const void *img, size_t len, uint8_t out[BUILD_ID_MAX]);

/* ksymbol.c: KSYMBOL for the kernel's text into e's new buffer
 * (attr.ksymbol; a baremon addition). Under perf_lock. */
void perf_record_kernel_ksymbol(struct perf_event *e);

/* One PERF_RECORD_SAMPLE for e (sample.c): period is what it stands for. */
struct perf_hit;
void perf_output_sample(struct perf_event *e, const struct perf_hit *hit, uint64_t period);

/* Rewrite the control page's counter fields (count, times, index) for
 * e at `now` (ns since boot). Under perf_lock. */
void rb_update_userpage(struct perf_event *e, uint64_t now);

#endif
