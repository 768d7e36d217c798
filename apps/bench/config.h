/*
 * config.h: nanoBench's performance-counter config files.
 *
 *   EvtSel.UMASK(.CMSK=..)(.AnyT)(.EDG)(.INV)(.CTR=..)(.MSR_...=..) Name
 *
 * EvtSel and UMASK are hex (EvtSel up to 12 bits: AMD's extended event
 * select goes to config bits 32-35, as Linux's raw encoding has it);
 * CMSK, CTR and MSR values are C numbers (0x.. hex, else decimal). A
 * '#' starts a comment; blank lines are skipped. Pure: no I/O.
 */
#ifndef BENCH_CONFIG_H
#define BENCH_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_EVENTS 256
#define BENCH_EVENT_MSRS 4

struct bench_msr {
	char name[16];        /* what follows "MSR_": "3F6H", "PF", "RSP0" */
	uint64_t value;
};

struct bench_event {
	char name[64];
	unsigned line;        /* in the file, from 1 */
	unsigned evtsel, umask, cmask;
	int any, edge, inv;
	int ctr;              /* .CTR=n, or -1 */
	struct bench_msr msr[BENCH_EVENT_MSRS];
	int nmsr;
};

/*
 * Parse a whole file's text into ev[0..max). Returns the number of events,
 * or -1 with "line N: why" in err.
 */
int config_parse(const char *text, struct bench_event *ev, int max,
		 char *err, size_t errlen);

/* The PERF_TYPE_RAW config of an event (PERFEVTSELx layout). */
uint64_t config_raw(const struct bench_event *e);

/* The value of .MSR_<name>=, or -1 if the event has none. */
int64_t config_msr(const struct bench_event *e, const char *name);

/* The MSR a .MSR_<name>= field writes in kernel mode, as nanoBench names
 * them: RSP0 0x1A6 and RSP1 0x1A7 (offcore response), 3F6H 0x3F6 (load
 * latency threshold), PF 0x3F7 (PEBS front end); any other name is a hex
 * address with an optional trailing H. -1 if it is neither. */
int64_t config_msr_address(const char *name);

/* What perf can express in user mode: no .CTR= (perf chooses the
 * counter) and at most one .MSR_ field, RSP0, RSP1, 3F6H or PF (it goes
 * to attr.config1, as Linux's offcore, load-latency and front-end events
 * take it). 0, or -1 with "line N: why" in err. */
int config_check_user(const struct bench_event *ev, int n, char *err, size_t errlen);

/* Kernel mode: every .CTR= below `counters` and every .MSR_ field
 * naming an MSR. 0, or -1 with "line N: why" in err. */
int config_check_kernel(const struct bench_event *ev, int n, int counters,
			char *err, size_t errlen);

/* How many of ev[0..n) fit one counter set of `counters` counters in
 * kernel mode: the set ends before an event whose .CTR= is taken, or
 * when the counters run out. ctr[i] is each event's counter (a .CTR=
 * is kept; the others take the lowest free ones). At least 1 if n > 0. */
int config_kernel_set(const struct bench_event *ev, int n, int counters, int *ctr);

#endif
