/* isolated CPU: pin to CPU N, compute for a second, and count the
 * interrupts CPU N took meanwhile (from /proc/interrupts; vectors 32 and
 * up: device interrupts, timer ticks and IPIs). With isolcpus=N and one
 * task there, the kernel should send none. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "interrupts.h"


static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 1;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set)) {
		perror("sched_setaffinity");
		return 2;
	}
	sched_yield();
	if (sched_getcpu() != cpu) {
		printf("running on cpu %d, not %d\n", sched_getcpu(), cpu);
		return 2;
	}
	long before = interrupts_on(cpu);
	double start = now();
	volatile unsigned long x = 0;
	while (now() - start < 1.0)
		for (int i = 0; i < 1000000; i++)
			x += (unsigned long)i;
	long after = interrupts_on(cpu);
	printf("cpu%d: %ld interrupts during 1 s of computing\n", cpu, after - before);
	return after == before ? 0 : 1;
}
