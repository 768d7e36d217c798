/*
 * stepcap.c: kernel.perf_cpu_time_max_percent caps what single-stepping
 * for a CPU-wide event costs the CPU's tasks (docs/pmu.md, "The cap on
 * stepping"). Pinned to CPU 0, with a CPU-wide branches:u sampler on
 * CPU 0 (a period it never reaches, read as a count) and no event of
 * its own, it runs a loop of N iterations of `dec; jnz` (N branches):
 *  - with the cap off (0, as in Linux), the sampler sees at least N
 *    branches: the model steps the whole loop;
 *  - on the software PMU model with the cap at 1%, it sees fewer: once
 *    stepping has taken 1% of a 100 ms window the loop runs unstepped
 *    (on a real PMU nothing is stepped, and the count is still >= N);
 *  - a CPU-wide count (no sampling) is never capped: still >= N at 1%.
 * The loop is long enough that stepping all of it takes far more than
 * 1 ms, however fast the host: no check depends on its speed. The
 * original value is restored. Needs CPU-wide events (root).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "perf.h"

#define PERCENT "/proc/sys/kernel/perf_cpu_time_max_percent"
#define N 200000UL

__asm__(".text\n"
        ".globl stepcap_jcc\n"
        "stepcap_jcc:\n"
        "1:	dec %rdi\n"
        "	jnz 1b\n"
        "	ret\n");
void stepcap_jcc(unsigned long n);

static int put_percent(long v)
{
	char s[24];
	int fd = open(PERCENT, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	snprintf(s, sizeof(s), "%ld", v);
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) && file_long(PERCENT, -1) == v ? 0 : -1;
}

/* Branches:u on CPU 0, all tasks, around the loop (this task on CPU 0):
 * a sampler (a period the loop never reaches) or a plain count. */
static uint64_t cpu_branches_around_loop(int sampler)
{
	struct perf_event_attr a;
	uint64_t v;
	int fd;

	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.sample_period = sampler ? 1000000000ULL : 0;
	fd = perf_open(&a, -1, 0, -1, 0);
	if (fd < 0)
		return ~0ULL;
	stepcap_jcc(N);
	v = perf_value(fd);
	close(fd);
	return v;
}

int main(void)
{
	long saved = file_long(PERCENT, -1);
	cpu_set_t set;
	uint64_t free_run, capped, counted;
	struct perf_event_attr a;
	int fd;

	setvbuf(stdout, NULL, _IONBF, 0);
	perf_attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	a.exclude_kernel = 1;
	fd = perf_open(&a, -1, 0, -1, 0);
	if (fd < 0 || saved < 0) {
		abi_note("no CPU-wide branches:u on CPU 0 or no %s (%s): nothing checked",
		         PERCENT, strerror(errno));
		return abi_done("stepcap");
	}
	close(fd);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "run on CPU 0 (%s)", strerror(errno));
	CHECK(put_percent(0) == 0, "perf_cpu_time_max_percent 0 (the cap off)");
	free_run = cpu_branches_around_loop(1);
	CHECK(free_run != ~0ULL && free_run >= N,
	      "cap off: a CPU-wide branches:u sampler sees the whole loop (%llu >= %lu)",
	      (unsigned long long)free_run, N);
	CHECK(put_percent(1) == 0, "perf_cpu_time_max_percent 1");
	capped = cpu_branches_around_loop(1);
	if (core_pmu_is_vpmu())
		CHECK(capped < N, "cap 1%%: stepping for the sampler is throttled, it misses part "
		      "of the loop (%llu < %lu)", (unsigned long long)capped, N);
	else
		CHECK(capped != ~0ULL && capped >= N, "cap 1%%: a real PMU still counts the whole "
		      "loop (%llu >= %lu)", (unsigned long long)capped, N);
	counted = cpu_branches_around_loop(0);
	CHECK(counted != ~0ULL && counted >= N,
	      "cap 1%%: a CPU-wide count is never capped, it stays exact (%llu >= %lu)",
	      (unsigned long long)counted, N);
	CHECK(put_percent(saved) == 0, "perf_cpu_time_max_percent back to %ld", saved);
	return abi_done("stepcap");
}
