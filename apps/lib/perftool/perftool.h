/* perftool: what the perf tools (stat, record) share. Each file one part:
 *   evlist.c    -e lists: groups {a,b}, modifiers :u/:k, names
 *   events.c    perf's symbolic names (hardware, software) and rNNNN
 *   hwcache.c   HW_CACHE names (L1-dcache-load-misses, LLC-loads, ...)
 *   pmu.c       pmu/term=value,.../ and event aliases through sysfs
 *   sysfs.c     reading small files under $BAREMON_SYSFS (or /sys)
 *   cpulist.c   CPU lists (0,2-3) and the online CPUs
 *   opts.c      options as perf spells them (-r3, --repeat=3, ...)
 *   attrdump.c  -v: perf's dump of each perf_event_attr opened
 *   workload.c  the measured program: fork, hold, start, wait
 *   modelnote.c notes when the counts come from the software PMU model
 * Errors that come back to the caller are written into an err buffer
 * without the tool's name; the caller prints "TOOL: err".
 */
#ifndef APPS_PERFTOOL_H
#define APPS_PERFTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define PT_MAX_CPUS 1024

/* One event of a -e list. */
struct evspec {
	char *name;                  /* as written, or its name= term (malloc'd) */
	struct perf_event_attr attr; /* type, config, modifiers; size set */
	int leader;                  /* index of its group leader (itself if none) */
};

/* evlist.c: parse a -e list into e[*n], e[*n + 1], ... (at most max in
 * all); false with the reason in err ("unknown event 'x': why"). */
bool evlist_parse(const char *list, struct evspec *e, int *n, int max, char *err,
		  size_t errlen);

/* events.c: a perf symbolic name or rNNNN into attr (type, config). */
bool event_symbolic(const char *name, struct perf_event_attr *attr);
/* hwcache.c: a HW_CACHE name (L1-dcache-load-misses...) into attr. */
bool event_hwcache(const char *name, struct perf_event_attr *attr);
/* The i-th valid HW_CACHE event (0, 1, ...): perf's name for it in buf
 * and its type and config in attr; false past the last. */
bool hwcache_name(int i, char *buf, size_t n, struct perf_event_attr *attr);

/* pmu.c: "pmu/terms/" (pmu and terms given apart) or an alias found in
 * some PMU's events/. 1 resolved, 0 no such PMU or alias, -1 error
 * with the reason in err. *name receives a name= term (malloc'd). */
int pmu_event(const char *pmu, const char *terms, struct perf_event_attr *attr,
	      char **name, char *err, size_t errlen);
int pmu_alias(const char *event, struct perf_event_attr *attr, char *err, size_t errlen);

/* sysfs.c: files under $BAREMON_SYSFS (default /sys). */
const char *sysfs_root(void);
/* Read the small file at root/rel into buf (trailing newline removed);
 * false if it cannot be read. */
bool sysfs_read(const char *rel, char *buf, size_t n);
bool sysfs_exists(const char *rel);

/* cpulist.c: a list "0,2-3" into sorted distinct CPUs; -1 if malformed
 * or more than max. */
int cpu_list_parse(const char *s, int *cpu, int max);
/* The online CPUs (sysfs devices/system/cpu/online); -1 if unreadable. */
int cpus_online(int *cpu, int max);

/* opts.c: one option. */
struct ptopt {
	char letter;
	const char *name;            /* the long name, without "--" */
	bool arg;                    /* takes a value */
};
/* The option at argv[*i] (advancing *i past a separate value) and its
 * value (NULL for a flag); NULL after printing "TOOL: unknown option"
 * or "needs a value". */
const struct ptopt *opt_next(const struct ptopt *opts, int n, const char *tool, int argc,
			     char **argv, int *i, const char **val);

/* attrdump.c: -v output (perf -vv's) for one perf_event_open call:
 * the attr between two rules, then the call and its result. perf
 * prints the attr once for the calls of one event on several CPUs. */
void attr_dump(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
	       unsigned long flags, int result, int err);
void attr_dump_attr(const struct perf_event_attr *a);
void attr_dump_call(pid_t pid, int cpu, int group_fd, unsigned long flags, int result, int err);

/* workload.c: the program is forked first and held on a pipe, so events
 * can be opened on its pid before it runs. */
struct workload {
	const char *tool;            /* "stat": the prefix of messages */
	pid_t pid;
	int go;                      /* write end of the start pipe */
	int execd;                   /* read end of a close-on-exec pipe: end of
				      * file once the program has exec'd */
	int pidfd;                   /* -1 when pidfd_open is missing */
	int status;                  /* wait status once exited */
	uint64_t utime_ns, stime_ns; /* from wait4's rusage */
};
/* stdout_to_stderr: the program writes to the tool's standard error
 * (the tool's standard output carries data, as record -o -). */
bool workload_prepare(struct workload *w, const char *tool, char **argv, bool stdout_to_stderr);
void workload_start(struct workload *w);
/* After workload_start: wait until the program has exec'd; false when
 * the exec failed (the child exits 127). */
bool workload_wait_exec(struct workload *w);
void workload_abort(struct workload *w);
/* Wait up to timeout_ms (< 0: until it exits); true once it exited. */
bool workload_wait(struct workload *w, int timeout_ms);
/* The exit status as a shell gives it (128 + signal). */
int workload_exit_status(const struct workload *w);

/* modelnote.c: on the software PMU model, say on stderr which of the n
 * attrs (first, then every stride bytes) it counts by single-stepping
 * and, with say_cycles, what its cycles are; elsewhere nothing. */
void model_notes(const char *tool, const struct perf_event_attr *first, size_t stride, int n,
		 bool say_cycles);

#endif
