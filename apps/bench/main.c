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
#include "config.h"
#include "perftool.h"

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

/* The -config and -msr_config files; exits 2 on a bad line or on what
 * user mode cannot do. */
static void load_events(const struct bench_opts *o, struct bench_events *w)
{
	static struct bench_event events[BENCH_MAX_EVENTS];
	static struct bench_msr_cfg mcs[BENCH_MAX_MSR_CONFIGS];
	char err[200];
	size_t len;
	if (o->config) {
		char *text = (char *)slurp(o->config, &len);
		w->nev = config_parse(text, events, BENCH_MAX_EVENTS, err, sizeof err);
		if (w->nev >= 0 && (o->kernel ? config_check_kernel(events, w->nev, counters_per_set(),
								       err, sizeof err) :
				    config_check_user(events, w->nev, err, sizeof err)))
			w->nev = -1;
		if (w->nev < 0) {
			fprintf(stderr, "bench: %s: %s\n", o->config, err);
			exit(2);
		}
		w->ev = events;
	}
	if (o->msr_config) {
		if (!o->kernel) {
			fprintf(stderr, "bench: -msr_config needs -kernel "
				"(user mode writes and reads no MSR)\n");
			exit(2);
		}
		char *text = (char *)slurp(o->msr_config, &len);
		w->nmc = msrconfig_parse(text, mcs, BENCH_MAX_MSR_CONFIGS, err, sizeof err);
		if (w->nmc < 0) {
			fprintf(stderr, "bench: %s: %s\n", o->msr_config, err);
			exit(2);
		}
		w->mc = mcs;
	}
}

/* On the software PMU model: a note when user-mode counters will be
 * counted by single-stepping the snippet (perftool's model_notes). */
static void model_note(const struct bench_opts *o, const struct bench_events *w)
{
	static struct perf_event_attr a[BENCH_MAX_EVENTS + 1];
	int n = 0;
	if (o->kernel)
		return;
	if (o->fixed_counters) {
		a[n].type = PERF_TYPE_HARDWARE;
		a[n++].config = PERF_COUNT_HW_INSTRUCTIONS;
	}
	for (int i = 0; i < w->nev; i++) {
		a[n].type = PERF_TYPE_RAW;
		a[n++].config = config_raw(&w->ev[i]);
	}
	model_notes("bench", a, sizeof a[0], n, false);
}

int main(int argc, char **argv)
{
	static struct bench_opts o;
	options_parse(argc, argv, &o);
	struct bench_code c = {
		load(o.code), load(o.code_init), load(o.code_late_init), load(o.code_one_time_init),
	};
	struct bench_events w = { 0 };
	load_events(&o, &w);
	model_note(&o, &w);
	pin(o.cpu);
	return run_all(&o, &c, &w);
}
