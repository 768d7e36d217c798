/*
 * The self-test runner. Tests run one after another on the calling CPU
 * and report in KTAP version 1 (Linux's Documentation/dev-tools/ktap.rst,
 * as KUnit and kselftest print it), closed by the summary line the
 * tests and the selftest program read:
 *   KTAP version 1
 *   1..N                              the tests the filter selects
 *   ok 1 NAME
 *   ok 2 NAME # SKIP why              ST_SKIP: nothing to check here
 *   # NAME: FAIL (file:line: what)    one per failed check, then
 *   not ok 3 NAME
 *   selftest: N passed, N failed      (a skipped test counts as passed)
 * A kernel built without them (no BAREMON_SELFTEST: the release
 * kernel, `make`) links no test_*.o and its runner says so: nothing
 * ran, which counts as one failure.
 */
#include <stdio.h>
#include <string.h>
#include "selftest.h"

#ifndef BAREMON_SELFTEST
int selftest_run(const char *filter)
{
	int passed;
	return selftest_run_counted(filter, &passed);
}

int selftest_run_counted(const char *filter, int *passed_out)
{
	(void)filter;
	kprintf("selftest: self-tests are not built in this kernel (make SELFTEST=1)\n");
	*passed_out = 0;
	return 1;
}
#else

extern const struct selftest __selftests_start[], __selftests_end[];

void selftest_fail(struct selftest_ctx *t, const char *file, int line,
		   const char *fmt, ...)
{
	if (t->failures++ == 0)
		kprintf("# %s: FAIL (%s:%d: ", t->name, file, line);
	else
		kprintf("# %s:   also (%s:%d: ", t->name, file, line);
	va_list ap;
	va_start(ap, fmt);
	vkprintf(fmt, ap);
	va_end(ap);
	kprintf(")\n");
}

void selftest_skip(struct selftest_ctx *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->skip, sizeof(t->skip), fmt, ap);
	va_end(ap);
	/* KTAP: a description and its diagnostic data hold no '#'. */
	for (char *c = t->skip; *c; c++)
		if (*c == '#')
			*c = ' ';
	if (!t->skip[0])
		snprintf(t->skip, sizeof(t->skip), "skipped");
}

int selftest_run(const char *filter)
{
	int passed;
	return selftest_run_counted(filter, &passed);
}

static bool selected(const struct selftest *s, const char *filter)
{
	return !filter || !*filter || strstr(s->name, filter);
}

int selftest_run_counted(const char *filter, int *passed_out)
{
	int planned = 0, passed = 0, failed = 0;
	for (const struct selftest *s = __selftests_start; s < __selftests_end; s++)
		planned += selected(s, filter);
	kprintf("KTAP version 1\n1..%d\n", planned);
	int number = 0;
	for (const struct selftest *s = __selftests_start; s < __selftests_end; s++) {
		if (!selected(s, filter))
			continue;
		struct selftest_ctx t = { .name = s->name, .failures = 0 };
		s->fn(&t);
		number++;
		if (t.failures) {
			failed++;
			kprintf("not ok %d %s\n", number, s->name);
		} else if (t.skip[0]) {
			passed++;
			kprintf("ok %d %s # SKIP %s\n", number, s->name, t.skip);
		} else {
			passed++;
			kprintf("ok %d %s\n", number, s->name);
		}
	}
	kprintf("selftest: %d passed, %d failed\n", passed, failed);
	*passed_out = passed;
	return failed;
}
#endif
