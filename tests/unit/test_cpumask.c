/* CPU masks (core/cpumask.c): bits beyond the first word, iteration,
 * the user-mask size Linux uses, the list format of sysfs. */
#include "unit.h"
#include <string.h>
#include "core/cpumask.h"

static void test_set_test_clear_across_words(void **state)
{
	(void)state;
	struct cpumask m;
	cpumask_clear(&m);
	assert_true(cpumask_empty(&m));
	cpumask_set(&m, 0);
	cpumask_set(&m, 64);
	cpumask_set(&m, 1023);
	cpumask_set(&m, 1024); /* beyond MAX_CPUS: ignored */
	assert_true(cpumask_test(&m, 0) && cpumask_test(&m, 64) && cpumask_test(&m, 1023));
	assert_false(cpumask_test(&m, 63) || cpumask_test(&m, 65) || cpumask_test(&m, 1024));
	assert_int_equal(cpumask_weight(&m), 3);
	cpumask_clear_cpu(&m, 64);
	assert_false(cpumask_test(&m, 64));
	assert_int_equal(cpumask_weight(&m), 2);
	struct cpumask one = cpumask_of(300);
	assert_int_equal(cpumask_weight(&one), 1);
	assert_int_equal(cpumask_first(&one), 300);
}

static void test_first_next_nth(void **state)
{
	(void)state;
	struct cpumask m;
	cpumask_clear(&m);
	assert_int_equal(cpumask_first(&m), MAX_CPUS);
	unsigned want[] = { 3, 63, 64, 200, 256, 1023 };
	for (unsigned i = 0; i < 6; i++)
		cpumask_set(&m, want[i]);
	unsigned k = 0;
	for_each_cpu(c, &m) {
		assert_true(k < 6);
		assert_int_equal(c, want[k++]);
	}
	assert_int_equal(k, 6);
	assert_int_equal(cpumask_next(&m, 64), 200);
	assert_int_equal(cpumask_next(&m, 1023), MAX_CPUS);
	assert_int_equal(cpumask_nth(&m, 4), 256);
	assert_int_equal(cpumask_nth(&m, 6), MAX_CPUS);
}

static void test_and_or_andnot(void **state)
{
	(void)state;
	struct cpumask a, b, d;
	cpumask_clear(&a);
	cpumask_clear(&b);
	cpumask_set(&a, 1);
	cpumask_set(&a, 700);
	cpumask_set(&b, 700);
	cpumask_set(&b, 2);
	assert_true(cpumask_and(&d, &a, &b));
	assert_int_equal(cpumask_weight(&d), 1);
	assert_true(cpumask_test(&d, 700));
	cpumask_clear_cpu(&b, 700);
	assert_false(cpumask_and(&d, &a, &b));
	cpumask_or(&d, &a, &b);
	assert_int_equal(cpumask_weight(&d), 3);
	cpumask_andnot(&d, &d, &a);
	assert_true(cpumask_equal(&d, &b));
	cpumask_setall(&d);
	assert_int_equal(cpumask_weight(&d), MAX_CPUS);
}

static void test_user_size_is_whole_longs(void **state)
{
	(void)state;
	unsigned saved = cpu_ids;
	cpu_ids = 1;
	assert_int_equal(cpumask_user_size(), 8);
	cpu_ids = 64;
	assert_int_equal(cpumask_user_size(), 8);
	cpu_ids = 65;
	assert_int_equal(cpumask_user_size(), 16);
	cpu_ids = 1024;
	assert_int_equal(cpumask_user_size(), 128);
	cpu_ids = saved;
}

static void test_format_as_a_list(void **state)
{
	(void)state;
	struct cpumask m;
	char out[64];
	cpumask_clear(&m);
	cpumask_format(out, sizeof(out), &m);
	assert_string_equal(out, "");
	cpumask_set(&m, 0);
	cpumask_set(&m, 2);
	cpumask_set(&m, 3);
	cpumask_set(&m, 4);
	cpumask_set(&m, 63);
	cpumask_set(&m, 64);
	cpumask_set(&m, 1023);
	cpumask_format(out, sizeof(out), &m);
	assert_string_equal(out, "0,2-4,63-64,1023");
	cpumask_format(out, 6, &m); /* cut, still terminated */
	assert_int_equal(strlen(out), 5);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_set_test_clear_across_words),
	cmocka_unit_test(test_first_next_nth),
	cmocka_unit_test(test_and_or_andnot),
	cmocka_unit_test(test_user_size_is_whole_longs),
	cmocka_unit_test(test_format_as_a_list),
};

UNIT_MAIN(tests)
