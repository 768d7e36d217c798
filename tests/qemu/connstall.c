/*
 * connstall: the host tool's link (host/conn.c) keeps reading the
 * console's line while a write to the export line waits - without QEMU.
 *
 * The stall it guards against (docs/export.md, "The stall of an -icount
 * boot"): the tool writes frames to the export line of a guest that
 * does not read it yet (booting); its socket fills and the write waits;
 * if the tool reads nothing meanwhile, the guest's console output fills
 * the console socket, QEMU's UART never reports its transmitter empty
 * again and the guest spins in uart_putc with interrupts off, so it
 * never gets to read the export line: both wait for ever.
 *
 * Here a child plays the guest: it writes TEXT bytes of "boot log" to
 * the console line and only then reads the export line. The parent
 * sends frames on an export line with a small send buffer, so its
 * writes wait until the child reads. With the tool reading both lines
 * while it waits, both finish; without, the parent waits until the
 * tool's timeout (exit 75) and the child never finishes its log.
 *
 *   gcc -I. -D_GNU_SOURCE -o connstall tests/qemu/connstall.c host/conn.c \
 *       host/export_rx.c wire/frame.c wire/link.c
 *   ./connstall     prints "connstall: N passed, N failed"
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include "host/baremon.h"

#define TEXT (256 * 1024)   /* far beyond what a socket holds */
#define FRAMES 3            /* the link's window */

static int passed, failed;

static void check(const char *what, int ok)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	ok ? passed++ : failed++;
}

/* conn.c's (and stop.c's) uses of target.c. */
void target_close(struct target *t)
{
	(void)t;
}

const char *target_gone_reason(struct target *t)
{
	(void)t;
	return NULL;
}

/* The guest: its boot log on the console, then it reads the export line. */
static void guest(int console, int export)
{
	static char log[TEXT];
	for (size_t i = 0; i < sizeof(log); i++)
		log[i] = i % 64 == 63 ? '\n' : 'a' + (char)(i % 26);
	for (size_t off = 0; off < sizeof(log);) {
		ssize_t n = write(console, log + off, sizeof(log) - off);
		if (n <= 0)
			_exit(2);
		off += (size_t)n;
	}
	char buf[4096];
	while (read(export, buf, sizeof(buf)) > 0)
		;
	_exit(0);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	int con[2], exp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, con) || socketpair(AF_UNIX, SOCK_STREAM, 0, exp)) {
		perror("connstall: socketpair");
		return 1;
	}
	int small = 4096;   /* the kernel's minimum: a frame or two */
	setsockopt(exp[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	pid_t pid = fork();
	if (pid == 0) {
		close(con[0]);
		close(exp[0]);
		guest(con[1], exp[1]);
	}
	close(con[1]);
	close(exp[1]);

	struct target t = { .kind = TARGET_CONNECT, .console_fd = con[0], .timeout_s = 10 };
	static struct conn c;
	conn_init(&c, exp[0], &t);
	/* The guest reads nothing yet: fill its export line. */
	uint8_t junk[512] = { 1 };
	while (write(exp[0], junk, sizeof(junk)) > 0)
		;
	struct pollfd p = { .fd = exp[0], .events = POLLOUT };
	check("the export line is full before the frames", poll(&p, 1, 0) == 0);
	alarm(120);   /* a stall ends the test, not the suite */
	static uint8_t payload[FRAME_MAX_PAYLOAD];
	for (int i = 0; i < FRAMES; i++)
		link_send(&c.link, FRAME_RUN, CHAN_CONTROL, payload, sizeof(payload), host_now_ms());
	alarm(0);
	check("the frames went out (the guest read the export line)", !c.closed);
	uint64_t while_waiting = c.text_bytes;
	close(exp[0]);
	int st;
	waitpid(pid, &st, 0);
	check("the guest finished its log and its reading", WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* What the socket still holds was written after the tool's last
	 * wait; all the rest was read while writes waited. */
	uint64_t rest = 0;
	char buf[4096];
	for (ssize_t n; (n = read(con[0], buf, sizeof(buf))) != 0;)
		if (n > 0)
			rest += (uint64_t)n;
	printf("read while waiting %llu bytes, after %llu\n", (unsigned long long)while_waiting,
	       (unsigned long long)rest);
	check("the boot log was read while the writes waited",
	      while_waiting > 0 && while_waiting + rest == TEXT);
	printf("connstall: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
