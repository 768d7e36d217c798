/*
 * Notification, step 3 of every overflow (overflow.c), as Linux's
 * __perf_event_overflow and perf_pending_irq:
 *
 *   - REFRESH: a non-zero event_limit counts overflows down; the one
 *     that reaches 0 stops sampling, disables the event and makes the
 *     owner's signal POLL_HUP instead of POLL_IN;
 *   - sigtrap: SIGTRAP (TRAP_PERF) to the task the event counts, queued
 *     at once (the task is running here: it takes it before it runs
 *     another user instruction) - except in an NMI, where the task's
 *     signal lock may be held by the code interrupted: then it is owed
 *     like the others, and sent from irq_work before the task runs
 *     user code again (the self-IPI is taken first);
 *   - O_ASYNC: when the fd has it, its owner gets a signal per overflow
 *     (fasync.c).
 *
 * Disabling and signalling owners cannot happen under perf_lock (they
 * take run-queue and task locks): the overflow queues the event on its
 * CPU's list, holding a reference, and perf_notify_pending() does the
 * rest when perf_wakeup_pending() runs (on the way back to user mode,
 * after a fault or a breakpoint, at the tick).
 *
 * Locking: the lists, event_limit, pending_* and notify_* fields are
 * under perf_lock. Nothing here takes another lock while perf_lock is
 * held, so an NMI that trylocked perf_lock may call
 * perf_notify_overflow.
 */
#include <asm/siginfo.h>
#include <linux/errno.h>
#include "event.h"
#include "core/fs/fasync.h"
#include "core/kernel.h"
#include "notify.h"
#include "core/arch/percpu.h"
#include "hit.h"
#include "core/proc/signal.h"
#include "core/arch/nmi.h"
#include "core/arch/trap.h"
#include "core/fs/vfs.h"

static struct perf_event *pending[MAX_CPUS];

/* The event whose fd it is: inherited copies signal through it. */
static struct perf_event *original(struct perf_event *e)
{
	while (e->parent)
		e = e->parent;
	return e;
}

static void queue(struct perf_event *e)
{
	if (e->notify_queued || !event_get_live(e))
		return; /* queued already, or its fd was closed */
	unsigned cpu = this_cpu_id();
	e->notify_queued = true;
	e->notify_next = pending[cpu];
	pending[cpu] = e;
}

/* SIGTRAP's si_addr: the occurrence's data address, unless the hit is
 * in the kernel for an exclude_kernel event (skid: Linux's
 * sample_is_allowed). */
static uint64_t trap_addr(const struct perf_event *e, const struct perf_hit *hit)
{
	if (!hit)
		return 0;
	if (e->attr.exclude_kernel && hit->regs && (hit->regs->cs & 3) != 3)
		return 0;
	return hit->addr;
}

/* Owed work is kept on the event of the fd: inherited copies are freed
 * without regard to references when their task exits, and only the fd's
 * event has a REFRESH limit (REFRESH refuses inherit). */
bool perf_notify_overflow(struct perf_event *e, const struct perf_hit *hit)
{
	struct perf_event *o = original(e);
	bool stop = false;
	int kill = POLL_IN;
	if (e->event_limit && --e->event_limit == 0) {
		stop = true;
		kill = POLL_HUP;
		o->pending_disable = true; /* e == o */
	}
	if (e->attr.sigtrap && e->task && in_nmi()) {
		o->pending_sigtrap = e->task;
		o->pending_sigtrap_addr = trap_addr(e, hit);
	} else if (e->attr.sigtrap && e->task) {
		signal_send_perf(e->task, trap_addr(e, hit), e->attr.type, e->attr.sig_data);
	}
	if (fasync_wanted(&o->fasync))
		o->pending_kill = kill;
	if (o->pending_kill || o->pending_disable || o->pending_sigtrap)
		queue(o);
	return stop;
}

/* Take the first queued event of this CPU and what it is owed. */
struct owed {
	int kill;
	bool disable;
	struct task *sigtrap;
	uint64_t sigtrap_addr;
};

static struct perf_event *dequeue(struct owed *w)
{
	unsigned cpu = this_cpu_id();
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	struct perf_event *e = pending[cpu];
	if (e) {
		pending[cpu] = e->notify_next;
		e->notify_queued = false;
		w->kill = e->pending_kill;
		w->disable = e->pending_disable;
		w->sigtrap = e->pending_sigtrap;
		w->sigtrap_addr = e->pending_sigtrap_addr;
		e->pending_kill = 0;
		e->pending_disable = false;
		e->pending_sigtrap = NULL;
	}
	spin_unlock_irqrestore(&perf_lock, fl);
	return e;
}

void perf_notify_pending(void)
{
	if (!__atomic_load_n(&pending[this_cpu_id()], __ATOMIC_RELAXED))
		return;
	struct owed w;
	struct perf_event *e;
	while ((e = dequeue(&w)) != NULL) {
		if (w.sigtrap)
			signal_send_perf(w.sigtrap, w.sigtrap_addr, e->attr.type, e->attr.sig_data);
		if (w.disable) /* before the POLL_HUP, as Linux */
			event_disable(e, false);
		if (w.kill)
			kill_fasync(&e->fasync, SIGIO, w.kill);
		event_put(e);
	}
}

bool perf_notify_owed(void)
{
	return __atomic_load_n(&pending[this_cpu_id()], __ATOMIC_RELAXED) != NULL;
}

long perf_refresh(struct perf_event *e, int n)
{
	if (e->attr.inherit || !perf_is_sampling(e))
		return -EINVAL;
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	e->event_limit += n;
	spin_unlock_irqrestore(&perf_lock, fl);
	event_enable(e, false);
	return 0;
}

int perf_fasync(struct file *f, int fd, bool on)
{
	struct perf_event *e = f->priv;
	return fasync_helper(fd, f, on, &e->fasync);
}
