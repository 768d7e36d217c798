/*
 * socketpair.c: ABI test of socketpair(AF_UNIX): SOCK_STREAM (a byte
 * stream each way: writes coalesce, reads return what is there, EOF
 * after the peer's shutdown or close, EPIPE and SIGPIPE writing after
 * it), SOCK_DGRAM (message boundaries kept, a short read truncates,
 * MSG_TRUNC tells the real length, empty datagrams count) and
 * SOCK_SEQPACKET (messages on a connection); read/write, send/recv
 * with MSG_PEEK, MSG_DONTWAIT, MSG_NOSIGNAL and MSG_WAITALL, poll,
 * shutdown, FIONREAD, SOCK_NONBLOCK and SOCK_CLOEXEC, a megabyte across
 * fork, and the errnos of bad arguments.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

static volatile int sigpipes;

static void on_sigpipe(int sig)
{
	(void)sig;
	sigpipes++;
}

static short revents(int fd)
{
	struct pollfd p = { fd, POLLIN | POLLOUT | POLLRDHUP, 0 };

	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

static void test_stream_basics(void)
{
	int sv[2];
	char buf[64];
	struct stat st;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "SOCK_STREAM pair");
	CHECK(fstat(sv[0], &st) == 0 && S_ISSOCK(st.st_mode), "fstat: a socket");
	CHECK(write(sv[0], "hello", 5) == 5, "write 5 bytes to one end");
	CHECK(read(sv[1], buf, sizeof(buf)) == 5 && memcmp(buf, "hello", 5) == 0,
	      "read them at the other");
	CHECK(write(sv[1], "back", 4) == 4 && read(sv[0], buf, sizeof(buf)) == 4 &&
	      memcmp(buf, "back", 4) == 0, "and the other way");
	CHECK(write(sv[0], "abc", 3) == 3 && write(sv[0], "def", 3) == 3,
	      "two writes");
	int n = 0, r = ioctl(sv[1], FIONREAD, &n);
	CHECK(r == 0 && n == 6, "FIONREAD: 6 (%d)", n);
	CHECK(recv(sv[1], buf, sizeof(buf), MSG_PEEK) == 6 &&
	      memcmp(buf, "abcdef", 6) == 0, "MSG_PEEK sees both, coalesced");
	CHECK(recv(sv[1], buf, 4, 0) == 4 && memcmp(buf, "abcd", 4) == 0,
	      "a short recv takes part");
	CHECK(read(sv[1], buf, sizeof(buf)) == 2 && memcmp(buf, "ef", 2) == 0,
	      "the next read the rest");
	CHECK(revents(sv[1]) == POLLOUT, "poll: writable, nothing to read (%#x)",
	      revents(sv[1]));
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	          "MSG_DONTWAIT on an empty socket");
	CHECK(send(sv[0], "x", 1, 0) == 1 && (revents(sv[1]) & POLLIN),
	      "poll: POLLIN once data is there");
	CHECK(read(sv[1], buf, 1) == 1, "drain");
	close(sv[0]);
	close(sv[1]);
}

static void test_stream_shutdown(void)
{
	int sv[2];
	char buf[16];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	CHECK(write(sv[0], "last", 4) == 4, "write before shutdown");
	CHECK(shutdown(sv[0], SHUT_WR) == 0, "shutdown(SHUT_WR)");
	short r = revents(sv[1]);
	CHECK((r & (POLLIN | POLLRDHUP)) == (POLLIN | POLLRDHUP) && !(r & POLLHUP),
	      "peer polls POLLIN | POLLRDHUP, not POLLHUP (%#x)", r);
	CHECK(read(sv[1], buf, sizeof(buf)) == 4, "the data still arrives");
	CHECK(read(sv[1], buf, sizeof(buf)) == 0, "then EOF");
	CHECK_ERR(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE,
	          "send after SHUT_WR (MSG_NOSIGNAL)");
	int before = sigpipes;
	CHECK_ERR(write(sv[0], "x", 1), EPIPE, "write after SHUT_WR");
	CHECK(sigpipes == before + 1, "raised SIGPIPE");
	CHECK(write(sv[1], "ok", 2) == 2 && read(sv[0], buf, 2) == 2,
	      "the other direction still works");
	CHECK(shutdown(sv[0], SHUT_RD) == 0, "shutdown(SHUT_RD) too");
	r = revents(sv[0]);
	CHECK((r & (POLLHUP | POLLIN | POLLRDHUP)) == (POLLHUP | POLLIN | POLLRDHUP),
	      "both ways shut: POLLHUP | POLLIN | POLLRDHUP (%#x)", r);
	CHECK(read(sv[0], buf, sizeof(buf)) == 0, "read after SHUT_RD: EOF");
	CHECK_ERR(write(sv[1], "x", 1), EPIPE, "peer writes to a SHUT_RD end");
	CHECK_ERR(shutdown(sv[0], 3), EINVAL, "shutdown how 3");
	close(sv[0]);
	close(sv[1]);
}

static void test_stream_close(void)
{
	int sv[2];
	char buf[16];

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	CHECK(write(sv[0], "bye", 3) == 3, "write, then close");
	close(sv[0]);
	short r = revents(sv[1]);
	CHECK((r & (POLLHUP | POLLIN | POLLRDHUP)) == (POLLHUP | POLLIN | POLLRDHUP),
	      "the survivor polls POLLHUP | POLLIN | POLLRDHUP (%#x)", r);
	CHECK(read(sv[1], buf, sizeof(buf)) == 3, "reads what was sent");
	CHECK(read(sv[1], buf, sizeof(buf)) == 0, "then EOF");
	CHECK_ERR(send(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE, "send to a closed peer");
	close(sv[1]);
}

/* Fill a non-blocking end, then a reader frees room. */
static void test_nonblocking(void)
{
	int sv[2];
	static char chunk[4096], sink[65536];
	long total = 0, n;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
			 sv) == 0, "SOCK_NONBLOCK | SOCK_CLOEXEC");
	CHECK((fcntl(sv[0], F_GETFL) & O_NONBLOCK) &&
	      (fcntl(sv[1], F_GETFD) & FD_CLOEXEC), "O_NONBLOCK and FD_CLOEXEC set");
	while ((n = write(sv[0], chunk, sizeof(chunk))) > 0 && total < (64L << 20))
		total += n;
	CHECK(n < 0 && errno == EAGAIN && total >= 4096,
	      "writes until EAGAIN (%ld bytes queued)", total);
	CHECK(!(revents(sv[0]) & POLLOUT), "full: no POLLOUT");
	long got = 0;
	while ((n = read(sv[1], sink, sizeof(sink))) > 0)
		got += n;
	CHECK(got == total && n < 0 && errno == EAGAIN,
	      "reads all %ld back, then EAGAIN", got);
	CHECK(revents(sv[0]) & POLLOUT, "POLLOUT again");
	close(sv[0]);
	close(sv[1]);
}

/* A megabyte from a child, read with MSG_WAITALL in one call. */
static void test_across_fork(void)
{
	int sv[2];
	const long size = 1 << 20;
	char *buf = malloc((size_t)size);
	int st = -1;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	pid_t pid = fork();
	if (pid == 0) {
		close(sv[1]);
		for (long i = 0; i < size; i++)
			buf[i] = (char)(i * 7);
		_exit(write(sv[0], buf, (size_t)size) == size ? 0 : 1);
	}
	close(sv[0]);
	memset(buf, 0, (size_t)size);
	long n = recv(sv[1], buf, (size_t)size, MSG_WAITALL);
	int same = n == size;
	for (long i = 0; same && i < size; i++)
		same = buf[i] == (char)(i * 7);
	waitpid(pid, &st, 0);
	CHECK(same && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "1 MiB from a child in one MSG_WAITALL recv (%ld)", n);
	close(sv[1]);
	free(buf);
}

static void test_dgram(int type, const char *name)
{
	int sv[2];
	char buf[64];
	int n = 0;

	if (!CHECK(socketpair(AF_UNIX, type, 0, sv) == 0, "%s pair", name))
		return;
	CHECK(send(sv[0], "ab", 2, 0) == 2 && send(sv[0], "cde", 3, 0) == 3,
	      "%s: two messages", name);
	/* FIONREAD: a datagram socket's next message, a seqpacket's all. */
	int r = ioctl(sv[1], FIONREAD, &n), want = type == SOCK_DGRAM ? 2 : 5;
	CHECK(r == 0 && n == want, "%s: FIONREAD %d (%d)", name, want, n);
	CHECK(recv(sv[1], buf, sizeof(buf), 0) == 2, "%s: the first alone", name);
	CHECK(read(sv[1], buf, sizeof(buf)) == 3 && memcmp(buf, "cde", 3) == 0,
	      "%s: then the second", name);
	CHECK(write(sv[0], "0123456789", 10) == 10, "%s: 10 bytes", name);
	CHECK(recv(sv[1], buf, 4, MSG_PEEK | MSG_TRUNC) == 10,
	      "%s: MSG_PEEK | MSG_TRUNC gives the real length", name);
	CHECK(recv(sv[1], buf, 4, 0) == 4 && memcmp(buf, "0123", 4) == 0,
	      "%s: a 4-byte read takes 4", name);
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	          "the rest was dropped");
	CHECK(send(sv[0], "", 0, 0) == 0, "%s: an empty message", name);
	CHECK(revents(sv[1]) & POLLIN, "%s: polls readable", name);
	CHECK(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT) == 0, "%s: reads as 0", name);
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	          "and is gone");
	CHECK(shutdown(sv[0], SHUT_WR) == 0, "%s: shutdown(SHUT_WR)", name);
	CHECK_ERR(send(sv[0], "x", 1, MSG_NOSIGNAL), EPIPE, "send after SHUT_WR");
	close(sv[0]);
	close(sv[1]);
}

static void test_dgram_close(void)
{
	int sv[2];
	char buf[8];

	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	CHECK(send(sv[0], "m", 1, 0) == 1, "dgram: a message, then close the sender");
	close(sv[0]);
	CHECK(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT) == 1,
	      "dgram: the message is still there");
	CHECK_ERR(recv(sv[1], buf, sizeof(buf), MSG_DONTWAIT), EAGAIN,
	          "dgram: then nothing (no EOF for datagrams)");
	CHECK_ERR(send(sv[1], "x", 1, MSG_NOSIGNAL), ECONNREFUSED,
	          "dgram: send to a closed peer");
	close(sv[1]);

	socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv);
	close(sv[0]);
	CHECK(recv(sv[1], buf, sizeof(buf), 0) == 0, "seqpacket: EOF after close");
	CHECK_ERR(send(sv[1], "x", 1, MSG_NOSIGNAL), EPIPE,
	          "seqpacket: send to a closed peer");
	close(sv[1]);
}

static void test_errors(void)
{
	int sv[2], p[2];
	char buf[4];
	int *volatile bad = (int *)8;   /* volatile: the compiler may not judge it */

	CHECK_ERR(socketpair(12345, SOCK_STREAM, 0, sv), EAFNOSUPPORT,
	          "an unknown family");
	CHECK_ERR(socketpair(AF_INET, SOCK_STREAM, 0, sv), EOPNOTSUPP,
	          "AF_INET has no pairs");
	CHECK_ERR(socketpair(AF_UNIX, SOCK_RDM, 0, sv), ESOCKTNOSUPPORT,
	          "AF_UNIX SOCK_RDM");
	int t = 0;
	socklen_t tl = sizeof(t);
	CHECK(socketpair(AF_UNIX, SOCK_RAW, 0, sv) == 0 &&
	      getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &t, &tl) == 0 && t == SOCK_DGRAM,
	      "AF_UNIX SOCK_RAW makes datagram sockets (SO_TYPE %d)", t);
	close(sv[0]);
	close(sv[1]);
	CHECK_ERR(socketpair(AF_UNIX, SOCK_STREAM, 5, sv), EPROTONOSUPPORT,
	          "protocol 5");
	CHECK_ERR(socketpair(AF_UNIX, SOCK_STREAM | 0x4000000, 0, sv), EINVAL,
	          "an unknown type flag");
	CHECK_ERR(socketpair(AF_UNIX, SOCK_STREAM, 0, bad), EFAULT,
	          "a bad sv pointer");
	CHECK(pipe(p) == 0, "a pipe");
	CHECK_ERR(recv(p[0], buf, sizeof(buf), MSG_DONTWAIT), ENOTSOCK,
	          "recv on a pipe");
	CHECK_ERR(shutdown(p[0], SHUT_RD), ENOTSOCK, "shutdown of a pipe");
	CHECK_ERR(shutdown(999, SHUT_RD), EBADF, "shutdown of a closed fd");
	close(p[0]);
	close(p[1]);
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	CHECK_ERR(send(sv[0], (void *)bad, 4, 0), EFAULT, "send from a bad pointer");
	CHECK(send(sv[0], "abcd", 4, 0) == 4, "send");
	CHECK_ERR(recv(sv[1], (void *)bad, 4, 0), EFAULT, "recv into a bad pointer");
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigpipe;
	sigaction(SIGPIPE, &sa, NULL);
	test_stream_basics();
	test_stream_shutdown();
	test_stream_close();
	test_nonblocking();
	test_across_fork();
	test_dgram(SOCK_DGRAM, "dgram");
	test_dgram(SOCK_SEQPACKET, "seqpacket");
	test_dgram_close();
	test_errors();
	return abi_done("socketpair");
}
