/*
 * /sys/devices/system/node: the NUMA nodes (core/arch/numa.c) as Linux's
 * drivers/base/node.c shows them, which libnuma (linked by perf) reads:
 * online, possible, has_cpu, has_memory, has_normal_memory, and per node
 * nodeN/cpulist, cpumap, distance and meminfo. Nodes are 0..n-1, all
 * with memory; distances are ACPI's defaults (10 to itself, 20 to
 * another: no SLIT is read). Made once the CPUs are up; read-only.
 */
#include <stdio.h>
#include "fs.h"
#include "core/arch/numa.h"
#include "core/arch/percpu.h"
#include "core/cpumask.h"
#include "core/mm/mm.h"

#define NODE_OF(arg) ((unsigned)(uintptr_t)(arg))

static int gen_nodes(struct seqbuf *out, void *arg)
{
	unsigned n = numa_node_count();
	sb_printf(out, n > 1 ? "0-%u\n" : "0\n", n - 1);
	return 0;
}

static void node_cpus(struct cpumask *m, unsigned node)
{
	cpumask_clear(m);
	for (unsigned c = 0; c < cpu_ids; c++)
		if (percpu_area[c].online && numa_node_of_cpu(c) == node)
			cpumask_set(m, c);
}

static int gen_cpulist(struct seqbuf *out, void *arg)
{
	struct cpumask m;
	char list[256];
	node_cpus(&m, NODE_OF(arg));
	cpumask_format(list, sizeof(list), &m);
	sb_printf(out, "%s\n", list);
	return 0;
}

/* Linux's %*pb of nr_cpu_ids bits: 32-bit hex groups, highest first. */
static int gen_cpumap(struct seqbuf *out, void *arg)
{
	struct cpumask m;
	node_cpus(&m, NODE_OF(arg));
	int top = (int)((cpu_ids - 1) / 32);
	for (int g = top; g >= 0; g--) {
		unsigned bits = g == top ? cpu_ids - (unsigned)g * 32 : 32;
		uint32_t v = (uint32_t)(m.bits[g / 2] >> (g % 2 * 32));
		if (bits < 32)
			v &= (1u << bits) - 1;
		sb_printf(out, "%s%0*x", g == top ? "" : ",", (int)((bits + 3) / 4), v);
	}
	sb_printf(out, "\n");
	return 0;
}

static int gen_distance(struct seqbuf *out, void *arg)
{
	for (unsigned i = 0; i < numa_node_count(); i++)
		sb_printf(out, "%s%u", i ? " " : "", i == NODE_OF(arg) ? 10 : 20);
	sb_printf(out, "\n");
	return 0;
}

/* Only the first lines of Linux's file: what numa_node_size reads. The
 * free memory is the machine's, split by the nodes' share of memory. */
static int gen_meminfo(struct seqbuf *out, void *arg)
{
	unsigned node = NODE_OF(arg);
	const struct numa_node *nd = numa_node(node);
	uint64_t total_kb = numa_node_count() > 1 && nd ? nd->mem_bytes / 1024
				: (uint64_t)pmm_total_count() * 4;
	uint64_t all_kb = (uint64_t)pmm_total_count() * 4;
	uint64_t free_kb = (uint64_t)pmm_free_count() * 4;
	if (all_kb && total_kb < all_kb)
		free_kb = free_kb * total_kb / all_kb;
	sb_printf(out, "Node %u MemTotal:       %8llu kB\n"
		  "Node %u MemFree:        %8llu kB\n"
		  "Node %u MemUsed:        %8llu kB\n", node,
		  (unsigned long long)total_kb, node, (unsigned long long)free_kb,
		  node, (unsigned long long)(total_kb > free_kb ? total_kb - free_kb : 0));
	return 0;
}

static const struct {
	const char *name;
	gen_fn gen;
} node_files[] = {
	{ "cpulist", gen_cpulist },
	{ "cpumap", gen_cpumap },
	{ "distance", gen_distance },
	{ "meminfo", gen_meminfo },
};

void sysfs_node_init(void)
{
	static const char *const sets[] = { "online", "possible", "has_cpu",
					    "has_memory", "has_normal_memory" };
	char path[96];
	for (unsigned i = 0; i < ARRAY_SIZE(sets); i++) {
		snprintf(path, sizeof(path), "devices/system/node/%s", sets[i]);
		sysfs_register(path, gen_nodes, NULL, NULL);
	}
	for (unsigned n = 0; n < numa_node_count(); n++) {
		for (unsigned i = 0; i < ARRAY_SIZE(node_files); i++) {
			snprintf(path, sizeof(path), "devices/system/node/node%u/%s", n,
				 node_files[i].name);
			sysfs_register(path, node_files[i].gen, NULL, (void *)(uintptr_t)n);
		}
	}
}
