/*
 * AF_UNIX sockets: connected ends (unix_socket.c), socket(), bind,
 * listen, connect and accept (unix_conn.c), descriptors passed with
 * SCM_RIGHTS (scm.c), and their system calls (sys_socket.c,
 * sys_unix.c). Stream and seqpacket sockets connect through names;
 * datagram sockets exist only as socketpair's connected pairs.
 */
#ifndef BAREMON_FS_SOCKET_H
#define BAREMON_FS_SOCKET_H

#include <bits/socket.h>
#include <linux/un.h>
#include "fs.h"

/* Make a connected pair of `type` (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET);
 * flags: O_NONBLOCK. */
int unix_pair_create(int type, int flags, struct file **a, struct file **b);
bool file_is_socket(struct file *f);
int socket_type(struct file *f);

/* Descriptors in flight: one reference to each file. `next` chains
 * sets being dropped. */
struct scm_rights {
	struct scm_rights *next;
	int n;
	struct file *files[];
};
/* Release the files of a chain of sets (NULL: nothing). */
void scm_rights_free(struct scm_rights *r);

/* send/recv with MSG_* flags. send queues *rights (if not NULL) with
 * the data and then clears it; recv returns the bytes copied, or with
 * MSG_TRUNC on a message socket the message's length, and hands the
 * descriptors that came with them to *rights (NULL before); *truncated
 * is set when a message did not fit. -ENOTCONN / -EINVAL on a socket
 * that is not connected. */
long socket_send(struct file *f, struct uio *u, int flags, struct scm_rights **rights);
long socket_recv(struct file *f, struct uio *u, int flags, bool *truncated,
		 struct scm_rights **rights);
/* how: SHUT_RD, SHUT_WR, SHUT_RDWR (checked by the caller). */
int socket_shutdown(struct file *f, int how);
/* Bytes a read may take now (FIONREAD). */
int socket_inq(struct file *f);
/* The most bytes one direction queues (SO_SNDBUF, SO_RCVBUF). */
#define SOCKET_QUEUE_MAX (208 * 1024)

/* socket(AF_UNIX, type) (type without flags); flags O_NONBLOCK. */
int unix_socket_create(int type, int flags, struct file **out);
/* addr is a kernel copy of len bytes. */
int unix_bind(struct file *f, const struct sockaddr_un *addr, unsigned len);
int unix_listen(struct file *f, int backlog);
int unix_connect(struct file *f, const struct sockaddr_un *addr, unsigned len);
/* A new connection's file (flags O_NONBLOCK) and the peer's name. */
int unix_accept(struct file *f, int flags, struct file **out,
		struct sockaddr_un *peer, unsigned *peer_len);
/* Our name, or the peer's: the length (at least the family's 2 bytes;
 * 0 when asked for the peer of a socket that is not connected). */
unsigned unix_name(struct file *f, bool peer, struct sockaddr_un *out);
/* SO_PEERCRED: -ENOTCONN without a peer. */
int unix_peer_cred(struct file *f, struct ucred *out);
bool unix_listening(struct file *f);
/* The socket behind descriptor fd (a reference), or NULL with *err
 * EBADF or ENOTSOCK (sys_socket.c). */
struct file *socket_file(uint64_t fd, long *err);

#endif
