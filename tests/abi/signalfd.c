/*
 * signalfd.c: ABI test of signalfd4 and signalfd (raw system calls,
 * Linux's struct signalfd_siginfo): the errnos (a mask size other than
 * 8, a bad mask pointer, unknown flags, a descriptor that is no
 * signalfd, a closed one, a read buffer under 128 bytes, EAGAIN), then
 * blocked signals read as records (signo, code, pid, uid) and gone from
 * the pending set, a signal outside the set left alone until the set is
 * changed on the same descriptor, two records in one read, poll, a
 * blocking read woken by another process's kill, and SIGKILL and SIGSTOP
 * accepted in the mask (and left out).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <asm/unistd.h>
#include <sys/signalfd.h>
#include "abi.h"

#define BITOF(sig) (1ULL << ((sig) - 1))

static int sfd(int fd, uint64_t mask, int flags)
{
	return (int)syscall(__NR_signalfd4, fd, &mask, 8, flags);
}

/* One record into *o: its size, or -errno. */
static long read_one(int fd, struct signalfd_siginfo *o, size_t n)
{
	long r = read(fd, o, n);
	return r < 0 ? -errno : r;
}

static void block(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_BLOCK, &s, NULL);
}

static int pending(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigpending(&s);
	return sigismember(&s, sig);
}

static void test_errnos(void)
{
	uint64_t mask = BITOF(SIGUSR1);
	CHECK_ERR(syscall(__NR_signalfd4, -1, &mask, 4, 0), EINVAL, "mask size 4");
	CHECK_ERR(syscall(__NR_signalfd4, -1, (void *)8, 8, 0), EFAULT, "bad mask pointer");
	CHECK_ERR(sfd(-1, mask, 1), EINVAL, "unknown flag");
	int p[2];
	if (pipe(p) == 0) {
		CHECK_ERR(sfd(p[0], mask, 0), EINVAL, "a pipe is no signalfd");
		close(p[0]);
		close(p[1]);
		CHECK_ERR(sfd(p[0], mask, 0), EBADF, "a closed descriptor");
	}
	int fd = sfd(-1, mask, SFD_NONBLOCK | SFD_CLOEXEC);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC) && (fcntl(fd, F_GETFL) & O_NONBLOCK),
	      "signalfd4: CLOEXEC and NONBLOCK");
	struct signalfd_siginfo o;
	CHECK_ERR(read(fd, &o, 64), EINVAL, "read of 64 bytes");
	CHECK_ERR(read(fd, &o, sizeof(o)), EAGAIN, "nothing pending: EAGAIN");
	close(fd);
}

static void test_reading(void)
{
	block(SIGUSR1);
	block(SIGUSR2);
	int fd = sfd(-1, BITOF(SIGUSR1), SFD_NONBLOCK);
	struct pollfd p = { fd, POLLIN, 0 };
	CHECK(poll(&p, 1, 0) == 0, "poll: nothing pending");
	kill(getpid(), SIGUSR1);
	p.revents = 0;
	CHECK(poll(&p, 1, 0) == 1 && (p.revents & POLLIN), "poll: readable with SIGUSR1 pending");
	struct signalfd_siginfo o[2];
	long n = read_one(fd, o, sizeof(o[0]));
	CHECK(n == 128 && o[0].ssi_signo == SIGUSR1 && o[0].ssi_code == SI_USER &&
	      o[0].ssi_pid == (uint32_t)getpid() && o[0].ssi_uid == getuid(),
	      "read: SIGUSR1 from kill, our pid and uid (%ld, signo %u, code %d, pid %u)", n,
	      o[0].ssi_signo, o[0].ssi_code, o[0].ssi_pid);
	CHECK(!pending(SIGUSR1), "and it is no longer pending");
	kill(getpid(), SIGUSR2);
	CHECK(read_one(fd, o, sizeof(o[0])) == -EAGAIN && pending(SIGUSR2),
	      "SIGUSR2 is not in the set: left pending");
	CHECK(sfd(fd, BITOF(SIGUSR1) | BITOF(SIGUSR2), 0) == fd, "a new set on the same descriptor");
	n = read_one(fd, o, sizeof(o[0]));
	CHECK(n == 128 && o[0].ssi_signo == SIGUSR2, "then SIGUSR2 is read (%ld)", n);
	kill(getpid(), SIGUSR2);
	kill(getpid(), SIGUSR1);
	n = read_one(fd, o, sizeof(o));
	CHECK(n == 256 && o[0].ssi_signo == SIGUSR1 && o[1].ssi_signo == SIGUSR2,
	      "two pending, one read of 256 bytes: both, lowest first (%ld)", n);
	close(fd);
}

static void test_blocking(void)
{
	int fd = sfd(-1, BITOF(SIGUSR1), 0);
	pid_t parent = getpid(), child = fork();
	if (child == 0) {
		struct timespec t = { 0, 20000000 };
		nanosleep(&t, NULL);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	struct signalfd_siginfo o;
	long n = read_one(fd, &o, sizeof(o));
	CHECK(n == 128 && o.ssi_signo == SIGUSR1 && o.ssi_pid == (uint32_t)child,
	      "a blocking read wakes for another process's kill (pid %u = %d)", o.ssi_pid, child);
	waitpid(child, NULL, 0);
	close(fd);
	fd = sfd(-1, ~0ULL, SFD_NONBLOCK);
	CHECK(fd >= 0, "every signal in the mask, SIGKILL and SIGSTOP too: accepted");
	close(fd);
}

int main(void)
{
	test_errnos();
	test_reading();
	test_blocking();
	return abi_done("signalfd");
}
