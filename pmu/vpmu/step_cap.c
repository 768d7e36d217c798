/*
 * A cap on what single-stepping for CPU-wide events costs a CPU, in the
 * spirit of Linux's kernel.perf_cpu_time_max_percent (which caps the
 * time its PMU interrupts take): a CPU-wide counter of user branches (or
 * of user instructions without the instruction clock) makes the model
 * step every task that runs on that CPU, tasks that asked for nothing,
 * so their system calls crawl. Each CPU keeps the model's own stepping
 * time (what vpmu.c's hide() takes from the stepped tasks, the lean
 * steps included) over windows of 100 ms of TSC time; once it passes
 * perf_cpu_time_max_percent of the window, counters of CPU-wide
 * sampling events no longer make the CPU step until the window ends:
 * user code runs at full speed and those samplers miss its
 * instructions and branches, so they sample less, as Linux's throttling
 * thins samples (the boot log says so, once). A counting event is never
 * capped (its count must stay exact: tests/perf/rdpmc's CPU-wide group),
 * nor a task's own events: its owner asked for the cost. 0 or 100 turns
 * the cap off, as in Linux.
 *
 * Which counters hold CPU-wide samplers the driver says as it places an
 * event (x86_pmu_add, through pmu_model_counter_owner).
 *
 * Locking: caps[c] belongs to CPU c, touched there with interrupts off.
 */
#include "core/arch/percpu_table.h"
#include "core/arch/tsc.h"
#include "core/fs/vfs.h"
#include "core/kernel.h"
#include "vpmu.h"

#define CAP_WINDOWS_PER_SEC 10

struct cap_cpu {
	uint64_t cpu_wide;      /* counters (GLOBAL indices) of CPU events */
	uint64_t window_start;  /* TSC */
	uint64_t spent;         /* the model's stepping ticks in this window */
	bool out;               /* the budget is spent until the window ends */
	uint64_t windows_out;   /* windows that ran out, since boot */
};

PERCPU_TABLE(struct cap_cpu, caps);
static bool logged;

void vpmu_cap_counter_owner(int idx, bool cpu_wide)
{
	struct cap_cpu *c = &caps[this_cpu_id()];
	if (cpu_wide)
		c->cpu_wide |= 1ULL << idx;
	else
		c->cpu_wide &= ~(1ULL << idx);
}

void vpmu_cap_spent(uint64_t ticks)
{
	caps[this_cpu_id()].spent += ticks;
}

static void log_once(int percent)
{
	if (logged)
		return;
	logged = true;
	klog("pmu: vpmu: single-stepping for CPU-wide events took over %d%% of CPU %u "
	     "(kernel.perf_cpu_time_max_percent): stepping throttled for the rest of each "
	     "%u ms window; those events miss what ran unstepped (0 or 100 lifts the cap)",
	     percent, this_cpu_id(), 1000 / CAP_WINDOWS_PER_SEC);
}

uint64_t vpmu_cap_skipped(void)
{
	struct cap_cpu *c = &caps[this_cpu_id()];
	int percent = sysctl_perf_cpu_time_max_percent();
	if (!c->cpu_wide || percent <= 0 || percent >= 100)
		return 0;
	uint64_t now = rdtsc(), window = tsc_hz() / CAP_WINDOWS_PER_SEC;
	if (now - c->window_start >= window) {
		c->window_start = now;
		c->spent = 0;
		c->out = false;
	}
	if (!c->out && c->spent * 100 > window * (uint64_t)percent) {
		c->out = true;
		c->windows_out++;
		log_once(percent);
	}
	return c->out ? c->cpu_wide : 0;
}

uint64_t vpmu_cap_windows_out(unsigned cpu)
{
	return caps[cpu].windows_out;
}
