/*
 * The event core's data. An event counts for one task (task != NULL,
 * cpu -1 or a CPU) or for one CPU (task == NULL). A group is a leader and
 * its siblings, always scheduled together.
 *
 * Locking: perf_lock (core.c, irqsave) protects every event list (task
 * contexts, CPU contexts, group sibling lists, owner lists, inherited
 * children) and every event's state, times and count. The scheduler hooks
 * take it too; they run with interrupts off already.
 */
#ifndef BAREMON_PMU_EVENT_H
#define BAREMON_PMU_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "list.h"
#include "pmu.h"
#include "spinlock.h"

struct perf_event;
struct task;
struct file;

enum event_state {
	EVENT_EXIT = -2,     /* its task is gone: count frozen */
	EVENT_OFF = -1,      /* disabled */
	EVENT_INACTIVE = 0,  /* enabled, its task not running */
	EVENT_ACTIVE = 1,    /* enabled and counting */
};

struct perf_event {
	struct perf_event_attr attr;
	struct pmu *pmu;
	uint64_t id;
	struct task *task;          /* NULL for a CPU event */
	int cpu;                    /* -1: any CPU */
	int state;
	struct perf_event *leader;  /* self for a leader */
	struct list siblings;       /* leader: its siblings, creation order */
	struct list sibling_node;
	struct list ctx_node;       /* leaders in their context */
	struct list owner_node;     /* in the opener's owned list (prctl) */
	struct task *owner;
	uint64_t count;             /* folded count */
	uint64_t start_value;       /* software pmu: value at start */
	struct hw_perf_event hw;    /* hardware pmu: its counter */
	uint64_t enabled_ns, running_ns, tstamp;
	struct perf_event *parent;  /* inherited copy: fold into parent */
	struct list child_list;     /* parent: its inherited copies */
	struct list child_node;
	uint64_t child_count, child_enabled_ns, child_running_ns;
	int refs;                   /* the fd and inherited children */
	bool task_exited;
};

extern struct spinlock perf_lock;
extern struct pmu perf_sw_pmu, perf_tracepoint_pmu;

/* The CPU context of `cpu`: leaders of its CPU events. */
struct list *perf_cpu_events(unsigned cpu);
/* Put e into its context, or into leader's group. Under perf_lock. */
void event_attach(struct perf_event *e, struct perf_event *leader);
/* Under perf_lock: bring times and count up to date at `now`. */
void event_update(struct perf_event *e, uint64_t now);
void event_sched_in(struct perf_event *e, uint64_t now);
void event_sched_out(struct perf_event *e, uint64_t now);
/* Enable or disable e (and its siblings with `group`), under perf_lock. */
void event_enable(struct perf_event *e, bool group);
void event_disable(struct perf_event *e, bool group);
void event_reset(struct perf_event *e, bool group);
/* Value, enabled and running times including inherited children. */
void event_totals(struct perf_event *e, uint64_t *value, uint64_t *enabled,
		  uint64_t *running);
void event_put(struct perf_event *e);
/* Is the event's context running right now (its task on a CPU)? */
bool event_context_active(struct perf_event *e);

/* fops.c */
extern const struct file_ops perf_fops;
int perf_read_size(const struct perf_event *e);

#endif
