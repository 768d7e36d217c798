/*
 * rseq(2): not provided, and said so the way Linux built without
 * CONFIG_RSEQ says it: ENOSYS. glibc (2.35 and later) registers an rseq
 * area at every thread's start and, on ENOSYS, sets __rseq_size to 0 and
 * goes on without it (sched_getcpu then makes the getcpu call). A real
 * registration would oblige the kernel to keep the area's cpu_id current
 * and abort a critical section at every preemption, migration and signal,
 * for code (tcmalloc-like allocators) no tool here runs. Defined, rather
 * than left unknown, so the ENOSYS log lists only what is missing.
 */
#include <linux/errno.h>
#include "syscall.h"

SYSCALL_DEFINE4(rseq, uint64_t, rseq, uint32_t, len, int, flags, uint32_t, sig)
{
	return -ENOSYS;
}
