/*
 * The socket system calls that move data or options: socketpair,
 * sendto, recvfrom, sendmsg, recvmsg, shutdown, getsockopt, setsockopt.
 * The only sockets are AF_UNIX (socket.h); data goes over connections,
 * so a destination address is EISCONN and a source address comes back
 * empty. SCM_RIGHTS descriptors travel (scm.c). socket, bind, listen,
 * connect, accept and the names: sys_unix.c.
 */
#include "core/mm/mm.h"
#include "scm.h"
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

struct file *socket_file(uint64_t fd, long *err)
{
	struct file *f = task_file_io(fd);
	*err = f ? -ENOTSOCK : -EBADF;
	if (f && !file_is_socket(f)) {
		file_put(f);
		f = NULL;
	}
	return f;
}

/* Send u with the descriptors in *rights (consumed either way). */
static long send_uio(uint64_t fd, struct uio *u, int flags, struct scm_rights **rights)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (f) {
		r = uio_user_ok(u) ? socket_send(f, u, flags, rights) : -EFAULT;
		file_put(f);
	}
	scm_rights_free(*rights); /* not sent */
	*rights = NULL;
	return r;
}

/* Receive into u; descriptors that came go to *rights, or are closed
 * when rights is NULL. */
static long recv_uio(uint64_t fd, struct uio *u, int flags, bool *truncated,
		     struct scm_rights **rights)
{
	long r;
	struct scm_rights *got = NULL;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	r = uio_user_ok(u) ? socket_recv(f, u, flags, truncated, &got) : -EFAULT;
	file_put(f);
	if (rights)
		*rights = got;
	else
		scm_rights_free(got);
	return r;
}

SYSCALL_DEFINE6(sendto, int, fd, void __user *, buf, size_t, len, unsigned int, flags,
		uint64_t, uaddr, int, addrlen)
{
	if (uaddr && addrlen)
		return -EISCONN; /* every socket is connected */
	struct iovec seg;
	struct uio u;
	struct scm_rights *none = NULL;
	uio_init(&u, &seg, buf, len, true);
	uio_clamp(&u, MAX_RW_COUNT);
	return send_uio(fd, &u, (int)flags, &none);
}

SYSCALL_DEFINE6(recvfrom, int, fd, void __user *, buf, size_t, len, unsigned int, flags,
		uint64_t, uaddr, int __user *, uaddrlen)
{
	struct iovec seg;
	struct uio u;
	bool truncated;
	uio_init(&u, &seg, buf, len, true);
	uio_clamp(&u, MAX_RW_COUNT);
	long r = recv_uio(fd, &u, (int)flags, &truncated, NULL);
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
	long r = iov_in((uint64_t)m.msg_iov, m.msg_iovlen, &iov);
	if (r < 0)
		return r;
	struct uio u = { iov, (unsigned)m.msg_iovlen, 0, (size_t)r, true };
	struct scm_rights *rights;
	long c = scm_from_user(m.msg_control, m.msg_controllen, &rights);
	r = c ? c : send_uio(fd, &u, (int)flags, &rights);
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
	struct scm_rights *rights = NULL;
	r = recv_uio(fd, &u, (int)flags, &truncated, &rights);
	kfree(iov);
	if (r < 0)
		return r;
	m.msg_namelen = 0;
	m.msg_flags = truncated ? MSG_TRUNC : 0;
	long used = scm_to_user(rights, m.msg_control, m.msg_controllen,
				flags & MSG_CMSG_CLOEXEC, &m.msg_flags);
	if (used < 0)
		return used;
	m.msg_controllen = (size_t)used;
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
	case SO_ACCEPTCONN:
		*val = unix_listening(f);
		return 0;
	case SO_PROTOCOL:
	case SO_ERROR:
	case SO_PASSCRED:
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
	struct ucred cred;
	bool peercred = level == SOL_SOCKET && optname == SO_PEERCRED;
	r = peercred ? unix_peer_cred(f, &cred) : option_value(f, level, optname, &val);
	file_put(f);
	if (r)
		return r;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	size_t size = peercred ? sizeof(cred) : sizeof(val);
	if ((size_t)len > size)
		len = (int)size;
	if (copy_to_user(optval, peercred ? (void *)&cred : (void *)&val, (size_t)len) ||
	    put_user(len, optlen))
		return -EFAULT;
	return 0;
}

/* Options a program sets and we may ignore: buffer sizes (ours are
 * fixed) and SO_PASSCRED (credentials are not carried); others
 * ENOPROTOOPT. */
SYSCALL_DEFINE5(setsockopt, int, fd, int, level, int, optname, const void __user *, optval,
		int, optlen)
{
	long r;
	struct file *f = socket_file(fd, &r);
	if (!f)
		return r;
	file_put(f);
	if (level != SOL_SOCKET ||
	    (optname != SO_SNDBUF && optname != SO_RCVBUF && optname != SO_PASSCRED))
		return -ENOPROTOOPT;
	int val;
	if (optlen < (int)sizeof(int))
		return -EINVAL;
	return get_user(val, (const int __user *)optval) ? -EFAULT : 0;
}
