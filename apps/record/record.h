/* record: run a program, sample it with perf_event_open and write every
 * record in perf's pipe format, as perf record -o - does. main.c has the
 * flow; each other file one part:
 *   options.c   the command line into struct config
 *   attrs.c     the perf_event_attr perf record would open
 *   open.c      the events on each CPU, their ids, one buffer per CPU
 *   ring.c      mapping a buffer and taking records out of it
 *   out.c       the output: pipe header, ATTR and FINISHED_ROUND records
 *   tracing.c   the tracepoints' formats (HEADER_TRACING_DATA)
 *   synth.c     COMM and MMAP2 records made from /proc, as perf makes
 *               them for processes that already run
 *   sideband.c  whether the kernel gave the program's COMM and MMAP
 *               records or record must write its own
 *   collect.c   poll, drain, until the program exits
 * Event names, CPU lists and the workload come from apps/lib/perftool.
 */
#ifndef APPS_RECORD_H
#define APPS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include "perftool.h"

#define MAX_EVENTS   64
#define MAX_RECORD   65536        /* header.size is 16 bits */
#define ATTR_SIZE    PERF_ATTR_SIZE_VER7 /* what perf 6.1 reads */

/* perf's own record types (tools/perf/util/event.h, tools/lib/perf). */
enum {
	PERF_RECORD_HEADER_ATTR = 64,
	PERF_RECORD_HEADER_TRACING_DATA = 66,
	PERF_RECORD_FINISHED_ROUND = 68,
	PERF_RECORD_EVENT_UPDATE = 78,
};
enum { PERF_EVENT_UPDATE__NAME = 2 };

struct config {
	char *events[MAX_EVENTS];    /* each -e argument */
	int nevents;
	uint64_t period;             /* -c; 0: use the frequency */
	uint64_t freq;               /* -F */
	bool callchain;              /* -g, --call-graph */
	bool lbr_callchain;          /* --call-graph lbr */
	uint32_t dwarf_stack;        /* --call-graph dwarf[,SIZE]: user stack bytes, or 0 */
	bool branch_any;             /* -b */
	bool all_cpus;               /* -a */
	bool per_thread;             /* --per-thread: the default, said */
	const char *cpu_list;        /* -C */
	const char *output;          /* -o; "-" is standard output */
	unsigned mmap_pages;         /* -m: data pages per buffer */
	bool verbose;                /* -v */
	bool export;                 /* --export: the kernel's exporter */
	bool no_sideband;            /* $BAREMON_RECORD_NO_SIDEBAND: testing */
	char **argv;                 /* PROG ARGS */
};

/* options.c: 0, -1 after --help, or the exit status of a usage error. */
int parse_options(int argc, char **argv, struct config *cfg);

/* One event of the -e list, open on every target CPU. */
struct event {
	struct evspec spec;
	bool tracking;               /* the dummy carrying the side-band (-a, -C) */
	struct perf_event_attr attr; /* as opened */
	int *fd;                     /* per target CPU; -1 not open */
	uint64_t *id;                /* per target CPU */
};

/* Where the events sample: the program on every online CPU (one buffer
 * each, as perf record), or everything on the listed CPUs. */
struct target {
	bool per_cpu;                /* -a or -C: pid -1 */
	int ncpus;
	int cpu[PT_MAX_CPUS];
};
bool target_setup(const struct config *cfg, struct target *t);

struct session;
/* attrs.c: every event's attr; the first event, or the tracking one,
 * asks for the side-band records (comm, mmap, mmap2, task). */
void attrs_setup(struct session *s, const struct config *cfg);
/* Append perf's tracking event (a dummy) to the session's events. */
void attrs_add_tracking(struct session *s);
/* The bytes of the sample_id_all trailer that sample_type adds. */
size_t id_trailer_size(uint64_t sample_type);

/* ring.c: one mapped buffer. */
struct ring {
	int fd;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;               /* data bytes: a power of two */
	uint64_t tail;               /* what has been taken */
	size_t map_len;
};
bool ring_map(struct ring *r, int fd, unsigned pages);
void ring_unmap(struct ring *r);
/* Copy the next record into buf (MAX_RECORD bytes); false when empty. */
bool ring_next(struct ring *r, void *buf);
/* Give the space taken back to the kernel. */
void ring_release(struct ring *r);

/* open.c */
struct session {
	struct event ev[MAX_EVENTS];
	int nev;
	struct target t;
	struct ring ring[PT_MAX_CPUS]; /* per target CPU: the first event's */
	int nrings;
};
bool events_open(struct session *s, const struct config *cfg, pid_t pid);
void events_enable(struct session *s);
void events_close(struct session *s);

/* out.c: buffered writes to the output file. */
struct out {
	int fd;
	const char *path;            /* as given, for messages */
	uint64_t bytes;              /* written so far */
	bool failed;
	size_t len;
	unsigned char buf[1 << 16];
};
bool out_open(struct out *o, const char *path);
void out_write(struct out *o, const void *p, size_t n);
bool out_close(struct out *o);
/* The 16-byte pipe header. */
void out_pipe_header(struct out *o);
/* A PERF_RECORD_HEADER_ATTR for each event with its ids, then a
 * PERF_RECORD_EVENT_UPDATE with its name. */
void out_attrs(struct out *o, const struct session *s);
/* tracing.c: the formats of the tracepoints among the events (a
 * HEADER_TRACING_DATA record; nothing without tracepoints); false if
 * tracefs could not give them. */
bool out_tracing_data(struct out *o, const struct session *s);
void out_finished_round(struct out *o);

/* synth.c: records describing process pid as /proc shows it now. */
struct synth {
	unsigned char *buf;          /* records, back to back */
	size_t len, cap;
	int comms, mmaps;            /* records of each kind */
};
/* COMM of each thread, MMAP2 of each executable mapping; false when the
 * process is gone. trailer: the sample_id_all bytes (zero) to add. */
bool synth_process(struct synth *sy, pid_t pid, size_t trailer);
/* Only the COMM records or only the MMAP2 records of sy into out. */
void synth_write(const struct synth *sy, struct out *o, uint32_t type);
/* The kernel's text, from /proc/kallsyms (nothing if unreadable). */
void synth_kernel(struct out *o, size_t trailer);
/* Every process in /proc but record and skip (-a). */
void synth_all(struct out *o, size_t trailer, pid_t skip);
void synth_free(struct synth *sy);

/* sideband.c: the program's COMM and MMAP records, the kernel's or ours. */
struct sideband {
	pid_t pid;                   /* the program */
	unsigned tid_word;           /* where TID is in a sample (u64s) */
	bool execd;                  /* it has exec'd: sy holds its /proc view */
	bool kernel_comm, kernel_mmap; /* the kernel gave them */
	bool sampled;                /* a sample of the program was seen */
	bool decided;                /* ours written, or not needed */
	bool wrote_comm, wrote_mmap; /* ours went out */
	struct synth sy;
	uint64_t samples, lost;      /* for the summary */
};
/* The program, and the layout of samples (every event's starts alike). */
void sideband_setup(struct sideband *b, pid_t pid, uint64_t sample_type);
/* Look at one record on its way out. */
void sideband_see(struct sideband *b, const struct perf_event_header *h);
/* After the exec: keep what /proc says about the program. */
void sideband_capture(struct sideband *b, size_t trailer);
/* Decide (once) whether to write ours, writing them if so; `final`:
 * the program has exited and every record was seen. */
void sideband_settle(struct sideband *b, struct out *o, bool final);

/* collect.c: drain the buffers until the program exits, then once more.
 * Returns false when writing failed. */
struct workload;
bool collect(struct session *s, struct sideband *b, struct out *o, struct workload *w);

/* export.c (--export): the kernel streams each buffer as frames
 * (PERF_EVENT_IOC_BAREMON_EXPORT); record writes only what is not in
 * the buffers. Start before the program runs; finish once it exited,
 * waiting until the kernel sent everything. False on failure. */
bool export_start(struct session *s);
bool export_finish(struct session *s, struct sideband *b, struct out *o, struct workload *w);

#endif
