/*
 * set_mempolicy(2), get_mempolicy(2) and mbind(2) over the NUMA nodes
 * ACPI's SRAT gave (core/arch/numa.c; one node, 0, without one), with
 * Linux's checks and errnos (mm/mempolicy.c): a node mask is maxnode - 1
 * bits long, at most a page of them; bits past MAX_NUMNODES (Debian's
 * 1024) must be clear; a mode's node rules are mpol_new's; an empty mask
 * once intersected with the nodes there are is EINVAL. The task's policy
 * is inherited by fork and kept by exec, as on Linux. mbind checks its
 * range (EFAULT for unmapped pages) and policy and keeps nothing: no
 * mapping has a policy of its own yet, so get_mempolicy(MPOL_F_ADDR)
 * reports the task's, and MPOL_F_NODE | MPOL_F_ADDR the node that holds
 * the page (faulted in first, as Linux does).
 */
#include <linux/mempolicy.h>
#include "core/kernel.h"
#include "syscall.h"
#include "task.h"
#include "core/arch/numa.h"
#include "core/mm/mm.h"
#include "core/mm/usermm.h"
#include "core/mm/uaccess.h"

#define MAX_NUMNODES 1024   /* Debian's CONFIG_NODES_SHIFT=10 */
#define MASK_MAX_BITS (PAGE_SIZE * 8)

static unsigned nr_node_ids(void)
{
	return numa_node_count();
}

static uint64_t nodes_present(void)
{
	unsigned n = nr_node_ids();
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

/* Linux's get_nodes: the user's mask of maxnode - 1 bits into *out. */
static int get_nodes(uint64_t *out, const uint64_t __user *mask, uint64_t maxnode)
{
	*out = 0;
	maxnode--; /* 0 wraps round: too long, unless mask is NULL */
	if (maxnode == 0 || !mask)
		return 0;
	if (maxnode > MASK_MAX_BITS)
		return -EINVAL;
	uint64_t nwords = (maxnode + 63) / 64, word;
	for (uint64_t i = 0; i < nwords; i++) {
		if (get_user(word, &mask[i]))
			return -EFAULT;
		uint64_t bits = maxnode - i * 64;
		if (bits < 64)
			word &= (1ULL << bits) - 1;
		if (i * 64 >= MAX_NUMNODES && word)
			return -EINVAL;
		if (i == 0)
			*out = word;
	}
	return 0;
}

/* Linux's copy_nodes_to_user: ALIGN(maxnode - 1, 64) bits, zero past
 * nr_node_ids' words. */
static int put_nodes(uint64_t __user *mask, uint64_t maxnode, uint64_t nodes)
{
	uint64_t copy = ((maxnode - 1 + 63) & ~63ULL) / 8;
	uint64_t nbytes = (nr_node_ids() + 63) / 64 * 8;
	if (copy > nbytes) {
		if (copy > PAGE_SIZE)
			return -EINVAL;
		static const uint64_t zero[64];
		for (uint64_t off = nbytes; off < copy; off += sizeof(zero)) {
			uint64_t n = copy - off < sizeof(zero) ? copy - off : sizeof(zero);
			if (copy_to_user((char *)mask + off, zero, n))
				return -EFAULT;
		}
		copy = nbytes;
	}
	return copy_to_user(mask, &nodes, copy) ? -EFAULT : 0;
}

/* Relative nodes: user node i is the (i mod n)-th present node; present
 * nodes are 0..n-1. */
static uint64_t relative_nodes(uint64_t user)
{
	unsigned n = nr_node_ids();
	uint64_t out = 0;
	for (unsigned i = 0; i < 64; i++)
		if (user & (1ULL << i))
			out |= 1ULL << (i % n);
	return out;
}

/* Linux's sanitize_mpol_flags, mpol_new and mpol_set_nodemask. */
static int make_policy(int mode, uint64_t user, struct mempolicy *p)
{
	unsigned flags = (unsigned)mode & MPOL_MODE_FLAGS;
	mode &= ~MPOL_MODE_FLAGS;
	if (mode < 0 || mode >= MPOL_MAX)
		return -EINVAL;
	if ((flags & MPOL_F_STATIC_NODES) && (flags & MPOL_F_RELATIVE_NODES))
		return -EINVAL;
	if ((flags & MPOL_F_NUMA_BALANCING) && mode != MPOL_BIND)
		return -EINVAL;
	bool fixed = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
	*p = (struct mempolicy){ .mode = mode, .flags = flags };
	if (mode == MPOL_DEFAULT) {
		p->flags = 0;
		return user ? -EINVAL : 0;
	}
	if (mode == MPOL_PREFERRED && !user) {
		if (fixed)
			return -EINVAL;
		p->mode = MPOL_LOCAL;
		return 0;
	}
	if (mode == MPOL_LOCAL)
		return user || fixed ? -EINVAL : 0;
	if (!user)
		return -EINVAL;
	p->user_nodes = fixed ? user : 0;
	p->nodes = (flags & MPOL_F_RELATIVE_NODES ? relative_nodes(user) : user) &
		   nodes_present();
	if (!p->nodes)
		return -EINVAL;
	if (mode == MPOL_PREFERRED)
		p->nodes &= -p->nodes; /* the first one */
	return 0;
}

SYSCALL_DEFINE3(set_mempolicy, int, mode, const uint64_t __user *, nmask,
		uint64_t, maxnode)
{
	uint64_t user;
	struct mempolicy p;
	int r = get_nodes(&user, nmask, maxnode);
	if (!r)
		r = make_policy(mode, user, &p);
	if (!r)
		current->mempolicy = p;
	return r;
}

SYSCALL_DEFINE6(mbind, uint64_t, start, uint64_t, len, int, mode,
		const uint64_t __user *, nmask, uint64_t, maxnode, unsigned, flags)
{
	if (flags & ~(unsigned)MPOL_MF_VALID)
		return -EINVAL;
	if ((flags & MPOL_MF_MOVE_ALL) && current->euid != 0)
		return -EPERM;
	if (start & (PAGE_SIZE - 1))
		return -EINVAL;
	len = (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	if (start + len < start)
		return -EINVAL;
	uint64_t user;
	struct mempolicy p;
	int r = get_nodes(&user, nmask, maxnode);
	if (!r)
		r = make_policy(mode, user, &p);
	if (r || len == 0)
		return r;
	return mm_range_mapped(current->mm, start, len) ? 0 : -EFAULT;
}

/* The node of the page at addr, faulting it in: -EFAULT when unmapped. */
static int page_node(uint64_t addr)
{
	uint64_t phys = mm_translate(current->mm, addr, false);
	if (!phys)
		return -EFAULT;
	int n = numa_node_of_phys(phys);
	return n < 0 ? 0 : n;
}

static uint64_t reported_nodes(const struct mempolicy *p)
{
	if (p->flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
		return p->user_nodes;
	return p->mode == MPOL_LOCAL ? 0 : p->nodes;
}

/* Linux's do_get_mempolicy: the policy's mode (or a node) and mask. */
static int get_policy(int *val, uint64_t *nodes, uint64_t addr, uint64_t flags)
{
	const struct mempolicy *p = &current->mempolicy;
	if (flags & ~(uint64_t)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
		return -EINVAL;
	if (flags & MPOL_F_MEMS_ALLOWED) {
		if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
			return -EINVAL;
		*val = 0;
		*nodes = nodes_present();
		return 0;
	}
	if (flags & MPOL_F_ADDR) {
		if (!mm_range_mapped(current->mm, addr & ~(PAGE_SIZE - 1), PAGE_SIZE))
			return -EFAULT;
	} else if (addr) {
		return -EINVAL;
	}
	if (flags & MPOL_F_NODE) {
		if (flags & MPOL_F_ADDR)
			*val = page_node(addr);
		else if (p->mode == MPOL_INTERLEAVE)
			*val = __builtin_ctzll(p->nodes);
		else
			return -EINVAL;
		if (*val < 0)
			return *val;
	} else {
		*val = p->mode | (int)p->flags;
	}
	*nodes = reported_nodes(p);
	return 0;
}

SYSCALL_DEFINE5(get_mempolicy, int __user *, policy, uint64_t __user *, nmask,
		uint64_t, maxnode, uint64_t, addr, uint64_t, flags)
{
	if (nmask && maxnode < nr_node_ids())
		return -EINVAL;
	int val;
	uint64_t nodes;
	int r = get_policy(&val, &nodes, addr, flags);
	if (r)
		return r;
	if (policy && put_user(val, policy))
		return -EFAULT;
	return nmask ? put_nodes(nmask, maxnode, nodes) : 0;
}
