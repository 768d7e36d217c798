/*
 * vpmu: a software model of a PMU for CPUs with none (QEMU TCG), behind
 * the accessors of msr.h: Intel architectural perfmon (v4, v2, v5, a
 * hybrid of two core types) or AMD's PerfCtrExtCore with PerfMonV2, as
 * the mode chosen at boot says (mode.h). See vpmu.c for what it models
 * and docs/pmu.md for what it does not.
 *
 * The core tells the model where the CPU is (user, kernel, halted)
 * with the vpmu_hook* calls of perf.h (the model's public side); each
 * is one flag test while no model counter is enabled on the CPU.
 */
#ifndef BAREMON_PMU_VPMU_H
#define BAREMON_PMU_VPMU_H

#include <stdint.h>
#include "core/arch/gdt.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "pmu/perf.h"

/* The most counters any mode gives a CPU. */
#define VPMU_MAX_GP     8
#define VPMU_MAX_FIXED  4

/* What a counter counts (events.c; the codes per mode, mode.h). */
enum vpmu_source {
	VPMU_SRC_NONE,      /* an event the model does not know: stays put */
	VPMU_SRC_CYCLES,    /* unhalted core or reference cycles: the TSC */
	VPMU_SRC_INSNS,     /* instructions retired */
	VPMU_SRC_BRANCHES,  /* branch instructions retired, of some kinds */
};
/* Kinds of branch a stepped instruction can be (decode.c). */
#define VPMU_BR_COND_TAKEN     0x01u
#define VPMU_BR_COND_NOT_TAKEN 0x02u
#define VPMU_BR_CALL           0x04u  /* near call, direct or indirect */
#define VPMU_BR_RET            0x08u  /* near return */
#define VPMU_BR_JMP            0x10u  /* near jump, direct or indirect */
#define VPMU_BR_ALL            0x1fu
/* Added to CALL or JMP for an indirect one (FF /2, /4): for the LBR
 * model's record types; the branch events count both alike. */
#define VPMU_BR_INDIRECT       0x20u

struct vpmu_event {
	enum vpmu_source src;
	unsigned branch_kinds;  /* VPMU_BR_* a branch event counts */
};
struct vpmu_event vpmu_gp_event(uint64_t evtsel);
struct vpmu_event vpmu_fixed_event(unsigned j);
/* 0 if the model counts `evtsel` (its USR/OS included) exactly, else
 * -EOPNOTSUPP: the driver refuses such an event at open. Events the
 * model does not know open (and stay at 0). */
int vpmu_event_check(uint64_t evtsel);
/* Does the model count selector `evtsel`'s event at all (in some mode)?
 * Drivers leave out of their generic tables what it never counts. */
bool vpmu_event_known(uint64_t evtsel);

/* The instruction clock (icount.c): QEMU -icount, checked at boot. */
void vpmu_icount_init(void);
bool vpmu_icount_on(void);
unsigned vpmu_icount_shift(void);
uint64_t vpmu_icount_between(uint64_t from_tsc, uint64_t to_tsc);
uint64_t vpmu_icount_ticks(uint64_t from_tsc, uint64_t insns);
/* Kernel stub instructions inside a user stint's boundary stamps, for
 * an entry through `vector`; and turning the stamps on for this CPU. */
uint64_t vpmu_icount_stub(uint64_t vector);
uint64_t vpmu_icount_exit_stub(void);   /* its exit part */
void vpmu_icount_stamp_here(void);

/* Decode the instruction in `bytes` (up to 15, as fetched at its address
 * `ip`) that the CPU just executed, the next instruction being at
 * `next_ip`: 0 when it is not a branch, else one VPMU_BR_* kind. */
unsigned vpmu_decode_branch(const uint8_t *bytes, unsigned len, uint64_t ip,
			    uint64_t next_ip);
bool vpmu_decode_rep_string(const uint8_t *bytes, unsigned len);
/* The same decoding in two halves, for a cache of decoded instructions
 * (step_fast.c): what the instruction is whatever its outcome (a
 * branch kind, or a conditional branch's length), then which kind it
 * was once the next IP is known. */
struct vpmu_insn_class {
	uint8_t kind;      /* VPMU_BR_* (INDIRECT too) or 0, unless conditional */
	uint8_t cond_len;  /* a conditional branch: its length in bytes; else 0 */
};
struct vpmu_insn_class vpmu_decode_class(const uint8_t *bytes, unsigned len);
/* A conditional branch is taken unless the CPU went on to the next
 * instruction in memory. */
static inline unsigned vpmu_class_branch(struct vpmu_insn_class c, uint64_t ip,
					 uint64_t next_ip)
{
	if (!c.cond_len)
		return c.kind;
	return next_ip == ip + c.cond_len ? VPMU_BR_COND_NOT_TAKEN : VPMU_BR_COND_TAKEN;
}

/* Single-stepping user code (step.c), for vpmu.c: arm the trap
 * flag in the frame user mode is entered through; at the next entry,
 * take it off and say whether a user instruction retired (1) and which
 * branch it was (*branch, VPMU_BR_* or 0). */
void vpmu_step_arm(struct trap_frame *f);
int vpmu_step_finish(struct trap_frame *f, unsigned *branch);
bool vpmu_step_trap_is_own(const struct trap_frame *f);
void vpmu_step_init(void);
#define VPMU_MAX_INSN 15
/* The bytes of the user instruction at ip (up to 15, fewer at the end
 * of a readable page): how many were read. */
unsigned vpmu_step_fetch(uint64_t ip, uint8_t *bytes);
/* The lean path's steps end at ip: the full path's next step begins
 * there (step_fast.c hands it back when its run ends). */
void vpmu_step_moved(uint64_t ip);

/* The lean step path (step_fast.c). The exit hook arms it with how many
 * more events of each stepped source the live counters take before the
 * first wraps (~0: none counts it); the full entry takes what it
 * tallied meanwhile (true when it tallied anything) and charges it. */
struct vpmu_fast_budget {
	uint64_t insns;     /* instructions (stepped: no instruction clock) */
	uint64_t branches;  /* branches of any kind */
	uint64_t cycles;    /* stepped cycles: one per step, no clock */
};
struct vpmu_fast_tally {
	uint64_t steps;           /* lean steps taken (a REP iteration too) */
	uint64_t insns;           /* instructions they retired */
	uint64_t branches;
	uint64_t by_kind[5];      /* branches by VPMU_BR_* bit index */
	uint64_t user_icount;     /* clock: user instructions of their stints */
	uint64_t first_exit_tsc;  /* clock: the exit stamp the run began at */
};
/* Arming, for the stint about to begin at user address ip, stepped
 * with the model's own trap flag (no tracer's: the exit hook checks). */
void vpmu_fast_arm(const struct vpmu_fast_budget *b, uint64_t ip);
void vpmu_fast_disarm(void);
bool vpmu_fast_take(struct vpmu_fast_tally *t);
/* Is the trap flag in the frame the model's alone (step.c)? */
bool vpmu_step_own_tf(void);

/* The cap on stepping for CPU-wide events (step_cap.c): the driver
 * says which counters hold CPU events; vpmu.c adds the model's stepping
 * time and asks, at each return to user, which counters may not make
 * the CPU step now (a mask of GLOBAL indices). */
void vpmu_cap_counter_owner(int idx, bool cpu_wide);
void vpmu_cap_spent(uint64_t ticks);
uint64_t vpmu_cap_skipped(void);
uint64_t vpmu_cap_windows_out(unsigned cpu);

/* The TSC a task the model has taken time from reads (vtsc.c): its
 * RDTSC/RDTSCP trap (CR4.TSD) and get the TSC less vpmu_tsc_hidden.
 * vpmu_tsc_user_now (vpmu.c): that TSC at the current kernel entry. */
struct task;
void vpmu_tsc_init(void);
void vpmu_tsc_trap_set(bool on);
void vpmu_tsc_sched_in(const struct task *next);
unsigned vpmu_tsc_insn(const struct trap_frame *f);
uint64_t vpmu_tsc_user_now(void);
void vpmu_steps_sched_in(void);
bool vpmu_step_retired(const struct trap_frame *f);

/* RDPMC's #UD under TCG, emulated (rdpmc_ud.c); the emulated user
 * instruction counts as one retired. */
void vpmu_rdpmc_init(void);
bool vpmu_rdpmc_trap(const struct trap_frame *f);
void vpmu_emulated_user_insn(void);

/* The registers a PMI taken with frame f samples: the user's frame of
 * the current task's kernel entry when the model raised it for a wrap
 * in user time (and clears that mark), the kernel code that entered
 * the model when it sent an NMI for a wrap in kernel time, else f. In
 * the PMI handler. */
struct trap_frame *vpmu_pmi_frame(struct trap_frame *f);
/* Is the model in one of its entry points on this CPU (an NMI that
 * landed there must not enter it)? */
bool vpmu_busy(void);
/* Was the PMI raised for a wrap in user time? Clears the mark. */
bool vpmu_pmi_user_mark(void);

/* Boot, once, when the model is installed: chooses the mode from
 * `vpmu=` on the command line and the CPU's vendor (vpmu.c). */
void vpmu_init(void);
/* The mode's name ("intel", "intel-v2", "intel-v5", "hybrid", "amd"). */
const char *vpmu_mode_name(void);
/* Does the model stand in for an AMD PMU? */
bool vpmu_is_amd(void);

uint64_t vpmu_rdmsr(uint32_t msr);
/* A write the real WRMSR would #GP on (vpmu_write_faults) is dropped:
 * vpmu_wrmsr logs it, as Linux's unchecked MSR access does; the safe
 * form returns -EIO. */
void vpmu_wrmsr(uint32_t msr, uint64_t value);
int vpmu_wrmsr_safe(uint32_t msr, uint64_t value);
struct cpuid_regs vpmu_cpuid(uint32_t leaf, uint32_t subleaf);
/* Is msr one of the PMU registers the model stands in for (counters,
 * event selects, global controls, capabilities, LBRs)? */
bool vpmu_owns_msr(uint32_t msr);
/* The TSC value at which this CPU's model next raises a PMI if the CPU
 * stays in its mode (a counter with INT wraps); ~0: never. Self-tests. */
uint64_t vpmu_wrap_due(void);

#endif
