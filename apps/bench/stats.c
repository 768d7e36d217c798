/*
 * stats.c: the aggregates of stats.h. Measurements are few (the
 * -n_measurements option), so an insertion sort does.
 */
#include "stats.h"

static void sort(int64_t *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		int64_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static double trimmed_mean(const int64_t *v, size_t n)
{
	size_t cut = n * 20 / 100;
	double sum = 0;
	for (size_t i = cut; i < n - cut; i++)
		sum += (double)v[i];
	return sum / (double)(n - 2 * cut);
}

double stats_aggregate(int64_t *v, size_t n, enum bench_agg agg)
{
	sort(v, n);
	switch (agg) {
	case AGG_MEDIAN:
		if (n % 2)
			return (double)v[n / 2];
		return ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
	case AGG_MIN:
		return (double)v[0];
	case AGG_MAX:
		return (double)v[n - 1];
	case AGG_AVG:
	default:
		return trimmed_mean(v, n);
	}
}

const char *stats_agg_name(enum bench_agg agg)
{
	static const char *const names[] = { "avg", "median", "min", "max" };
	return names[agg];
}
