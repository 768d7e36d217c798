/*
 * counters.c: user mode's counters. Each counter set is one perf event
 * group (the config file's events, PERF_TYPE_RAW, leader pinned) and the
 * fixed counters another (instructions, cycles, ref-cycles); all count
 * this thread only.
 *
 * A group is read with `lfence; rdpmc; lfence` per counter when every
 * member's mmap control page says cap_user_rdpmc and gives an index, as
 * nanoBench does; otherwise with one read() of the group (PERF_FORMAT_
 * GROUP). Which one is decided at open time, per group: detected, never
 * assumed (TCG has no RDPMC unless the kernel emulates it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <perf_event_open.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "bench.h"

#define GROUP_MAX 12

struct group {
	int n;
	int fd[GROUP_MAX];
	int slot[GROUP_MAX];
	struct perf_event_mmap_page *page[GROUP_MAX];
	bool rdpmc;
};

static struct group groups[2];
static int ngroups;

static inline uint64_t lfence_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdtsc; lfence" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static inline uint64_t lfence_rdpmc(uint32_t idx)
{
	uint32_t lo, hi;
	__asm__ volatile("lfence; rdpmc; lfence" : "=a"(lo), "=d"(hi) : "c"(idx) : "memory");
	return (uint64_t)hi << 32 | lo;
}

/*
 * The event's count from RDPMC, as the control page's recipe has it: the
 * counter sign-extended from pmc_width bits, plus offset. The sequence
 * lock is not checked: the event stays on this CPU between the points.
 */
static uint64_t rdpmc_count(const struct perf_event_mmap_page *pg)
{
	unsigned shift = 64 - (pg->pmc_width ? pg->pmc_width : 64);
	int64_t pmc = (int64_t)(lfence_rdpmc(pg->index - 1) << shift) >> shift;
	return (uint64_t)(pg->offset + pmc);
}

static void read_group(const struct group *g, uint64_t *reading)
{
	if (g->rdpmc) {
		for (int i = 0; i < g->n; i++)
			reading[g->slot[i]] = rdpmc_count(g->page[i]);
		return;
	}
	uint64_t buf[3 + GROUP_MAX];
	if (read(g->fd[0], buf, sizeof buf) < (ssize_t)(3 * 8))
		return;
	for (int i = 0; i < g->n && (uint64_t)i < buf[0]; i++)
		reading[g->slot[i]] = buf[3 + i];
}

void counters_read(struct bench_ctx *ctx, int phase)
{
	uint64_t *r = ctx->reading[phase];
	if (phase == 1)
		r[0] = lfence_rdtsc();
	for (int g = 0; g < ngroups; g++)
		read_group(&groups[g], r);
	if (phase == 0)
		r[0] = lfence_rdtsc();
}

const char *counters_method(void)
{
	for (int g = 0; g < ngroups; g++)
		if (!groups[g].rdpmc)
			return "read()";
	return ngroups ? "rdpmc" : "rdtsc only";
}

/*
 * Programmable counters per set: CPUID leaf 0AH on Intel; 6 with AMD's
 * PerfCtrExtCore, else 4 (also where CPUID says nothing, as under TCG,
 * whose vpmu model has 4).
 */
int counters_per_set(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (a >= 0x0a) {
		__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x0a), "c"(0));
		if ((a & 0xff) && (a >> 8 & 0xff))
			return (int)(a >> 8 & 0xff);
	}
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000001), "c"(0));
	return (c >> 23 & 1) ? 6 : 4;
}

static int open_member(struct group *g, uint32_t type, uint64_t config, uint64_t config1,
		       const struct bench_opts *o, int slot)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.pinned = g->n == 0;
	a.exclude_user = !o->usr;
	a.exclude_kernel = !o->os;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = perf_event_open(&a, 0, -1, g->n ? g->fd[0] : -1, 0);
	if (fd < 0)
		return -errno;
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	g->fd[g->n] = fd;
	g->page[g->n] = p == MAP_FAILED ? NULL : p;
	g->slot[g->n] = slot;
	g->n++;
	return 0;
}

static void decide_method(struct group *g)
{
	g->rdpmc = g->n > 0;
	for (int i = 0; i < g->n; i++)
		if (!g->page[i] || !g->page[i]->cap_user_rdpmc || !g->page[i]->index)
			g->rdpmc = false;
}

static const struct {
	uint64_t config;
	const char *name;
} fixed[] = {
	{ PERF_COUNT_HW_INSTRUCTIONS, "Instructions retired" },
	{ PERF_COUNT_HW_CPU_CYCLES, "Core cycles" },
	{ PERF_COUNT_HW_REF_CPU_CYCLES, "Reference cycles" },
};

static int add(struct bench_counter *out, int n, int max, const char *name)
{
	if (n >= max)
		return n;
	snprintf(out[n].name, sizeof out[n].name, "%s", name);
	out[n].slot = n;
	return n + 1;
}

int counters_open(const struct bench_opts *o, const struct bench_event *ev,
		  int nev, struct bench_counter *out, int max)
{
	counters_close();
	int n = add(out, 0, max, "RDTSC");
	static bool warned; /* the fixed counters' absence, once per process */
	if (o->fixed_counters) {
		struct group *g = &groups[ngroups];
		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
			int r = open_member(g, PERF_TYPE_HARDWARE, fixed[i].config, 0, o, n);
			if (r < 0 && !warned)
				fprintf(stderr, "bench: %s: not supported (%s)\n",
					fixed[i].name, strerror(-r));
			else
				n = add(out, n, max, fixed[i].name);
		}
		warned = true;
		if (g->n)
			decide_method(&groups[ngroups++]);
	}
	if (nev) {
		struct group *g = &groups[ngroups];
		for (int i = 0; i < nev; i++) {
			/* config_check_user let through one of RSP0, RSP1, 3F6H, PF. */
			int64_t c1 = ev[i].nmsr ? (int64_t)ev[i].msr[0].value : -1;
			int r = open_member(g, PERF_TYPE_RAW, config_raw(&ev[i]),
					    c1 < 0 ? 0 : (uint64_t)c1, o, n);
			if (r < 0) {
				fprintf(stderr, "bench: %s (config line %u): cannot count: %s\n",
					ev[i].name, ev[i].line, strerror(-r));
				ngroups++;
				return -1;
			}
			n = add(out, n, max, ev[i].name);
		}
		decide_method(&groups[ngroups++]);
	}
	return n;
}

void counters_close(void)
{
	long page = sysconf(_SC_PAGESIZE);
	for (int g = 0; g < ngroups; g++) {
		for (int i = groups[g].n - 1; i >= 0; i--) {
			if (groups[g].page[i])
				munmap(groups[g].page[i], (size_t)page);
			close(groups[g].fd[i]);
		}
		groups[g].n = 0;
	}
	ngroups = 0;
}

int counters_pmc_indexes(uint32_t *idx, int max)
{
	int n = 0;
	for (int g = 0; g < ngroups; g++) {
		if (!groups[g].rdpmc)
			return -1;
		for (int i = 0; i < groups[g].n; i++) {
			if (n == max)
				return -1;
			idx[n++] = groups[g].page[i]->index - 1;
		}
	}
	return n;
}
