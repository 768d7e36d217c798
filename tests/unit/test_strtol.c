/*
 * test_strtol.c: libc-lite's strto* against glibc's, value and end pointer,
 * over a fixed table and many generated strings; atoi, abs and labs.
 */
#include "unit.h"
#include <limits.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include "ll.h"

static const char *const inputs[] = {
	"", " ", "0", "-0", "+0", "1", "-1", "+1", "42", "  \t\n\v\f\r42xyz",
	"0x", "0X", "0x1g", "0xG", "0x10", "0X1f", "-0x10", "+0x7fffffffffffffff",
	"010", "08", "0b101", "017777777777777777777777", "0777",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"-18446744073709551615", "-18446744073709551616",
	"99999999999999999999999999999", "-99999999999999999999999999999",
	"zz", "ZZ", "Zz9", "-zik0zj", "1z", "- 1", "+-1", "--1", "+", "-",
	"123abc", "abc", "0xffffffffffffffff", "0x10000000000000000",
	"1111111111111111111111111111111111111111111111111111111111111111",
	"11111111111111111111111111111111111111111111111111111111111111111",
	"\x80" "1", "1\xff", "  -  5", "00000000000000000000000000001",
};
#define NINPUTS (sizeof(inputs) / sizeof(inputs[0]))

static const int bases[] = { 0, 2, 3, 7, 8, 10, 16, 17, 35, 36 };
#define NBASES (sizeof(bases) / sizeof(bases[0]))

/* Compare all four functions on one input and base. */
static void compare(const char *s, int base)
{
	char *e1, *e2;

	long l1 = ll_strtol(s, &e1, base), l2 = strtol(s, &e2, base);
	if (l1 != l2 || e1 != e2)
		fail_msg("strtol(\"%s\", %d): %ld end %td, glibc %ld end %td",
		         s, base, l1, e1 - s, l2, e2 - s);

	long long q1 = ll_strtoll(s, &e1, base), q2 = strtoll(s, &e2, base);
	if (q1 != q2 || e1 != e2)
		fail_msg("strtoll(\"%s\", %d): %lld, glibc %lld", s, base, q1, q2);

	unsigned long u1 = ll_strtoul(s, &e1, base), u2 = strtoul(s, &e2, base);
	if (u1 != u2 || e1 != e2)
		fail_msg("strtoul(\"%s\", %d): %lu end %td, glibc %lu end %td",
		         s, base, u1, e1 - s, u2, e2 - s);

	unsigned long long v1 = ll_strtoull(s, &e1, base);
	unsigned long long v2 = strtoull(s, &e2, base);
	if (v1 != v2 || e1 != e2)
		fail_msg("strtoull(\"%s\", %d): %llu, glibc %llu", s, base, v1, v2);
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < NINPUTS; i++)
		for (size_t b = 0; b < NBASES; b++)
			compare(inputs[i], bases[b]);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random junk made of characters that matter to the parser. */
static void random_string(char *buf, size_t cap)
{
	static const char alphabet[] = " \t+-0123456789abcdefxyzABCDEFXYZ";
	size_t n = rng() % (cap - 1);

	for (size_t i = 0; i < n; i++)
		buf[i] = alphabet[rng() % (sizeof(alphabet) - 1)];
	buf[n] = '\0';
}

/* A well-formed number in base b, possibly with sign, prefix and tail. */
static void random_number(char *buf, size_t cap, int b)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	size_t n = 0, len = 1 + rng() % 70;

	if (rng() % 2)
		buf[n++] = "+- \t"[rng() % 4];
	if (b == 16 && rng() % 2) {
		buf[n++] = '0';
		buf[n++] = rng() % 2 ? 'x' : 'X';
	}
	for (size_t i = 0; i < len && n < cap - 2; i++) {
		char c = digits[rng() % b];
		buf[n++] = rng() % 3 ? c : (char)toupper((unsigned char)c);
	}
	if (rng() % 2)
		buf[n++] = "zZ!. 9"[rng() % 6];
	buf[n] = '\0';
}

static void test_random(void **state)
{
	(void)state;
	char buf[96];

	for (int i = 0; i < 30000; i++) {
		random_string(buf, sizeof(buf));
		compare(buf, bases[rng() % NBASES]);
		int b = 2 + rng() % 35;
		random_number(buf, sizeof(buf), b);
		compare(buf, b);
		compare(buf, 0);
	}
}

/* Every 64-bit boundary value printed and parsed back, in bases 8/10/16. */
static void test_boundaries(void **state)
{
	(void)state;
	const unsigned long long vals[] = {
		0, 1, 127, 128, 255, 256, 0x7fffffff, 0x80000000, 0xffffffff,
		0x100000000ull, LLONG_MAX - 1, LLONG_MAX, (unsigned long long)LLONG_MAX + 1,
		ULLONG_MAX - 1, ULLONG_MAX,
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		const char *fmts[] = { "%llu", "-%llu", "0%llo", "-0%llo", "0x%llx",
		                       "-0x%llX" };
		for (size_t f = 0; f < 6; f++) {
			snprintf(buf, sizeof(buf), fmts[f], vals[i]);
			compare(buf, 0);
		}
	}
	assert_int_equal(ll_strtoull("18446744073709551615", NULL, 10), ULLONG_MAX);
	assert_int_equal(ll_strtol("-9223372036854775808", NULL, 10), LONG_MIN);
	assert_int_equal(ll_strtol("9223372036854775808", NULL, 10), LONG_MAX);
	assert_int_equal(ll_strtoul("-1", NULL, 10), ULONG_MAX);
	assert_int_equal(ll_strtoul("-18446744073709551616", NULL, 10), ULONG_MAX);
}

static void test_invalid_base(void **state)
{
	(void)state;
	const int bad[] = { -1, 1, 37, 100, INT_MIN };
	const char *s = "  123";
	char *end;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		end = (char *)1;
		assert_int_equal(ll_strtol(s, &end, bad[i]), 0);
		assert_ptr_equal(end, s);
		assert_int_equal(ll_strtoull(s, &end, bad[i]), 0);
		assert_ptr_equal(end, s);
	}
}

static void test_null_endptr(void **state)
{
	(void)state;
	assert_int_equal(ll_strtol("-77", NULL, 0), -77);
	assert_int_equal(ll_strtoul("0x7f", NULL, 0), 127);
	assert_int_equal(ll_strtoll("0755", NULL, 0), 0755);
	assert_int_equal(ll_strtoull("zz", NULL, 36), 35 * 36 + 35);
}

static void test_atoi_abs(void **state)
{
	(void)state;
	const char *s[] = { "0", "-1", "  +42", "2147483647", "-2147483648",
	                    "12abc", "", "x", "0x10", "010" };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		assert_int_equal(ll_atoi(s[i]), atoi(s[i]));
	assert_int_equal(ll_abs(0), 0);
	assert_int_equal(ll_abs(-5), 5);
	assert_int_equal(ll_abs(INT_MAX), INT_MAX);
	assert_int_equal(ll_abs(-INT_MAX), INT_MAX);
	assert_int_equal(ll_labs(-5000000000L), 5000000000L);
	assert_int_equal(ll_labs(LONG_MAX), LONG_MAX);
	assert_int_equal(ll_labs(-LONG_MAX), LONG_MAX);
	assert_int_equal(ll_labs(7), 7);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_table),
	cmocka_unit_test(test_random),
	cmocka_unit_test(test_boundaries),
	cmocka_unit_test(test_invalid_base),
	cmocka_unit_test(test_null_endptr),
	cmocka_unit_test(test_atoi_abs),
};

UNIT_MAIN(tests)
