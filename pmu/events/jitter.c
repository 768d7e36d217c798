/*
 * Period randomization, a baremon extension (docs/perf.md): with
 * PERF_EVENT_IOC_BAREMON_JITTER(&j) each period an event counts down is
 * drawn uniformly from [P - j, P + j] (P its sample_period), so the
 * mean period stays P while samples stop lining up with loops whose
 * length divides P. j = 0 turns it off (the default); j must stay
 * below P. Fixed-period sampling events only (freq mode already moves
 * its period) counted occurrence by occurrence (software, tracepoint,
 * breakpoint): hardware counters and clock timers arm their own
 * periods and refuse it (EOPNOTSUPP) rather than ignore it. Each event has its own xorshift64* generator, seeded
 * from the kernel's random pool when jitter is set.
 *
 * Locking: jitter, rand_state and last_period under perf_lock.
 */
#include <linux/errno.h>
#include "event.h"
#include "notify.h"
#include "core/mm/uaccess.h"
#include "core/fs/vfs.h"

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t perf_next_period(struct perf_event *e)
{
	uint64_t p = e->sample_period, j = e->jitter;
	if (j && !e->attr.freq && p > 1) {
		if (j >= p) /* PERIOD made the period shorter since */
			j = p - 1;
		p = p - j + next_random(&e->rand_state) % (2 * j + 1);
	}
	e->last_period = p;
	return p;
}

static void set_one(struct perf_event *e, uint64_t j, uint64_t seed)
{
	e->jitter = j;
	e->rand_state = seed ? seed : 1;
}

long perf_set_jitter(struct perf_event *e, uint64_t uarg)
{
	uint64_t j, seed;
	if (!perf_is_sampling(e) || e->attr.freq)
		return -EINVAL;
	if (e->pmu->scarce || perf_is_clock(e))
		return -EOPNOTSUPP;
	if (copy_from_user(&j, (void *)uarg, sizeof(j)))
		return -EFAULT;
	if (j && j >= e->attr.sample_period)
		return -EINVAL;
	random_bytes(&seed, sizeof(seed));
	uint64_t fl = spin_lock_irqsave(&perf_lock);
	set_one(e, j, seed);
	list_for_each(n, &e->child_list) /* live inherited copies too */
		set_one(list_entry(n, struct perf_event, child_node), j,
			seed ^ (uint64_t)(uintptr_t)n);
	spin_unlock_irqrestore(&perf_lock, fl);
	return 0;
}
