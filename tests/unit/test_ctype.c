/*
 * test_ctype.c: libc-lite's ctype.h against glibc's "C" locale for every
 * value glibc defines (EOF and 0..255), plus values outside that range.
 */
#include "unit.h"
#include <ctype.h>
#include <limits.h>
#include "ll.h"

/* Each classifier twice: libc-lite's and glibc's (as functions). */
struct classifier {
	const char *name;
	int (*ll)(int);
	int (*libc)(int);
};

#define CLASS(f) { #f, ll_##f, f }

static int (*volatile keep)(int);  /* defeats glibc's ctype macros */

static const struct classifier classes[] = {
	CLASS(isdigit), CLASS(isxdigit), CLASS(isspace), CLASS(isalpha),
	CLASS(isalnum), CLASS(isupper), CLASS(islower), CLASS(isprint),
	CLASS(ispunct),
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))

static void test_classes_match_glibc(void **state)
{
	(void)state;
	for (size_t k = 0; k < NCLASSES; k++)
		for (int c = EOF; c <= 255; c++) {
			int want = classes[k].libc(c) != 0;
			int got = classes[k].ll(c);
			if (got != want)
				fail_msg("%s(%d): got %d, want %d",
				         classes[k].name, c, got, want);
		}
}

static void test_classes_out_of_range(void **state)
{
	(void)state;
	const int odd[] = { INT_MIN, -129, -2, 256, 256 + 'a', 0x10030, INT_MAX };

	for (size_t k = 0; k < NCLASSES; k++)
		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
			assert_int_equal(classes[k].ll(odd[i]), 0);
}

static void test_case_mapping(void **state)
{
	(void)state;
	for (int c = EOF; c <= 255; c++) {
		assert_int_equal(ll_toupper(c), toupper(c));
		assert_int_equal(ll_tolower(c), tolower(c));
	}
	assert_int_equal(ll_toupper(256 + 'a'), 256 + 'a');
	assert_int_equal(ll_tolower(INT_MIN), INT_MIN);
	assert_int_equal(ll_toupper('q'), 'Q');
	assert_int_equal(ll_tolower('Q'), 'q');
}

/* A few values spelled out, in case glibc's locale were not "C". */
static void test_known_values(void **state)
{
	(void)state;
	keep = ll_isspace;
	assert_true(keep('\v') && keep('\f') && keep('\r') && keep(' '));
	assert_false(keep('\0') || keep('\x1c') || keep(0xa0));
	assert_true(ll_ispunct('!') && ll_ispunct('~') && ll_ispunct('/'));
	assert_false(ll_ispunct(' ') || ll_ispunct('a') || ll_ispunct(0x7f));
	assert_true(ll_isprint(' ') && ll_isprint('~'));
	assert_false(ll_isprint(0x7f) || ll_isprint('\t') || ll_isprint(0xe9));
	assert_true(ll_isxdigit('F') && ll_isxdigit('a'));
	assert_false(ll_isxdigit('g') || ll_isxdigit('G'));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_classes_match_glibc),
	cmocka_unit_test(test_classes_out_of_range),
	cmocka_unit_test(test_case_mapping),
	cmocka_unit_test(test_known_values),
};

UNIT_MAIN(tests)
