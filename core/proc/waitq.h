/*
 * Wait queues: a task sleeps until a condition holds, and whoever makes it
 * true calls waitq_wake_all. The condition is re-checked after every
 * wakeup, so spurious wakeups are harmless. Interruptible waits return
 * -ERESTARTSYS when a signal is pending for the sleeper.
 *
 * Locking: wq->lock (irqsave) protects the list of waiters. The sleeper
 * enqueues itself and marks itself sleeping before it re-checks the
 * condition, so a wakeup between check and sleep is never lost.
 */
#ifndef BAREMON_WAITQ_H
#define BAREMON_WAITQ_H

#include "core/list.h"

/* Kernel-internal errno (never seen by user space), as in Linux. */
#define ERESTARTSYS 512
#include "core/spinlock.h"

struct task;

struct waitq {
	struct spinlock lock;
	struct list waiters;
};

#define WAITQ_INIT(name) { SPINLOCK_INIT("waitq"), LIST_INIT((name).waiters) }

void waitq_init(struct waitq *wq);
void waitq_wake_all(struct waitq *wq);
void waitq_wake_one(struct waitq *wq);

/* Building blocks for wait_event*: */
struct waiter {
	struct list node;
	struct task *task;
	bool queued;          /* on wq->waiters (wq->lock) */
};
void waitq_prepare(struct waitq *wq, struct waiter *w, bool interruptible);
void waitq_finish(struct waitq *wq, struct waiter *w);
bool signal_pending_current(void);
void schedule(void);
/* Sleep until the deadline (TSC ns since boot) or a wakeup; 0 = no limit. */
void schedule_until(uint64_t deadline_ns);

/*
 * Sleep until cond is true. Returns 0, or -ERESTARTSYS if a signal
 * arrived first: the system-call exit path turns that into a restart
 * (no handler, or SA_RESTART) or -EINTR. `cond` is evaluated with no lock
 * held.
 */
#define wait_event_interruptible(wq, cond)                             \
	({                                                             \
		long __ret = 0;                                        \
		struct waiter __w = { .queued = false };               \
		for (;;) {                                             \
			waitq_prepare(&(wq), &__w, true);              \
			if (cond)                                      \
				break;                                 \
			if (signal_pending_current()) {                \
				__ret = -ERESTARTSYS;                  \
				break;                                 \
			}                                              \
			schedule();                                    \
		}                                                      \
		waitq_finish(&(wq), &__w);                             \
		__ret;                                                 \
	})

#define wait_event(wq, cond)                                           \
	do {                                                           \
		struct waiter __w = { .queued = false };               \
		for (;;) {                                             \
			waitq_prepare(&(wq), &__w, false);             \
			if (cond)                                      \
				break;                                 \
			schedule();                                    \
		}                                                      \
		waitq_finish(&(wq), &__w);                             \
	} while (0)

#endif
