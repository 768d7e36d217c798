/* clock.c: clocks, busy loops, sleeps and page faults (perf.h). */
#include "perf.h"

uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t spin_ns(uint64_t ns)
{
	uint64_t start = now_ns(), t;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		t = now_ns();
	} while (t - start < ns);
	return t - start;
}

uint64_t work_ns(uint64_t ns)
{
	uint64_t start = cpu_ns(), wall = now_ns(), t;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		t = cpu_ns();
	} while (t - start < ns && now_ns() - wall < 50 * ns + 100000000u);
	return t - start;
}

void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p;

	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	syscall(__NR_madvise, p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}
