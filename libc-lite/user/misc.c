/*
 * misc.c: system name, random bytes, process controls, scheduling and
 * CPU affinity.
 */
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include "sys.h"

#define SAME(f) (offsetof(struct utsname, f) == \
                 offsetof(struct new_utsname, f))
_Static_assert(sizeof(struct utsname) == sizeof(struct new_utsname) &&
               SAME(sysname) && SAME(machine) && SAME(domainname),
               "struct utsname differs from the kernel's new_utsname");

int uname(struct utsname *u)
{
	return __syscall_ret(sys1(__NR_uname, u));
}

ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
	return __syscall_ret(sys3(__NR_getrandom, buf, len, flags));
}

int prctl(int option, ...)
{
	va_list ap;
	unsigned long a[4];

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	return __syscall_ret(sys5(__NR_prctl, option, a[0], a[1], a[2], a[3]));
}

int sched_yield(void)
{
	return __syscall_ret(sys0(__NR_sched_yield));
}

/* The kernel returns how many bytes of the mask it wrote. */
int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	long n = __syscall_ret(sys3(__NR_sched_getaffinity, pid, size, set));

	if (n < 0)
		return -1;
	memset((char *)set + n, 0, size - (size_t)n);
	return 0;
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	return __syscall_ret(sys3(__NR_sched_setaffinity, pid, size, set));
}

int __cpu_count(size_t size, const cpu_set_t *set)
{
	int n = 0;

	for (size_t i = 0; i < size / sizeof(unsigned long); i++)
		n += __builtin_popcountl(set->__bits[i]);
	return n;
}
