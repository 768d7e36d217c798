/*
 * --targets FILE: one command on several targets at once (docs/host.md,
 * "Many targets"). FILE has a line per target, `NAME OPTIONS...`, the
 * options those of one target (`--cmdline vpmu=amd`, `--smp 1`,
 * `--serial /dev/ttyUSB0`, `--connect unix:PATH`); `#` starts a comment.
 * Each target runs as a baremon of its own (this program again, the
 * options given before --targets first, then the line's, then the
 * command), all at the same time, its output kept in a file. When all
 * have ended, one table: a column per target, a row per measurement
 * (an output line `NAME: NUMBER...`, as bench, stat's -x-less text and
 * noise print them, in the order first seen), and the exit status of
 * each. A target's whole output is shown when it failed or gave no
 * measurement. The status is 0 when every target's was, else the first
 * non-zero one in the file's order. A signal to the tool goes on to the
 * targets (wait_all).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "baremon.h"

#define MAX_TARGETS 16
#define MAX_ROWS 256
#define TARGET_WORDS 32
/* A target's name: a column's title and its output file's name. */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

struct one_target {
	char name[32];
	char *words[TARGET_WORDS + 1];   /* its options */
	int nwords;
	char out[400];                   /* its output's file */
	pid_t pid;
	int status;
	char *text;                      /* its output, read back */
};

struct row {
	char key[80];
	char values[MAX_TARGETS][40];
};

static struct one_target targets[MAX_TARGETS];
static int ntargets;
static struct row rows[MAX_ROWS];
static int nrows;

/* Split a line at blanks, '...' and "..." quoting (the session's rule),
 * into the target's words; false when there are too many. */
static bool split_line(char *line, struct one_target *t)
{
	char *in = line, *out = line;
	t->nwords = 0;
	for (;;) {
		in += strspn(in, " \t");
		if (!*in || *in == '#')
			break;
		if (t->nwords == TARGET_WORDS)
			return false;
		t->words[t->nwords++] = out;
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
	t->words[t->nwords] = NULL;
	return true;
}

/* Read FILE's targets; a mistake is a usage error with its line. */
static void read_targets(const char *file)
{
	FILE *f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "baremon: --targets: %s: %s\n", file, strerror(errno));
		exit(EXIT_NOINPUT);
	}
	char line[1024];
	for (int lineno = 1; fgets(line, sizeof(line), f); lineno++) {
		line[strcspn(line, "\r\n")] = 0;
		struct one_target *t = &targets[ntargets];
		char *copy = strdup(line);
		if (!copy || !split_line(copy, t)) {
			fprintf(stderr, "baremon: --targets: %s:%d: too many words\n", file, lineno);
			exit(EXIT_USAGE);
		}
		if (t->nwords == 0) {
			free(copy);
			continue;
		}
		const char *name = t->words[0];
		const char *why = ntargets == MAX_TARGETS ? "more than 16 targets" :
				  strlen(name) >= sizeof(t->name) ? "a name longer than 31" :
				  name[0] == '-' ? "a line starts with the target's name" :
				  name[strspn(name, NAME_CHARS)] ? "a name of letters, digits, '.', '_', '-'" :
				  t->nwords > 1 && t->words[1][0] != '-' ?
				  "a target's options start with '-'" : NULL;
		if (why) {
			fprintf(stderr, "baremon: --targets: %s:%d: %s\n", file, lineno, why);
			exit(EXIT_USAGE);
		}
		snprintf(t->name, sizeof(t->name), "%s", t->words[0]);
		ntargets++;
	}
	fclose(f);
	if (ntargets == 0) {
		fprintf(stderr, "baremon: --targets: %s names no target\n", file);
		exit(EXIT_USAGE);
	}
}

/* Start target t: this program with the common options (argv[1..cmd)
 * without --targets FILE), t's options and the command. */
static void start(struct one_target *t, int argc, char **argv, int cmd, const char *dir)
{
	int max = argc + TARGET_WORDS + 1, n = 0;
	char **child = calloc((size_t)max, sizeof(*child));
	if (!child) {
		perror("baremon: --targets");
		exit(EXIT_SOFTWARE);
	}
	child[n++] = argv[0];
	for (int i = 1; i < cmd; i++) {
		if (!strcmp(argv[i], "--targets")) {
			i++;
			continue;
		}
		child[n++] = argv[i];
	}
	for (int k = 1; k < t->nwords; k++)
		child[n++] = t->words[k];
	for (int i = cmd; i < argc; i++)
		child[n++] = argv[i];
	child[n] = NULL;
	snprintf(t->out, sizeof(t->out), "%s/%s.out", dir, t->name);
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		perror("baremon: fork");
		exit(EXIT_UNAVAILABLE);
	}
	if (t->pid > 0) {
		free(child);
		return;
	}
	/* Killed with the tool: then its own handler stops its QEMU. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	int fd = open(t->out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(EXIT_CANTCREAT);
	close(fd);
	execv("/proc/self/exe", child);   /* child is the new image's */
	perror("baremon: /proc/self/exe");
	_exit(EXIT_UNAVAILABLE);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return strdup("");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[4096];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	if (m)
		fclose(m);
	return buf ? buf : strdup("");
}

static struct row *row_for(const char *key)
{
	for (int r = 0; r < nrows; r++)
		if (!strcmp(rows[r].key, key))
			return &rows[r];
	if (nrows == MAX_ROWS)
		return NULL;
	snprintf(rows[nrows].key, sizeof(rows[nrows].key), "%s", key);
	return &rows[nrows++];
}

/* A measurement line: "NAME: VALUE" with VALUE starting as a number. */
static bool measurement(char *line, char **key, char **value)
{
	char *colon = strstr(line, ": ");
	if (!colon || colon == line || colon - line >= 79)
		return false;
	char *v = colon + 2 + strspn(colon + 2, " ");
	if (!(*v >= '0' && *v <= '9') && !((*v == '-' || *v == '+') && v[1] >= '0' && v[1] <= '9'))
		return false;
	*colon = 0;
	*key = line + strspn(line, " ");
	*value = v;
	return true;
}

/* Rows from target i's output; how many measurements it gave. */
static int collect(int i)
{
	int found = 0;
	char *text = strdup(targets[i].text);
	for (char *save, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *key, *value;
		if (strncmp(line, "baremon: ", 9) == 0 || !measurement(line, &key, &value))
			continue;
		struct row *r = row_for(key);
		if (r) {
			snprintf(r->values[i], sizeof(r->values[i]), "%s", value);
			found++;
		}
	}
	free(text);
	return found;
}

static void print_table(void)
{
	int keyw = 6, colw[MAX_TARGETS];
	for (int r = 0; r < nrows; r++)
		if ((int)strlen(rows[r].key) > keyw)
			keyw = (int)strlen(rows[r].key);
	for (int i = 0; i < ntargets; i++) {
		colw[i] = (int)strlen(targets[i].name);
		for (int r = 0; r < nrows; r++)
			if ((int)strlen(rows[r].values[i]) > colw[i])
				colw[i] = (int)strlen(rows[r].values[i]);
	}
	printf("%-*s", keyw, "target");
	for (int i = 0; i < ntargets; i++)
		printf("  %*s", colw[i], targets[i].name);
	printf("\n%-*s", keyw, "status");
	for (int i = 0; i < ntargets; i++)
		printf("  %*d", colw[i], targets[i].status);
	printf("\n");
	for (int r = 0; r < nrows; r++) {
		printf("%-*s", keyw, rows[r].key);
		for (int i = 0; i < ntargets; i++)
			printf("  %*s", colw[i], rows[r].values[i][0] ? rows[r].values[i] : "-");
		printf("\n");
	}
}

static int exit_status(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	return WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : EXIT_SOFTWARE;
}

/* Wait for every target. A SIGINT, SIGTERM or SIGHUP to the tool
 * (stop.c records it) goes on to each target's baremon, which stops its
 * command and its QEMU; once all have ended the tool dies of it too. */
static void wait_all(const char *dir)
{
	bool forwarded = false;
	for (int i = 0; i < ntargets; i++) {
		int ws = 0;
		while (waitpid(targets[i].pid, &ws, 0) < 0) {
			if (errno != EINTR) {
				ws = EXIT_SOFTWARE << 8;
				break;
			}
			for (int k = 0; stop_signal && !forwarded && k < ntargets; k++)
				kill(targets[k].pid, stop_signal);
			forwarded = forwarded || stop_signal;
		}
		targets[i].status = exit_status(ws);
	}
	if (!stop_signal)
		return;
	for (int i = 0; i < ntargets; i++)
		unlink(targets[i].out);
	rmdir(dir);
	signal(stop_signal, SIG_DFL);
	raise(stop_signal);
}

int cmd_targets(const char *file, int argc, char **argv, int cmd)
{
	read_targets(file);
	const char *tmp = getenv("TMPDIR");
	static char path[300];
	snprintf(path, sizeof(path), "%s/baremon-targets.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path)) {
		perror("baremon: mkdtemp");
		return EXIT_CANTCREAT;
	}
	for (int i = 0; i < ntargets; i++)
		start(&targets[i], argc, argv, cmd, path);
	wait_all(path);
	int status = 0;
	bool measured[MAX_TARGETS];
	for (int i = 0; i < ntargets; i++) {
		targets[i].text = slurp(targets[i].out);
		measured[i] = collect(i) > 0;
		unlink(targets[i].out);
		if (!status)
			status = targets[i].status;
	}
	rmdir(path);
	for (int i = 0; i < ntargets; i++) {
		if (targets[i].status == 0 && measured[i])
			continue;
		printf("== %s: exit status %d ==\n%s", targets[i].name, targets[i].status,
		       targets[i].text);
		if (*targets[i].text && targets[i].text[strlen(targets[i].text) - 1] != '\n')
			printf("\n");
	}
	print_table();
	return status;
}
