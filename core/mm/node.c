/*
 * Node-aware page allocation: pages from the memory the SRAT gives a
 * NUMA node (arch/numa.h), falling back to any memory when the node has
 * no described memory or no room left. Used for per-CPU data at boot.
 */
#include "core/arch/numa.h"
#include "mm.h"

uint64_t pmm_alloc_pages_node(size_t n, unsigned node)
{
	uint64_t base, end;
	for (unsigned i = 0; numa_node_range(node, i, &base, &end); i++) {
		uint64_t phys = pmm_alloc_pages_in(n, base, end);
		if (phys)
			return phys;
	}
	return pmm_alloc_pages(n);
}
