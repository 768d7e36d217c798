/* The kernel command-line parser (core/cmdline.c). */
#include "unit.h"
#include <string.h>
#include "core/cmdline.h"

static void test_keys_and_values(void **state)
{
	(void)state;
	cmdline_parse("  session=/etc/session stay  baud=9600 ");
	assert_string_equal(cmdline_get("session"), "/etc/session");
	assert_string_equal(cmdline_get("stay"), "");
	assert_true(cmdline_has("stay"));
	assert_false(cmdline_has("sta"));
	assert_null(cmdline_get("missing"));
	assert_int_equal(cmdline_get_u64("baud", 1), 9600);
	assert_string_equal(cmdline_text(), "  session=/etc/session stay  baud=9600 ");
}

static void test_last_wins_and_quotes(void **state)
{
	(void)state;
	cmdline_parse("a=1 msg=\"two words\" a=2 eq=x=y");
	assert_string_equal(cmdline_get("a"), "2");
	assert_string_equal(cmdline_get("msg"), "two words");
	assert_string_equal(cmdline_get("eq"), "x=y");
}

static void test_numbers(void **state)
{
	(void)state;
	cmdline_parse("port=0xf4 n=42 bad=12x empty=");
	assert_int_equal(cmdline_get_u64("port", 0), 0xf4);
	assert_int_equal(cmdline_get_u64("n", 0), 42);
	assert_int_equal(cmdline_get_u64("bad", 7), 7);
	assert_int_equal(cmdline_get_u64("empty", 9), 9);
	assert_int_equal(cmdline_get_u64("absent", 5), 5);
}

static void test_empty_and_null(void **state)
{
	(void)state;
	cmdline_parse(NULL);
	assert_string_equal(cmdline_text(), "");
	assert_null(cmdline_get("x"));
	cmdline_parse("");
	assert_null(cmdline_get("x"));
}

static void test_many_and_long(void **state)
{
	(void)state;
	char line[2048] = "";
	for (int i = 0; i < 100; i++) {
		char w[32];
		snprintf(w, sizeof(w), "k%d=%d ", i, i);
		strcat(line, w);
	}
	cmdline_parse(line); /* more words than slots: the first 64 are kept */
	assert_string_equal(cmdline_get("k0"), "0");
	assert_string_equal(cmdline_get("k63"), "63");
	assert_null(cmdline_get("k64"));

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = 0;
	cmdline_parse(line); /* longer than the buffer: truncated, no overflow */
	assert_int_equal(strlen(cmdline_text()), 1023);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_keys_and_values),
	cmocka_unit_test(test_last_wins_and_quotes),
	cmocka_unit_test(test_numbers),
	cmocka_unit_test(test_empty_and_null),
	cmocka_unit_test(test_many_and_long),
};

UNIT_MAIN(tests)
