/* Instructions (TSC ticks under -icount shift=0) per system call and per
 * context switch, median of 201, like the Linux reference in DESIGN.md. */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#define RUNS 201

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v)
{
	qsort(v, RUNS, sizeof v[0], cmp);
	return v[RUNS / 2];
}

int main(void)
{
	static uint64_t t[RUNS];
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		getppid();
		t[i] = __rdtsc() - a;
	}
	printf("getppid: %llu\n", (unsigned long long)median(t));

	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
		t[i] = __rdtsc() - a;
	}
	printf("fork+exit+wait: %llu\n", (unsigned long long)median(t));

	for (int i = 0; i < RUNS; i++) {
		volatile uint64_t x = 0;
		uint64_t a = __rdtsc();
		for (int k = 0; k < 100000; k++)
			x += k;
		t[i] = __rdtsc() - a;
	}
	qsort(t, RUNS, sizeof t[0], cmp);
	printf("loop100k: min %llu max %llu spread %llu\n", (unsigned long long)t[0],
	       (unsigned long long)t[RUNS - 1], (unsigned long long)(t[RUNS - 1] - t[0]));
	return 0;
}
