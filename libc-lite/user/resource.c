/* resource.c: resource usage and limits. */
#include <sys/resource.h>
#include "sys.h"

int getrusage(int who, struct rusage *ru)
{
	return __syscall_ret(sys2(__NR_getrusage, who, ru));
}

int getrlimit(int resource, struct rlimit *rl)
{
	return __syscall_ret(sys2(__NR_getrlimit, resource, rl));
}

int setrlimit(int resource, const struct rlimit *rl)
{
	return __syscall_ret(sys2(__NR_setrlimit, resource, rl));
}
