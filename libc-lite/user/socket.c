/* socket.c: the socket system calls libc-lite offers (sys/socket.h). */
#include <sys/socket.h>
#include "sys.h"

int socketpair(int domain, int type, int protocol, int sv[2])
{
	return (int)__syscall_ret(sys4(__NR_socketpair, domain, type, protocol,
	                               (long)sv));
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags,
               const struct sockaddr *to, socklen_t tolen)
{
	return __syscall_ret(sys6(__NR_sendto, fd, (long)buf, (long)n, flags,
	                          (long)to, tolen));
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	return sendto(fd, buf, n, flags, NULL, 0);
}

ssize_t recvfrom(int fd, void *restrict buf, size_t n, int flags,
                 struct sockaddr *restrict from, socklen_t *restrict fromlen)
{
	return __syscall_ret(sys6(__NR_recvfrom, fd, (long)buf, (long)n, flags,
	                          (long)from, (long)fromlen));
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	return recvfrom(fd, buf, n, flags, NULL, NULL);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	return __syscall_ret(sys3(__NR_sendmsg, fd, (long)msg, flags));
}

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	return __syscall_ret(sys3(__NR_recvmsg, fd, (long)msg, flags));
}

int shutdown(int fd, int how)
{
	return (int)__syscall_ret(sys2(__NR_shutdown, fd, how));
}

int getsockopt(int fd, int level, int name, void *restrict val,
               socklen_t *restrict len)
{
	return (int)__syscall_ret(sys5(__NR_getsockopt, fd, level, name,
	                               (long)val, (long)len));
}
