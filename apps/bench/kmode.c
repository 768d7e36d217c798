/*
 * kmode.c: kernel mode (-kernel). The generated function runs in ring 0
 * through /dev/kbench (pmu/kbench/, docs/bench.md); the kernel's reader
 * fills the slots of enum kbench_read. The fixed counters are opened
 * with perf_event_open only so that they count (counters.c); the kernel
 * reads their registers directly, as nanoBench's module does.
 *
 * -config events and -msr_config lines become the run's MSR operations
 * (kbench_uapi.h): an event is KBENCH_MSR_PMC on the counter its set
 * gave it (config_kernel_set), after its .MSR_ fields' writes; an
 * -msr_config line is its writes and a read. The kernel reads them into
 * the slots after its own, in the order of the operations; origin[]
 * names the line behind each operation for a fault report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "bench.h"

static int kfd = -1;
static struct kbench_msr ops[KBENCH_MAX_MSRS];
static char origin[KBENCH_MAX_MSRS][96];
static unsigned nops, nreads;

/* Add an operation; a read or counter also gets a reported counter. */
static int add_op(uint32_t op, uint32_t msr, uint64_t value, const char *from,
		  struct bench_counter *out, int *n, int max, const char *name)
{
	bool reads = op != KBENCH_MSR_WRITE;
	if (nops == KBENCH_MAX_MSRS || (reads && (nreads == KBENCH_MAX_MSR_READS || *n == max))) {
		fprintf(stderr, "bench: %s: too many MSR operations for one run\n", from);
		return -1;
	}
	ops[nops] = (struct kbench_msr){ .msr = msr, .op = op, .value = value };
	snprintf(origin[nops++], sizeof origin[0], "%s", from);
	if (reads) {
		snprintf(out[*n].name, sizeof out[*n].name, "%s", name);
		out[(*n)++].slot = KBENCH_NREAD + (int)nreads++;
	}
	return 0;
}

static int add_event(const struct bench_opts *o, const struct bench_event *e, int ctr,
		     struct bench_counter *out, int *n, int max)
{
	char from[96];
	snprintf(from, sizeof from, "config line %u (%s)", e->line, e->name);
	for (int m = 0; m < e->nmsr; m++)
		if (add_op(KBENCH_MSR_WRITE, (uint32_t)config_msr_address(e->msr[m].name),
			   e->msr[m].value, from, out, n, max, NULL))
			return -1;
	uint64_t sel = config_raw(e) | (uint64_t)(o->usr != 0) << 16 | (uint64_t)(o->os != 0) << 17;
	return add_op(KBENCH_MSR_PMC, (uint32_t)ctr, sel, from, out, n, max, e->name);
}

static int add_msr_cfg(const struct bench_msr_cfg *mc, struct bench_counter *out, int *n, int max)
{
	char from[96];
	snprintf(from, sizeof from, "-msr_config line %u (%s)", mc->line, mc->name);
	for (int w = 0; w < mc->nwr; w++)
		if (add_op(KBENCH_MSR_WRITE, mc->wr[w], mc->wrval[w], from, out, n, max, NULL))
			return -1;
	return add_op(KBENCH_MSR_READ, mc->read, 0, from, out, n, max, mc->name);
}

static int slot_of(const char *name)
{
	static const struct { const char *name; int slot; } map[] = {
		{ "RDTSC", KBENCH_TSC },
		{ "Instructions retired", KBENCH_FIXED0 },
		{ "Core cycles", KBENCH_FIXED1 },
		{ "Reference cycles", KBENCH_FIXED2 },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcmp(map[i].name, name))
			return map[i].slot;
	return -1;
}

/* APERF and MPERF exist when CPUID.06H:ECX[0] is set. */
static bool have_aperf(void)
{
	uint32_t a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0), "c"(0));
	if (a < 6)
		return false;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(6), "c"(0));
	return c & 1;
}

int kmode_open(const struct bench_opts *o, const struct kbench_set *set,
	       struct bench_counter *out, int max)
{
	if (kfd < 0)
		kfd = open("/dev/kbench", O_RDWR);
	if (kfd < 0) {
		fprintf(stderr, "bench: -kernel needs baremon's /dev/kbench: %s\n", strerror(errno));
		return -1;
	}
	struct bench_opts fixed = *o;
	fixed.fixed_counters = true;
	int n = counters_open(&fixed, NULL, 0, out, max);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++)
		out[i].slot = slot_of(out[i].name);
	if (have_aperf() && n + 2 <= max) {
		snprintf(out[n].name, sizeof out[n].name, "APERF");
		out[n++].slot = KBENCH_APERF;
		snprintf(out[n].name, sizeof out[n].name, "MPERF");
		out[n++].slot = KBENCH_MPERF;
	}
	nops = nreads = 0;
	for (int i = 0; i < set->nmc; i++)
		if (add_msr_cfg(&set->mc[i], out, &n, max))
			return -1;
	for (int i = 0; i < set->nev; i++)
		if (add_event(o, &set->ev[i], set->ctr[i], out, &n, max))
			return -1;
	return n;
}

int kmode_call(void (*fn)(void), struct bench_ctx *ctx, struct kbench_run *r)
{
	memset(r, 0, sizeof *r);
	r->code = (uint64_t)(uintptr_t)fn;
	r->callback_slot = (uint64_t)(uintptr_t)&ctx->reader;
	r->readings = (uint64_t)(uintptr_t)ctx->reading;
	r->msrs = (uint64_t)(uintptr_t)ops;
	r->nmsrs = nops;
	if (ioctl(kfd, KBENCH_IOC_RUN, r) < 0) {
		fprintf(stderr, "bench: /dev/kbench: %s%s\n", strerror(errno),
			errno == EINVAL && nops ? " (a counter this PMU does not have?)" :
			errno == EOPNOTSUPP ? " (an event this PMU cannot count in kernel mode: "
			"the software model counts no kernel branches, and kernel instructions "
			"only with --icount)" : "");
		return -1;
	}
	return r->fault_vector == KBENCH_NO_FAULT ? 0 : 1;
}

const char *kmode_msr_origin(uint32_t i)
{
	return i < nops ? origin[i] : "an MSR operation";
}

uint32_t kmode_msr_address(uint32_t i)
{
	return i < nops ? ops[i].msr : 0;
}

void kmode_close(void)
{
	counters_close(); /* /dev/kbench stays open for the next set */
}
