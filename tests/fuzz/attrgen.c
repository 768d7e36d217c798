/*
 * attrgen.c: the seeded generator (xorshift64) and random
 * perf_event_attrs. See attrgen.h.
 */
#include <string.h>
#include <time.h>
#include <linux/hw_breakpoint.h>
#include "attrgen.h"

static uint64_t state = 1;

void fz_seed(uint64_t seed)
{
	/* splitmix64's finaliser: nearby seeds give unrelated streams. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	state = z ? z : 1;
}

uint64_t fz_next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

uint64_t fz_below(uint64_t n)
{
	return n ? fz_next() % n : 0;
}

uint64_t fz_pick(const uint64_t *v, size_t n)
{
	return v[fz_below(n)];
}

static void plausible_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)PICK(PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE);
	a->config = a->type == PERF_TYPE_HARDWARE ? PICK(0, 0, 1, 4, 5)
	                                          : PICK(0, 1, 2, 3, 5, 9);
	a->sample_period = PICK(0, 0, 1000, 100000);
	a->sample_type = a->sample_period ? PICK(PERF_SAMPLE_IP, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                                         PERF_SAMPLE_TIME, PERF_SAMPLE_READ) : 0;
	a->read_format = fz_below(16);
	a->disabled = fz_below(2);
	a->inherit = fz_below(2);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->pinned = fz_below(8) == 0;
}

static void flag_bits(struct perf_event_attr *a)
{
	uint64_t bits = fz_next();

	a->disabled = bits & 1;
	a->inherit = bits >> 1 & 1;
	a->pinned = (bits >> 2 & 7) == 0;
	a->exclusive = (bits >> 5 & 7) == 0;
	a->exclude_user = (bits >> 8 & 3) == 0;
	a->exclude_kernel = (bits >> 10 & 3) != 0;
	a->exclude_hv = bits >> 12 & 1;
	a->exclude_idle = bits >> 13 & 1;
	a->mmap = bits >> 14 & 1;
	a->comm = bits >> 15 & 1;
	a->inherit_stat = (bits >> 16 & 3) == 0;
	a->enable_on_exec = (bits >> 18 & 3) == 0;
	a->task = bits >> 20 & 1;
	a->watermark = (bits >> 21 & 3) == 0;
	a->precise_ip = bits >> 23 & 3;
	a->sample_id_all = bits >> 25 & 1;
	a->context_switch = (bits >> 26 & 3) == 0;
	a->write_backward = (bits >> 28 & 7) == 0;
	a->remove_on_exec = (bits >> 31 & 3) == 0;
	a->sigtrap = (bits >> 33 & 7) == 0;
	a->inherit_thread = (bits >> 36 & 7) == 0;
	a->use_clockid = (bits >> 39 & 3) == 0;
}

static volatile int watched; /* a breakpoint's address, the same in every run */

void fz_wild_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = (uint32_t)PICK(PERF_TYPE_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE,
	                         PERF_TYPE_HARDWARE, PERF_TYPE_BREAKPOINT, PERF_TYPE_TRACEPOINT,
	                         PERF_TYPE_HW_CACHE, PERF_TYPE_RAW, 6, 7, 8, 99, 0xffffffff);
	a->size = (uint32_t)PICK(sizeof(*a), sizeof(*a), sizeof(*a), 0, 64, 72, 120, 4096, 5000, 3);
	a->config = PICK(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x3c, 0xc0, 1ULL << 40, ~0ULL);
	if (fz_below(2))
		a->sample_period = PICK(0, 1, 2, 1000, 100000, 1ULL << 62, 1ULL << 63);
	else {
		a->freq = 1;
		a->sample_freq = PICK(1, 100, 4000, 100000, 10000000);
	}
	a->sample_type = fz_below(2) ? fz_next() & ((PERF_SAMPLE_MAX << 1) - 1)
	                             : PICK(0, PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	                                    PERF_SAMPLE_READ | PERF_SAMPLE_TIME, PERF_SAMPLE_CALLCHAIN);
	a->read_format = fz_next() & ((PERF_FORMAT_MAX << 1) - 1);
	flag_bits(a);
	a->clockid = (int32_t)PICK(CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, 99, -1);
	a->wakeup_events = (uint32_t)PICK(0, 1, 2, 1000);
	a->bp_type = (uint32_t)PICK(HW_BREAKPOINT_X, HW_BREAKPOINT_W, HW_BREAKPOINT_RW, 0, 8);
	a->bp_addr = (uint64_t)PICK((uintptr_t)&watched, (uintptr_t)fz_wild_attr,
	                            0, 0xffffffff80000000ULL, 3);
	a->bp_len = PICK(1, 2, 4, 8, 3, 16);
	a->sample_regs_user = PICK(0, 1, 0xff, 1ULL << 12, 1ULL << 30, 1ULL << 40);
	a->sample_stack_user = (uint32_t)PICK(0, 8, 100, 8192, 65536);
	a->sample_max_stack = (uint16_t)PICK(0, 1, 127, 128, 60000);
	a->aux_watermark = (uint32_t)PICK(0, 4096);
	a->sig_data = fz_next();
}

void fz_random_attr(struct perf_event_attr *a)
{
	if (fz_below(2))
		plausible_attr(a);
	else
		fz_wild_attr(a);
}
