/*
 * faultrelay: sits between QEMU's serial socket and the host tool and
 * damages the bytes going each way at a set rate, for tests/qemu/
 * host-tool.sh.
 *
 *   faultrelay QEMU_SOCKET (LISTEN_SOCKET | --pty LINKNAME) RATE SEED
 *
 * Connects to QEMU_SOCKET; offers the tool either a listening Unix
 * socket or a pseudo-terminal (whose slave path is made available as the
 * symlink LINKNAME, so the tool's --serial path is exercised). RATE is
 * per 100000 bytes for each of: flip a bit, drop the byte, send it
 * twice. On SIGTERM or when a side closes, prints to stderr, for each
 * direction, "faultrelay: DIRECTION: N bytes, N flipped, N dropped, N
 * duplicated" and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

static long rate;
static unsigned long long total, flipped, dropped, duplicated;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int unix_socket(const char *path, int listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (listening) {
		unlink(path);
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
			return -1;
		return fd;
	}
	for (int i = 0; i < 300; i++) {   /* QEMU may not be up yet */
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		usleep(100000);
	}
	return -1;
}

static int open_pty(const char *link)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m))
		return -1;
	struct termios t;
	int s = open(ptsname(m), O_RDWR | O_NOCTTY);   /* keep the slave side open */
	if (s >= 0 && tcgetattr(s, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(s, TCSANOW, &t);
	}
	unlink(link);
	if (symlink(ptsname(m), link) != 0)
		return -1;
	return m;
}

/* Copy what is readable from `from` to `to`, damaging it. */
static int relay(int from, int to)
{
	unsigned char in[4096], out[8192];
	ssize_t n = read(from, in, sizeof(in));
	if (n <= 0)
		return n < 0 && (errno == EINTR || errno == EAGAIN) ? 0 : -1;
	size_t k = 0;
	for (ssize_t i = 0; i < n; i++) {
		long r = random() % 100000;
		total++;
		if (r < rate) {
			dropped++;
			continue;
		}
		unsigned char c = in[i];
		if (r < 2 * rate) {
			c ^= (unsigned char)(1 << (random() % 8));
			flipped++;
		}
		out[k++] = c;
		if (r >= 100000 - rate) {
			out[k++] = c;
			duplicated++;
		}
	}
	for (size_t off = 0; off < k;) {
		ssize_t w = write(to, out + off, k - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: faultrelay QEMU_SOCKET (LISTEN_SOCKET | --pty LINK) RATE SEED\n");
		return 2;
	}
	int pty = strcmp(argv[2], "--pty") == 0;
	rate = atol(argv[3 + pty]);
	srandom((unsigned)atol(argv[4 + pty]));
	struct sigaction sa = { .sa_handler = on_term };   /* no SA_RESTART */
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	int q = unix_socket(argv[1], 0);
	if (q < 0) {
		perror("faultrelay: connect");
		return 1;
	}
	int tool;
	if (pty) {
		tool = open_pty(argv[3]);
	} else {
		int l = unix_socket(argv[2], 1);
		tool = l < 0 ? -1 : accept(l, NULL, NULL);
	}
	if (tool < 0) {
		perror("faultrelay: tool side");
		return 1;
	}
	/* One process per direction: a side that cannot take more must not
	 * stop the other direction (a UART transmitting holds its CPU). */
	pid_t child = fork();
	int from = child == 0 ? tool : q, to = child == 0 ? q : tool;
	if (child == 0)
		srandom((unsigned)atol(argv[4 + pty]) + 1);
	while (!stop) {
		struct pollfd p = { .fd = from, .events = POLLIN };
		if (poll(&p, 1, 200) < 0 && errno != EINTR)
			break;
		if (p.revents && relay(from, to) < 0)
			break;
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	fprintf(stderr, "faultrelay: %s: %llu bytes, %llu flipped, %llu dropped, %llu duplicated\n",
		child == 0 ? "to QEMU" : "from QEMU", total, flipped, dropped, duplicated);
	return 0;
}
