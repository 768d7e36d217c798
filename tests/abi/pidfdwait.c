/*
 * pidfdwait.c: a pidfd polls readable only once its process can be
 * reaped. Each round forks a child that exits at once, polls its pidfd
 * until it is readable, then waitpid(pid, WNOHANG) must reap it (Linux
 * makes the pidfd readable in exit_notify, when the zombie is ready for
 * wait). With more than one CPU the child exits on another CPU while
 * the parent polls without blocking, again and again, so a pidfd that
 * turns readable before its zombie is ready is seen in that window: it
 * made WNOHANG return 0 a few rounds in a hundred.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi.h"

#define ROUNDS 200

/* One round: 1 when the readable pidfd's child was reapable at once,
 * 0 when WNOHANG found nothing, -1 on an error (said why). */
static int round_once(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(7);
	if (pid < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		abi_note("pidfd_open: %s", strerror(errno));
		waitpid(pid, NULL, 0);
		return -1;
	}
	struct pollfd p = { fd, POLLIN, 0 };
	int r = 0;
	for (long spin = 0; r == 0 && spin < 100000; spin++)
		r = poll(&p, 1, 0);
	if (r == 0)
		r = poll(&p, 1, 10000);
	int status = 0, ok = -1;
	if (r == 1 && (p.revents & POLLIN)) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		ok = w == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7;
		if (w == 0)
			ok = 0;
	} else {
		abi_note("poll(pidfd): %d, revents %#x", r, p.revents);
	}
	if (ok != 1)
		waitpid(pid, NULL, 0);
	close(fd);
	return ok;
}

int main(void)
{
	int reaped = 0, early = 0, errors = 0;
	for (int i = 0; i < ROUNDS; i++) {
		int r = round_once();
		reaped += r == 1;
		early += r == 0;
		errors += r < 0;
	}
	CHECK(errors == 0, "%d rounds: pidfd_open and poll of each child "
	      "(%d failed)", ROUNDS, errors);
	CHECK(reaped == ROUNDS - errors, "a readable pidfd: waitpid WNOHANG "
	      "reaps the child with its status every time (%d of %d; %d "
	      "found nothing)", reaped, ROUNDS - errors, early);
	return abi_done("pidfdwait");
}
