/*
 * The socket system calls that make and name connections: socket,
 * bind, listen, connect, accept, accept4, getsockname, getpeername.
 * AF_UNIX only (unix_conn.c); Linux's errnos and their order.
 */
#include "core/mm/mm.h"
#include "socket.h"
#include "sys.h"

#define AF_MAX 46          /* families Linux knows; beyond: EAFNOSUPPORT */
#define SOCKADDR_MAX 128   /* sizeof(struct sockaddr_storage) */

SYSCALL_DEFINE3(socket, int, family, int, type, int, protocol)
{
	int kind = type & SOCK_TYPE_MASK;
	if (family < 0 || family >= AF_MAX)
		return -EAFNOSUPPORT;
	if (type & ~(SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK) || kind > 10)
		return -EINVAL;
	if (family != AF_UNIX)
		return -EAFNOSUPPORT; /* no network here */
	if (protocol && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	if (kind == SOCK_RAW)
		kind = SOCK_DGRAM; /* as Linux's af_unix */
	if (kind != SOCK_STREAM && kind != SOCK_DGRAM && kind != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	struct files *files = current->files;
	int fd = fd_reserve(files, type & SOCK_CLOEXEC);
	if (fd < 0)
		return fd;
	struct file *f = NULL;
	int r = unix_socket_create(kind, (type & SOCK_NONBLOCK) ? O_NONBLOCK : 0, &f);
	fd_commit(files, fd, r ? NULL : f);
	return r ? r : fd;
}

/* A user address into a zeroed sockaddr_un (Linux's move_addr_to_kernel). */
static long addr_in(const void __user *uaddr, int len, struct sockaddr_un *a)
{
	if (len < 0 || len > SOCKADDR_MAX)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	size_t n = (size_t)len < sizeof(*a) ? (size_t)len : sizeof(*a);
	return n && copy_from_user(a, uaddr, n) ? -EFAULT : 0;
}

/* An address out: at most *ulen bytes of it, and its real length. */
static long addr_out(const struct sockaddr_un *a, unsigned len, void __user *uaddr,
		     int __user *ulen)
{
	int room;
	if (get_user(room, ulen))
		return -EFAULT;
	if (room < 0)
		return -EINVAL;
	size_t n = (size_t)room < len ? (size_t)room : len;
	if ((n && copy_to_user(uaddr, a, n)) || put_user((int)len, ulen))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(bind, int, fd, const void __user *, uaddr, int, len)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	struct sockaddr_un a;
	r = addr_in(uaddr, len, &a);
	if (!r)
		r = unix_bind(f, &a, (unsigned)len);
	file_put(f);
	return r;
}

SYSCALL_DEFINE3(connect, int, fd, const void __user *, uaddr, int, len)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	struct sockaddr_un a;
	r = addr_in(uaddr, len, &a);
	if (!r)
		r = unix_connect(f, &a, (unsigned)len);
	file_put(f);
	return r;
}

SYSCALL_DEFINE2(listen, int, fd, int, backlog)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	r = unix_listen(f, backlog);
	file_put(f);
	return r;
}

SYSCALL_DEFINE4(accept4, int, fd, void __user *, uaddr, int __user *, ulen, int, flags)
{
	if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	struct files *files = current->files;
	int nfd = fd_reserve(files, flags & SOCK_CLOEXEC);
	struct file *nf = NULL;
	struct sockaddr_un peer;
	unsigned plen = 0;
	r = nfd < 0 ? nfd : unix_accept(f, (flags & SOCK_NONBLOCK) ? O_NONBLOCK : 0,
					&nf, &peer, &plen);
	file_put(f);
	if (!r && uaddr && ulen) {
		if (!plen) {
			memset(&peer, 0, sizeof(peer));
			peer.sun_family = AF_UNIX;
			plen = offsetof(struct sockaddr_un, sun_path);
		}
		r = addr_out(&peer, plen, uaddr, ulen);
		if (r) {
			file_put(nf);
			nf = NULL;
		}
	}
	if (nfd >= 0)
		fd_commit(files, nfd, r ? NULL : nf);
	return r ? r : nfd;
}

SYSCALL_DEFINE3(accept, int, fd, void __user *, uaddr, int __user *, ulen)
{
	return sys_accept4(fd, uaddr, ulen, 0);
}

static long name_call(int fd, bool peer, void __user *uaddr, int __user *ulen)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	struct sockaddr_un a;
	unsigned len = unix_name(f, peer, &a);
	file_put(f);
	return len ? addr_out(&a, len, uaddr, ulen) : -ENOTCONN;
}

SYSCALL_DEFINE3(getsockname, int, fd, void __user *, uaddr, int __user *, ulen)
{
	return name_call(fd, false, uaddr, ulen);
}

SYSCALL_DEFINE3(getpeername, int, fd, void __user *, uaddr, int __user *, ulen)
{
	return name_call(fd, true, uaddr, ulen);
}
