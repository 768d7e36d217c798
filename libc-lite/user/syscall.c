/*
 * syscall.c: the generic syscall(nr, ...) and perf_event_open, which no
 * other C library wraps either.
 *
 * syscall() always fetches six variadic longs. A caller that passes fewer
 * leaves garbage in the unused argument registers; the kernel ignores
 * the arguments a call does not take, so this is harmless on x86-64
 * (musl does the same).
 */
#include <stdarg.h>
#include <unistd.h>
#include <perf_event_open.h>
#include "sys.h"

long syscall(long nr, ...)
{
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return __syscall_ret(sys6(nr, a[0], a[1], a[2], a[3], a[4], a[5]));
}

int perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                    int group_fd, unsigned long flags)
{
	return __syscall_ret(sys5(__NR_perf_event_open, attr, pid, cpu, group_fd, flags));
}
