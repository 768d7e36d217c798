/*
 * mempolicy.c: ABI test of set_mempolicy, get_mempolicy and mbind on the
 * machine's nodes (node 0 exists everywhere): modes and their node
 * rules, the mode flags, maxnode's meaning (maxnode - 1 bits), the node
 * of a page, inheritance by fork, and Linux's errnos.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/mempolicy.h>
#include "abi.h"

static long setpol(int mode, const uint64_t *mask, unsigned long maxnode)
{
	return syscall(__NR_set_mempolicy, mode, mask, maxnode);
}

static long getpol(int *mode, uint64_t *mask, unsigned long maxnode,
		   void *addr, unsigned long flags)
{
	return syscall(__NR_get_mempolicy, mode, mask, maxnode, addr, flags);
}

static long mbind_(void *start, unsigned long len, int mode, const uint64_t *mask,
		   unsigned long maxnode, unsigned flags)
{
	return syscall(__NR_mbind, start, len, mode, mask, maxnode, flags);
}

static void test_default(void)
{
	int mode = -1;
	uint64_t mask[2] = { ~0ULL, ~0ULL };
	CHECK(getpol(&mode, mask, 128, NULL, 0) == 0 && mode == MPOL_DEFAULT &&
	      mask[0] == 0 && mask[1] == 0, "a new process: MPOL_DEFAULT, empty mask");
	CHECK(getpol(NULL, NULL, 0, NULL, 0) == 0, "get_mempolicy with no outputs");
	mask[0] = 0;
	CHECK(getpol(&mode, mask, 64, NULL, MPOL_F_MEMS_ALLOWED) == 0 &&
	      (mask[0] & 1), "MPOL_F_MEMS_ALLOWED has node 0");
	CHECK_ERR(getpol(&mode, mask, 0, NULL, 0), EINVAL, "a mask with maxnode 0");
	CHECK_ERR(getpol(&mode, NULL, 0, NULL, 0x8), EINVAL, "an unknown flag");
	CHECK_ERR(getpol(&mode, NULL, 0, (void *)4096, 0), EINVAL,
		  "an address without MPOL_F_ADDR");
	CHECK_ERR(getpol(&mode, NULL, 0, NULL, MPOL_F_NODE), EINVAL,
		  "MPOL_F_NODE of a non-interleave policy");
	CHECK_ERR(getpol(&mode, NULL, 0, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE),
		  EINVAL, "MPOL_F_MEMS_ALLOWED with MPOL_F_NODE");
	void *volatile bad = (void *)8;
	CHECK_ERR(getpol(bad, NULL, 0, NULL, 0), EFAULT, "a bad policy pointer");
}

static void test_set(void)
{
	uint64_t one = 1, none = 0, mask = 0, big[3] = { 1, 0, 0 };
	int mode = -1;
	CHECK(setpol(MPOL_BIND, &one, 2) == 0, "MPOL_BIND to node 0");
	CHECK(getpol(&mode, &mask, 64, NULL, 0) == 0 && mode == MPOL_BIND &&
	      mask == 1, "reads back MPOL_BIND, node 0");
	pid_t pid = fork();
	if (pid == 0)
		_exit(getpol(&mode, &mask, 64, NULL, 0) == 0 && mode == MPOL_BIND ? 0 : 1);
	int st = 1;
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "a child inherits it");
	CHECK(setpol(MPOL_INTERLEAVE, big, 130) == 0, "MPOL_INTERLEAVE, a 129-bit mask");
	CHECK(getpol(&mode, NULL, 0, NULL, MPOL_F_NODE) == 0 && mode == 0,
	      "MPOL_F_NODE: the next interleave node, 0");
	CHECK(setpol(MPOL_PREFERRED | MPOL_F_STATIC_NODES, &one, 64) == 0 &&
	      getpol(&mode, &mask, 64, NULL, 0) == 0 &&
	      mode == (MPOL_PREFERRED | MPOL_F_STATIC_NODES) && mask == 1,
	      "MPOL_PREFERRED | MPOL_F_STATIC_NODES reads back with its flag");
	CHECK(setpol(MPOL_PREFERRED, NULL, 0) == 0 &&
	      getpol(&mode, &mask, 64, NULL, 0) == 0 && mode == MPOL_LOCAL,
	      "MPOL_PREFERRED with no nodes is MPOL_LOCAL");
	CHECK(setpol(MPOL_LOCAL, NULL, 0) == 0, "MPOL_LOCAL");
	CHECK_ERR(setpol(MPOL_LOCAL, &one, 64), EINVAL, "MPOL_LOCAL with nodes");
	CHECK_ERR(setpol(MPOL_BIND, &none, 64), EINVAL, "MPOL_BIND to no node");
	CHECK_ERR(setpol(MPOL_BIND, &one, 1), EINVAL, "MPOL_BIND, maxnode 1 (no bits)");
	CHECK_ERR(setpol(MPOL_DEFAULT, &one, 64), EINVAL, "MPOL_DEFAULT with nodes");
	CHECK_ERR(setpol(99, &one, 64), EINVAL, "mode 99");
	CHECK_ERR(setpol(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES,
			 &one, 64), EINVAL, "both STATIC and RELATIVE nodes");
	CHECK_ERR(setpol(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, &one, 64), EINVAL,
		  "MPOL_F_NUMA_BALANCING without MPOL_BIND");
	CHECK_ERR(setpol(MPOL_BIND, &one, 0), EINVAL, "maxnode 0 with a mask");
	CHECK_ERR(setpol(MPOL_BIND, &one, 4096 * 8 + 2), EINVAL, "maxnode past a page");
	void *volatile bad = (void *)8;
	CHECK_ERR(setpol(MPOL_BIND, bad, 64), EFAULT, "a bad mask pointer");
	CHECK(setpol(MPOL_DEFAULT, NULL, 0) == 0 &&
	      getpol(&mode, &mask, 64, NULL, 0) == 0 && mode == MPOL_DEFAULT,
	      "back to MPOL_DEFAULT");
}

static void test_addr(void)
{
	uint64_t one = 1;
	int node = -1;
	char *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED && munmap(p + 2 * 4096, 4096) == 0, "a mapping");
	p[0] = 1;
	CHECK(getpol(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR) == 0 && node == 0,
	      "MPOL_F_NODE | MPOL_F_ADDR: the page is on node 0");
	CHECK_ERR(getpol(&node, NULL, 0, p + 2 * 4096, MPOL_F_ADDR), EFAULT,
		  "MPOL_F_ADDR of an unmapped address");
	CHECK(mbind_(p, 2 * 4096, MPOL_BIND, &one, 64, 0) == 0, "mbind to node 0");
	CHECK(mbind_(p, 0, MPOL_BIND, &one, 64, 0) == 0, "mbind of 0 bytes");
	CHECK_ERR(mbind_(p, 3 * 4096, MPOL_BIND, &one, 64, 0), EFAULT,
		  "mbind over a hole");
	CHECK_ERR(mbind_(p + 1, 4096, MPOL_BIND, &one, 64, 0), EINVAL,
		  "mbind of an unaligned start");
	CHECK_ERR(mbind_(p, 4096, MPOL_BIND, &one, 64, 0x10), EINVAL,
		  "mbind with an unknown flag");
	CHECK_ERR(mbind_(p, 4096, MPOL_BIND, NULL, 0, 0), EINVAL, "mbind to no node");
	munmap(p, 2 * 4096);
}

int main(void)
{
	test_default();
	test_set();
	test_addr();
	return abi_done("mempolicy");
}
