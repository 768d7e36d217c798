/*
 * Futexes. A waiter is keyed by the physical address of the word, which
 * is the same for private and shared mappings. Waiters sit in a hash of
 * buckets; each bucket has its own lock, and the value check in WAIT
 * happens under it, so a WAKE after the value changed cannot be missed.
 */
#include <linux/futex.h>
#include <linux/time_types.h>
#include "futex.h"
#include "core/kernel.h"
#include "sched.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "timekeeping.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"

#define BUCKETS 64

struct futex_waiter {
	struct list node;
	uint64_t key;
	uint32_t bitset;
	struct task *task;
	volatile bool woken;
};

struct bucket {
	struct spinlock lock;
	struct list waiters;
};

static struct bucket buckets[BUCKETS];
static bool buckets_ready;

static void init_buckets(void)
{
	for (int i = 0; i < BUCKETS; i++) {
		buckets[i].lock = (struct spinlock)SPINLOCK_INIT("futex");
		list_init(&buckets[i].waiters);
	}
	buckets_ready = true;
}

static struct bucket *bucket_of(uint64_t key)
{
	if (!buckets_ready)
		init_buckets();
	return &buckets[(key >> 2) * 0x9e3779b97f4a7c15ULL >> 58];
}

static uint64_t key_of(uint64_t uaddr)
{
	if (uaddr & 3)
		return 0;
	if (!current->mm)
		return 0;
	/* A private page shared copy-on-write since fork is unshared
	 * first: its physical address then belongs to this process alone,
	 * as Linux keys private futexes by (mm, address). */
	uint64_t key = mm_translate(current->mm, uaddr, true);
	return key ? key : mm_translate(current->mm, uaddr, false);
}

static long futex_wait(uint64_t uaddr, uint32_t val, uint64_t deadline_ns,
		       uint32_t bitset)
{
	if (!bitset)
		return -EINVAL;
	uint64_t key = key_of(uaddr);
	if (!key)
		return -EFAULT;
	struct bucket *b = bucket_of(key);
	struct futex_waiter w = { .key = key, .bitset = bitset, .task = current };
	uint64_t f = spin_lock_irqsave(&b->lock);
	uint32_t cur;
	/* The word is resident (key_of faulted it in), so reading it with
	 * the bucket lock held cannot sleep. */
	if (copy_from_user(&cur, (void *)uaddr, 4)) {
		spin_unlock_irqrestore(&b->lock, f);
		return -EFAULT;
	}
	if (cur != val) {
		spin_unlock_irqrestore(&b->lock, f);
		return -EAGAIN;
	}
	list_add_tail(&w.node, &b->waiters);
	current->state = TASK_SLEEPING;
	spin_unlock_irqrestore(&b->lock, f);

	long r = 0;
	while (!w.woken) {
		if (signal_pending_current()) {
			r = -ERESTARTSYS;
			break;
		}
		if (deadline_ns && time_since_boot_ns() >= deadline_ns) {
			r = -ETIMEDOUT;
			break;
		}
		schedule_until(deadline_ns);
		current->state = TASK_SLEEPING;
	}
	f = spin_lock_irqsave(&b->lock);
	current->state = TASK_RUNNABLE;
	if (!w.woken)
		list_remove(&w.node);
	else
		r = 0;
	spin_unlock_irqrestore(&b->lock, f);
	return r;
}

/* Wake up to n waiters on key (matching bitset); returns how many. */
static int wake_key(uint64_t key, int n, uint32_t bitset)
{
	struct bucket *b = bucket_of(key);
	int woken = 0;
	uint64_t f = spin_lock_irqsave(&b->lock);
	list_for_each_safe(node, &b->waiters) {
		if (woken >= n)
			break;
		struct futex_waiter *w = list_entry(node, struct futex_waiter, node);
		if (w->key != key || !(w->bitset & bitset))
			continue;
		list_remove(node);
		w->woken = true;
		sched_wake(w->task);
		woken++;
	}
	spin_unlock_irqrestore(&b->lock, f);
	return woken;
}

int futex_wake_addr(uint64_t uaddr, int n)
{
	uint64_t key = key_of(uaddr);
	return key ? wake_key(key, n, FUTEX_BITSET_MATCH_ANY) : -EFAULT;
}

/* Wake n on uaddr, move up to m others to uaddr2. */
static long futex_requeue(uint64_t uaddr, uint64_t uaddr2, int n, int m,
			  bool cmp, uint32_t val)
{
	uint64_t k1 = key_of(uaddr), k2 = key_of(uaddr2);
	if (!k1 || !k2)
		return -EFAULT;
	if (cmp) {
		uint32_t cur;
		if (copy_from_user(&cur, (void *)uaddr, 4))
			return -EFAULT;
		if (cur != val)
			return -EAGAIN;
	}
	int done = wake_key(k1, n, FUTEX_BITSET_MATCH_ANY);
	struct bucket *b1 = bucket_of(k1), *b2 = bucket_of(k2);
	struct futex_waiter *moved[64];
	int nm = 0;
	uint64_t f = spin_lock_irqsave(&b1->lock);
	list_for_each_safe(node, &b1->waiters) {
		struct futex_waiter *w = list_entry(node, struct futex_waiter, node);
		if (w->key != k1 || nm >= m || nm >= 64)
			continue;
		list_remove(node);
		moved[nm++] = w;
	}
	spin_unlock_irqrestore(&b1->lock, f);
	f = spin_lock_irqsave(&b2->lock);
	for (int i = 0; i < nm; i++) {
		moved[i]->key = k2;
		list_add_tail(&moved[i]->node, &b2->waiters);
	}
	spin_unlock_irqrestore(&b2->lock, f);
	return done + nm;
}

SYSCALL_DEFINE6(futex, uint64_t, uaddr, int, futex_op, uint32_t, val, uint64_t, utime,
		uint64_t, uaddr2, uint32_t, val3)
{
	int op = futex_op & FUTEX_CMD_MASK;
	bool realtime = futex_op & FUTEX_CLOCK_REALTIME;
	uint64_t deadline = 0;
	if ((op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET) && utime) {
		struct __kernel_timespec ts;
		if (copy_from_user(&ts, (void *)utime, sizeof(ts)))
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		if (op == FUTEX_WAIT)
			deadline = time_since_boot_ns() + ns;  /* relative */
		else
			deadline = clock_to_boot_ns(realtime ? CLOCK_REALTIME_ID
							     : CLOCK_MONOTONIC_ID, ns);
		if (!deadline)
			deadline = 1; /* already past */
	}
	if (realtime && op != FUTEX_WAIT_BITSET && op != FUTEX_WAIT)
		return -ENOSYS;
	switch (op) {
	case FUTEX_WAIT:
		return futex_wait(uaddr, val, deadline, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(uaddr, val, deadline, val3);
	case FUTEX_WAKE:
		return futex_wake_addr(uaddr, (int)val);
	case FUTEX_WAKE_BITSET: {
		if (!val3)
			return -EINVAL;
		uint64_t key = key_of(uaddr);
		return key ? wake_key(key, (int)val, val3) : -EFAULT;
	}
	case FUTEX_REQUEUE:
		return futex_requeue(uaddr, uaddr2, (int)val, (int)utime, false, 0);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(uaddr, uaddr2, (int)val, (int)utime, true, val3);
	default:
		return -ENOSYS;
	}
}
