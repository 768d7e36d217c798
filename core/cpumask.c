/* CPU mask helpers. See cpumask.h. */
#include <stdio.h>
#include "cpumask.h"

unsigned cpu_ids = 1;

bool cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	uint64_t any = 0;
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		any |= dst->bits[i] = a->bits[i] & b->bits[i];
	return any != 0;
}

void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] | b->bits[i];
}

void cpumask_andnot(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		dst->bits[i] = a->bits[i] & ~b->bits[i];
}

bool cpumask_empty(const struct cpumask *m)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		if (m->bits[i])
			return false;
	return true;
}

bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		if (a->bits[i] != b->bits[i])
			return false;
	return true;
}

unsigned cpumask_weight(const struct cpumask *m)
{
	unsigned n = 0;
	for (unsigned i = 0; i < CPUMASK_WORDS; i++)
		for (uint64_t w = m->bits[i]; w; w &= w - 1)
			n++;
	return n;
}

unsigned cpumask_next(const struct cpumask *m, int after)
{
	unsigned c = (unsigned)(after + 1);
	while (c < MAX_CPUS) {
		uint64_t w = m->bits[c / 64] >> (c % 64);
		if (w)
			return c + (unsigned)__builtin_ctzll(w);
		c = (c / 64 + 1) * 64;
	}
	return MAX_CPUS;
}

unsigned cpumask_nth(const struct cpumask *m, unsigned n)
{
	for_each_cpu(c, m)
		if (n-- == 0)
			return c;
	return MAX_CPUS;
}

size_t cpumask_user_size(void)
{
	return (cpu_ids + 63) / 64 * sizeof(uint64_t);
}

void cpumask_format(char *out, size_t len, const struct cpumask *m)
{
	size_t at = 0;
	if (len)
		out[0] = 0;
	for (unsigned c = cpumask_first(m); c < MAX_CPUS && at < len;) {
		unsigned end = c;
		while (end + 1 < MAX_CPUS && cpumask_test(m, end + 1))
			end++;
		int k = end == c ? snprintf(out + at, len - at, "%s%u", at ? "," : "", c)
				 : snprintf(out + at, len - at, "%s%u-%u", at ? "," : "", c, end);
		at += k > 0 ? (size_t)k : 0;
		c = cpumask_next(m, (int)end);
	}
}
