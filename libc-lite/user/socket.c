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

int socket(int domain, int type, int protocol)
{
	return (int)__syscall_ret(sys3(__NR_socket, domain, type, protocol));
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	return (int)__syscall_ret(sys3(__NR_bind, fd, (long)addr, len));
}

int listen(int fd, int backlog)
{
	return (int)__syscall_ret(sys2(__NR_listen, fd, backlog));
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	return (int)__syscall_ret(sys3(__NR_connect, fd, (long)addr, len));
}

int accept4(int fd, struct sockaddr *restrict addr, socklen_t *restrict len,
            int flags)
{
	return (int)__syscall_ret(sys4(__NR_accept4, fd, (long)addr, (long)len,
	                               flags));
}

int accept(int fd, struct sockaddr *restrict addr, socklen_t *restrict len)
{
	return accept4(fd, addr, len, 0);
}

int getsockname(int fd, struct sockaddr *restrict addr, socklen_t *restrict len)
{
	return (int)__syscall_ret(sys3(__NR_getsockname, fd, (long)addr, (long)len));
}

int getpeername(int fd, struct sockaddr *restrict addr, socklen_t *restrict len)
{
	return (int)__syscall_ret(sys3(__NR_getpeername, fd, (long)addr, (long)len));
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	return (int)__syscall_ret(sys5(__NR_setsockopt, fd, level, name,
	                               (long)val, len));
}
