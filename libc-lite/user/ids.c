/* ids.c: process, thread, user, group and session identities. */
#include <unistd.h>
#include "sys.h"

/* None of these can fail. */
pid_t getpid(void)  { return sys0(__NR_getpid); }
pid_t getppid(void) { return sys0(__NR_getppid); }
pid_t gettid(void)  { return sys0(__NR_gettid); }
uid_t getuid(void)  { return sys0(__NR_getuid); }
uid_t geteuid(void) { return sys0(__NR_geteuid); }
gid_t getgid(void)  { return sys0(__NR_getgid); }
gid_t getegid(void) { return sys0(__NR_getegid); }
pid_t getpgrp(void) { return sys0(__NR_getpgrp); }

int setuid(uid_t uid)
{
	return __syscall_ret(sys1(__NR_setuid, uid));
}

int setgid(gid_t gid)
{
	return __syscall_ret(sys1(__NR_setgid, gid));
}

int setpgid(pid_t pid, pid_t pgid)
{
	return __syscall_ret(sys2(__NR_setpgid, pid, pgid));
}

pid_t getpgid(pid_t pid)
{
	return __syscall_ret(sys1(__NR_getpgid, pid));
}

pid_t setsid(void)
{
	return __syscall_ret(sys0(__NR_setsid));
}
