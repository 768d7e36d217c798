/*
 * record [-e EVENT,...] [-c N | -F HZ] [-g] [-a | -C CPUS] [-o FILE] [-m PAGES] [-v]
 *        [--] PROG [ARGS...]
 *
 * Runs PROG and samples it (and its children) from its exec to its exit,
 * like perf record: by default cpu-clock about 4000 times a second
 * (what perf record falls back to without a hardware PMU); with -a or
 * -C, everything on those CPUs while it runs. Every record the kernel
 * writes goes to FILE in perf's pipe format, which perf script and perf
 * report read (-i FILE). FILE is perf.data in the current directory
 * (/tmp/perf.data where that cannot be created, as at baremon's
 * read-only /), or standard output for "-" or when that is a pipe (the
 * program's own output then goes to standard error, as with perf).
 * Exit status: PROG's; 2 for a usage error or an unknown event, 1 when
 * recording could not start or the output could not be written.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "record.h"

static bool parse_list(const char *list, struct session *s)
{
	static struct evspec e[MAX_EVENTS]; /* one left for the tracking event */
	char err[256];
	int first = s->nev;
	if (!evlist_parse(list, e, &s->nev, MAX_EVENTS - 1, err, sizeof err)) {
		fprintf(stderr, "record: %s\n", err);
		return false;
	}
	for (int i = first; i < s->nev; i++)
		s->ev[i].spec = e[i];
	return true;
}

static bool parse_events(const struct config *cfg, struct session *s)
{
	for (int i = 0; i < cfg->nevents; i++)
		if (!parse_list(cfg->events[i], s))
			return false;
	return s->nev > 0 || parse_list("cpu-clock", s);
}

static bool stdout_is_pipe(void)
{
	struct stat st;
	return fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
}

static bool open_output(const struct config *cfg, struct out *o)
{
	const char *path = cfg->output ? cfg->output : stdout_is_pipe() ? "-" : "perf.data";
	if (out_open(o, path))
		return true;
	if (!cfg->output && out_open(o, "/tmp/perf.data"))
		return true;
	fprintf(stderr, "record: cannot create %s: %s\n", path, strerror(errno));
	return false;
}

static void summary(const struct out *o, const struct sideband *b, bool verbose)
{
	if (verbose && b->wrote_comm)
		fprintf(stderr, "record: no COMM record from the kernel: wrote one from /proc/%d/comm\n",
			(int)b->pid);
	if (verbose && b->wrote_mmap)
		fprintf(stderr, "record: no MMAP records from the kernel: wrote %d from /proc/%d/maps\n",
			b->sy.mmaps, (int)b->pid);
	if (b->lost)
		fprintf(stderr, "[ record: %llu samples lost ]\n", (unsigned long long)b->lost);
	fprintf(stderr, "[ record: Captured and wrote %llu bytes to %s (%llu samples) ]\n",
		(unsigned long long)o->bytes, o->path, (unsigned long long)b->samples);
}

/* Open, start the program, collect; false when recording failed. */
static bool run(const struct config *cfg, struct session *s, struct sideband *b, struct out *o,
		struct workload *w)
{
	if (!workload_prepare(w, "record", cfg->argv, o->fd == STDOUT_FILENO))
		return false;
	if (!events_open(s, cfg, w->pid)) {
		workload_abort(w);
		return false;
	}
	size_t trailer = id_trailer_size(s->ev[0].attr.sample_type);
	out_pipe_header(o);
	out_attrs(o, s);
	if (!out_tracing_data(o, s)) {
		workload_abort(w);
		events_close(s);
		return false;
	}
	synth_kernel(o, trailer);
	if (s->t.per_cpu) {
		synth_all(o, trailer, w->pid);
		events_enable(s);
	}
	sideband_setup(b, w->pid, s->ev[0].attr.sample_type);
	if (cfg->export && !export_start(s)) {
		workload_abort(w);
		events_close(s);
		return false;
	}
	workload_start(w);
	if (workload_wait_exec(w))
		sideband_capture(b, trailer);
	bool ok = cfg->export ? export_finish(s, b, o, w) : collect(s, b, o, w);
	events_close(s);
	return ok;
}

int main(int argc, char **argv)
{
	static struct config cfg;
	static struct session s;
	static struct sideband b;
	static struct out o;
	struct workload w;
	int bad = parse_options(argc, argv, &cfg);
	if (bad)
		return bad < 0 ? 0 : bad;
	if (!parse_events(&cfg, &s) || !target_setup(&cfg, &s.t))
		return 2;
	if (s.t.per_cpu && !cfg.no_sideband)
		attrs_add_tracking(&s);
	if (!open_output(&cfg, &o))
		return 1;
	bool ok = run(&cfg, &s, &b, &o, &w);
	ok = out_close(&o) && ok;
	if (!ok)
		return 1;
	summary(&o, &b, cfg.verbose);
	return workload_exit_status(&w);
}
