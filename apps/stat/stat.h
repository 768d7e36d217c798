/* stat: run a program and count events for it, printing perf stat's
 * formats. main.c has the command line; each other file one part:
 *   options.c   the command line into struct config
 *   cpus.c      the target CPUs of -a and -C
 *   threads.c   the target threads of -p, -t and --per-thread
 *   counters.c  opening, enabling, reading and closing the events
 *   run.c       one run: counters around the workload, -I ticks
 *   rows.c      readings into rows: scaling, sums over CPUs, means
 *   stats.c     means and the variance of -r
 *   metrics.c   the "# ..." column (CPUs utilized, K/sec, ...)
 *   print.c     rows in text, CSV and JSON; fmt.c numbers and lines
 * Event names, sysfs, CPU lists and the workload come from the perftool
 * library (apps/lib/perftool), which record shares.
 */
#ifndef APPS_STAT_H
#define APPS_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "perftool.h"

#define MAX_EVENTS 64
#define MAX_CPUS   PT_MAX_CPUS

enum output { OUT_TEXT, OUT_CSV, OUT_JSON };

/* Running statistics (Welford): the mean and the variance of -r runs. */
struct stats {
	double n, mean, m2;
};

void stats_add(struct stats *s, double x);
double stats_mean(const struct stats *s);
/* The standard deviation of the mean; 0 with fewer than two values. */
double stats_stddev_mean(const struct stats *s);
/* 100 * stddev / avg, perf's "( +- x.xx% )"; 0 when avg is 0. */
double rel_pct(double stddev, double avg);

/* One read(2) of an event with TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING. */
struct reading {
	uint64_t value, enabled, running;
};

/* What -r accumulates for one counter on one slot (CPU, or all). */
struct acc {
	struct stats value, enabled, running; /* value: scaled */
};

struct counter {
	char *name;                  /* as printed */
	struct perf_event_attr attr;
	int leader;                  /* index of the group leader (itself if none) */
	bool supported;              /* opened on some CPU in some run */
	int *fd;                     /* per target CPU; -1 not open */
	struct reading *now, *prev;  /* per target CPU: last read, the one before */
	struct acc *acc;             /* per slot: across runs */
};

/*
 * Where the events count, one slot of fds per entry of cpu[] (and
 * tid[]): the program (one slot, cpu -1, inherited), every listed CPU
 * (pid -1), or with -p/-t/--per-thread threads that already run (each
 * its tid on any CPU).
 */
struct target {
	bool per_cpu;                /* -a or -C: pid -1 on each CPU */
	bool threads;                /* -p, -t, -a --per-thread: a slot per thread */
	bool no_aggr;                /* -A, --per-thread: a row per slot */
	int ncpus;                   /* slots: 1 in task mode (cpu[0] = -1) */
	int cpu[MAX_CPUS];
	pid_t tid[MAX_CPUS];         /* threads: each slot's thread */
	char comm[MAX_CPUS][16];     /* threads: its name when found */
	const char *label;           /* "'system wide'", "process id '5'" */
};

static inline int target_slots(const struct target *t)
{
	return t->no_aggr ? t->ncpus : 1;
}

struct config {
	enum output how;
	const char *sep;             /* -x */
	int repeat;                  /* -r */
	unsigned interval_ms;        /* -I; 0 none */
	bool all_cpus;               /* -a */
	const char *cpu_list;        /* -C */
	bool no_aggr;                /* -A */
	const char *pids, *tids;     /* -p, -t: lists of existing ones */
	bool per_thread;             /* --per-thread: a row per thread */
	bool verbose;                /* -v */
	char *events[MAX_EVENTS];    /* each -e argument */
	int nevents;
	char **argv;                 /* PROG ARGS */
};

/* options.c: 0, -1 after --help, or the exit status of a usage error
 * (printed). */
int parse_options(int argc, char **argv, struct config *cfg);

/* cpus.c: the target for -a / -C (and threads.c's for -p, -t,
 * --per-thread); false after printing why. */
bool target_setup(const struct config *cfg, struct target *t);
bool target_threads(const struct config *cfg, struct target *t);
/* threads.c: whether any target thread still exists. */
bool threads_alive(const struct target *t);

/* counters.c */
/* hybrid.c: on a hybrid machine (cpu_core and cpu_atom PMUs), each
 * generic hardware/cache event not in a group becomes one counter per
 * core PMU ("cpu_core/cycles/"), as perf stat does; false if too many. */
bool hybrid_expand(struct counter *c, int *n);

bool counters_alloc(struct counter *c, int n, const struct target *t);
/* Open every counter for pid (task mode) or on each CPU; false after
 * printing why when an error is not "this event is not supported". */
bool counters_open(struct counter *c, int n, const struct target *t, pid_t pid,
		   bool verbose);
void counters_enable(struct counter *c, int n, const struct target *t, bool on);
void counters_read(struct counter *c, int n, const struct target *t);
void counters_close(struct counter *c, int n, const struct target *t);

/* One row of output: a counter on a slot, already reduced to numbers. */
enum row_state { ROW_COUNTED, ROW_NOT_COUNTED, ROW_NOT_SUPPORTED };
struct row {
	const struct counter *c;
	int cpu;                     /* -1: aggregated */
	int slot;                    /* the target's slot (rows per slot) */
	enum row_state state;
	double value;                /* scaled; task-clock in ns */
	double enabled, running;
	double noise;                /* relative stddev, percent (-r) */
};

/* metrics.c: the shadow metric of row r among the rows of its slot. */
struct metric {
	bool present;
	double value;
	int width, decimals;         /* text: "%*.*f" then suffix */
	const char *suffix;          /* "", " " or "%" */
	const char *unit;
};
struct metric metric_of(const struct row *r, const struct row *slot, int n, int stride,
			double elapsed_ns);
bool is_clock(const struct perf_event_attr *a);

/* print.c */
struct report {
	enum output how;
	const char *sep;
	int runs;                    /* > 1: the variance columns */
	bool interval;
	double time_s;               /* interval: the timestamp */
	bool per_cpu_rows;           /* -A: the CPU column */
	const struct target *thread_rows; /* --per-thread: the comm-tid column */
	double elapsed_ns;           /* wall time the counts cover */
};
/* rows[i * nslots + s]: counter i on slot s. */
void print_rows(const struct report *r, const struct row *rows, int ncounters, int nslots);
void print_header(const struct report *r, const char *what);
void print_interval_header(const struct report *r);
void print_footer(const struct report *r, const struct stats *elapsed,
		  const struct workload *w, bool show_times);

/* fmt.c: decimals without printf's %f, and whole-line output. */
const char *fmt_fixed(char *buf, size_t n, double v, int decimals);
struct line {
	char buf[1024];
	size_t len;
};
void line_add(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void line_pad(struct line *l, size_t column);
void line_json_string(struct line *l, const char *s);
/* Write the line (trailing blanks removed) and a newline to stderr. */
void line_end(struct line *l);

/* rows.c: counters into rows[i * slots + s]. */
void rows_from_readings(struct row *rows, const struct counter *c, int n,
			const struct target *t, bool delta);
/* Add this run's readings to each counter's acc. */
void rows_accumulate(struct counter *c, int n, const struct target *t);
/* Means (and variances) of the runs. */
void rows_from_runs(struct row *rows, const struct counter *c, int n, const struct target *t);

/* run.c: one run of the workload with counting around it. Returns the
 * program's exit status, or -1 after a fatal error (printed). */
int run_once(const struct config *cfg, struct counter *c, int n, const struct target *t,
	     struct stats *elapsed, struct workload *w);

#endif
