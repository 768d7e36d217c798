/*
 * baremon's own /proc files, for the session programs that used to be
 * kernel built-ins:
 *   /proc/baremon/cpus      the CPUs found, APIC mode, PMU summary, TSC
 *   /proc/baremon/selftest  write a filter to run self-tests; read the
 *                           last summary ("N passed, N failed")
 *   /proc/baremon/fault     write a kind to fault the kernel on purpose
 *   /proc/baremon/objects   counts of live kernel objects, for leak checks
 *                           (the fuzzer compares them before and after)
 */
#include <stdio.h>
#include <string.h>
#include <linux/errno.h>
#include "core/arch/acpi.h"
#include "core/arch/apic.h"
#include "core/arch/cpu.h"
#include "fault.h"
#include "kernel.h"
#include "log.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "core/arch/smp.h"
#include "core/arch/topology.h"
#include "core/arch/numa.h"
#include "report.h"
#include "core/proc/sched.h"
#include "selftest.h"
#include "core/arch/tsc.h"
#include "core/fs/procfs.h"
#include "core/fs/vfs.h"
#include "core/proc/signal.h"
#include "core/proc/task.h"

static char selftest_summary[64] = "not run\n";

int report_cpus(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "cpus: %u in MADT, apic %s\n", acpi.ncpus + acpi.ncpus_dropped,
		  apic_x2apic_mode() ? "x2apic" : "xapic");
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		const struct acpi_cpu *c = &acpi.cpus[i];
		if (c->cpu < 0) {
			sb_printf(out, "  --- apic-id %u: %s\n", c->apic_id,
				  smp_state_name(c->state));
			continue;
		}
		struct cpu_topology tp = topology_of(c->apic_id);
		sb_printf(out, "  cpu%d apic-id %u node %u package %u core %u thread %u%s%s\n",
			  c->cpu, c->apic_id, numa_node_of_apic(c->apic_id),
			  tp.package, tp.core, tp.thread,
			  c->cpu == 0 ? " (boot cpu)" : "",
			  sched_cpu_isolated((unsigned)c->cpu) ? " (isolated)" : "");
	}
	if (acpi.ncpus == 0) /* no MADT: the boot CPU alone */
		sb_printf(out, "  cpu0 apic-id %u (boot cpu)\n", percpu_area[0].apic_id);
	sb_printf(out, "cpu: %s \"%s\" family %u model %u stepping %u\n", cpu.vendor,
		  cpu.brand, cpu.family, cpu.model, cpu.stepping);
	if (cpu.pmu_version)
		sb_printf(out, "pmu: intel arch perfmon v%u, %u gp x %u bits, %u fixed x %u bits\n",
			  cpu.pmu_version, cpu.pmu_gp_counters, cpu.pmu_gp_width,
			  cpu.pmu_fixed_counters, cpu.pmu_fixed_width);
	else if (cpu.amd_perfctr_core)
		sb_printf(out, "pmu: amd perfctr-core (6 counters)%s\n",
			  cpu.amd_perfmon_v2_counters ? ", perfmon v2" : "");
	else
		sb_printf(out, "pmu: none (cpuid 0ah eax=0, no amd perfctr-core)\n");
	sb_printf(out, "tsc: %llu Hz from %s\n", (unsigned long long)tsc_hz(), tsc_source());
	return 0;
}

/* The bytes of one write(2) as a string, without trailing blanks. */
static void copy_trimmed(char *dst, size_t size, const char *data, size_t len)
{
	size_t n = len < size - 1 ? len : size - 1;
	memcpy(dst, data, n);
	while (n && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
		n--;
	dst[n] = 0;
}

static int selftest_read(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "%s", selftest_summary);
	return 0;
}

/* Run the tests whose name holds the written text (empty: all). */
static int selftest_write(const char *data, size_t len, void *arg)
{
	(void)arg;
	char filter[64];
	copy_trimmed(filter, sizeof(filter), data, len);
	/* Signals the tests provoke (a pipe test's SIGPIPE) are theirs, not
	 * the writer's: drop them afterwards. */
	struct task *self = current;
	uint64_t pending = self->sigpending;
	int passed = 0;
	int failed = selftest_run_counted(filter, &passed);
	uint64_t f = spin_lock_irqsave(&self->sig->lock);
	self->sigpending = pending;
	spin_unlock_irqrestore(&self->sig->lock, f);
	snprintf(selftest_summary, sizeof(selftest_summary), "%d passed, %d failed\n",
		 passed, failed);
	return 0;
}

static int fault_write(const char *data, size_t len, void *arg)
{
	(void)arg;
	char kind[32];
	copy_trimmed(kind, sizeof(kind), data, len);
	if (!fault_kind_valid(kind))
		return -EINVAL;
	fault_inject(kind);
	return 0;
}

/* One "name value" line each; read without locks (a moment's snapshot).
 * heap_pages: pages carved into small blocks; one goes back to the page
 * allocator when its blocks are all free (but one empty page per size
 * class), so free_pages plus heap_pages is what returns when everything
 * is freed. */
static int objects_read(struct seqbuf *out, void *arg)
{
	(void)arg;
	int n = 0;
	kfree(procfs_all_pids(&n));
	sb_printf(out, "heap_blocks %llu\n", (unsigned long long)heap_blocks_in_use());
	sb_printf(out, "heap_bytes %llu\n", (unsigned long long)heap_in_use());
	sb_printf(out, "heap_pages %llu\n", (unsigned long long)heap_pages_carved());
	sb_printf(out, "free_pages %llu\n", (unsigned long long)pmm_free_count());
	sb_printf(out, "processes %d\n", n);
	return 0;
}

void report_init(void)
{
	procfs_register("baremon/cpus", report_cpus, NULL, NULL);
	procfs_register("baremon/selftest", selftest_read, selftest_write, NULL);
	procfs_register("baremon/fault", NULL, fault_write, NULL);
	procfs_register("baremon/objects", objects_read, NULL, NULL);
}
