/*
 * NMI dispatch (nmi.h). The counters and the depth of CPU c are written
 * by CPU c only; an NMI does not nest in another (the CPU blocks NMIs
 * until the handler's IRET), so plain increments suffice.
 *
 * A handler installed with trap_set_handler(VEC_NMI) (the self-tests)
 * gets the NMIs the registered handlers did not claim.
 *
 * A storm (NMIs so close together that the interrupted code gets
 * almost no time between them) would stop the machine without a word:
 * nothing else runs on that CPU, not even the log's deferred work. Each
 * CPU counts its NMIs that came sooner after the previous one ended
 * than STORM_GAP times their own handler's time (the gap holds the
 * entry and exit code too: under -icount, where every instruction costs
 * the same, the injected storm's gaps were 1.3 times its handlers'
 * time; under plain TCG, where the handler's APIC accesses are slow, a
 * thirteenth of it); one that came later halves the count (a host that
 * deschedules QEMU stretches a gap now and then: TCG's TSC runs on),
 * and a count of STORM_STREAK is a storm: the CPU panics with the
 * interrupted registers
 * (panic_frame prints without taking the log's lock). perf's sampling
 * cannot make such a run: throttling allows an event
 * max_samples_per_tick (1,000 by default) overflows a tick, then
 * stops it until the next.
 */
#include "nmi.h"
#include "irq_work.h"
#include "core/kernel.h"
#include "percpu.h"
#include "x86.h"
#include "core/panic.h"

#define MAX_NMI_HANDLERS 4

static nmi_handler handlers[MAX_NMI_HANDLERS];
static unsigned nr_handlers;
static uint64_t counts[MAX_CPUS], unknown[MAX_CPUS];
static unsigned depth[MAX_CPUS];
static int report_work = -1;
static bool reported;

#define STORM_STREAK 10000u
#define STORM_GAP 4u

/* Per CPU, written by that CPU in its NMIs. */
struct storm_state {
	uint64_t last_exit;   /* TSC at the end of the previous NMI, 0: none */
	uint64_t streak_gaps; /* cycles between the NMIs of the streak */
	uint64_t streak_nmi;  /* cycles in their handlers */
	unsigned streak;      /* NMIs that came too soon, halved by each in time */
};
static struct storm_state storms[MAX_CPUS];

void nmi_register(nmi_handler h)
{
	if (nr_handlers < MAX_NMI_HANDLERS)
		handlers[nr_handlers++] = h;
}

bool in_nmi(void)
{
	return depth[this_cpu_id()] != 0;
}

uint64_t nmi_count(unsigned cpu)
{
	return counts[cpu];
}

uint64_t nmi_unknown_count(unsigned cpu)
{
	return unknown[cpu];
}

static void report_unknown(void)
{
	if (reported)
		return;
	reported = true;
	klog("nmi: cpu %u: NMI received for unknown reason (counted in /proc/interrupts)",
	     this_cpu_id());
}

void nmi_init(void)
{
	report_work = irq_work_register(report_unknown);
}

static bool claimed(struct trap_frame *f)
{
	for (unsigned i = 0; i < nr_handlers; i++)
		if (handlers[i](f))
			return true;
	trap_handler h = trap_get_handler(VEC_NMI);
	if (!h)
		return false;
	h(f);
	return true;
}

/* One NMI, entry to exit: a storm ends here (with a report). */
static void storm_account(struct trap_frame *f, unsigned cpu, uint64_t entry)
{
	struct storm_state *w = &storms[cpu];
	uint64_t exit = rdtsc(), took = exit - entry;
	uint64_t gap = w->last_exit && entry > w->last_exit ? entry - w->last_exit : ~0ULL;
	w->last_exit = exit;
	if (gap == ~0ULL || gap >= STORM_GAP * took) {
		w->streak /= 2;
		w->streak_gaps /= 2;
		w->streak_nmi /= 2;
		return;
	}
	w->streak_gaps += gap;
	w->streak_nmi += took;
	if (++w->streak < STORM_STREAK)
		return;
	panic_frame(f, "NMI storm on cpu %u: %u NMIs too close together left the interrupted code "
		    "%llu TSC cycles against %llu in their handlers (%llu NMIs in all, "
		    "%llu unclaimed)", cpu, w->streak, (unsigned long long)w->streak_gaps,
		    (unsigned long long)w->streak_nmi, (unsigned long long)counts[cpu],
		    (unsigned long long)unknown[cpu]);
}

void nmi_dispatch(struct trap_frame *f)
{
	unsigned cpu = this_cpu_id();
	uint64_t entry = rdtsc();
	counts[cpu]++;
	depth[cpu]++;
	if (!claimed(f)) {
		unknown[cpu]++;
		irq_work_raise(report_work);
	}
	depth[cpu]--;
	storm_account(f, cpu, entry);
}
