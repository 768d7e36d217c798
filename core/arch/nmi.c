/*
 * NMI dispatch (nmi.h). The counters and the depth of CPU c are written
 * by CPU c only; an NMI does not nest in another (the CPU blocks NMIs
 * until the handler's IRET), so plain increments suffice.
 *
 * A handler installed with trap_set_handler(VEC_NMI) (the self-tests)
 * gets the NMIs the registered handlers did not claim.
 */
#include "nmi.h"
#include "irq_work.h"
#include "core/kernel.h"
#include "percpu.h"

#define MAX_NMI_HANDLERS 4

static nmi_handler handlers[MAX_NMI_HANDLERS];
static unsigned nr_handlers;
static uint64_t counts[MAX_CPUS], unknown[MAX_CPUS];
static unsigned depth[MAX_CPUS];
static int report_work = -1;
static bool reported;

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

void nmi_dispatch(struct trap_frame *f)
{
	unsigned cpu = this_cpu_id();
	counts[cpu]++;
	depth[cpu]++;
	if (!claimed(f)) {
		unknown[cpu]++;
		irq_work_raise(report_work);
	}
	depth[cpu]--;
}
