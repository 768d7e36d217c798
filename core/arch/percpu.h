/*
 * Per-CPU data, reached through GS (MSR_GS_BASE points at the CPU's struct
 * percpu while in the kernel). Each field is written only by its own CPU
 * unless its comment says otherwise.
 */
#ifndef BAREMON_PERCPU_H
#define BAREMON_PERCPU_H

#include <stdint.h>
#include "gdt.h"

struct task;
struct mm;

struct percpu {
	struct percpu *self;   /* must stay first: this_cpu() reads gs:0 */
	struct task *running;  /* the task running here (read via `current`) */
	uint64_t kernel_rsp;   /* syscall entry: top of current's kernel stack */
	uint64_t user_rsp;     /* syscall entry: scratch for the user rsp */
	unsigned id;           /* 0 = boot CPU, dense */
	uint32_t apic_id;
	uint64_t ticks;        /* scheduler ticks taken (sched.c) */
	int online;            /* set by the CPU itself, read by others */
	struct mm *active_mm;  /* whose user tables CR3 holds (usermm.c) */
	int pagefault_disabled; /* >0: user faults in the kernel fail (EFAULT)
				 * instead of being resolved (perf sampling) */
	int perf_wakeup;       /* perf owes pollers a wake-up (pmu/events/hit.c) */
	/* The vpmu's instruction clock (pmu/vpmu/icount.c): while
	 * stamp_user is set, the entry and exit stubs (isr.asm,
	 * syscall_entry.asm) store the TSC at the user/kernel boundary.
	 * The stubs know these offsets (PERCPU_* in frame.inc). */
	uint64_t user_exit_tsc;
	uint64_t user_entry_tsc;
	uint32_t stamp_user;
};
_Static_assert(__builtin_offsetof(struct percpu, user_exit_tsc) == 72 &&
	       __builtin_offsetof(struct percpu, user_entry_tsc) == 80 &&
	       __builtin_offsetof(struct percpu, stamp_user) == 88,
	       "frame.inc's PERCPU_* offsets");

extern struct percpu percpu_area[MAX_CPUS];

/* Point GS at percpu_area[id] on the calling CPU. */
void percpu_init(unsigned id, uint32_t apic_id);

static inline struct percpu *this_cpu(void)
{
	struct percpu *p;
	__asm__ volatile("mov %%gs:0, %0" : "=r"(p));
	return p;
}

static inline unsigned this_cpu_id(void)
{
	return this_cpu()->id;
}

#endif
