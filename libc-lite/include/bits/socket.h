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

/* Control messages (the kernel's struct cmsghdr and CMSG_* rules):
 * each header is followed by its data, padded to 8 bytes. */
struct cmsghdr {
	size_t cmsg_len;      /* header and data, unpadded */
	int cmsg_level;
	int cmsg_type;
};
#define SCM_RIGHTS      1  /* data: file descriptors (int) */
#define SCM_CREDENTIALS 2  /* data: struct ucred */
#define SCM_MAX_FD      253
#define CMSG_ALIGN(len) (((len) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define CMSG_DATA(c)    ((unsigned char *)((struct cmsghdr *)(c) + 1))
#define CMSG_SPACE(len) (sizeof(struct cmsghdr) + CMSG_ALIGN(len))
#define CMSG_LEN(len)   (sizeof(struct cmsghdr) + (len))
#define CMSG_FIRSTHDR(m) ((m)->msg_controllen >= sizeof(struct cmsghdr) \
			  ? (struct cmsghdr *)(m)->msg_control : (struct cmsghdr *)0)
#define CMSG_NXTHDR(m, c) \
	((c)->cmsg_len < sizeof(struct cmsghdr) || \
	 (unsigned char *)(c) + CMSG_ALIGN((c)->cmsg_len) + sizeof(struct cmsghdr) > \
	 (unsigned char *)(m)->msg_control + (m)->msg_controllen \
	 ? (struct cmsghdr *)0 \
	 : (struct cmsghdr *)((unsigned char *)(c) + CMSG_ALIGN((c)->cmsg_len)))

/* SO_PEERCRED and SCM_CREDENTIALS. */
struct ucred {
	int pid;
	unsigned uid, gid;
};

#endif
