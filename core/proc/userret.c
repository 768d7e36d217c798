/* Work done on every return to user mode. */
#include "kernel.h"
#include "pmu/perf.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "arch/tsc.h"
#include "userret.h"
#include "arch/x86.h"

void account_user_to_kernel(struct task *t)
{
	vpmu_hook_user_entry(t->frame);
	uint64_t now = time_since_boot_ns();
	if (t->acct_ns)
		t->utime_ns += now - t->acct_ns;
	t->acct_ns = now;
}

static void account_kernel_to_user(struct task *t, struct trap_frame *f)
{
	uint64_t now = time_since_boot_ns();
	if (t->acct_ns)
		t->stime_ns += now - t->acct_ns;
	t->acct_ns = now;
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
