/*
 * test_string.c: libc-lite's string.h against glibc and hand-worked cases.
 * Buffers carry guard bytes around the area a function may touch, and
 * strings given to length-limited functions sit in exact-size heap blocks
 * so that AddressSanitizer reports any read past the limit.
 */
#include "unit.h"
#include <stdlib.h>
#include <string.h>
#include "ll.h"

#define GUARD 0xA5
#define BUF 160

/* A small deterministic generator, so failures reproduce. */
static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void fill_random(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)rng();
}

/* Copy of s in a heap block of exactly strlen(s) + 1 bytes. */
static char *exact(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	memcpy(p, s, n);
	return p;
}

static void test_memcpy(void **state)
{
	(void)state;
	unsigned char src[BUF], dst[BUF], want[BUF];

	for (size_t n = 0; n <= 140; n++)
		for (size_t so = 0; so < 9; so++)
			for (size_t d_off = 0; d_off < 9; d_off++) {
				fill_random(src, sizeof(src));
				memset(dst, GUARD, sizeof(dst));
				memset(want, GUARD, sizeof(want));
				memcpy(want + d_off, src + so, n);
				assert_ptr_equal(ll_memcpy(dst + d_off, src + so, n),
				                 dst + d_off);
				assert_memory_equal(dst, want, sizeof(dst));
			}
}

static void test_memmove_overlap(void **state)
{
	(void)state;
	unsigned char buf[BUF], want[BUF];

	for (size_t n = 0; n <= 140; n++)
		for (size_t src = 0; src < 20; src++)
			for (size_t dst = 0; dst < 20; dst++) {
				fill_random(buf, sizeof(buf));
				memcpy(want, buf, sizeof(buf));
				memmove(want + dst, want + src, n);
				assert_ptr_equal(ll_memmove(buf + dst, buf + src, n),
				                 buf + dst);
				assert_memory_equal(buf, want, sizeof(buf));
			}
}

static void test_memset(void **state)
{
	(void)state;
	unsigned char buf[BUF], want[BUF];
	const int values[] = { 0, 1, 0x7f, 0x80, 0xff, 0x1ab, -1, -128 };

	for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++)
		for (size_t n = 0; n <= 140; n++)
			for (size_t off = 0; off < 9; off++) {
				memset(buf, GUARD, sizeof(buf));
				memset(want, GUARD, sizeof(want));
				memset(want + off, values[v], n);
				assert_ptr_equal(ll_memset(buf + off, values[v], n),
				                 buf + off);
				assert_memory_equal(buf, want, sizeof(buf));
			}
}

static void test_memcmp(void **state)
{
	(void)state;
	unsigned char a[64] = { 1 }, b[64] = { 2 };

	assert_int_equal(ll_memcmp(a, b, 0), 0);
	for (int round = 0; round < 20000; round++) {
		size_t n = rng() % 40;
		fill_random(a, n);
		memcpy(b, a, n);
		if (n && rng() % 4)  /* mostly: one differing byte */
			b[rng() % n] = (unsigned char)rng();
		assert_int_equal(sign_of(ll_memcmp(a, b, n)),
		                 sign_of(memcmp(a, b, n)));
	}
	/* Bytes compare as unsigned char. */
	assert_true(ll_memcmp("\x80", "\x01", 1) > 0);
	assert_true(ll_memcmp("ab\xff", "ab\x00", 3) > 0);
}

static void test_memchr(void **state)
{
	(void)state;
	const char s[] = "abc\0def\xe9";

	assert_ptr_equal(ll_memchr(s, 'a', 8), s);
	assert_ptr_equal(ll_memchr(s, 'd', 8), s + 4);
	assert_ptr_equal(ll_memchr(s, '\0', 8), s + 3);
	assert_ptr_equal(ll_memchr(s, 0xe9, 8), s + 7);
	assert_ptr_equal(ll_memchr(s, 0x1e9, 8), s + 7);  /* (unsigned char)c */
	assert_ptr_equal(ll_memchr(s, 'd', 4), NULL);
	assert_ptr_equal(ll_memchr(s, 'a', 0), NULL);
	assert_ptr_equal(ll_memchr(s, 'z', 8), NULL);
}

static void test_strlen(void **state)
{
	(void)state;
	char buf[100];

	for (size_t n = 0; n < 90; n++) {
		memset(buf, 'x', n);
		buf[n] = '\0';
		char *p = exact(buf);
		assert_int_equal(ll_strlen(p), n);
		free(p);
	}
}

static void test_strnlen(void **state)
{
	(void)state;
	/* Not NUL-terminated: strnlen must stop at maxlen. */
	char *raw = malloc(10);

	memset(raw, 'y', 10);
	assert_int_equal(ll_strnlen(raw, 10), 10);
	assert_int_equal(ll_strnlen(raw, 3), 3);
	assert_int_equal(ll_strnlen(raw, 0), 0);
	raw[6] = '\0';
	assert_int_equal(ll_strnlen(raw, 10), 6);
	assert_int_equal(ll_strnlen(raw, 6), 6);
	assert_int_equal(ll_strnlen(raw, 5), 5);
	free(raw);
}

static const char *const strings[] = {
	"", "a", "b", "ab", "abc", "abd", "abcd", "ABC", "\x80", "\x7f",
	"a\xff", "a\x01", "hello world", "hello", "hello worle", "zzz",
};
#define NSTRINGS (sizeof(strings) / sizeof(strings[0]))

static void test_strcmp(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSTRINGS; i++)
		for (size_t j = 0; j < NSTRINGS; j++) {
			char *a = exact(strings[i]), *b = exact(strings[j]);
			assert_int_equal(sign_of(ll_strcmp(a, b)),
			                 sign_of(strcmp(a, b)));
			for (size_t n = 0; n < 14; n++)
				assert_int_equal(sign_of(ll_strncmp(a, b, n)),
				                 sign_of(strncmp(a, b, n)));
			free(a);
			free(b);
		}
}

static void test_strchr(void **state)
{
	(void)state;
	const char *s = "hello, w\xe9rld";
	const int cs[] = { 'h', 'l', 'o', 'd', 'z', '\0', 0xe9, (char)0xe9,
	                   0x100 + 'l' };

	for (size_t i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		assert_ptr_equal(ll_strchr(s, cs[i]), strchr(s, cs[i]));
		assert_ptr_equal(ll_strrchr(s, cs[i]), strrchr(s, cs[i]));
	}
	assert_ptr_equal(ll_strchr(s, '\0'), s + strlen(s));
	assert_ptr_equal(ll_strrchr(s, 'l'), s + 10);
	assert_ptr_equal(ll_strchr("", 'a'), NULL);
	assert_ptr_equal(ll_strrchr("", 'a'), NULL);
}

static void test_strcpy_strcat(void **state)
{
	(void)state;
	char buf[32];

	memset(buf, GUARD, sizeof(buf));
	assert_ptr_equal(ll_strcpy(buf, "abc"), buf);
	assert_memory_equal(buf, "abc\0\xa5", 5);
	assert_ptr_equal(ll_strcat(buf, "defgh"), buf);
	assert_memory_equal(buf, "abcdefgh\0\xa5", 10);
	assert_ptr_equal(ll_strcat(buf, ""), buf);
	assert_string_equal(buf, "abcdefgh");
	assert_ptr_equal(ll_strcpy(buf, ""), buf);
	assert_string_equal(buf, "");
}

static void test_strncpy(void **state)
{
	(void)state;
	char got[16], want[16];
	const char *srcs[] = { "", "abc", "abcdefgh", "abcdefghijkl" };

	for (size_t s = 0; s < 4; s++)
		for (size_t n = 0; n <= 12; n++) {
			memset(got, GUARD, sizeof(got));
			memset(want, GUARD, sizeof(want));
			/* glibc's strncpy, expressed without it (gcc
			   warns about truncating calls). */
			size_t len = strlen(srcs[s]);
			memcpy(want, srcs[s], len < n ? len : n);
			if (len < n)
				memset(want + len, 0, n - len);
			assert_ptr_equal(ll_strncpy(got, srcs[s], n), got);
			assert_memory_equal(got, want, sizeof(got));
		}
}

static void test_strlcpy(void **state)
{
	(void)state;
	char buf[8];

	memset(buf, GUARD, sizeof(buf));
	assert_int_equal(ll_strlcpy(buf, "hello", sizeof(buf)), 5);
	assert_string_equal(buf, "hello");
	assert_int_equal((unsigned char)buf[6], GUARD);

	assert_int_equal(ll_strlcpy(buf, "hello world", sizeof(buf)), 11);
	assert_string_equal(buf, "hello w");

	assert_int_equal(ll_strlcpy(buf, "exact!!", 8), 7);
	assert_string_equal(buf, "exact!!");

	memset(buf, GUARD, sizeof(buf));
	assert_int_equal(ll_strlcpy(buf, "abc", 1), 3);
	assert_int_equal(buf[0], '\0');
	assert_int_equal((unsigned char)buf[1], GUARD);

	memset(buf, GUARD, sizeof(buf));
	assert_int_equal(ll_strlcpy(buf, "abc", 0), 3);
	assert_int_equal((unsigned char)buf[0], GUARD);
	assert_int_equal(ll_strlcpy(NULL, "abcd", 0), 4);
}

static void test_strlcat(void **state)
{
	(void)state;
	char buf[8];

	ll_strlcpy(buf, "ab", sizeof(buf));
	assert_int_equal(ll_strlcat(buf, "cd", sizeof(buf)), 4);
	assert_string_equal(buf, "abcd");
	assert_int_equal(ll_strlcat(buf, "efghij", sizeof(buf)), 10);
	assert_string_equal(buf, "abcdefg");
	assert_int_equal(ll_strlcat(buf, "x", sizeof(buf)), 8);
	assert_string_equal(buf, "abcdefg");

	/* size smaller than the existing string: no NUL within size. */
	ll_strlcpy(buf, "abcdef", sizeof(buf));
	assert_int_equal(ll_strlcat(buf, "xyz", 3), 3 + 3);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(ll_strlcat(buf, "xyz", 0), 0 + 3);
	/* Exactly one byte of room: only the NUL fits. */
	assert_int_equal(ll_strlcat(buf, "xyz", 7), 9);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(ll_strlcat(buf, "", 8), 6);
	assert_string_equal(buf, "abcdef");
}

static void test_strstr(void **state)
{
	(void)state;
	const char *hay[] = { "", "a", "hello world", "aaab", "abababc",
	                      "mississippi", "xyz" };
	const char *needles[] = { "", "a", "ab", "abc", "world", "hello world!",
	                          "issip", "ississippi", "z", "aab", "q" };

	for (size_t h = 0; h < sizeof(hay) / sizeof(hay[0]); h++)
		for (size_t n = 0; n < sizeof(needles) / sizeof(needles[0]); n++) {
			char *a = exact(hay[h]), *b = exact(needles[n]);
			assert_ptr_equal(ll_strstr(a, b), strstr(a, b));
			free(a);
			free(b);
		}
}

static void test_strspn(void **state)
{
	(void)state;
	const char *s[] = { "", "abc", "  \t x", "123abc", "xyz" };
	const char *sets[] = { "", "a", "abc", " \t", "0123456789", "zyx" };

	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		for (size_t j = 0; j < sizeof(sets) / sizeof(sets[0]); j++) {
			assert_int_equal(ll_strspn(s[i], sets[j]),
			                 strspn(s[i], sets[j]));
			assert_int_equal(ll_strcspn(s[i], sets[j]),
			                 strcspn(s[i], sets[j]));
		}
}

/* Tokenize with both implementations and compare token by token. */
static void check_strtok(const char *input, const char *delim)
{
	char *a = exact(input), *b = exact(input);
	char *sa = NULL, *sb = NULL;
	char *ta = ll_strtok_r(a, delim, &sa);
	char *tb = strtok_r(b, delim, &sb);

	for (;;) {
		if (tb == NULL) {
			assert_null(ta);
			break;
		}
		assert_non_null(ta);
		assert_int_equal(ta - a, tb - b);
		assert_string_equal(ta, tb);
		ta = ll_strtok_r(NULL, delim, &sa);
		tb = strtok_r(NULL, delim, &sb);
	}
	/* Once exhausted it stays exhausted. */
	assert_null(ll_strtok_r(NULL, delim, &sa));
	assert_memory_equal(a, b, strlen(input) + 1);
	free(a);
	free(b);
}

static void test_strtok_r(void **state)
{
	(void)state;
	check_strtok("", " ");
	check_strtok("   ", " ");
	check_strtok("one", " ");
	check_strtok("one two  three ", " ");
	check_strtok("  lead,trail,,", " ,");
	check_strtok("a=b;c=d", "=;");
	check_strtok("no delims here", "");
	check_strtok("x", "x");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_memcpy),
	cmocka_unit_test(test_memmove_overlap),
	cmocka_unit_test(test_memset),
	cmocka_unit_test(test_memcmp),
	cmocka_unit_test(test_memchr),
	cmocka_unit_test(test_strlen),
	cmocka_unit_test(test_strnlen),
	cmocka_unit_test(test_strcmp),
	cmocka_unit_test(test_strchr),
	cmocka_unit_test(test_strcpy_strcat),
	cmocka_unit_test(test_strncpy),
	cmocka_unit_test(test_strlcpy),
	cmocka_unit_test(test_strlcat),
	cmocka_unit_test(test_strstr),
	cmocka_unit_test(test_strspn),
	cmocka_unit_test(test_strtok_r),
};

UNIT_MAIN(tests)
