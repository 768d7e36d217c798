/*
 * run: push a local program named as the command, run the command on
 * the target, copy its stdout and stderr as they arrive, and return its
 * exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include "baremon.h"

static void write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		ssize_t r = write(fd, s, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		s += r;
		n -= (size_t)r;
	}
}

/* A command ended by a signal: the shell's words for it ("Segmentation
 * fault"), as bash prints them; none for SIGINT and SIGPIPE, as bash. */
static void say_signal(int fd, int sig)
{
	if (sig <= 0 || sig == SIGINT || sig == SIGPIPE)
		return;
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "%s\n", strsignal(sig));
	write_all(fd, msg, (size_t)n);
}

int run_remote(struct conn *c, int argc, char **argv, int out_fd, int err_fd)
{
	uint8_t p[FRAME_MAX_PAYLOAD];
	size_t n = 0;
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]) + 1;
		if (n + len > sizeof(p)) {
			fprintf(stderr, "baremon: run: the command line is longer than %d bytes\n",
				FRAME_MAX_PAYLOAD);
			return EXIT_USAGE;
		}
		memcpy(p + n, argv[i], len);
		n += len;
	}
	conn_send(c, FRAME_RUN, CHAN_CONTROL, p, n);
	for (;;) {
		struct frame f;
		conn_next(c, &f);
		switch (f.type) {
		case FRAME_OUTPUT:
			write_all(f.channel == CHAN_STDERR ? err_fd : out_fd, f.payload, f.len);
			break;
		case FRAME_EXIT:
			if (f.len >= 8)
				say_signal(err_fd, (int)get_le32(f.payload + 4));
			return f.len >= 4 ? (int)get_le32(f.payload) : EXIT_PROTOCOL;
		case FRAME_RESULT:
			f.payload[f.len < FRAME_MAX_PAYLOAD ? f.len : FRAME_MAX_PAYLOAD - 1] = 0;
			fprintf(stderr, "baremon: run: %s\n", f.len > 4 ? (char *)f.payload + 4 : "refused");
			return EXIT_SOFTWARE;
		default:
			break;
		}
	}
}

char *run_capture(struct conn *c, char **argv, int *status)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	int fd = memfd_create("baremon-capture", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	*status = run_remote(c, argc, argv, fd, null >= 0 ? null : STDERR_FILENO);
	if (null >= 0)
		close(null);
	off_t len = lseek(fd, 0, SEEK_END);
	char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (text && pread(fd, text, (size_t)len, 0) != len) {
		free(text);
		text = NULL;
	}
	if (text)
		text[len] = 0;
	close(fd);
	return text;
}

int push_if_local(struct conn *c, char **argv)
{
	static char guest[512];
	if (!is_local_program(argv[0]))
		return 0;
	guest_tmp_path(argv[0], guest, sizeof(guest));
	int r = cmd_push(c, argv[0], guest, true);
	if (r == 0)
		argv[0] = guest;
	return r;
}

int cmd_run(struct conn *c, int argc, char **argv)
{
	int r = push_if_local(c, argv);
	if (r)
		return r;
	return run_remote(c, argc, argv, STDOUT_FILENO, STDERR_FILENO);
}
