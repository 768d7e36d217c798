/* The way back to user mode: preemption, signals, time accounting. */
#ifndef BAREMON_USERRET_H
#define BAREMON_USERRET_H

#include "task.h"
#include "pmu/perf.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"

/* Called last before a trap or system call returns to user mode; returns
 * with interrupts off. May switch tasks and rewrite f for a signal. */
void return_to_user(struct trap_frame *f);

/* Add the span since t->acct_tsc to *sum and start the next one: one
 * RDTSC at each user/kernel boundary (task.h's utime_tsc, stime_tsc). */
static inline void account_span(struct task *t, uint64_t *sum)
{
	uint64_t now = rdtsc();
	if (t->acct_tsc)
		*sum += now - t->acct_tsc;
	t->acct_tsc = now;
}

/* Entry from user mode (t->frame set): the vpmu catches up, user time. */
static inline void account_user_to_kernel(struct task *t)
{
	vpmu_hook_user_entry(t->frame);
	account_span(t, &t->utime_tsc);
}
/* The end of a system call: return_to_user's work when some is pending,
 * else only the accounting. Returns with interrupts off; true when f can
 * leave by SYSRET (syscall_entry.asm's fast path), false for IRETQ. */
bool syscall_return(struct trap_frame *f);

#endif
