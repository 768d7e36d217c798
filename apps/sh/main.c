/*
 * main.c: where the shell's lines come from and what happens after each.
 *
 *   sh              read standard input; prompt when it is a terminal,
 *                   otherwise treat it as a script
 *   sh SCRIPT       read the file SCRIPT
 *   sh -c LINE      run one line
 *   sh -i SCRIPT    run SCRIPT, then read standard input interactively
 *                   (the kernel's `stay`: a session, then the prompt)
 *
 * A script's lines are echoed after the prompt ("baremon> LINE") so a log
 * reads like a session. With set -e, a script stops at the first line
 * whose status is not 0 ("sh: stopping: status N with set -e") and the
 * shell exits with that status. At the end of the input the shell exits
 * with the last status (or exit's).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <words.h>
#include "sh.h"

struct shell_state sh;

/*
 * Lines from a descriptor. A script file is read in blocks; standard
 * input one byte at a time, so that the programs we start read what
 * follows their own command line and not a block the shell swallowed.
 */
struct input {
	int fd;
	bool by_byte;
	size_t pos, len;   /* buf[pos..len) not yet consumed */
	char buf[4096];
};

/* The next byte, or -1 at the end of input (or on a read error). */
static int next_byte(struct input *in)
{
	if (in->pos == in->len) {
		ssize_t n;
		do
			n = read(in->fd, in->buf,
			         in->by_byte ? 1 : sizeof(in->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		in->pos = 0;
		in->len = (size_t)n;
	}
	return (unsigned char)in->buf[in->pos++];
}

/* Read a line without its "\n" or "\r"; false at the end of input. */
static bool read_line(struct input *in, char *line, size_t max)
{
	size_t n = 0;
	int c;

	while ((c = next_byte(in)) >= 0 && c != '\n')
		if (c != '\r' && n + 1 < max)
			line[n++] = (char)c;
	line[n] = '\0';
	return c >= 0 || n > 0;
}

int sh_run_line(const char *line)
{
	char buf[SH_LINE_MAX * 2];
	char *argv[SH_MAX_ARGS];
	int argc = split_words(line, sh.last_status, buf, sizeof(buf), argv, SH_MAX_ARGS);
	int status;

	if (argc == 0)
		return sh.last_status;
	if (argc == WORDS_E_QUOTE)
		fprintf(stderr, "sh: unterminated quote\n");
	else if (argc == WORDS_E_TOO_MANY)
		fprintf(stderr, "sh: more than %d words\n", SH_MAX_ARGS - 1);
	else if (argc == WORDS_E_TOO_LONG)
		fprintf(stderr, "sh: line too long\n");
	if (argc < 0)
		status = 2;
	else if (!sh_builtin(argc, argv, &status))
		status = sh_exec(argv);
	return sh.last_status = status;
}

/* Run every line of in; returns the shell's exit status. */
static int run_input(struct input *in)
{
	char line[SH_LINE_MAX];

	for (;;) {
		if (sh.interactive) {
			printf(SH_PROMPT);
			fflush(stdout);
		}
		if (!read_line(in, line, sizeof(line)))
			break;
		if (!sh.interactive)
			printf(SH_PROMPT "%s\n", line);
		int status = sh_run_line(line);
		if (sh.exit_requested)
			return sh.exit_status;
		if (status != 0 && sh.stop_on_error && !sh.interactive) {
			fprintf(stderr, "sh: stopping: status %d with set -e\n",
			        status);
			return status;
		}
	}
	if (sh.interactive)
		printf("\n");
	return sh.last_status;
}

/* Standard input as the shell's input; interactive on a terminal. */
static void use_stdin(struct input *in)
{
	in->fd = 0;
	in->by_byte = true;
	in->pos = in->len = 0;
	sh.interactive = isatty(0);
	if (sh.interactive) {
		/* Ctrl-C and Ctrl-\ are for the program running, not us. */
		signal(SIGINT, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
	}
}

static int open_script(struct input *in, const char *path)
{
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
		return 127;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct input in;

	sh_reap_orphans_init();
	if (argc == 3 && strcmp(argv[1], "-c") == 0) {
		sh_run_line(argv[2]);
		return sh.exit_requested ? sh.exit_status : sh.last_status;
	}
	if (argc == 3 && strcmp(argv[1], "-i") == 0) {
		int r = open_script(&in, argv[2]);
		if (r == 0) {
			r = run_input(&in);
			close(in.fd);
		}
		if (sh.exit_requested)
			return r;
		use_stdin(&in);
		return run_input(&in);
	}
	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: sh [SCRIPT | -c LINE | -i SCRIPT]\n");
		return 2;
	}
	if (argc == 2) {
		int r = open_script(&in, argv[1]);
		if (r)
			return r;
	} else {
		use_stdin(&in);
	}
	return run_input(&in);
}
