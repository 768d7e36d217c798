/*
 * The x86 core-PMU layer, in the spirit of Linux's arch/x86/events/core.c
 * behind `struct x86_pmu`: one implementation of the pmu ops (event_init,
 * add, del, start, stop, read, group_fits), counter claiming, the
 * hardware and cache event checks (x86_setup_perfctr), periods and the
 * PMI's overflow-status loop, for every vendor. A vendor driver
 * (pmu/x86/intel, pmu/x86/amd) fills in a struct x86_pmu with what its
 * hardware does differently and registers it once at boot.
 *
 * Files: core.c (counters on a CPU: the pmu ops and group fitting),
 * hw_config.c (attributes: checks and the selector), overflow.c (the
 * PMI: status rounds, the top-bit scan, reset). Periods and folding are
 * common.c's, ownership claim.c's.
 *
 * Calling rules: the counter ops run on the CPU whose counters they
 * touch, with interrupts off, under perf_lock (as pmu.h's add/del);
 * hw_config runs at open time in process context. `x86_pmu` is set
 * once at boot, before user space, and only read afterwards.
 */
#ifndef BAREMON_PMU_X86_CORE_H
#define BAREMON_PMU_X86_CORE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "pmu/events/event.h"
#include "pmu/x86/common.h"

struct perf_hit;

/* HW_CACHE tables: [cache][op][result]; 0 no event (ENOENT),
 * X86_CACHE_NA no such combination (EINVAL). */
#define X86_CACHE_NA (~0ULL)
typedef uint64_t x86_cache_table[PERF_COUNT_HW_CACHE_MAX][PERF_COUNT_HW_CACHE_OP_MAX]
				[PERF_COUNT_HW_CACHE_RESULT_MAX];

struct x86_pmu {
	const char *name;              /* the vendor, for the log */
	/* The PMUs whose events these counters hold (a hybrid CPU's two;
	 * else one, the second NULL). Group fitting counts their events. */
	struct pmu *pmus[2];

	/* ---- events (hw_config.c) ---- */
	const uint64_t *event_map;     /* [PERF_COUNT_HW_MAX]: 0 no event */
	const x86_cache_table *cache_map; /* NULL: none (valid ones ENOENT) */
	uint64_t raw_mask;             /* what a raw config may select */
	/* Is e a raw selector (PERF_TYPE_RAW, or a hybrid PMU's type)? */
	bool (*is_raw)(const struct perf_event *e);
	/* The vendor's checks around x86_setup_perfctr, in Linux's order
	 * for the vendor: 0 or the errno. */
	int (*hw_config)(struct perf_event *e);
	/* Selector bits beyond the shared ones (AMD's host/guest); NULL:
	 * none. */
	uint64_t (*config_fixup)(const struct perf_event *e, uint64_t config);
	/* Last step of a successful event_init (Intel: room for a task's
	 * LBR call stack); NULL: none. */
	int (*event_init_done)(struct perf_event *e);

	/* ---- counters (core.c) ---- */
	/* This CPU's counter indices, as GLOBAL_CTRL/STATUS bits. */
	uint64_t (*counter_bits)(void);
	/* Counter idx's count register, width and longest period. */
	struct x86_counter (*counter)(int idx);
	/* Counter idx counts with selector config (EN added), or stops
	 * (its selector cleared); the global control is not touched. */
	void (*enable_counter)(int idx, uint64_t config);
	void (*disable_counter)(int idx);
	/* The counter e (hw.config set) takes on this CPU when those in
	 * `used` are taken, -1: none; group_pick the same on the counters
	 * of e's PMU (a hybrid CPU's core type), from its attributes. */
	int (*pick)(const struct perf_event *e, uint64_t used);
	int (*group_pick)(const struct perf_event *e, uint64_t used);

	/* ---- global control and status (overflow.c) ---- */
	/* The counters in `active` run / all stop (no-ops without a
	 * global control). */
	void (*enable_all)(uint64_t active);
	void (*disable_all)(void);
	/* The overflow status and its acknowledgement; get_status NULL:
	 * none (an overflow is seen as a cleared top bit). set_status
	 * raises bits again (GLOBAL_STATUS_SET), for the self-tests. */
	uint64_t (*get_status)(void);
	void (*ack_status)(uint64_t bits);
	void (*set_status)(uint64_t bits);
	/* After a PMI's overflows were handled: how many (AMD's spurious
	 * accounting); NULL: nothing. */
	void (*after_overflows)(unsigned handled);
	/* An NMI LVTPC did not deliver: claim it (pmi.h); NULL: never. */
	bool (*claim_late)(void);

	/* ---- the LBR flavour ---- */
	void (*lbr_add)(struct perf_event *e);
	void (*lbr_del)(struct perf_event *e);
	/* Into the overflow's hit, in the PMI. */
	void (*lbr_read)(const struct perf_event *e, struct perf_hit *hit);
};

/* The registered vendor's (NULL before). */
extern const struct x86_pmu *x86_pmu;

/* Boot, by the vendor driver: p becomes the x86 layer's, its PMUs get
 * the layer's pmu ops (scarce counters) and the PMI is installed
 * (pmi.h). Before registering p's PMUs. */
void x86_pmu_register(const struct x86_pmu *p);

/* The pmu ops, for the vendor's struct pmu (pmu.h's rules). */
int x86_pmu_event_init(struct perf_event *e);
bool x86_pmu_group_fits(struct perf_event *leader, struct perf_event *extra);
int x86_pmu_add(struct perf_event *e, uint64_t now);
void x86_pmu_del(struct perf_event *e, uint64_t now);
void x86_pmu_start(struct perf_event *e, uint64_t now);
void x86_pmu_stop(struct perf_event *e, uint64_t now);
uint64_t x86_pmu_read(struct perf_event *e, uint64_t now);

/* hw_config.c: Linux's x86_setup_perfctr for HARDWARE and HW_CACHE
 * events (the generic map, the cache table, a period of 1 on branches
 * asking for BTS); 0 for other types. */
int x86_setup_perfctr(const struct perf_event_attr *a);
/* The selector (without EN) e's attributes ask for. */
uint64_t x86_event_config(const struct perf_event *e);

/* overflow.c: handle this CPU's overflowed counters, sampling
 * where->regs (pmi.h's ops.handle; under perf_lock, interrupts off). */
void x86_handle_overflows(const struct perf_hit *where);

/* Does some event hold one of this CPU's counters? */
bool x86_counters_busy(void);
/* This CPU's counters (core.c's, for overflow.c). */
struct x86_counters *x86_counters_here(void);

#endif
