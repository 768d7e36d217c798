/*
 * Locked-memory accounting of ring buffers, Linux's perf_mmap rules: a
 * user may lock perf_event_mlock_kb per online CPU in buffers (control
 * page included); pages beyond that count against the process's
 * RLIMIT_MEMLOCK (mm->pinned_vm) and are EPERM past it, unless
 * perf_event_paranoid is -1 or the caller is root. The charge is
 * returned when the last mapping of the buffer goes (mapping.c).
 *
 * Locking: rb_lock guards the per-user table. rb_charge runs with
 * interrupts off (its caller holds the writers' irqsave lock);
 * rb_uncharge saves and restores them (a vma's close hook).
 */
#include <linux/errno.h>
#include "core/kernel.h"
#include "core/fs/vfs.h"
#include "core/mm/usermm.h"
#include "core/proc/sched.h"
#include "core/proc/task.h"
#include "ringbuf.h"

static struct spinlock rb_lock = SPINLOCK_INIT("perf-rb");

#define MAX_USERS 64
static struct { uint32_t uid; uint64_t pages; bool used; } users[MAX_USERS];

/* The uid's counter, made if new; NULL when the table is full. Under
 * rb_lock. */
static uint64_t *user_locked(uint32_t uid)
{
	int free = -1;
	for (int i = 0; i < MAX_USERS; i++) {
		if (users[i].used && users[i].uid == uid)
			return &users[i].pages;
		if (!users[i].used && free < 0)
			free = i;
	}
	if (free < 0)
		return NULL;
	users[free].used = true;
	users[free].uid = uid;
	users[free].pages = 0;
	return &users[free].pages;
}

static unsigned online_cpus(void)
{
	return cpumask_weight(sched_online_mask());
}

/* Charge `pages` for a new buffer to the caller: 0 or -EPERM. Under
 * rb_lock. */
static int charge(struct ring_buffer *rb, struct mm *mm, uint64_t pages)
{
	uint64_t *locked = user_locked(current->uid);
	if (!locked)
		return -ENOMEM;
	int kb = sysctl_perf_event_mlock_kb();
	uint64_t limit = kb > 0 ? (uint64_t)kb / (PAGE_SIZE / 1024) * online_cpus() : 0;
	uint64_t want = *locked + pages;
	uint64_t extra = want > limit ? want - limit : 0;
	uint64_t memlock = rlimit_cur(RLIMIT_MEMLOCK) / PAGE_SIZE;
	if (mm->pinned_vm + extra > memlock && sysctl_perf_event_paranoid() > -1 &&
	    current->euid != 0)
		return -EPERM;
	*locked += pages - extra;
	mm->pinned_vm += extra;
	rb->uid = current->uid;
	rb->charged_user = pages - extra;
	rb->charged_pinned = extra;
	return 0;
}

int rb_charge(struct ring_buffer *rb, struct mm *mm, uint64_t pages)
{
	spin_lock(&rb_lock);
	int r = charge(rb, mm, pages);
	spin_unlock(&rb_lock);
	return r;
}

void rb_uncharge(struct ring_buffer *rb, struct mm *mm)
{
	uint64_t f = spin_lock_irqsave(&rb_lock);
	uint64_t *locked = user_locked(rb->uid);
	if (locked)
		*locked -= rb->charged_user;
	mm->pinned_vm -= rb->charged_pinned < mm->pinned_vm ? rb->charged_pinned
							    : mm->pinned_vm;
	rb->charged_user = rb->charged_pinned = 0;
	spin_unlock_irqrestore(&rb_lock, f);
}
