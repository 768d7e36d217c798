/*
 * perf events as the rest of the kernel sees them: the one header core/
 * includes from pmu/ (Linux's include/linux/perf_event.h; pmu/events/event.h
 * is the subsystem's internal.h). It names hooks, never the event
 * core's data: struct perf_event stays opaque outside pmu/.
 *
 * The hooks run in the context they name: the scheduler's with the run
 * queue locked and interrupts off, the fault handler's with interrupts
 * off. None of them sleeps. Where each is implemented:
 * pmu/events/core.c (open, contexts, groups), pmu/events/ctx_sched.c
 * (switch, tick), pmu/sw/sw.c (software events), pmu/events/inherit.c
 * (fork/exit/exec), pmu/events/hit.c (wake-ups), pmu/records/
 * (side-band records, build ids), pmu/trace/tracepoint.c, tp_sched.c,
 * tp_sys.c (tracepoints), pmu/vpmu/vpmu.c (the software PMU model).
 */
#ifndef BAREMON_PERF_H
#define BAREMON_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "core/arch/percpu.h"
#include "core/arch/trap.h"

struct task;
struct trap_frame;

void perf_init(void);
/* Boot, once the APs are up (before user space): what needs every CPU
 * (a hybrid CPU's two core PMUs learn their CPUs). */
void perf_pmu_smp_init(void);
/* Register /dev/kbench, bench's kernel mode (kbench/kbench.c); after
 * exceptions_init and the VFS. */
void kbench_init(void);

/* ---- scheduler ---- */

/* The scheduler switched prev out and next in on this CPU. */
void perf_sched_out(struct task *prev, struct task *next);
void perf_sched_in(struct task *next);
/* Every tick of this CPU: rotate multiplexed groups when due. Whether
 * this CPU needs its tick for that (even idle or isolated). */
void perf_tick(struct trap_frame *f);
bool perf_wants_tick(unsigned cpu);
/* Wake pollers of buffers written under perf_lock (cheap when none).
 * Not with a run-queue or wait-queue lock held: on the way back to
 * user mode and after a fault's software event. */
void perf_wakeup_pending(void);
/* Does this CPU owe perf_wakeup_pending() work? NMI-safe. */
bool perf_wakeup_owed(void);
/* PMIs this CPU has taken, as an NMI or an interrupt (/proc/interrupts'
 * "PMI" row). */
uint64_t perf_pmi_count(unsigned cpu);

/* ---- software events (page faults, context switches, ...) ---- */

/* A software event happened in the current task (on this CPU). `where`
 * says in which mode, for exclude_user/exclude_kernel; PERF_SW_ANY events
 * are never excluded. The scheduler's (context switches, migrations)
 * are PERF_SW_KERNEL, as Linux counts them with the kernel's registers. */
enum perf_sw_where { PERF_SW_ANY, PERF_SW_USER, PERF_SW_KERNEL };
void perf_sw_event(unsigned config, uint64_t n, enum perf_sw_where where);

/* What an event source knows about one occurrence (for the sample). */
struct perf_branch_entry;
struct perf_hit {
	struct trap_frame *regs;  /* registers where it happened (user or
				   * kernel frame); NULL: the current task's
				   * user registers */
	uint64_t addr;            /* PERF_SAMPLE_ADDR: data address, or 0 */
	const void *raw;          /* PERF_SAMPLE_RAW payload (tracepoints) */
	uint32_t raw_size;
	/* The kernel return addresses above regs, walked where it happened
	 * when the sample is written later (an NMI's deferred PMI: the
	 * stack has moved on); NULL: walk from regs->rbp now. */
	const uint64_t *kchain;
	uint32_t kchain_nr;
	/* PERF_SAMPLE_BRANCH_STACK: the LBR records, newest first (the
	 * driver's, pmu/x86/intel/lbr.c); NULL: none. */
	const struct perf_branch_entry *branches;
	uint32_t branches_nr;
	/* With branches: PERF_SAMPLE_BRANCH_HW_INDEX's word, what Linux's
	 * driver puts in lbr_stack.hw_idx (legacy LBR: the TOS; AMD and
	 * arch LBR: 0). Without: -1 is written. */
	uint64_t branches_hw_idx;
};
/* The kernel frame-pointer walk from r->rbp: up to max return
 * addresses into ips, their number. Reads only the kernel stack:
 * NMI-safe. */
uint32_t perf_kernel_chain(const struct trap_frame *r, uint64_t *ips, uint32_t max);
/* The same with what a sample needs (hit may be NULL: the current
 * task's user registers). */
void perf_sw_event_at(unsigned config, uint64_t n, enum perf_sw_where where,
		      const struct perf_hit *hit);

/* ---- processes ---- */

/* fork/clone: copy inherited events to the child (0 or -ENOMEM). */
int perf_inherit(struct task *parent, struct task *child, bool thread);
/* A task is exiting: fold inherited counts into their parents, detach
 * the task's events (their fds keep working). */
void perf_task_exit(struct task *t);
/* execve: enable the events that asked for enable_on_exec. */
void perf_task_exec(struct task *t);
/* prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE): the events the task owns. */
void perf_task_enable_owned(struct task *t, bool enable);

/* ---- side-band records (pmu/records/) ---- */

/* From process context: the task's name (exec:
 * PERF_RECORD_MISC_COMM_EXEC), fork and exit, and a new mapping (pgoff
 * in bytes; name "" for anonymous). */
void perf_record_comm(struct task *t, bool exec);
void perf_record_task(struct task *t, struct task *parent, bool fork);
/* What MMAP/MMAP2 records say of a mapping besides where it is: its
 * name as /proc/<pid>/maps shows it ("" for anonymous memory: "//anon"),
 * the file's device and inode (0 without one), shared or private, and
 * the file's build id when exec found one (build_id_size 0: none). */
struct perf_mmap_file {
	const char *name;
	uint32_t maj, min;
	uint64_t ino;
	bool shared;
	const uint8_t *build_id;
	unsigned build_id_size;
};
void perf_record_mmap(uint64_t addr, uint64_t len, uint64_t pgoff, int prot,
		      const struct perf_mmap_file *mf);
/* Might a side-band record of the current task reach an event (it or
 * this CPU has events)? false: making one can be skipped. */
bool perf_sideband_possible(void);
/* records/buildid.c: the NT_GNU_BUILD_ID of a checked ELF image into
 * out (zero-filled to BUILD_ID_MAX); its length, 0 if it has none. */
#define BUILD_ID_MAX 20
unsigned elf_build_id(const void *img, size_t len, uint8_t out[BUILD_ID_MAX]);

/* ---- sysctl ---- */

/* Events that reserved callchain buffers: perf_event_max_stack and
 * perf_event_max_contexts_per_stack are EBUSY while there are any. */
int perf_callchain_events(void);

/* ---- tracepoints (pmu/trace/tracepoint.c) ----
 *
 * The places in the kernel that PERF_TYPE_TRACEPOINT events count, each
 * described by a tracefs format file
 * (/sys/kernel/tracing/events/<group>/<name>/format, pmu/trace/tracefs.c)
 * whose layout the PERF_SAMPLE_RAW record follows (pmu/trace/tp_records.h).
 *
 * A hook is one inline per tracepoint, trace_<name>(...), at the place
 * Linux has it. It costs one load and a not-taken branch while no event
 * of that tracepoint is on any CPU's counters (tp_active[id] == 0); else
 * it builds the record and tp_emit() (pmu/trace/trace.h) reports it to the
 * active events of that id in the current task's context and this CPU's.
 *
 * Calling rules: a hook may run with interrupts on or off, from task
 * context or an interrupt handler, under the run queue lock (sched_switch,
 * sched_wakeup), never from an NMI, never with perf_lock held (tp_emit
 * takes it). A hook reached again from inside tp_emit on the same CPU
 * (perf_event_hit waking a task) is dropped, as Linux drops recursive
 * events.
 */

/* Tracepoints, in tracefs order. attr.config (the id file) is
 * TP_ID_BASE + this index; Linux's ids are dynamic, ours are fixed. */
enum tp_index {
	TP_SCHED_SWITCH,
	TP_SCHED_WAKEUP,
	TP_SCHED_PROCESS_FORK,
	TP_SCHED_PROCESS_EXEC,
	TP_SCHED_PROCESS_EXIT,
	TP_SYS_ENTER,
	TP_SYS_EXIT,
	TP_IRQ_HANDLER_ENTRY,
	TP_NR
};
#define TP_ID_BASE 300
/* The syscalls:sys_enter_<call> and sys_exit_<call> tracepoints, one
 * pair per system call baremon implements (pmu/trace/tp_syscalls.c):
 * ids TP_SC_ID_BASE + 2 * nr, + 1 for the exit. They share the
 * raw_syscalls hooks: an active one counts in tp_active[TP_SYS_ENTER]
 * (or TP_SYS_EXIT) as well, which keeps a call off the lean paths. */
#define TP_SC_ID_BASE 1000

/* Events of each tracepoint on some CPU's counters now (atomic; changed
 * by the PMU's add/del under perf_lock, read without it). */
extern int tp_active[TP_NR];

/* One compare with memory and a branch (a relaxed atomic load): the
 * whole cost of a hook while nothing listens. */
static inline bool tp_on(enum tp_index i)
{
	__asm__ goto("cmpl $0, %c0(%%rip)\n\tjne %l[on]" : : "i"(&tp_active[i]) : "cc" : on);
	return false;
on:
	return true;
}

/* The record builders (tp_sched.c, tp_sys.c): only called when tp_on. */
void tp_sched_switch(struct task *prev, struct task *next);
void tp_sched_wakeup(struct task *t);
void tp_sched_process_fork(struct task *parent, struct task *child);
void tp_sched_process_exec(struct task *t, const char *filename, int old_pid);
void tp_sched_process_exit(struct task *t, bool group_dead);
void tp_sys_enter(const struct trap_frame *f);
void tp_sys_exit(const struct trap_frame *f);
void tp_irq_handler_entry(int irq, const char *name);

/* schedule(): prev is about to give this CPU to next (rq lock held,
 * interrupts off, prev's events still counting). */
static inline void trace_sched_switch(struct task *prev, struct task *next)
{
	if (tp_on(TP_SCHED_SWITCH))
		tp_sched_switch(prev, next);
}

/* sched_wake(): t was sleeping and is runnable now (rq lock held). */
static inline void trace_sched_wakeup(struct task *t)
{
	if (tp_on(TP_SCHED_WAKEUP))
		tp_sched_wakeup(t);
}

/* clone/fork/vfork in the parent: child exists, not started yet. */
static inline void trace_sched_process_fork(struct task *parent, struct task *child)
{
	if (tp_on(TP_SCHED_PROCESS_FORK))
		tp_sched_process_fork(parent, child);
}

/* execve succeeded: t runs the new program (filename as given). */
static inline void trace_sched_process_exec(struct task *t, const char *filename,
					    int old_pid)
{
	if (tp_on(TP_SCHED_PROCESS_EXEC))
		tp_sched_process_exec(t, filename, old_pid);
}

/* A thread exits, before its perf events leave it. */
static inline void trace_sched_process_exit(struct task *t, bool group_dead)
{
	if (tp_on(TP_SCHED_PROCESS_EXIT))
		tp_sched_process_exit(t, group_dead);
}

/* System call entry (f: the user registers, the number in rax) and
 * exit (the result in rax; the number is the frame's, Linux's orig_ax:
 * -1 once rt_sigreturn made it no system call's). */
static inline void trace_sys_enter(const struct trap_frame *f)
{
	if (tp_on(TP_SYS_ENTER))
		tp_sys_enter(f);
}

static inline void trace_sys_exit(const struct trap_frame *f)
{
	if (tp_on(TP_SYS_EXIT))
		tp_sys_exit(f);
}

/* A device interrupt's handler is about to run. */
static inline void trace_irq_handler_entry(int irq, const char *name)
{
	if (tp_on(TP_IRQ_HANDLER_ENTRY))
		tp_irq_handler_entry(irq, name);
}

/* ---- the software PMU model (pmu/vpmu/vpmu.c) ----
 *
 * The core tells the model where the CPU is (user, kernel, halted) with
 * the vpmu_hook* calls below; each is one flag test while no model
 * counter is enabled on the CPU.
 */

/* Where the CPU is. VPMU_OWN: handling the model's own traps (a step's
 * #DB, the wrap-timer interrupt, the PMI taken from user mode), which
 * real hardware does not have or takes with its counters frozen; it
 * counts nowhere, until the return to user or a context switch. */
enum vpmu_mode { VPMU_KERNEL, VPMU_USER, VPMU_HALT, VPMU_OWN };

/* This CPU now runs in `mode`: counters catch up, then filter by it. */
void vpmu_set_mode(enum vpmu_mode mode);

/* Non-zero while some model counter of that CPU is enabled (EN or a
 * fixed-counter enable, and its GLOBAL_CTRL bit). Written by its CPU
 * with interrupts off. */
extern volatile uint8_t vpmu_counting[MAX_CPUS];

/* Non-zero while this CPU's user code runs with the trap flag the model
 * set to count it instruction by instruction (step.c). */
extern volatile uint8_t vpmu_stepping[MAX_CPUS];

/* Entry from user mode (f: the user's frame) and the return to it (f:
 * the frame it leaves through): counters catch up, the model steps the
 * user code its counters watch. */
void vpmu_user_entry(struct trap_frame *f);
void vpmu_user_exit(struct trap_frame *f);

static inline void vpmu_hook_user_entry(struct trap_frame *f)
{
	unsigned id = this_cpu_id();
	if (vpmu_counting[id] || vpmu_stepping[id])
		vpmu_user_entry(f);
}

/* A #DB from user mode (called by the entry stub, core/arch/isr.asm,
 * before trap_dispatch): the model's own step, handled the lean way
 * (pmu/vpmu/step_fast.c)? Then the trap returns to user at once, and
 * is not counted in the trap statistics. */
bool vpmu_step_fast(struct trap_frame *f);

static inline void vpmu_hook_user_exit(struct trap_frame *f)
{
	if (vpmu_counting[this_cpu_id()])
		vpmu_user_exit(f);
}

static inline void vpmu_hook(enum vpmu_mode mode)
{
	if (vpmu_counting[this_cpu_id()])
		vpmu_set_mode(mode);
}

/* A trap taken in kernel mode (from the idle loop's hlt, say). Not for
 * NMIs and machine checks: they may interrupt the model itself, which
 * only keeps ordinary interrupts out. */
void vpmu_kernel_trap(void);
static inline void vpmu_hook_kernel_trap(unsigned vector)
{
	if (vector != VEC_NMI && vector != VEC_MACHINE_CHECK && vpmu_counting[this_cpu_id()])
		vpmu_kernel_trap();
}

#endif
