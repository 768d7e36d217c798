/*
 * forkbench: the cost of fork as unreaped children pile up
 * (`make fork-bench`, docs/bench.md). The same static binary runs on
 * baremon and on Linux (tools/linux-ref.sh).
 *
 *   forkbench [TOTAL [BATCH]]    (default 100000 and 1000)
 *
 * Forks TOTAL children in batches of BATCH; each child exits at once and
 * none is reaped until the end, so batch k runs with k*BATCH zombies.
 * For each batch it prints the guest's TSC ticks and CLOCK_MONOTONIC
 * microseconds per 1,000 forks (under -icount shift=0 a TSC tick is one
 * guest instruction, of either CPU). Then the memory the zombies hold
 * (MemFree before and after, per zombie), and the cost of reaping them.
 * It raises pid_max (and Linux's threads-max) first where it may; a fork
 * that fails ends the run early with its errno, which it reports.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <x86intrin.h>

static void write_sysctl(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return;
	fputs(value, f);
	fclose(f);
}

static long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long v = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0)
			v = strtol(line + n, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Fork n children that exit at once; how many were made. */
static long fork_batch(long n, int *err)
{
	for (long i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p < 0) {
			*err = errno;
			return i;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	long total = argc > 1 ? atol(argv[1]) : 100000;
	long batch = argc > 2 ? atol(argv[2]) : 1000;
	if (total <= 0 || batch <= 0) {
		fprintf(stderr, "usage: forkbench [TOTAL [BATCH]]\n");
		return 2;
	}
	write_sysctl("/proc/sys/kernel/pid_max", "4194304");
	write_sysctl("/proc/sys/kernel/threads-max", "1000000");
	long free0 = meminfo_kb("MemFree:");
	printf("forkbench: %ld children in batches of %ld, none reaped\n", total, batch);
	printf("forkbench: %8s %14s %12s\n", "zombies", "tsc/1000", "us/1000");
	long made = 0;
	int err = 0;
	while (made < total && !err) {
		long want = total - made < batch ? total - made : batch;
		uint64_t us0 = now_us(), t0 = __rdtsc();
		long got = fork_batch(want, &err);
		uint64_t t1 = __rdtsc(), us1 = now_us();
		if (got > 0)
			printf("forkbench: %8ld %14llu %12llu\n", made + got,
			       (unsigned long long)((t1 - t0) * 1000 / got),
			       (unsigned long long)((us1 - us0) * 1000 / got));
		fflush(stdout);
		made += got;
	}
	if (err)
		printf("forkbench: fork failed after %ld children: %s\n", made, strerror(err));
	sleep(1); /* the last children finish exiting */
	long free1 = meminfo_kb("MemFree:");
	if (made > 0 && free0 > 0 && free1 > 0)
		printf("forkbench: memory per zombie: %ld bytes (MemFree %ld -> %ld kB)\n",
		       (free0 - free1) * 1024 / made, free0, free1);
	uint64_t t0 = __rdtsc(), us0 = now_us();
	long reaped = 0;
	while (wait(NULL) > 0)
		reaped++;
	uint64_t t1 = __rdtsc(), us1 = now_us();
	if (reaped > 0)
		printf("forkbench: reaping %ld: %llu tsc, %llu us per 1000\n", reaped,
		       (unsigned long long)((t1 - t0) * 1000 / reaped),
		       (unsigned long long)((us1 - us0) * 1000 / reaped));
	long free2 = meminfo_kb("MemFree:");
	printf("forkbench: MemFree after reaping: %ld kB (start %ld kB)\n", free2, free0);
	int ok = reaped == made && made > 0;
	printf("%s - forkbench: %ld forked, %ld reaped\n", ok ? "ok" : "not ok", made, reaped);
	return ok ? 0 : 1;
}
