/*
 * steploop.c [N]: what counting a long loop's user instructions and
 * branches costs in time. It counts instructions:u and branches:u
 * around a loop of N iterations (default 1,000,000) of `dec; jnz` and
 * around one of 2N, checks the difference is exactly 2N instructions
 * and N branches, and prints each run's elapsed CLOCK_MONOTONIC (by the
 * system call: a task the software PMU model steps reads a TSC with
 * the model's time taken out, docs/pmu.md). On the model without the
 * instruction clock every one of those instructions is single-stepped,
 * so the time is the model's cost (docs/pmu.md, "Cost"). Without a PMU
 * that has both events it says so and checks nothing.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include "perf.h"

__asm__(".text\n"
        ".globl steploop_jcc\n"
        "steploop_jcc:\n"
        "1:	dec %rdi\n"
        "	jnz 1b\n"
        "	ret\n");
void steploop_jcc(unsigned long n);

static uint64_t mono_ns(void)
{
	struct timespec t;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int open_user(uint64_t config, int group)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_HARDWARE, config);
	a.disabled = group < 0;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return perf_open(&a, 0, -1, group, 0);
}

/* Instructions and branches of the loop of n, and the time it took. */
static void run(int insns, int branches, unsigned long n, uint64_t *i, uint64_t *b,
                uint64_t *ns)
{
	uint64_t t0;

	ioctl(insns, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	t0 = mono_ns();
	ioctl(insns, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	steploop_jcc(n);
	ioctl(insns, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	*ns = mono_ns() - t0;
	*i = perf_value(insns);
	*b = perf_value(branches);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
	int insns = open_user(PERF_COUNT_HW_INSTRUCTIONS, -1);
	int branches = insns < 0 ? -1 : open_user(PERF_COUNT_HW_BRANCH_INSTRUCTIONS, insns);
	uint64_t i1, b1, t1, i2, b2, t2;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (insns < 0 || branches < 0) {
		abi_note("no instructions:u and branches:u (%s): nothing measured", strerror(errno));
		return abi_done("steploop");
	}
	run(insns, branches, n, &i1, &b1, &t1);
	run(insns, branches, 2 * n, &i2, &b2, &t2);
	CHECK(i2 - i1 == 2 * n && b2 - b1 == n,
	      "loops of %lu and %lu iterations of dec;jnz differ by %lu instructions:u and "
	      "%lu branches:u (%llu, %llu)", n, 2 * n, 2 * n, n,
	      (unsigned long long)(i2 - i1), (unsigned long long)(b2 - b1));
	abi_note("time: %lu iterations %llu.%03llu s (%llu instructions:u), %lu iterations "
	         "%llu.%03llu s (%llu instructions:u)", n,
	         (unsigned long long)(t1 / 1000000000), (unsigned long long)(t1 / 1000000 % 1000),
	         (unsigned long long)i1, 2 * n,
	         (unsigned long long)(t2 / 1000000000), (unsigned long long)(t2 / 1000000 % 1000),
	         (unsigned long long)i2);
	close(branches);
	close(insns);
	return abi_done("steploop");
}
