/*
 * records2.c: PERF_RECORD_READ (attr.inherit_stat) and record times on
 * another clock (attr.use_clockid).
 *
 *  - READ: a page-fault counter on this process, inherited with
 *    inherit_stat, its records sent (SET_OUTPUT) to a mapped dummy
 *    event; a child touches 50 fresh pages and exits: one READ record
 *    {child's pid/tid, value, time_enabled, id, trailer} whose value is
 *    what the child added to the counter (after - before - our own, by a
 *    second, uninherited counter) and whose id is the counter's, its
 *    trailer's STREAM_ID the child copy's own id;
 *  - use_clockid: for MONOTONIC, MONOTONIC_RAW, REALTIME, BOOTTIME and
 *    TAI, a COMM's trailer time lies between clock_gettime(clockid)
 *    before and after the prctl that makes it, task-clock samples'
 *    times between one before the event's open and one after its
 *    disable; the control page then says cap_user_time_zero 0; other
 *    clocks are EINVAL, REALTIME
 *    is EINVAL on a PMU that samples from NMIs (breakpoints), and a
 *    group's members must share their leader's clock.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/hw_breakpoint.h>
#include "perf.h"
#include "ring.h"

#define PAGES 16

/* The next record's bytes into buf (at most 1024), released, or 0. */
static int next(struct ring *r, unsigned char *buf)
{
	struct perf_event_header h;

	if (r->pos >= ring_head(r))
		return 0;
	ring_copy(r, r->pos, &h, sizeof(h));
	ring_copy(r, r->pos, buf, h.size < 1024 ? h.size : 1024);
	r->pos += h.size;
	ring_release(r);
	return 1;
}

static int faults(int inherit)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	a.inherit = a.inherit_stat = (unsigned)inherit;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	a.exclude_kernel = a.exclude_hv = 1;
	return perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static uint64_t value(int fd)
{
	uint64_t v[3] = { 0, 0, 0 };

	if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return PERF_BAD_VALUE;
	return v[0];
}

static void read_record(void)
{
	struct perf_event_attr a;
	struct ring r;
	unsigned char buf[1024];
	uint64_t id = 0;
	int reads = 0;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
	int sink = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	int inh = faults(1), own = faults(0);
	if (!CHECK(sink >= 0 && inh >= 0 && own >= 0 && ring_map(sink, &r, PAGES, PROT_READ | PROT_WRITE) == 0,
	           "a mapped dummy event, an inherited page-fault counter with inherit_stat, "
	           "an uninherited one"))
		return;
	CHECK(ioctl(inh, PERF_EVENT_IOC_SET_OUTPUT, sink) == 0, "the inherited counter's records "
	      "go to the dummy's buffer (SET_OUTPUT)");
	ioctl(inh, PERF_EVENT_IOC_ID, &id);
	uint64_t before = value(inh), own_before = value(own);
	pid_t kid = fork();
	if (kid == 0) {
		touch_pages(50);
		_exit(0);
	}
	int st;
	waitpid(kid, &st, 0);
	uint64_t own_after = value(own), after = value(inh);
	uint64_t child = after - before - (own_after - own_before);
	while (next(&r, buf)) {
		struct perf_event_header *h = (void *)buf;
		uint32_t ids[2];
		uint64_t v[3], tr[4];

		if (h->type != PERF_RECORD_READ)
			continue;
		reads++;
		memcpy(ids, buf + 8, 8);
		memcpy(v, buf + 16, sizeof(v));
		memcpy(tr, buf + 40, sizeof(tr));
		CHECK(h->size == 8 + 8 + 24 + 32, "READ: header, pid/tid, 3 values, trailer (%u bytes)",
		      h->size);
		CHECK(ids[0] == (uint32_t)kid && ids[1] == (uint32_t)kid, "READ: the child's pid/tid");
		CHECK(v[0] == child && v[0] >= 50, "READ: value %llu = what the child added (%llu), "
		      ">= its 50 touched pages", (unsigned long long)v[0], (unsigned long long)child);
		CHECK(v[1] > 0, "READ: time_enabled %llu > 0", (unsigned long long)v[1]);
		CHECK(v[2] == id, "READ: id is the counter's");
		CHECK((uint32_t)tr[0] == (uint32_t)kid, "READ: trailer TID is the exiting child");
		CHECK(tr[2] == id, "READ: trailer ID is the counter's (the primary id)");
		CHECK(tr[3] != id && tr[3] != 0, "READ: trailer STREAM_ID is the child copy's own id "
		      "(%llu, the counter's is %llu)", (unsigned long long)tr[3], (unsigned long long)id);
	}
	CHECK(reads == 1, "one READ record for one exited child (%d)", reads);
	ring_unmap(&r);
	close(sink);
	close(inh);
	close(own);
}

static const struct { clockid_t id; const char *name; } clocks[] = {
	{ CLOCK_MONOTONIC, "MONOTONIC" }, { CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW" },
	{ CLOCK_REALTIME, "REALTIME" }, { CLOCK_BOOTTIME, "BOOTTIME" }, { CLOCK_TAI, "TAI" },
};

static int clock_event(uint32_t type, uint64_t config, int clockid, int comm, int group)
{
	struct perf_event_attr a;

	perf_attr(&a, type, config);
	a.use_clockid = clockid >= 0;
	a.clockid = clockid >= 0 ? clockid : 0;
	a.comm = (unsigned)comm;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.exclude_kernel = a.exclude_hv = 1;
	if (type == PERF_TYPE_SOFTWARE && config == PERF_COUNT_SW_TASK_CLOCK)
		a.sample_period = 1000000; /* 1 ms of CPU time */
	return perf_open(&a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void one_clock(clockid_t id, const char *name)
{
	struct ring r, s;
	unsigned char buf[1024];
	/* The task-clock samples from its open on: a loaded host can take
	 * one while the rings are mapped. What Linux guarantees is that each
	 * lies between the open and the disable. */
	uint64_t t0 = clock_ns(id);
	int dummy = clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, id, 1, -1);
	int tc = clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, id, 0, -1);
	int comms = 0, in = 0, samples = 0, sin = 0;

	if (!CHECK(dummy >= 0 && tc >= 0 && ring_map(dummy, &r, PAGES, PROT_READ | PROT_WRITE) == 0 && ring_map(tc, &s, PAGES, PROT_READ | PROT_WRITE) == 0,
	           "%s: a dummy event with comm and a sampling task-clock, mapped", name))
		return;
	uint64_t t_comm = clock_ns(id);
	prctl(PR_SET_NAME, "clk", 0, 0, 0);
	work_ns(40000000); /* baremon samples clocks at its 10 ms tick */
	ioctl(tc, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t t1 = clock_ns(id);
	while (next(&r, buf)) {
		struct perf_event_header *h = (void *)buf;
		uint64_t t;
		if (h->type != PERF_RECORD_COMM)
			continue;
		comms++;
		memcpy(&t, buf + h->size - 8, 8);
		in += t >= t_comm && t <= t1;
	}
	while (next(&s, buf)) {
		struct perf_event_header *h = (void *)buf;
		uint64_t t;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		memcpy(&t, buf + 16, 8); /* TID, then TIME */
		sin += t >= t0 && t <= t1;
	}
	CHECK(comms == 1 && in == 1, "%s: the COMM's trailer time is within clock_gettime's",
	      name);
	CHECK(samples >= 3 && sin == samples, "%s: %d of %d sample times within clock_gettime's",
	      name, sin, samples);
	CHECK(r.meta->cap_user_time_zero == 0, "%s: the control page has no time_zero", name);
	ring_unmap(&r);
	ring_unmap(&s);
	close(dummy);
	close(tc);
}

static void clock_errors(void)
{
	struct perf_event_attr a;
	static volatile int watched;

	CHECK_ERR(clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, CLOCK_PROCESS_CPUTIME_ID, 0, -1),
	          EINVAL, "clockid PROCESS_CPUTIME");
	CHECK_ERR(clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 99, 0, -1), EINVAL,
	          "clockid 99");
	CHECK_ERR(clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, CLOCK_MONOTONIC_COARSE, 0, -1),
	          EINVAL, "clockid MONOTONIC_COARSE");
	perf_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uint64_t)(uintptr_t)&watched;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.exclude_kernel = a.exclude_hv = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_REALTIME;
	CHECK_ERR(perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC), EINVAL,
	          "REALTIME on a breakpoint (its PMU may sample from an NMI)");
	a.clockid = CLOCK_MONOTONIC;
	int bp = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(bp >= 0, "MONOTONIC on a breakpoint");
	if (bp >= 0)
		close(bp);
	int lead = clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, CLOCK_MONOTONIC, 0, -1);
	CHECK_ERR(clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, CLOCK_REALTIME, 0, lead),
	          EINVAL, "a sibling on REALTIME under a MONOTONIC leader");
	CHECK_ERR(clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, -1, 0, lead), EINVAL,
	          "a sibling on the perf clock under a MONOTONIC leader");
	int sib = clock_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, CLOCK_MONOTONIC, 0, lead);
	CHECK(sib >= 0, "a sibling on the leader's clock");
	if (sib >= 0)
		close(sib);
	close(lead);
}

int main(void)
{
	read_record();
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		one_clock(clocks[i].id, clocks[i].name);
	clock_errors();
	return abi_done("records2");
}
