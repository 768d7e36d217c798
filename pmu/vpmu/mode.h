/*
 * The vpmu's modes: which PMU the model is. vpmu.c keeps one register
 * file per CPU (struct vpmu_regs) and charges time to it the same way in
 * every mode; a mode says how many counters a CPU has and how wide, what
 * each MSR number means (its register map), what CPUID says and how an
 * event selector's code reads. One file per register map:
 * mode_intel.c (intel, intel-v2, intel-v5), mode_hybrid.c, mode_amd.c.
 *
 * Counter indices are GLOBAL_CTRL/STATUS bit numbers in every mode: GP
 * counter i is i, fixed counter j is PMC_IDX_FIXED + j (AMD has none).
 *
 * Only vpmu.c, rdpmc_ud.c, events.c and the mode files include this.
 */
#ifndef BAREMON_PMU_VPMU_MODE_H
#define BAREMON_PMU_VPMU_MODE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/arch/x86.h"
#include "vpmu.h"

/* One CPU's counters; at most VPMU_MAX_GP and VPMU_MAX_FIXED. */
struct vpmu_shape {
	unsigned n_gp, n_fixed;   /* counters 0..n_gp-1, fixed 0..n_fixed-1 */
	unsigned width;           /* bits, GP and fixed alike */
};

struct vpmu_regs {
	uint64_t pmc[VPMU_MAX_GP], evtsel[VPMU_MAX_GP];
	uint64_t fixed[VPMU_MAX_FIXED], fixed_ctrl;
	uint64_t global_ctrl, global_status;
};

struct vpmu_kind {
	const char *name;          /* as vpmu= names it */
	bool amd;                  /* goes with an AMD vendor string */
	/* CPU `cpu`'s counters (hybrid: its core type's). */
	void (*shape)(unsigned cpu, struct vpmu_shape *s);
	/* GLOBAL_CTRL out of reset. */
	uint64_t (*global_reset)(const struct vpmu_shape *s);
	/* The register map: a read (0 for no register) and a write (one to
	 * no register, or a read-only one, is dropped). */
	uint64_t (*rdmsr)(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr);
	void (*wrmsr)(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
		      uint64_t v);
	/* CPUID as the CPU `cpu` with this PMU says it (r holds the real
	 * CPU's answer on entry). */
	void (*cpuid)(unsigned cpu, uint32_t leaf, uint32_t sub, struct cpuid_regs *r);
	/* What a GP counter with selector `sel` counts; fixed counter j. */
	struct vpmu_event (*gp_event)(uint64_t sel);
	struct vpmu_event (*fixed_event)(unsigned j);
	/* The counter MSR RDPMC with `ecx` reads on a CPU of shape s; 0: #GP. */
	uint32_t (*rdpmc_msr)(const struct vpmu_shape *s, uint32_t ecx);
};

extern const struct vpmu_kind vpmu_mode_intel, vpmu_mode_intel_v2, vpmu_mode_intel_v5;
extern const struct vpmu_kind vpmu_mode_hybrid, vpmu_mode_amd;

/* The mode in force (set once at boot, before any counter is used). */
extern const struct vpmu_kind *vpmu_mode;

/* The width mask of a shape. */
static inline uint64_t vpmu_width_mask(const struct vpmu_shape *s)
{
	return s->width >= 64 ? ~0ULL : (1ULL << s->width) - 1;
}

/* GLOBAL bits of every counter of a shape. */
static inline uint64_t vpmu_counter_bits(const struct vpmu_shape *s)
{
	return ((1ULL << s->n_gp) - 1) | ((1ULL << s->n_fixed) - 1) << 32;
}

/* Would WRMSR of v to msr raise #GP on a CPU of shape s (msr_fault.c)? */
bool vpmu_write_faults(const struct vpmu_shape *s, uint32_t msr, uint64_t v);

/* This CPU's shape (the model's state, for rdpmc_ud.c). */
const struct vpmu_shape *vpmu_this_shape(void);

/* events.c: Intel's encodings (architectural events, BR_INST_RETIRED)
 * and AMD's (cycles 76H, instructions C0H, the C2H.. branch events). */
struct vpmu_event vpmu_intel_gp_event(uint64_t sel);
struct vpmu_event vpmu_intel_fixed_event(unsigned j);
struct vpmu_event vpmu_amd_gp_event(uint64_t sel);

/* mode_intel.c, for mode_hybrid.c: the arch perfmon register map of
 * version `version`, and its CPUID 0AH for a shape. */
uint64_t vpmu_intel_rdmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
			  unsigned version);
void vpmu_intel_wrmsr(struct vpmu_regs *r, const struct vpmu_shape *s, uint32_t msr,
		      uint64_t v, unsigned version);
void vpmu_intel_leaf_0a(const struct vpmu_shape *s, unsigned version, struct cpuid_regs *r);
uint32_t vpmu_intel_rdpmc_msr(const struct vpmu_shape *s, uint32_t ecx);
uint64_t vpmu_intel_global_reset(const struct vpmu_shape *s);

#endif
