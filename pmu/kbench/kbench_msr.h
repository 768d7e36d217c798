/*
 * kbench_msr.h: the MSR operations of one /dev/kbench run (the msrs of
 * struct kbench_run, kbench_uapi.h), expanded into steps the CPU takes
 * before the call, reads at the measurement points, and the undo after.
 *
 * One struct lives on the ioctl's stack for the length of a run and is
 * touched only by the CPU running it (the ioctl is not preempted).
 */
#ifndef BAREMON_KBENCH_MSR_H
#define BAREMON_KBENCH_MSR_H

#include <stdint.h>
#include "kbench_uapi.h"

/* Writes, plus four per programmable counter (at most one per slot). */
#define KBENCH_MAX_STEPS (KBENCH_MAX_MSRS + 4 * KBENCH_MAX_MSR_READS)

enum kbench_step_kind { STEP_WRITE, STEP_OR };

struct kbench_step {
	uint32_t msr;
	uint8_t kind;         /* enum kbench_step_kind */
	uint8_t op;           /* index of the user's kbench_msr */
	uint64_t value;
	uint64_t old;         /* saved before the write: restored after */
};

struct kbench_msrs {
	struct kbench_step step[KBENCH_MAX_STEPS];
	unsigned nsteps;
	unsigned done;        /* steps applied so far (undone in reverse) */
	uint32_t read[KBENCH_MAX_MSR_READS];
	uint8_t read_op[KBENCH_MAX_MSR_READS];
	unsigned nreads;
	unsigned probed;      /* reads tried before the call */
	unsigned cur_op;      /* the user's operation being carried out */
};

/* Expand n user operations (already copied in) into m: 0, or -EINVAL
 * (an unknown op, a counter this PMU does not have, too many reads). */
int kbench_msrs_prepare(struct kbench_msrs *m, const struct kbench_msr *ops, unsigned n);
/* In ring 0 under kbench_enter's recovery: save and write every step,
 * then read each MSR to read once (a fault names m->cur_op). */
void kbench_msrs_apply(struct kbench_msrs *m);
/* Put back what the applied steps overwrote, last first. */
void kbench_msrs_undo(struct kbench_msrs *m);
/* The reads of one measurement point into out[0..nreads). */
void kbench_msrs_read(const struct kbench_msrs *m, uint64_t *out);

#endif
