/*
 * unixsock.c: ABI test of AF_UNIX sockets with names: socket(), bind to
 * a path (a socket file in the tree) and to an abstract name,
 * listen/connect/accept/accept4, getsockname/getpeername, SO_PEERCRED
 * across fork, poll on a listener, SOCK_SEQPACKET's messages over a
 * connection, and SCM_RIGHTS: a pipe, then a perf event's descriptor
 * passed to another process which reads and disables the counter; the
 * errnos of bad calls (EAFNOSUPPORT, EINVAL, ESOCKTNOSUPPORT,
 * EPROTONOSUPPORT, EADDRINUSE, ENOENT, ECONNREFUSED, EPROTOTYPE,
 * EAGAIN, ENOTCONN, EBADF, ENOTSOCK).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "abi.h"

#define NAME_OFF offsetof(struct sockaddr_un, sun_path)

static socklen_t path_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	strcpy(a->sun_path, path);
	return (socklen_t)(NAME_OFF + strlen(path) + 1);
}

static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path + 1, name, strlen(name));
	return (socklen_t)(NAME_OFF + 1 + strlen(name));
}

static void test_socket_errors(void)
{
	CHECK_ERR(socket(200, SOCK_STREAM, 0), EAFNOSUPPORT, "socket(family 200)");
	CHECK_ERR(socket(AF_UNIX, 99, 0), EINVAL, "socket(AF_UNIX, type 99)");
	CHECK_ERR(socket(AF_UNIX, SOCK_RDM, 0), ESOCKTNOSUPPORT, "socket(AF_UNIX, SOCK_RDM)");
	CHECK_ERR(socket(AF_UNIX, SOCK_STREAM, 7), EPROTONOSUPPORT, "socket(protocol 7)");
	CHECK_ERR(bind(0x7fff, NULL, 0), EBADF, "bind on a bad fd");
	CHECK_ERR(listen(1, 1), ENOTSOCK, "listen on stdout");
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(s >= 0 && fcntl(s, F_GETFD) == FD_CLOEXEC, "socket(SOCK_CLOEXEC)");
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	int r = getsockname(s, (struct sockaddr *)&a, &len);
	CHECK(r == 0 && len == NAME_OFF &&
	      a.sun_family == AF_UNIX, "getsockname unbound: family only (%u)", len);
	len = sizeof(a);
	CHECK_ERR(getpeername(s, (struct sockaddr *)&a, &len), ENOTCONN,
		  "getpeername unconnected");
	CHECK_ERR(listen(s, 4), EINVAL, "listen unbound");
	char c;
	CHECK_ERR(send(s, "x", 1, MSG_NOSIGNAL), ENOTCONN, "send unconnected");
	CHECK_ERR(recv(s, &c, 1, MSG_DONTWAIT), EINVAL, "recv unconnected");
	a.sun_family = AF_INET;
	CHECK_ERR(bind(s, (struct sockaddr *)&a, sizeof(a)), EINVAL, "bind AF_INET address");
	CHECK_ERR(connect(s, (struct sockaddr *)&a, 1), EINVAL, "connect short address");
	close(s);
}

static void test_path(const char *path)
{
	struct sockaddr_un a, got;
	socklen_t alen = path_addr(&a, path), len;
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(connect(c, (struct sockaddr *)&a, alen), ENOENT, "connect to no file");
	CHECK(bind(l, (struct sockaddr *)&a, alen) == 0, "bind to %s", path);
	struct stat st;
	CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode), "it is a socket file");
	CHECK_ERR(bind(l, (struct sockaddr *)&a, alen), EADDRINUSE, "bind again: the path is taken");
	struct sockaddr_un a2;
	char path2[80];
	snprintf(path2, sizeof(path2), "%s.2", path);
	socklen_t alen2 = path_addr(&a2, path2);
	CHECK_ERR(bind(l, (struct sockaddr *)&a2, alen2), EINVAL, "bind a bound socket elsewhere");
	CHECK_ERR(stat(path2, &st), ENOENT, "and no file is left there");
	int other = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(bind(other, (struct sockaddr *)&a, alen), EADDRINUSE, "bind a taken path");
	close(other);
	len = sizeof(got);
	int r = getsockname(l, (struct sockaddr *)&got, &len);
	CHECK(r == 0 && len == alen && strcmp(got.sun_path, path) == 0,
	      "getsockname: the path (%u)", len);
	CHECK_ERR(connect(c, (struct sockaddr *)&a, alen), ECONNREFUSED,
		  "connect before listen");
	CHECK(listen(l, 2) == 0, "listen");
	int v = 0;
	len = sizeof(v);
	CHECK(getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == 0 && v == 1,
	      "SO_ACCEPTCONN 1");
	fcntl(l, F_SETFL, O_NONBLOCK);
	/* The system call itself: musl retries a refused accept4 as accept. */
	CHECK_ERR(syscall(SYS_accept4, l, NULL, NULL, SOCK_NONBLOCK | 0x8), EINVAL,
		  "accept4 bad flags");
	CHECK_ERR(accept(l, NULL, NULL), EAGAIN, "accept with none pending (O_NONBLOCK)");
	struct pollfd p = { l, POLLIN, 0 };
	CHECK(poll(&p, 1, 0) == 0, "poll: a listener with none pending is not readable");
	int sp = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK_ERR(connect(sp, (struct sockaddr *)&a, alen), EPROTOTYPE,
		  "connect a seqpacket socket to a stream listener");
	close(sp);
	CHECK(connect(c, (struct sockaddr *)&a, alen) == 0, "connect");
	CHECK_ERR(connect(c, (struct sockaddr *)&a, alen), EISCONN, "connect again");
	CHECK(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN), "poll: now it is");
	len = sizeof(got);
	int s = accept4(l, (struct sockaddr *)&got, &len, SOCK_CLOEXEC);
	CHECK(s >= 0 && fcntl(s, F_GETFD) == FD_CLOEXEC, "accept4(SOCK_CLOEXEC)");
	CHECK(len == NAME_OFF, "accept: the peer is unnamed (%u)", len);
	len = sizeof(got);
	CHECK(getpeername(c, (struct sockaddr *)&got, &len) == 0 && len == alen &&
	      strcmp(got.sun_path, path) == 0, "client's getpeername: the path");
	len = sizeof(got);
	CHECK(getsockname(s, (struct sockaddr *)&got, &len) == 0 && len == alen,
	      "accepted socket's getsockname: the path");
	char buf[16];
	CHECK(write(c, "ping", 4) == 4 && read(s, buf, sizeof(buf)) == 4 &&
	      memcmp(buf, "ping", 4) == 0, "client to server");
	CHECK(send(s, "pong", 4, 0) == 4 && recv(c, buf, sizeof(buf), 0) == 4 &&
	      memcmp(buf, "pong", 4) == 0, "server to client");
	CHECK(shutdown(s, SHUT_WR) == 0 && read(c, buf, sizeof(buf)) == 0,
	      "shutdown: the client reads EOF");
	close(s);
	close(c);
	close(l);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(connect(c, (struct sockaddr *)&a, alen), ECONNREFUSED,
		  "connect after the listener closed (the file stays)");
	close(c);
	CHECK(unlink(path) == 0, "unlink the socket file");
	int f = open(path, O_CREAT | O_WRONLY, 0600);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK_ERR(connect(c, (struct sockaddr *)&a, alen), ECONNREFUSED,
		  "connect to a regular file");
	close(c);
	close(f);
	unlink(path);
}

static void test_abstract_peercred(void)
{
	char name[64];
	snprintf(name, sizeof(name), "baremon-unixsock-%d", (int)getpid());
	struct sockaddr_un a, got;
	socklen_t alen = abstract_addr(&a, name), len;
	int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK(bind(l, (struct sockaddr *)&a, alen) == 0 && listen(l, 1) == 0,
	      "bind and listen on an abstract name");
	int dup = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK_ERR(bind(dup, (struct sockaddr *)&a, alen), EADDRINUSE,
		  "the same abstract name again");
	close(dup);
	len = sizeof(got);
	int r = getsockname(l, (struct sockaddr *)&got, &len);
	CHECK(r == 0 && len == alen && got.sun_path[0] == 0 && memcmp(got.sun_path + 1, name, strlen(name)) == 0,
	      "getsockname: the abstract name (%u)", len);
	pid_t parent = getpid();
	pid_t child = fork();
	if (child == 0) {
		int c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (connect(c, (struct sockaddr *)&a, alen) != 0)
			_exit(2);
		struct ucred cr;
		socklen_t cl = sizeof(cr);
		if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
		    cr.pid != parent)
			_exit(3);
		if (send(c, "one", 3, 0) != 3 || send(c, "two!", 4, 0) != 4)
			_exit(4);
		char b;
		_exit(read(c, &b, 1) == 0 ? 0 : 5); /* until the server closes */
	}
	len = sizeof(got);
	int s = accept(l, (struct sockaddr *)&got, &len);
	CHECK(s >= 0, "accept the child's connection");
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	CHECK(getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cl == sizeof(cr) &&
	      cr.pid == child && cr.uid == geteuid() && cr.gid == getegid(),
	      "SO_PEERCRED: the child's pid and ids (%d)", cr.pid);
	char buf[16];
	CHECK(recv(s, buf, sizeof(buf), 0) == 3 && recv(s, buf, sizeof(buf), 0) == 4,
	      "SOCK_SEQPACKET keeps the messages apart");
	close(s);
	int st = -1;
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child saw our credentials and EOF (%d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(l);
}

/* Linux's resets: a connection its listener never accepted, and one
 * whose peer closed with data unread, read ECONNRESET once, then EOF. */
static void test_resets(void)
{
	char name[64], b[4];
	snprintf(name, sizeof(name), "baremon-reset-%d", (int)getpid());
	struct sockaddr_un a;
	socklen_t alen = abstract_addr(&a, name);
	int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(bind(l, (struct sockaddr *)&a, alen) == 0 && listen(l, 1) == 0 &&
	      connect(c, (struct sockaddr *)&a, alen) == 0, "connect, not accepted");
	close(l);
	struct pollfd p = { c, POLLIN, 0 };
	CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLERR), "poll: POLLERR (%#x)", p.revents);
	CHECK_ERR(read(c, b, sizeof(b)), ECONNRESET, "the listener closed: read");
	CHECK(read(c, b, sizeof(b)) == 0, "then EOF");
	close(c);
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && write(sv[0], "xy", 2) == 2,
	      "a pair, two bytes sent");
	close(sv[1]);
	CHECK_ERR(read(sv[0], b, sizeof(b)), ECONNRESET, "the peer closed without reading them");
	CHECK(read(sv[0], b, sizeof(b)) == 0, "then EOF");
	close(sv[0]);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && write(sv[0], "xy", 2) == 2 &&
	      read(sv[1], b, 2) == 2, "a pair, two bytes sent and read");
	close(sv[1]);
	CHECK(read(sv[0], b, sizeof(b)) == 0, "the peer closed after reading: EOF");
	close(sv[0]);
}

/* Send fd over sock with SCM_RIGHTS. */
static int send_fd(int sock, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	memset(ctl, 0, sizeof(ctl));
	struct iovec iov = { "F", 1 };
	struct msghdr m = { 0 };
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return (int)sendmsg(sock, &m, 0);
}

/* Receive one descriptor (-1 if none came); *flags gets msg_flags. */
static int recv_fd(int sock, size_t ctl_len, int *flags)
{
	char ctl[64], b;
	memset(ctl, 0, sizeof(ctl));
	struct iovec iov = { &b, 1 };
	struct msghdr m = { 0 };
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = ctl_len;
	if (recvmsg(sock, &m, 0) != 1)
		return -2;
	*flags = m.msg_flags;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static void test_scm_rights(void)
{
	int sv[2], pp[2], flags = 0;
	char buf[8];
	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(pp) == 0,
		   "a socketpair and a pipe"))
		return;
	CHECK(send_fd(sv[0], pp[1]) == 1, "sendmsg SCM_RIGHTS: the pipe's write end");
	int got = recv_fd(sv[1], 64, &flags);
	CHECK(got >= 0 && got != pp[1] && flags == 0, "recvmsg: a new descriptor (%d)", got);
	CHECK(write(got, "via", 3) == 3 && read(pp[0], buf, sizeof(buf)) == 3 &&
	      memcmp(buf, "via", 3) == 0, "it is the same pipe");
	close(got);
	CHECK(send_fd(sv[0], pp[1]) == 1, "send it again");
	got = recv_fd(sv[1], sizeof(struct cmsghdr), &flags);
	CHECK(got == -1 && (flags & MSG_CTRUNC), "no room for it: MSG_CTRUNC");
	CHECK_ERR(send_fd(sv[0], 0x7ff0), EBADF, "SCM_RIGHTS with a bad descriptor");
	CHECK(send_fd(sv[0], pp[1]) == 1 && read(sv[1], buf, 1) == 1,
	      "read(2) takes the byte (and closes what came with it)");
	close(pp[1]);
	CHECK(read(pp[0], buf, 1) == 0, "so the pipe has no writer left");
	close(pp[0]);
	close(sv[0]);
	close(sv[1]);
}

static void spin(void)
{
	for (volatile int i = 0; i < 3000000; i++)
		;
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;
	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

/* A perf event's descriptor passed to a child, which reads the count
 * and disables the counter for us. */
static void test_perf_fd(void)
{
	int sv[2];
	if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair"))
		return;
	pid_t child = fork();
	if (child == 0) {
		int flags = 0;
		int fd = recv_fd(sv[1], 64, &flags);
		if (fd < 0)
			_exit(2);
		uint64_t v = read_count(fd);
		if (v == 0)
			_exit(3);
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) != 0)
			_exit(4);
		_exit(write(sv[1], "d", 1) == 1 ? 0 : 5);
	}
	struct perf_event_attr at;
	memset(&at, 0, sizeof(at));
	at.size = sizeof(at);
	at.type = PERF_TYPE_SOFTWARE;
	at.config = PERF_COUNT_SW_TASK_CLOCK;
	int fd = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
	if (!CHECK(fd >= 0, "perf_event_open(task-clock) on ourselves")) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return;
	}
	spin();
	CHECK(send_fd(sv[0], fd) == 1, "send the perf fd to the child");
	char b;
	CHECK(read(sv[0], &b, 1) == 1, "the child used it");
	int st = -1;
	waitpid(child, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child read a count and disabled the event (%d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	uint64_t a = read_count(fd);
	spin();
	uint64_t z = read_count(fd);
	CHECK(a > 0 && a == z, "our counter stopped when the child disabled it (%llu, %llu)",
	      (unsigned long long)a, (unsigned long long)z);
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/unixsock.%d", (int)getpid());
	test_socket_errors();
	test_path(path);
	test_abstract_peercred();
	test_resets();
	test_scm_rights();
	test_perf_fd();
	return abi_done("unixsock");
}
