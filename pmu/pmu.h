/*
 * The interface between the event core (pmu/events/core.c) and a PMU: the
 * software PMU, the tracepoint and breakpoint PMUs, and the hardware
 * drivers (Intel architectural perfmon, AMD), which program counters.
 *
 * Calling rules: add, del, start, stop and read run on the CPU whose
 * counters they touch, with interrupts off and perf_lock held (see
 * event.h); they never sleep. event_init runs at open time in process
 * context without perf_lock; group_fits at open time under perf_lock.
 *
 * Life of an event on a counter:
 *   add(e)   claim a counter on this CPU and start counting from e->count
 *            (0, or -EAGAIN when no counter can take e beside the events
 *            already added on this CPU: the core then multiplexes);
 *   stop(e)  pause, folding what the counter saw into e->count;
 *   start(e) resume after stop;
 *   read(e)  e->count plus what the counter holds now (may fold it);
 *   del(e)   stop if running, fold, release the counter.
 * The core calls add/del when a group goes on or comes off the counters
 * (context switch, enable/disable, rotation) and start/stop when it
 * only pauses an event that keeps its counter.
 */
#ifndef BAREMON_PMU_PMU_H
#define BAREMON_PMU_PMU_H

#include <stdbool.h>
#include <stdint.h>
#include "core/list.h"

struct perf_event;

/* One file under /sys/bus/event_source/devices/<pmu>/<dir>/: its name
 * and its contents without the trailing newline. */
struct pmu_sysfs_entry {
	const char *name;
	const char *value;
};

struct pmu {
	const char *name;          /* /sys/bus/event_source/devices/<name> */
	uint32_t type;             /* attr.type; assigned by perf_pmu_register
				    * when registered with type -1 */
	/* Counters are scarce: add() may fail and groups are multiplexed.
	 * False for software-like PMUs whose add() always succeeds. */
	bool scarce;
	/* Counts can only be read on the CPU counting them (MSRs). Implied
	 * by scarce. Others (software clocks) are read from any CPU. */
	bool local_read;
	/* Accept attr (type, config, config1, config2, exclude_*):
	 * 0, -ENOENT (not an event of this PMU), or the errno Linux gives
	 * (EINVAL, EOPNOTSUPP, EACCES). May fill e->hw. */
	int (*event_init)(struct perf_event *e);
	/* Could `leader`'s whole group plus `extra` (NULL: just the group)
	 * ever be on this PMU's counters at once? False makes the open
	 * EINVAL, as Linux's validate_group. NULL: always. */
	bool (*group_fits)(struct perf_event *leader, struct perf_event *extra);
	int (*add)(struct perf_event *e, uint64_t now);
	void (*del)(struct perf_event *e, uint64_t now);
	void (*start)(struct perf_event *e, uint64_t now);
	void (*stop)(struct perf_event *e, uint64_t now);
	uint64_t (*read)(struct perf_event *e, uint64_t now);
	/* State an event keeps beyond e->hw's fields, at e->hw.data (the
	 * Intel driver's: a task's saved LBR call stack). event_init takes
	 * it for a new event; inherit for c, an inherited copy of p (at
	 * fork, under perf_lock: 0 or -ENOMEM); free releases it when the
	 * event is freed (event_free). NULL: the PMU keeps none. */
	int (*inherit)(struct perf_event *c, const struct perf_event *p);
	void (*free)(struct perf_event *e);

	/* Hybrid core PMUs (cpu_core, cpu_atom), as Linux's pmu::filter:
	 * true when `cpu` cannot count this PMU's events - they are not
	 * scheduled there. NULL: every CPU can. */
	bool (*filter)(const struct pmu *pmu, unsigned cpu);
	/* The `cpus` sysfs file ("0,2-3"), NULL: none (every CPU). */
	const char *cpus;
	/* HARDWARE/HW_CACHE events may name this PMU by type in config
	 * bits 63-32 (Linux's PERF_PMU_CAP_EXTENDED_HW_TYPE). */
	bool extended_hw;

	/* sysfs contents, arrays ended by a NULL name (NULL: no directory). */
	const struct pmu_sysfs_entry *format;  /* "config:0-7" ... */
	const struct pmu_sysfs_entry *events;  /* "event=0x3c" ... */
	const struct pmu_sysfs_entry *caps;    /* "4" ... */

	struct list node;          /* perf_pmu_register's list */
	int mux_interval_ms;       /* rotation period, sysfs-writable */
};

/* Per-event state a driver keeps (e->hw). */
struct hw_perf_event {
	int idx;                   /* counter index on its CPU, -1: none */
	uint64_t config;           /* what the driver programs (evtsel) */
	uint64_t prev_count;       /* counter value at the last fold */
	uint64_t flags;            /* driver-private */
	uint64_t last_period;      /* sampling: the period that ran out last */
	uint64_t freq_count_stamp; /* freq mode: count at the last tick ... */
	uint64_t freq_tick_ns;     /* ... and when that was (0: not yet) */
	void *data;                /* the PMU's, released by pmu->free */
};

/* Make `pmu` available to perf_event_open and sysfs. type -1 takes the
 * next dynamic type (PERF_TYPE_MAX upwards, in registration order).
 * Returns the type or -errno. Called once at boot, before user space. */
int perf_pmu_register(struct pmu *pmu, int type);
/* The PMU that owns attr.type (HARDWARE and HW_CACHE go to the one
 * registered as PERF_TYPE_RAW, as on Linux); NULL if none. */
struct pmu *perf_pmu_find(uint32_t type);
/* The PMU a new event of attr, for `cpu` (-1: any), goes to, as Linux's
 * perf_init_event: HARDWARE/HW_CACHE to the one whose type config bits
 * 63-32 name (then cleared), else PERF_TYPE_RAW's unless that PMU cannot
 * count on `cpu`; NULL: none (ENOENT). */
struct perf_event_attr;
struct pmu *perf_pmu_for_attr(struct perf_event_attr *attr, int cpu);

#endif
