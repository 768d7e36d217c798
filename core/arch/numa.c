/*
 * SRAT parsing. See numa.h. Layouts follow ACPI 6.x section 5.2.16: a
 * 48-byte table head, then entries of (type, length): type 0 processor
 * local APIC affinity, 1 memory affinity, 2 processor local x2APIC
 * affinity; other types are skipped by their length.
 */
#include <string.h>
#include "acpi.h"
#include "core/kernel.h"
#include "numa.h"
#include "percpu.h"

#define SRAT_HEAD 48
#define SRAT_ENABLED 1u

static struct numa_node nodes[NUMA_MAX_NODES];
static unsigned nnodes;
static struct {
	uint32_t apic_id;
	uint16_t node;
} cpu_nodes[ACPI_MAX_CPUS];
static unsigned ncpu_nodes;
static struct {
	uint64_t base, end;
	uint16_t node;
} ranges[NUMA_MAX_RANGES];
static unsigned nranges;

/* The node index of a proximity domain, added on first sight; -1 when
 * there are more domains than NUMA_MAX_NODES. */
static int node_index(uint32_t domain)
{
	for (unsigned i = 0; i < nnodes; i++)
		if (nodes[i].domain == domain)
			return (int)i;
	if (nnodes == NUMA_MAX_NODES)
		return -1;
	nodes[nnodes].domain = domain;
	return (int)nnodes++;
}

static void add_cpu(uint32_t domain, uint32_t apic_id)
{
	int n = node_index(domain);
	if (n < 0 || ncpu_nodes == ACPI_MAX_CPUS)
		return;
	nodes[n].cpus++;
	cpu_nodes[ncpu_nodes].apic_id = apic_id;
	cpu_nodes[ncpu_nodes++].node = (uint16_t)n;
}

static void add_memory(uint32_t domain, uint64_t base, uint64_t length)
{
	int n = node_index(domain);
	if (n < 0)
		return;
	nodes[n].mem_bytes += length;
	nodes[n].mem_ranges++;
	if (nranges < NUMA_MAX_RANGES && length) {
		ranges[nranges].base = base;
		ranges[nranges].end = base + length;
		ranges[nranges++].node = (uint16_t)n;
	}
}

static uint32_t u32_at(const uint8_t *e, unsigned off)
{
	uint32_t v;
	memcpy(&v, e + off, 4);
	return v;
}

static void srat_entry(const uint8_t *e)
{
	if (e[0] == 0 && e[1] >= 16 && (u32_at(e, 4) & SRAT_ENABLED)) {
		/* domain bits 7:0 at byte 2, bits 31:8 at bytes 9-11 */
		uint32_t domain = e[2] | (uint32_t)e[9] << 8 | (uint32_t)e[10] << 16 |
				  (uint32_t)e[11] << 24;
		add_cpu(domain, e[3]);
	} else if (e[0] == 1 && e[1] >= 40 && (u32_at(e, 28) & SRAT_ENABLED)) {
		uint64_t base, length;
		memcpy(&base, e + 8, 8);
		memcpy(&length, e + 16, 8);
		add_memory(u32_at(e, 2), base, length);
	} else if (e[0] == 2 && e[1] >= 24 && (u32_at(e, 12) & SRAT_ENABLED)) {
		add_cpu(u32_at(e, 4), u32_at(e, 8));
	}
}

void numa_init(void)
{
	const uint8_t *t = acpi_find_table("SRAT");
	if (!t) {
		nnodes = 1; /* nodes[0]: everything, counts left at 0 */
		klog("numa: no SRAT; one node");
		return;
	}
	uint32_t len = u32_at(t, 4);
	for (const uint8_t *e = t + SRAT_HEAD; e + 2 <= t + len && e[1] >= 2 &&
	     e + e[1] <= t + len; e += e[1])
		srat_entry(e);
	if (!nnodes)
		nnodes = 1;
	klog("numa: %u node%s from the SRAT", nnodes, nnodes == 1 ? "" : "s");
	for (unsigned i = 0; i < nnodes; i++)
		klog("numa: node %u (domain %u): %llu MiB in %u range%s, %u cpu%s", i,
		     nodes[i].domain, (unsigned long long)(nodes[i].mem_bytes >> 20),
		     nodes[i].mem_ranges, nodes[i].mem_ranges == 1 ? "" : "s",
		     nodes[i].cpus, nodes[i].cpus == 1 ? "" : "s");
}

unsigned numa_node_count(void)
{
	return nnodes ? nnodes : 1;
}

const struct numa_node *numa_node(unsigned n)
{
	return n < nnodes ? &nodes[n] : 0;
}

unsigned numa_node_of_apic(uint32_t apic_id)
{
	for (unsigned i = 0; i < ncpu_nodes; i++)
		if (cpu_nodes[i].apic_id == apic_id)
			return cpu_nodes[i].node;
	return 0;
}

bool numa_known(void)
{
	return ncpu_nodes || nranges;
}

bool numa_node_range(unsigned n, unsigned i, uint64_t *base, uint64_t *end)
{
	for (unsigned r = 0; r < nranges; r++) {
		if (ranges[r].node != n || i--)
			continue;
		*base = ranges[r].base;
		*end = ranges[r].end;
		return true;
	}
	return false;
}

int numa_node_of_phys(uint64_t phys)
{
	for (unsigned r = 0; r < nranges; r++)
		if (phys >= ranges[r].base && phys < ranges[r].end)
			return ranges[r].node;
	return -1;
}

unsigned numa_node_of_cpu(unsigned cpu)
{
	return cpu < MAX_CPUS ? numa_node_of_apic(percpu_area[cpu].apic_id) : 0;
}
