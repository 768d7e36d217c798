/*
 * CPU topology from APIC IDs: which package, core and thread a logical
 * CPU is. The boot CPU reads the ID layout once from CPUID (leaf 1FH,
 * else 0BH, else AMD 8000_001EH/8000_0008H, else leaves 1 and 4); the
 * layout is the same on every CPU of the machine, so any CPU's position
 * follows from its APIC ID alone. Read-only after topology_init().
 */
#ifndef BAREMON_TOPOLOGY_H
#define BAREMON_TOPOLOGY_H

#include <stdint.h>

struct cpu_topology {
	uint32_t package;  /* physical package (socket) */
	uint32_t core;     /* core within its package */
	uint32_t thread;   /* SMT thread within its core */
};

void topology_init(void);
struct cpu_topology topology_of(uint32_t apic_id);
/* Where the layout came from, e.g. "cpuid 0bh", and its two shifts:
 * APIC ID >> smt_shift is the core's ID, >> pkg_shift the package's. */
const char *topology_source(void);
unsigned topology_smt_shift(void);
unsigned topology_pkg_shift(void);

#endif
