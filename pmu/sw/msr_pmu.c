/*
 * The msr PMU (dynamic type, as Linux's arch/x86 "msr" PMU): free-running
 * counters read with RDTSC/RDMSR, counted like software events (no
 * counter to claim, no sampling, no mode filters). Events: tsc always;
 * aperf and mperf when CPUID.06H:ECX[0] says the CPU has them.
 *
 * Counting: add/start note the counter's value on this CPU, del/stop add
 * what it advanced. Runs under perf_lock on the CPU it reads (pmu.h).
 */
#include <linux/errno.h>
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/arch/msr-index.h"
#include "core/arch/x86.h"

enum { MSR_EV_TSC, MSR_EV_APERF, MSR_EV_MPERF, MSR_EV_MAX };

static bool has_aperfmperf;

static uint64_t read_counter(uint64_t cfg)
{
	switch (cfg) {
	case MSR_EV_APERF:
		return rdmsr(MSR_IA32_APERF);
	case MSR_EV_MPERF:
		return rdmsr(MSR_IA32_MPERF);
	default:
		return rdtsc();
	}
}

static bool has_exclude(const struct perf_event_attr *a)
{
	return a->exclude_user || a->exclude_kernel || a->exclude_hv ||
	       a->exclude_idle || a->exclude_host || a->exclude_guest;
}

/* Linux's msr PMU: no sampling, no filters, known and present events. */
static int msr_init(struct perf_event *e)
{
	uint64_t cfg = e->attr.config;
	if (e->attr.sample_period)
		return -EINVAL;
	if (cfg >= MSR_EV_MAX || (cfg != MSR_EV_TSC && !has_aperfmperf))
		return -EINVAL;
	if (has_exclude(&e->attr))
		return -EINVAL;
	return 0;
}

static void msr_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->hw.prev_count = read_counter(e->attr.config);
}

static void msr_stop(struct perf_event *e, uint64_t now)
{
	(void)now;
	e->count += read_counter(e->attr.config) - e->hw.prev_count;
}

static int msr_add(struct perf_event *e, uint64_t now)
{
	msr_start(e, now);
	return 0;
}

static uint64_t msr_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	return e->count + (read_counter(e->attr.config) - e->hw.prev_count);
}

static const struct pmu_sysfs_entry msr_format[] = {
	{ "event", "config:0-63" },
	{ NULL, NULL },
};

/* Filled at init with the events this CPU has. */
static struct pmu_sysfs_entry msr_events[MSR_EV_MAX + 1];

static struct pmu msr_pmu = {
	.name = "msr",
	.local_read = true,
	.event_init = msr_init,
	.add = msr_add,
	.del = msr_stop,
	.start = msr_start,
	.stop = msr_stop,
	.read = msr_read,
	.format = msr_format,
	.events = msr_events,
};

void perf_msr_pmu_init(void)
{
	int n = 0;
	has_aperfmperf = cpuid(6, 0).ecx & 1;
	msr_events[n++] = (struct pmu_sysfs_entry){ "tsc", "event=0x00" };
	if (has_aperfmperf) {
		msr_events[n++] = (struct pmu_sysfs_entry){ "aperf", "event=0x01" };
		msr_events[n++] = (struct pmu_sysfs_entry){ "mperf", "event=0x02" };
	}
	perf_pmu_register(&msr_pmu, -1);
}
