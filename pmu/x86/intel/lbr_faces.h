/*
 * The Intel branch-stack driver's two register faces (lbr.c chooses
 * one at boot): architectural LBR (lbr_arch.c) and legacy LBR
 * (lbr_legacy.c). Each turns branch_sample_type into its hardware
 * filter, turns the LBRs on and off on this CPU, and reads the records
 * newest first. Only lbr*.c include this.
 */
#ifndef BAREMON_PMU_INTEL_LBR_H
#define BAREMON_PMU_INTEL_LBR_H

#include <stdbool.h>
#include <stdint.h>

struct perf_branch_entry;

/* One record as its registers hold it (INFO 0 where there is none):
 * what a task's saved call stack is made of. */
struct intel_lbr_record {
	uint64_t from, to, info;
};

struct intel_lbr_face {
	const char *name;
	unsigned depth;
	bool call_stack;      /* can record the calls still open */
	bool typed;           /* records carry their branch type */
	/* The filter register value for branch_sample_type bst (its
	 * privilege bits set, Linux's checks passed), or -EOPNOTSUPP. */
	int64_t (*config)(uint64_t bst);
	/* LBRs on with a filter value, the records cleared unless `keep`
	 * (then they go on from what they hold); off. */
	void (*enable)(uint64_t config, bool keep);
	void (*disable)(void);
	/* Up to depth records, newest first, into b (from, to, and with
	 * `typed` the perf type); their number. *hw_idx: Linux's
	 * lbr_stack.hw_idx for them (legacy: the top of stack; arch: 0,
	 * which Linux's PMI path leaves it at). */
	uint32_t (*read)(struct perf_branch_entry *b, bool call_stack, uint64_t *hw_idx);
	/* A task's call stack off and back on a CPU (Linux's lbr_save and
	 * lbr_restore), the LBRs off: save copies the records, newest
	 * first, up to the first empty one, into r and returns their
	 * number; restore writes n such records back, the newest on top,
	 * and clears the rest. */
	uint32_t (*save)(struct intel_lbr_record *r);
	void (*restore)(const struct intel_lbr_record *r, uint32_t n);
};

/* The face this CPU has, or NULL (found from CPUID, and for legacy LBR
 * the model number and IA32_PERF_CAPABILITIES). */
const struct intel_lbr_face *intel_lbr_arch_probe(void);
const struct intel_lbr_face *intel_lbr_legacy_probe(void);

#endif
