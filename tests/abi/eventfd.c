/*
 * eventfd.c: ABI test of eventfd2 and eventfd (Linux's fs/eventfd.c):
 * the counter's read and write, EFD_SEMAPHORE, EFD_NONBLOCK and
 * EFD_CLOEXEC, poll readiness, a read that blocks until another process
 * writes, and the errnos.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "abi.h"

static int efd(unsigned init, int flags)
{
	return eventfd(init, flags);
}

static uint64_t rd(int fd, long *r)
{
	uint64_t v = 0;
	*r = read(fd, &v, sizeof(v));
	return v;
}

static long wr(int fd, uint64_t v)
{
	return write(fd, &v, sizeof(v));
}

static short revents(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	return poll(&p, 1, 0) == 1 ? p.revents : 0;
}

static void test_counter(void)
{
	long r;
	int fd = efd(5, 0);
	CHECK(fd >= 0, "eventfd2(5, 0)");
	CHECK(fcntl(fd, F_GETFL) == O_RDWR, "it is O_RDWR");
	CHECK(fcntl(fd, F_GETFD) == 0, "no close-on-exec without EFD_CLOEXEC");
	CHECK(wr(fd, 3) == 8, "write 3");
	CHECK(rd(fd, &r) == 8 && r == 8, "read takes the sum, 8");
	CHECK(revents(fd) == POLLOUT, "empty: POLLOUT only");
	CHECK(wr(fd, 0xfffffffffffffffeULL) == 8, "write the largest value");
	CHECK(revents(fd) == POLLIN, "full: POLLIN only");
	CHECK(lseek(fd, 5, SEEK_SET) == 0, "lseek does nothing (noop_llseek)");
	close(fd);

	fd = efd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFL) & O_NONBLOCK) &&
	      fcntl(fd, F_GETFD) == FD_CLOEXEC, "EFD_NONBLOCK | EFD_CLOEXEC");
	CHECK_ERR(read(fd, &r, 8), EAGAIN, "read of 0 without blocking");
	CHECK(wr(fd, 0xfffffffffffffffeULL) == 8, "fill it");
	CHECK_ERR(wr(fd, 1), EAGAIN, "write past the largest value");
	CHECK_ERR(wr(fd, UINT64_MAX), EINVAL, "write of ULLONG_MAX");
	CHECK_ERR(write(fd, &r, 7), EINVAL, "write of 7 bytes");
	CHECK_ERR(read(fd, &r, 7), EINVAL, "read into 7 bytes");
	void *volatile bad = (void *)8;
	CHECK_ERR(write(fd, bad, 8), EFAULT, "write from a bad pointer");
	close(fd);
}

static void test_semaphore(void)
{
	long r;
	int fd = efd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	CHECK(fd >= 0, "EFD_SEMAPHORE");
	CHECK(rd(fd, &r) == 1 && r == 8, "a read takes 1");
	CHECK(rd(fd, &r) == 1 && r == 8, "a second read takes 1");
	CHECK_ERR(read(fd, &r, 8), EAGAIN, "then it is empty");
	close(fd);
}

static void test_blocking(void)
{
	long r;
	int fd = efd(0, 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(20000);
		_exit(wr(fd, 42) == 8 ? 0 : 1);
	}
	CHECK(rd(fd, &r) == 42 && r == 8, "a blocking read gets another process's write");
	int st = 1;
	CHECK(waitpid(pid, &st, 0) == pid && st == 0, "the writer succeeded");
	close(fd);
}

static void test_errors(void)
{
	CHECK_ERR(efd(0, 0x4), EINVAL, "eventfd2 with an unknown flag");
	CHECK_ERR(efd(0, O_RDONLY | 0x2), EINVAL, "eventfd2 with O_RDWR as flags");
	int fd = (int)syscall(__NR_eventfd, 7);
	long r;
	CHECK(fd >= 0 && rd(fd, &r) == 7, "eventfd(7) reads 7");
	close(fd);
}

int main(void)
{
	test_counter();
	test_semaphore();
	test_blocking();
	test_errors();
	return abi_done("eventfd");
}
