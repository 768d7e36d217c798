/*
 * recwork [MS [PAGES]]: a workload for record's tests. It touches PAGES
 * fresh pages (default 64) in touch_pages, one page fault each, then
 * spins for MS milliseconds (default 300) of wall time in spin_loop,
 * called from main. Built with frame pointers and symbols (the
 * Makefile), so call chains walk and perf names both functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void touch_pages(int pages)
{
	volatile char *p = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	for (int i = 0; i < pages; i++)
		p[(long)i * 4096] = 1;
}

__attribute__((noinline)) unsigned long spin_loop(long ms)
{
	volatile unsigned long x = 0;
	long end = now_ns() + ms * 1000000L;
	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	return x;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	int pages = argc > 2 ? atoi(argv[2]) : 64;
	touch_pages(pages);
	unsigned long x = spin_loop(ms);
	printf("recwork: %d pages, %ld ms (%lu)\n", pages, ms, x & 1);
	return 0;
}
