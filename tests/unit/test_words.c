/* The session language's word splitter (libc-lite/words.c). */
#include "unit.h"
#include <string.h>
#include "ll.h"

#define MAXV 8

/* Split line with status st into a fresh buffer; argv must match want
 * (NULL-terminated list) exactly. */
static void expect_words(const char *line, int st, const char *const *want)
{
	char buf[256];
	char *argv[MAXV];
	int n = 0;

	while (want[n])
		n++;
	assert_int_equal(ll_split_words(line, st, buf, sizeof(buf), argv, MAXV), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[n]);
}

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define NO_WORDS ((const char *const[]){ NULL })

static void test_blanks_separate(void **state)
{
	(void)state;
	expect_words("echo hello world", 0, WORDS("echo", "hello", "world"));
	expect_words("  \techo\t\t x  ", 0, WORDS("echo", "x"));
	expect_words("", 0, NO_WORDS);
	expect_words(" \t ", 0, NO_WORDS);
}

static void test_quotes_group_and_vanish(void **state)
{
	(void)state;
	expect_words("echo \"a  b\" 'c d'", 0, WORDS("echo", "a  b", "c d"));
	expect_words("x\"y z\"w", 0, WORDS("xy zw"));
	expect_words("say \"it's\" 'a \"b\"'", 0, WORDS("say", "it's", "a \"b\""));
	expect_words("\"\" ''", 0, WORDS("", ""));
}

static void test_status_expands_except_in_single_quotes(void **state)
{
	(void)state;
	expect_words("echo $?", 0, WORDS("echo", "0"));
	expect_words("echo $? \"[$?]\" '$?'", 127, WORDS("echo", "127", "[127]", "$?"));
	expect_words("x$?y", -13, WORDS("x-13y"));
	expect_words("echo $ $x ?", 5, WORDS("echo", "$", "$x", "?"));
	expect_words("$?$?", 2147483647, WORDS("21474836472147483647"));
}

static void test_hash_starts_a_comment_only_at_a_word(void **state)
{
	(void)state;
	expect_words("# nothing here", 0, NO_WORDS);
	expect_words("echo a # b c", 0, WORDS("echo", "a"));
	expect_words("echo a#b '#c' \"#d\"", 0, WORDS("echo", "a#b", "#c", "#d"));
}

static void test_open_quote_is_an_error(void **state)
{
	(void)state;
	char buf[64];
	char *argv[MAXV];
	assert_int_equal(ll_split_words("echo \"abc", 0, buf, sizeof(buf), argv, MAXV),
			 WORDS_E_QUOTE);
	assert_int_equal(ll_split_words("echo 'a\"", 0, buf, sizeof(buf), argv, MAXV),
			 WORDS_E_QUOTE);
}

static void test_word_limit(void **state)
{
	(void)state;
	char buf[64];
	char *argv[3];
	assert_int_equal(ll_split_words("a b", 0, buf, sizeof(buf), argv, 3), 2);
	assert_null(argv[2]);
	assert_int_equal(ll_split_words("a b c", 0, buf, sizeof(buf), argv, 3),
			 WORDS_E_TOO_MANY);
	assert_int_equal(ll_split_words("a", 0, buf, sizeof(buf), argv, 0),
			 WORDS_E_TOO_MANY);
	assert_int_equal(ll_split_words("", 0, buf, sizeof(buf), argv, 1), 0);
	assert_null(argv[0]);
}

/* Results that need more than size bytes fail, and nothing is written
 * past buf[size - 1]. */
static void test_buffer_limit(void **state)
{
	(void)state;
	char mem[32];
	char *argv[MAXV];
	struct { const char *line; int st; size_t size; int want; } cases[] = {
		{ "abc", 0, 4, 1 },                 /* "abc\0" fits exactly */
		{ "abcd", 0, 4, WORDS_E_TOO_LONG },
		{ "ab c", 0, 4, WORDS_E_TOO_LONG }, /* "ab\0c\0" is 5 bytes */
		{ "ab c", 0, 5, 2 },
		{ "$?", 12345, 5, WORDS_E_TOO_LONG },
		{ "$?", 1234, 5, 1 },
		{ "a", 0, 0, WORDS_E_TOO_LONG },
		{ "a b c d e f", 0, 12, 6 },
		{ "a b c d e f", 0, 11, WORDS_E_TOO_LONG },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(mem, 0x55, sizeof(mem));
		int r = ll_split_words(cases[i].line, cases[i].st, mem, cases[i].size,
				       argv, MAXV);
		assert_int_equal(r, cases[i].want);
		for (size_t k = cases[i].size; k < sizeof(mem); k++)
			assert_int_equal((unsigned char)mem[k], 0x55);
	}
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_blanks_separate),
	cmocka_unit_test(test_quotes_group_and_vanish),
	cmocka_unit_test(test_status_expands_except_in_single_quotes),
	cmocka_unit_test(test_hash_starts_a_comment_only_at_a_word),
	cmocka_unit_test(test_open_quote_is_an_error),
	cmocka_unit_test(test_word_limit),
	cmocka_unit_test(test_buffer_limit),
};

UNIT_MAIN(tests)
