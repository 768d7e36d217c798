/*
 * perf events: what the rest of the kernel calls. The event core is in
 * pmu/core.c (open, contexts, groups), pmu/fops.c (read, ioctl, the fd),
 * pmu/sw.c (software events), pmu/inherit.c (fork/exit/exec).
 *
 * The hooks run in the context they name: the scheduler's with the run
 * queue locked and interrupts off, the fault handler's with interrupts
 * off. None of them sleeps.
 */
#ifndef BAREMON_PERF_H
#define BAREMON_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct task;

/* The scheduler switched prev out and next in on this CPU. */
void perf_sched_out(struct task *prev, struct task *next);
void perf_sched_in(struct task *next);

/* A software event happened in the current task (on this CPU). `where`
 * says in which mode, for exclude_user/exclude_kernel; PERF_SW_ANY events
 * are never excluded. The scheduler's (context switches, migrations)
 * are PERF_SW_KERNEL, as Linux counts them with the kernel's registers. */
enum perf_sw_where { PERF_SW_ANY, PERF_SW_USER, PERF_SW_KERNEL };
void perf_sw_event(unsigned config, uint64_t n, enum perf_sw_where where);
/* The same with what a sample needs: registers, data address (hit may
 * be NULL: the current task's user registers). */
struct perf_hit;
void perf_sw_event_at(unsigned config, uint64_t n, enum perf_sw_where where,
		      const struct perf_hit *hit);

/* fork/clone: copy inherited events to the child (0 or -ENOMEM). */
int perf_inherit(struct task *parent, struct task *child, bool thread);
/* A task is exiting: fold inherited counts into their parents, detach
 * the task's events (their fds keep working). */
void perf_task_exit(struct task *t);
/* execve: enable the events that asked for enable_on_exec. */
void perf_task_exec(struct task *t);
/* prctl(PR_TASK_PERF_EVENTS_ENABLE/DISABLE): the events the task owns. */
void perf_task_enable_owned(struct task *t, bool enable);

/* Every tick of this CPU: rotate multiplexed groups when due. Whether
 * this CPU needs its tick for that (even idle or isolated). */
struct trap_frame;
void perf_tick(struct trap_frame *f);
/* Wake pollers of buffers written under perf_lock (cheap when none).
 * Not with a run-queue or wait-queue lock held. */
void perf_wakeup_pending(void);
bool perf_wants_tick(unsigned cpu);

/* Side-band records (ringbuf/sideband.c), from process context: the
 * task's name (exec: PERF_RECORD_MISC_COMM_EXEC), fork and exit, and a
 * new mapping (pgoff in bytes; name "" for anonymous). */
void perf_record_comm(struct task *t, bool exec);
void perf_record_task(struct task *t, struct task *parent, bool fork);
void perf_record_mmap(uint64_t addr, uint64_t len, uint64_t pgoff, int prot,
		      const char *name);
/* An MMAP/MMAP2 of a file whose build id exec found (ringbuf/buildid.c). */
void perf_record_mmap_file(uint64_t addr, uint64_t len, uint64_t pgoff, int prot,
			   const char *name, const uint8_t *build_id, unsigned build_id_size);

void perf_init(void);
void intel_pmu_init(void); /* the "cpu" PMU (pmu/intel.c), from perf_init */

#endif
