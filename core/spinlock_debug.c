/*
 * The debug build's spinlocks (BAREMON_DEBUG): the same test-and-set
 * lock, with its holder's CPU and call site recorded, so that taking a
 * lock this CPU already holds (a deadlock) or releasing one it does not
 * hold is reported (debugcheck.c) naming the lock and both sites.
 */
#ifdef BAREMON_DEBUG
#include "debugcheck.h"
#include "spinlock.h"
#include "core/arch/msr-index.h"
#include "core/arch/percpu.h"

/* This CPU's id + 1; 0 before per-CPU data exists (GS base 0). */
static uint32_t cpu_tag(void)
{
	uint64_t gs = rdmsr(MSR_GS_BASE);
	return gs ? ((struct percpu *)gs)->id + 1 : 1;
}

static void taken(struct spinlock *l, uint32_t me, uint64_t site)
{
	l->owner = me;
	l->site = site;
}

void spin_lock(struct spinlock *l)
{
	uint64_t site = (uint64_t)__builtin_return_address(0);
	uint32_t me = cpu_tag();
	if (l->locked && l->owner == me) {
		char a[64], b[64];
		if (debug_report("spinlock: %s taken again on CPU %u at %s; it holds it "
				 "since %s", l->name, me - 1, debug_site(site, a, sizeof(a)),
				 debug_site(l->site, b, sizeof(b))))
			return;
	}
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (l->locked)
			cpu_relax();
	taken(l, me, site);
}

int spin_trylock(struct spinlock *l)
{
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return 0;
	taken(l, cpu_tag(), (uint64_t)__builtin_return_address(0));
	return 1;
}

void spin_unlock(struct spinlock *l)
{
	uint32_t me = cpu_tag();
	if (!l->locked || l->owner != me) {
		char a[64], b[64];
		uint64_t site = (uint64_t)__builtin_return_address(0);
		if (debug_report("spinlock: %s released on CPU %u at %s, %s%s",
				 l->name, me - 1, debug_site(site, a, sizeof(a)),
				 l->locked ? "held by a CPU since " : "not held",
				 l->locked ? debug_site(l->site, b, sizeof(b)) : ""))
			return;
	}
	l->owner = 0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
#endif
