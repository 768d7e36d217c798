/*
 * The socket system calls: socketpair, sendto, recvfrom, sendmsg,
 * recvmsg, shutdown, getsockopt. The only sockets are AF_UNIX pairs
 * (socket.h), connected and without addresses: a destination address is
 * EISCONN, a source address comes back empty, and control messages
 * (SCM_RIGHTS, SCM_CREDENTIALS) are not carried (EOPNOTSUPP).
 */
#include "mm/mm.h"
#include "socket.h"
#include "sys.h"

#define AF_MAX 46 /* families Linux knows; beyond: EAFNOSUPPORT */

/* socketpair's checks, in Linux's order. */
static int pair_type(int domain, int type, int protocol, int *kind)
{
	if (type & ~(SOCK_TYPE_MASK | SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	if (domain == AF_INET || domain == AF_INET6)
		return -EOPNOTSUPP; /* those families make no pairs */
	if (domain != AF_UNIX)
		return -EAFNOSUPPORT;
	if (protocol && protocol != PF_UNIX)
		return -EPROTONOSUPPORT;
	*kind = type & SOCK_TYPE_MASK;
	if (*kind == SOCK_RAW)
		*kind = SOCK_DGRAM; /* as Linux's af_unix */
	if (*kind != SOCK_STREAM && *kind != SOCK_DGRAM && *kind != SOCK_SEQPACKET)
		return -ESOCKTNOSUPPORT;
	return 0;
}

SYSCALL_DEFINE4(socketpair, int, domain, int, type, int, protocol, int __user *, usv)
{
	int kind;
	long r = pair_type(domain, type, protocol, &kind);
	if (r)
		return r;
	struct files *files = current->files;
	bool cloexec = type & SOCK_CLOEXEC;
	struct file *a, *b;
	int fds[2] = { fd_reserve(files, cloexec), -1 };
	if (fds[0] >= 0)
		fds[1] = fd_reserve(files, cloexec);
	r = fds[0] < 0 ? fds[0] : fds[1] < 0 ? fds[1] : 0;
	if (!r)
		r = unix_pair_create(kind, (type & SOCK_NONBLOCK) ? O_NONBLOCK : 0, &a, &b);
	if (!r && copy_to_user(usv, fds, sizeof(fds))) {
		file_put(a);
		file_put(b);
		r = -EFAULT;
	}
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			fd_commit(files, fds[i], r ? NULL : i ? b : a);
	return r;
}

/* The socket behind fd (reference) or NULL with *err EBADF/ENOTSOCK. */
static struct file *socket_file(uint64_t fd, long *err)
{
	struct file *f = task_file_io(fd);
	*err = f ? -ENOTSOCK : -EBADF;
	if (f && !file_is_socket(f)) {
		file_put(f);
		f = NULL;
	}
	return f;
}

static long send_uio(uint64_t fd, struct uio *u, int flags)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	r = uio_user_ok(u) ? socket_send(f, u, flags) : -EFAULT;
	file_put(f);
	return r;
}

static long recv_uio(uint64_t fd, struct uio *u, int flags, bool *truncated)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	r = uio_user_ok(u) ? socket_recv(f, u, flags, truncated) : -EFAULT;
	file_put(f);
	return r;
}

SYSCALL_DEFINE6(sendto, int, fd, void __user *, buf, size_t, len, unsigned int, flags,
		uint64_t, uaddr, int, addrlen)
{
	if (uaddr && addrlen)
		return -EISCONN; /* every socket is connected */
	struct iovec seg;
	struct uio u;
	uio_init(&u, &seg, buf, len, true);
	uio_clamp(&u, MAX_RW_COUNT);
	return send_uio(fd, &u, (int)flags);
}

SYSCALL_DEFINE6(recvfrom, int, fd, void __user *, buf, size_t, len, unsigned int, flags,
		uint64_t, uaddr, int __user *, uaddrlen)
{
	struct iovec seg;
	struct uio u;
	bool truncated;
	uio_init(&u, &seg, buf, len, true);
	uio_clamp(&u, MAX_RW_COUNT);
	long r = recv_uio(fd, &u, (int)flags, &truncated);
	if (r >= 0 && uaddr && uaddrlen && put_user(0u, (unsigned *)uaddrlen))
		return -EFAULT; /* no source address: length 0 */
	return r;
}

SYSCALL_DEFINE3(sendmsg, int, fd, struct msghdr __user *, umsg, unsigned int, flags)
{
	struct msghdr m;
	struct iovec *iov;
	if (copy_from_user(&m, umsg, sizeof(m)))
		return -EFAULT;
	if (m.msg_name && m.msg_namelen)
		return -EISCONN;
	if (m.msg_controllen)
		return -EOPNOTSUPP;
	long r = iov_in((uint64_t)m.msg_iov, m.msg_iovlen, &iov);
	if (r < 0)
		return r;
	struct uio u = { iov, (unsigned)m.msg_iovlen, 0, (size_t)r, true };
	r = send_uio(fd, &u, (int)flags);
	kfree(iov);
	return r;
}

SYSCALL_DEFINE3(recvmsg, int, fd, struct msghdr __user *, umsg, unsigned int, flags)
{
	struct msghdr m;
	struct iovec *iov;
	bool truncated;
	if (copy_from_user(&m, umsg, sizeof(m)))
		return -EFAULT;
	long r = iov_in((uint64_t)m.msg_iov, m.msg_iovlen, &iov);
	if (r < 0)
		return r;
	struct uio u = { iov, (unsigned)m.msg_iovlen, 0, (size_t)r, true };
	r = recv_uio(fd, &u, (int)flags, &truncated);
	kfree(iov);
	if (r < 0)
		return r;
	m.msg_namelen = 0;
	m.msg_controllen = 0;
	m.msg_flags = truncated ? MSG_TRUNC : 0;
	return copy_to_user(umsg, &m, sizeof(m)) ? -EFAULT : r;
}

SYSCALL_DEFINE2(shutdown, int, fd, int, how)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	r = how < SHUT_RD || how > SHUT_RDWR ? -EINVAL : socket_shutdown(f, how);
	file_put(f);
	return r;
}

/* SOL_SOCKET options that mean something for a pair; -ENOPROTOOPT else. */
static long option_value(struct file *f, int level, int name, int *val)
{
	if (level != SOL_SOCKET)
		return -ENOPROTOOPT;
	switch (name) {
	case SO_TYPE:
		*val = socket_type(f);
		return 0;
	case SO_DOMAIN:
		*val = AF_UNIX;
		return 0;
	case SO_PROTOCOL:
	case SO_ERROR:
	case SO_ACCEPTCONN:
		*val = 0;
		return 0;
	case SO_SNDBUF:
	case SO_RCVBUF:
		*val = SOCKET_QUEUE_MAX;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

SYSCALL_DEFINE5(getsockopt, int, fd, int, level, int, optname, void __user *, optval,
		int __user *, optlen)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	int val = 0, len;
	r = option_value(f, level, optname, &val);
	file_put(f);
	if (r)
		return r;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (len > (int)sizeof(val))
		len = sizeof(val);
	if (copy_to_user(optval, &val, (size_t)len) || put_user(len, optlen))
		return -EFAULT;
	return 0;
}
