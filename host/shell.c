/*
 * shell: the target's console on this terminal, byte for byte, until
 * ^] (0x1d) or end of input; then the line is closed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <termios.h>
#include <unistd.h>
#include "baremon.h"

#define ESCAPE 0x1d

static int relay(int from, int to, bool from_user)
{
	char buf[512];
	ssize_t n = read(from, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && errno == EINTR ? 0 : -1;
	for (ssize_t i = 0; from_user && i < n; i++)
		if (buf[i] == ESCAPE)
			return -1;
	if (write(to, buf, (size_t)n) != n)
		return -1;
	return 0;
}

int cmd_shell(int fd, struct target *t)
{
	(void)t;
	struct termios saved, raw;
	bool tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	if (tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
		fprintf(stderr, "baremon: console connected; ^] quits\r\n");
	}
	for (;;) {
		struct pollfd p[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
				       { .fd = fd, .events = POLLIN } };
		if (poll(p, 2, 100) < 0 && errno != EINTR)
			break;
		if (stop_pending()) {
			if (tty)
				tcsetattr(STDIN_FILENO, TCSANOW, &saved);
			stop_now();
		}
		if (p[0].revents && relay(STDIN_FILENO, fd, true) < 0)
			break;
		if (p[1].revents && relay(fd, STDOUT_FILENO, false) < 0)
			break;
	}
	if (tty)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	return 0;
}
