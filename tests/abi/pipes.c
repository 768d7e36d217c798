/*
 * pipes.c: ABI test of pipes: data in order, short reads, end of file
 * once every writer is gone, EPIPE and SIGPIPE once every reader is
 * gone, O_NONBLOCK and O_CLOEXEC from pipe2, capacity, poll and select,
 * and pipes between a parent and a child.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

static void test_basic(void)
{
	int p[2];
	char buf[16];
	struct stat st;

	CHECK(pipe(p) == 0 && p[0] >= 0 && p[1] >= 0, "pipe");
	CHECK(write(p[1], "hello", 5) == 5, "write 5 bytes");
	CHECK(read(p[0], buf, 3) == 3 && memcmp(buf, "hel", 3) == 0,
	      "read the first 3");
	CHECK(write(p[1], "!", 1) == 1, "write 1 more");
	CHECK(read(p[0], buf, sizeof(buf)) == 3 && memcmp(buf, "lo!", 3) == 0,
	      "a read returns what is there, in order");
	CHECK(fstat(p[0], &st) == 0 && S_ISFIFO(st.st_mode),
	      "fstat says FIFO");
	CHECK_ERR(lseek(p[0], 0, SEEK_SET), ESPIPE, "lseek on a pipe");
	CHECK_ERR(write(p[0], "x", 1), EBADF, "write to the read end");
	CHECK_ERR(read(p[1], buf, 1), EBADF, "read from the write end");
	CHECK(close(p[1]) == 0, "close the write end");
	CHECK(read(p[0], buf, sizeof(buf)) == 0, "then read gives end of file");
	close(p[0]);
}

static void test_eof_needs_all_writers(void)
{
	int p[2], w2;
	char c;

	pipe2(p, O_NONBLOCK);
	w2 = dup(p[1]);
	close(p[1]);
	CHECK_ERR(read(p[0], &c, 1), EAGAIN,
	          "no end of file while a dup of the writer is open");
	close(w2);
	CHECK(read(p[0], &c, 1) == 0, "end of file once it is closed");
	close(p[0]);
}

static void test_flags(void)
{
	int p[2];
	char buf[4096];
	long total = 0;
	ssize_t n;

	CHECK(pipe2(p, O_CLOEXEC) == 0 && fcntl(p[0], F_GETFD) == FD_CLOEXEC &&
	      fcntl(p[1], F_GETFD) == FD_CLOEXEC, "pipe2 O_CLOEXEC");
	CHECK(!(fcntl(p[0], F_GETFL) & O_NONBLOCK), "blocking by default");
	close(p[0]);
	close(p[1]);
	CHECK(pipe2(p, O_NONBLOCK) == 0 && (fcntl(p[0], F_GETFL) & O_NONBLOCK),
	      "pipe2 O_NONBLOCK");
	CHECK_ERR(read(p[0], buf, 1), EAGAIN, "non-blocking read of an empty pipe");
	memset(buf, 'z', sizeof(buf));
	while ((n = write(p[1], buf, sizeof(buf))) > 0 && total < (1L << 24))
		total += n;
	CHECK(n == -1 && errno == EAGAIN, "writing a full pipe gives EAGAIN");
	CHECK(total >= 4096, "the pipe held %ld bytes", total);
	CHECK(read(p[0], buf, sizeof(buf)) == sizeof(buf) && buf[0] == 'z',
	      "and reads back");
	CHECK_ERR(pipe2(p, 0x7fffffff), EINVAL, "pipe2 with bad flags");
	close(p[0]);
	close(p[1]);
}

static volatile sig_atomic_t sigpipes;
static void on_sigpipe(int sig) { sigpipes++; }

static void test_broken(void)
{
	int p[2], st = -1;
	pid_t pid;

	pipe(p);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	CHECK_ERR(write(p[1], "x", 1), EPIPE,
	          "write with no reader, SIGPIPE ignored");
	signal(SIGPIPE, on_sigpipe);
	CHECK_ERR(write(p[1], "x", 1), EPIPE, "write with no reader, handled");
	CHECK(sigpipes == 1, "the SIGPIPE handler ran once");
	signal(SIGPIPE, SIG_IGN);
	pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		write(p[1], "x", 1);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE,
	      "by default SIGPIPE kills the writer (status %#x)", st);
	close(p[1]);
	signal(SIGPIPE, SIG_DFL);
}

static void test_poll_select(void)
{
	int p[2];
	struct pollfd fds[2];
	fd_set r;
	struct timeval tv = { 0, 0 };
	char c;

	pipe(p);
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	CHECK(poll(fds, 1, 0) == 0 && fds[0].revents == 0,
	      "poll: an empty pipe is not readable");
	CHECK(poll(fds + 1, 1, 0) == 1 && fds[1].revents == POLLOUT,
	      "poll: the write end is writable");
	write(p[1], "x", 1);
	CHECK(poll(fds, 2, 0) == 2 && fds[0].revents == POLLIN,
	      "poll: readable after a write");
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK(select(p[0] + 1, &r, NULL, NULL, &tv) == 1 && FD_ISSET(p[0], &r),
	      "select: readable");
	read(p[0], &c, 1);
	FD_SET(p[0], &r);
	tv = (struct timeval){ 0, 10000 };
	CHECK(select(p[0] + 1, &r, NULL, NULL, &tv) == 0 && !FD_ISSET(p[0], &r),
	      "select: times out on an empty pipe");
	close(p[1]);
	CHECK(poll(fds, 1, 0) == 1 && (fds[0].revents & POLLHUP),
	      "poll: POLLHUP once the writer is gone");
	close(p[0]);
	fds[0].fd = 1000;
	CHECK(poll(fds, 1, 0) == 1 && fds[0].revents == POLLNVAL,
	      "poll: POLLNVAL for a closed fd");
}

static void test_parent_child(void)
{
	int p[2], st;
	char buf[64];
	ssize_t n, total = 0;
	pid_t pid;

	pipe(p);
	pid = fork();
	if (pid == 0) {
		struct timespec t = { 0, 20 * 1000 * 1000 };
		close(p[0]);
		nanosleep(&t, NULL);   /* the parent is blocked in read */
		write(p[1], "from the child", 14);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf + total, sizeof(buf) - total)) > 0)
		total += n;
	CHECK(n == 0 && total == 14 && memcmp(buf, "from the child", 14) == 0,
	      "a blocked read gets the child's data, then end of file");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "the child exited");
	close(p[0]);
}

int main(void)
{
	test_basic();
	test_eof_needs_all_writers();
	test_flags();
	test_broken();
	test_poll_select();
	test_parent_child();
	return abi_done("pipes");
}
