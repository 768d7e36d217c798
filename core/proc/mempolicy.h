/*
 * A task's NUMA memory policy (set_mempolicy(2)), kept as Linux keeps it
 * and reported by get_mempolicy(2) (mempolicy.c). The policy is recorded,
 * not yet used: pages still come from the allocator's usual node.
 */
#ifndef BAREMON_MEMPOLICY_H
#define BAREMON_MEMPOLICY_H

#include <stdint.h>

struct mempolicy {
	int mode;            /* MPOL_DEFAULT ... (0 when never set) */
	unsigned flags;      /* MPOL_F_STATIC_NODES / RELATIVE_NODES */
	uint64_t nodes;      /* the nodes in effect */
	uint64_t user_nodes; /* as given, for STATIC/RELATIVE_NODES */
};

#endif
