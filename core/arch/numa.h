/*
 * NUMA nodes from ACPI's SRAT: which memory ranges and which CPUs (by
 * APIC ID) belong to each proximity domain. Parsed once by the boot CPU
 * after acpi_init; read-only afterwards. Without an SRAT the machine is
 * one node, 0. The memory ranges let per-CPU data be placed on its
 * CPU's node (mm.h's pmm_alloc_pages_node, percpu.h).
 */
#ifndef BAREMON_NUMA_H
#define BAREMON_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#define NUMA_MAX_NODES 64
#define NUMA_MAX_RANGES 256  /* memory ranges kept (more are counted only) */

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
/* The node of CPU number cpu, once smp_plan_cpus has numbered it. */
unsigned numa_node_of_cpu(unsigned cpu);
/* Whether the SRAT gave any CPU or memory a node (else all is node 0). */
bool numa_known(void);
/* The i-th memory range of node n: false past the last one. */
bool numa_node_range(unsigned n, unsigned i, uint64_t *base, uint64_t *end);
/* The node whose memory holds physical address phys; -1 if none says. */
int numa_node_of_phys(uint64_t phys);

#endif
