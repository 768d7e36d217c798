/*
 * kmode.c: kernel mode (-kernel). The generated function runs in ring 0
 * through /dev/kbench (pmu/kbench/, docs/bench.md); the kernel's reader
 * fills the slots of enum kbench_read. The fixed counters are opened
 * with perf_event_open only so that they count (counters.c); the kernel
 * reads their registers directly, as nanoBench's module does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "bench.h"

static int kfd = -1;

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

int kmode_open(const struct bench_opts *o, struct bench_counter *out, int max)
{
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
	return n;
}

int kmode_call(void (*fn)(void), struct bench_ctx *ctx, struct kbench_run *r)
{
	memset(r, 0, sizeof *r);
	r->code = (uint64_t)(uintptr_t)fn;
	r->callback_slot = (uint64_t)(uintptr_t)&ctx->reader;
	r->readings = (uint64_t)(uintptr_t)ctx->reading;
	if (ioctl(kfd, KBENCH_IOC_RUN, r) < 0) {
		fprintf(stderr, "bench: /dev/kbench: %s\n", strerror(errno));
		return -1;
	}
	return r->fault_vector == KBENCH_NO_FAULT ? 0 : 1;
}

void kmode_close(void)
{
	counters_close();
	if (kfd >= 0)
		close(kfd);
	kfd = -1;
}
