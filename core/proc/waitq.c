/* Wait queues. See waitq.h for the protocol that avoids lost wakeups. */
#include "core/kernel.h"
#include "sched.h"
#include "signal.h"
#include "waitq.h"

void waitq_init(struct waitq *wq)
{
	wq->lock = (struct spinlock)SPINLOCK_INIT("waitq");
	list_init(&wq->waiters);
}

void waitq_prepare(struct waitq *wq, struct waiter *w, bool interruptible)
{
	struct task *self = current;
	uint64_t f = spin_lock_irqsave(&wq->lock);
	if (!w->queued) {
		w->task = self;
		w->queued = true;
		list_add_tail(&w->node, &wq->waiters);
	}
	self->state = interruptible ? TASK_SLEEPING : TASK_SLEEPING_UNINT;
	spin_unlock_irqrestore(&wq->lock, f);
}

void waitq_finish(struct waitq *wq, struct waiter *w)
{
	uint64_t f = spin_lock_irqsave(&wq->lock);
	current->state = TASK_RUNNABLE;
	if (w->queued)
		list_remove(&w->node);
	w->queued = false;
	spin_unlock_irqrestore(&wq->lock, f);
}

static void wake(struct waitq *wq, bool all)
{
	uint64_t f = spin_lock_irqsave(&wq->lock);
	list_for_each_safe(n, &wq->waiters) {
		struct waiter *w = list_entry(n, struct waiter, node);
		list_remove(n); /* a woken waiter re-queues itself if it sleeps again */
		w->queued = false;
		sched_wake(w->task);
		if (!all)
			break;
	}
	spin_unlock_irqrestore(&wq->lock, f);
}

void waitq_wake_all(struct waitq *wq) { wake(wq, true); }
void waitq_wake_one(struct waitq *wq) { wake(wq, false); }
