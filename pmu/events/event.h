/*
 * The event core's data. An event counts for one task (task != NULL,
 * cpu -1 or a CPU) or for one CPU (task == NULL). A group is a leader and
 * its siblings, always scheduled together.
 *
 * Locking: perf_lock (core.c, irqsave) protects every event list (task
 * contexts, CPU contexts, group sibling lists, owner lists, inherited
 * children) and every event's state, times and count. The scheduler hooks
 * take it too; they run with interrupts off already.
 *
 * Counters: a CPU's counters are programmed only on that CPU (pmu.h).
 * An event is ACTIVE only while on the counters of e->oncpu; changes to
 * an event whose context is on another CPU's counters go there by IPI
 * (perf_ctx_call). A task context is on a CPU's counters from
 * perf_sched_in to perf_sched_out (task->perf_cpu), under perf_lock.
 */
#ifndef BAREMON_PMU_EVENT_H
#define BAREMON_PMU_EVENT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "core/arch/hrtimer.h"
#include "core/list.h"
#include "pmu/pmu.h"
#include "core/spinlock.h"

struct perf_event;
struct task;
struct file;

enum event_state {
	EVENT_ERROR = -3,    /* pinned group that lost its counters: read 0 */
	EVENT_EXIT = -2,     /* its task is gone: count frozen */
	EVENT_OFF = -1,      /* disabled */
	EVENT_INACTIVE = 0,  /* enabled, not on the counters */
	EVENT_ACTIVE = 1,    /* enabled and counting (oncpu >= 0) */
};

/*
 * The layout serves the open: the attr (copied from the user), then
 * PERF_EVENT_ZEROED bytes that start at 0 (one short zeroing), then
 * the fields every open sets, then state that only sampling events or a
 * PMU's own event_init set up and use. event_alloc zeroes all of it; the
 * lean open (open_self_count.c), whose events are counting software events,
 * zeroes the first part only and sets the second, so nothing past the
 * set fields may be read for such an event before it is written.
 */
struct perf_event {
	struct perf_event_attr attr;
	/* ---- 0 at open ---- */
	uint64_t count;             /* folded count */
	uint64_t start_value;       /* software pmu: value at start */
	struct ring_buffer *rb;     /* its mmap ring buffer (ringbuf/) */
	uint64_t lost_samples;      /* records dropped from its buffer
				     * (PERF_FORMAT_LOST; records/output.c) */
	uint64_t enabled_ns, running_ns;
	struct perf_event *parent;  /* inherited copy: fold into parent */
	uint64_t child_count, child_enabled_ns, child_running_ns;
	/* notification (notify.c): O_ASYNC files of the fd, REFRESH's limit
	 * (0: none), what the next perf_wakeup_pending owes */
	struct fasync *fasync;
	struct task *pending_sigtrap; /* SIGTRAP owed to it (raised in an NMI) */
	int event_limit;
	int pending_kill;           /* POLL_IN or POLL_HUP for the owner */
	/* throttling (throttle.c), this CPU's, under perf_lock */
	uint32_t interrupts;        /* overflows in tick interrupts_seq;
				     * PERF_MAX_INTERRUPTS: throttled */
	bool pending_disable;       /* the REFRESH limit was reached */
	bool notify_queued;         /* on its CPU's notify list (holds a ref) */
	bool task_exited;
	/* sampling (hit.c): 0 for a counting event */
	uint64_t sample_period;     /* current period (freq mode adjusts it) */
	int64_t period_left;        /* occurrences until the next sample */
	/* ---- set at every open ---- */
	struct pmu *pmu;
	uint64_t id;                /* the original's id (Linux's primary_event_id):
				     * ID, IDENTIFIER, read_format, IOC_ID */
	uint64_t stream_id;         /* its own: id for an original, a new one for an
				     * inherited copy (STREAM_ID) */
	struct task *task;          /* NULL for a CPU event */
	int cpu;                    /* -1: any CPU */
	int state;
	int oncpu;                  /* CPU whose counters hold it, or -1 */
	int refs;                   /* the fd and inherited children */
	struct perf_event *leader;  /* self for a leader */
	struct list siblings;       /* leader: its siblings, creation order */
	struct list sibling_node;
	struct list ctx_node;       /* leaders in their context */
	struct list owner_node;     /* in the opener's owned list (prctl) */
	struct task *owner;
	struct list child_list;     /* parent: its inherited copies */
	struct list child_node;
	uint64_t tstamp;
	uint8_t lean;               /* PERF_LEAN_*: what the fd's lean read and
				     * ioctls may do (lone_fd_ops.c); set at open,
				     * 0 for an inherited copy */
	/* ---- set up where used: a sampling event's (perf_sample_init),
	 * a PMU's (event_init; hw.idx is -1 for all others) ---- */
	struct hw_perf_event hw;    /* hardware pmu: its counter */
	uint64_t last_sample_ns;    /* freq mode: when the last sample was */
	struct hrtimer clock_timer; /* sampling clock events (clock_sample.c) */
	uint64_t interrupts_seq;
	uint64_t last_period;       /* the period counting down now */
	uint64_t jitter, rand_state; /* period randomization (jitter.c) */
	uint64_t pending_sigtrap_addr; /* with pending_sigtrap */
	struct perf_event *notify_next; /* while notify_queued */
};

/* The bytes after the attr that every open zeroes (the first part). */
#define PERF_EVENT_ZEROED (offsetof(struct perf_event, pmu) - sizeof(struct perf_event_attr))
_Static_assert(offsetof(struct perf_event, pmu) <= 256, "the zeroed part fits 256 bytes");

/* perf_event.lean: static facts about an event, from its attr and PMU. */
#define PERF_LEAN_VALUE 1u  /* software PMU, read_format 0: a read is the value */
#define PERF_LEAN_CLOCK 2u  /* software PMU, a clock (cpu-clock, task-clock) */
#define PERF_LEAN_COUNT 4u  /* software PMU, counting (not sampling) */

extern struct spinlock perf_lock;
extern struct pmu perf_sw_pmu, perf_tracepoint_pmu;
void perf_msr_pmu_init(void);
void intel_pmu_init(void);     /* the "cpu" PMU (intel.c) */
void amd_pmu_init(void);       /* the "cpu" PMU on AMD (amd.c) */
void perf_bp_pmu_init(void);   /* breakpoint.c */
/* tracefs.c: /sys/kernel/tracing/events/<group>/<name>/{id,format}. */
void perf_tracefs_init(void);

/* The CPU context of `cpu`: leaders of its CPU events. */
/* ctx_sched.c: contexts on the counters of one CPU. Under perf_lock. */
struct list *perf_cpu_events(unsigned cpu);
/* The CPU whose counters `e`'s context is on now, or -1 (its task is
 * not running). A CPU context is always on its CPU. */
int event_ctx_cpu(const struct perf_event *e);
/* Take every group of this CPU's contexts off the counters, or put them
 * back on in priority order (CPU pinned, task pinned, CPU flexible, task
 * flexible; creation order within each, as rotated). */
void perf_cpu_sched_out(uint64_t now);
void perf_cpu_sched_in(uint64_t now);
/* Put l (a leader of software events only, enabled and not counting) on
 * this CPU's counters, nothing else; l's context is on them. */
void perf_soft_group_on_here(struct perf_event *l, uint64_t now);
/* Take e (a leader: its group) off this CPU's counters, nothing else. */
void perf_event_off_here(struct perf_event *e, uint64_t now);
/* Rotate this CPU's waiting flexible groups now (the tick does it every
 * mux interval). */
void perf_rotate(uint64_t now);
bool perf_wants_tick(unsigned cpu);
/* Bring times (and the count of an active event) up to date at now. */
void event_update(struct perf_event *e, uint64_t now);
/* Run fn(e, arg) under perf_lock on the CPU that holds e's context on
 * its counters (by IPI when that is another CPU), with that CPU's groups
 * taken off the counters around it, so fn may change states and lists
 * freely; on no CPU if the context is not on one. fn gets the instant
 * of the change (the one the groups went off and come back on at, so
 * the change costs no counting time). Caller must not hold perf_lock. */
void perf_ctx_call(struct perf_event *e,
		   void (*fn)(struct perf_event *, void *, uint64_t now), void *arg);

/* core.c, under perf_lock unless said otherwise. */
/* Some event ever asked for attr.context_switch: until then a context
 * switch skips looking for SWITCH records to write (Linux counts them
 * in nr_switch_events; a flag that is never cleared is enough). */
extern bool perf_switch_events_seen;
/* The next event id (ids are never reused); with or without perf_lock. */
uint64_t perf_new_id(void);
/* A new event (not under perf_lock): fields set, lists empty, no id. */
struct perf_event *event_alloc(const struct perf_event_attr *attr,
			       struct task *task, int cpu, int state);
/* Put a new event into its context (or leader's group) and on the
 * counters if its context is on a CPU. Not under perf_lock. */
void event_attach(struct perf_event *e, struct perf_event *leader);
void event_enable(struct perf_event *e, bool group);   /* not under perf_lock */
void event_disable(struct perf_event *e, bool group);  /* not under perf_lock */
void event_reset(struct perf_event *e, bool group);    /* not under perf_lock */
/* fn (event_enable, event_disable or event_reset) on each live inherited
 * copy of e, as the ioctls do after e itself (ioctl_children.c). Not
 * under perf_lock. */
void event_control_copies(struct perf_event *e, void (*fn)(struct perf_event *, bool),
			  bool group);
/* e is a lone software leader whose context is on this CPU's counters
 * now: ENABLE, attach and the last put change it in place, with no pass
 * over the other groups (it holds no counter another could wait for)
 * and no IPI. Under perf_lock. */
bool perf_soft_alone_here(const struct perf_event *e);
/* Value, enabled and running times including inherited children. */
void event_totals(struct perf_event *e, uint64_t *value, uint64_t *enabled,
		  uint64_t *running);
void event_put(struct perf_event *e);                  /* not under perf_lock */
/* Free e, an event event_alloc made, which nothing refers to any more:
 * what its PMU keeps for it (pmu->free), then e (into the event cache).
 * With or without perf_lock. */
void event_free(struct perf_event *e);
/* Take a reference on e, found on a list (not through an fd), unless
 * its last one is gone: event_put drops refs to 0 under perf_lock but
 * unlinks and frees e after dropping it, so a list may still hold an
 * event that must not be revived. False: leave e alone. Under
 * perf_lock. */
bool event_get_live(struct perf_event *e);
/* Before reading e's group: fold counters held by another CPU. */
void event_sync_remote(struct perf_event *e);          /* not under perf_lock */
void perf_sched_init(void);
/* An event freed: it no longer holds callchain buffers. */
void perf_callchain_put(struct perf_event *e);

/* xcall.c: run fn(arg) on `cpu` from its IPI handler and wait for it.
 * Caller must not hold perf_lock; interrupts may be on or off. */
void perf_xcall(unsigned cpu, void (*fn)(void *), void *arg);
void perf_xcall_init(void);

/* The most a read() of a group may return (Linux's
 * perf_event_validate_size): open refuses groups beyond it (E2BIG). */
#define MAX_READ_SIZE (16 * 1024)

/* The event's ring buffer, under perf_lock unless said otherwise.
 * fd_mmap.c: file_ops.mmap of a perf fd (not under perf_lock). */
struct mm;
int perf_mmap(struct file *f, struct mm *mm, uint64_t addr, uint64_t len,
	      int prot, int flags, uint64_t off);
/* set_output.c: send e's records to out's buffer (NULL: back to none):
 * 0 or -EINVAL (Linux's restrictions); PERF_EVENT_IOC_PAUSE_OUTPUT on
 * the buffer e writes to: 0, or -EINVAL without data pages. Both take
 * perf_lock. */
int perf_event_set_output(struct perf_event *e, struct perf_event *out);
int perf_event_pause_output(struct perf_event *e, bool pause);
/* userpage.c: rewrite the control page's counter fields (count, times,
 * index, caps) for e at `now` (ns since boot). e->rb is set. */
void perf_event_update_userpage(struct perf_event *e, uint64_t now);

/* hit.c */
bool perf_is_sampling(const struct perf_event *e);
void perf_sample_init(struct perf_event *e);
/* clock_sample.c: the hrtimer of a sampling cpu-clock/task-clock event,
 * armed by the software PMU while the event counts (perf_lock held,
 * interrupts off, on the event's CPU). */
void perf_clock_sample_init(struct perf_event *e);
void perf_clock_sample_start(struct perf_event *e);
void perf_clock_sample_stop(struct perf_event *e);
bool perf_is_clock(const struct perf_event *e);
/* A whole new interval from the next start; freq mode: the period
 * 1e9/sample_freq ns (Linux fixes it so for clock events). Event off
 * its CPU's counters. */
void perf_clock_sample_reset(struct perf_event *e);

/* period.c: PERF_EVENT_IOC_PERIOD (0 or -EINVAL). Not under perf_lock. */
int perf_event_set_period(struct perf_event *e, uint64_t v);

/* fd_ops.c */
extern const struct file_ops perf_fops;
int perf_read_size(const struct perf_event *e);
/* The read_format layout of e (perf_read_size bytes) under perf_lock. */
void perf_format_read(struct perf_event *e, uint64_t *out);

/* lone_fd_ops.c: the event file's lean read and ioctls. */
/* Register them (boot, once). */
void perf_fops_init(void);
/* self_count_read.c: the quick read, for the value of the caller's own
 * software events. Register it (perf_fops_init, once). */
void perf_quick_init(void);
struct files;
/* The lean read of e through descriptor fd of fs succeeded: cache it for
 * the quick read if that may read it (interrupts off, fs unshared). */
void perf_quick_remember(struct files *fs, unsigned fd, struct perf_event *e);
/* Set e->lean from its attr and PMU (perf_event_open, once e->pmu is). */
void perf_lean_init(struct perf_event *e);
/* A lone event's read (value, then the times read_format has; no GROUP,
 * ID or LOST) into out, when it can be read on this CPU now: not in
 * error, no inherited copies, not on another CPU's local-read counters.
 * Returns the words written, 0 if not so. Takes perf_lock. */
int event_read_here(struct perf_event *e, uint64_t *out);

#endif
