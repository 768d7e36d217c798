/*
 * /sys/devices/system/cpu/cpuN/topology/: where each online CPU sits,
 * as Linux names it: physical_package_id, die_id, core_id, and the CPU
 * lists sharing its core (thread_siblings_list, core_cpus_list) and its
 * package (core_siblings_list, package_cpus_list). The positions come
 * from the APIC IDs (arch/topology.h). Registered once the CPUs are up;
 * the files are generated at open from the per-CPU areas.
 */
#include <stdio.h>
#include "core/arch/percpu.h"
#include "core/arch/topology.h"
#include "genfs.h"
#include "vfs.h"

enum { SAME_CORE, SAME_PACKAGE };

static struct cpu_topology topo(unsigned c)
{
	return topology_of(percpu_area[c].apic_id);
}

static bool shares(unsigned a, unsigned b, int what)
{
	struct cpu_topology x = topo(a), y = topo(b);
	if (x.package != y.package)
		return false;
	return what == SAME_PACKAGE || x.core == y.core;
}

/* Online CPUs sharing `me`'s core or package, as "0-3,8". */
static void sharing_list(struct seqbuf *out, unsigned me, int what)
{
	const char *sep = "";
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		if (!percpu_area[c].online || !shares(me, c, what))
			continue;
		unsigned end = c;
		while (end + 1 < MAX_CPUS && percpu_area[end + 1].online &&
		       shares(me, end + 1, what))
			end++;
		sb_printf(out, end > c ? "%s%u-%u" : "%s%u", sep, c, end);
		sep = ",";
		c = end;
	}
	sb_printf(out, "\n");
}

#define CPU_OF(arg) ((unsigned)(uintptr_t)(arg))

static int gen_package(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", topo(CPU_OF(arg)).package);
	return 0;
}

static int gen_die(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "0\n"); /* dies are not told apart */
	return 0;
}

static int gen_core(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", topo(CPU_OF(arg)).core);
	return 0;
}

static int gen_core_list(struct seqbuf *out, void *arg)
{
	sharing_list(out, CPU_OF(arg), SAME_CORE);
	return 0;
}

static int gen_package_list(struct seqbuf *out, void *arg)
{
	sharing_list(out, CPU_OF(arg), SAME_PACKAGE);
	return 0;
}

static const struct {
	const char *name;
	gen_fn gen;
} topology_files[] = {
	{ "physical_package_id", gen_package },
	{ "die_id", gen_die },
	{ "core_id", gen_core },
	{ "thread_siblings_list", gen_core_list },
	{ "core_cpus_list", gen_core_list },
	{ "core_siblings_list", gen_package_list },
	{ "package_cpus_list", gen_package_list },
};

void sysfs_topology_init(void)
{
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		if (!percpu_area[c].online)
			continue;
		for (unsigned i = 0; i < sizeof(topology_files) / sizeof(topology_files[0]); i++) {
			char path[96];
			snprintf(path, sizeof(path), "devices/system/cpu/cpu%u/topology/%s",
				 c, topology_files[i].name);
			sysfs_register(path, topology_files[i].gen, NULL,
				       (void *)(uintptr_t)c);
		}
	}
}
