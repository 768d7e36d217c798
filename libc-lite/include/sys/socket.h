/*
 * sys/socket.h: sockets (libc-lite, user programs): what
 * AF_UNIX sockets need. The constants: <bits/socket.h>.
 */
#ifndef LIBC_LITE_SYS_SOCKET_H
#define LIBC_LITE_SYS_SOCKET_H

#include <sys/types.h>
#include <bits/socket.h>

int socketpair(int domain, int type, int protocol, int sv[2]);
ssize_t send(int fd, const void *buf, size_t n, int flags);
ssize_t recv(int fd, void *buf, size_t n, int flags);
ssize_t sendto(int fd, const void *buf, size_t n, int flags,
               const struct sockaddr *to, socklen_t tolen);
ssize_t recvfrom(int fd, void *restrict buf, size_t n, int flags,
                 struct sockaddr *restrict from, socklen_t *restrict fromlen);
ssize_t sendmsg(int fd, const struct msghdr *msg, int flags);
ssize_t recvmsg(int fd, struct msghdr *msg, int flags);
int shutdown(int fd, int how);
int socket(int domain, int type, int protocol);
int bind(int fd, const struct sockaddr *addr, socklen_t len);
int listen(int fd, int backlog);
int connect(int fd, const struct sockaddr *addr, socklen_t len);
int accept(int fd, struct sockaddr *restrict addr, socklen_t *restrict len);
int accept4(int fd, struct sockaddr *restrict addr, socklen_t *restrict len,
            int flags);
int getsockname(int fd, struct sockaddr *restrict addr, socklen_t *restrict len);
int getpeername(int fd, struct sockaddr *restrict addr, socklen_t *restrict len);
int setsockopt(int fd, int level, int name, const void *val, socklen_t len);
int getsockopt(int fd, int level, int name, void *restrict val,
               socklen_t *restrict len);

#endif
