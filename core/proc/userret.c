/*
 * Work done on every return to user mode, and the time accounting at the
 * user/kernel boundary.
 *
 * Accounting: one RDTSC at each boundary adds the span just ended to
 * utime_tsc or stime_tsc (ticks); the conversion to ns happens only when
 * someone reads the times (task_utime_ns). Written by the task itself on
 * its own CPU; readers elsewhere may see a value one span old.
 */
#include "core/kernel.h"
#include "pmu/perf.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "core/arch/percpu.h"
#include "core/arch/tsc.h"
#include "userret.h"
#include "core/arch/x86.h"

#define RFLAGS_TF (1ULL << 8)
#define RFLAGS_RF (1ULL << 16)
#define USER_CS 0x23
#define USER_DS 0x1b
/* The lowest non-canonical-safe user RIP: SYSRET to an address at or
 * above it could #GP in ring 0 on Intel CPUs (the SYSRET issue), so such
 * returns go through IRETQ. Linux uses the same bound (TASK_SIZE_MAX). */
#define SYSRET_RIP_LIMIT 0x00007ffffffff000ULL

uint64_t task_utime_ns(const struct task *t) { return tsc_to_ns(t->utime_tsc); }
uint64_t task_stime_ns(const struct task *t) { return tsc_to_ns(t->stime_tsc); }

static void account_kernel_to_user(struct task *t, struct trap_frame *f)
{
	account_span(t, &t->stime_tsc);
	vpmu_hook_user_exit(f);
}

static bool restart_pending(const struct trap_frame *f)
{
	long r = (long)f->rax;
	return f->vector == SYSCALL_VECTOR &&
	       (r == -ERESTARTSYS || r == -ERESTARTNOHAND || r == -ERESTARTNOINTR);
}

void return_to_user(struct trap_frame *f)
{
	struct task *self = current;
	bool delivered = false;
	for (;;) {
		irq_enable();
		sched_preempt_point();
		if (!delivered && (signal_pending_current() || restart_pending(f) ||
				   (self->sig && self->sig->group_stopped))) {
			signal_deliver(f);
			delivered = true;
			continue;
		}
		irq_disable();
		if (sched_need_resched())
			continue;
		/* Interrupts are off: it only marks tasks runnable, and may
		 * queue a perf signal for this task, delivered before leaving. */
		perf_wakeup_pending();
		if (delivered || !signal_pending_current())
			break;
	}
	account_kernel_to_user(self, f);
}

/* Can SYSRET restore f exactly? It loads RIP from RCX and RFLAGS from
 * R11 and fixed CS/SS, and cannot restore RF; TF is left to IRETQ too. */
static bool sysret_can_return(const struct trap_frame *f)
{
	return f->rcx == f->rip && f->r11 == f->rflags && f->rip < SYSRET_RIP_LIMIT &&
	       !(f->rflags & (RFLAGS_TF | RFLAGS_RF)) && f->cs == USER_CS &&
	       f->ss == USER_DS;
}

/* Anything return_to_user would do? Interrupts off, so nothing new can
 * become pending on this CPU before the SYSRET; what arrives later (a
 * signal's IPI, the tick) is taken in user mode and handled there. */
static bool return_work_pending(const struct task *self, const struct trap_frame *f)
{
	const struct signal_state *sig = self->sig;
	return self->work || sched_need_resched() || !sig ||
	       (self->sigpending & ~self->sigmask) || sig->group_exiting ||
	       sig->group_stopped || restart_pending(f) || perf_wakeup_owed();
}

bool syscall_return(struct trap_frame *f)
{
	struct task *self = current;
	irq_disable();
	if (return_work_pending(self, f)) {
		return_to_user(f);
		return false;
	}
	account_kernel_to_user(self, f); /* the vpmu may set TF in f here */
	return sysret_can_return(f);
}
