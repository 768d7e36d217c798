/*
 * Means and variances of repeated runs (-r), as perf reports them: the
 * mean, and the standard deviation of the mean (sqrt(variance / n))
 * relative to the mean, in percent. Welford's update keeps the sums
 * stable without storing the runs.
 */
#include "stat.h"

static double square_root(double x)
{
	double r;
	if (!(x > 0))
		return 0;
	__asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
	return r;
}

void stats_add(struct stats *s, double x)
{
	s->n += 1;
	double delta = x - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (x - s->mean);
}

double stats_mean(const struct stats *s)
{
	return s->mean;
}

double stats_stddev_mean(const struct stats *s)
{
	if (s->n < 2)
		return 0;
	double variance = s->m2 / (s->n - 1);
	return square_root(variance / s->n);
}

double rel_pct(double stddev, double avg)
{
	return avg != 0 ? 100.0 * stddev / avg : 0;
}
