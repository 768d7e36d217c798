/* Self-tests: exception dispatch, IST stacks, the timer interrupt. */
#include "apic.h"
#include "gdt.h"
#include "percpu.h"
#include "core/selftest.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"
#include "core/proc/sched.h"

static volatile int hits;
static volatile uint64_t seen_rsp;

static void count_and_skip_ud2(struct trap_frame *f)
{
	hits++;
	f->rip += 2; /* ud2 is two bytes */
}

static void count_breakpoint(struct trap_frame *f)
{
	(void)f;
	hits++;
}

SELFTEST(trap_resume)
{
	hits = 0;
	trap_handler old_bp = trap_get_handler(VEC_BREAKPOINT);
	trap_handler old_ud = trap_get_handler(VEC_INVALID_OP);
	trap_set_handler(VEC_BREAKPOINT, count_breakpoint);
	__asm__ volatile("int3");
	trap_set_handler(VEC_BREAKPOINT, old_bp);
	ST_CHECK(t, hits == 1);

	trap_set_handler(VEC_INVALID_OP, count_and_skip_ud2);
	__asm__ volatile("ud2");
	__asm__ volatile("ud2");
	trap_set_handler(VEC_INVALID_OP, old_ud);
	ST_CHECK(t, hits == 3);
}

static void record_nmi(struct trap_frame *f)
{
	hits++;
	seen_rsp = (uint64_t)&f;
}

SELFTEST(nmi_uses_ist)
{
	hits = 0;
	trap_handler old_nmi = trap_get_handler(VEC_NMI);
	trap_set_handler(VEC_NMI, record_nmi);
	apic_send_ipi(this_cpu()->apic_id, 4u << 8 /* NMI */);
	for (int i = 0; i < 1000000 && !hits; i++)
		cpu_relax();
	trap_set_handler(VEC_NMI, old_nmi);
	uint64_t top = ist_stack_top(this_cpu_id(), IST_NMI);
	ST_CHECK(t, hits == 1);
	ST_CHECK(t, seen_rsp < top && seen_rsp > top - IST_STACK_SIZE);
}

/*
 * The tick runs, at no more than its rate. It is waited for, not timed:
 * on a busy host QEMU delivers late timer interrupts and the tick skips
 * the periods it missed (sched.c), so a fixed 100 ms window saw 4 ticks
 * at load 11. Up to 3 s for 5 ticks. Ticks expire on a grid a period
 * apart, and a late one re-arms for the next grid point after its
 * delivery: the 2nd to 5th ticks expire at distinct grid points after
 * the start, so 5 ticks take 3 periods or more.
 */
SELFTEST(timer_ticks)
{
	uint64_t ticks = this_cpu()->ticks;
	uint64_t counted = trap_count(this_cpu_id(), VEC_TIMER);
	uint64_t start = time_since_boot_ns();
	uint64_t until = start + 3000000000ULL;
	while (this_cpu()->ticks - ticks < 5 && time_since_boot_ns() < until)
		halt();
	uint64_t got = this_cpu()->ticks - ticks;
	uint64_t elapsed = time_since_boot_ns() - start;
	ST_CHECK(t, got >= 5);
	ST_CHECK(t, elapsed >= 3 * TICK_NS);
	ST_CHECK(t, trap_count(this_cpu_id(), VEC_TIMER) - counted == got);
	if (got < 5 || elapsed < 3 * TICK_NS)
		ST_FAIL(t, "%llu ticks in %llu us", (unsigned long long)got,
			(unsigned long long)(elapsed / 1000));
}
