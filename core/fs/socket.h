/*
 * AF_UNIX socket pairs (unix_socket.c) and their system calls
 * (sys_socket.c). Only socketpair makes sockets: there is no socket(),
 * bind, listen or connect, so every socket is connected to its one peer
 * and has no address.
 */
#ifndef BAREMON_FS_SOCKET_H
#define BAREMON_FS_SOCKET_H

#include <bits/socket.h>
#include "fs.h"

/* Make a connected pair of `type` (SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET);
 * flags: O_NONBLOCK. */
int unix_pair_create(int type, int flags, struct file **a, struct file **b);
bool file_is_socket(struct file *f);
int socket_type(struct file *f);

/* send/recv with MSG_* flags. recv returns the bytes copied, or with
 * MSG_TRUNC on a message socket the message's length; *truncated is
 * set when a message did not fit. */
long socket_send(struct file *f, struct uio *u, int flags);
long socket_recv(struct file *f, struct uio *u, int flags, bool *truncated);
/* how: SHUT_RD, SHUT_WR, SHUT_RDWR (checked by the caller). */
int socket_shutdown(struct file *f, int how);
/* Bytes a read may take now (FIONREAD). */
int socket_inq(struct file *f);
/* The most bytes one direction queues (SO_SNDBUF, SO_RCVBUF). */
#define SOCKET_QUEUE_MAX (208 * 1024)

#endif
