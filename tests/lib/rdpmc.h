/*
 * rdpmc.h: a self-monitoring read through an event's mmap control page,
 * the seqlock loop of <linux/perf_event.h>'s comment with RDPMC. Inline
 * on purpose, unlike the rest of tests/lib: benchmarks time it, as a
 * program measuring itself would.
 */
#ifndef TESTS_LIB_RDPMC_H
#define TESTS_LIB_RDPMC_H

#include <stdint.h>
#include <linux/perf_event.h>

static inline __attribute__((always_inline)) uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

/* The count: offset plus the sign-extended counter when the page says
 * RDPMC may be used (cap_user_rdpmc and a non-zero index). *used, if
 * not NULL: whether RDPMC ran. */
static inline __attribute__((always_inline)) uint64_t
perf_self_read(volatile struct perf_event_mmap_page *pc, int *used)
{
	uint32_t seq, idx;
	uint64_t count;
	int ran;

	do {
		seq = pc->lock;
		__asm__ volatile("" ::: "memory");
		idx = pc->index;
		count = pc->offset;
		ran = pc->cap_user_rdpmc && idx;
		if (ran) {
			int shift = 64 - pc->pmc_width;
			int64_t pmc = (int64_t)(rdpmc(idx - 1) << shift) >> shift;

			count += (uint64_t)pmc;
		}
		__asm__ volatile("" ::: "memory");
	} while (pc->lock != seq);
	if (used)
		*used = ran;
	return count;
}

#endif
