/*
 * bits/socket.h: the socket ABI's constants and structures, shared by
 * libc-lite's <sys/socket.h> and the kernel (core/fs/socket.h).
 *
 * Linux's uapi headers hold SOL_SOCKET and the SO_* options
 * (<asm/socket.h>) but not the address families, socket types, MSG_*
 * flags or struct msghdr (those live in the kernel's private
 * include/linux/socket.h and in each libc): they are the x86-64 ABI's
 * values, listed here once.
 */
#ifndef LIBC_LITE_BITS_SOCKET_H
#define LIBC_LITE_BITS_SOCKET_H

#include <stddef.h>
#include <asm/socket.h>
#include <linux/socket.h>
#include <linux/uio.h>

typedef unsigned int socklen_t;
typedef __kernel_sa_family_t sa_family_t;

#define AF_UNSPEC 0
#define AF_UNIX   1
#define AF_LOCAL  AF_UNIX
#define AF_INET   2
#define AF_INET6  10
#define PF_UNIX   AF_UNIX
#define PF_INET   AF_INET

#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3
#define SOCK_RDM       4
#define SOCK_SEQPACKET 5
#define SOCK_TYPE_MASK 0xf
#define SOCK_CLOEXEC   02000000   /* O_CLOEXEC */
#define SOCK_NONBLOCK  00004000   /* O_NONBLOCK */

#define MSG_OOB      0x1
#define MSG_PEEK     0x2
#define MSG_CTRUNC   0x8
#define MSG_TRUNC    0x20
#define MSG_DONTWAIT 0x40
#define MSG_EOR      0x80
#define MSG_WAITALL  0x100
#define MSG_NOSIGNAL 0x4000
#define MSG_CMSG_CLOEXEC 0x40000000

#define SHUT_RD   0
#define SHUT_WR   1
#define SHUT_RDWR 2

struct sockaddr {
	sa_family_t sa_family;
	char sa_data[14];
};

/* The kernel's struct user_msghdr. */
struct msghdr {
	void *msg_name;
	socklen_t msg_namelen;
	struct iovec *msg_iov;
	size_t msg_iovlen;
	void *msg_control;
	size_t msg_controllen;
	int msg_flags;
};

#endif
