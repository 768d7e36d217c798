/*
 * Sleeping locks: for holders that may block or touch user memory (file
 * data, directory trees, pipe rings). A free lock is taken with one atomic
 * exchange and no wait queue involvement, so code running before tasks
 * exist (boot, self-tests) uses them like plain locks.
 *
 * No lost wakeup: a waiter enqueues itself before re-trying the exchange;
 * the releaser's exchange is a full barrier before it looks for waiters.
 */
#include "vfs.h"

void sleeplock_init(struct sleeplock *l)
{
	l->locked = 0;
	waitq_init(&l->wq);
}

static bool sleep_trylock(struct sleeplock *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

void sleep_lock(struct sleeplock *l)
{
	if (sleep_trylock(l))
		return;
	wait_event(l->wq, sleep_trylock(l));
}

void sleep_unlock(struct sleeplock *l)
{
	__atomic_exchange_n(&l->locked, 0, __ATOMIC_SEQ_CST);
	if (!list_empty(&l->wq.waiters))
		waitq_wake_one(&l->wq);
}
