/*
 * test_bench_report.c: bench's aggregates (apps/bench/stats.c) and its
 * output (apps/bench/report.c): nanoBench's text with and without
 * -range, two-decimal rounding, CSV with every measurement, JSON.
 */
#include "unit.h"
#include <string.h>
#include "ll.h"
#include "apps/bench/stats.h"
#include "apps/bench/report.h"

static double agg(const int64_t *in, size_t n, enum bench_agg a)
{
	int64_t v[32];
	memcpy(v, in, n * sizeof *v);
	return stats_aggregate(v, n, a);
}

static void trimmed_mean(void **state)
{
	(void)state;
	/* 10 values: the 2 lowest and 2 highest go; the mean of 2..7 is 4.5 */
	const int64_t v[] = { 1000, 5, 3, -900, 8, 4, 6, 7, 2, 1 };
	assert_true(agg(v, 10, AGG_AVG) == 4.5);
	/* 4 values: 4 * 20 / 100 = 0 dropped */
	const int64_t w[] = { 1, 2, 3, 10 };
	assert_true(agg(w, 4, AGG_AVG) == 4.0);
	/* 5 values: one dropped at each end */
	const int64_t x[] = { 100, 1, 2, 3, -100 };
	assert_true(agg(x, 5, AGG_AVG) == 2.0);
	const int64_t one[] = { 42 };
	assert_true(agg(one, 1, AGG_AVG) == 42.0);
}

static void median_min_max(void **state)
{
	(void)state;
	const int64_t odd[] = { 9, 1, 5, 3, 7 };
	assert_true(agg(odd, 5, AGG_MEDIAN) == 5.0);
	const int64_t even[] = { 10, 1, 4, 3 };
	assert_true(agg(even, 4, AGG_MEDIAN) == 3.5);
	assert_true(agg(odd, 5, AGG_MIN) == 1.0);
	assert_true(agg(odd, 5, AGG_MAX) == 9.0);
	const int64_t neg[] = { -3, -10, 4 };
	assert_true(agg(neg, 3, AGG_MIN) == -10.0);
	assert_true(agg(neg, 3, AGG_MAX) == 4.0);
	assert_string_equal(stats_agg_name(AGG_MEDIAN), "median");
}

static void fixed2(void **state)
{
	(void)state;
	char b[48];
	assert_string_equal(report_fixed2(b, sizeof b, 1.0), "1.00");
	assert_string_equal(report_fixed2(b, sizeof b, 0.125), "0.13");
	assert_string_equal(report_fixed2(b, sizeof b, 2.994), "2.99");
	assert_string_equal(report_fixed2(b, sizeof b, 2.996), "3.00");
	assert_string_equal(report_fixed2(b, sizeof b, -1.5), "-1.50");
	assert_string_equal(report_fixed2(b, sizeof b, -0.001), "0.00");
	assert_string_equal(report_fixed2(b, sizeof b, 0.0), "0.00");
	assert_string_equal(report_fixed2(b, sizeof b, 123456.789), "123456.79");
}

struct buf {
	char s[4096];
	size_t n;
};

static void to_buf(void *ctx, const char *s, size_t n)
{
	struct buf *b = ctx;
	assert_true(b->n + n < sizeof b->s);
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

static const int64_t small[] = { 100, 101 }, large[] = { 200, 203 };

static struct bench_row rows[2] = {
	{ "Core cycles", 1.0, 0.99, 1.02, { small, large }, { 100, 200 }, 2 },
	{ "Odd, \"name\"", -0.5, -1, 0, { small, large }, { 0, 100 }, 2 },
};

static void text(void **state)
{
	(void)state;
	struct buf b = { .n = 0 };
	report_text(to_buf, &b, rows, 2, false);
	assert_string_equal(b.s, "Core cycles: 1.00\nOdd, \"name\": -0.50\n");
	b.n = 0;
	report_text(to_buf, &b, rows, 1, true);
	assert_string_equal(b.s, "Core cycles: 1.00 [0.99;1.02]\n");
}

static void csv(void **state)
{
	(void)state;
	struct buf b = { .n = 0 };
	report_csv(to_buf, &b, rows, 2);
	assert_string_equal(b.s,
		"event,value,min,max,copies,measurement,raw\n"
		"Core cycles,1.00,0.99,1.02,100,0,100\n"
		"Core cycles,1.00,0.99,1.02,100,1,101\n"
		"Core cycles,1.00,0.99,1.02,200,0,200\n"
		"Core cycles,1.00,0.99,1.02,200,1,203\n"
		"\"Odd, \"\"name\"\"\",-0.50,-1.00,0.00,0,0,100\n"
		"\"Odd, \"\"name\"\"\",-0.50,-1.00,0.00,0,1,101\n"
		"\"Odd, \"\"name\"\"\",-0.50,-1.00,0.00,100,0,200\n"
		"\"Odd, \"\"name\"\"\",-0.50,-1.00,0.00,100,1,203\n");
}

static void json(void **state)
{
	(void)state;
	struct buf b = { .n = 0 };
	struct report_info info = { "user", "avg", 100, 0, false, true };
	report_json(to_buf, &b, &info, rows, 2);
	assert_string_equal(b.s,
		"{\"mode\":\"user\",\"aggregate\":\"avg\",\"unroll_count\":100,"
		"\"loop_count\":0,\"basic_mode\":false,\"normalized\":true,\"events\":["
		"{\"name\":\"Core cycles\",\"value\":1.00,\"min\":0.99,\"max\":1.02,\"runs\":["
		"{\"copies\":100,\"measurements\":[100,101]},"
		"{\"copies\":200,\"measurements\":[200,203]}]},"
		"{\"name\":\"Odd, \\\"name\\\"\",\"value\":-0.50,\"min\":-1.00,\"max\":0.00,\"runs\":["
		"{\"copies\":0,\"measurements\":[100,101]},"
		"{\"copies\":100,\"measurements\":[200,203]}]}]}\n");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(trimmed_mean),
	cmocka_unit_test(median_min_max),
	cmocka_unit_test(fixed2),
	cmocka_unit_test(text),
	cmocka_unit_test(csv),
	cmocka_unit_test(json),
};

UNIT_MAIN(tests)
