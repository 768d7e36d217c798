/* stat: run a program and count events for it, printing perf stat's
 * formats. See main.c for the command line. */
#ifndef APPS_STAT_H
#define APPS_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define MAX_EVENTS 32

struct counter {
	const char *name;          /* as the user wrote it */
	struct perf_event_attr attr;
	int fd;                    /* -1: not supported here */
	uint64_t value, enabled, running;
};

enum output { OUT_TEXT, OUT_CSV, OUT_JSON };

/* events.c: parse one event name (perf's spelling) into attr. */
bool event_parse(const char *name, struct perf_event_attr *attr);

/* print.c */
void print_counters(struct counter *c, int n, enum output how, const char *sep,
		    const char *cmd, uint64_t elapsed_ns);

#endif
