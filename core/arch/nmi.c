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
 * nothing else runs on that CPU, not even the log's deferred work. Over
 * each run of STORM_WINDOW NMIs the CPU adds the TSC cycles spent in the
 * handlers and between them; when the code between them had less than
 * 1/STORM_RATIO of the handlers' time, the CPU panics with the
 * interrupted registers (panic_frame prints without taking the log's
 * lock). perf's highest sampling rate leaves the interrupted code most
 * of the time; a storm leaves it a few instructions an NMI.
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

#define STORM_WINDOW 100000u
#define STORM_RATIO 8u

/* Per CPU: the window being measured, written by that CPU in its NMIs. */
struct storm_window {
	uint64_t last_exit;   /* TSC at the end of the previous NMI, 0: none */
	uint64_t in_nmi;      /* cycles in handlers this window */
	uint64_t between;     /* cycles of interrupted code this window */
	unsigned nmis;        /* NMIs this window */
};
static struct storm_window storms[MAX_CPUS];

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

/* One NMI's time, entry to exit; a storm ends here (with a report). */
static void storm_account(struct trap_frame *f, unsigned cpu, uint64_t entry)
{
	struct storm_window *w = &storms[cpu];
	uint64_t exit = rdtsc();
	if (w->last_exit && entry > w->last_exit)
		w->between += entry - w->last_exit;
	w->in_nmi += exit - entry;
	w->last_exit = exit;
	if (++w->nmis < STORM_WINDOW)
		return;
	if (w->between * STORM_RATIO < w->in_nmi)
		panic_frame(f, "NMI storm on cpu %u: %u NMIs left the interrupted code "
			    "%llu TSC cycles against %llu in their handlers (%llu NMIs in all, "
			    "%llu unclaimed)", cpu, w->nmis, (unsigned long long)w->between,
			    (unsigned long long)w->in_nmi, (unsigned long long)counts[cpu],
			    (unsigned long long)unknown[cpu]);
	w->nmis = 0;
	w->in_nmi = w->between = 0;
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
