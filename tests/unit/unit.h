/*
 * unit.h: what every host unit test includes first: cmocka with the
 * headers it needs, and UNIT_MAIN.
 */
#ifndef UNIT_UNIT_H
#define UNIT_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

/*
 * main() running the cmocka group `tests` (a file-scope array). stdout is
 * unbuffered so that cmocka's lines and sanitizer reports (stderr) appear
 * in the order they happened.
 */
#define UNIT_MAIN(tests)                                          \
	int main(void)                                            \
	{                                                         \
		setvbuf(stdout, NULL, _IONBF, 0);                 \
		return cmocka_run_group_tests(tests, NULL, NULL); \
	}

/* Sign of an int: -1, 0 or 1 (for comparing memcmp-style results). */
static inline int sign_of(int v)
{
	return (v > 0) - (v < 0);
}

/* A fixture file read whole into memory (fails the test if missing). */
struct blob {
	unsigned char *p;
	size_t len;
};

static inline struct blob load(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct blob b = { NULL, 0 };

	if (f == NULL)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	b.len = (size_t)ftell(f);
	rewind(f);
	b.p = malloc(b.len ? b.len : 1);
	assert_int_equal(fread(b.p, 1, b.len, f), b.len);
	fclose(f);
	return b;
}

#endif
