/*
 * bench [CPU]: instruction counts of basic operations, the figures in
 * DESIGN.md's reference table. Run under QEMU -icount shift=0 (make
 * bench), where RDTSC advances one tick per guest instruction, so each
 * delta is an exact instruction count. Median of 201 runs; pinned to CPU
 * (default 1, isolated by make bench) so nothing else runs there.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "interrupts.h"

#define RUNS 201
#define SWITCHES 1000

static uint64_t t[RUNS];

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void sort(void)
{
	qsort(t, RUNS, sizeof t[0], cmp);
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set);
	sched_yield();
}

static void bench_getppid(void)
{
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		getppid();
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("getppid round trip: %llu\n", (unsigned long long)t[RUNS / 2]);
}

static void bench_fork(void)
{
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
		t[i] = __rdtsc() - a;
	}
	sort();
	printf("fork+exit+wait: %llu\n", (unsigned long long)t[RUNS / 2]);
}

/* Two threads on one CPU hand the CPU back and forth with sched_yield. */
static volatile int stop;

static void *yielder(void *arg)
{
	while (!stop)
		sched_yield();
	return arg;
}

static void bench_switch(int cpu)
{
	pthread_t other;
	pthread_create(&other, NULL, yielder, NULL);
	/* The new thread inherits our affinity: both share `cpu`. */
	(void)cpu;
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		for (int k = 0; k < SWITCHES; k++)
			sched_yield();
		t[i] = (__rdtsc() - a) / (2 * SWITCHES);
	}
	stop = 1;
	pthread_join(other, NULL);
	sort();
	printf("context switch (yield ping-pong, per switch): %llu\n",
	       (unsigned long long)t[RUNS / 2]);
}


static void bench_loop(int cpu)
{
	long irq_before = interrupts_on(cpu);
	for (int i = 0; i < RUNS; i++) {
		uint64_t a = __rdtsc();
		for (volatile int k = 0; k < 100000; k++)
			;
		t[i] = __rdtsc() - a;
	}
	sort();
	int above = 0;
	for (int i = 0; i < RUNS; i++)
		above += t[i] > t[0];
	long irqs = interrupts_on(cpu) - irq_before;
	printf("100k-iteration loop: min %llu max %llu spread %llu (%d of %d runs above min, "
	       "%ld interrupts on cpu %d)\n",
	       (unsigned long long)t[0], (unsigned long long)t[RUNS - 1],
	       (unsigned long long)(t[RUNS - 1] - t[0]), above, RUNS, irqs, cpu);
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 1;
	pin(cpu);
	printf("bench on cpu %d\n", sched_getcpu());
	bench_getppid();
	bench_switch(cpu);
	bench_fork();
	bench_loop(cpu);
	return 0;
}
