/*
 * The Intel architectural perfmon driver, PMU "cpu" (PERF_TYPE_RAW, and
 * HARDWARE/HW_CACHE through it): intel.c detects the PMU and turns
 * attributes into event selectors; intel_counters.c places events on
 * counters, reads them and takes the PMI. Shared with the self-tests.
 */
#ifndef BAREMON_PMU_INTEL_H
#define BAREMON_PMU_INTEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/arch/x86.h"
#include "core/cpumask.h"
#include "pmu/events/event.h"
#include "pmu/perf.h"
#include "pmu/x86/pmi.h"

/* What the driver handles, as far as CPUID 0AH says the CPU has them:
 * GP counters at IA32_PERFEVTSEL0 + i and IA32_(A_)PMC0 + i (Linux's
 * addressing), fixed counters at IA32_FIXED_CTR0 + j: 0 instructions,
 * 1 cycles, 2 reference cycles, 3 TOPDOWN.SLOTS, 4-6 the topdown
 * events of newer cores. */
#define INTEL_MAX_GP    16
#define INTEL_MAX_FIXED 7

/* What CPUID 0AH (and PERF_CAPABILITIES) said, fixed at boot. */
struct intel_caps {
	unsigned version;
	unsigned n_gp, gp_width;          /* GP counters used, their width */
	unsigned fixed_width;
	uint32_t fixed_mask;              /* bit j: fixed counter j usable */
	uint32_t unavailable;             /* CPUID 0AH.EBX */
	bool any_deprecated;              /* CPUID 0AH.EDX[15] (v5+) */
	bool full_width;                  /* IA32_A_PMCx writes */
	bool model;                       /* the vpmu stands in */
	bool registered;                  /* the "cpu" PMU exists */
};

extern struct intel_caps intel_caps;

/* CPUID 0AH (r) into caps; `bare_metal`: not under a hypervisor (then
 * versions 2-4 reporting fewer than 3 fixed counters have 3, as Linux
 * assumes). False when the leaf describes too little to use. */
bool intel_parse_perfmon(struct intel_caps *caps, const struct cpuid_regs *r, bool bare_metal);

/* place.c: a GP counter constraint (Linux's event constraint tables):
 * an event whose (config & match) == code may use only gp_mask. */
struct intel_constraint {
	uint32_t code, match, gp_mask;
};
/* The table for this CPU model (an empty one for most). */
const struct intel_constraint *intel_constraints_for(unsigned family, unsigned model);
/* The fixed counter selector `config` may take, or -1. */
int intel_fixed_for(uint64_t config);
/* The counter (GP i, or PMC_IDX_FIXED + j) an event with selector
 * `config` takes when those in `used` are taken; -1: none. */
int intel_place(const struct intel_caps *caps, const struct intel_constraint *table,
		uint64_t config, uint64_t used);
extern struct pmu intel_pmu;       /* "cpu", or "cpu_core" on a hybrid CPU */
extern struct pmu intel_atom_pmu;  /* "cpu_atom" on a hybrid CPU */

/* Boot: detect, install the model if need be, register "cpu" (on a
 * hybrid CPU: intel_hybrid_init, then hybrid.c registers both PMUs
 * once the CPUs are up). */
void intel_pmu_init(void);
struct x86_sysfs;
/* format/, events/, caps/ for a PMU with capabilities c. */
void intel_sysfs_build(struct x86_sysfs *s, const struct intel_caps *c);
/* caps/pmu_name for a CPU with c: "vpmu" on the model, else Linux's
 * name for a model it has no tables for (its intel_pmu_init's default:
 * generic_arch_v1, generic_arch_v2+, generic_arch_v5+). */
const char *intel_pmu_name(const struct intel_caps *c);

/* intel.c: the event selector (without EN) e's attributes ask for. */
uint64_t intel_event_config(const struct perf_event *e);

/* hybrid.c: CPUID 07H.EDX says hybrid; CPUID 1AH.EAX names the PMU of
 * this CPU's core type ("cpu_core", "cpu_atom"; NULL: neither); a CPU
 * bitmap as a `cpus` list ("0-3,8"), its length or -1 if size is short. */
bool intel_is_hybrid(uint32_t cpuid_7_edx);
const char *intel_hybrid_pmu_name(uint32_t cpuid_1a_eax);
int intel_cpus_list(const struct cpumask *cpus, char *buf, size_t size);
/* Boot, on a hybrid CPU: intel_pmu becomes "cpu_core". */
void intel_hybrid_init(void);
/* The capabilities of pmu's counters (its core type's), and of this
 * CPU's; intel_caps when not hybrid. */
const struct intel_caps *intel_pmu_caps(const struct pmu *pmu);
const struct intel_caps *intel_caps_here(void);

/* intel_counters.c */
/* The counter (GP i, or PMC_IDX_FIXED + j) an event with selector
 * `config` gets when the counters in `used` are taken; -1: none. */
int intel_pick_counter(uint64_t config, uint64_t used);
/* This CPU model's constraint table. */
const struct intel_constraint *intel_constraints(void);
int intel_add(struct perf_event *e, uint64_t now);
void intel_del(struct perf_event *e, uint64_t now);
void intel_start(struct perf_event *e, uint64_t now);
void intel_stop(struct perf_event *e, uint64_t now);
uint64_t intel_read(struct perf_event *e, uint64_t now);
bool intel_group_fits(struct perf_event *leader, struct perf_event *extra);
void intel_counters_init(void);  /* boot: this CPU model's constraints */

/* Handle this CPU's overflowed counters, sampling where->regs (and
 * where->kchain when set): under perf_lock, interrupts off (or in an
 * NMI that holds perf_lock). */
void intel_handle_overflows(const struct perf_hit *where);
/* The status loop's limit and the PMI's delivery: pmu/x86/pmi.h. */

/* For the self-tests. */
/* Make the status come back after each acknowledgement on this CPU. */
void intel_test_stuck_status(bool on);
bool intel_counters_busy(void);   /* some counter of this CPU is in use */
/* Load e's counter (on this CPU, under perf_lock) with a raw value. */
void intel_test_load(struct perf_event *e, uint64_t raw);

/* lbr.c: branch stacks from architectural or legacy LBR. init at boot; event_init
 * 0 or the errno for attr's branch stack request; add/del with the
 * event's counter; read into a sample's hit at its overflow (PMI). */
struct perf_event_attr;
struct perf_hit;
void intel_lbr_init(void);
unsigned intel_lbr_depth(void);
const char *intel_lbr_name(void);   /* "architectural LBR", "legacy LBR", "none" */
int intel_lbr_event_init(const struct perf_event_attr *a);
/* A task's call-stack event keeps its stack (e->hw.data) across switches:
 * alloc at the end of a successful event_init (0 or -ENOMEM), inherit
 * and free are the PMU's hooks (pmu.h). */
int intel_lbr_alloc(struct perf_event *e);
int intel_lbr_inherit(struct perf_event *c, const struct perf_event *p);
void intel_lbr_free(struct perf_event *e);
void intel_lbr_add(struct perf_event *e);
void intel_lbr_del(struct perf_event *e);
void intel_lbr_read(const struct perf_event *e, struct perf_hit *hit);

#endif
