/*
 * Spinlocks. A spinlock is held with interrupts off on the holding CPU
 * (spin_lock_irqsave), so an interrupt handler on the same CPU can never
 * deadlock against the code it interrupted. NMI handlers must not take
 * spinlocks at all (they use lock-free paths: see log.c's panic path).
 */
#ifndef BAREMON_SPINLOCK_H
#define BAREMON_SPINLOCK_H

#include <stdint.h>
#include "core/arch/x86.h"

struct spinlock {
	volatile uint32_t locked;
	const char *name;
#ifdef BAREMON_DEBUG
	uint32_t owner;    /* holding CPU + 1, 0 when free */
	uint64_t site;     /* where the holder took it */
#endif
};

#define SPINLOCK_INIT(n) { .locked = 0, .name = n }

#ifdef BAREMON_DEBUG
/* The debug build checks owners (spinlock_debug.c): taking a lock this
 * CPU holds, or releasing one it does not hold, is reported with the
 * lock's name and where its holder took it. */
void spin_lock(struct spinlock *l);
int spin_trylock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
#else

static inline void spin_lock(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			cpu_relax();
}

static inline int spin_trylock(struct spinlock *l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static inline void spin_unlock(struct spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
#endif

static inline uint64_t spin_lock_irqsave(struct spinlock *l)
{
	uint64_t flags = irq_save();
	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(struct spinlock *l, uint64_t flags)
{
	spin_unlock(l);
	irq_restore(flags);
}

#endif
