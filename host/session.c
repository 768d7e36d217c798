/*
 * session FILE: a script of agent commands, one a line (docs/host.md):
 *   run CMD [ARGS]     the command must exit 0 (or as `status` said); a
 *                      local program is pushed first, as for `run`;
 *                      words split at blanks, '...' and "..." quote
 *   stat ARGS          `run stat ARGS` with the local programs among ARGS
 *                      pushed, as the `stat` command does
 *   status N           the next run must exit with N
 *   expect TEXT        the last run's output contains TEXT
 *   push FILE [DEST] / pull PATH [LOCAL]
 *   timeout S          seconds without progress before giving up
 *   # comment
 * Each step prints "session: ok|FAILED: LINE"; the session stops at the
 * first failure and ends with "session: N passed, N failed". With
 * --junit OUT the steps are also written as JUnit test cases (junit.c):
 * a run's output is its case's output, the steps after a failure are
 * skipped cases. Before
 * anything starts, session_check reads the whole script: a step it does
 * not know is a usage error, a local file to push that is not there an
 * error of its own (check.c's statuses), with the line's number.
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
	bool ran;            /* this step ran a command (its output is new) */
	char why[160];       /* why this step failed */
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

/* Run, keeping the output (shown as well) for `expect`. With all_args
 * (stat), every argument naming a local program is pushed, else only
 * the command. */
static bool step_run(struct session *s, int argc, char **argv, bool all_args)
{
	int fd = memfd_create("baremon-run", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	static char guest[MAX_WORDS][512];
	for (int i = 0; i < (all_args ? argc : 1); i++) {
		if (!is_local_program(argv[i]))
			continue;
		guest_tmp_path(argv[i], guest[i], sizeof(guest[i]));
		if (cmd_push(s->c, argv[i], guest[i], true) != 0) {
			close(fd);
			return false;
		}
		argv[i] = guest[i];
	}
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
	s->ran = true;
	bool ok = st == s->want_status;
	if (!ok) {
		snprintf(s->why, sizeof(s->why), "exit status %d, expected %d", st, s->want_status);
		fprintf(stderr, "session: %s\n", s->why);
	}
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
		return step_run(s, n - 1, w + 1, false);
	if (strcmp(w[0], "stat") == 0 && n > 1)
		return step_run(s, n, w, true);
	if (strcmp(w[0], "status") == 0 && n == 2) {
		s->want_status = atoi(w[1]);
		return true;
	}
	if (strcmp(w[0], "expect") == 0) {
		const char *want = text + strspn(text, " \t") + 6;
		want += strspn(want, " \t");
		snprintf(s->why, sizeof(s->why), "the output lacks '%s'", want);
		return s->output && strstr(s->output, want);
	}
	if (strcmp(w[0], "push") == 0 && n >= 2)
		return cmd_push(s->c, w[1], n > 2 ? w[2] : NULL, false) == 0;
	if (strcmp(w[0], "pull") == 0 && n >= 2)
		return cmd_pull(s->c, w[1], n > 2 ? w[2] : NULL, false) == 0;
	if (strcmp(w[0], "poweroff") == 0 && n == 1)
		return cmd_poweroff(s->c) == 0;
	if (strcmp(w[0], "timeout") == 0 && n == 2 && s->c->target) {
		s->c->target->timeout_s = atoi(w[1]);
		return true;
	}
	fprintf(stderr, "session: cannot understand '%s'\n", text);
	return false;
}

/* The step's JUnit case: a run's output goes with it; an expect's
 * failure shows the output it searched. */
static void junit_step(struct junit *j, const char *suite, struct session *s,
		       const char *text, bool ok, double secs)
{
	bool show = s->ran || (!ok && !strncmp(text, "expect", 6));
	junit_case(j, suite, text, secs, ok ? JUNIT_PASSED : JUNIT_FAILED,
		   s->why[0] ? s->why : "failed", show ? s->output : NULL,
		   show ? s->output_len : 0);
}

int cmd_session(struct conn *c, const char *file, const char *junit_path)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		perror(file);
		return EXIT_NOINPUT;
	}
	struct junit *j = junit_path ? junit_open(junit_path) : NULL;
	const char *suite = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	struct session s = { .c = c };
	char line[1024];
	int passed = 0, failed = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		const char *t = line + strspn(line, " \t");
		if (*t == 0 || *t == '#')
			continue;
		if (failed) {   /* not run: only the JUnit file lists it */
			if (j)
				junit_case(j, suite, t, 0, JUNIT_SKIPPED,
					   "not run: an earlier step failed", NULL, 0);
			continue;
		}
		s.ran = false;
		s.why[0] = 0;
		uint64_t start = host_now_ms();
		bool ok = step(&s, line);
		printf("session: %s: %s\n", ok ? "ok" : "FAILED", t);
		fflush(stdout);
		ok ? passed++ : failed++;
		if (j)
			junit_step(j, suite, &s, t, ok, (double)(host_now_ms() - start) / 1000);
	}
	fclose(f);
	free(s.output);
	printf("session: %d passed, %d failed\n", passed, failed);
	if (junit_path && (!j || !junit_close(j, suite)))
		return EXIT_CANTCREAT;
	return failed ? 1 : 0;
}

/* One line of the script as session_check sees it: its step known and
 * its arguments counted, a local file it pushes or runs there. */
static void check_line(const char *file, int lineno, char *text)
{
	char *w[MAX_WORDS + 1];
	int n = split(text, w);
	if (n == 0 || w[0][0] == '#')
		return;
	static const struct { const char *step; int lo, hi; } steps[] = {
		{ "run", 1, MAX_WORDS }, { "stat", 1, MAX_WORDS }, { "status", 1, 1 },
		{ "expect", 0, MAX_WORDS }, { "push", 1, 2 }, { "pull", 1, 2 },
		{ "timeout", 1, 1 }, { "poweroff", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (strcmp(steps[i].step, w[0]))
			continue;
		if (n - 1 < steps[i].lo || n - 1 > steps[i].hi)
			break;
		char where[600];
		snprintf(where, sizeof(where), "session: %s:%d", file, lineno);
		if (!strcmp(w[0], "push"))
			check_readable(where, w[1]);
		for (int k = 1; k < n && (!strcmp(w[0], "run") || !strcmp(w[0], "stat")); k++)
			if (k == 1 || !strcmp(w[0], "stat"))
				check_program(where, w[k]);
		return;
	}
	fprintf(stderr, "baremon: session: %s:%d: cannot understand '%s'\n", file, lineno, w[0]);
	exit(EXIT_USAGE);
}

void session_check(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f)
		return;   /* check_readable has said */
	char line[1024];
	for (int lineno = 1; fgets(line, sizeof(line), f); lineno++) {
		line[strcspn(line, "\r\n")] = 0;
		check_line(file, lineno, line);
	}
	fclose(f);
}
