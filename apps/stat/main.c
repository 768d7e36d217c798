/*
 * stat [-e EVENT,...] [-x SEP] [-j] [--] PROG [ARGS...]
 *
 * Runs PROG and counts events for it (and its children: inherit) from
 * its exec to its exit, like perf stat. Without -e: task-clock,
 * context-switches, cpu-migrations, page-faults, cycles, instructions,
 * branches, branch-misses (those the machine cannot count print
 * "<not supported>"). Output goes to standard error, as perf's does.
 * Exit status: PROG's.
 */
#include <errno.h>
#include <perf_event_open.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "stat.h"

static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"cycles", "instructions", "branches", "branch-misses",
};

static int usage(void)
{
	fprintf(stderr, "usage: stat [-e EVENT,...] [-x SEP] [-j] [--] PROG [ARGS...]\n");
	return 2;
}

static int add_events(struct counter *c, int n, char *list)
{
	for (char *save, *name = strtok_r(list, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		if (n == MAX_EVENTS) {
			fprintf(stderr, "stat: at most %d events\n", MAX_EVENTS);
			return -1;
		}
		if (!event_parse(name, &c[n].attr)) {
			fprintf(stderr, "stat: unknown event '%s'\n", name);
			return -1;
		}
		c[n++].name = name;
	}
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Open every counter on the (stopped) child: counting starts at exec. */
static void open_counters(struct counter *c, int n, pid_t child)
{
	for (int i = 0; i < n; i++) {
		c[i].attr.disabled = 1;
		c[i].attr.enable_on_exec = 1;
		c[i].attr.inherit = 1;
		c[i].attr.exclude_guest = 1;
		c[i].attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					PERF_FORMAT_TOTAL_TIME_RUNNING;
		c[i].fd = perf_event_open(&c[i].attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
}

static void read_counters(struct counter *c, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t v[3];
		if (c[i].fd >= 0 && read(c[i].fd, v, sizeof v) == (ssize_t)sizeof v) {
			c[i].value = v[0];
			c[i].enabled = v[1];
			c[i].running = v[2];
		}
	}
}

int main(int argc, char **argv)
{
	static struct counter c[MAX_EVENTS];
	int n = 0, i = 1;
	enum output how = OUT_TEXT;
	const char *sep = ",";
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-e") && i + 1 < argc) {
			if ((n = add_events(c, n, argv[++i])) < 0)
				return 2;
		} else if (!strcmp(argv[i], "-x") && i + 1 < argc) {
			how = OUT_CSV;
			sep = argv[++i];
		} else if (!strncmp(argv[i], "-x", 2) && argv[i][2]) {
			how = OUT_CSV; /* perf's -x, */
			sep = argv[i] + 2;
		} else if (!strcmp(argv[i], "-j")) {
			how = OUT_JSON;
		} else {
			return usage();
		}
	}
	if (i >= argc)
		return usage();
	for (unsigned k = 0; n == 0 && k < sizeof(default_events) / sizeof(default_events[0]); k++) {
		event_parse(default_events[k], &c[k].attr);
		c[k].name = default_events[k];
		if (k + 1 == sizeof(default_events) / sizeof(default_events[0]))
			n = (int)k + 1;
	}

	int go[2];
	if (pipe(go)) {
		perror("stat: pipe");
		return 1;
	}
	pid_t child = fork();
	if (child < 0) {
		perror("stat: fork");
		return 1;
	}
	if (child == 0) {
		char byte;
		close(go[1]);
		if (read(go[0], &byte, 1) != 1)
			_exit(127);
		execvp(argv[i], argv + i);
		fprintf(stderr, "stat: %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	close(go[0]);
	open_counters(c, n, child);
	uint64_t start = now_ns();
	write(go[1], "x", 1);
	close(go[1]);
	int status;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	uint64_t elapsed = now_ns() - start;
	read_counters(c, n);

	char cmd[256] = "";
	for (int k = i; k < argc; k++) {
		strlcat(cmd, argv[k], sizeof(cmd) - 1);
		if (k + 1 < argc)
			strlcat(cmd, " ", sizeof(cmd));
	}
	print_counters(c, n, how, sep, cmd, elapsed);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
