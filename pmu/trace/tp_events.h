/*
 * What tracefs says about each tracepoint (pmu/trace/tp_events.c): its group
 * and name, its fields as the format file lists them, and the print
 * format. Constant; read by tracefs.c to generate the files.
 */
#ifndef BAREMON_PMU_TP_EVENTS_H
#define BAREMON_PMU_TP_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include "trace.h"

/* One "field:" line: its C declaration, place and signedness. */
struct tp_field {
	const char *decl;     /* "char prev_comm[16]", "__data_loc char[] name" */
	uint16_t offset, size;
	bool is_signed;
};

struct tp_event {
	const char *group, *name;
	const struct tp_field *fields;   /* after the common ones; ends with NULL decl */
	const char *print_fmt;
	/* Linux's TRACE_EVENT_FL_CAP_ANY: raw data of a task's own event
	 * is no leak (raw_syscalls), whatever perf_event_paranoid says. */
	bool cap_any;
};

/* Indexed by enum tp_index. */
extern const struct tp_event tp_events[TP_NR];
/* The common_* fields every record starts with. */
extern const struct tp_field tp_common_fields[];

#endif
