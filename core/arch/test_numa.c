/*
 * Self-test: per-CPU memory lies on its CPU's NUMA node. With an SRAT
 * that gives nodes their memory (QEMU's -numa; tests/qemu/boot.sh), each
 * online AP's kernel and interrupt stacks, and each per-CPU table's
 * element for it whose pages were placed for CPUs of the same node, must
 * be in that node's memory; some element of a CPU on node 1 must have
 * been checked. Without such an SRAT it checks only that the
 * tables have room for every CPU number in use.
 */
#include "gdt.h"
#include "core/mm/mm.h"
#include "numa.h"
#include "percpu.h"
#include "percpu_table.h"
#include "core/proc/sched.h"
#include "core/selftest.h"
#include "smp.h"

static bool on_node(uint64_t virt, unsigned node)
{
	return numa_node_of_phys(virt_to_phys((const void *)virt)) == (int)node;
}

/* Whether every page element [off, off+elem) touches was placed for a
 * CPU of this node. */
static bool placed_on(size_t off, size_t elem, unsigned node)
{
	for (size_t p = off & ~(size_t)(PAGE_SIZE - 1); p < off + elem; p += PAGE_SIZE)
		if (numa_node_of_cpu(percpu_page_cpu(p, elem)) != node)
			return false;
	return true;
}

/* CPU c's table elements placed for its node are in its node's memory
 * (first and last byte). How many were checked. */
static unsigned check_tables(struct selftest_ctx *t, unsigned c, unsigned node)
{
	unsigned checked = 0;
	const struct percpu_table *pt;
	for (unsigned i = 0; (pt = percpu_table_at(i)); i++) {
		size_t off = c * pt->elem;
		if (!placed_on(off, pt->elem, node))
			continue;
		uint64_t at = (uint64_t)*pt->table + off;
		ST_CHECK(t, on_node(at, node) && on_node(at + pt->elem - 1, node));
		checked++;
	}
	return checked;
}

static void check_stacks(struct selftest_ctx *t, unsigned c, unsigned node)
{
	ST_CHECK(t, on_node(smp_cpu_stack_top(c) - 1, node));
	for (unsigned ist = 1; ist <= IST_COUNT; ist++)
		ST_CHECK(t, on_node(ist_stack_top(c, ist) - 1, node));
}

SELFTEST(percpu_node_placement)
{
	ST_CHECK(t, percpu_slots() >= cpu_ids);
	ST_CHECK(t, percpu_tables_bytes() > 0);
	uint64_t base, end;
	unsigned off_node0 = 0; /* elements checked on a node other than 0 */
	for (unsigned c = 1; c < cpu_ids; c++) {
		unsigned node = numa_node_of_cpu(c);
		if (!sched_cpu_online(c) || !numa_node_range(node, 0, &base, &end))
			continue;
		check_stacks(t, c, node);
		unsigned checked = check_tables(t, c, node);
		off_node0 += node != 0 ? checked : 0;
	}
	if (numa_node_count() > 1 && numa_node_range(1, 0, &base, &end))
		ST_CHECK(t, off_node0 > 0);
}
