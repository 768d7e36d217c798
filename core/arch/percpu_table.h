/*
 * Per-CPU tables sized at boot. A table declared
 *
 *	PERCPU_TABLE(struct thing, things);
 *
 * is a pointer `things` used as the array `things[cpu]`; it has room for
 * percpu_slots() CPU numbers (the CPUs the boot may number: the MADT's
 * enabled CPUs within maxcpus=, so at least cpu_ids), not MAX_CPUS.
 * percpu_tables_init() allocates every declared table, zeroed, before
 * the boot CPU enables interrupts (nothing may touch a table earlier),
 * and never frees or moves one. Each page of a table comes from the NUMA
 * node of the CPU whose element starts in (or covers) that page, so
 * large elements sit on their CPU's node; a page shared by CPUs of two
 * nodes goes to the first one's.
 *
 * Keep small tables (a byte or a word per CPU) static with MAX_CPUS
 * entries: the dynamic ones cost a page each at least.
 */
#ifndef BAREMON_PERCPU_TABLE_H
#define BAREMON_PERCPU_TABLE_H

#include <stddef.h>
#include "core/cpumask.h"

struct percpu_table {
	void **table;      /* the pointer PERCPU_TABLE declared */
	size_t elem;       /* bytes per CPU */
	const char *name;
};

#define PERCPU_TABLE(type, name)                                               \
	static __typeof__(type) *name;                                          \
	static const struct percpu_table percpu_table_##name                    \
		__attribute__((used, section(".percpu_tables"), aligned(8))) = { \
			(void **)&name, sizeof(type), #name }

/* CPU numbers every table has room for (1 until percpu_tables_init). */
unsigned percpu_slots(void);

/* Allocate every table for `slots` CPUs; node_of(c) names CPU c's NUMA
 * node. Boot CPU, once, before interrupts are enabled. */
void percpu_tables_init(unsigned slots, unsigned (*node_of)(unsigned cpu));

/* The CPU a table page was placed for: the one with the most bytes in
 * the page holding byte `off` of a table of `elem`-byte elements. */
unsigned percpu_page_cpu(size_t off, size_t elem);

/* Bytes the tables take in all (for the boot log and the self-test). */
size_t percpu_tables_bytes(void);

/* The i-th declared table; NULL past the last (self-test). */
const struct percpu_table *percpu_table_at(unsigned i);

#endif
