/*
 * /sys/devices/system/cpu/cpuN/topology/: where each online CPU sits,
 * as Linux names it: physical_package_id, die_id, core_id, and the CPUs
 * sharing its core (thread_siblings, core_cpus) and its package
 * (core_siblings, package_cpus; die_cpus too: dies are not told apart),
 * each as a list ("0-3,8", the _list files) and as Linux's hex mask
 * ("0f", hwloc reads these), and cpu/smt/{active,control} (whether any
 * core runs two threads). The positions come
 * from the APIC IDs (arch/topology.h). Registered once the CPUs are up;
 * the files are generated at open from the per-CPU areas.
 */
#include <stdio.h>
#include "core/arch/acpi.h"
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

/* The same CPUs as Linux's bitmap ("%*pb" of nr_cpu_ids bits): hex,
 * most significant first, in 32-bit words joined by commas; the first
 * word has only the digits the remaining bits need ("3" for 2 CPUs,
 * "00ff" for 16, "0,0000000f" for 36). */
static void sharing_mask(struct seqbuf *out, unsigned me, int what)
{
	unsigned bits = acpi.ncpus ? acpi.ncpus : 1;
	if (bits > MAX_CPUS)
		bits = MAX_CPUS;
	unsigned words = (bits + 31) / 32;
	for (unsigned w = words; w-- > 0;) {
		uint32_t v = 0;
		for (unsigned b = 0; b < 32 && w * 32 + b < bits; b++) {
			unsigned c = w * 32 + b;
			if (percpu_area[c].online && shares(me, c, what))
				v |= 1u << b;
		}
		unsigned in_word = bits - w * 32 < 32 ? bits - w * 32 : 32;
		int digits = w == words - 1 ? (int)((in_word + 3) / 4) : 8;
		sb_printf(out, "%s%0*x", w == words - 1 ? "" : ",", digits, v);
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

static int gen_core_mask(struct seqbuf *out, void *arg)
{
	sharing_mask(out, CPU_OF(arg), SAME_CORE);
	return 0;
}

static int gen_package_mask(struct seqbuf *out, void *arg)
{
	sharing_mask(out, CPU_OF(arg), SAME_PACKAGE);
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
	{ "die_cpus_list", gen_package_list },
	{ "thread_siblings", gen_core_mask },
	{ "core_cpus", gen_core_mask },
	{ "core_siblings", gen_package_mask },
	{ "package_cpus", gen_package_mask },
	{ "die_cpus", gen_package_mask },
};

/* Does some online core have two online threads? */
static bool smt_active(void)
{
	for (unsigned a = 0; a < MAX_CPUS; a++)
		for (unsigned b = a + 1; percpu_area[a].online && b < MAX_CPUS; b++)
			if (percpu_area[b].online && shares(a, b, SAME_CORE))
				return true;
	return false;
}

static int gen_smt_active(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%d\n", smt_active());
	return 0;
}

/* Linux's words: "on", or "notsupported" without SMT (no "off": SMT
 * cannot be switched here). */
static int gen_smt_control(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%s\n", smt_active() ? "on" : "notsupported");
	return 0;
}

void sysfs_topology_init(void)
{
	sysfs_register("devices/system/cpu/smt/active", gen_smt_active, NULL, NULL);
	sysfs_register("devices/system/cpu/smt/control", gen_smt_control, NULL, NULL);
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
