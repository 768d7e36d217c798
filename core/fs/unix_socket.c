/*
 * AF_UNIX connections: the pair of ends a socketpair, or a connect and
 * its accept, make (unix_conn.c makes the sockets around them).
 *
 * Each end has a queue of what it will read: chunks of bytes. A stream
 * socket's reads take bytes across chunks (writes coalesce); a message
 * socket's (SOCK_DGRAM, SOCK_SEQPACKET) take one chunk each, a short read
 * dropping the rest of it. A queue holds at most SOCKET_QUEUE_MAX bytes
 * (a message also counts CHUNK_COST, so empty ones are bounded too):
 * writers wait for room, a stream writer for any, a message writer for
 * its whole message.
 *
 * Shutdown: each end has RCV/SEND bits. On a connection (stream,
 * seqpacket) shutting one direction shuts the mirror direction of the
 * peer, and closing an end shuts both of the peer's, so the peer reads
 * EOF and its writes fail with EPIPE (stream writers also get SIGPIPE).
 * A datagram peer going away ends nothing: reads just wait, sends fail
 * with ECONNREFUSED.
 *
 * Descriptors in flight (SCM_RIGHTS) ride on the first chunk of the
 * send that carried them and go to the read that takes that chunk; a
 * stream read stops before a chunk with descriptors once it has bytes,
 * so two sends' descriptors never arrive in one read. Descriptors
 * dropped unread are released after the pair's lock is let go (one of
 * them may be this very pair's other end).
 *
 * Locking: pair->lock (a sleeplock: data is copied to and from user
 * memory under it) guards both ends. Every change wakes pair->wq, where
 * readers and writers of both ends wait, and the poll queue. Wait
 * conditions read the fields without the lock and are re-checked under
 * it.
 */
#include <asm/ioctls.h>
#include <asm/signal.h>
#include <linux/poll.h>
#include "fs.h"
#include "core/mm/mm.h"
#include "core/mm/uaccess.h"
#include "poll.h"
#include "core/proc/task.h"
#include "socket.h"
#include "unix.h"

#define RCV_SHUT 1
#define SEND_SHUT 2
#define CHUNK_COST 64      /* what a message costs beyond its bytes */
#define STREAM_CHUNK 65536 /* a stream write queues at most this per chunk */

struct chunk {
	struct list node;
	size_t len, off;   /* off: bytes of a stream chunk already read */
	struct scm_rights *rights; /* descriptors sent with it, or NULL */
	char data[];
};

struct unix_end {
	struct unix_pair *pair;
	int side;
	struct list queue;   /* chunks this end will read */
	size_t queued;       /* their cost against SOCKET_QUEUE_MAX */
	int shut;            /* RCV_SHUT | SEND_SHUT */
	bool closed;         /* its file was released */
	bool reset;          /* ECONNRESET due to the next read that finds
			      * nothing: the peer went with data unread, or
			      * was never accepted (Linux's sk_err) */
};

struct unix_pair {
	struct sleeplock lock;
	struct waitq wq;
	int type;
	struct unix_end end[2];
};

static const struct file_ops unix_fops;

struct unix_sock *unix_sock_of(struct file *f) { return f->priv; }
static struct unix_end *end_of(struct file *f) { return unix_sock_of(f)->end; }
static struct unix_end *peer_of(struct unix_end *e) { return &e->pair->end[!e->side]; }
static bool messages(struct unix_pair *p) { return p->type != SOCK_STREAM; }
static bool connection(struct unix_pair *p) { return p->type != SOCK_DGRAM; }

static size_t cost(struct unix_pair *p, size_t len)
{
	return len + (messages(p) ? CHUNK_COST : 0);
}

static int load(const int *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }
static size_t load_sz(const size_t *v) { return __atomic_load_n(v, __ATOMIC_ACQUIRE); }

static void pair_wake(struct unix_pair *p)
{
	waitq_wake_all(&p->wq);
	poll_wake_all();
}

/* ---- reading ---- */

static bool readable(struct unix_end *e)
{
	return load_sz(&e->queued) > 0 || (load(&e->shut) & RCV_SHUT);
}

/* Take c off e's queue (lock held); its descriptors go to *rights. */
static void drop_chunk(struct unix_end *e, struct chunk *c, struct scm_rights **rights)
{
	list_remove(&c->node);
	__atomic_store_n(&e->queued, e->queued - cost(e->pair, c->len), __ATOMIC_RELEASE);
	if (c->rights)
		*rights = c->rights;
	kfree(c);
}

/* One message into u (lock held): its length, or bytes copied, or -EFAULT. */
static long take_message(struct unix_end *e, struct uio *u, int flags, bool *truncated,
			 struct scm_rights **rights)
{
	struct chunk *c = list_entry(e->queue.next, struct chunk, node);
	size_t n = c->len < u->resid ? c->len : u->resid;
	long r = uio_copy_out(u, c->data, n);
	if (r < 0 || (size_t)r < n)
		return -EFAULT;
	*truncated = n < c->len;
	size_t len = c->len;
	if (!(flags & MSG_PEEK))
		drop_chunk(e, c, rights);
	return (flags & MSG_TRUNC) ? (long)len : r;
}

/* Stream bytes into u (lock held): bytes copied, or -EFAULT. */
static long take_bytes(struct unix_end *e, struct uio *u, int flags,
		       struct scm_rights **rights)
{
	long done = 0;
	list_for_each_safe(n, &e->queue) {
		struct chunk *c = list_entry(n, struct chunk, node);
		if (!u->resid || (done && c->rights))
			break;
		size_t avail = c->len - c->off;
		size_t want = avail < u->resid ? avail : u->resid;
		long r = uio_copy_out(u, c->data + c->off, want);
		if (r < 0 || (size_t)r < want)
			return done ? done : -EFAULT;
		done += r;
		if (flags & MSG_PEEK)
			continue;
		c->off += want;
		if (c->rights) {
			*rights = c->rights;
			c->rights = NULL;
		}
		if (c->off == c->len)
			drop_chunk(e, c, rights);
		if (*rights)
			break; /* the next chunk's descriptors: another read */
	}
	return done;
}

long socket_recv(struct file *f, struct uio *u, int flags, bool *truncated,
		 struct scm_rights **rights)
{
	struct unix_sock *s = unix_sock_of(f);
	struct unix_end *e = s->end;
	if (!e)
		return -EINVAL; /* Linux: not connected, or listening */
	struct unix_pair *p = e->pair;
	bool nowait = (f->flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	bool waitall = (flags & MSG_WAITALL) && !messages(p) && !(flags & MSG_PEEK);
	long done = 0;
	*truncated = false;
	for (;;) {
		sleep_lock(&p->lock);
		long r = 0;
		bool have = !list_empty(&e->queue), eof = e->shut & RCV_SHUT;
		bool reset = !have && !done && e->reset;
		if (have)
			r = messages(p) ? take_message(e, u, flags, truncated, rights)
					: take_bytes(e, u, flags, rights);
		if (reset)
			e->reset = false; /* reported once, then EOF */
		sleep_unlock(&p->lock);
		if (reset)
			return -ECONNRESET;
		if (have && !(flags & MSG_PEEK))
			pair_wake(p);
		if (r < 0)
			return done ? done : r;
		done += r;
		if ((have && !waitall) || !u->resid || eof || *rights)
			return done;
		if (nowait)
			return done ? done : -EAGAIN;
		r = wait_event_interruptible(p->wq, readable(e));
		if (r)
			return done ? done : r;
	}
}

/* ---- writing ---- */

static size_t room(struct unix_end *to)
{
	size_t q = load_sz(&to->queued);
	return q < SOCKET_QUEUE_MAX ? SOCKET_QUEUE_MAX - q : 0;
}

/* Why a write from e cannot go now (lock held): -errno, or 0. */
static long write_error(struct unix_end *e)
{
	struct unix_end *to = peer_of(e);
	if (e->shut & SEND_SHUT)
		return -EPIPE;
	if (!connection(e->pair) && to->closed)
		return -ECONNREFUSED;
	if (to->shut & RCV_SHUT)
		return -EPIPE;
	return 0;
}

static bool can_write(struct unix_end *e, size_t need)
{
	struct unix_end *to = peer_of(e);
	return room(to) >= need || (load(&e->shut) & SEND_SHUT) ||
	       (load(&to->shut) & RCV_SHUT) || __atomic_load_n(&to->closed, __ATOMIC_ACQUIRE);
}

/* Queue n bytes of u for `to` as one chunk (lock held), with the
 * descriptors in *rights if any (then taken: *rights NULL). */
static long put_chunk(struct unix_end *to, struct uio *u, size_t n,
		      struct scm_rights **rights)
{
	struct chunk *c = kmalloc(sizeof(*c) + (n ? n : 1));
	if (!c)
		return -ENOMEM;
	long r = uio_copy_in(u, c->data, n);
	if (r < 0 || (size_t)r < n) {
		kfree(c);
		return -EFAULT;
	}
	c->len = n;
	c->off = 0;
	c->rights = *rights;
	*rights = NULL;
	list_add_tail(&c->node, &to->queue);
	__atomic_store_n(&to->queued, to->queued + cost(to->pair, n), __ATOMIC_RELEASE);
	return r;
}

/* How much of a write goes in one chunk now (lock held). */
static size_t chunk_len(struct unix_end *to, size_t resid)
{
	if (messages(to->pair))
		return resid;
	size_t n = room(to) < resid ? room(to) : resid;
	return n < STREAM_CHUNK ? n : STREAM_CHUNK;
}

long socket_send(struct file *f, struct uio *u, int flags,
		 struct scm_rights **rights)
{
	struct unix_end *e = end_of(f);
	if (!e)
		return -ENOTCONN;
	struct unix_pair *p = e->pair;
	struct unix_end *to = peer_of(e);
	bool nowait = (f->flags & O_NONBLOCK) || (flags & MSG_DONTWAIT);
	if (!messages(p) && !u->resid)
		return 0; /* Linux sends nothing (no descriptors either) */
	if (messages(p) && cost(p, u->resid) > SOCKET_QUEUE_MAX)
		return -EMSGSIZE;
	long done = 0;
	for (;;) {
		size_t need = messages(p) ? cost(p, u->resid) : 1;
		bool sent = false;
		sleep_lock(&p->lock);
		long r = write_error(e);
		if (!r && room(to) >= need) {
			r = put_chunk(to, u, chunk_len(to, u->resid), rights);
			sent = r >= 0;
		}
		sleep_unlock(&p->lock);
		if (sent)
			pair_wake(p);
		/* A stream writer that sent nothing hears SIGPIPE. */
		if (r == -EPIPE && p->type == SOCK_STREAM && !done &&
		    !(flags & MSG_NOSIGNAL))
			signal_send_current(SIGPIPE);
		if (r < 0)
			return done ? done : r;
		done += r;
		if (sent && (messages(p) || !u->resid))
			return done;
		if (sent)
			continue;
		if (nowait)
			return done ? done : -EAGAIN;
		r = wait_event_interruptible(p->wq, can_write(e, need));
		if (r)
			return done ? done : r;
	}
}

/* ---- the rest ---- */

int socket_shutdown(struct file *f, int how)
{
	struct unix_end *e = end_of(f);
	if (!e)
		return -ENOTCONN;
	struct unix_pair *p = e->pair;
	int mode = how + 1; /* SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2 -> bits */
	sleep_lock(&p->lock);
	__atomic_or_fetch(&e->shut, mode, __ATOMIC_RELEASE);
	if (connection(p)) {
		int mirror = ((mode & RCV_SHUT) ? SEND_SHUT : 0) |
			     ((mode & SEND_SHUT) ? RCV_SHUT : 0);
		__atomic_or_fetch(&peer_of(e)->shut, mirror, __ATOMIC_RELEASE);
	}
	sleep_unlock(&p->lock);
	pair_wake(p);
	return 0;
}

int socket_inq(struct file *f)
{
	struct unix_end *e = end_of(f);
	size_t n = 0;
	if (!e)
		return 0;
	sleep_lock(&e->pair->lock);
	list_for_each(node, &e->queue) {
		struct chunk *c = list_entry(node, struct chunk, node);
		n += c->len - c->off;
		if (e->pair->type == SOCK_DGRAM)
			break; /* a datagram socket: the next message only */
	}
	sleep_unlock(&e->pair->lock);
	return (int)n;
}

/* read(2) takes no descriptors: those it meets are closed, as Linux. */
static long unix_read(struct file *f, struct uio *u, uint64_t *pos)
{
	bool truncated;
	struct scm_rights *rights = NULL;
	long r = socket_recv(f, u, 0, &truncated, &rights);
	scm_rights_free(rights);
	return r;
}

static long unix_write(struct file *f, struct uio *u, uint64_t *pos)
{
	struct scm_rights *none = NULL;
	return socket_send(f, u, 0, &none);
}

/* Linux's unix_poll: HUP when shut both ways, IN and RDHUP when reads
 * are over, OUT while the peer's queue is at most a quarter full (or a
 * write would fail at once). */
static unsigned unix_poll(struct file *f)
{
	struct unix_end *e = end_of(f);
	if (!e)
		return unix_conn_poll(unix_sock_of(f));
	struct unix_end *to = peer_of(e);
	int shut = load(&e->shut);
	unsigned m = 0;
	if (shut == (RCV_SHUT | SEND_SHUT))
		m |= POLLHUP;
	if (__atomic_load_n(&e->reset, __ATOMIC_ACQUIRE))
		m |= POLLERR;
	if (shut & RCV_SHUT)
		m |= POLLIN | POLLRDNORM | POLLRDHUP;
	if (load_sz(&e->queued))
		m |= POLLIN | POLLRDNORM;
	if (load_sz(&to->queued) * 4 <= SOCKET_QUEUE_MAX || (shut & SEND_SHUT) ||
	    __atomic_load_n(&to->closed, __ATOMIC_ACQUIRE))
		m |= POLLOUT | POLLWRNORM | POLLWRBAND;
	return m;
}

static long unix_ioctl(struct file *f, unsigned cmd, uint64_t arg)
{
	if (cmd != FIONREAD)
		return -ENOTTY;
	return put_user(socket_inq(f), (int *)arg);
}

/* Empty e's queue (lock held); the descriptors it held go on *dropped
 * (a chain through their next fields) for the caller to release. */
static void free_queue(struct unix_end *e, struct scm_rights **dropped)
{
	list_for_each_safe(n, &e->queue) {
		struct scm_rights *r = NULL;
		drop_chunk(e, list_entry(n, struct chunk, node), &r);
		if (r) {
			r->next = *dropped;
			*dropped = r;
		}
	}
}

void unix_end_close(struct unix_end *e, bool unaccepted)
{
	struct unix_pair *p = e->pair;
	struct scm_rights *dropped = NULL;
	sleep_lock(&p->lock);
	__atomic_store_n(&e->closed, true, __ATOMIC_RELEASE);
	if (connection(p) && (unaccepted || !list_empty(&e->queue)))
		__atomic_store_n(&peer_of(e)->reset, true, __ATOMIC_RELEASE);
	free_queue(e, &dropped);
	if (connection(p))
		__atomic_store_n(&peer_of(e)->shut, RCV_SHUT | SEND_SHUT, __ATOMIC_RELEASE);
	bool last = peer_of(e)->closed;
	sleep_unlock(&p->lock);
	if (!last) {
		pair_wake(p);
	} else {
		free_queue(peer_of(e), &dropped);
		kfree(p);
	}
	scm_rights_free(dropped);
}

static void unix_release(struct file *f)
{
	struct unix_sock *s = unix_sock_of(f);
	if (s->end)
		unix_end_close(s->end, false);
	unix_conn_release(s);
	kfree(s);
}

static const struct file_ops unix_fops = {
	.read = unix_read,
	.write = unix_write,
	.poll = unix_poll,
	.ioctl = unix_ioctl,
	.release = unix_release,
};

bool file_is_socket(struct file *f)
{
	return f->ops == &unix_fops;
}

int socket_type(struct file *f)
{
	return unix_sock_of(f)->type;
}

struct file *unix_sock_file(struct unix_sock *s, int flags)
{
	struct inode *ino = anon_inode_new(S_IFSOCK | 0777);
	struct path path = { NULL, ino };
	struct file *f = ino ? file_alloc(&path, FMODE_READ | FMODE_WRITE,
					  (unsigned)(O_RDWR | (flags & O_NONBLOCK)))
			     : NULL;
	inode_put(ino);
	if (f) {
		f->ops = &unix_fops;
		f->priv = s;
	}
	return f;
}

int unix_sock_connect_pair(struct unix_sock *a, struct unix_sock *b)
{
	struct unix_pair *p = kzalloc(sizeof(*p));
	if (!p)
		return -ENOMEM;
	sleeplock_init(&p->lock);
	waitq_init(&p->wq);
	p->type = a->type;
	for (int i = 0; i < 2; i++) {
		p->end[i].pair = p;
		p->end[i].side = i;
		list_init(&p->end[i].queue);
	}
	a->end = &p->end[0];
	b->end = &p->end[1];
	a->state = b->state = UNIX_CONNECTED;
	return 0;
}

int unix_pair_create(int type, int flags, struct file **a, struct file **b)
{
	struct unix_sock *sa = unix_sock_new(type), *sb = unix_sock_new(type);
	struct file *fa = NULL, *fb = NULL;
	if (sa && sb && unix_sock_connect_pair(sa, sb) == 0) {
		sa->peer_cred = sb->peer_cred = unix_current_cred();
		fa = unix_sock_file(sa, flags);
		if (fa)
			sa = NULL; /* the file's now */
		fb = unix_sock_file(sb, flags);
		if (fb)
			sb = NULL;
	}
	if (fa && fb) {
		*a = fa;
		*b = fb;
		return 0;
	}
	/* Out of memory: files release their sockets, the rest goes here;
	 * the pair goes with the second of its ends. */
	file_put(fa);
	file_put(fb);
	struct unix_sock *left[2] = { sa, sb };
	for (int i = 0; i < 2; i++) {
		if (left[i] && left[i]->end)
			unix_end_close(left[i]->end, false);
		kfree(left[i]);
	}
	return -ENOMEM;
}
