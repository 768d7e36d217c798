/*
 * /sys/devices/system/cpu/cpuN/cache/indexM/: the CPU's caches, as Linux
 * describes them, from CPUID's deterministic cache parameters: leaf 4 on
 * Intel, leaf 8000_001DH on AMD (with TopologyExtensions; same layout).
 * Subleaf M is indexM; the list ends at the first subleaf of type 0.
 *
 * The caches are read on whichever CPU opens the file: baremon runs on
 * symmetric machines, where every CPU reports the same ones. Which CPUs
 * share a cache comes from the APIC ids: those equal above the bits the
 * cache's "logical processors sharing" count needs.
 */
#include <stdio.h>
#include <string.h>
#include "core/arch/acpi.h"
#include "core/arch/cpu.h"
#include "core/arch/percpu.h"
#include "core/arch/x86.h"
#include "genfs.h"

#define MAX_CACHES 8

static uint32_t cache_leaf;   /* 4, 0x8000001d, or 0: none described */

static struct cpuid_regs cache_regs(unsigned index)
{
	return cpuid(cache_leaf, index);
}

static unsigned type_of(struct cpuid_regs r) { return r.eax & 0x1f; }
static unsigned level_of(struct cpuid_regs r) { return (r.eax >> 5) & 7; }
static unsigned ways_of(struct cpuid_regs r) { return (r.ebx >> 22) + 1; }
static unsigned partitions_of(struct cpuid_regs r) { return ((r.ebx >> 12) & 0x3ff) + 1; }
static unsigned line_of(struct cpuid_regs r) { return (r.ebx & 0xfff) + 1; }
static unsigned sets_of(struct cpuid_regs r) { return r.ecx + 1; }
static unsigned sharing_of(struct cpuid_regs r) { return ((r.eax >> 14) & 0xfff) + 1; }

/* The file's arg: CPU in bits 8 and up, index in bits 0-7. */
#define ARG(cpu, index) ((void *)(uintptr_t)((cpu) << 8 | (index)))
#define ARG_CPU(arg) ((unsigned)((uintptr_t)(arg) >> 8))
#define ARG_INDEX(arg) ((unsigned)((uintptr_t)(arg) & 0xff))

static int gen_level(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", level_of(cache_regs(ARG_INDEX(arg))));
	return 0;
}

static int gen_type(struct seqbuf *out, void *arg)
{
	static const char *const names[] = { "", "Data", "Instruction", "Unified" };
	unsigned t = type_of(cache_regs(ARG_INDEX(arg)));
	sb_printf(out, "%s\n", t < 4 ? names[t] : "Unknown");
	return 0;
}

static int gen_size(struct seqbuf *out, void *arg)
{
	struct cpuid_regs r = cache_regs(ARG_INDEX(arg));
	uint64_t bytes = (uint64_t)ways_of(r) * partitions_of(r) * line_of(r) * sets_of(r);
	sb_printf(out, "%lluK\n", (unsigned long long)(bytes / 1024));
	return 0;
}

static int gen_ways(struct seqbuf *out, void *arg)
{
	struct cpuid_regs r = cache_regs(ARG_INDEX(arg));
	/* Fully associative: Linux reports 0 ways. */
	sb_printf(out, "%u\n", (r.eax >> 9) & 1 ? 0 : ways_of(r));
	return 0;
}

static int gen_line(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", line_of(cache_regs(ARG_INDEX(arg))));
	return 0;
}

static int gen_sets(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", sets_of(cache_regs(ARG_INDEX(arg))));
	return 0;
}

static int gen_partitions(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", partitions_of(cache_regs(ARG_INDEX(arg))));
	return 0;
}

/* Bits of the APIC id below the cache's sharing domain. */
static unsigned share_shift(unsigned sharing)
{
	unsigned shift = 0;
	while ((1u << shift) < sharing)
		shift++;
	return shift;
}

static int gen_shared_list(struct seqbuf *out, void *arg)
{
	unsigned me = ARG_CPU(arg);
	unsigned shift = share_shift(sharing_of(cache_regs(ARG_INDEX(arg))));
	uint32_t domain = percpu_area[me].apic_id >> shift;
	const char *sep = "";
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		if (c != me && (!percpu_area[c].online ||
				percpu_area[c].apic_id >> shift != domain))
			continue;
		/* Print runs as ranges: "0-3". */
		unsigned end = c;
		while (end + 1 < MAX_CPUS && percpu_area[end + 1].online &&
		       percpu_area[end + 1].apic_id >> shift == domain)
			end++;
		if (end > c)
			sb_printf(out, "%s%u-%u", sep, c, end);
		else
			sb_printf(out, "%s%u", sep, c);
		sep = ",";
		c = end;
	}
	sb_printf(out, "\n");
	return 0;
}

static const struct {
	const char *name;
	gen_fn gen;
} cache_files[] = {
	{ "level", gen_level },
	{ "type", gen_type },
	{ "size", gen_size },
	{ "ways_of_associativity", gen_ways },
	{ "coherency_line_size", gen_line },
	{ "number_of_sets", gen_sets },
	{ "physical_line_partition", gen_partitions },
	{ "shared_cpu_list", gen_shared_list },
};

static uint32_t find_cache_leaf(void)
{
	bool amd = strcmp(cpu.vendor, "AuthenticAMD") == 0 ||
		   strcmp(cpu.vendor, "HygonGenuine") == 0;
	if (amd) {
		bool topoext = cpu.max_ext_leaf >= 0x8000001d &&
			       (cpuid(0x80000001, 0).ecx >> 22 & 1);
		return topoext ? 0x8000001d : 0;
	}
	return cpu.max_leaf >= 4 ? 4 : 0;
}

void sysfs_cache_init(void)
{
	cache_leaf = find_cache_leaf();
	if (!cache_leaf)
		return;
	unsigned ncpus = acpi.ncpus ? acpi.ncpus : 1;
	for (unsigned index = 0; index < MAX_CACHES; index++) {
		if (!type_of(cache_regs(index)))
			break;
		for (unsigned c = 0; c < ncpus && c < MAX_CPUS; c++) {
			for (unsigned i = 0; i < sizeof(cache_files) / sizeof(cache_files[0]); i++) {
				char path[96];
				snprintf(path, sizeof(path),
					 "devices/system/cpu/cpu%u/cache/index%u/%s", c,
					 index, cache_files[i].name);
				sysfs_register(path, cache_files[i].gen, NULL, ARG(c, index));
			}
		}
	}
}
