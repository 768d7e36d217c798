/*
 * stats.h: nanoBench's aggregate functions over one run's measurements.
 * Pure: no I/O, no allocation.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

enum bench_agg { AGG_AVG, AGG_MEDIAN, AGG_MIN, AGG_MAX };

/*
 * Aggregate v[0..n) (n > 0; v is sorted in place):
 *   AGG_AVG     the mean of what is left after dropping the lowest and
 *               the highest 20% (n * 20 / 100 values at each end)
 *   AGG_MEDIAN  the middle value; for even n the mean of the two middle ones
 *   AGG_MIN, AGG_MAX
 */
double stats_aggregate(int64_t *v, size_t n, enum bench_agg agg);

/* "avg", "median", "min", "max". */
const char *stats_agg_name(enum bench_agg agg);

#endif
