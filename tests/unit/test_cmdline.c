/* The kernel command-line parser (core/cmdline.c). */
#include "unit.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/cmdline.h"

/* cmdline_report_unknown's console: what it printed, for the checks. */
static char printed[1024];

int kprintf(const char *fmt, ...);
int kprintf(const char *fmt, ...)
{
	size_t used = strlen(printed);
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(printed + used, sizeof(printed) - used, fmt, ap);
	va_end(ap);
	return n;
}

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

/* A word nothing asked for is reported once by its key; asked keys and
 * the late ones (read only at a panic, at exit, ...) are not. */
static void test_report_unknown(void **state)
{
	(void)state;
	printed[0] = 0;
	cmdline_parse("baud=9600 bogus=1 stay typo");
	(void)cmdline_get("baud");
	assert_int_equal(cmdline_report_unknown(), 2);
	assert_non_null(strstr(printed, "unknown option 'bogus' ignored"));
	assert_non_null(strstr(printed, "unknown option 'typo' ignored"));
	assert_null(strstr(printed, "'baud'"));
	assert_null(strstr(printed, "'stay'"));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_keys_and_values),
	cmocka_unit_test(test_last_wins_and_quotes),
	cmocka_unit_test(test_numbers),
	cmocka_unit_test(test_empty_and_null),
	cmocka_unit_test(test_many_and_long),
	cmocka_unit_test(test_report_unknown),
};

UNIT_MAIN(tests)
