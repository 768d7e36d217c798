/*
 * session FILE: a script of agent commands, one a line (docs/host.md):
 *   run CMD [ARGS]     the command must exit 0 (or as `status` said); a
 *                      local program is pushed first, as for `run`;
 *                      words split at blanks, '...' and "..." quote
 *   status N           the next run must exit with N
 *   expect TEXT        the last run's output contains TEXT
 *   push FILE [DEST] / pull PATH [LOCAL]
 *   timeout S          seconds without progress before giving up
 *   # comment
 * Each step prints "session: ok|FAILED: LINE"; the session stops at the
 * first failure and ends with "session: N passed, N failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "baremon.h"

#define MAX_WORDS 64

struct session {
	struct conn *c;
	int want_status;
	char *output;        /* the last run's stdout and stderr */
	size_t output_len;
};

/* Words separated by blanks; '...' and "..." keep blanks in a word. */
static int split(char *line, char **w)
{
	int n = 0;
	char *in = line, *out = line;
	while (n < MAX_WORDS) {
		in += strspn(in, " \t");
		if (!*in)
			break;
		w[n++] = out;
		char quote = 0;
		for (; *in && (quote || (*in != ' ' && *in != '\t')); in++) {
			if (quote && *in == quote)
				quote = 0;
			else if (!quote && (*in == '\'' || *in == '"'))
				quote = *in;
			else
				*out++ = *in;
		}
		if (*in)
			in++;
		*out++ = 0;
	}
	w[n] = NULL;
	return n;
}

/* Run, keeping the output (shown as well) for `expect`. */
static bool step_run(struct session *s, int argc, char **argv)
{
	int fd = memfd_create("baremon-run", MFD_CLOEXEC);
	if (fd < 0 || push_if_local(s->c, argv) != 0)
		return false;
	int st = run_remote(s->c, argc, argv, fd, fd);
	off_t len = lseek(fd, 0, SEEK_END);
	free(s->output);
	s->output = malloc((size_t)len + 1);
	s->output_len = s->output && pread(fd, s->output, (size_t)len, 0) == len ? (size_t)len : 0;
	if (s->output)
		s->output[s->output_len] = 0;
	close(fd);
	fwrite(s->output ? s->output : "", 1, s->output_len, stdout);
	fflush(stdout);
	bool ok = st == s->want_status;
	if (!ok)
		fprintf(stderr, "session: exit status %d, expected %d\n", st, s->want_status);
	s->want_status = 0;
	return ok;
}

static bool step(struct session *s, char *text)
{
	char *w[MAX_WORDS + 1];
	char copy[1024];
	snprintf(copy, sizeof(copy), "%s", text);
	int n = split(copy, w);
	if (n == 0)
		return true;
	if (strcmp(w[0], "run") == 0 && n > 1)
		return step_run(s, n - 1, w + 1);
	if (strcmp(w[0], "status") == 0 && n == 2) {
		s->want_status = atoi(w[1]);
		return true;
	}
	if (strcmp(w[0], "expect") == 0) {
		const char *want = text + strspn(text, " \t") + 6;
		want += strspn(want, " \t");
		return s->output && strstr(s->output, want);
	}
	if (strcmp(w[0], "push") == 0 && n >= 2)
		return cmd_push(s->c, w[1], n > 2 ? w[2] : NULL, false) == 0;
	if (strcmp(w[0], "pull") == 0 && n >= 2)
		return cmd_pull(s->c, w[1], n > 2 ? w[2] : NULL) == 0;
	if (strcmp(w[0], "poweroff") == 0 && n == 1)
		return cmd_poweroff(s->c) == 0;
	if (strcmp(w[0], "timeout") == 0 && n == 2 && s->c->target) {
		s->c->target->timeout_s = atoi(w[1]);
		return true;
	}
	fprintf(stderr, "session: cannot understand '%s'\n", text);
	return false;
}

int cmd_session(struct conn *c, const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		perror(file);
		return EXIT_NOINPUT;
	}
	struct session s = { .c = c };
	char line[1024];
	int passed = 0, failed = 0;
	while (!failed && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		const char *t = line + strspn(line, " \t");
		if (*t == 0 || *t == '#')
			continue;
		bool ok = step(&s, line);
		printf("session: %s: %s\n", ok ? "ok" : "FAILED", t);
		fflush(stdout);
		ok ? passed++ : failed++;
	}
	fclose(f);
	free(s.output);
	printf("session: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
