/*
 * test_format.c: libc-lite's vsnprintf/snprintf/vformat against glibc's
 * vsnprintf. Most cases are generated: every combination of flags, width,
 * precision, length modifier and conversion over a set of values at the
 * edges of each type. The rest check truncation, the sink interface and
 * the documented differences (unsupported conversions print literally).
 */
#include "unit.h"
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ll.h"

static unsigned long checks;

/* Format with both implementations and demand identical results. */
static void check(const char *fmt, ...)
{
	char got[700], want[700];
	va_list a, b;

	va_start(a, fmt);
	va_copy(b, a);
	int rg = ll_vsnprintf(got, sizeof(got), fmt, a);
	int rw = vsnprintf(want, sizeof(want), fmt, b);
	va_end(b);
	va_end(a);
	checks++;
	if (rg != rw || strcmp(got, want) != 0)
		fail_msg("format \"%s\": got %d \"%s\", glibc %d \"%s\"",
		         fmt, rg, got, rw, want);
}

enum len { L_NONE, L_HH, L_H, L_L, L_LL, L_Z, L_J, L_T, NLENS };
static const char *const len_text[NLENS] = { "", "hh", "h", "l", "ll", "z",
                                             "j", "t" };

/* Pass raw as the argument type that conv with length len reads. */
static void check_int(const char *fmt, enum len len, char conv, uint64_t raw)
{
	bool sgn = conv == 'd' || conv == 'i';

	switch (len) {
	case L_NONE: case L_HH: case L_H:
		if (sgn)
			check(fmt, (int)raw);
		else
			check(fmt, (unsigned)raw);
		break;
	case L_L:
		if (sgn)
			check(fmt, (long)raw);
		else
			check(fmt, (unsigned long)raw);
		break;
	case L_LL:
		if (sgn)
			check(fmt, (long long)raw);
		else
			check(fmt, (unsigned long long)raw);
		break;
	case L_Z:
		if (sgn)
			check(fmt, (ptrdiff_t)raw);
		else
			check(fmt, (size_t)raw);
		break;
	case L_J:
		if (sgn)
			check(fmt, (intmax_t)raw);
		else
			check(fmt, (uintmax_t)raw);
		break;
	default:
		check(fmt, (ptrdiff_t)raw);
		break;
	}
}

static const uint64_t int_values[] = {
	0, 1, 7, 8, 9, 10, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x123456789abcdefull,
	0x7fffffffffffffffull, 0x8000000000000000ull, -1ull, -2ull, -200ull,
};

static const char *const widths[] = { "", "1", "6", "25" };
static const char *const precisions[] = { "", ".", ".0", ".1", ".4", ".23" };

/* The flag string for subset bits of "-0+ #". */
static void flag_text(unsigned bits, char *out)
{
	const char *all = "-0+ #";

	for (int i = 0; i < 5; i++)
		if (bits & (1u << i))
			*out++ = all[i];
	*out = '\0';
}

static void test_integers_generated(void **state)
{
	(void)state;
	const char *convs = "diouxX";
	char fmt[64], flags[8];

	for (unsigned fb = 0; fb < 32; fb++) {
		flag_text(fb, flags);
		for (size_t w = 0; w < 4; w++)
			for (size_t p = 0; p < 6; p++)
				for (int l = 0; l < NLENS; l++)
					for (const char *c = convs; *c; c++) {
						snprintf(fmt, sizeof(fmt), "[%%%s%s%s%s%c]",
						         flags, widths[w], precisions[p],
						         len_text[l], *c);
						for (size_t v = 0; v < sizeof(int_values) / 8; v++)
							check_int(fmt, l, *c, int_values[v]);
					}
	}
	print_message("%lu integer formats compared\n", checks);
}

static void test_star(void **state)
{
	(void)state;
	for (int w = -30; w <= 30; w += 3)
		for (int p = -5; p <= 12; p++) {
			check("%*d|%-*d", w, 12345, w, -12345);
			check("%.*d|%.*x", p, 42, p, 0);
			check("%*.*d|%0*.*i", w, p, -77, w, p, 77);
			check("%#*.*o|%+*.*u", w, p, 8u, w, p, 8u);
			check("%*.*s|%-*.*s", w, p, "hello", w, p, "hi");
			check("%*c|%-*c", w, 'x', w, 'y');
			check("%*p|%*.*p", w, (void *)0x1234, w, p, (void *)0xabc);
		}
	check("%*d", INT_MIN + 1, 1);   /* width 2^31 - 1 would be slow */
}

static void test_chars(void **state)
{
	(void)state;
	const char *fmts[] = { "%c", "%3c", "%-3c", "%03c", "%.0c", "%-+ #c" };

	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
		for (int c = 1; c < 256; c++)
			check(fmts[f], c);
	/* %c of NUL writes a NUL byte and counts it. */
	char buf[8];
	memset(buf, 'z', sizeof(buf));
	assert_int_equal(ll_snprintf(buf, sizeof(buf), "a%cb", 0), 3);
	assert_memory_equal(buf, "a\0b\0", 4);
}

static void test_strings(void **state)
{
	(void)state;
	const char *strs[] = { "", "a", "hello", "hello, world", NULL };
	const char *fmts[] = { "%s", "%10s", "%-10s", "%010s", "%.0s", "%.1s",
	                       "%.5s", "%.6s", "%.20s", "%3.2s", "%-3.2s",
	                       "%+ #s", "%-+ #010.3s" };
	char fmt[32];

	for (size_t s = 0; s < sizeof(strs) / sizeof(strs[0]); s++)
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
			snprintf(fmt, sizeof(fmt), "<%s>", fmts[f]);
			check(fmt, strs[s]);
		}
}

/* Precision bounds the read: the string need not be NUL-terminated. */
static void test_string_precision_bounds_read(void **state)
{
	(void)state;
	char *raw = malloc(4);
	char buf[16];

	memcpy(raw, "abcd", 4);
	assert_int_equal(ll_snprintf(buf, sizeof(buf), "%.4s|%.2s", raw, raw), 7);
	assert_string_equal(buf, "abcd|ab");
	free(raw);
}

static void test_pointers(void **state)
{
	(void)state;
	void *ptrs[] = { NULL, (void *)1, (void *)0xdeadbeef,
	                 (void *)0x7fffffffe000, (void *)UINTPTR_MAX };
	const char *fmts[] = { "%p", "%20p", "%-20p", "%020p", "%.0p", "%.3p",
	                       "%.16p", "%+p", "% p", "%#p", "%+020p", "%5.7p",
	                       "%-+ 30.20p" };

	for (size_t i = 0; i < sizeof(ptrs) / sizeof(ptrs[0]); i++)
		for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++)
			check(fmts[f], ptrs[i]);
	char buf[32];
	ll_snprintf(buf, sizeof(buf), "%p", (void *)0xABCDEF);
	assert_string_equal(buf, "0xabcdef");
	ll_snprintf(buf, sizeof(buf), "%p", NULL);
	assert_string_equal(buf, "(nil)");
}

static void test_percent_and_text(void **state)
{
	(void)state;
	check("%%");
	check("100%%");
	check("%%d%%%%");
	check("plain text, no directives");
	check("");
	check("%d%s%c%x%%%u", -1, "mid", 'q', 255u, 7u);
	check("%i %o %X %#X %#x %#o", 31, 8u, 0xabcu, 0xabcu, 0u, 0u);
	check("%hhd %hhu %hd %hu", 0x1ff, 0x1ff, 0x1ffff, 0x1ffff);
	check("%d %d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	check("%-+08.3d|% 08d|%+-8d|%--8d|%00008d", 5, 5, 5, 5, 5);
}

/* Every buffer size around the output length, in exact-size blocks. */
static void test_truncation(void **state)
{
	(void)state;
	const char *want = "value=-12345 name=truncation hex=0xbeef";
	size_t len = strlen(want);

	for (size_t size = 0; size <= len + 3; size++) {
		char *buf = size ? malloc(size) : NULL;
		if (buf)
			memset(buf, '#', size);
		int r = ll_snprintf(buf, size, "value=%d name=%s hex=%#x",
		                    -12345, "truncation", 0xbeefu);
		assert_int_equal(r, (int)len);
		if (size > 0) {
			size_t kept = size - 1 < len ? size - 1 : len;
			assert_memory_equal(buf, want, kept);
			assert_int_equal(buf[kept], '\0');
		}
		free(buf);
	}
}

static void test_large_output(void **state)
{
	(void)state;
	char small[8];

	check("%.600d", 5);
	check("%-600s|", "x");
	check("%0600x", 0xabcu);
	check("%#.650o", 1u);
	/* Far more than the buffer: still counted, still terminated. */
	assert_int_equal(ll_snprintf(small, sizeof(small), "%100000d", 1), 100000);
	assert_string_equal(small, "       ");
	assert_int_equal(ll_snprintf(small, sizeof(small), "%-100000d", 1), 100000);
	assert_string_equal(small, "1      ");
}

/* What the sink saw. */
struct collected {
	char text[1024];
	size_t len;
	unsigned calls;
};

static void collect(void *ctx, const char *s, size_t n)
{
	struct collected *c = ctx;

	assert_true(n > 0);
	assert_true(c->len + n < sizeof(c->text));
	memcpy(c->text + c->len, s, n);
	c->len += n;
	c->calls++;
}

static int do_vformat(fmt_sink sink, void *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	int r = ll_vformat(sink, ctx, fmt, ap);
	va_end(ap);
	return r;
}

static void test_vformat_sink(void **state)
{
	(void)state;
	struct collected c = { .len = 0 };
	char want[256];
	int r = do_vformat(collect, &c, "a%5sb%-4dc%%%.3x|%40s|", "str", 7, 5u, "");
	int w = snprintf(want, sizeof(want), "a%5sb%-4dc%%%.3x|%40s|", "str", 7, 5u, "");

	assert_int_equal(r, w);
	assert_int_equal(c.len, (size_t)w);
	assert_memory_equal(c.text, want, c.len);

	c.len = c.calls = 0;
	assert_int_equal(do_vformat(collect, &c, "", 0), 0);
	assert_int_equal(c.calls, 0);
}

static void count_only(void *ctx, const char *s, size_t n)
{
	(void)s;
	*(size_t *)ctx += n;
}

/* More than INT_MAX bytes: the sink gets them all, the result is -1. */
static void test_vformat_overflow(void **state)
{
	(void)state;
	size_t total = 0;

	assert_int_equal(do_vformat(count_only, &total, "%*d", INT_MAX, 1), INT_MAX);
	assert_int_equal(total, (size_t)INT_MAX);
	total = 0;
	assert_int_equal(do_vformat(count_only, &total, "%*d%c", INT_MAX, 1, 'x'), -1);
	assert_int_equal(total, (size_t)INT_MAX + 1);
	/* Width digits saturate instead of overflowing int. */
	total = 0;
	do_vformat(count_only, &total, "%.99999999999999999999d", 0);
	assert_int_equal(total, (size_t)INT_MAX);
}

/* Documented: unsupported conversions print literally. */
static void expect(const char *want, const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	int r = ll_vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	assert_string_equal(buf, want);
	assert_int_equal(r, (int)strlen(want));
}

static void test_unsupported_literal(void **state)
{
	(void)state;
	expect("%f", "%f", 1.5);
	expect("[%5.2f] 7", "[%5.2f] %d", 1.5, 7);   /* the int still lines up */
	expect("%e%E%g%G%a%A%F", "%e%E%g%G%a%A%F");
	expect("%n", "%n");
	expect("%lc|%ls", "%lc|%ls", 'x', "x");
	expect("%y %-08q", "%y %-08q");
	expect("%", "%");
	expect("%|%|%", "%5%|%-5%|%05%");   /* as glibc: %% ignores all */
	expect("abc%-", "abc%-");
	expect("x%5.3l", "x%5.3l");
	expect("%*q 9", "%*q %d", 3, 9);   /* '*' consumed its argument */
}

static void test_snprintf_direct(void **state)
{
	(void)state;
	char buf[128];

	assert_int_equal(ll_snprintf(buf, sizeof(buf), "%d-%u-%x", -1, 1u, 255u), 7);
	assert_string_equal(buf, "-1-1-ff");
	assert_int_equal(ll_snprintf(buf, sizeof(buf), "%lld %llu", LLONG_MIN,
	                             ULLONG_MAX), 41);
	assert_string_equal(buf, "-9223372036854775808 18446744073709551615");
	assert_int_equal(ll_snprintf(buf, sizeof(buf), "%zu %zd %td %jd",
	                             SIZE_MAX, (ptrdiff_t)-3, PTRDIFF_MIN,
	                             INTMAX_MIN), 65);
	assert_string_equal(buf, "18446744073709551615 -3 "
	                    "-9223372036854775808 -9223372036854775808");
	assert_int_equal(ll_snprintf(NULL, 0, "%s", "count me"), 8);
	assert_int_equal(ll_snprintf(buf, 1, "%s", "x"), 1);
	assert_string_equal(buf, "");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_integers_generated),
	cmocka_unit_test(test_star),
	cmocka_unit_test(test_chars),
	cmocka_unit_test(test_strings),
	cmocka_unit_test(test_string_precision_bounds_read),
	cmocka_unit_test(test_pointers),
	cmocka_unit_test(test_percent_and_text),
	cmocka_unit_test(test_truncation),
	cmocka_unit_test(test_large_output),
	cmocka_unit_test(test_vformat_sink),
	cmocka_unit_test(test_vformat_overflow),
	cmocka_unit_test(test_unsupported_literal),
	cmocka_unit_test(test_snprintf_direct),
};

UNIT_MAIN(tests)
