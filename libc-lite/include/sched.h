/*
 * sched.h: yielding and CPU affinity (libc-lite, user programs).
 * CLONE_* and SCHED_* come from <linux/sched.h>.
 *
 * cpu_set_t holds CPU_SETSIZE (1024) CPUs, as in glibc and musl; the
 * kernel takes and fills a plain bit mask of any length (bit n = CPU n).
 */
#ifndef LIBC_LITE_SCHED_H
#define LIBC_LITE_SCHED_H

#include <sys/types.h>
#include <linux/sched.h>

#define CPU_SETSIZE 1024
#define __CPU_BITS (8 * sizeof(unsigned long))

typedef struct {
	unsigned long __bits[CPU_SETSIZE / __CPU_BITS];
} cpu_set_t;

#define CPU_ZERO(set) \
	__builtin_memset((set), 0, sizeof(cpu_set_t))
#define CPU_SET(cpu, set) \
	((set)->__bits[(cpu) / __CPU_BITS] |= 1UL << ((cpu) % __CPU_BITS))
#define CPU_CLR(cpu, set) \
	((set)->__bits[(cpu) / __CPU_BITS] &= ~(1UL << ((cpu) % __CPU_BITS)))
#define CPU_ISSET(cpu, set) \
	(((set)->__bits[(cpu) / __CPU_BITS] >> ((cpu) % __CPU_BITS)) & 1)
#define CPU_COUNT(set) __cpu_count(sizeof(cpu_set_t), (set))

int __cpu_count(size_t size, const cpu_set_t *set);

int sched_yield(void);

/*
 * Return 0 (not the kernel's byte count, as glibc and musl do); the part
 * of *set the kernel did not write is cleared.
 */
int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set);
int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set);

#endif
