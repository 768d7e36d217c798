/*
 * NUMA nodes from ACPI's SRAT: which memory ranges and which CPUs (by
 * APIC ID) belong to each proximity domain. Parsed once by the boot CPU
 * after acpi_init; read-only afterwards. Without an SRAT the machine is
 * one node, 0. Only reported for now: the page allocator does not place
 * memory by node.
 */
#ifndef BAREMON_NUMA_H
#define BAREMON_NUMA_H

#include <stdint.h>

#define NUMA_MAX_NODES 64

struct numa_node {
	uint32_t domain;      /* the SRAT proximity domain */
	uint64_t mem_bytes;   /* enabled memory ranges, summed */
	unsigned mem_ranges;
	unsigned cpus;        /* enabled processor entries */
};

void numa_init(void);
unsigned numa_node_count(void);   /* 1 without an SRAT */
const struct numa_node *numa_node(unsigned n);
/* The node of the CPU with this APIC ID (0 when the SRAT does not say). */
unsigned numa_node_of_apic(uint32_t apic_id);

#endif
