/*
 * Record formatting: what an event writes into its ring buffer, in
 * Linux's layouts (PERF_RECORD_*). The files here build the bytes; the
 * ring buffer layer (ringbuf/) reserves space, applies back-pressure and
 * publishes them. Side-band records that the rest of the kernel asks
 * for (COMM, FORK, EXIT, MMAP) are declared in pmu/perf.h.
 *
 * Calling rule unless said otherwise: under perf_lock with interrupts
 * off, on the CPU whose task or context the record is about.
 */
#ifndef BAREMON_PMU_RECORDS_H
#define BAREMON_PMU_RECORDS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "ringbuf/ringbuf.h"

struct perf_event;
struct perf_hit;
struct pmu;
struct task;

/* output.c: one record of e, into the buffer it writes to (its own, or
 * its original's for an inherited copy). begin: false when it goes
 * nowhere (no buffer or no data pages) or was dropped (counted in the
 * buffer's LOST record and e's PERF_FORMAT_LOST); else the LOST record
 * owed is written and the caller copies `size` bytes. end: `sample`
 * says the record counts toward attr.wakeup_events. */
bool perf_output_begin(struct rb_output *o, struct perf_event *e, uint32_t size);
void perf_output_end(struct rb_output *o, struct perf_event *e, bool sample);
/* Where e's records go (NULL: nowhere). */
struct ring_buffer *perf_event_buffer(const struct perf_event *e);

/* sample_id.c: the sample_id_all trailer of e's non-sample records. */
uint32_t perf_sample_id_size(const struct perf_event *e);
void perf_put_sample_id(struct rb_output *o, const struct perf_event *e);

/* clock.c: attr.use_clockid. The time of e's records now; open's
 * check (0 or -EINVAL) of the clock for pmu and the group leader (not
 * under perf_lock). */
uint64_t perf_event_clock(const struct perf_event *e);
int perf_clock_check(const struct perf_event_attr *a, const struct pmu *pmu,
		     const struct perf_event *leader);

/* sample.c: one PERF_RECORD_SAMPLE for e; period is what it stands for. */
void perf_output_sample(struct perf_event *e, const struct perf_hit *hit, uint64_t period);

/* sideband.c: fn(e, arg) for every event of t's context and this
 * CPU's that side-band records go to (enabled, CPU matching, a buffer
 * to write to). */
void perf_sb_iterate(struct task *t, void (*fn)(struct perf_event *, void *), void *arg);

/* context_switch.c: PERF_RECORD_SWITCH / SWITCH_CPU_WIDE for a context
 * switch on this CPU, out of prev (current is prev) toward next, or
 * into next (current is next) from prev. Scheduler context: rq lock
 * held, interrupts off; takes perf_lock; pollers are woken later. */
void perf_record_switch(struct task *prev, struct task *next, bool in);

/* throttle_record.c: PERF_RECORD_THROTTLE or _UNTHROTTLE for e. */
void perf_record_throttle(struct perf_event *e, bool unthrottle);

/* read_record.c: PERF_RECORD_READ of inherited copy c
 * (attr.inherit_stat) into its original's buffer, as c leaves its task. */
void perf_record_read(struct perf_event *c);

#endif
