/*
 * auxv.c: what the kernel said at exec time (the auxiliary vector), and
 * the sysconf values that come from it.
 */
#include <errno.h>
#include <sched.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "sys.h"

/* __auxv: pairs (type, value) ending with type AT_NULL (start.c). */
unsigned long getauxval(unsigned long type)
{
	for (unsigned long *a = __auxv; a && a[0] != AT_NULL; a += 2)
		if (a[0] == type)
			return a[1];
	errno = ENOENT;
	return 0;
}

/* AT_PAGESZ, or 4096 when the kernel gave none. */
int getpagesize(void)
{
	unsigned long sz = getauxval(AT_PAGESZ);

	return sz ? (int)sz : 4096;
}

/* CPUs this process may run on (the affinity mask). */
static long online_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	return CPU_COUNT(&set);
}

long sysconf(int name)
{
	switch (name) {
	case _SC_PAGESIZE:
		return getpagesize();
	case _SC_CLK_TCK:
		return getauxval(AT_CLKTCK) ? (long)getauxval(AT_CLKTCK) : 100;
	case _SC_OPEN_MAX:
		return 1024;
	case _SC_NPROCESSORS_ONLN:
	case _SC_NPROCESSORS_CONF:
		return online_cpus();
	}
	errno = EINVAL;
	return -1;
}
