/*
 * AF_UNIX internals shared by unix_socket.c (connected ends: data,
 * shutdown, poll), unix_conn.c (socket(), bind, listen, connect,
 * accept, names) and unix_scm.c (descriptors in flight).
 *
 * A socket file's priv is a struct unix_sock. A connected socket (from
 * socketpair, connect or accept) has `end`, one end of a unix_pair that
 * carries the data; an unconnected or listening one has none.
 *
 * Locking: unix_table_lock (a sleeplock, unix_conn.c) guards every
 * socket's state, name, peer fields and a listener's pending queue;
 * data on a connection is under its pair's lock (unix_socket.c).
 */
#ifndef BAREMON_FS_UNIX_H
#define BAREMON_FS_UNIX_H

#include <linux/un.h>
#include "fs.h"
#include "socket.h"

enum unix_state { UNIX_UNCONNECTED, UNIX_LISTENING, UNIX_CONNECTED };

struct unix_end;

struct unix_sock {
	int type;                     /* SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET */
	enum unix_state state;
	struct unix_end *end;         /* connected: our end of the pair */
	struct sockaddr_un name;      /* bound name; name_len 0: none */
	unsigned name_len;
	struct sockaddr_un peer_name; /* the peer's name when connected */
	unsigned peer_len;
	struct ucred peer_cred;       /* SO_PEERCRED */
	struct inode *inode;          /* bound to a path: its socket inode */
	struct list bound_node;       /* in the bound list while named */
	int backlog;                  /* listening: most pending */
	struct list pending;          /* listening: connections to accept */
	struct list pending_node;     /* in its listener's pending list */
	struct waitq accept_wq;       /* listening: woken by connect */
};

/* A socket object of type, unconnected (NULL: out of memory). */
struct unix_sock *unix_sock_new(int type);
/* A file for s (O_NONBLOCK in flags); s belongs to it after. */
struct file *unix_sock_file(struct unix_sock *s, int flags);
struct unix_sock *unix_sock_of(struct file *f);
/* Connect a and b through a new pair (0 or -ENOMEM). */
int unix_sock_connect_pair(struct unix_sock *a, struct unix_sock *b);
/* Close e, one end of a connection: its peer reads EOF, or first
 * ECONNRESET if data was left unread here or the connection was never
 * accepted (unaccepted), as Linux. */
void unix_end_close(struct unix_end *e, bool unaccepted);
/* The file is going: unbind s, refuse what waits on a listener. */
void unix_conn_release(struct unix_sock *s);
/* Readiness of an unconnected or listening socket, for poll. */
unsigned unix_conn_poll(struct unix_sock *s);
/* The current task's credentials, as SO_PEERCRED gives them. */
struct ucred unix_current_cred(void);

#endif
