/*
 * testcase NAME CMD [ARGS]: run CMD and report it as a test case with
 * its measurements, in lines a CI system's console parser can match (the
 * LAVA jobs' monitor pattern, docs/lava.md):
 *   testcase NAME: begin
 *   ... CMD's output (stdout and stderr), line by line as it comes ...
 *   testcase NAME.KEY: pass VALUE UNITS      one per measurement
 *   testcase NAME: pass|fail STATUS status   CMD's exit status
 *   testcase NAME: end
 * Measurements are read from the output as bench, noise and stat print
 * them:
 *   KEY: VALUE ...            bench ("RDTSC: 16.00"), VALUE a number
 *   HEAD1 HEAD2 ... / ROW     noise's table: a header of names, then rows
 *                             of as many words, the first the row's name
 *                             ("cpu1.median_us"); "-" cells are skipped
 *   NUMBER [msec] EVENT       stat's counts ("  1,234  instructions:u")
 * Units come from the name: a _us/_ns/_ms/_% suffix, "msec", cycles,
 * instructions, branches, else "count". The exit status is CMD's (127
 * when it cannot be run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define MAX_COLS 12

static const char *name;
/* The last header line seen (noise's table): its words. */
static char header[256];
static char *cols[MAX_COLS];
static int ncols;

static int is_number(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!(*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '.' || *s == ','))
			return 0;
	return 1;
}

static int has(const char *s, const char *word)
{
	char low[128];
	size_t i = 0;
	for (; s[i] && i + 1 < sizeof(low); i++)
		low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
	low[i] = 0;
	return strstr(low, word) != NULL;
}

static const char *units_of(const char *key)
{
	static const struct { const char *suffix, *units; } suffixes[] = {
		{ "_us", "us" }, { "_ns", "ns" }, { "_ms", "ms" }, { "_%", "percent" },
	};
	size_t n = strlen(key);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i].suffix);
		if (n > k && !strcmp(key + n - k, suffixes[i].suffix))
			return suffixes[i].units;
	}
	if (has(key, "cycles") || has(key, "rdtsc"))
		return "cycles";
	if (has(key, "inst"))
		return "instructions";
	if (has(key, "branch"))
		return "branches";
	return "count";
}

/* One measurement line; KEY's blanks become '_' (a case id is a word). */
static void measure(const char *key, const char *value, const char *units)
{
	char id[128], num[48];
	size_t i = 0, j = 0;
	for (; key[i] && i + 1 < sizeof(id); i++)
		id[i] = key[i] == ' ' ? '_' : key[i];
	id[i] = 0;
	for (i = 0; value[i] && j + 1 < sizeof(num); i++)
		if (value[i] != ',')   /* stat's thousands separators */
			num[j++] = value[i];
	num[j] = 0;
	printf("testcase %s.%s: pass %s %s\n", name, id, num, units ? units : units_of(key));
}

/* Split line (a copy) at blanks into at most max words. */
static int words(char *line, char **w, int max)
{
	int n = 0;
	for (char *save, *t = strtok_r(line, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

/* "KEY: VALUE": bench's lines. */
static int key_value(const char *line)
{
	const char *colon = strstr(line, ": ");
	if (!colon || colon == line || colon - line > 100)
		return 0;
	char key[128], value[64];
	snprintf(key, sizeof(key), "%.*s", (int)(colon - line), line);
	const char *v = colon + 2 + strspn(colon + 2, " ");
	snprintf(value, sizeof(value), "%.*s", (int)strcspn(v, " \t"), v);
	if (!is_number(value))
		return 0;
	measure(key + strspn(key, " "), value, NULL);
	return 1;
}

/* A row under the last header (noise), or stat's "NUMBER [msec] EVENT";
 * a line of names only becomes the header. */
static void table(const char *line)
{
	char copy[256], *w[MAX_COLS + 1];
	snprintf(copy, sizeof(copy), "%s", line);
	int n = words(copy, w, MAX_COLS + 1);
	if (n < 2 || n > MAX_COLS)
		return;
	int numbers = 0;
	for (int i = 0; i < n; i++)
		numbers += is_number(w[i]);
	if (numbers == 0) {
		snprintf(header, sizeof(header), "%s", line);
		ncols = words(header, cols, MAX_COLS);
		return;
	}
	if (n == ncols && numbers >= n - 1 && is_number(w[0])) {
		for (int i = 1; i < n; i++) {
			if (!is_number(w[i]))
				continue;
			char key[128];
			snprintf(key, sizeof(key), "%s%s.%s", cols[0], w[0], cols[i]);
			measure(key, w[i], NULL);
		}
		return;
	}
	if (is_number(w[0]) && (n == 2 || (n >= 3 && !strcmp(w[1], "msec"))))
		measure(n == 2 ? w[1] : w[2], w[0], n == 2 ? "count" : "msec");
}

static void parse(const char *line)
{
	if (!key_value(line))
		table(line);
}

/* Copy fd to stdout, parsing each whole line as it comes (a line longer
 * than the buffer is parsed in pieces). */
static void follow(int fd)
{
	char buf[512];
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		fwrite(buf + len, 1, (size_t)n, stdout);
		len += (size_t)n;
		char *start = buf, *nl;
		while ((nl = memchr(start, '\n', len - (size_t)(start - buf)))) {
			*nl = 0;
			if (nl > start && nl[-1] == '\r')
				nl[-1] = 0;
			parse(start);
			start = nl + 1;
		}
		len -= (size_t)(start - buf);
		memmove(buf, start, len);
		if (len == sizeof(buf) - 1) {
			buf[len] = 0;
			parse(buf);
			len = 0;
		}
		fflush(stdout);
	}
	if (len) {
		buf[len] = 0;
		parse(buf);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: testcase NAME CMD [ARGS]\n");
		return 2;
	}
	name = argv[1];
	printf("testcase %s: begin\n", name);
	fflush(stdout);
	int fds[2];
	if (pipe(fds) < 0) {
		perror("testcase: pipe");
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "testcase: %s: cannot run it\n", argv[2]);
		_exit(127);
	}
	close(fds[1]);
	follow(fds[0]);
	int ws = 0, status = 127;
	if (pid > 0 && waitpid(pid, &ws, 0) == pid)
		status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	printf("testcase %s: %s %d status\n", name, status ? "fail" : "pass", status);
	printf("testcase %s: end\n", name);
	return status;
}
