/*
 * bench: nanoBench's interface (docs/bench.md). Reads the snippets and
 * the config file, then hands over to run.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "bench.h"

/* A whole file into memory, NUL-terminated; exits if unreadable. */
static uint8_t *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fprintf(stderr, "bench: out of memory reading %s\n", path);
			exit(1);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			fprintf(stderr, "bench: %s: %s\n", path, strerror(errno));
			exit(1);
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static struct snippet load(const char *path)
{
	struct snippet s = { NULL, 0 };
	if (path)
		s.bytes = slurp(path, &s.len);
	return s;
}

static void pin(int cpu)
{
	unsigned now = 0;
	if (cpu < 0) {
		syscall(SYS_getcpu, &now, NULL, NULL);
		cpu = (int)now;
	}
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) < 0) {
		fprintf(stderr, "bench: cannot run on CPU %d: %s\n", cpu, strerror(errno));
		exit(1);
	}
	sched_yield();
}

int main(int argc, char **argv)
{
	static struct bench_opts o;
	static struct bench_event events[BENCH_MAX_EVENTS];
	options_parse(argc, argv, &o);
	struct bench_code c = {
		load(o.code), load(o.code_init), load(o.code_late_init), load(o.code_one_time_init),
	};
	int nev = 0;
	if (o.config) {
		size_t len;
		char err[160];
		char *text = (char *)slurp(o.config, &len);
		nev = config_parse(text, events, BENCH_MAX_EVENTS, err, sizeof err);
		if (nev < 0) {
			fprintf(stderr, "bench: %s: %s\n", o.config, err);
			return 2;
		}
	}
	pin(o.cpu);
	return run_all(&o, &c, events, nev);
}
