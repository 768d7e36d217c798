/*
 * AF_UNIX sockets with names: socket(), bind (a path, which becomes a
 * socket inode in the VFS, or an abstract name, which lives only here),
 * listen, connect and accept, as Linux's af_unix does them for stream
 * and seqpacket sockets.
 *
 * connect() makes the connection at once: a new server-side socket,
 * paired with the connector's, waits on the listener's pending list
 * until accept() gives it a file. The listener's backlog bounds that
 * list (a full one is EAGAIN, blocking or not).
 *
 * Locking: unix_table_lock (a spinlock: nothing here sleeps while
 * holding it) guards the bound list, every socket's state, names and
 * credentials, and each listener's pending list. A socket found in the
 * bound list stays alive while the lock is held: release takes it off
 * first (unix_conn_release).
 */
#include <string.h>
#include <linux/poll.h>
#include "fs.h"
#include "core/mm/mm.h"
#include "poll.h"
#include "core/proc/task.h"
#include "core/spinlock.h"
#include "unix.h"

#define NAME_OFFSET offsetof(struct sockaddr_un, sun_path) /* 2 */
#define BACKLOG_MAX 4096 /* SOMAXCONN */

static struct spinlock unix_table_lock = SPINLOCK_INIT("unix table");
static struct list bound = LIST_INIT(bound);
static unsigned autobind_next;

struct ucred unix_current_cred(void)
{
	struct task *t = current;
	return (struct ucred){ .pid = t->tgid, .uid = t->euid, .gid = t->egid };
}

struct unix_sock *unix_sock_new(int type)
{
	struct unix_sock *s = kzalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->type = type;
	s->state = UNIX_UNCONNECTED;
	s->peer_cred = (struct ucred){ .pid = 0, .uid = (unsigned)-1, .gid = (unsigned)-1 };
	list_init(&s->bound_node);
	list_init(&s->pending);
	list_init(&s->pending_node);
	waitq_init(&s->accept_wq);
	return s;
}

int unix_socket_create(int type, int flags, struct file **out)
{
	if (type == SOCK_DGRAM)
		return -ESOCKTNOSUPPORT; /* datagrams: socketpair only, so far */
	struct unix_sock *s = unix_sock_new(type);
	struct file *f = s ? unix_sock_file(s, flags) : NULL;
	if (!f) {
		kfree(s);
		return -ENOMEM;
	}
	*out = f;
	return 0;
}

/* ---- names ---- */

static bool abstract(const struct sockaddr_un *a, unsigned len)
{
	return len > NAME_OFFSET && a->sun_path[0] == 0;
}

/* Linux's unix_validate_addr, and a path's length made its own: a path
 * name is kept NUL-terminated, its length counting one NUL. */
static int check_addr(const struct sockaddr_un *a, unsigned *len)
{
	if (*len < NAME_OFFSET || *len > sizeof(*a) || a->sun_family != AF_UNIX)
		return -EINVAL;
	if (*len == NAME_OFFSET || abstract(a, *len))
		return 0;
	unsigned n = (unsigned)strnlen(a->sun_path, *len - NAME_OFFSET);
	if (n == sizeof(a->sun_path))
		return -EINVAL; /* no room for the NUL a path needs here */
	*len = NAME_OFFSET + n + 1;
	return 0;
}

/* The socket bound to abstract name a, or to path inode ino (lock held). */
static struct unix_sock *find_bound(const struct sockaddr_un *a, unsigned len,
				    struct inode *ino)
{
	list_for_each(n, &bound) {
		struct unix_sock *s = list_entry(n, struct unix_sock, bound_node);
		if (ino ? s->inode == ino
			: !s->inode && s->name_len == len && !memcmp(&s->name, a, len))
			return s;
	}
	return NULL;
}

/* An abstract name nobody has: "\0" and five hex digits, as Linux's
 * autobind (lock held). */
static void autobind_name(struct sockaddr_un *a, unsigned *len)
{
	static const char hex[] = "0123456789abcdef";
	do {
		unsigned v = autobind_next++ & 0xfffff;
		memset(a, 0, sizeof(*a));
		a->sun_family = AF_UNIX;
		for (int i = 5; i >= 1; i--, v >>= 4)
			a->sun_path[i] = hex[v & 0xf];
		*len = NAME_OFFSET + 6;
	} while (find_bound(a, *len, NULL));
}

int unix_bind(struct file *f, const struct sockaddr_un *addr, unsigned len)
{
	struct unix_sock *s = unix_sock_of(f);
	int r = check_addr(addr, &len);
	if (r)
		return r;
	struct inode *ino = NULL;
	if (len > NAME_OFFSET && !abstract(addr, len)) {
		/* The name first, as Linux: a taken path is EADDRINUSE even
		 * for a socket bound already. */
		r = vfs_mknod_socket(addr->sun_path, &ino);
		if (r)
			return r == -EEXIST ? -EADDRINUSE : r;
	}
	uint64_t fl = spin_lock_irqsave(&unix_table_lock);
	if (s->name_len)
		r = -EINVAL; /* bound already */
	else if (!ino && len > NAME_OFFSET && find_bound(addr, len, NULL))
		r = -EADDRINUSE;
	if (!r) {
		if (len == NAME_OFFSET) {
			autobind_name(&s->name, &s->name_len);
		} else {
			memset(&s->name, 0, sizeof(s->name));
			memcpy(&s->name, addr, len);
			s->name_len = len;
		}
		s->inode = ino;
		list_add_tail(&s->bound_node, &bound);
	}
	spin_unlock_irqrestore(&unix_table_lock, fl);
	if (r && ino) {
		inode_put(ino);
		vfs_unlink(addr->sun_path); /* made for nothing: Linux removes it */
	}
	return r;
}

int unix_listen(struct file *f, int backlog)
{
	struct unix_sock *s = unix_sock_of(f);
	if (s->type != SOCK_STREAM && s->type != SOCK_SEQPACKET)
		return -EOPNOTSUPP;
	if (backlog < 0 || backlog > BACKLOG_MAX)
		backlog = BACKLOG_MAX;
	int r = 0;
	uint64_t fl = spin_lock_irqsave(&unix_table_lock);
	if (s->state == UNIX_CONNECTED || !s->name_len) {
		r = -EINVAL;
	} else {
		s->state = UNIX_LISTENING;
		s->backlog = backlog;
		s->peer_cred = unix_current_cred(); /* what connectors see */
	}
	spin_unlock_irqrestore(&unix_table_lock, fl);
	return r;
}

/* The socket inode a path names, or an errno as connect reports it. */
static int lookup_path(const char *path, struct inode **ino)
{
	struct path p;
	int r = path_walk(NULL, NULL, path, WALK_FOLLOW, &p);
	if (r)
		return r;
	if (!S_ISSOCK(p.inode->mode)) {
		path_put(&p);
		return -ECONNREFUSED;
	}
	*ino = p.inode; /* the reference goes to the caller */
	return 0;
}

/* Queue the server side of a new connection on listener l (lock held). */
static int connect_to(struct unix_sock *s, struct unix_sock *l, struct unix_sock *server)
{
	if (l->state != UNIX_LISTENING)
		return -ECONNREFUSED;
	if (l->type != s->type)
		return -EPROTOTYPE;
	int pending = 0;
	list_for_each(n, &l->pending)
		pending++;
	if (pending > l->backlog)
		return -EAGAIN;
	int r = unix_sock_connect_pair(s, server);
	if (r)
		return r;
	server->name = l->name;
	server->name_len = l->name_len;
	server->peer_name = s->name;
	server->peer_len = s->name_len;
	server->peer_cred = unix_current_cred();
	s->peer_name = l->name;
	s->peer_len = l->name_len;
	s->peer_cred = l->peer_cred;
	list_add_tail(&server->pending_node, &l->pending);
	return 0;
}

int unix_connect(struct file *f, const struct sockaddr_un *addr, unsigned len)
{
	struct unix_sock *s = unix_sock_of(f);
	int r = check_addr(addr, &len);
	if (r)
		return r;
	if (len == NAME_OFFSET)
		return -EINVAL;
	struct inode *ino = NULL;
	if (!abstract(addr, len) && (r = lookup_path(addr->sun_path, &ino)))
		return r;
	struct unix_sock *server = unix_sock_new(s->type);
	r = -ENOMEM;
	if (server) {
		uint64_t fl = spin_lock_irqsave(&unix_table_lock);
		struct unix_sock *l = find_bound(addr, len, ino);
		r = s->state == UNIX_CONNECTED ? -EISCONN
		  : s->state == UNIX_LISTENING ? -EINVAL
		  : !l ? -ECONNREFUSED
		  : connect_to(s, l, server);
		if (!r)
			waitq_wake_all(&l->accept_wq);
		spin_unlock_irqrestore(&unix_table_lock, fl);
	}
	if (r)
		kfree(server); /* never connected: no pair */
	else
		poll_wake_all();
	if (ino)
		inode_put(ino);
	return r;
}

static bool pending_any(struct unix_sock *l)
{
	return !list_empty(&l->pending) || l->state != UNIX_LISTENING;
}

int unix_accept(struct file *f, int flags, struct file **out,
		struct sockaddr_un *peer, unsigned *peer_len)
{
	struct unix_sock *l = unix_sock_of(f);
	if (l->type != SOCK_STREAM && l->type != SOCK_SEQPACKET)
		return -EOPNOTSUPP;
	for (;;) {
		struct unix_sock *s = NULL;
		uint64_t fl = spin_lock_irqsave(&unix_table_lock);
		bool listening = l->state == UNIX_LISTENING;
		if (listening && !list_empty(&l->pending)) {
			s = list_entry(l->pending.next, struct unix_sock, pending_node);
			list_remove(&s->pending_node);
			*peer = s->peer_name;
			*peer_len = s->peer_len;
		}
		spin_unlock_irqrestore(&unix_table_lock, fl);
		if (!listening)
			return -EINVAL;
		if (s) {
			struct file *nf = unix_sock_file(s, flags);
			if (!nf) {
				unix_end_close(s->end, true);
				kfree(s);
				return -ENOMEM;
			}
			*out = nf;
			return 0;
		}
		if (f->flags & O_NONBLOCK)
			return -EAGAIN;
		long w = wait_event_interruptible(l->accept_wq, pending_any(l));
		if (w)
			return (int)w;
	}
}

unsigned unix_name(struct file *f, bool peer, struct sockaddr_un *out)
{
	struct unix_sock *s = unix_sock_of(f);
	uint64_t fl = spin_lock_irqsave(&unix_table_lock);
	unsigned len = peer ? s->peer_len : s->name_len;
	bool connected = s->state == UNIX_CONNECTED;
	*out = peer ? s->peer_name : s->name;
	spin_unlock_irqrestore(&unix_table_lock, fl);
	if (peer && !connected)
		return 0;
	if (!len) {
		memset(out, 0, sizeof(*out));
		out->sun_family = AF_UNIX;
		len = NAME_OFFSET;
	}
	return len;
}

int unix_peer_cred(struct file *f, struct ucred *out)
{
	struct unix_sock *s = unix_sock_of(f);
	uint64_t fl = spin_lock_irqsave(&unix_table_lock);
	bool have = s->state != UNIX_UNCONNECTED;
	*out = s->peer_cred;
	spin_unlock_irqrestore(&unix_table_lock, fl);
	return have ? 0 : -ENOTCONN;
}

bool unix_listening(struct file *f)
{
	return unix_sock_of(f)->state == UNIX_LISTENING;
}

unsigned unix_conn_poll(struct unix_sock *s)
{
	if (s->state == UNIX_LISTENING)
		return list_empty(&s->pending) ? 0 : POLLIN | POLLRDNORM;
	return POLLOUT | POLLWRNORM | POLLHUP; /* not connected: Linux's mask */
}

void unix_conn_release(struct unix_sock *s)
{
	struct list refused;
	list_init(&refused);
	uint64_t fl = spin_lock_irqsave(&unix_table_lock);
	if (!list_empty(&s->bound_node))
		list_remove(&s->bound_node); /* accepted sockets have a name, unlisted */
	/* Connections nobody accepted: their connectors read ECONNRESET. */
	while (!list_empty(&s->pending)) {
		struct list *n = s->pending.next;
		list_remove(n);
		list_add_tail(n, &refused);
	}
	s->state = UNIX_UNCONNECTED;
	spin_unlock_irqrestore(&unix_table_lock, fl);
	list_for_each_safe(n, &refused) {
		struct unix_sock *c = list_entry(n, struct unix_sock, pending_node);
		unix_end_close(c->end, true);
		kfree(c);
	}
	if (s->inode)
		inode_put(s->inode);
}
